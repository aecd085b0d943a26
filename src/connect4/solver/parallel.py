"""The solver's parallel search (Lazy SMP), what a long search reports while it runs,
and how one search stops (a limit's slices, a caller's stop) and shares its table.

Every thread searches the same null window on one shared table; thread
``k > 0`` breaks move-ordering ties its own way, so the threads part ways
and fill the table for each other, and the first one done stops the others.
:func:`run_parallel` narrows a score (or every column's score) with such
windows; :class:`Tracker` hands the limit's progress sink a :class:`SolveProgress`.

>>> SolveProgress(2_000_000, 0.5, 0, 1, -3, 8, 2, None).nodes_per_second
4000000.0
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from connect4.core.bits import centre_order
from connect4.core.limits import Limit, clock, name_native_thread
from connect4.core.position import Position
from connect4.core.score import win_score
from connect4.solver.backend import SearchMemory, backend_for
from connect4.solver.layout import (
    ABORT,
    DEFER_PLY,
    LIMIT,
    NODES,
    NOISE_PLY,
    OPT_NOISE,
    OPT_SIGNAL,
    T_STOP,
)
from connect4.solver.narrow import immediate_win, narrow

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["HELPER_NOISE_DEPTH", "LazySmp", "SolveProgress", "Tracker", "run_parallel"]

NOISE_DEPTH = 1  # helper threads reorder moves this many plies below the root
HELPER_NOISE_DEPTH = 3  # as many for a process helping another's search on a shared table
DEFER_DEPTH = 8  # threads defer moves another thread searches this many plies below the root
PROGRESS_EVERY = 0.25  # seconds between progress reports


@dataclass(frozen=True)
class SolveProgress:
    """A long search's state, reported while it runs to its limit's progress sink
    (see :meth:`connect4.solver.Solver.run`).

    ``nodes`` counts every thread's nodes since the call began; ``alpha``/``beta``
    is the window being searched and ``lower``/``upper`` what the finished
    windows proved of the score; ``column`` is the column being scored by
    an ``analyze`` call (``None`` otherwise).
    """

    nodes: int
    seconds: float
    alpha: int
    beta: int
    lower: int
    upper: int
    threads: int
    column: int | None

    @property
    def nodes_per_second(self) -> float:
        """Nodes per second of wall time since the call began."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class Tracker:
    """What a running search reports to its limit's progress sink: the window, the
    bounds proved so far, the column being scored, and the nodes of finished windows."""

    def __init__(self, start: float, limit: Limit, threads: int, nodes: int) -> None:
        self.start = start
        self.limit = limit
        self.threads = threads
        self.nodes = nodes  # of every finished search of this call
        self.alpha = self.beta = self.lower = self.upper = 0
        self.column: int | None = None

    def bounds(self, lower: int, upper: int) -> None:
        """The score is known to be within ``[lower, upper]``."""
        self.lower, self.upper = lower, upper

    def window(self, alpha: int, beta: int) -> None:
        """A window's search begins."""
        self.alpha, self.beta = alpha, beta

    def report(self, running: int) -> None:
        """Report to the sink, ``running`` nodes into the current window."""
        if self.limit.progress is not None:
            nodes = self.nodes + running
            seconds = clock() - self.start
            args = (self.alpha, self.beta, self.lower, self.upper, self.threads, self.column)
            self.limit.report(SolveProgress(nodes, seconds, *args))

    def done(self, nodes: int) -> None:
        """A window's search ended after ``nodes`` nodes."""
        self.nodes += nodes


ParallelWindow = Callable[[Position, int, int, Limit, Tracker], tuple[int, bool, int]]
"""``window(position, alpha, beta, limit, tracker)``: one window searched by every
thread within ``limit``: ``(value, complete, nodes)``."""


