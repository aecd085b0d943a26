"""Finding a score by null-window searches.

A null-window search ``(alpha, alpha + 1)`` answers one question, "is the
score above ``alpha``?"; :func:`narrow` asks such questions until one score is
left. It serves the solver's searches from a guess or a proven lower bound,
on one thread or with every thread on each window (Lazy SMP).

>>> from connect4 import Position
>>> def exact(alpha: int, beta: int, cap: int | None) -> tuple[int, bool, int]:
...     return (beta if 5 >= beta else alpha), True, 1  # a fail-hard search of score 5
>>> narrow(Position.from_moves("445"), None, False, exact, None)  # score, complete, nodes
(5, True, 6)
>>> narrow(Position.from_moves("445"), 5, False, exact, None)  # a right guess: two searches
(5, True, 2)
>>> narrow(Position.from_moves("445566"), None, False, exact, None)  # a win at once
(18, True, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from connect4.core.position import Position
from connect4.core.score import score_bounds, win_score

WindowSearch = Callable[[int, int, "int | None"], tuple[int, bool, int]]
"""``window(alpha, beta, node budget)``: a fail-soft value, complete, nodes."""


def immediate_win(position: Position) -> bool:
    """True when the side to move wins with its next stone (the kernel's precondition:
    it is only called on positions without one)."""
    return any(position.is_winning_move(c) for c in position.legal_moves())


def next_test(lo: int, hi: int) -> int:
    """The ``alpha`` of the next null-window test of a score known to lie in ``[lo, hi]``
    (``lo < hi``): halfway, or half the bound on the side of 0 that holds the middle
    (short wins and losses are cheap to prove), as the kernel's solve narrows.

    >>> next_test(-21, 21), next_test(-21, 0), next_test(3, 18)
    (-10, -11, 10)
    """
    med = lo + (hi - lo) // 2
    if med <= 0 and int(lo / 2) < med:
        return int(lo / 2)
    if med >= 0 and int(hi / 2) > med:
        return int(hi / 2)
    return med


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
    solve does (halving, biased toward 0), but testing ``guess`` and ``guess - 1``
    first when given (else ``lower``), and nothing below ``lower``, a proven lower
    bound on the score, within ``nodes`` nodes in all (``None``: no budget):
    ``(score, complete, nodes)``. ``on_bounds(lo, hi)`` hears
    the bounds before each search."""
    size, ply = position.size, position.ply
    if immediate_win(position):
        return (1 if weak else win_score(size, ply)), True, 0
    lo, hi = (-1, 1) if weak else score_bounds(size, ply)
    if lower is not None:
        bound = (lower > 0) - (lower < 0) if weak else lower
        lo = min(hi, max(lo, bound))
    if guess is None:
        guess = lower
    first = guess if guess is not None and not weak and lo <= guess < hi else None
    stepped = False
    total = 0
    while lo < hi:
        if first is not None and lo <= first < hi:
            med, guessed = first, True
        else:
            med, guessed = next_test(lo, hi), False
        first = None
        if on_bounds is not None:
            on_bounds(lo, hi)
        budget = None if nodes is None else max(0, nodes - total)
        value, complete, spent = window(med, med + 1, budget)
        total += spent
        if not complete:
            return 0, False, total
        if value <= med:
            hi = value
        else:
            lo = value
        if guessed and not stepped:
            # the guess, then the test next to the value it returned (fail-soft: the
            # score is at most, or at least, that value): when the score is the value,
            # two null-window searches in all; otherwise the halving goes on from there
            stepped = True
            first = value - 1 if value <= med else value
    if weak:
        return (1 if lo > 0 else -1 if lo < 0 else 0), True, total
    return lo, True, total


def never() -> bool:
    """No caller's limit stops this search."""
    return False
