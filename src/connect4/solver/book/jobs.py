"""Long solving jobs on every core or a Dask cluster: executor, workers, journal, progress.

The book builder (``connect4 book build``) and the labelled-positions writer
(``connect4 dataset``) share this machinery:

* :func:`make_executor`: a local process pool, or a Dask cluster's
  ``concurrent.futures`` executor when a scheduler address is given, and
  :func:`run_chunks`, which hands it the chunks and takes back the results
  as they finish;
* :func:`worker_book` and :func:`analyze_chunk`: what runs in a worker (a book
  named by its spec is loaded once per worker process);
* :class:`RecordJournal`: an append-only file of fixed-size records behind a
  header naming the job's parameters, flushed and fsynced after each chunk, so
  an interrupted job loses at most the chunks in flight and a resumed one
  reads back the rest (a record torn by the interruption is cut off);
* :func:`progress_bar`: a rich bar with the rate and the time left.

>>> [scores for key, scores, nodes in analyze_chunk(5, 4, ["3", "1111"], None)]
[(0, 0, 0, 0, 0), (-128, 0, 0, 0, -1)]
"""

from __future__ import annotations

import concurrent.futures.process as futures_process
import contextlib
import ctypes
import importlib
import multiprocessing
import os
import signal
import struct
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from connect4.core.errors import BudgetExceeded, Connect4Error, install_command
from connect4.core.files import atomic_write, file_errors, open_input, read_input_bytes
from connect4.core.position import Position
from connect4.solver import DEFAULT_TT_MEGABYTES, forget_thread_solvers, solver_for
from connect4.solver.backend import TABLES
from connect4.solver.book.format import Book
from connect4.solver.book.reader import load_book

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

__all__ = [
    "DEFAULT_CHUNK",
    "Advance",
    "JobError",
    "JobInterrupted",
    "RecordJournal",
    "analyze_chunk",
    "dask_executor",
    "make_executor",
    "progress_bar",
    "run_chunks",
    "worker_book",
]

DEFAULT_CHUNK = 64  # positions per task
MAX_JOURNAL_BYTES = 1 << 30  # 16-byte records: some 50 million positions
Result = TypeVar("Result")


class JobError(Connect4Error):
    """A job that cannot start: no Dask, an unreachable scheduler."""


class JobInterrupted(BudgetExceeded):
    """A job stopped before the end; its journal lets a resumed run continue.

    >>> str(JobInterrupted(Path("b.c4book.partial"), 96, "build"))
    'build interrupted after 96 positions; resuming continues from b.c4book.partial'
    """

    def __init__(self, journal: Path, done: int, job: str = "job") -> None:
        super().__init__(
            f"{job} interrupted after {done} positions; resuming continues from {journal}"
        )
        self.journal = journal
        self.done = done
        self.job = job


# ---------------------------------------------------------------- executors
@contextlib.contextmanager
def make_executor(workers: int | None, scheduler: str | None) -> Iterator[Executor]:
    """A local process pool of ``workers`` (``None``: all cores), or a Dask cluster's
    executor when ``scheduler`` is given (needs the ``dask`` extra)."""
    if scheduler:
        executor, close = dask_executor(scheduler)
        try:
            yield executor
        finally:
            close()
    else:
        context = multiprocessing.get_context("fork" if sys.platform == "linux" else None)
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=fresh_worker,
            initargs=(os.getpid(),),
        )
        try:
            yield pool
        except BaseException:
            stop_pool(pool)  # Ctrl-C or an error: no waiting for the chunks under way
            raise
        pool.shutdown(wait=True)


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
    the middle of their task (their results are lost; a journal has the finished ones)."""
    workers = list(pool._processes.values())  # the pool has no public handle on them
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


def fresh_worker(parent: int | None = None) -> None:
    """Start a worker process without the solvers and tables its parent had, bound
    to live no longer than ``parent`` (:func:`exit_with_parent`).

    A forked worker inherits them as memory shared copy-on-write: its first
    write to each page of a table would copy the page (measured: labelling
    1.3-2x slower than with a table of its own).
    """
    if parent is not None:
        exit_with_parent(parent)
    forget_thread_solvers()
    TABLES.clear()


PR_SET_PDEATHSIG = 1  # prctl option: the signal a process gets when its parent dies


def exit_with_parent(parent: int) -> None:
    """Make this process end when process ``parent`` (its parent) dies, even by SIGKILL.

    On Linux the kernel sends SIGKILL at the parent's death (``prctl``); a
    watchdog thread polling the parent's id covers the other systems and the
    moment before the ``prctl`` took effect. Forked workers need no
    temporary folder, and their semaphores are unlinked as they are made, so
    a killed job leaves nothing behind.
    """
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the prctl
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="connect4-parent-watch", daemon=True).start()


def run_chunks(
    pool: Executor,
    function: Callable[..., Result],
    tasks: Sequence[tuple[object, ...]],
    finished: Callable[[Result], bool],
) -> bool:
    """Run ``function(*task)`` for every task on ``pool``, giving each result to
    ``finished`` as it comes (in any order); ``finished`` returns False to stop.

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
    try:
        for future in as_completed(futures):
            if not finished(future.result()):
                return False
    finally:
        for future in futures:
            future.cancel()
    return True


