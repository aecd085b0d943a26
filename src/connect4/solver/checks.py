"""What a solver accepts: board sizes, thread counts, table sizes, opening books, and
the one error (:class:`SolverError`) that says what is wrong.

>>> check_threads(4)
4
>>> position_key(Position.from_moves("1")) == position_key(Position.from_moves("7"))
True
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from connect4.core.bits import canonical_key, fits_word
from connect4.core.errors import Connect4Error
from connect4.core.limits import Limit
from connect4.core.position import Position, check_board_size
from connect4.solver.backend import NO_BOOK
from connect4.solver.layout import MAXW

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "DEFAULT_BOOK",
    "DEFAULT_TT_MEGABYTES",
    "MAX_HEIGHT",
    "MAX_THREADS",
    "MAX_TT_MEGABYTES",
    "BookArrays",
    "SolverError",
    "book_arrays",
    "check_book",
    "check_solver_board",
    "check_threads",
    "kernel_ready",
    "position_key",
]

DEFAULT_BOOK = "default"
"""The book spec of the board size's shipped opening book (see
:func:`connect4.solver.book.load_book`): what :func:`connect4.solver.solver_for` probes
unless told otherwise."""
DEFAULT_TT_MEGABYTES = 64
MAX_TT_MEGABYTES = 4096
MAX_THREADS = 256
MAX_HEIGHT = 62  # the kernels shift a column's mask (height + 1 bits) within a 64-bit word


class SolverError(Connect4Error):
    """The solver cannot answer: the game is over, the board is too large or
    of another size, or the rules are not the standard ones."""


def check_threads(threads: object) -> int:
    """``threads`` as a thread count, or :class:`SolverError` saying what is wrong.

    >>> check_threads(2)
    2
    >>> check_threads(0)
    Traceback (most recent call last):
    ...
    connect4.solver.checks.SolverError: threads must be a whole number from 1 to 256, not 0
    """
    if type(threads) is not int or not 1 <= threads <= MAX_THREADS:
        raise SolverError(
            f"threads must be a whole number from 1 to {MAX_THREADS}, not {threads!r}"
        )
    return threads


@runtime_checkable
class BookArrays(Protocol):
    """An opening book as the solver probes it (:class:`connect4.solver.book.Book` is one):
    sorted canonical keys, their exact scores, and the depth in stones."""

    @property
    def keys(self) -> NDArray[np.uint64]: ...
    @property
    def values(self) -> NDArray[np.int8]: ...
    @property
    def plies(self) -> int: ...


def check_book(book: object) -> BookArrays:
    """``book`` if it is an opening book the solver can probe, else :class:`SolverError`.

    >>> check_book("default")
    Traceback (most recent call last):
    ...
    connect4.solver.checks.SolverError: book must be an opening book (connect4.solver.book.Book) \
or None, not 'default'; solver_for(width, height, book="default") gives a solver with the \
board's default book
    """
    if isinstance(book, str) or not isinstance(book, BookArrays):
        raise SolverError(
            "book must be an opening book (connect4.solver.book.Book) or None, "
            f'not {book!r}; solver_for(width, height, book="default") gives a solver '
            "with the board's default book"
        )
    return book


def book_arrays(
    keys: NDArray[np.uint64] | None,
    values: NDArray[np.int8] | None,
    width: int,
    height: int,
) -> tuple[NDArray[np.uint64], NDArray[np.int8]]:
    """A book's ``keys`` and ``values`` as the kernel probes them (contiguous, ``None``: no
    book), or :class:`SolverError` unless the keys are sorted, distinct and shaped for the
    board: ``(N,)``, or ``(N, 2)`` (low word, high word) on a board over 64 bits.

    >>> keys, values = book_arrays(np.array([3, 9]), np.array([1, -2]), 7, 6)
    >>> keys.dtype, values.tolist()
    (dtype('uint64'), [1, -2])
    >>> book_arrays(np.array([9, 3]), np.array([1, -2]), 7, 6)
    Traceback (most recent call last):
    ...
    connect4.solver.checks.SolverError: book keys must be sorted and distinct
    """
    words = 1 if fits_word(width, height) else 2
    if keys is None or values is None:
        keys, values = NO_BOOK
        if words == 2:
            keys = keys.reshape(0, 2)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    values = np.ascontiguousarray(values, dtype=np.int8)
    shape = (values.shape[0],) if words == 1 else (values.shape[0], 2)
    if values.ndim != 1 or keys.shape != shape:
        raise SolverError(
            f"book keys must have shape {shape} beside {values.shape[0]} values on a "
            f"{width}x{height} board, not {keys.shape}"
        )
    if words == 1:
        ascending = keys[1:] > keys[:-1]
    else:  # as 128-bit numbers: the high words, then the low words of equal ones
        low, high = keys[:, 0], keys[:, 1]
        ascending = (high[1:] > high[:-1]) | ((high[1:] == high[:-1]) & (low[1:] > low[:-1]))
    if keys.shape[0] > 1 and not bool(np.all(ascending)):
        raise SolverError("book keys must be sorted and distinct")
    return keys, values


def check_solver_board(width: int, height: int) -> None:
    """Raise :class:`SolverError` unless the solver plays a ``width x height`` board (of
    up to 128 bits whose columns hold at most ``MAX_HEIGHT`` cells: the kernels shift a
    column's mask and sentinel within a 64-bit word).

    >>> check_solver_board(1, 64)
    Traceback (most recent call last):
    ...
    connect4.solver.checks.SolverError: the solver handles columns of up to 62 cells, not 64
    """
    try:
        check_board_size(width, height)
    except ValueError as error:
        raise SolverError(str(error)) from None
    if height > MAX_HEIGHT:
        raise SolverError(f"the solver handles columns of up to {MAX_HEIGHT} cells, not {height}")
    if width > MAXW:  # (its move lists and column order hold MAXW columns)
        raise SolverError(f"the solver handles boards of up to {MAXW} columns, not {width}")


def kernel_ready(width: int, height: int, *, load: bool = True, wait: float = 0.0) -> bool:
    """True when the solver answers a board's positions without first compiling: always
    on boards of up to 64 bits (their kernel is prepared ahead), and on a bigger board
    once its own kernel is loaded in this process. Until then, with ``load``, it
    loads in the background (about 0.1 s from the cache; 20-40 s the first time a
    machine solves the size), waited for at most ``wait`` seconds, so a caller with a
    deadline can say "not yet" in time.

    >>> kernel_ready(7, 6)
    True
    """
    if fits_word(width, height):
        return True
    from connect4.solver import backend, wide

    if wide.is_loaded(width, height):
        return True
    if not load:
        return False
    waiting = Limit.within(wait)
    if backend.compile_big_in_background(width, height):  # a first compile: a child's
        while backend.compile_pending(width, height):
            if waiting.expired():
                return False
            time.sleep(min(0.1, waiting.remaining() or 0.0))
    return wide.load_in_background(width, height, wait=waiting.remaining() or 0.0)


def position_key(position: Position) -> int:
    """The canonical key the solver's table and book use: ``min(key, mirror key)``.

    >>> position_key(Position.from_moves("1")) == position_key(Position.from_moves("7"))
    True
    """
    return canonical_key(position.key(), position.width, position.height)
