"""Work in worker processes: the one pool factory, the one parent-death policy.

Every command that spreads work over processes (book build, datasets, the
arena, the lab, training data) gets its executor from :func:`make_executor`
and hands it tasks with :func:`run_chunks` or :func:`map_unordered`:

* **the local pool** (:class:`WorkerPool`) forks its workers (the ``fork``
  start method on Linux, the platform's default elsewhere) and feeds each through
  a pipe of its own. A forked worker starts in milliseconds with its parent's
  modules and compiled kernels loaded; a pipe needs no semaphore, server
  process, resource tracker or temporary folder, so a killed parent leaves
  nothing in ``/dev/shm`` or ``/tmp``. Every worker is forked when the pool is
  made, before the caller starts a progress bar's thread;
* **the parent-death policy** (:func:`exit_with_parent`): a worker ends when
  its parent does, even when the parent is SIGKILLed: the kernel's parent-death
  signal on Linux, a watchdog thread elsewhere. External programs a worker
  starts (the arena's bots) take the same signal (:func:`die_with_parent`), so
  they end with their worker;
* **stopping** (:meth:`WorkerPool.terminate`): on Ctrl-C or an error the pool's
  queued tasks are cancelled and its workers terminated at once, not waited for;
* **a Dask cluster** (:func:`dask_executor`) when a scheduler address is given.

>>> with make_executor(2) as pool:
...     sorted(map_unordered(abs, [-4, 3], pool, name=str))
[3, 4]
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
import traceback
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, as_completed
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection, wait as wait_readable
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from connect4.core.errors import BudgetExceeded, Connect4Error, install_command
from connect4.core.limits import WAIT_SLICE, Limit, interrupt_held

if TYPE_CHECKING:
    from multiprocessing.context import DefaultContext

__all__ = [
    "START_METHOD",
    "JobError",
    "JobInterrupted",
    "WorkerPool",
    "dask_executor",
    "die_with_parent",
    "exit_with_parent",
    "make_executor",
    "map_unordered",
    "run_chunks",
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


# ---------------------------------------------------------------- the local pool
class WorkerPool(Executor):
    """``workers`` local processes, each fed through a pipe of its own.

    :meth:`submit` pickles the call straight into an idle worker's pipe (or queues
    it here while every worker is busy); one reader thread takes each answer, hands
    that worker the next queued call and completes the future. A call reaches its
    worker with no thread in between: the standard library's pool passes every call
    and answer through a manager thread, a queue and its feeder thread (measured:
    a round trip of 0.2-0.3 ms here against its 0.6-0.8 ms, which a search handing
    out a thousand short tasks a worker feels).

    Each worker ends with this process (:func:`exit_with_parent`), runs
    ``initializer()`` first, and leaves Ctrl-C to its parent (which stops the pool).
    A worker that dies (killed, out of memory) breaks the pool, as the standard
    pool's do: its call and every other call not finished fail with
    :class:`~concurrent.futures.process.BrokenProcessPool`, and so does a later
    :meth:`submit`.

    >>> with WorkerPool(2) as pool:
    ...     sorted(pool.map(abs, [-2, 1, -3]))
    [1, 2, 3]
    """

    def __init__(
        self, workers: int | None = None, initializer: Callable[[], None] | None = None
    ) -> None:
        count = workers or os.cpu_count() or 1
        if count < 1:
            raise ValueError(f"a pool needs at least one worker, not {count}")
        context = cast("DefaultContext", multiprocessing.get_context(START_METHOD))
        self._lock = threading.Lock()
        self._queue: deque[tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]]
        self._queue = deque()
        self._running: dict[Connection, Future[Any]] = {}
        self._idle: list[Connection] = []
        self._closing = False  # no more calls: the workers end once the last call is done
        self._broken = ""  # why the pool cannot run calls any more
        self._sending = 0  # calls taken from the queue, not yet running or dropped
        self._wake, wake = context.Pipe(duplex=False)
        self._wake_write = wake
        self._conns: list[Connection] = []
        self._processes: list[multiprocessing.process.BaseProcess] = []
        try:
            for _ in range(count):
                mine, theirs = context.Pipe()
                ours = [self._wake, wake, *self._conns, mine]  # the worker closes its copies
                process = context.Process(
                    target=_serve,
                    args=(theirs, ours, os.getpid(), initializer),
                    name="connect4-worker",
                )
                process.start()
                theirs.close()
                self._conns.append(mine)
                self._processes.append(process)
        except BaseException:  # a fork that failed: the workers started end
            for started in self._processes:
                started.terminate()
            raise
        self._idle = list(self._conns)
        # A pool never shut down still lets the interpreter exit: its workers are told to
        # end first (multiprocessing joins them at exit).
        weakref.finalize(self, _end_workers, list(self._conns))
        self._reader = threading.Thread(target=self._read, name="connect4-pool-reader", daemon=True)
        self._reader.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run ``fn(*args, **kwargs)`` in a worker (the next idle one; queued while none is)."""
        future: Future[Any] = Future()
        with self._lock:
            if self._broken:
                raise BrokenProcessPool(self._broken)
            if self._closing:
                raise RuntimeError("cannot submit a call to a pool shut down")
            self._queue.append((future, fn, args, kwargs))
        self._dispatch()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No more calls: the workers end once the calls queued (none, with
        ``cancel_futures``) and under way are done; ``wait`` waits for that."""
        with self._lock:
            self._closing = True
        if cancel_futures:
            self._cancel_queued()
        self._wake_reader()
        if wait:
            self._reader.join()
            for process in self._processes:
                with contextlib.suppress(ValueError):  # closed by terminate()
                    process.join()
            self._close_processes()

    def terminate(self) -> None:
        """Stop at once: the queued calls cancelled, the workers killed in the middle of
        their calls (those fail with BrokenProcessPool: their results are lost)."""
        with self._lock:
            self._closing = True
            self._broken = self._broken or "the pool was stopped"
        self._cancel_queued()
        for process in self._processes:
            with contextlib.suppress(OSError, ValueError):
                process.terminate()
        for process in self._processes:
            with contextlib.suppress(OSError, ValueError, AssertionError):
                process.join(1.0)
        self._wake_reader()
        self._reader.join(2.0)
        self._close_processes()

    def _close_processes(self) -> None:
        """Free the handles of the workers that have ended (one still running keeps its)."""
        for process in self._processes:
            with contextlib.suppress(ValueError):
                process.close()

    def _wake_reader(self) -> None:
        """Wake the reader thread to look at the pool's state (nothing to do once it
        has ended: its pipe is closed)."""
        with self._lock, contextlib.suppress(OSError):
            if not self._wake_write.closed:
                self._wake_write.send_bytes(b"")

    def _dispatch(self) -> None:
        """Hand queued calls to idle workers.

        A future's own lock is only ever taken with the pool's lock released: a thread
        that holds a future's lock for good (one interrupted by Ctrl-C inside
        :func:`concurrent.futures.wait`, which takes every future's lock in turn) then
        blocks the thread that touches that one future, never the pool, so
        :meth:`terminate` still stops it.
        """
        while True:
            with self._lock:
                if self._broken or not (self._queue and self._idle):
                    return
                future, fn, args, kwargs = self._queue.popleft()
                conn = self._idle.pop()
                self._sending += 1
            running = False
            try:
                if not future.set_running_or_notify_cancel():
                    continue  # cancelled while queued
                try:
                    data = ForkingPickler.dumps((fn, args, kwargs))
                except Exception as error:  # an argument that cannot travel: this call fails
                    future.set_exception(error)
                    continue
                with self._lock:  # before the send: its answer may come at once
                    running = not self._broken
                    if running:
                        self._running[conn] = future
                if not running:  # stopped meanwhile
                    _fail(future, BrokenProcessPool(self._broken))
                    continue
                try:
                    conn.send_bytes(data)
                except (OSError, ValueError):  # the worker is gone: the reader breaks the pool
                    with self._lock:
                        self._running.pop(conn, None)
                    _fail(future, BrokenProcessPool("a worker process ended abruptly"))
            finally:
                with self._lock:
                    self._sending -= 1
                    if not running:
                        self._idle.append(conn)
                    last = self._closing and not self._sending
                if last:
                    self._wake_reader()  # it may be waiting for this call to end

    def _cancel_queued(self) -> None:
        """Cancel the queued calls (their futures' locks taken with the pool's released)."""
        with self._lock:
            queued = [item[0] for item in self._queue]
            self._queue.clear()
        for future in queued:
            future.cancel()

    def _read(self) -> None:
        """The reader thread: each answer completes its future and frees its worker."""
        while True:
            with self._lock:
                idle = not (self._queue or self._running or self._sending)
                if self._broken or (self._closing and idle):
                    break
            ready = wait_readable([self._wake, *self._conns])
            if self._wake in ready:
                with contextlib.suppress(OSError, EOFError):
                    self._wake.recv_bytes()
            for conn in ready:
                if conn is not self._wake and not self._answer(conn):  # type: ignore[arg-type]
                    break
        self._end()

    def _answer(self, conn: Connection) -> bool:
        """Take one worker's answer; False when the worker died (the pool is broken)."""
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            with self._lock:
                self._broken = self._broken or "a worker process ended abruptly"
                failed = [*self._running.values(), *(item[0] for item in self._queue)]
                self._running.clear()
                self._queue.clear()
            for future in failed:
                _fail(future, BrokenProcessPool(self._broken))
            return False
        try:
            ok, value, text = ForkingPickler.loads(data)
        except Exception as error:  # an answer this process cannot rebuild: the call failed
            ok, value, text = False, RuntimeError(f"the worker's answer is unreadable: {error}"), ""
        with self._lock:
            future = self._running.pop(conn)
            self._idle.append(conn)
        self._dispatch()  # the worker's next call first, then this one's answer
        if ok:
            future.set_result(value)
        else:
            if text:
                value.add_note(f"raised in a worker process:\n{text.rstrip()}")
            future.set_exception(value)
        return True

    def _end(self) -> None:
        """Tell the workers to end (a broken pool's: killed) and close this side's pipes;
        a call still under way fails."""
        with self._lock:
            failed = list(self._running.values())
            self._running.clear()
        for future in failed:
            _fail(future, BrokenProcessPool(self._broken or "the pool was shut down"))
        for process in self._processes if self._broken else ():
            with contextlib.suppress(OSError, ValueError):
                process.terminate()
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.send_bytes(b"")  # an empty call: end
            conn.close()
        with self._lock:  # never while another thread writes to it
            self._wake_write.close()
        self._wake.close()


