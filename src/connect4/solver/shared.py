"""Shared solvers: one per thread, board, table and book, probing the board's default book.

:func:`solver_for` is the one door to a ready solver: the module shortcuts
(:func:`solve`, :func:`analyze`, :func:`best_move`), the review and the web
service take theirs here (a perfect player owns its solver instead: a game asks
it for each move on a new thread, and its table must follow it). Its ``book`` is
what every solver takes: a loaded book, ``None`` (search without one), or a
book spec that :func:`connect4.solver.book.load_book` loads -- ``"default"``
(:data:`DEFAULT_BOOK`, the default) the board size's shipped book of exact
scores (on 7x6 the 12-ply database, so the empty board is a lookup away; one
that cannot be read is left out, said once on stderr), a ``.c4book`` file or
``bitbully:12-ply-dist`` (one that cannot be read, or does not fit the board, is
an error). Threads search in parallel without sharing a table.

>>> from connect4 import Position
>>> solve(Position())  # the first player wins with her 41st stone
1
>>> solver_for(7, 6) is solver_for(7, 6), solver_for(7, 6) is solver_for(7, 6, book=None)
(True, False)
>>> best_move(Position.from_moves("445566"))
2
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections import OrderedDict
from concurrent.futures import Executor

from connect4.core.position import Position
from connect4.core.processes import make_executor
from connect4.solver.checks import DEFAULT_BOOK, DEFAULT_TT_MEGABYTES, BookArrays
from connect4.solver.solver import Solver

__all__ = [
    "DEFAULT_BOOK",
    "analyze",
    "best_move",
    "forget_thread_solvers",
    "job_pool",
    "solve",
    "solver_for",
]

KEEP = 3  # solvers kept per thread (a web worker: its analyses and reviews)

SolverKey = tuple[int, int, int, bool, bool, bool, "int | str", int]
_local = threading.local()  # this thread's solvers


def solver_for(
    width: int = 7,
    height: int = 6,
    *,
    tt_megabytes: int = DEFAULT_TT_MEGABYTES,
    book: BookArrays | str | None = DEFAULT_BOOK,
    reuse_table: bool = False,
    keep_entries: bool = False,
    etc: bool = True,
    threads: int = 1,
) -> Solver:
    """This thread's solver for a board, table size, book and options (made on first
    use; see :class:`Solver` for the options, ``threads`` included). ``book`` is a
    loaded book, ``None``, or a spec loaded once per solver (see the module's
    description). Each thread keeps its ``KEEP`` most recently used solvers; a
    dropped one gives its table back to the pool.

    >>> solver_for(4, 4, tt_megabytes=1).solve(Position(4, 4))
    0
    """
    named = book if isinstance(book, str) else id(book)  # a spec: loaded on a miss only
    key: SolverKey = (width, height, tt_megabytes, reuse_table, keep_entries, etc, named, threads)
    solvers: OrderedDict[SolverKey, tuple[Solver, BookArrays | None]]
    solvers = _local.__dict__.setdefault("solvers", OrderedDict())
    found = solvers.get(key)
    if found is not None:
        solvers.move_to_end(key)
        return found[0]
    if isinstance(book, str):
        from connect4.solver.book import load_book

        book = load_book(book, width, height, exact=True)
    solver = Solver(
        width,
        height,
        tt_megabytes,
        book=book,
        reuse_table=reuse_table,
        keep_entries=keep_entries,
        etc=etc,
        threads=threads,
    )
    solvers[key] = (solver, book)  # the book stays alive while its id is a key
    while len(solvers) > KEEP:
        solvers.popitem(last=False)[1][0].close()
    return solver


def forget_thread_solvers() -> None:
    """Drop this thread's solvers without giving their tables back to the pool.

    For a process forked from one that solved: its solvers and pooled tables
    are the parent's memory, shared copy-on-write, and the first write to each
    page would copy it (a page fault per 4 KB of table). Call it, and
    ``TABLES.clear()``, first thing in the child (:func:`fresh_worker` does both).
    """
    _local.__dict__.pop("solvers", None)


def fresh_worker() -> None:
    """Start a forked worker process without the solvers and pooled tables its parent
    had (:func:`forget_thread_solvers`); the initializer of the job pools'
    workers (:func:`connect4.core.processes.make_executor`).

    Inherited, they are the parent's memory shared copy-on-write: a worker's first
    write to each page of a table would copy the page (measured: labelling
    1.3-2x slower than with a table of its own).
    """
    from connect4.solver.backend import TABLES

    forget_thread_solvers()
    TABLES.clear()


def job_pool(
    executor: Executor | None, workers: int | None, scheduler: str | None
) -> contextlib.AbstractContextManager[Executor]:
    """Where a job of solver tasks runs: the caller's ``executor`` when given (left open
    for it), else a pool of ``workers`` (or a Dask cluster's, ``scheduler``) made by the
    one pool factory (:func:`connect4.core.processes.make_executor`), each local worker
    started by :func:`fresh_worker`. Enter it before the progress bar, so the workers
    fork before the bar's thread starts."""
    if executor is not None:
        return contextlib.nullcontext(executor)
    return make_executor(workers, scheduler, fresh_worker)


def solve(position: Position, *, weak: bool = False) -> int:
    """The exact score of ``position`` with this thread's solver of its board (default book).

    >>> solve(Position.from_moves("44455554221"))
    -15
    """
    return solver_for(position.width, position.height).solve(position, weak=weak)


def analyze(position: Position, *, weak: bool = False) -> list[int | None]:
    """Every column's score with this thread's solver (``None`` for a full column).

    >>> analyze(Position.from_moves("445566"))
    [17, 17, 18, 17, 17, 17, 18]
    """
    return solver_for(position.width, position.height).analyze(position, weak=weak)


def best_move(
    position: Position, tie_break: str = "center", rng: random.Random | None = None
) -> int:
    """The best 0-based column with this thread's solver (ties: centre first or random)."""
    return solver_for(position.width, position.height).best_move(position, tie_break, rng)
