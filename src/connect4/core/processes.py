"""Work in worker processes: the one pool factory, the one parent-death policy.

Every command that spreads work over processes (book build, datasets, the
arena, the lab, training data) gets its executor from :func:`make_executor`
and hands it tasks with :func:`run_chunks` or :func:`map_unordered`:

* **the local pool** is the standard library's
  :class:`~concurrent.futures.ProcessPoolExecutor` with the ``fork`` start
  method on Linux (the platform's default elsewhere). A forked worker starts in
  milliseconds with its parent's modules and compiled kernels loaded; fork's
  semaphores are unlinked as they are made, and fork needs no server process,
  resource tracker or temporary folder, so a killed parent leaves nothing in
  ``/dev/shm`` or ``/tmp``. Every worker is forked when the pool is made, before
  the caller starts a progress bar's thread;
* **the parent-death policy** (:func:`exit_with_parent`): a worker ends when
  its parent does, even when the parent is SIGKILLed: the kernel's parent-death
  signal on Linux, a watchdog thread elsewhere. External programs a worker
  starts (the arena's bots) take the same signal (:func:`die_with_parent`), so
  they end with their worker;
* **stopping** (:func:`stop_pool`): on Ctrl-C or an error the pool's queued
  tasks are cancelled and its workers terminated at once, not waited for;
* **a Dask cluster** (:func:`dask_executor`) when a scheduler address is given.

>>> with make_executor(2) as pool:
...     sorted(map_unordered(abs, [-4, 3], pool, name=str))
[3, 4]
"""

from __future__ import annotations

import concurrent.futures.process as futures_process
import contextlib
import ctypes
import importlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    as_completed,
    wait,
)
from pathlib import Path
from typing import Any, TypeVar

from connect4.core.errors import BudgetExceeded, Connect4Error, install_command
from connect4.core.limits import WAIT_SLICE, Limit, interrupt_held

__all__ = [
    "START_METHOD",
    "JobError",
    "JobInterrupted",
    "dask_executor",
    "die_with_parent",
    "exit_with_parent",
    "make_executor",
    "map_unordered",
    "run_chunks",
    "stop_pool",
]

Task = TypeVar("Task")
Result = TypeVar("Result")

START_METHOD = "fork" if sys.platform == "linux" else None
"""The local pool's start method: ``fork`` on Linux, the platform's default elsewhere."""

WATCH_SECONDS = 0.5  # how often a worker's watchdog looks for its parent (not on Linux)
PR_SET_PDEATHSIG = 1  # prctl option: the signal a process gets when its parent dies


class JobError(Connect4Error):
    """A job that cannot start or go on: no Dask, an unreachable scheduler, a task
    that failed in a worker."""


class JobInterrupted(BudgetExceeded):
    """A job stopped before the end, ``done`` of its ``unit`` finished; its journal lets
    a resumed run continue.

    >>> str(JobInterrupted(Path("b.c4book.partial"), 96, "build"))
    'build interrupted after 96 positions; resuming continues from b.c4book.partial'
    >>> JobInterrupted(Path("p.jsonl.partial"), 3, "puzzle mining", "games").unit
    'games'
    """

    def __init__(self, journal: Path, done: int, job: str = "job", unit: str = "positions") -> None:
        super().__init__(
            f"{job} interrupted after {done} {unit}; resuming continues from {journal}"
        )
        self.journal = journal
        self.done = done
        self.job = job
        self.unit = unit


