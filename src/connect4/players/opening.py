"""An opening book in front of a search: the ``book=N`` key of the searching kinds.

A classic engine of any strength plays its first moves from a book: there the
outcome is decided far beyond any search horizon (Connect Four's first player
wins from the centre column, 41 plies ahead). With ``book=N`` a ``minimax``,
``alphabeta``, ``mcts`` or ``net`` player plays, for the game's first ``N`` plies,
the best-scored column by the board's shipped book of exact scores (ties go to
the column nearest the centre). The 7x6 book stores the positions of up to 8
stones and those of 12; a position between them is searched down to the book
by the exact solver (a few hundred nodes). Past the ``N`` plies or the book's
depth, on a board without a shipped book, or under other rules, the player's
own search decides. The levels use it to reach their error-rate targets.

>>> from connect4 import Position
>>> from connect4.core.games import DEFAULT_BOARD
>>> choice = OpeningBook(8, DEFAULT_BOARD).choose(Position.from_moves("44"))
>>> choice.move, choice.column_scores, choice.stats["source"]
(3, [-3, -3, -2, 1, -2, -3, -3], 'book')
>>> OpeningBook(2, DEFAULT_BOARD).choose(Position.from_moves("44")) is None  # past its plies
True
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING

from connect4.core.game import Game
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import pick_best
from connect4.players.base import MoveChoice, MoveStats
from connect4.players.options import Option, parse_int
from connect4.players.registry import PlayerSpecError

if TYPE_CHECKING:
    from connect4.players.perfect import PerfectEngine

__all__ = ["BOOK_OPTION", "OpeningBook", "opening_book"]

BOOK_OPTION = Option(
    "plies played from the board's opening book of exact scores (default 0: none)",
    parse_int(0, 42),
)
"""The ``book`` key, the same for every kind that takes it."""

GAP_NODES = 100_000
"""The most nodes the solver spends on a position between the book's stored plies
(a few hundred, measured: it stops at the book's next stored ply); past them, or
when the caller's limit stops it, the player's own search decides."""


@functools.cache
def _engine(width: int, height: int) -> PerfectEngine | None:
    """The board's shipped book behind the perfect player's lookups (loaded once a
    process; its solver is never made); ``None`` where no book ships for the board.
    Imported here: a player without a book never loads the solver's modules."""
    from connect4.players.perfect import PerfectEngine

    try:
        engine = PerfectEngine(width, height)
    except PlayerSpecError:  # a board the solver does not take
        return None
    return engine if engine.book is not None else None


class OpeningBook:
    """The book's best column for a game's first ``plies`` plies on ``board``."""

    def __init__(self, plies: int, board: Board) -> None:
        self.plies = plies
        self.board = board

    def warm_up(self) -> None:
        """Load the book, and the solver that searches between its stored plies, now,
        so that no move pays for them."""
        engine = _engine(self.board.width, self.board.height)
        if engine is not None:
            engine.prepare()

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice | None:
        """The book's move in ``game``, or ``None`` where the search is to decide."""
        if not isinstance(game, Position) or game.ply >= self.plies or game.is_over():
            return None
        engine = _engine(game.width, game.height)
        if game.rules != "standard" or engine is None or engine.book is None:
            return None
        start = time.perf_counter()
        scores, nodes = engine.book_scores(game), 0
        if scores is None and game.ply < engine.book.plies:  # down to the book's next ply
            within = (Limit() if limit is None else limit).tighter(nodes=GAP_NODES)
            scores, _, nodes = engine.solve_columns(game, within)
        if scores is None:
            return None
        move = pick_best(scores)
        stats = MoveStats(seconds=round(time.perf_counter() - start, 6), source="book")
        if nodes:
            stats["nodes"] = nodes
        return MoveChoice(move, scores[move], stats, proven=True, column_scores=scores)


def opening_book(plies: object, board: Board) -> OpeningBook | None:
    """The ``book`` key's value (from the spec or its level) as an :class:`OpeningBook`;
    ``None`` for 0 and under rules other than the standard ones (a level's book is
    no error there); :class:`PlayerSpecError` for tic-tac-toe, which has no book.

    >>> opening_book(12, Board("tictactoe"))
    Traceback (most recent call last):
    ...
    connect4.players.registry.PlayerSpecError: book=12: tic-tac-toe has no opening book
    """
    if not isinstance(plies, int) or plies <= 0:
        return None
    if board.kind != "connect4":
        raise PlayerSpecError(f"book={plies}: tic-tac-toe has no opening book")
    if board.rules != "standard":
        return None
    return OpeningBook(plies, board)