def _serve(
    conn: Connection, parents: list[Connection], parent: int, initializer: Callable[[], None] | None
) -> None:
    """A worker: calls from ``conn`` run one at a time, each answer sent back, until an
    empty call or the pipe's end."""
    for other in parents:  # the pool's own ends, inherited by the fork
        other.close()
    signal.signal(signal.SIGINT, lambda signum, frame: None)  # Ctrl-C: the parent stops us
    exit_with_parent(parent)
    if initializer is not None:
        initializer()
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        if not data:
            return
        try:
            fn, args, kwargs = ForkingPickler.loads(data)
            answer = ForkingPickler.dumps((True, fn(*args, **kwargs), ""))
        except BaseException as error:  # the caller's to see, with the worker's traceback
            text = "".join(traceback.format_exception(error))
            try:
                answer = ForkingPickler.dumps((False, error, text))
            except Exception:  # an exception that cannot travel: its text does
                answer = ForkingPickler.dumps((False, RuntimeError(repr(error)), text))
        try:
            conn.send_bytes(answer)
        except OSError:
            return


def _end_workers(conns: list[Connection]) -> None:
    for conn in conns:
        with contextlib.suppress(OSError, ValueError):  # ended already, or closed
            conn.send_bytes(b"")


def _fail(future: Future[Any], error: BaseException) -> None:
    with contextlib.suppress(Exception):  # already done or cancelled: it keeps its state
        if not future.done():
            future.set_exception(error)


