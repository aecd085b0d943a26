"""Shared solvers: one per thread, board, table and book, probing the board's default book.

:func:`solver_for` is the one door to a ready solver: the module shortcuts
(:func:`solve`, :func:`analyze`, :func:`best_move`), the review and the web
service take theirs here (a perfect player owns its solver instead: a game asks
it for each move on a new thread, and its table must follow it). ``book="default"`` (the
default) is the board size's exact opening book when one ships
(:func:`connect4.solver.book.default_book` when it holds exact scores: on 7x6
the 12-ply database, so the empty board is a lookup away; a shipped book that
cannot be read is a :class:`SolverError`, never a silent search without it);
``None`` searches without a book; a
:class:`connect4.solver.book.Book` is probed as given. Threads search in
parallel without sharing a table.

>>> from connect4 import Position
>>> solve(Position())  # the first player wins with her 41st stone
1
>>> solver_for(7, 6) is solver_for(7, 6), solver_for(7, 6) is solver_for(7, 6, book=None)
(True, False)
>>> best_move(Position.from_moves("445566"))
2
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from typing import Literal

from connect4.core.errors import Connect4Error
from connect4.core.position import Position
from connect4.solver.checks import DEFAULT_TT_MEGABYTES, BookArrays, SolverError, check_book
from connect4.solver.solver import Solver

__all__ = [
    "DEFAULT_BOOK",
    "DefaultBook",
    "analyze",
    "best_move",
    "forget_thread_solvers",
    "solve",
    "solver_for",
    "use_book",
]

DefaultBook = Literal["default"]
DEFAULT_BOOK: DefaultBook = "default"
"""Asks for the board size's exact default book (``book="default"``)."""
KEEP = 3  # solvers kept per thread (a web worker: its analyses and reviews)

SolverKey = tuple[int, int, int, bool, bool, bool, int, int, int]
_local = threading.local()  # this thread's solvers
_default_lock = threading.Lock()  # threads asking at once load a default book once


def default_arrays(width: int, height: int) -> BookArrays | None:
    """The board's default book when it holds exact scores (``None`` when none ships or
    it holds win/draw/loss signs only); one that cannot be read raises :class:`SolverError`.

    >>> default_arrays(7, 6).plies, default_arrays(5, 4)
    (12, None)
    """
    from connect4.solver.book.reader import default_book

    try:
        with _default_lock:
            book = default_book(width, height)
    except (Connect4Error, OSError) as error:
        raise SolverError(
            f"the {width}x{height} board's default opening book cannot be used: {error} "
            "(reinstall connect4, or solve without the book)"
        ) from None
    return None if book is None or book.wdl else book


def use_book(book: BookArrays | DefaultBook | None, width: int, height: int) -> BookArrays | None:
    """The book ``book`` stands for on a board: ``"default"`` the board's exact default
    book (``None`` when none ships), ``None`` no book, a book itself (checked).

    >>> use_book("default", 7, 6).plies, use_book(None, 7, 6), use_book("default", 5, 4)
    (12, None, None)
    >>> use_book("12-ply", 7, 6)
    Traceback (most recent call last):
    ...
    connect4.solver.checks.SolverError: book must be an opening book \
(connect4.solver.book.Book) or None, not '12-ply'; solver_for(width, height, book="default") \
gives a solver with the board's default book
    """
    if isinstance(book, str) and book == DEFAULT_BOOK:
        return default_arrays(width, height)
    if book is None:
        return None
    arrays = check_book(book)
    size = (getattr(arrays, "width", width), getattr(arrays, "height", height))
    if size != (width, height):
        raise SolverError(
            f"the book is for {size[0]}x{size[1]} boards, not the {width}x{height} board"
        )
    return arrays


def solver_for(
    width: int = 7,
    height: int = 6,
    *,
    tt_megabytes: int = DEFAULT_TT_MEGABYTES,
    book: BookArrays | DefaultBook | None = DEFAULT_BOOK,
    reuse_table: bool = False,
    keep_entries: bool = False,
    etc: bool = True,
    threads: int = 1,
) -> Solver:
    """This thread's solver for a board, table size, book and options (made on first
    use; see :class:`Solver` for the options, ``threads`` included). Each thread keeps
    its ``KEEP`` most recently used solvers; a dropped one gives its table back to the
    pool. A default book that cannot be read raises :class:`SolverError`.

    >>> solver_for(4, 4, tt_megabytes=1).solve(Position(4, 4))
    0
    """
    arrays = use_book(book, width, height)
    book_id = 0 if arrays is None else id(arrays)
    plies = 0 if arrays is None else arrays.plies
    key: SolverKey = (
        width, height, tt_megabytes, reuse_table, keep_entries, etc, book_id, plies, threads
    )  # fmt: skip
    solvers: OrderedDict[SolverKey, tuple[Solver, BookArrays | None]]
    solvers = _local.__dict__.setdefault("solvers", OrderedDict())
    found = solvers.get(key)
    if found is not None:
        solvers.move_to_end(key)
        return found[0]
    solver = Solver(
        width,
        height,
        tt_megabytes,
        book=arrays,
        reuse_table=reuse_table,
        keep_entries=keep_entries,
        etc=etc,
        threads=threads,
    )
    solvers[key] = (solver, arrays)  # the book stays alive while its id is a key
    while len(solvers) > KEEP:
        solvers.popitem(last=False)[1][0].close()
    return solver


def forget_thread_solvers() -> None:
    """Drop this thread's solvers without giving their tables back to the pool.

    For a process forked from one that solved: its solvers and pooled tables
    are the parent's memory, shared copy-on-write, and the first write to each
    page would copy it (a page fault per 4 KB of table). Call it, and
    ``TABLES.clear()``, first thing in the child.
    """
    _local.__dict__.pop("solvers", None)


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
