"""Game collections on disk, counted for the opening explorer: arena and lab results,
or plain files of move strings.

A file is recognised by its first line that is not blank: a JSON object means
the results of ``connect4 arena`` or ``connect4 lab`` (one game record a line;
its ``moves`` are counted, and its board where the record names one -- a record
that names none is of the default board, 7x6 Connect Four), anything else a file
of move strings, one game a line (blank lines skipped). A lab's output folder
stands for its ``results.jsonl``. Games of another board than the one explored
are passed over and counted apart; a line that is neither a game record nor a
game that replays ends the reading with :class:`CollectionError` naming the
file and the line. The last line of a results file, torn by a kill (no
newline, not JSON), is passed over as the arena's ``--resume`` would cut it.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "games.txt").write_text("4453\\n\\n44\\n")
>>> counter = GameCounter(Board())
>>> count_games_file(folder / "games.txt", counter)
CollectedFile(path='...games.txt', format='move strings', games=2, other_boards=0)
>>> _ = (folder / "bad.txt").write_text("4453\\n4448\\n")
>>> count_games_file(folder / "bad.txt", counter)
Traceback (most recent call last):
...
connect4.learn.collection.CollectionError: .../bad.txt line 2: move 4 ('8'): column 8 is out \
of range 1-7
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from connect4.core.errors import Connect4Error, GameError
from connect4.core.files import MAX_LINE_BYTES, FileError, open_input, raw_lines
from connect4.core.games import Board
from connect4.learn.explorer import GameCounter, GameIndex

__all__ = [
    "MAX_COLLECTION_BYTES",
    "CollectedFile",
    "CollectionError",
    "GameLine",
    "count_games_file",
    "count_games_files",
    "read_games",
]

MAX_COLLECTION_BYTES = 1 << 30  # the largest games file read (an arena's results at most)
LAB_RESULTS = "results.jsonl"  # a lab folder's games
WHAT = "games file"

Format = Literal["results", "move strings"]


class CollectionError(Connect4Error):
    """A games file that cannot be read or counted; the message names the file and line."""


@dataclass(frozen=True)
class CollectedFile:
    """What one file added to a :class:`~connect4.learn.explorer.GameCounter`: its
    ``format``, the ``games`` counted, and the games of ``other_boards`` passed over."""

    path: str
    format: Format
    games: int
    other_boards: int


@dataclass(frozen=True)
class GameLine:
    """One game of a games file: its ``moves``, its ``board`` (``None`` for a file of move
    strings, which names none), the file's ``format`` and where it is (``file line N``)."""

    moves: str
    board: Board | None
    format: Format
    where: str


def read_games(path: str | os.PathLike[str]) -> Iterator[GameLine]:
    """The games of one file (or a lab folder's results), in order: the one reader of
    games files (see the module's description). A line that is neither a game record
    nor a move string raises :class:`CollectionError`; a move string is not replayed
    here (the caller knows the board)."""
    file_path = Path(path)
    if file_path.is_dir() and (file_path / LAB_RESULTS).is_file():
        file_path = file_path / LAB_RESULTS
    name = os.fspath(file_path)
    found: Format | None = None
    try:
        with open_input(file_path, what=WHAT, max_bytes=MAX_COLLECTION_BYTES) as file:
            for number, raw in raw_lines(
                file, name=file_path, what=WHAT, max_line_bytes=MAX_LINE_BYTES
            ):
                if not raw.strip():
                    continue
                found = found or ("results" if raw.lstrip().startswith(b"{") else "move strings")
                where = f"{name} line {number}"
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise CollectionError(f"{where}: not UTF-8 text") from None
                if found == "move strings":
                    yield GameLine(text.strip(), None, found, where)
                    continue
                moves, board = _record(text, where, torn=not raw.endswith(b"\n"))
                if moves is not None:
                    yield GameLine(moves, board, found, where)
    except FileError as error:
        raise CollectionError(str(error)) from None


def count_games_file(
    path: str | os.PathLike[str], counter: GameCounter, *, strings_board: Board | None = None
) -> CollectedFile:
    """Count the games of one file (or a lab folder's results) into ``counter``.

    A file of move strings names no board: its games are of ``strings_board`` (by
    default the counter's own; a server that counts a collection for every board it
    serves says which board such files hold), passed over as games of another board
    when the counter counts another."""
    file_path = Path(path)
    if file_path.is_dir() and (file_path / LAB_RESULTS).is_file():
        file_path = file_path / LAB_RESULTS
    found: Format = "move strings"
    games = other = 0
    for game in read_games(file_path):
        found = game.format
        board = game.board or strings_board or counter.board
        if board != counter.board:
            other += 1
            continue
        _add(counter, game.moves, game.where)
        games += 1
    return CollectedFile(os.fspath(file_path), found, games, other)


def count_games_files(
    paths: Iterable[str | os.PathLike[str]], board: Board, *, strings_board: Board | None = None
) -> tuple[GameIndex, list[CollectedFile]]:
    """The games of every file of ``paths`` on ``board``, counted, and what each file gave
    (``strings_board``: see :func:`count_games_file`)."""
    counter = GameCounter(board)
    files = [count_games_file(path, counter, strings_board=strings_board) for path in paths]
    return counter.index(), files


def _add(counter: GameCounter, moves: str, where: str) -> None:
    try:
        counter.add(moves)
    except GameError as error:
        raise CollectionError(f"{where}: {error}") from None


def _record(text: str, where: str, *, torn: bool) -> tuple[str | None, Board]:
    """The moves and board of one results line (``None`` moves: a torn last line)."""
    try:
        value = json.loads(text)
    except ValueError as error:
        if torn:
            return None, Board()
        raise CollectionError(f"{where}: not JSON ({error})") from None
    if not isinstance(value, dict) or not isinstance(value.get("moves"), str):
        raise CollectionError(
            f'{where}: not a game record of connect4 arena or lab (no "moves" string); '
            "a games file is results (JSONL) or one move string a line"
        )
    named = {key: value[key] for key in ("kind", "width", "height", "rules") if key in value}
    try:
        board = Board(**named)
    except (GameError, TypeError) as error:
        raise CollectionError(f"{where}: the record's board is no board ({error})") from None
    return value["moves"], board
