"""Many positions solved in one kernel call each run of them: no Python between two
positions, each position timed inside the kernel.

:meth:`connect4.solver.Solver.run_batch` is the door; this is its loop over the
kernel's batch entry point, between whose calls the table is cleared when its
generations run out (the clear is not timed, as a reference solver's clear before
each position is not).

>>> from connect4 import Position
>>> from connect4.solver.backend import SearchMemory
>>> from connect4.solver.checks import book_arrays
>>> memory = SearchMemory(4, 4, 1 << 20)
>>> book = book_arrays(None, None, 4, 4)
>>> result, wall = batch_search(memory, book, [Position(4, 4)], False, fresh=True)
>>> result.scores
[0]
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from connect4.core.position import Position
from connect4.solver.backend import SearchMemory, backend_for
from connect4.solver.layout import batch_runs
from connect4.solver.results import BatchResult

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["batch_search"]


def batch_search(
    memory: SearchMemory,
    book: tuple[NDArray[np.uint64], NDArray[np.int8]],
    positions: Sequence[Position],
    weak: bool,
    *,
    fresh: bool,
) -> tuple[BatchResult, float]:
    """Solve ``positions`` (of a board of up to 64 bits) on ``memory``'s first thread
    and table, probing ``book`` (keys, values); ``fresh``: each position on a table
    logically empty. The scores, nodes and seconds of each, and the kernel calls' time."""
    kernel = backend_for(memory.width, memory.height)
    n = len(positions)
    currents = np.array([p.current for p in positions], dtype=np.int64)
    masks = np.array([p.mask for p in positions], dtype=np.int64)
    plies = np.array([p.ply for p in positions], dtype=np.int64)
    scores = np.zeros(n, dtype=np.int64)
    nodes = np.zeros(n, dtype=np.uint64)
    ticks = np.zeros(n, dtype=np.uint64)
    keys, values = book
    wall = 0.0  # the kernel calls' time: not the table's clear between them
    for run in batch_runs(memory.table, n, fresh):
        start = time.perf_counter()
        kernel.batch(memory.threads[0], memory.table, keys, values, currents[run], masks[run],
                     plies[run], weak, fresh, scores[run], nodes[run], ticks[run])  # fmt: skip
        wall += time.perf_counter() - start
    total_ticks = float(ticks.sum())
    per_tick = wall / total_ticks if total_ticks > 0 else 0.0
    result = BatchResult(
        [int(s) for s in scores], [int(v) for v in nodes], [float(t) * per_tick for t in ticks]
    )
    return result, wall
