"""A bounded worker pool for solver and search work, off the event loop.

The numba solver kernel releases the GIL (``nogil=True``), so threads run
solves in parallel. :class:`WorkerPool` holds a fixed number of threads and
admits at most ``workers + queue`` jobs at a time: one more is refused at once
with :class:`PoolSaturated` (HTTP 503) instead of piling up. Waiting jobs
start in order of a priority (a start-by time: :meth:`WorkerPool.run_ranked`),
so cheap work can overtake expensive work.

The pool keeps no clock of its own: each job is waited for under its request's
:class:`~connect4.core.limits.Limit`. Once that limit expires (its deadline
passed, or its stop flag set: the server stopping) the request fails with
:class:`PoolTimeout` (HTTP 503); the pool also sets the flag when the waiting
request is cancelled or ``gone()`` says the client went away (polled every
:data:`GONE_POLL` seconds), so searches that read the flag (or a child's) stop
within a tenth of a second. A job's slot is only freed when its thread really
finishes, so the number of jobs in memory never exceeds the bound.

Threads of a pool created with ``nice > 0`` lower their own OS priority
(Linux gives each thread its own nice value), so long solves yield the CPU to
the event loop and to quick requests while still getting their share of a busy
machine.

>>> import asyncio
>>> async def demo() -> int:
...     pool = WorkerPool("demo", workers=1, queue=1)
...     try:
...         return await pool.run(Limit.within(5.0), sum, [1, 2, 3])
...     finally:
...         pool.shutdown()
>>> asyncio.run(demo())
6
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import os
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from queue import PriorityQueue
from typing import ParamSpec, TypeVar

from connect4.core.errors import BudgetExceeded
from connect4.core.limits import Limit, clock
from connect4.web.models import PoolStatus

P = ParamSpec("P")
T = TypeVar("T")

Job = Callable[[], None]
"""A queued call that reports its outcome to its own future."""
Gone = Callable[[], Awaitable[bool]]
"""Whether the client that waits for a job went away (Starlette's ``is_disconnected``)."""
GONE_POLL = 0.05  # seconds between two looks at whether the client went away


class PoolSaturated(BudgetExceeded):
    """Every worker is busy and the queue is full (HTTP 503)."""


class PoolTimeout(BudgetExceeded):
    """A job did not finish within its request's limit (HTTP 503)."""


class ClientGone(BudgetExceeded):
    """The client went away before its job finished: the job was stopped."""


def _lower_priority(nice: int) -> None:
    """Raise this thread's nice value by ``nice`` (Linux: per thread; elsewhere a no-op)."""
    if nice <= 0 or not hasattr(os, "setpriority"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice)
    except OSError:
        pass


class WorkerPool:
    """``workers`` threads, at most ``workers + queue`` admitted jobs, each waited for
    under its request's limit.

    Waiting jobs start in order of ``priority`` (lower first; equal priorities in
    arrival order), so the app can let cheap positions overtake expensive ones.
    """

    def __init__(
        self,
        name: str,
        *,
        workers: int,
        queue: int,
        nice: int = 0,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        if queue < 0:
            raise ValueError("queue must be >= 0")
        self.name = name
        self.workers = workers
        self.capacity = workers + queue
        self.busy = 0
        self.completed = 0
        self.rejected = 0
        self.timed_out = 0
        self._jobs: PriorityQueue[tuple[float, int, Job | None]] = PriorityQueue()
        self._order = itertools.count()
        self._threads = [
            threading.Thread(
                target=self._work, args=(nice,), name=f"connect4-{name}-{i}", daemon=True
            )
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def _work(self, nice: int) -> None:
        _lower_priority(nice)
        while True:
            _, _, job = self._jobs.get()
            if job is None:
                return
            job()

    async def run(
        self, limit: Limit, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Run ``function`` in a worker under the request's ``limit``; raise
        PoolSaturated or PoolTimeout instead of waiting.

        Its priority is the time now: first come, first served among such jobs.
        """
        call = functools.partial(function, *args, **kwargs)
        return await self.run_ranked(clock(), call, limit=limit)

    async def run_ranked(
        self,
        priority: float,
        call: Callable[[], T],
        *,
        limit: Limit,
        gone: Gone | None = None,
    ) -> T:
        """Run ``call()`` in a worker, ahead of waiting jobs with a higher ``priority``
        (in seconds on the :func:`~connect4.core.limits.clock`: a start-by time).

        ``limit`` is the request's limit (``call`` works under it or a child of it):
        the wait ends with :class:`PoolTimeout` once it expires, and it is stopped
        when it expires, this wait is cancelled, or ``gone()`` turns true."""
        if self.busy >= self.capacity:
            self.rejected += 1
            raise PoolSaturated(
                f"the server is busy: all {self.workers} {self.name} workers and "
                f"{self.capacity - self.workers} queue places are taken; retry shortly"
            )
        loop = asyncio.get_running_loop()
        self.busy += 1
        future: Future[T] = Future()

        def release(_: Future[T]) -> None:
            # RuntimeError: the event loop is gone, the server is shutting down.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._release)

        future.add_done_callback(release)

        def job() -> None:
            if not future.set_running_or_notify_cancel():
                return  # cancelled while it waited
            try:
                future.set_result(call())
            except BaseException as error:
                future.set_exception(error)

        self._jobs.put((priority, next(self._order), job))
        done = asyncio.wrap_future(future)
        # An outcome nobody waits for any more (timed out, client gone) is not an error.
        done.add_done_callback(lambda f: f.cancelled() or f.exception())

        try:
            return await self._wait(done, limit, gone)
        except BaseException as error:
            future.cancel()  # frees the slot now if the job has not started yet
            limit.stop()  # a running job stops at its next look at the flag
            if isinstance(error, PoolTimeout):
                self.timed_out += 1
            raise

    async def _wait(self, done: asyncio.Future[T], limit: Limit, gone: Gone | None) -> T:
        """The job's result; PoolTimeout once ``limit`` expires, ClientGone once ``gone()``."""
        loop = asyncio.get_running_loop()
        ended = loop.create_future()  # set by the limits' watcher once ``limit`` expires

        def end() -> None:
            if not ended.done():
                ended.set_result(None)

        def expire() -> None:
            loop.call_soon_threadsafe(end)

        with limit.watch(expire):
            while True:
                finished, _ = await asyncio.wait(
                    {done, ended},
                    timeout=None if gone is None else GONE_POLL,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if done in finished:
                    return done.result()
                if ended in finished:
                    raise self.expired(limit)
                if gone is not None and await gone():
                    raise ClientGone(f"the client went away: its {self.name} work was stopped")

    def expired(self, limit: Limit) -> PoolTimeout:
        """The error of a job whose request's ``limit`` expired: past its deadline, the
        seconds it was given; stopped before it (the server stopping), that it was."""
        allowed = limit.allowed()
        if allowed is None or limit.remaining():
            return PoolTimeout(f"the {self.name} work was stopped before it finished")
        return PoolTimeout(
            f"time limit exceeded: the {self.name} work took longer than {allowed:g} s"
        )

    def _release(self) -> None:
        self.busy -= 1
        self.completed += 1

    def status(self) -> PoolStatus:
        """Counters for the health endpoint."""
        return {
            "name": self.name,
            "workers": self.workers,
            "capacity": self.capacity,
            "busy": self.busy,
            "completed": self.completed,
            "rejected": self.rejected,
            "timed_out": self.timed_out,
        }

    def shutdown(self) -> None:
        """Stop the threads once the queued jobs are done (running jobs finish)."""
        for _ in self._threads:
            self._jobs.put((float("inf"), next(self._order), None))
