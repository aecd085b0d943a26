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

import importlib
import os
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from connect4.core.errors import BudgetExceeded, Connect4Error
from connect4.core.position import Position
from connect4.solver import DEFAULT_TT_MEGABYTES, forget_thread_solvers, solver_for
from connect4.solver.backend import TABLES
from connect4.solver.book.format import Book
from connect4.solver.book.reader import load_book

__all__ = [
    "DEFAULT_CHUNK",
    "JobError",
    "JobInterrupted",
    "RecordJournal",
    "analyze_chunk",
    "make_executor",
    "progress_bar",
    "run_chunks",
    "worker_book",
]

DEFAULT_CHUNK = 64  # positions per task
Result = TypeVar("Result")


class JobError(Connect4Error):
    """A job that cannot start: no Dask, an unreachable scheduler."""


class JobInterrupted(BudgetExceeded):
    """A job stopped before the end; its journal lets ``--resume`` continue."""

    def __init__(self, journal: Path, done: int, job: str = "job") -> None:
        super().__init__(
            f"{job} interrupted after {done} positions; resume with --resume (journal {journal})"
        )
        self.journal = journal


# ---------------------------------------------------------------- executors
@contextmanager
def make_executor(workers: int | None, scheduler: str | None) -> Iterator[Executor]:
    """A local process pool of ``workers`` (``None``: all cores), or a Dask cluster's
    executor when ``scheduler`` is given (needs the ``dask`` extra)."""
    if scheduler:
        try:
            distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise JobError("--scheduler needs Dask: pip install 'connect4[dask]'") from None
        try:
            client = distributed.Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as error:
            raise JobError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
        try:
            yield client.get_executor()
        finally:
            client.close()
    else:
        with ProcessPoolExecutor(max_workers=workers, initializer=fresh_worker) as pool:
            yield pool


def fresh_worker() -> None:
    """Start a worker process without the solvers and tables its parent had.

    A forked worker inherits them as memory shared copy-on-write: its first
    write to each page of a table would copy the page (measured: labelling
    1.3-2x slower than with a table of its own).
    """
    forget_thread_solvers()
    TABLES.clear()


def run_chunks(
    pool: Executor,
    function: Callable[..., Result],
    tasks: Sequence[tuple[Any, ...]],
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
    """The book ``spec`` names (:func:`connect4.solver.book.load_book`), loaded once per process."""
    key = (spec, width, height)
    if key not in _WORKER_BOOKS:
        _WORKER_BOOKS[key] = load_book(spec, width, height)
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
@dataclass
class RecordJournal:
    """An append-only file: ``header`` (the job's parameters), then fixed-size records.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "job.partial"
    >>> journal = RecordJournal(path, b"JOB1", struct.Struct("<Qb"))
    >>> journal.start()
    >>> journal.append([(7, -1), (9, 2)])
    >>> journal.matches(), journal.read()
    (True, [(7, -1), (9, 2)])
    """

    path: Path
    header: bytes
    record: struct.Struct

    def exists(self) -> bool:
        """Whether the journal file is there."""
        return self.path.exists()

    def has_records(self) -> bool:
        """Whether the file holds at least one whole record."""
        try:
            return self.path.stat().st_size >= len(self.header) + self.record.size
        except OSError:
            return False

    def matches(self) -> bool:
        """Whether the file on disk starts with this job's header."""
        with self.path.open("rb") as file:
            return file.read(len(self.header)) == self.header

    def start(self) -> None:
        """Begin a new journal (replacing any file there)."""
        self.path.write_bytes(self.header)

    def read(self) -> list[tuple[Any, ...]]:
        """The records on disk (of a journal that :meth:`matches`); a torn last record is cut."""
        body = self.path.read_bytes()[len(self.header) :]
        whole = len(body) - len(body) % self.record.size
        if whole != len(body):  # a record torn by the interruption
            with self.path.open("r+b") as file:
                file.truncate(len(self.header) + whole)
        return list(self.record.iter_unpack(body[:whole]))

    def append(self, records: Sequence[tuple[Any, ...]]) -> None:
        """Record finished work durably (flushed and fsynced)."""
        with self.path.open("ab") as file:
            file.write(b"".join(self.record.pack(*record) for record in records))
            file.flush()
            os.fsync(file.fileno())

    def remove(self) -> None:
        """Delete the file (the job's result is written)."""
        self.path.unlink(missing_ok=True)


# ---------------------------------------------------------------- progress
@contextmanager
def progress_bar(
    show: bool, total: int, done: int, label: str = "solving", unit: str = "pos"
) -> Iterator[Callable[[int], None]]:
    """A rich progress bar with rate and ETA; ``advance(n)`` moves it (nothing if not ``show``)."""
    if not show:
        yield lambda n: None
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
    )
    with Progress(*columns) as bar:
        task = bar.add_task(label, total=total, completed=done, rate="-")
        start = time.perf_counter()
        count = 0

        def advance(n: int) -> None:
            nonlocal count
            count += n
            rate = count / max(time.perf_counter() - start, 1e-9)
            bar.update(task, advance=n, rate=f"{rate:,.0f}")

        yield advance
