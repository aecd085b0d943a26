"""Exact scores of every move: the solver for Connect Four, full search for tic-tac-toe.

Scores follow Pons' convention from the mover's point of view
(:mod:`connect4.core.score`: 0 draw; positive the mover wins, larger sooner;
negative the mover loses), on both games, so a fast win and a slow one are
told apart. A column or cell that cannot be played, or that
the solver could not settle within its budget, has no score (``None``).

>>> from connect4 import TicTacToe
>>> exact_scores(TicTacToe.from_moves("5")).scores  # corners draw, edges lose
(0, -2, 0, -2, None, -2, 0, -2, 0)
>>> exact_scores(TicTacToe.from_moves("5")).complete
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from connect4.core.errors import Connect4Error
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import pick_best, win_score

if TYPE_CHECKING:
    from connect4.solver import Solver

__all__ = [
    "BestLine",
    "MoveScores",
    "ReviewError",
    "best_line",
    "cached_scores",
    "clear_cache",
    "exact_scores",
    "remember_scores",
    "review_solver",
    "tictactoe_value",
]

REVIEW_TABLE_MEGABYTES = 16  # each position starts from a cleared table: small keeps that cheap


class ReviewError(Connect4Error):
    """A game the exact values cannot be computed for (e.g. count-fours rules)."""


@dataclass(frozen=True)
class MoveScores:
    """Every move's exact score in one position (``None``: not playable or not settled).

    ``complete`` is True when every playable move was settled.
    """

    scores: tuple[int | None, ...]
    complete: bool


@dataclass(frozen=True)
class BestLine:
    """The principal variation: from a position, the best move of each side in turn.

    ``moves`` are the game's own move numbers (0-based columns or cells), in play
    order; ``complete`` is True when the line reaches the game's end (False: a
    limit stopped it first, or ``max_moves`` did).
    """

    moves: tuple[int, ...]
    complete: bool


_TICTACTOE_VALUES: dict[int, int] = {}
"""Every tic-tac-toe position's exact score, filled on demand: bounded by the game itself
(5,478 legal positions; ~0.6 MB when full), so it needs no eviction."""


def tictactoe_value(game: Game) -> int:
    """The exact score of a tic-tac-toe position for the side to move (memoised).

    >>> from connect4 import TicTacToe
    >>> tictactoe_value(TicTacToe()), tictactoe_value(TicTacToe.from_moves("5213"))
    (0, 3)
    """
    key = game.key()
    if key in _TICTACTOE_VALUES:
        return _TICTACTOE_VALUES[key]
    if game.winner() is not None:  # the previous mover won with stone number `ply`
        value = -win_score(game.size, game.ply - 1)
    elif game.is_over():
        value = 0
    else:
        value = -game.size
        for move in game.legal_moves():
            game.play(move)
            value = max(value, -tictactoe_value(game))
            game.undo()
    _TICTACTOE_VALUES[key] = value
    return value


def review_solver(
    width: int,
    height: int,
    table_megabytes: int = REVIEW_TABLE_MEGABYTES,
    *,
    reuse_table: bool = False,
) -> Solver:
    """This thread's solver for judging moves (:func:`connect4.solver.solver_for`:
    the board size's exact default book, if one ships).

    By default it clears its table before each position, so a judgement does
    not depend on which positions it saw before; ``reuse_table`` keeps the
    entries from one position to the next (a game's positions share most of
    their trees: about half the work).
    """
    from connect4.solver import solver_for

    return solver_for(width, height, tt_megabytes=table_megabytes, reuse_table=reuse_table)


_SCORE_CACHE: dict[tuple[int, int, int, int | None], MoveScores] = {}


def clear_cache() -> None:
    """Forget the Connect Four scores computed so far (the next review solves afresh)."""
    _SCORE_CACHE.clear()


def cached_scores(position: Position, nodes: int | None) -> MoveScores | None:
    """The scores of ``position`` found earlier with the same node budget, if kept."""
    return _SCORE_CACHE.get((position.width, position.height, position.key(), nodes))


def remember_scores(position: Position, nodes: int | None, scores: MoveScores) -> None:
    """Keep the scores of ``position`` for later reviews (the cache is bounded)."""
    if len(_SCORE_CACHE) > 200_000:
        _SCORE_CACHE.clear()
    _SCORE_CACHE[(position.width, position.height, position.key(), nodes)] = scores


def repeatable(limit: Limit | None) -> bool:
    """True when what a search under ``limit`` left unproven is the same every time:
    only its node budget cut it short (no deadline, not stopped).

    >>> repeatable(None), repeatable(Limit(nodes=5)), repeatable(Limit.within(10.0))
    (True, True, False)
    """
    return limit is None or (not limit.timed() and not limit.expired())


def _connect4_scores(
    position: Position,
    limit: Limit | None,
    table_megabytes: int,
    reuse_table: bool,
) -> MoveScores:
    nodes = None if limit is None else limit.nodes
    cached = cached_scores(position, nodes)
    if cached is not None:
        return cached
    unknown = MoveScores((None,) * position.width, False)
    solver = review_solver(
        position.width, position.height, table_megabytes, reuse_table=reuse_table
    )
    result = solver.run(position, analyze=True, limit=limit)
    scores = MoveScores(tuple(result.column_scores or unknown.scores), bool(result.complete))
    if scores.complete or (repeatable(limit) and not reuse_table):  # the same every time
        remember_scores(position, nodes, scores)
    return scores


def exact_scores(
    game: Game,
    *,
    limit: Limit | None = None,
    table_megabytes: int = REVIEW_TABLE_MEGABYTES,
    reuse_table: bool = False,
) -> MoveScores:
    """Every move's exact score in ``game`` (which must not be over).

    Connect Four (standard rules) goes to the solver with the board size's
    exact opening book, within ``limit`` (its deadline, node budget and stop flag;
    ``reuse_table``: see :func:`review_solver`);
    tic-tac-toe is searched in full.
    Count-fours raises :class:`ReviewError`: the solver does not handle it.

    >>> from connect4 import Position
    >>> exact_scores(Position.from_moves("445566")).scores
    (17, 17, 18, 17, 17, 17, 18)
    >>> exact_scores(Position.from_moves("4455"), limit=Limit(nodes=0)).complete  # needs a search
    False
    """
    if game.is_over():
        raise ReviewError(f"the game is already over ({game.result_text()}): no move to score")
    if game.kind == "tictactoe":
        scores: list[int | None] = [None] * game.size
        for move in game.legal_moves():
            game.play(move)
            scores[move] = -tictactoe_value(game)
            game.undo()
        return MoveScores(tuple(scores), True)
    if game.rules != "standard":
        raise ReviewError(
            f"the solver handles the standard rules only, not {game.rules}: "
            "count-fours games cannot be reviewed"
        )
    return _connect4_scores(Position.of(game), limit, table_megabytes, reuse_table)


def best_line(
    game: Game,
    *,
    limit: Limit | None = None,
    max_moves: int | None = None,
    table_megabytes: int = REVIEW_TABLE_MEGABYTES,
) -> BestLine:
    """The best line from ``game`` (the principal variation of exact play): at each
    position the best-scored move (:func:`exact_scores`; ties to the centre, as
    :func:`~connect4.core.score.pick_best`), until the game ends, ``max_moves`` are
    played, or ``limit`` (deadline, node budget, stop flag) leaves a position
    unsettled. Each side plays the fastest win or slowest loss, so a won line ends
    in a four. ``game`` itself is left as it was.

    >>> from connect4 import Position, TicTacToe
    >>> best_line(Position.from_moves("4455")).moves  # three in a row, any reply, the four
    (2, 3, 1)
    >>> best_line(TicTacToe.from_moves("5")).complete
    True
    >>> best_line(Position.from_moves("44"), limit=Limit(nodes=0))
    BestLine(moves=(), complete=False)
    """
    if game.is_over():
        raise ReviewError(f"the game is already over ({game.result_text()}): no line to play")
    board = game.copy()
    moves: list[int] = []
    while not board.is_over() and (max_moves is None or len(moves) < max_moves):
        judged = exact_scores(board, limit=limit, table_megabytes=table_megabytes, reuse_table=True)
        if not judged.complete:
            break
        move = pick_best(judged.scores)
        moves.append(move)
        board.play(move)
    return BestLine(tuple(moves), board.is_over())
