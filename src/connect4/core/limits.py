"""A long computation's limit: the caller's deadline and a stop flag, passed down.

A :class:`Limit` travels from whoever waits (the terminal, the arena, a web
request) down to the search that thinks: its ``deadline`` is a
:func:`time.perf_counter` time, its ``flag`` a one-element ``uint8`` array that
compiled code (numba, ``nogil``) reads every few thousand nodes or playouts and
any thread may set with :meth:`Limit.stop`. A player's own budget combines with
the caller's through :meth:`Limit.tighter` (the earlier deadline wins); the child
gets its own flag, set by :meth:`Limit.watch` when the parent stops or the
deadline passes, so a player's own clock never stops its caller.

>>> limit = Limit.within(10.0)
>>> child = limit.tighter(0.5)
>>> child.deadline is not None and child.deadline < limit.deadline
True
>>> limit.stop()
>>> limit.stopped(), child.stopped()  # the child learns it from its watcher (or expired())
(True, False)
>>> child.expired()
True
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

T = TypeVar("T")
POLL_SECONDS = 0.01  # how often a watcher looks at its parent and its deadline
IDLE_AFTER = 1.0  # seconds without a watched limit before the watcher sleeps until the next


def new_flag() -> NDArray[np.uint8]:
    """A stop flag compiled code can read: one ``uint8``, 0 = go on, 1 = stop."""
    return np.zeros(1, dtype=np.uint8)


@dataclass(frozen=True, eq=False)
class Limit:
    """A deadline (a :func:`time.perf_counter` time, ``None``: none) and a stop flag.

    ``parent`` is the caller's limit this one was tightened from: it stops this one too.

    >>> Limit().expired(), Limit(deadline=0.0).expired()
    (False, True)
    """

    deadline: float | None = None
    flag: NDArray[np.uint8] = field(default_factory=new_flag)
    parent: Limit | None = None

    @classmethod
    def within(cls, seconds: float | None) -> Limit:
        """A limit ``seconds`` from now (``None``: no deadline, only the stop flag)."""
        return cls(None if seconds is None else time.perf_counter() + seconds)

    def stop(self) -> None:
        """Ask every search under this limit to stop (safe from any thread)."""
        self.flag[0] = 1

    def stopped(self) -> bool:
        """True once :meth:`stop` was called on this limit."""
        return bool(self.flag[0])

    def expired(self) -> bool:
        """True when this limit or a parent was stopped, or a deadline passed."""
        limit: Limit | None = self
        now = time.perf_counter()
        while limit is not None:
            if limit.flag[0] or (limit.deadline is not None and now >= limit.deadline):
                return True
            limit = limit.parent
        return False

    def remaining(self) -> float | None:
        """Seconds left before the deadline (never negative), ``None`` without one."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())

    def tighter(self, seconds: float | None = None, deadline: float | None = None) -> Limit:
        """A child limit: the earliest of this deadline, ``seconds`` from now and
        ``deadline``; stopping this limit stops the child (see :meth:`watch`)."""
        candidates = [d for d in (self.deadline, deadline) if d is not None]
        if seconds is not None:
            candidates.append(time.perf_counter() + seconds)
        return Limit(min(candidates) if candidates else None, parent=self)

    @contextlib.contextmanager
    def watch(self, on_stop: Callable[[], None] | None = None) -> Iterator[NDArray[np.uint8]]:
        """Yield the flag compiled code reads, while the process's watcher sets it (and
        calls ``on_stop``) once a parent stops or the deadline passes, or when
        :meth:`stop` was called (checked every 10 ms). ``on_stop`` is never called
        after the block ends.

        >>> limit = Limit.within(0.02)
        >>> with limit.watch() as flag:
        ...     time.sleep(0.1)
        ...     print(int(flag[0]))
        1
        """
        if self.expired():
            self.stop()
            if on_stop is not None:
                on_stop()
        key = WATCHER.add(self, on_stop)
        try:
            yield self.flag
        finally:
            WATCHER.remove(key)