# ---------------------------------------------------------------- workers
_WORKER_BOOKS: dict[tuple[str, int, int], Book | None] = {}


def worker_book(spec: str, width: int, height: int) -> Book | None:
    """The book ``spec`` names, as a solver of the board probes it
    (:func:`connect4.solver.book.load_book` with ``exact``), loaded once per process."""
    key = (spec, width, height)
    if key not in _WORKER_BOOKS:
        _WORKER_BOOKS[key] = load_book(spec, width, height, exact=True)
    return _WORKER_BOOKS[key]


SCORE_NONE = -128
"""What :func:`analyze_chunk` gives a full column (below every score: ``argmax`` skips it)."""


def analyze_chunk(
    width: int,
    height: int,
    moves: Sequence[str],
    book: str | None,
    table_megabytes: int = DEFAULT_TT_MEGABYTES,
) -> list[tuple[int, tuple[int, ...], int]]:
    """Every column's exact score in each position: ``[(key, scores, nodes)]``.

    ``key`` is the position's own key (``Position.key()``, not mirror-merged),
    ``scores`` has :data:`SCORE_NONE` for a full column. ``book`` is a book
    spec probed inside the searches. The positions of a chunk share one table
    generation (their trees overlap); the scores do not depend on it. Runs in
    worker processes: a picklable module-level function.
    """
    probed = None if book is None else worker_book(book, width, height)
    solver = solver_for(width, height, tt_megabytes=table_megabytes, book=probed, reuse_table=True)
    solver.clear_table()
    results = []
    for line in moves:
        position = Position.from_moves(line, width, height)
        result = solver.run(position, analyze=True)
        assert result.column_scores is not None and result.complete
        scores = tuple(SCORE_NONE if s is None else s for s in result.column_scores)
        results.append((position.key(), scores, min(result.nodes, 2**32 - 1)))
    return results


# ---------------------------------------------------------------- journal
_CRC = struct.Struct("<I")
Record = tuple[int, ...]
"""A journal record: the integers its ``struct`` format packs."""


