"""A puzzle collection held in memory to pick puzzles from: by id, or near a rating with
a theme.

A :class:`PuzzleIndex` reads a puzzles file once (:func:`~connect4.learn.puzzlefile.read_puzzles`)
and then answers without the solver: :meth:`PuzzleIndex.get` a puzzle by its id,
:meth:`PuzzleIndex.pick` one near a rating (by default the collection's median),
with a theme if asked. As on lichess, a player asking again for the same rating gets
another puzzle: :meth:`~PuzzleIndex.pick` draws among those closest to the rating
(within :data:`WINDOW` rating points of it, the window doubling until one is
inside).

>>> import tempfile
>>> from pathlib import Path
>>> from connect4 import Position
>>> from connect4.learn.puzzlefile import write_puzzles
>>> from connect4.learn.puzzles import find_puzzle
>>> path = Path(tempfile.mkdtemp()) / "p.jsonl"
>>> write_puzzles(path, [find_puzzle(Position.from_moves("36777454272212734247"))])
>>> index = PuzzleIndex.load(path)  # one puzzle: a four to complete in column 3
>>> len(index), index.pick(rating=2000).solution, index.themes()
(1, '3', ('win-in-1',))
"""

from __future__ import annotations

import bisect
import os
import random
import re
import statistics
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from connect4.core.errors import GameError
from connect4.core.position import Position, parse_column
from connect4.learn.puzzlefile import read_puzzles
from connect4.learn.puzzles import MAX_RATING, THEMES, Puzzle, PuzzleError

__all__ = [
    "SHIPPED_PUZZLES",
    "WINDOW",
    "PuzzleIndex",
    "check_theme",
    "right_moves",
    "shipped_puzzles",
]

SHIPPED_PUZZLES = "puzzles_7x6.jsonl"
"""The puzzle collection that ships in the package's data folder (7x6)."""
WINDOW = 100  # rating points either side of the asked rating, doubled until one is inside
ID_PATTERN = re.compile(r"[0-9a-f]{1,64}")
WIN_IN = re.compile(r"win-in-[1-9][0-9]{0,2}")


def shipped_puzzles() -> Path | None:
    """The package's own puzzle collection, or ``None`` where this install has none."""
    path = Path(str(resources.files("connect4").joinpath("data", SHIPPED_PUZZLES)))
    return path if path.is_file() else None


def check_theme(theme: str) -> str:
    """``theme`` when it is one of :data:`~connect4.learn.puzzles.THEMES` (``win-in-N``
    with a number for N); :class:`PuzzleError` naming the themes otherwise.

    >>> check_theme("win-in-3")
    'win-in-3'
    >>> check_theme("fork")
    Traceback (most recent call last):
    ...
    connect4.learn.puzzles.PuzzleError: unknown theme 'fork': one of win-in-N (N a number), ...
    """
    if (theme in THEMES and theme != "win-in-N") or WIN_IN.fullmatch(theme):
        return theme
    known = ", ".join(name for name in THEMES if name != "win-in-N")
    raise PuzzleError(f"unknown theme {theme[:40]!r}: one of win-in-N (N a number), {known}")


def right_moves(puzzle: Puzzle) -> list[list[int]]:
    """The right moves (0-based columns) at each of the solver's side's turns of the
    solution: the solution's move, and at the last turn, where that move completes a
    four, every move that completes one (any four wins, as on lichess). A puzzle whose
    moves do not replay is a :class:`PuzzleError`.

    >>> from connect4.learn.puzzles import find_puzzle
    >>> right_moves(find_puzzle(Position.from_moves("36777454272212734247")))
    [[2]]
    """
    board = puzzle.board
    try:
        position = Position.from_moves(puzzle.position, board.width, board.height)
        line = [parse_column(token, board.width, i) for i, token in enumerate(puzzle.solution, 1)]
    except GameError as error:
        raise PuzzleError(f"puzzle {puzzle.id} does not replay: {error}") from None
    right: list[list[int]] = []
    for turn, move in enumerate(line):
        if turn % 2 == 0:
            moves = [move]
            if turn == len(line) - 1 and position.is_winning_move(move):
                moves = sorted(m for m in position.legal_moves() if position.is_winning_move(m))
            right.append(moves)
        position.play(move)
    return right


@dataclass
class PuzzleIndex:
    """A collection's puzzles by id and by rating (ascending), read once."""

    puzzles: tuple[Puzzle, ...]
    source: str = ""
    by_id: dict[str, Puzzle] = field(init=False, repr=False)
    random: random.Random = field(default_factory=random.Random, repr=False)

    def __post_init__(self) -> None:
        self.puzzles = tuple(sorted(self.puzzles, key=lambda p: (p.rating, p.id)))
        self.by_id = {p.id: p for p in self.puzzles}

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PuzzleIndex:
        """The index of a puzzles file (:class:`~connect4.learn.puzzlefile.PuzzleFileError`
        naming the file and line where it cannot be read)."""
        return cls(tuple(puzzle for _, puzzle in read_puzzles(path)), os.fspath(path))

    def __len__(self) -> int:
        return len(self.puzzles)

    def themes(self) -> tuple[str, ...]:
        """Every theme some puzzle of the collection has, sorted."""
        return tuple(sorted({theme for p in self.puzzles for theme in p.themes}))

    def get(self, puzzle_id: str) -> Puzzle | None:
        """The puzzle with this id, or ``None``; :class:`PuzzleError` for a string that
        is no id (lowercase hex digits)."""
        if not ID_PATTERN.fullmatch(puzzle_id):
            raise PuzzleError(f"{puzzle_id[:40]!r} is no puzzle id: hex digits")
        return self.by_id.get(puzzle_id)

    def pick(self, rating: int | None = None, theme: str | None = None) -> Puzzle | None:
        """A puzzle near ``rating`` (default: the median rating of those with the theme)
        with ``theme`` if given, drawn among the closest; ``None`` where none has the
        theme. A bad theme or a rating outside 0 to MAX_RATING is a :class:`PuzzleError`."""
        if rating is not None and not 0 <= rating <= MAX_RATING:
            raise PuzzleError(f"a rating is from 0 to {MAX_RATING}, not {rating}")
        pool = self.puzzles
        if theme is not None:
            wanted = check_theme(theme)
            pool = tuple(p for p in pool if wanted in p.themes)
        if not pool:
            return None
        ratings = [p.rating for p in pool]
        if rating is None:
            rating = int(statistics.median_low(ratings))
        window = WINDOW
        while True:
            low = bisect.bisect_left(ratings, rating - window)
            high = bisect.bisect_right(ratings, rating + window)
            if low < high:
                return pool[self.random.randrange(low, high)]
            window *= 2
