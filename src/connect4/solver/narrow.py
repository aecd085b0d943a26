"""Finding a score by null-window searches.

A null-window search ``(alpha, alpha + 1)`` answers one question, "is the
score above ``alpha``?"; :func:`narrow` asks such questions until one score is
left. It serves the solver's searches from a guess or a proven lower bound,
on one thread or with every thread on each window (Lazy SMP).

>>> from connect4 import Position
>>> def exact(alpha: int, beta: int, cap: int | None) -> tuple[int, bool, int]:
...     return (beta if 5 >= beta else alpha), True, 1  # a fail-hard search of score 5
>>> narrow(Position.from_moves("445"), None, False, exact, None)  # -9, 9, then 0 to 5
(5, True, 8)
>>> narrow(Position.from_moves("445"), 5, False, exact, None)  # a right guess: two searches
(5, True, 2)
>>> narrow(Position.from_moves("445566"), None, False, exact, None)  # a win at once
(18, True, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from connect4.core.position import Position
from connect4.core.score import score_bounds, win_score
from connect4.solver.windows import next_window

WindowSearch = Callable[[int, int, "int | None"], tuple[int, bool, int]]
"""``window(alpha, beta, node budget)``: a fail-soft value, complete, nodes."""


def immediate_win(position: Position) -> bool:
    """True when the side to move wins with its next stone (the kernel's precondition:
    it is only called on positions without one)."""
    return any(position.is_winning_move(c) for c in position.legal_moves())


def narrow(
    position: Position,
    guess: int | None,
    weak: bool,
    window: WindowSearch,
    nodes: int | None,
    on_bounds: Callable[[int, int], None] | None = None,
    lower: int | None = None,
) -> tuple[int, bool, int]:
    """The exact score (its sign when ``weak``) by null-window searches
    ``window(alpha, beta, node budget)``, narrowing ``[lo, hi]`` as the kernel's
    solve does, testing nothing below ``lower``, a proven lower bound on the score,
    within ``nodes`` nodes in all (``None``: no budget): ``(score, complete, nodes)``.
    ``on_bounds(lo, hi)`` hears the bounds before each search.

    The tests follow :func:`next_window`: from ``guess`` when given (else ``lower``; one
    outside the bounds counts as none), else the halving's first tests and then 0, and
    from there each next to the value the last one returned."""
    size, ply = position.size, position.ply
    if immediate_win(position):
        return (1 if weak else win_score(size, ply)), True, 0
    lo, hi = (-1, 1) if weak else score_bounds(size, ply)
    if lower is not None:
        bound = (lower > 0) - (lower < 0) if weak else lower
        lo = min(hi, max(lo, bound))
    if guess is None:
        guess = lower
    guessed = guess is not None and not weak and lo <= guess < hi
    first = guess if guess is not None and guessed else 0
    total = tests = last = value = 0
    walking = False
    while lo < hi:
        last, walking = next_window(lo, hi, tests, first, guessed, walking, last, value)
        if on_bounds is not None:
            on_bounds(lo, hi)
        budget = None if nodes is None else max(0, nodes - total)
        value, complete, spent = window(last, last + 1, budget)
        total += spent
        tests += 1
        if not complete:
            return 0, False, total
        if value <= last:
            hi = value
        else:
            lo = value
    if weak:
        return (1 if lo > 0 else -1 if lo < 0 else 0), True, total
    return lo, True, total


def never() -> bool:
    """No caller's limit stops this search."""
    return False
