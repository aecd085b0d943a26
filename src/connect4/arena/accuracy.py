"""The accuracy judge: was each move of a game optimal, by the exact game value?

Tic-tac-toe is solved outright (memoised); Connect Four positions (standard
rules) go to the solver with a node budget per position, so a move the
solver cannot settle in budget is left unjudged (``None``).

>>> from connect4.arena.schedule import ArenaConfig
>>> config = ArenaConfig(players=(), game="tictactoe", accuracy_nodes=1)
>>> column_scores(start_position(config, "5"), config)  # corners draw, edges lose
[0, -1, 0, -1, None, -1, 0, -1, 0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connect4.arena.schedule import ArenaConfig, start_position
from connect4.core.game import Game
from connect4.core.position import Position

if TYPE_CHECKING:
    from connect4.solver import Solver

_TICTACTOE_VALUES: dict[int, int] = {}


def _tictactoe_value(game: Game) -> int:
    """Exact tic-tac-toe value for the side to move (+1 win, 0 draw, -1 loss), memoised."""
    key = game.key()
    if key in _TICTACTOE_VALUES:
        return _TICTACTOE_VALUES[key]
    if game.winner() is not None:
        value = -1  # the previous mover just won
    elif game.is_over():
        value = 0
    else:
        value = -2
        for move in game.legal_moves():
            game.play(move)
            value = max(value, -_tictactoe_value(game))
            game.undo()
    _TICTACTOE_VALUES[key] = value
    return value


def _tictactoe_scores(game: Game) -> list[int | None]:
    scores: list[int | None] = [None] * game.size
    for move in game.legal_moves():
        game.play(move)
        scores[move] = -_tictactoe_value(game)
        game.undo()
    return scores


_SCORE_CACHE: dict[tuple[int, int, int, int], list[int | None] | None] = {}
ACCURACY_TABLE_MEGABYTES = 16  # cleared before each position: small keeps that cheap


def accuracy_solver(width: int, height: int) -> Solver:
    """This process's solver for judging moves (with the default opening book if one ships).

    It clears its table before each position, so a judgement does not depend
    on which positions the worker saw before (the same on every executor).
    """
    from connect4.solver import thread_solver
    from connect4.solver.book import exact_default_book

    book = exact_default_book(width, height)  # None: fewer early positions judged
    return thread_solver(width, height, ACCURACY_TABLE_MEGABYTES, book)


def _connect4_scores(position: Position, budget: int) -> list[int | None] | None:
    """Per-column solver scores, or ``None`` when the solver is missing or out of budget."""
    cache_key = (position.width, position.height, position.key(), budget)
    if cache_key in _SCORE_CACHE:
        return _SCORE_CACHE[cache_key]
    try:
        solver = accuracy_solver(position.width, position.height)
    except ImportError:
        return None
    result = solver.run(position, analyze=True, max_nodes=budget)
    scores = list(result.column_scores) if result.complete and result.column_scores else None
    if len(_SCORE_CACHE) > 200_000:
        _SCORE_CACHE.clear()
    _SCORE_CACHE[cache_key] = scores
    return scores


def column_scores(game: Game, config: ArenaConfig) -> list[int | None] | None:
    """Exact scores of every move of ``game`` (``None`` where nobody can tell)."""
    if game.kind == "tictactoe":
        return _tictactoe_scores(game)
    if game.rules == "standard":
        position = Position.of(game)
        return _connect4_scores(position, config.accuracy_nodes)
    return None


def optimal_moves(config: ArenaConfig, moves: str, start: int) -> list[bool | None]:
    """For each move from ply ``start`` on: was it optimal? (``None``: not solved in budget).

    >>> config = ArenaConfig(players=(), game="tictactoe", accuracy_nodes=1)
    >>> optimal_moves(config, "5123", 0)  # 5 fine, 1 fine, 2 fine, 3 loses to 7
    [True, True, True, False]
    """
    board = start_position(config, moves[:start])
    flags: list[bool | None] = []
    for token in moves[start:]:
        move = board.parse_move(token)
        scores = column_scores(board, config)
        known = [s for s in (scores or []) if s is not None]
        if scores is None or not known or scores[move] is None:
            flags.append(None)
        else:
            flags.append(scores[move] == max(known))
        board.play(move)
    return flags