@dataclass
class RecordJournal:
    """An append-only file: ``header`` (the job's parameters), then fixed-size records.

    Each record on disk is followed by the CRC-32 of its bytes, and the header
    by its own, so a damaged record is recognised: :meth:`read` drops it (and
    a record torn by an interruption), counts it in :attr:`damaged` and
    rewrites the file without it, so the job computes it again.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "job.partial"
    >>> journal = RecordJournal(path, b"JOB1", struct.Struct("<Qb"))
    >>> journal.start()
    >>> journal.append([(7, -1), (9, 2)])
    >>> journal.matches(), journal.read(), journal.damaged
    (True, [(7, -1), (9, 2)], 0)
    >>> data = bytearray(path.read_bytes()); data[10] ^= 0xFF; _ = path.write_bytes(data)
    >>> journal.read(), journal.damaged
    ([(9, 2)], 1)
    """

    path: Path
    header: bytes
    record: struct.Struct
    damaged: int = field(default=0, init=False)  # records dropped by the last :meth:`read`

    @property
    def _head(self) -> bytes:
        return self.header + _CRC.pack(zlib.crc32(self.header))

    @property
    def _size(self) -> int:
        return self.record.size + _CRC.size

    def exists(self) -> bool:
        """Whether the journal file is there."""
        return self.path.exists()

    def has_records(self) -> bool:
        """Whether the file holds at least one whole record."""
        try:
            return self.path.stat().st_size >= len(self._head) + self._size
        except OSError:
            return False

    def matches(self) -> bool:
        """Whether the file on disk starts with this job's header (intact)."""
        head = self._head
        with open_input(self.path, what="journal", max_bytes=MAX_JOURNAL_BYTES) as file:
            return file.read(len(head)) == head

    def start(self) -> None:
        """Begin a new journal (replacing any file there)."""
        atomic_write(self.path, self._head, what="journal")

    def read(self) -> list[Record]:
        """The intact records on disk (of a journal that :meth:`matches`).

        Damaged records and a torn last record are dropped and counted in
        :attr:`damaged`; the file is then rewritten without them.
        """
        head = self._head
        data = read_input_bytes(self.path, what="journal", max_bytes=MAX_JOURNAL_BYTES)
        body = memoryview(data)[len(head) :]
        size, plain = self._size, self.record.size
        records: list[Record] = []
        kept: list[bytes] = []
        damaged = 1 if len(body) % size else 0  # a record torn by the interruption
        for start in range(0, len(body) - len(body) % size, size):
            raw = bytes(body[start : start + plain])
            (crc,) = _CRC.unpack_from(body, start + plain)
            if zlib.crc32(raw) != crc:
                damaged += 1
                continue
            records.append(self.record.unpack(raw))
            kept.append(bytes(body[start : start + size]))
        self.damaged = damaged
        if damaged:
            atomic_write(self.path, head + b"".join(kept), what="journal")
        return records

    def append(self, records: Sequence[Record]) -> None:
        """Record finished work durably (flushed and fsynced)."""
        packed = [self.record.pack(*record) for record in records]
        data = b"".join(raw + _CRC.pack(zlib.crc32(raw)) for raw in packed)
        with file_errors(self.path, "journal"), self.path.open("ab") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())

    def remove(self) -> None:
        """Delete the file (the job's result is written)."""
        self.path.unlink(missing_ok=True)


# ---------------------------------------------------------------- progress
class Advance:
    """How a job moves its progress bar: ``advance(n)`` counts ``n`` more done (the rate
    follows), ``advance.note(text)`` shows ``text`` at the end of the line; without a
    bar both do nothing.

    >>> advance = Advance()
    >>> advance(3), advance.note("loss 0.5")
    (None, None)
    """

    def __init__(self, bar: Progress | None = None, task: TaskID | None = None) -> None:
        self.bar = bar
        self.task = task
        self.start = time.perf_counter()
        self.count = 0

    def __call__(self, n: int) -> None:
        if self.bar is None or self.task is None:
            return
        self.count += n
        rate = self.count / max(time.perf_counter() - self.start, 1e-9)
        shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"  # slow work: 0.25 games/s
        self.bar.update(self.task, advance=n, rate=shown)

    def note(self, text: str) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, note=text)


@contextlib.contextmanager
def progress_bar(
    show: bool,
    total: int,
    done: int,
    label: str = "solving",
    unit: str = "pos",
    console: Console | None = None,
) -> Iterator[Advance]:
    """A rich progress bar with rate and ETA, moved by the :class:`Advance` it gives
    (a bar that is not ``show``n ignores it); ``done`` of ``total`` are done before it
    starts (a resumed job's) and do not count towards the rate. It draws on
    ``console`` (default: rich's, on stdout)."""
    if not show:
        yield Advance()
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} " + unit + "/s"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[note]}"),
    )
    with Progress(*columns, console=console) as bar:
        yield Advance(bar, bar.add_task(label, total=total, completed=done, rate="-", note=""))