class LazySmp:
    """A solver's helper threads (started on first use) searching one window together."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None

    def close(self) -> None:
        """End the helper threads (a later search starts them again)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def window(
        self,
        memory: SearchMemory,
        book: tuple[NDArray[np.uint64], NDArray[np.int8]],
        position: Position,
        alpha: int,
        beta: int,
        limit: Limit,
        tracker: Tracker,
    ) -> tuple[int, bool, int]:
        """One window searched by every thread: ``(value, complete, nodes)``.

        The first thread done sets the table's stop flag (inside the kernel),
        which ends the others' searches. This thread meanwhile reports progress
        and stops them all once the limit's nodes are spent or it expires.
        """
        if immediate_win(position):
            return win_score(position.size, position.ply), True, 0
        kernel = backend_for(memory.width, memory.height)
        table = memory.table
        mems = [memory.thread(i) for i in range(self.threads)]
        cap = (1 << 62) if limit.nodes is None else max(0, limit.nodes)
        for mem in mems:
            mem[NODES] = 0
            mem[ABORT] = 0
            mem[LIMIT] = cap
            mem[OPT_SIGNAL] = 1
        table[T_STOP] = 0
        if self._pool is None:
            self._pool = ThreadPoolExecutor(
                self.threads,
                thread_name_prefix="connect4-solver",
                initializer=name_native_thread,  # seen in top -H and /proc as searching
                initargs=("connect4-solver",),
            )
        found: list[int] = []
        finished = threading.Event()
        keys, values = book
        current, mask, ply = position.current, position.mask, position.ply

        def work(mem: NDArray[np.uint64]) -> None:
            try:
                value = kernel.probe(mem, table, keys, values, current, mask, ply, alpha, beta)
                if not mem[ABORT]:
                    found.append(value)
            finally:
                finished.set()

        with contextlib.ExitStack() as shared:  # thread k > 0 orders near the root its own way
            for index, mem in enumerate(mems):
                shared.enter_context(sharing(mem, position.ply, index, NOISE_DEPTH))
            futures: list[Future[None]] = [self._pool.submit(work, mem) for mem in mems]
            tracker.window(alpha, beta)
            try:
                while not found:
                    finished.wait(PROGRESS_EVERY)
                    finished.clear()
                    if found or all(f.done() for f in futures):
                        break  # a thread is done, or every thread stopped at the node cap
                    nodes = sum(int(mem[NODES]) for mem in mems)
                    if limit.spent(nodes):
                        table[T_STOP] = 1
                    tracker.report(nodes)
            finally:
                table[T_STOP] = 1  # the others stop (also on an error or an interrupt here)
                for future in futures:
                    future.result()
                table[T_STOP] = 0
                for mem in mems:
                    mem[OPT_SIGNAL] = 0
        nodes = sum(int(mem[NODES]) for mem in mems)
        tracker.done(nodes)
        if found:
            return found[0], True, nodes
        return 0, False, nodes


def run_parallel(
    position: Position,
    window: ParallelWindow,
    *,
    weak: bool,
    analyze: bool,
    guess: int | None,
    lower: int | None,
    limit: Limit,
    tracker: Tracker,
) -> tuple[int, list[int | None] | None, bool, int]:
    """A score (with ``analyze``: every column's) by windows each searched by every
    thread within ``limit``: ``(score, column scores, complete, nodes)``."""

    def narrowed(
        child: Position, guess: int | None, cap: int | None, lower: int | None = None
    ) -> tuple[int, bool, int]:
        def one(alpha: int, beta: int, nodes: int | None) -> tuple[int, bool, int]:
            return window(child, alpha, beta, limit.capped(nodes), tracker)

        return narrow(child, guess, weak, one, cap, tracker.bounds, lower)

    if not analyze:
        score, complete, nodes = narrowed(position, guess, limit.nodes, lower)
        return score, None, complete, nodes
    columns: list[int | None] = [None] * position.width
    size, ply = position.size, position.ply
    total = 0
    complete = True
    for column in centre_order(position.width):
        if not position.can_play(column) or not complete:
            continue  # full, or a limit stopped an earlier column: this one stays unknown
        if position.is_winning_move(column):
            columns[column] = 1 if weak else win_score(size, ply)
        elif ply + 1 >= size:
            columns[column] = 0
        else:
            child = position.copy()
            child.play(column)
            tracker.column = column
            score, complete, nodes = narrowed(child, None, limit.after(total).nodes)
            total += nodes
            if complete:
                columns[column] = -score
    known = [v for v in columns if v is not None]
    return (max(known) if complete and known else 0), columns, complete, total