# ---------------------------------------------------------------- executors
@contextlib.contextmanager
def make_executor(
    workers: int | None,
    scheduler: str | None = None,
    initializer: Callable[[], None] | None = None,
) -> Iterator[Executor]:
    """A local :class:`WorkerPool` of ``workers`` (``None``: all cores), or a Dask
    cluster's executor when ``scheduler`` is given (needs the ``dask`` extra).

    Each local worker runs ``initializer()`` first (a module-level function) and
    ends with this process (:func:`exit_with_parent`). The block ending normally
    waits for the tasks under way; an exception or Ctrl-C stops the pool at once
    (:meth:`WorkerPool.terminate`: what finished is the caller's to keep).
    """
    if scheduler:
        executor, close = dask_executor(scheduler)
        try:
            yield executor
        finally:
            executor.shutdown(wait=False)  # Dask's executor has no cancel_futures
            close()
        return
    with interrupt_held():  # every worker forked now, none halfway
        pool = WorkerPool(workers, initializer)
    try:
        yield pool
    except BaseException:
        pool.terminate()  # Ctrl-C or an error: no waiting for the tasks under way
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
    arrived: queue.SimpleQueue[Future[Result]] = queue.SimpleQueue()
    futures: list[Future[Result]] = []
    order: dict[Future[Result], int] = {}
    try:
        for number, task in enumerate(tasks):
            future = pool.submit(function, *task)
            order[future] = number
            futures.append(future)
            future.add_done_callback(arrived.put)
        # Each finished task arrives on a queue, not through concurrent.futures.wait: that
        # takes every pending future's lock on each call (slow over thousands of tasks),
        # and a Ctrl-C in the middle of it leaves some of those locks held for good.
        pending = len(futures)
        while pending:
            stopping = limit is not None and limit.expired()
            done: list[Future[Result]] = []
            if not stopping:  # a stop hands over only what has finished already
                with contextlib.suppress(queue.Empty):
                    done.append(arrived.get(timeout=None if limit is None else WAIT_SLICE))
            with contextlib.suppress(queue.Empty):
                while True:
                    done.append(arrived.get_nowait())
            pending -= len(done)
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
    """Cancel the futures not started."""
    for future in futures:
        future.cancel()
