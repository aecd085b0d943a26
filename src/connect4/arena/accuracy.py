"""The arena's judge: every finished game graded by the game review (:mod:`connect4.review`).

With ``--review`` (``ArenaConfig.accuracy_nodes > 0``, the solver's node
budget per position) each game's moves get the review's verdicts: ``best``,
``good``, ``mistake``, ``blunder``, or ``None`` ("not proven": the solver did
not settle the position within the budget). The opening the arena imposed
is played by nobody, so only the moves after it are judged. A player's
accuracy is the review's: the share of ``best`` moves among the proven ones.
Every position starts from a cleared solver table, so the verdicts (and which
positions stay unproven) do not depend on the worker or on earlier games.

>>> from connect4.core import Board
>>> config = ArenaConfig(players=(), board=Board("tictactoe"), accuracy_nodes=1)
>>> game_verdicts(config, "5123", 0)  # 3 loses to 7
['best', 'best', 'best', 'mistake']
>>> game_verdicts(config, "5123", 2)
['best', 'mistake']
"""

from __future__ import annotations

from connect4.arena.record import ResultLine, board_of
from connect4.arena.schedule import ArenaConfig, ArenaError
from connect4.core.limits import Limit
from connect4.review import Review, ReviewError, Verdict, review


def check_reviewable(config: ArenaConfig) -> None:
    """``ArenaError`` when a review is asked for games the review cannot grade."""
    if config.accuracy_nodes > 0 and config.board.rules != "standard":
        raise ArenaError(
            "the solver handles the standard rules only, so count-fours games cannot be reviewed",
            setting="accuracy_nodes",
        )


def game_verdicts(config: ArenaConfig, moves: str, opening: int) -> list[Verdict | None]:
    """The review's verdict on each move after the first ``opening`` plies of ``moves``."""
    graded = review(
        moves,
        config.board,
        limit=Limit(nodes=config.accuracy_nodes),
        opening=opening,
        reuse_table=False,
    )
    return [row.verdict for row in graded.plies[opening:]]


def with_verdicts(record: ResultLine, config: ArenaConfig) -> ResultLine:
    """``record`` with its ``verdicts`` (when the config asks for the review)."""
    if config.accuracy_nodes <= 0:
        return record
    updated = record.copy()
    updated["verdicts"] = game_verdicts(config, record["moves"], len(record["opening"]))
    return updated


def review_record(record: ResultLine, *, limit: Limit | None = None) -> Review:
    """The full review of an arena game within ``limit`` (see
    :func:`~connect4.review.review`): board and rules from the record, the opening
    counted for nobody, the players' specs as names.

    Raises :class:`~connect4.review.ReviewError` for a record that does not say
    its board (written before records carried it) or that cannot be reviewed.
    """
    try:
        board = board_of(record)
        if board is not None:
            return review(
                record["moves"],
                board,
                limit=limit,
                opening=len(record["opening"]),
                names=(record["red"], record["yellow"]),
            )
    except ValueError as error:
        raise ReviewError(f"game {record['game']}: {error}") from None
    moves = record["moves"] or '""'
    raise ReviewError(
        f"game {record['game']} does not record its board (written by an older "
        f"connect4); review its moves {moves} directly, on their board"
    )
