"""What a :class:`~connect4.solver.solver.Solver` search returns.

>>> SolveResult(18, None, 120, 0.001, True, False).score
18
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["BatchResult", "ProbeResult", "SolveResult"]


@dataclass(frozen=True)
class SolveResult:
    """What one :meth:`Solver.run` found.

    ``score`` is ``None`` when a limit stopped the search (``complete`` is then
    False); ``column_scores`` is filled when ``analyze=True`` (``None`` for a
    full column, or for a column a limit left unknown).
    """

    score: int | None
    column_scores: list[int | None] | None
    nodes: int
    seconds: float
    complete: bool
    weak: bool


@dataclass(frozen=True)
class ProbeResult:
    """What one :meth:`Solver.probe` found: ``value`` is a fail-soft bound (``None``
    when a limit stopped the search, ``complete`` is then False)."""

    value: int | None
    nodes: int
    seconds: float
    complete: bool


class BatchResult(NamedTuple):
    """What :meth:`Solver.run_batch` found, per position."""

    scores: list[int]
    nodes: list[int]
    seconds: list[float]
