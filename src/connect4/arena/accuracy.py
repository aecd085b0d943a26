"""The accuracy judge: was each move of a game optimal, by the exact game value?

The exact values are the game review's (:func:`connect4.review.exact_scores`):
tic-tac-toe is solved outright, Connect Four positions (standard rules) go to
the solver with a node budget per position, so a move the solver cannot
settle in budget is left unjudged (``None``). A move is optimal when it keeps
the best score (the review's ``best`` verdict).

>>> from connect4.arena.schedule import ArenaConfig
>>> config = ArenaConfig(players=(), game="tictactoe", accuracy_nodes=1)
>>> column_scores(start_position(config, "5"), config)  # corners draw, edges lose
[0, -2, 0, -2, None, -2, 0, -2, 0]
"""

from __future__ import annotations

from connect4.arena.schedule import ArenaConfig, start_position
from connect4.core.game import Game
from connect4.review import exact_scores

ACCURACY_TABLE_MEGABYTES = 16  # cleared before each position: small keeps that cheap


def column_scores(game: Game, config: ArenaConfig) -> list[int | None] | None:
    """Exact scores of every move of ``game`` (``None`` where nobody can tell)."""
    if game.kind == "connect4" and game.rules != "standard":
        return None
    judged = exact_scores(
        game, max_nodes=config.accuracy_nodes, table_megabytes=ACCURACY_TABLE_MEGABYTES
    )
    return list(judged.scores) if judged.complete else None


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
