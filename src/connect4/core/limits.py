"""A long computation's one control parameter: a :class:`Limit`, passed down.

A :class:`Limit` travels from whoever waits (the terminal, the arena, a web
request, the command line) down to the work that thinks, and is the only thing
that work is given to know when to stop and whom to tell how it goes:

- ``deadline``: a time on :func:`clock`, the package's one clock for limits;
- ``nodes``: a node budget (what a node is, the work says: the solver's
  positions; ``None``: none);
- ``flag``: a one-element ``uint8`` array that compiled code (numba, ``nogil``)
  reads every few thousand nodes or playouts and any thread may set with
  :meth:`Limit.stop`;
- ``progress``: a sink the long work reports to (the solver hands it a
  ``SolveProgress`` about four times a second; ``None``: nobody listens);
- ``parent``: the caller's limit this one was tightened from;
- ``start``: the :func:`clock` time it was made (:meth:`Limit.allowed` says how
  long it was given, for a message that names it).

A player's own budget combines with the caller's through :meth:`Limit.tighter`
(the earlier deadline and the smaller node budget win); the child gets its own
flag, set by :meth:`Limit.watch` when the parent stops or the deadline passes,
so a player's own clock never stops its caller.

>>> limit = Limit.within(10.0)
>>> child = limit.tighter(0.5, nodes=1000)
>>> child.deadline is not None and child.deadline < limit.deadline, child.nodes
(True, 1000)
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
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from types import FrameType

    import numpy as np
    from numpy.typing import NDArray

T = TypeVar("T")
POLL_SECONDS = 0.01  # how often a watcher looks at its parent and its deadline
WAIT_SLICE = 0.05  # how often a thread waiting for work wakes (a Ctrl-C is raised between)
IDLE_AFTER = 1.0  # seconds without a watched limit before the watcher sleeps until the next

ProgressSink = Callable[[Any], None]
"""What a long computation reports its progress to (each work its own record)."""


def clock() -> float:
    """The one clock of every limit and deadline (:func:`time.perf_counter`: monotonic,
    the finest the platform has)."""
    return time.perf_counter()


def new_flag() -> NDArray[np.uint8]:
    """A stop flag compiled code can read: one ``uint8``, 0 = go on, 1 = stop (numpy is
    imported with the first flag, not with this module: a program's first prompt
    does not wait for it)."""
    import numpy as np

    return np.zeros(1, dtype=np.uint8)


@dataclass(frozen=True, eq=False)
class Limit:
    """A deadline (a :func:`clock` time), a node budget, a stop flag and a progress
    sink (``None``: no deadline, no node budget, nobody listening).

    ``parent`` is the caller's limit this one was tightened from: it stops this one too.

    >>> Limit().expired(), Limit(deadline=0.0).expired()
    (False, True)
    >>> limit = Limit(nodes=100)
    >>> limit.first(30).nodes, limit.after(40).nodes, limit.spent(100), Limit().spent(10**9)
    (30, 60, True, False)
    """

    deadline: float | None = None
    nodes: int | None = None
    flag: NDArray[np.uint8] = field(default_factory=new_flag)
    parent: Limit | None = None
    progress: ProgressSink | None = None
    start: float = field(default_factory=clock)

    @classmethod
    def within(
        cls,
        seconds: float | None = None,
        *,
        nodes: int | None = None,
        progress: ProgressSink | None = None,
    ) -> Limit:
        """A limit ``seconds`` from now (``None``: no deadline, only the stop flag), of
        ``nodes`` nodes, reporting to ``progress``."""
        now = clock()
        deadline = None if seconds is None else now + max(0.0, seconds)
        return cls(deadline, nodes, progress=progress, start=now)

    def stop(self) -> None:
        """Ask every search under this limit to stop (safe from any thread)."""
        self.flag[0] = 1

    def stopped(self) -> bool:
        """True once :meth:`stop` was called on this limit."""
        return bool(self.flag[0])

    def expired(self) -> bool:
        """True when this limit or a parent was stopped, or a deadline passed."""
        limit: Limit | None = self
        now = clock()
        while limit is not None:
            if limit.flag[0] or (limit.deadline is not None and now >= limit.deadline):
                return True
            limit = limit.parent
        return False

    def allowed(self) -> float | None:
        """The seconds this limit was given, from its making to its deadline (``None``
        without a deadline).

        >>> f"{Limit.within(2.5).allowed():g}", Limit().allowed()
        ('2.5', None)
        """
        return None if self.deadline is None else self.deadline - self.start

    def overdue(self) -> bool:
        """True once this limit's own deadline passed (not a stop, nor a parent's).

        >>> Limit(deadline=0.0).overdue(), Limit().overdue()
        (True, False)
        """
        return self.deadline is not None and clock() >= self.deadline

    def untimed(self) -> Limit:
        """This limit's stop flag and node budget without its deadline, nor its parents'
        (their stop reaches the flag while this limit is watched): for work timed
        another way under the same stop, such as a search's first depth (no node
        budget guessed from a speed not yet measured) or a bot's move, timed from
        when the bot is ready.

        >>> limit = Limit(deadline=0.0, nodes=5)
        >>> untimed = limit.untimed()
        >>> untimed.expired(), untimed.nodes
        (False, 5)
        >>> limit.stop()
        >>> untimed.expired()
        True
        """
        return replace(self, deadline=None, parent=None)

    def timed(self) -> bool:
        """True when a deadline bounds this limit (its own: a child's holds its parents').

        >>> Limit.within(1.0).timed(), Limit(nodes=5).timed(), Limit.within(1.0).untimed().timed()
        (True, False, False)
        """
        return self.deadline is not None

    def remaining(self) -> float | None:
        """Seconds left before the deadline (never negative), ``None`` without one."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - clock())

    def overrun(self, seconds: float) -> Limit:
        """A limit ``seconds`` past this one's deadline (none without one), on a flag of
        its own: how long to wait for work that may end a little after its deadline.

        >>> limit = Limit(deadline=10.0)
        >>> limit.overrun(0.5).deadline, Limit().overrun(0.5).timed()
        (10.5, False)
        """
        deadline = None if self.deadline is None else self.deadline + seconds
        return Limit(deadline, start=self.start)

    def tighter(self, seconds: float | None = None, *, nodes: int | None = None) -> Limit:
        """A child limit: the earlier of this deadline and ``seconds`` from now, the
        smaller of this node budget and ``nodes``, the same progress sink; stopping
        this limit stops the child (see :meth:`watch`), not the other way round."""
        deadline, now = self.deadline, clock()
        if seconds is not None:
            own = now + max(0.0, seconds)
            deadline = own if deadline is None else min(deadline, own)
        budget = self.nodes if nodes is None else least(self.nodes, nodes)
        return Limit(deadline, budget, parent=self, progress=self.progress, start=now)

    def capped(self, nodes: int | None) -> Limit:
        """This very limit (the same flag, deadline and sink) with the node budget
        ``nodes``: a part of the same work, stopped with it."""
        return replace(self, nodes=nodes)

    def first(self, nodes: int) -> Limit:
        """The first part of the work, at most ``nodes`` nodes."""
        return self.capped(least(self.nodes, nodes))

    def after(self, spent: int) -> Limit:
        """What is left once ``spent`` nodes are spent."""
        return self.capped(None if self.nodes is None else self.nodes - spent)

    def spent(self, nodes: int) -> bool:
        """True when ``nodes`` used the node budget, or the limit expired."""
        if self.nodes is not None and nodes >= self.nodes:
            return True
        return self.expired()

    def report(self, record: object) -> None:
        """Hand the progress sink a long work's progress record (nobody listening: nothing)."""
        if self.progress is not None:
            self.progress(record)

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