# ---------------------------------------------------------------- the parent-death policy
def die_with_parent() -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux's
    ``prctl(PR_SET_PDEATHSIG)``); False where that is not available. Safe in a
    ``preexec_fn`` (no thread, no allocation beyond the call)."""
    if sys.platform != "linux":
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def exit_with_parent(parent: int) -> None:
    """Make this process end when process ``parent`` (its parent) dies, even by SIGKILL.

    The kernel's parent-death signal (:func:`die_with_parent`) where there is one,
    else a watchdog thread that looks for the parent every half second. If the
    parent died before this call, the process ends at once.
    """
    signalled = die_with_parent()
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)
    if signalled:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="connect4-parent-watch", daemon=True).start()


def _start_worker(parent: int, initializer: Callable[[], None] | None) -> None:
    """A local worker's first steps: bound to its parent, then the caller's set-up."""
    exit_with_parent(parent)
    if initializer is not None:
        initializer()


# ---------------------------------------------------------------- executors
@contextlib.contextmanager
def make_executor(
    workers: int | None,
    scheduler: str | None = None,
    initializer: Callable[[], None] | None = None,
) -> Iterator[Executor]:
    """A local process pool of ``workers`` (``None``: all cores), or a Dask cluster's
    executor when ``scheduler`` is given (needs the ``dask`` extra).

    Each local worker runs ``initializer()`` first (a module-level function) and
    ends with this process (:func:`exit_with_parent`). The block ending normally
    waits for the tasks under way; an exception or Ctrl-C stops the pool at once
    (:func:`stop_pool`: what finished is the caller's to keep).
    """
    if scheduler:
        executor, close = dask_executor(scheduler)
        try:
            yield executor
        finally:
            executor.shutdown(wait=False)  # Dask's executor has no cancel_futures
            close()
        return
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(START_METHOD),
        initializer=_start_worker,
        initargs=(os.getpid(), initializer),
    )
    try:
        if START_METHOD == "fork":
            with interrupt_held():  # every worker forked now, none halfway
                pool.submit(int).result()
        yield pool
    except BaseException:
        stop_pool(pool)  # Ctrl-C or an error: no waiting for the tasks under way
        raise
    pool.shutdown(wait=True, cancel_futures=True)


def dask_executor(scheduler: str) -> tuple[Executor, Callable[[], None]]:
    """The executor of the Dask cluster at ``scheduler`` (needs the ``dask`` extra) and how
    to close its client; :class:`JobError` when Dask is missing or the scheduler out of
    reach."""
    try:
        distributed = importlib.import_module("distributed")
    except ImportError:
        raise JobError(
            f"a Dask scheduler needs Dask: {install_command('dask')}", setting="scheduler"
        ) from None
    try:
        client = distributed.Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as error:
        raise JobError(
            f"cannot reach the Dask scheduler at {scheduler}: {error}", setting="scheduler"
        ) from None
    executor: Executor = client.get_executor()
    return executor, client.close


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down at once: queued tasks cancelled, the workers terminated in
    the middle of their task (their results are lost; a journal has the finished ones).

    Python 3.14's ``terminate_workers()`` does this; before it, the pool gives no
    public handle on its workers, so the two private attributes below are read
    here and nowhere else.
    """
    terminate = getattr(pool, "terminate_workers", None)
    if callable(terminate):
        with contextlib.suppress(Exception):
            terminate()
        return
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        with contextlib.suppress(OSError, ValueError):
            worker.terminate()
    for worker in workers:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            worker.join(1.0)
    # The pool's manager thread sees its workers gone and closes its pipes; let it finish
    # now, and take it off the list the interpreter's exit wakes up: Python 3.11 writes
    # to its wake-up pipe at exit even once that pipe is gone, and prints "OSError:
    # [Errno 9] Bad file descriptor" after the interrupted line (one run in ten or so).
    if isinstance(manager, threading.Thread):
        manager.join(2.0)
        if not manager.is_alive():
            wakeups = getattr(futures_process, "_threads_wakeups", None)
            if wakeups is not None:
                wakeups.pop(manager, None)


# ---------------------------------------------------------------- running tasks
def run_chunks(
    pool: Executor,
    function: Callable[..., Result],
    tasks: Sequence[tuple[object, ...]],
    finished: Callable[[Result], bool],
    limit: Limit | None = None,
) -> bool:
    """Run ``function(*task)`` for every task on ``pool``, giving each result to
    ``finished`` as it comes (in any order); ``finished`` returns False to stop, and
    so does ``limit`` once it expires (looked at every
    :data:`~connect4.core.limits.WAIT_SLICE` seconds, tasks under way or not; the
    results already in are handed to ``finished`` first: the caller's to keep).

    True when every task finished; on the way out (a stop, an error, Ctrl-C)
    the tasks not started are cancelled.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> got = []
    >>> run_chunks(ThreadPoolExecutor(1), pow, [(2, 3), (3, 2)], lambda r: got.append(r) is None)
    True
    >>> sorted(got)
    [8, 9]
    """
    futures: list[Future[Result]] = [pool.submit(function, *task) for task in tasks]
    pending: set[Future[Result]] = set(futures)
    order = {future: number for number, future in enumerate(futures)}
    try:
        while pending:
            stopping = limit is not None and limit.expired()
            if stopping:  # what has finished is still handed over
                done = {future for future in pending if future.done()}
            else:
                timeout = None if limit is None else WAIT_SLICE
                done = wait(pending, timeout, return_when=FIRST_COMPLETED).done
            pending -= done
            for future in sorted(done, key=order.__getitem__):  # those done together: in order
                if not finished(future.result()):
                    return False
            if stopping:
                return False
    finally:
        _cancel(futures)
    return True


def map_unordered(
    function: Callable[[Task], Result],
    items: Sequence[Task],
    pool: Executor | None,
    name: Callable[[Task], str],
) -> Iterator[Result]:
    """``function`` over ``items`` on ``pool`` (``None``: in this process, in order),
    results as they finish. A task that fails in a worker (or a worker that dies)
    stops the run with a :class:`JobError` naming the item (``name(item)``); the
    tasks not started are cancelled on the way out."""
    if pool is None:
        for item in items:
            yield function(item)
        return
    futures: dict[Future[Result], Task] = {}
    try:
        futures = {pool.submit(function, item): item for item in items}
        for future in as_completed(futures):
            try:
                result = future.result()
            except Exception as error:  # a worker died (or a bug): stop, keep what finished
                raise JobError(
                    f"{name(futures[future])} failed in a worker "
                    f"({type(error).__name__}: {error}); finished work is saved, "
                    "resume the run to finish it"
                ) from error
            yield result
    finally:
        _cancel(futures)


def _cancel(futures: Iterable[Future[Any]]) -> None:
    """Cancel the futures not started. Before Python 3.12 a pool broken by its workers'
    exit sets an exception on every pending future, cancelled ones too, and its thread
    prints a traceback (InvalidStateError): a cancelled future keeps its state."""
    for future in futures:
        if future.cancel():
            setattr(future, "set_exception", _leave_cancelled)  # noqa: B010


def _leave_cancelled(exception: BaseException | None) -> None:
    """A cancelled future's ``set_exception``: it stays cancelled."""
