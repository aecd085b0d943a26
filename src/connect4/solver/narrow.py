"""Finding a score by null-window searches, and the limits every search runs under.

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

import time
from collections.abc import Callable
from dataclasses import dataclass

from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import score_bounds, win_score

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
    max_nodes: int | None,
    on_bounds: Callable[[int, int], None] | None = None,
    lower: int | None = None,
) -> tuple[int, bool, int]:
    """The exact score (its sign when ``weak``) by null-window searches
    ``window(alpha, beta, node budget)``, narrowing ``[lo, hi]`` as the kernel's
    solve does (halving, biased toward 0), but testing ``guess`` and ``guess - 1``
    first when given (else ``lower``), and nothing below ``lower``, a proven lower
    bound on the score: ``(score, complete, nodes)``. ``on_bounds(lo, hi)`` hears
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
    total = 0
    while lo < hi:
        if first is not None and lo <= first < hi:
            # the guess, then (when the score is at most the guess) one below it:
            # right, that is two null-window searches
            med, first = first, first - 1
        else:
            med = lo + (hi - lo) // 2
            if med <= 0 and int(lo / 2) < med:
                med = int(lo / 2)
            elif med >= 0 and int(hi / 2) > med:
                med = int(hi / 2)
        if on_bounds is not None:
            on_bounds(lo, hi)
        budget = None if max_nodes is None else max(0, max_nodes - total)
        value, complete, nodes = window(med, med + 1, budget)
        total += nodes
        if not complete:
            return 0, False, total
        if value <= med:
            hi = value
        else:
            lo = value
            first = None
    if weak:
        return (1 if lo > 0 else -1 if lo < 0 else 0), True, total
    return lo, True, total


def least(limit: int | None, nodes: int) -> int:
    """``nodes``, or ``limit`` when that is lower.

    >>> least(None, 5), least(3, 5)
    (5, 3)
    """
    return nodes if limit is None else min(limit, nodes)


def deadline_of(
    start: float, max_seconds: float | None, deadline: float | None, limit: Limit | None = None
) -> float | None:
    """The earliest of ``start + max_seconds``, ``deadline`` and a caller's ``limit``'s
    deadline (``None``: no limit).

    >>> deadline_of(10.0, 2.0, None), deadline_of(10.0, 2.0, 11.0), deadline_of(1.0, None, None)
    (12.0, 11.0, None)
    """
    if max_seconds is not None:
        by_seconds = start + max(0.0, max_seconds)
        deadline = by_seconds if deadline is None else min(deadline, by_seconds)
    if limit is not None and limit.deadline is not None:
        deadline = limit.deadline if deadline is None else min(deadline, limit.deadline)
    return deadline


@dataclass(frozen=True)
class Budget:
    """What one search may spend: until ``deadline`` (a :func:`time.perf_counter`
    time) and ``nodes`` nodes; ``None``: no limit of that kind.

    >>> budget = Budget(nodes=100)
    >>> budget.first(30).nodes, budget.after(40).nodes, budget.spent(100), Budget().spent(10**9)
    (30, 60, True, False)
    """

    deadline: float | None = None
    nodes: int | None = None

    @classmethod
    def of(
        cls,
        start: float,
        seconds: float | None = None,
        nodes: int | None = None,
        deadline: float | None = None,
        limit: Limit | None = None,
    ) -> Budget:
        """The budget of a search started at ``start``: the earliest of ``start +
        seconds``, ``deadline`` and ``limit``'s deadline, and ``nodes``."""
        return cls(deadline_of(start, seconds, deadline, limit), nodes)

    def capped(self, nodes: int | None) -> Budget:
        """The same deadline with the node cap ``nodes`` (a part of the search)."""
        return Budget(self.deadline, nodes)

    def first(self, nodes: int) -> Budget:
        """The first part of the search, at most ``nodes`` nodes (searches that end within
        them stay on the calling thread, without the threads' overhead)."""
        return self.capped(least(self.nodes, nodes))

    def after(self, spent: int) -> Budget:
        """What is left once ``spent`` nodes are spent."""
        return self.capped(None if self.nodes is None else self.nodes - spent)

    def spent(self, nodes: int) -> bool:
        """True when ``nodes`` used every node, or the deadline has passed."""
        if self.nodes is not None and nodes >= self.nodes:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline


def never() -> bool:
    """No caller's limit stops this search."""
    return False