def least(budget: int | None, nodes: int) -> int:
    """``nodes``, or the node ``budget`` when that is lower.

    >>> least(None, 5), least(3, 5)
    (5, 3)
    """
    return nodes if budget is None else min(budget, nodes)


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
        last_seen = clock()
        while True:
            with self._lock:
                if self._entries:
                    last_seen = clock()
                elif clock() - last_seen > IDLE_AFTER:
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


@contextlib.contextmanager
def stop_on_interrupt(limit: Limit) -> Iterator[Limit]:
    """Turn the first Ctrl-C during the block into a stop of ``limit``: the work sees its
    limit stopped and returns what it has done, and no KeyboardInterrupt is raised for
    it; the next Ctrl-C goes to the handler there was before (Python's: a
    KeyboardInterrupt at once). For work that runs on this thread and looks at its limit
    between steps (a training step); off the main thread, where no signal arrives, it
    does nothing.

    >>> limit = Limit()
    >>> with stop_on_interrupt(limit):
    ...     os.kill(os.getpid(), signal.SIGINT)
    ...     time.sleep(0.01)  # the handler runs between two bytecodes
    >>> limit.stopped()
    True
    """
    if threading.current_thread() is not threading.main_thread():
        yield limit
        return
    previous = signal.getsignal(signal.SIGINT)
    previous = signal.SIG_DFL if previous is None else previous  # None: not set from Python

    def stop(signum: int, frame: FrameType | None) -> None:
        limit.stop()
        signal.signal(signal.SIGINT, previous)  # a second Ctrl-C: at once

    signal.signal(signal.SIGINT, stop)
    try:
        yield limit
    finally:
        signal.signal(signal.SIGINT, previous)


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
) -> tuple[Worker[T], bool]:
    """``work(limit)`` started on a worker thread and waited for in short slices:
    ``(worker, False)`` once it ends; after a Ctrl-C here, ``limit`` is stopped and the
    work given ``grace`` seconds to return: ``(worker, True)``, or the KeyboardInterrupt
    again."""
    limit = limit if limit is not None else Limit()
    worker = Worker(work, limit)
    try:
        worker.wait()
    except KeyboardInterrupt:
        limit.stop()
        if not worker.done.wait(grace):
            raise
        return worker, True
    return worker, False