@contextlib.contextmanager
def stopping_at(limit: Limit | None, table: NDArray[np.uint64]) -> Iterator[Callable[[], bool]]:
    """While a search on ``table`` runs under a caller's ``limit``: a watcher sets the
    table's stop slot once the limit expires (its deadline, its flag or a parent's),
    so every kernel on the table stops within milliseconds. Yields the test the
    slicing loops ask before going on; the slot is clear again afterwards."""
    if limit is None:
        yield lambda: False
        return
    try:
        with limit.watch(lambda: table.__setitem__(T_STOP, 1)):
            yield limit.expired
    finally:
        table[T_STOP] = 0


def sliced(
    search: Callable[[NDArray[np.uint64]], int],
    mem: NDArray[np.uint64],
    budget: Limit,
    stopped: Callable[[], bool],
) -> tuple[int, bool, int]:
    """``(result, complete, nodes)`` of ``search(mem)`` within a limit's node budget and
    deadline: the kernel stops at ``mem[LIMIT]`` nodes, so with a deadline it runs in
    slices of about 0.1 s (the table keeps what each slice proved); ``stopped`` (a
    caller's stop, see :func:`stopping_at`) is asked before each slice."""
    start = clock()
    mem[NODES] = 0
    cap = (1 << 62) if budget.nodes is None else max(0, int(budget.nodes))
    timed = budget.timed()
    chunk = 1 << 16  # nodes before the first clock check when a time limit is set
    while True:
        mem[LIMIT] = min(cap, int(mem[NODES]) + chunk) if timed else cap
        mem[ABORT] = 0
        if stopped():  # a stop before the limit was set (stopping_alone's slot)
            return 0, False, int(mem[NODES])
        result = search(mem)
        nodes = int(mem[NODES])
        if not mem[ABORT]:
            return result, True, nodes
        now, left = clock(), budget.remaining()
        if nodes >= cap or left is None or left <= 0.0 or stopped():
            return result, False, nodes
        rate = nodes / max(now - start, 1e-6)
        chunk = max(1 << 16, int(rate * min(0.1, left)))


@contextlib.contextmanager
def sharing(mem: NDArray[np.uint64], ply: int, helper: int, noise_depth: int) -> Iterator[None]:
    """A search (thread memory ``mem``, its root at ``ply``) on a table that other
    searches share: near its root it defers the moves another one is searching and
    marks its own, and as helper ``k > 0`` orders the moves of its first
    ``noise_depth`` plies its own way (a thread of one solver: :data:`NOISE_DEPTH`;
    a process helping another's task: :data:`HELPER_NOISE_DEPTH`)."""
    mem[DEFER_PLY] = ply + DEFER_DEPTH
    mem[OPT_NOISE] = helper
    mem[NOISE_PLY] = ply + noise_depth
    try:
        yield
    finally:
        mem[DEFER_PLY] = 0
        mem[OPT_NOISE] = 0


@contextlib.contextmanager
def stopping_alone(limit: Limit, mem: NDArray[np.uint64]) -> Iterator[Callable[[], bool]]:
    """As :func:`stopping_at` for one thread's search on a table that other processes
    search too: the watcher ends this search only, by its node limit (``mem[LIMIT]``,
    read at every node), and the table's stop slot stays theirs."""
    with limit.watch(lambda: mem.__setitem__(LIMIT, 0)):
        yield limit.expired
