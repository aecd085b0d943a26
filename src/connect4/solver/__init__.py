"""The perfect Connect Four solver: exact scores in Pons' convention.

The package by concern:

* :mod:`~connect4.solver.solver`: :class:`Solver` (one board size, its own
  table, limits and statistics), with its results (:mod:`~connect4.solver.results`);
* :mod:`~connect4.solver.checks`: what a solver accepts (board sizes, threads,
  books) and :class:`SolverError`;
* :mod:`~connect4.solver.parallel`: Lazy SMP (every thread on one window)
  and the progress a long search reports (:class:`SolveProgress`);
* :mod:`~connect4.solver.narrow`: a score by null-window searches;
* :mod:`~connect4.solver.shared`: :func:`solver_for`, this thread's solver of
  a board with its default opening book, and the shortcuts :func:`solve`,
  :func:`analyze`, :func:`best_move`;
* the compiled kernel (``kernel``, ``layout``, ``backend``, ``native``) and
  the opening books (``book``).

Scores follow Pons' convention (see :mod:`connect4.core.score`).

>>> from connect4 import Position
>>> solve(Position.from_moves("4455"))
18
>>> Solver().analyze(Position.from_moves("445566"))
[17, 17, 18, 17, 17, 17, 18]
"""

from __future__ import annotations

from connect4.core.score import pick_best
from connect4.solver.backend import warm_up
from connect4.solver.checks import (
    DEFAULT_TT_MEGABYTES,
    MAX_THREADS,
    BookArrays,
    SolverError,
    check_book,
    check_threads,
    kernel_ready,
    position_key,
)
from connect4.solver.parallel import SolveProgress
from connect4.solver.results import BatchResult, ProbeResult, SolveResult
from connect4.solver.shared import (
    DEFAULT_BOOK,
    analyze,
    best_move,
    forget_thread_solvers,
    fresh_worker,
    job_pool,
    solve,
    solver_for,
)
from connect4.solver.solver import Solver

__all__ = [
    "DEFAULT_BOOK",
    "DEFAULT_TT_MEGABYTES",
    "MAX_THREADS",
    "BatchResult",
    "BookArrays",
    "ProbeResult",
    "SolveProgress",
    "SolveResult",
    "Solver",
    "SolverError",
    "analyze",
    "best_move",
    "check_book",
    "check_threads",
    "forget_thread_solvers",
    "fresh_worker",
    "job_pool",
    "kernel_ready",
    "pick_best",
    "position_key",
    "solve",
    "solver_for",
    "warm_up",
]