class Watcher:
    """One thread for every watched limit of the process: it looks at each every
    10 ms and stops the expired ones. Watching a limit starts no thread and wakes
    none while the watcher is looking anyway (a busy server's many short searches
    cost a dictionary entry each, not a thread switch); only a watcher idle for a
    second (``IDLE_AFTER``) sleeps until the next limit wakes it.

    ``on_stop`` runs under the watcher's lock, so once :meth:`remove` returns it
    cannot run any more (a search's stop slot is not set after the search ended).
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._entries: dict[int, tuple[Limit, Callable[[], None] | None]] = {}
        self._keys = itertools.count()
        self._owner = -1  # the process whose thread runs (a forked child starts its own)
        self._asleep = False  # waiting for an entry, not looking every POLL_SECONDS
        self.looks = 0  # how often it has looked at its limits (each look: a thread switch)

    def add(self, limit: Limit, on_stop: Callable[[], None] | None) -> int:
        """Watch ``limit``; the key for :meth:`remove`."""
        with self._lock:
            key = next(self._keys)
            self._entries[key] = (limit, on_stop)
            if self._owner != os.getpid():
                self._owner = os.getpid()
                self._asleep = False
                threading.Thread(target=self._run, name="connect4-limits", daemon=True).start()
            elif self._asleep:
                self._lock.notify()
            return key

    def remove(self, key: int) -> None:
        """Stop watching (``on_stop`` is not called after this returns)."""
        with self._lock:
            self._entries.pop(key, None)

    def _run(self) -> None:
        last_seen = time.monotonic()
        while True:
            with self._lock:
                if self._entries:
                    last_seen = time.monotonic()
                elif time.monotonic() - last_seen > IDLE_AFTER:
                    self._asleep = True
                    while not self._entries:
                        self._lock.wait()  # idle: no wake-ups while nothing is watched
                    self._asleep = False
                self._lock.wait(POLL_SECONDS)
                self.looks += 1
                for key, (limit, on_stop) in list(self._entries.items()):
                    if limit.expired():
                        del self._entries[key]
                        limit.stop()
                        if on_stop is not None:
                            on_stop()


WATCHER = Watcher()
"""The process's one watcher of limits."""


def _forked() -> None:
    """A forked process (a pool's worker) starts with a watcher of its own: the
    parent's thread is not copied, and its lock may have been copied held."""
    global WATCHER
    WATCHER = Watcher()


os.register_at_fork(after_in_child=_forked)


def run_interruptible(work: Callable[[Limit], T], limit: Limit | None = None) -> T:
    """``work(limit)`` on a worker thread while this thread waits in short slices, so a
    Ctrl-C here stops ``limit`` (the work sees it) and is raised again at once,
    without waiting for compiled code to return. The work's exception is raised here.

    >>> run_interruptible(lambda limit: limit.expired())
    False
    """
    worker, interrupted = _watched(work, limit, grace=0.2)
    if interrupted:
        raise KeyboardInterrupt
    return worker.result()


@contextlib.contextmanager
def interrupt_held() -> Iterator[None]:
    """Hold a Ctrl-C that comes during the block and raise it when the block is done,
    for a step that must not stop halfway: a worker process being started (stopped
    in the middle, the worker is left unpickling what its parent then removes, and
    prints a traceback). Off the main thread, where no signal arrives, it does nothing.

    >>> steps = []
    >>> try:
    ...     with interrupt_held():
    ...         os.kill(os.getpid(), signal.SIGINT)
    ...         steps.append("the block ran to its end")
    ... except KeyboardInterrupt:
    ...     steps.append("then the Ctrl-C")
    >>> steps
    ['the block ran to its end', 'then the Ctrl-C']
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held and callable(previous):
        previous(signal.SIGINT, None)  # Python's own handler raises KeyboardInterrupt
    elif held and previous == signal.SIG_DFL:
        raise KeyboardInterrupt


def run_stoppable(
    work: Callable[[Limit], T], limit: Limit | None = None, grace: float = 1.0
) -> tuple[T, bool]:
    """``work(limit)`` on a worker thread, for work that returns what it has when its
    limit stops: ``(result, False)`` when it ran to the end; after a Ctrl-C here,
    ``limit`` is stopped and the work given ``grace`` seconds to return: ``(result,
    True)``, or the KeyboardInterrupt again if it did not return in time.

    >>> run_stoppable(lambda limit: 42)
    (42, False)
    """
    worker, interrupted = _watched(work, limit, grace)
    return worker.result(), interrupted


def _watched(
    work: Callable[[Limit], T], limit: Limit | None, grace: float
) -> tuple[_Worker[T], bool]:
    """``work(limit)`` started on a worker thread and waited for in short slices:
    ``(worker, False)`` once it ends; after a Ctrl-C here, ``limit`` is stopped and the
    work given ``grace`` seconds to return: ``(worker, True)``, or the KeyboardInterrupt
    again."""
    limit = limit if limit is not None else Limit()
    worker = _Worker(work, limit)
    try:
        worker.wait()
    except KeyboardInterrupt:
        limit.stop()
        if not worker.done.wait(grace):
            raise
        return worker, True
    return worker, False


class _Worker(Generic[T]):
    """``work(limit)`` started on a daemon thread; its result or exception kept.

    The end is told by an event, not by joining the thread: a join that a Ctrl-C
    interrupts can leave the thread marked as ended while it still runs.
    """

    def __init__(self, work: Callable[[Limit], T], limit: Limit) -> None:
        self.box: list[T] = []
        self.failure: list[BaseException] = []
        self.done = threading.Event()

        def run() -> None:
            try:
                self.box.append(work(limit))
            except BaseException as error:  # handed to the waiting thread
                self.failure.append(error)
            finally:
                self.done.set()

        self.thread = threading.Thread(target=run, name="connect4-work", daemon=True)
        self.thread.start()

    def wait(self) -> None:
        """Wait in short slices (a Ctrl-C is raised here at once)."""
        while not self.done.wait(0.05):
            pass

    def result(self) -> T:
        """The work's result, or its exception raised here."""
        if self.failure:
            raise self.failure[0]
        return self.box[0]