class Worker(Generic[T]):
    """``work(limit)`` started on a daemon thread, waited for in short slices (a
    Ctrl-C in the waiting thread is raised there at once); its result or exception
    kept. The one "run on a thread, wait in slices" of the package: a Ctrl-C's
    handling is the caller's (:func:`run_interruptible`, :func:`run_stoppable`, a
    game's clocked move).

    The thread carries its name in the operating system too (``top -H``, ``ps -L``,
    ``/proc``): one can see that the work has started and which thread thinks.

    The end is told by an event, not by joining the thread: a join that a Ctrl-C
    interrupts can leave the thread marked as ended while it still runs.

    >>> worker = Worker(lambda limit: limit.nodes, Limit(nodes=7))
    >>> worker.wait(), worker.result()
    (True, 7)
    """

    def __init__(self, work: Callable[[Limit], T], limit: Limit, name: str = "connect4-work"):
        self.box: list[T] = []
        self.failure: list[BaseException] = []
        self.done = threading.Event()

        def run() -> None:
            name_native_thread(name)
            try:
                self.box.append(work(limit))
            except BaseException as error:  # handed to the waiting thread
                self.failure.append(error)
            finally:
                self.done.set()

        self.thread = threading.Thread(target=run, name=name, daemon=True)
        self.thread.start()

    def wait(self, limit: Limit | None = None) -> bool:
        """Wait in short slices until the work ends (True) or ``limit`` expires (False;
        ``None``: no end to the wait)."""
        while not self.done.wait(WAIT_SLICE):
            if limit is not None and limit.expired():
                return False
        return True

    @property
    def error(self) -> BaseException | None:
        """The exception the work raised (``None``: none, or not ended yet)."""
        return self.failure[0] if self.failure else None

    def result(self) -> T:
        """The work's result, or its exception raised here."""
        if self.failure:
            raise self.failure[0]
        return self.box[0]


def name_native_thread(name: str) -> None:
    """Give the calling thread ``name`` (its first 15 bytes) in the operating system,
    where Python's thread names do not reach (Linux only; elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        pr_set_name = 15
        ctypes.CDLL(None).prctl(pr_set_name, name.encode()[:15], 0, 0, 0)
