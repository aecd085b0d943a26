"""Exact scores in Pons' convention: wins and losses by stones, words, best columns, mates.

A position's score is from the side to move's point of view: 0 a draw; a win
with the ``n``-th stone of the board scores ``(size + 2 - n) // 2`` (so the
side to move at ``stones`` stones, winning with its next stone, scores
:func:`win_score` ``(size + 1 - stones) // 2``); a loss the negative of the
opponent's win. A faster win scores more, a slower loss less badly.

The classic search (:mod:`connect4.classic.search`) scores game ends its own
way, ``MATE - n`` for a win with the ``n``-th stone; :func:`mate_value` and
:func:`score_of_mate` convert between the two.

>>> win_score(42, 0), loss_score(42, 0), score_bounds(42, 10)
(21, -21, (-16, 16))
>>> score_label(2, 0, 42), score_label(-1, 1, 42), score_label(0, 5, 42)
('win in 20', 'loss in 20', 'draw')
>>> pick_best([None, 3, 5, 5, 1])
2
>>> score_of_mate(mate_value(18, 4, 42), 42)
18
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

from connect4.core.bits import centre_order
from connect4.core.errors import Connect4Error, unknown_choice

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "MATE",
    "OUTCOME_WORDS",
    "TIE_BREAKS",
    "ScoreError",
    "TieBreak",
    "best_columns",
    "format_scores",
    "is_mate",
    "loss_score",
    "mate_value",
    "moves_to_end",
    "outcome_label",
    "pick_best",
    "score_bounds",
    "score_label",
    "score_of_mate",
    "win_score",
    "win_stone",
]

MATE = 1_000_000_000  # the classic search's value of a win with stone n is MATE - n
MATE_RANGE = 1000  # values within this of +-MATE are game ends (n is at most the board's cells)
TieBreak = Literal["center", "random"]
TIE_BREAKS: tuple[TieBreak, ...] = ("center", "random")
OUTCOME_WORDS: dict[int, str] = {1: "win", 0: "draw", -1: "loss"}

Stones = TypeVar("Stones", int, "NDArray[np.int64]")


class ScoreError(Connect4Error):
    """A score question without an answer: no playable column, an unknown tie-break."""


# ---------------------------------------------------------------- scores from stones
def win_score(size: int, stones: Stones) -> Stones:
    """The score of the side to move at ``stones`` stones winning with its next stone
    (the best score such a position can have). ``stones`` may be an ``int64`` array.

    >>> win_score(42, 0), win_score(42, 1), win_score(9, 4)
    (21, 21, 3)
    """
    return (size + 1 - stones) // 2


def loss_score(size: int, stones: Stones) -> Stones:
    """The score of the side to move at ``stones`` stones losing to the opponent's
    next stone (the worst score such a position can have).

    >>> loss_score(42, 0), loss_score(42, 41)
    (-21, 0)
    """
    return -win_score(size, stones + 1)


def score_bounds(size: int, stones: Stones) -> tuple[Stones, Stones]:
    """``(lowest, highest)`` score of a position of ``stones`` stones on a board of
    ``size`` cells.

    >>> score_bounds(42, 0), score_bounds(30, 10)
    ((-21, 21), (-10, 10))
    """
    return loss_score(size, stones), win_score(size, stones)


def win_stone(score: int, ply: int, size: int) -> int:
    """The number of the stone that ends the game (``1`` = the first stone) when the
    side to move at ``ply`` stones has the non-zero ``score``.

    >>> win_stone(21, 0, 42), win_stone(-21, 0, 42), win_stone(18, 4, 42)
    (1, 2, 7)
    """
    if score == 0:
        raise ScoreError("a draw has no winning stone")
    # (size + 2 - n) // 2 == |score| for two stone numbers n; the winner's parity picks one
    first = size + 1 - 2 * abs(score)
    winner_parity = (ply + 1) % 2 if score > 0 else ply % 2
    return first if first % 2 == winner_parity else first + 1


def moves_to_end(score: int, ply: int, size: int) -> int:
    """How many moves the winner still plays, the winning one included.

    >>> moves_to_end(21, 0, 42), moves_to_end(-21, 0, 42), moves_to_end(9, 7, 25)
    (1, 1, 1)
    """
    stone = win_stone(score, ply, size)
    return max(1, (stone - ply + 1) // 2)


def score_label(score: int | None, ply: int, size: int) -> str:
    """A score in words for the side to move at ``ply``: ``win in n``, ``loss in n``
    (``n`` counts the winner's moves from now, the winning one included),
    ``draw``, or ``unknown`` for ``None``.

    >>> score_label(21, 0, 42), score_label(-20, 1, 42), score_label(None, 3, 42)
    ('win in 1', 'loss in 1', 'unknown')
    """
    if score is None:
        return "unknown"
    if score == 0:
        return "draw"
    side = "win" if score > 0 else "loss"
    return f"{side} in {moves_to_end(score, ply, size)}"


def outcome_label(outcome: int | None) -> str:
    """The word of a proven outcome: 1 ``win``, 0 ``draw``, -1 ``loss``; ``""`` for ``None``.

    >>> outcome_label(-1), outcome_label(None)
    ('loss', '')
    """
    return "" if outcome is None else OUTCOME_WORDS[outcome]


def format_scores(scores: Sequence[int | None]) -> str:
    """Column scores on one line as Pons' solver prints them, ``-`` for a column without
    a score (full, or not solved).

    >>> format_scores([1, None, -2])
    '1 - -2'
    """
    return " ".join("-" if s is None else str(s) for s in scores)


# ---------------------------------------------------------------- best columns
def best_columns(scores: Sequence[int | None]) -> list[int]:
    """The columns with the highest score, left to right (``None``: not playable).

    >>> best_columns([None, 1, 3, 3, -2, 3, None]), best_columns([None, None])
    ([2, 3, 5], [])
    """
    known = [s for s in scores if s is not None]
    if not known:
        return []
    top = max(known)
    return [column for column, s in enumerate(scores) if s == top]


def pick_best(
    scores: Sequence[int | None], tie_break: str = "center", rng: random.Random | None = None
) -> int:
    """One best column: ties go to the one nearest the centre (``"center"``; left
    before right) or to one drawn by ``rng`` (``"random"``; a single best column
    draws nothing, so ``rng`` is left as it was).

    >>> pick_best([0, 2, None, 2, 1])
    1
    >>> pick_best([0, 2, None, 2, 1], "random", random.Random(3)) in (1, 3)
    True
    >>> pick_best([None, None])
    Traceback (most recent call last):
    ...
    connect4.core.score.ScoreError: no playable column
    """
    check_tie_break(tie_break)
    best = best_columns(scores)
    if not best:
        raise ScoreError("no playable column")
    if tie_break == "random" and len(best) > 1:
        return (rng or random.Random()).choice(best)
    order = centre_order(len(scores))
    return min(best, key=order.index)


def check_tie_break(tie_break: str) -> TieBreak:
    """``tie_break`` if it is one of :data:`TIE_BREAKS`, else :class:`ScoreError`.

    >>> check_tie_break("left")
    Traceback (most recent call last):
    ...
    connect4.core.score.ScoreError: unknown tie_break 'left': choose one of center, random
    """
    for known in TIE_BREAKS:
        if tie_break == known:
            return known
    raise ScoreError(unknown_choice("tie_break", tie_break, TIE_BREAKS))


# ---------------------------------------------------------------- the classic search's mates
def is_mate(value: float) -> bool:
    """True for a classic search value that scores a finished game (a forced win or loss).

    >>> is_mate(MATE - 7), is_mate(-(MATE - 42)), is_mate(35)
    (True, True, False)
    """
    return abs(value) > MATE - MATE_RANGE


def mate_value(score: int, ply: int, size: int) -> int:
    """The classic search's value of a Pons ``score`` for the side to move at ``ply``:
    ``MATE - n`` for a win with stone ``n``, ``-(MATE - n)`` for a loss, 0 a draw.

    >>> mate_value(21, 0, 42) == MATE - 1, mate_value(0, 5, 42)
    (True, 0)
    """
    if score == 0:
        return 0
    value = MATE - win_stone(score, ply, size)
    return value if score > 0 else -value


def score_of_mate(value: float, size: int) -> int | None:
    """The Pons score of a classic search value for the same side: a game end's
    score, 0 for 0 (a draw, when the search reached the end of every line), and
    ``None`` for any other value (a heuristic estimate).

    >>> score_of_mate(MATE - 1, 42), score_of_mate(-(MATE - 2), 42), score_of_mate(0.5, 42)
    (21, -21, None)
    """
    if value == 0:
        return 0
    if not is_mate(value):
        return None
    stone = MATE - abs(int(value))
    score = win_score(size, stone - 1)
    return score if value > 0 else -score
