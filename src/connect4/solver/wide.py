# mypy: disable-error-code="call-arg,no-untyped-call,import-untyped,arg-type,var-annotated"
# mypy: disable-error-code="assignment,return-value,untyped-decorator,no-any-return,name-defined"
# ruff: noqa: F821
"""The solver's kernel for boards over 64 bits: the same search on 128-bit bitboards.

A board with ``width * (height + 1) > 64`` (8x8, 9x7, 10x6 ...) keeps its
bitboards in one 128-bit integer, LLVM's ``i128`` (two machine words: x86-64
adds, shifts and counts bits across them with ``adc``, ``shld``/``shrd`` and two
``popcnt``). numba has no such type; :mod:`connect4.core.compiler` gives it one,
``uint128``, with its arithmetic, comparisons and its widening from ``uint64``;
the kernel's functions (:mod:`connect4.solver.kernel`), written for ``uint64``,
compile unchanged for it. Only what depends on the word differs, here:

* the board constants (width, height, bottom row, board mask) are compiled in,
  one copy of the search per board size, compiled the first time a board of
  that size is solved: generated as a module in the cache root and cached on
  disk by numba (:func:`connect4.core.generated.generate`; never by
  ``connect4 prepare``);
* the table's accessors (the table store itself is the kernel's, written once
  for both widths): the key is hashed modulo ``2^B`` with a 128-bit odd
  multiplier (a bijection, as on one word) and an entry is two 128-bit words,
  each read and written whole (one 16-byte move), each carrying the whole tag
  (a residue of up to 115 bits and the generation) above 12 of the 24 data
  bits, as the one-word kernel's two-word entries do: an entry stays exact
  without its key and with threads writing at once, up to 128-bit keys (see
  :mod:`connect4.solver.layout`; :func:`~connect4.solver.layout.smallest_table`
  is the least table that leaves room for the residue);
* a busy mark and a helper thread's move noise fold the key into one word.

Node counts equal the one-word kernel's on the same search (same moves, same
order, same table decisions): only the words are wider.

>>> from connect4 import Position
>>> from connect4.solver.layout import new_memory, new_table
>>> p = Position.from_moves("3135257121184355324158714516672177756854824773268822838", 8, 8)
>>> mem, table = new_memory(8, 8), new_table(8, 8, 4 << 20)
>>> kernel = wide_backend(8, 8)
>>> kernel.solve(mem, table, *NO_BOOK, p.current, p.mask, p.ply, False)
2
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit, types

from connect4.core import compiler
from connect4.core.bits import centre_order, check_word_board
from connect4.core.cache import FileLock
from connect4.core.compiler import Dispatcher, high, lda2, low, sta2, uint128, wide
from connect4.core.generated import Copy, generate, kernel_folder
from connect4.core.position import board_mask, bottom_mask
from connect4.solver import kernel
from connect4.solver.entries import ENTRY_POINTS, UINT64, EntryPoint, Kernel
from connect4.solver.layout import LAYOUT_VERSION, MAXW

__all__ = [
    "NO_BOOK",
    "WideBackend",
    "is_cached",
    "is_loaded",
    "load_in_background",
    "uint128",
    "wide_backend",
]

# (F821: the functions compiled per board read names of its namespace, see _namespace)
NO_BOOK: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.uint64), np.zeros(0, np.int8))
WORDS = 4  # table words per entry (two 128-bit words)


def split(value: int) -> tuple[int, int]:
    """``(low word, high word)`` of a Python int below ``2^128``.

    >>> split((5 << 64) | 7)
    (7, 5)
    """
    return value & ((1 << 64) - 1), value >> 64


# ---------------------------------------------------------------- what differs
# Functions compiled only as copies in each board's namespace (see _namespace), where
# they replace the kernel's of the same name without "_wide": W_BITS, the W_* words
# and SPEC_* are that board's constants; ld, lda, sta, U1 ... the kernel's.
HASH_MUL_WIDE = 0x9E3779B97F4A7C15F39CC0605CEDC835  # odd: a bijection modulo 2^B


INLINE = njit(cache=True, nogil=True, inline="always")


@INLINE
def _board_wide(m, spec_w, spec_h, spec_bottom):  # type: ignore[no-untyped-def]
    """The board constants, compiled in (the arguments are the one-word kernel's)."""
    return SPEC_W, np.uint64(SPEC_H), wide(W_BOTTOM_LO, W_BOTTOM_HI), wide(W_BOARD_LO, W_BOARD_HI)


# The table store's accessors (the store itself is the kernel's, written once): a key
# of ``W_BITS`` bits is hashed with a 128-bit odd multiplier, and an entry is two
# 128-bit words, each read and written whole, each with the whole tag above bit 12.
@INLINE
def _hash_wide(t, key):  # type: ignore[no-untyped-def]
    return (key * wide(W_MUL_LO, W_MUL_HI)) & wide(W_KMASK_LO, W_KMASK_HI)


@INLINE
def _words_wide(t):  # type: ignore[no-untyped-def]
    return WORDS


@INLINE
def _tagshift_wide(t):  # type: ignore[no-untyped-def]
    return U12


@INLINE
def _lift_wide(x):  # type: ignore[no-untyped-def]
    return wide(x, U0)


@INLINE
def _low_wide(x):  # type: ignore[no-untyped-def]
    return low(x)


@INLINE
def _tload_wide(t, i):  # type: ignore[no-untyped-def]
    return lda2(t, i)


@INLINE
def _tsave_wide(t, i, word):  # type: ignore[no-untyped-def]
    sta2(t, i, word)


@INLINE
def _book_key_wide(bk, i):  # type: ignore[no-untyped-def]
    """The book's keys are two words each (low, high)."""
    return wide(ld(bk, 2 * i), ld(bk, 2 * i + 1))


@INLINE
def _column_wide(h):  # type: ignore[no-untyped-def]
    """The kernel's column mask, as a ``uint128`` (shifted to the board's top columns)."""
    return wide((U1 << h) - U1, U0)


@INLINE
def _fold(key):  # type: ignore[no-untyped-def]
    """One word of a ``uint128`` key."""
    return low(key) ^ (high(key) * HASH_MUL)


@INLINE
def _noise_wide(key, thread, c):  # type: ignore[no-untyped-def]
    """The kernel's move noise of a helper thread, on the folded key."""
    return (_fold(key) + thread * NOISE_MUL + np.uint64(c + 1) * HASH_MUL) * HASH_MUL


@INLINE
def _mark_wide(key):  # type: ignore[no-untyped-def]
    """A busy mark's word: the folded key (a collision only reorders moves)."""
    return _fold(key)


ENTRY = njit(cache=True, nogil=True)


@ENTRY
def _solve_entry(m, t, bk, bv, nbook, c_lo, c_hi, m_lo, m_hi, ply, weak):  # type: ignore[no-untyped-def]
    """The kernel's ``_solve`` of the position with words ``c_lo, c_hi, m_lo, m_hi``."""
    return _solve(m, t, bk, bv, nbook, wide(c_lo, c_hi), wide(m_lo, m_hi), ply, weak)


@ENTRY
def _analyze_entry(m, t, bk, bv, nbook, c_lo, c_hi, m_lo, m_hi, ply, weak, out):  # type: ignore[no-untyped-def]
    """The kernel's ``_analyze``, the position in four words."""
    _analyze(m, t, bk, bv, nbook, wide(c_lo, c_hi), wide(m_lo, m_hi), ply, weak, out)


@ENTRY
def _probe_entry(m, t, bk, bv, nbook, c_lo, c_hi, m_lo, m_hi, ply, alpha, beta):  # type: ignore[no-untyped-def]
    """The kernel's ``_probe``, the position in four words."""
    return _probe(m, t, bk, bv, nbook, wide(c_lo, c_hi), wide(m_lo, m_hi), ply, alpha, beta)


OVERRIDES: dict[str, Dispatcher] = {
    "_board": _board_wide,
    "_hash": _hash_wide,
    "_words": _words_wide,
    "_tagshift": _tagshift_wide,
    "_lift": _lift_wide,
    "_low": _low_wide,
    "_tload": _tload_wide,
    "_tsave": _tsave_wide,
    "_book_key": _book_key_wide,
    "_noise": _noise_wide,
    "_mark": _mark_wide,
    "_column": _column_wide,
}
HELPERS: dict[str, Dispatcher] = {"_fold": _fold}
ENTRIES: dict[str, Dispatcher] = {
    "_solve": _solve_entry,
    "_analyze": _analyze_entry,
    "_probe": _probe_entry,
}


def _namespace(width: int, height: int) -> dict[str, Any]:
    """The kernel's functions compiled for one wide board: every numba function of
    :mod:`connect4.solver.kernel`, with the overrides above, generated as one module
    with the board's constants (:func:`connect4.core.generated.generate`), so each
    copy calls the others."""
    key_bits = width * (height + 1)
    order = list(centre_order(width))
    constants: dict[str, object] = {
        "SPEC_W": width,
        "SPEC_H": height,
        "W_BITS": key_bits,
        "SPAN": 2,
        "SPEC_ORDER": np.array(order + [0] * (MAXW - width), dtype=np.int64),
    }
    for name, value in (
        ("BOTTOM", bottom_mask(width, height)),
        ("BOARD", board_mask(width, height)),
        ("MUL", HASH_MUL_WIDE),
        ("KMASK", (1 << key_bits) - 1),
    ):
        lo, hi = split(value)
        constants[f"W_{name}_LO"], constants[f"W_{name}_HI"] = np.uint64(lo), np.uint64(hi)
    namespace: dict[str, Any] = dict(vars(kernel))
    namespace.update(wide=wide, low=low, high=high, lda2=lda2, sta2=sta2, WORDS=WORDS)
    functions: dict[str, Dispatcher] = {
        name: value
        for name, value in vars(kernel).items()
        if isinstance(value, Dispatcher)
        and value.py_func.__module__ == kernel.__name__
        and not name.startswith("native_")
        and name not in ("layout_version", "_solve_batch")
    }
    functions.update(OVERRIDES)
    functions.update(HELPERS)
    functions.update({f"{name}_entry": function for name, function in ENTRIES.items()})
    copies = {name: Copy(f.py_func, compiler.jit_options(f)) for name, f in functions.items()}
    sources = (kernel, compiler, sys.modules[__name__], LAYOUT_VERSION)
    board = f"wide_{width}x{height}"
    return generate(board, kernel_folder(), namespace, constants, copies, sources)


# ---------------------------------------------------------------- the backend
class WideBackend(Kernel):
    """The solver's entry points for one board over 64 bits: ``current``/``mask``
    (Python ints) go in as two words each. ``batch`` is for one-word boards only."""

    name = "wide"

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._g = _namespace(width, height)
        self._lock = threading.Lock()

    def run(self, point: EntryPoint, raw: list[int]) -> int:
        """Call the board's copy of ``point``'s function, each word split in two."""
        if point.function == "layout_version":
            return int(kernel.LAYOUT_VERSION)
        if point.function not in ENTRIES:
            check_word_board(self.width, self.height, f"the solver's {point.name!r} entry")
        arguments: list[object] = []
        for param, value in zip(point.params, raw, strict=True):
            if param.kind == UINT64:
                arguments += [np.uint64(word) for word in split(value)]
            else:
                arguments.append(value)
        result = self._g[f"{point.function}_entry"](*arguments)
        return 0 if result is None else int(result)

    def entries(self) -> list[Dispatcher]:
        """The board's compiled entry functions."""
        return [self._g[f"{name}_entry"] for name in ENTRIES]

    def compile(self) -> None:
        """Compile (or load from numba's cache) every entry now."""
        u64, i64, flag = types.uint64, types.int64, types.boolean
        head = (i64, i64, i64, i64, i64, u64, u64, u64, u64, i64)
        with self._lock:
            self._g["_solve_entry"].compile((*head, flag))
            self._g["_analyze_entry"].compile((*head, flag, i64))
            self._g["_probe_entry"].compile((*head, i64, i64))


_backends: dict[tuple[int, int], WideBackend] = {}
_lock = threading.Lock()  # guards the dicts; a board's compile holds its own lock
_compiling: dict[tuple[int, int], threading.Lock] = {}


def wide_backend(
    width: int,
    height: int,
    notice: Callable[[str], None] | None = None,
    lock: FileLock | None = None,
) -> WideBackend:
    """The backend of a board over 64 bits, compiled (or loaded from numba's cache)
    the first time this process asks for it; a cold compile is told to ``notice`` and
    holds ``lock`` (:func:`connect4.solver.backend.compile_lock`: one process compiles
    a board at a time)."""
    key = (width, height)
    with _lock:
        backend = _backends.get(key)
        if backend is not None:
            return backend
        compiling = _compiling.setdefault(key, threading.Lock())
    with compiling:  # one compile per board; other boards' callers go on
        with _lock:
            backend = _backends.get(key)
        if backend is None:
            backend = WideBackend(width, height)
            if compiler.cache_is_warm(backend.entries()):
                backend.compile()  # loaded from numba's cache
            else:
                _compile_cold(backend, notice, lock)
            with _lock:
                _backends[key] = backend
    return backend


def _compile_cold(
    backend: WideBackend, notice: Callable[[str], None] | None, lock: FileLock | None
) -> None:
    """Compile a board's kernel into numba's cache, one process at a time (the one
    holding ``lock``): another process compiling it is waited for, and its cache then
    loaded."""
    width, height = backend.width, backend.height
    if lock is not None and not lock.acquire(wait=False):
        if notice is not None:
            notice(
                f"another connect4 process is compiling the solver for {width}x{height}; "
                "waiting for it..."
            )
        lock.acquire(wait=True)
    try:
        if notice is not None and not compiler.cache_is_warm(backend.entries()):
            notice(
                f"compiling the solver for {width}x{height} boards (about a minute, first "
                "run only; cached afterwards)..."
            )
        backend.compile()
    finally:
        if lock is not None:
            lock.release()


def is_loaded(width: int, height: int) -> bool:
    """True once a board's kernel is loaded in this process."""
    with _lock:
        return (width, height) in _backends


def is_cached(width: int, height: int) -> bool:
    """True when numba's cache holds a board's kernel (it loads in a tenth of a second)."""
    return compiler.cache_is_warm(WideBackend(width, height).entries())


_loading: dict[tuple[int, int], threading.Thread] = {}


def load_in_background(width: int, height: int, wait: float = 0.0) -> bool:
    """True once a board's kernel is loaded in this process; otherwise it is loaded on
    a background thread (about 0.1 s from numba's cache) and waited for at most
    ``wait`` seconds, so a caller with a deadline can answer "not yet" in time. (A
    first compile runs in a child process first:
    :func:`connect4.solver.checks.kernel_ready`.)"""
    key = (width, height)
    if is_loaded(width, height):
        return True
    with _lock:
        thread = _loading.get(key)
        if thread is None and key not in _backends:
            thread = _loading[key] = threading.Thread(
                target=_load, args=key, name=f"connect4-kernel-{width}x{height}", daemon=True
            )
            thread.start()
    if thread is not None:
        thread.join(max(0.0, wait))
    return is_loaded(width, height)


def _load(width: int, height: int) -> None:
    """A background load of a board's kernel (see :func:`load_in_background`)."""
    try:
        wide_backend(width, height)
    except Exception:  # the next solve that needs the kernel says why
        pass
    finally:
        with _lock:
            _loading.pop((width, height), None)


assert {p.function for p in ENTRY_POINTS} >= set(ENTRIES)
