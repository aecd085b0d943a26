# mypy: disable-error-code="call-arg,no-untyped-call,import-untyped,arg-type,var-annotated"
# mypy: disable-error-code="assignment,return-value,untyped-decorator,no-any-return,name-defined"
# ruff: noqa: F821
"""The solver's kernel for boards over 64 bits: the same search on 128-bit bitboards.

A board with ``width * (height + 1) > 64`` (8x8, 9x7, 10x6 ...) keeps its
bitboards in one 128-bit integer, LLVM's ``i128`` (two machine words: x86-64
adds, shifts and counts bits across them with ``adc``, ``shld``/``shrd`` and two
``popcnt``). numba has no such type, so this module gives it one, ``uint128``,
with its arithmetic, comparisons and its widening from ``uint64``; the kernel's
functions (:mod:`connect4.solver.kernel`), written for ``uint64``, compile
unchanged for it. Only what depends on the word differs, here:

* the board constants (width, height, bottom row, board mask) are compiled in,
  one copy of the search per board size, compiled the first time a board of
  that size is solved and cached on disk by numba in the solver's cache directory
  (:func:`cache_folder`; never by ``connect4 prepare``);
* the table address: the key is hashed modulo ``2^B`` with a 128-bit odd
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

import contextlib
import hashlib
import inspect
import operator
import re
import threading
from collections.abc import Callable
from pathlib import Path
from types import FunctionType
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import datamodel
from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator
from numba.core.dispatcher import Dispatcher
from numba.core.imputils import lower_builtin, lower_cast
from numba.core.typeconv.castgraph import Conversion
from numba.core.typeconv.rules import default_type_manager
from numba.core.typing.templates import ConcreteTemplate, infer_global, signature
from numba.cpython import numbers as integers
from numba.extending import intrinsic, register_model

from connect4.core.bits import centre_order, check_word_board
from connect4.core.cache import FileLock, make_private_dir, remove, why_not_private
from connect4.core.position import board_mask, bottom_mask
from connect4.solver import kernel, native
from connect4.solver.entries import ENTRY_POINTS, UINT64, EntryPoint, Kernel
from connect4.solver.layout import (
    LAYOUT_VERSION,
    MAXW,
    R_BASE,
    R_BUCKETS,
    R_NBITS,
    R_RBITS,
    R_XSHIFT,
    T_FAR_REGION,
    T_GBITS,
    T_GEN,
    T_NEAR,
    T_NEAR_REGION,
)

__all__ = [
    "NO_BOOK",
    "WideBackend",
    "cache_folder",
    "is_cached",
    "is_loaded",
    "load_in_background",
    "uint128",
    "wide_backend",
]

# (F821: the functions compiled per board read names of its namespace, see _namespace)
NO_BOOK: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.uint64), np.zeros(0, np.int8))
WORDS = 4  # words per table entry (two 128-bit words)
I128 = ir.IntType(128)


# ---------------------------------------------------------------- the uint128 type
class UInt128(types.Type):
    """numba's type of an unsigned 128-bit integer (LLVM ``i128``)."""

    signed = False

    def __init__(self) -> None:
        super().__init__(name="uint128")

    @property
    def bitwidth(self) -> int:
        return 128


uint128 = UInt128()


@register_model(UInt128)
class UInt128Model(datamodel.models.PrimitiveModel):
    """An ``i128`` value, passed and returned as such."""

    def __init__(self, dmm: Any, fe_type: Any) -> None:
        super().__init__(dmm, fe_type, I128)


for _narrow in (types.uint8, types.uint16, types.uint32, types.uint64):
    default_type_manager.set_compatible(_narrow, uint128, Conversion.safe)
for _signed in (types.int8, types.int16, types.int32, types.int64):
    default_type_manager.set_compatible(_signed, uint128, Conversion.unsafe)


@lower_cast(types.Integer, UInt128)
def _widen(context: Any, builder: Any, fromty: Any, toty: Any, value: Any) -> Any:
    """A narrower integer widened (sign-extended when signed, as numba does)."""
    return builder.sext(value, I128) if fromty.signed else builder.zext(value, I128)


@lower_cast(types.IntegerLiteral, UInt128)
def _literal(context: Any, builder: Any, fromty: Any, toty: Any, value: Any) -> Any:
    return ir.Constant(I128, fromty.literal_value % (1 << 128))


def _operator(op: Callable[..., Any], sig: Any, impl: Callable[..., Any]) -> None:
    """Type ``op`` on ``uint128`` operands as ``sig`` and lower it with ``impl``."""
    template = type(f"UInt128_{op.__name__}", (ConcreteTemplate,), {"key": op, "cases": [sig]})
    infer_global(op)(template)
    lower_builtin(op, *sig.args)(impl)


_BINARY = signature(uint128, uint128, uint128)
for _op, _impl in (
    (operator.add, integers.int_add_impl),
    (operator.iadd, integers.int_add_impl),
    (operator.sub, integers.int_sub_impl),
    (operator.isub, integers.int_sub_impl),
    (operator.mul, integers.int_mul_impl),
    (operator.imul, integers.int_mul_impl),
    (operator.and_, integers.int_and_impl),
    (operator.iand, integers.int_and_impl),
    (operator.or_, integers.int_or_impl),
    (operator.ior, integers.int_or_impl),
    (operator.xor, integers.int_xor_impl),
    (operator.ixor, integers.int_xor_impl),
):
    _operator(_op, _BINARY, _impl)
for _op, _impl in (
    (operator.lshift, integers.int_shl_impl),
    (operator.ilshift, integers.int_shl_impl),
    (operator.rshift, integers.int_shr_impl),
    (operator.irshift, integers.int_shr_impl),
):
    _operator(_op, signature(uint128, uint128, types.uint64), _impl)
    _operator(_op, signature(uint128, uint128, types.int64), _impl)
for _op, _impl in (
    (operator.eq, integers.int_eq_impl),
    (operator.ne, integers.int_ne_impl),
    (operator.lt, integers.int_ult_impl),
    (operator.le, integers.int_ule_impl),
    (operator.gt, integers.int_ugt_impl),
    (operator.ge, integers.int_uge_impl),
):
    _operator(_op, signature(types.boolean, uint128, uint128), _impl)
_operator(operator.invert, signature(uint128, uint128), integers.int_invert_impl)
_operator(bool, signature(types.boolean, uint128), integers.int_as_bool)


@intrinsic
def wide(typingctx, lo, hi):  # type: ignore[no-untyped-def]
    """The ``uint128`` ``hi << 64 | lo`` of two ``uint64`` words."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        high = builder.shl(builder.zext(args[1], I128), ir.Constant(I128, 64))
        return builder.or_(high, builder.zext(args[0], I128))

    return uint128(types.uint64, types.uint64), codegen


@intrinsic
def low(typingctx, x):  # type: ignore[no-untyped-def]
    """The low 64 bits of a ``uint128``."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.trunc(args[0], ir.IntType(64))

    return types.uint64(uint128), codegen


@intrinsic
def high(typingctx, x):  # type: ignore[no-untyped-def]
    """The high 64 bits of a ``uint128``."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.trunc(builder.lshr(args[0], ir.Constant(I128, 64)), ir.IntType(64))

    return types.uint64(uint128), codegen


@intrinsic
def popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """The number of set bits of a ``uint64`` or ``uint128``, as ``uint64``."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        count = builder.ctpop(args[0])
        return count if count.type.width == 64 else builder.trunc(count, ir.IntType(64))

    return types.uint64(x), codegen


def _pair(builder: Any, ptr: Any, idx: Any) -> Any:
    """The LLVM address of the 128 bits at word ``idx`` of a raw pointer to ``uint64``
    words (16-byte aligned: the table's entries are)."""
    word = builder.gep(builder.inttoptr(ptr, ir.IntType(64).as_pointer()), [idx])
    return builder.bitcast(word, I128.as_pointer())


@intrinsic
def lda2(typingctx, ptr, idx):  # type: ignore[no-untyped-def]
    """Words ``idx`` and ``idx + 1`` read as one ``uint128`` (an unordered atomic load:
    never torn; one 16-byte move on x86-64 with AVX)."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.load_atomic(_pair(builder, *args), "unordered", 16)

    return uint128(types.intp, types.intp), codegen


@intrinsic
def sta2(typingctx, ptr, idx, value):  # type: ignore[no-untyped-def]
    """Words ``idx`` and ``idx + 1`` written as one ``uint128`` (an unordered atomic store)."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        builder.store_atomic(args[2], _pair(builder, args[0], args[1]), "unordered", 16)
        return context.get_dummy_value()

    return types.void(types.intp, types.intp, uint128), codegen


def split(value: int) -> tuple[int, int]:
    """``(low word, high word)`` of a Python int below ``2^128``.

    >>> split((5 << 64) | 7)
    (7, 5)
    """
    return value & ((1 << 64) - 1), value >> 64


# ---------------------------------------------------------------- what differs
# Plain functions compiled in each board's namespace (see _namespace): W_BITS, the
# W_* words and SPEC_* are that board's constants; ld, lda, sta, U1 ... the kernel's.
HASH_MUL_WIDE = 0x9E3779B97F4A7C15F39CC0605CEDC835  # odd: a bijection modulo 2^B


def _board_wide(m, spec_w, spec_h, spec_bottom):  # type: ignore[no-untyped-def]
    """The board constants, compiled in (the arguments are the one-word kernel's)."""
    return SPEC_W, np.uint64(SPEC_H), wide(W_BOTTOM_LO, W_BOTTOM_HI), wide(W_BOARD_LO, W_BOARD_HI)


def _address_wide(t, key, empty):  # type: ignore[no-untyped-def]
    """As the kernel's ``_address``, for a key of ``W_BITS`` bits: the tag (residue
    and generation) is a ``uint128``."""
    h = (key * wide(W_MUL_LO, W_MUL_HI)) & wide(W_KMASK_LO, W_KMASK_HI)
    r = T_NEAR_REGION if empty < np.int64(ld(t, T_NEAR)) else T_FAR_REGION
    x = low(h >> ld(t, r + R_XSHIFT))
    b = (x * ld(t, r + R_BUCKETS)) >> ld(t, r + R_NBITS)
    bidx = np.int64(ld(t, r + R_BASE)) + 2 * WORDS * np.int64(b)
    one = wide(U1, U0)
    residue = h & ((one << ld(t, r + R_RBITS)) - one)
    return bidx, (residue << ld(t, T_GBITS)) | wide(ld(t, T_GEN), U0)


def _find_wide(t, bidx, tag):  # type: ignore[no-untyped-def]
    """As the kernel's ``_find``, for entries of two 128-bit words, each read whole
    (12 data bits in each, the whole tag above them): an entry counts only when
    both words carry the tag."""
    for slot in (bidx, bidx + WORDS):
        w0 = lda2(t, slot)
        if (w0 >> U12) == tag:
            w1 = lda2(t, slot + 2)
            if (w1 >> U12) == tag:
                a = low(w0)
                b = low(w1)
                data = (a & U63) | ((b & U63) << U6) | (((a >> U6) & U63) << U12)
                return slot, np.int64(data | (((b >> U6) & U63) << U18))
    return -1, -1


def _store_wide(t, bidx, tag, ply, lower, upper, col, two_slots):  # type: ignore[no-untyped-def]
    """As the kernel's ``_store``, for entries of two 128-bit words, each written whole."""
    slot, old = _find(t, bidx, tag)
    if slot >= 0:
        lower = max(lower, (old & 63) - 32)
        upper = min(upper, ((old >> 6) & 63) - 32)
        if col < 0:
            col = ((old >> 12) & 63) - 1
    elif not two_slots:
        slot = bidx
    else:
        gmask = (U1 << ld(t, T_GBITS)) - U1
        if (low(lda2(t, bidx) >> U12) & gmask) != (low(tag) & gmask):
            slot = bidx
        elif ply <= np.int64((low(lda2(t, bidx + 2)) >> U6) & U63):
            sta2(t, bidx + WORDS, lda2(t, bidx))  # the old deep entry moves to slot 1
            sta2(t, bidx + WORDS + 2, lda2(t, bidx + 2))
            slot = bidx
        else:
            slot = bidx + WORDS
    top = tag << U12
    sta2(t, slot, top | wide(np.uint64(lower + 32) | (np.uint64(col + 1) << U6), U0))
    sta2(t, slot + 2, top | wide(np.uint64(upper + 32) | (np.uint64(ply) << U6), U0))


def _column_wide(h):  # type: ignore[no-untyped-def]
    """The kernel's column mask, as a ``uint128`` (shifted to the board's top columns)."""
    return wide((U1 << h) - U1, U0)


def _fold(key):  # type: ignore[no-untyped-def]
    """One word of a ``uint128`` key."""
    return low(key) ^ (high(key) * HASH_MUL)


def _noise_wide(key, thread, c):  # type: ignore[no-untyped-def]
    """The kernel's move noise of a helper thread, on the folded key."""
    return (_fold(key) + thread * NOISE_MUL + np.uint64(c + 1) * HASH_MUL) * HASH_MUL


def _mark_wide(key):  # type: ignore[no-untyped-def]
    """A busy mark's word: the folded key (a collision only reorders moves)."""
    return _fold(key)


def _book_probe_wide(bk, bv, nbook, key):  # type: ignore[no-untyped-def]
    """As the kernel's ``_book_probe``, the book's keys two words each (low, high)."""
    lo = 0
    hi = nbook
    while lo < hi:
        mid = (lo + hi) >> 1
        if wide(ld(bk, 2 * mid), ld(bk, 2 * mid + 1)) < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < nbook and wide(ld(bk, 2 * lo), ld(bk, 2 * lo + 1)) == key:
        return ld8(bv, lo)
    return NONE_SCORE


def _solve_entry(m, t, bk, bv, nbook, c_lo, c_hi, m_lo, m_hi, ply, weak):  # type: ignore[no-untyped-def]
    """The kernel's ``_solve`` of the position with words ``c_lo, c_hi, m_lo, m_hi``."""
    return _solve(m, t, bk, bv, nbook, wide(c_lo, c_hi), wide(m_lo, m_hi), ply, weak)


def _analyze_entry(m, t, bk, bv, nbook, c_lo, c_hi, m_lo, m_hi, ply, weak, out):  # type: ignore[no-untyped-def]
    """The kernel's ``_analyze``, the position in four words."""
    _analyze(m, t, bk, bv, nbook, wide(c_lo, c_hi), wide(m_lo, m_hi), ply, weak, out)


def _probe_entry(m, t, bk, bv, nbook, c_lo, c_hi, m_lo, m_hi, ply, alpha, beta):  # type: ignore[no-untyped-def]
    """The kernel's ``_probe``, the position in four words."""
    return _probe(m, t, bk, bv, nbook, wide(c_lo, c_hi), wide(m_lo, m_hi), ply, alpha, beta)


OVERRIDES = {
    "_board": _board_wide,
    "_address": _address_wide,
    "_find": _find_wide,
    "_store": _store_wide,
    "_noise": _noise_wide,
    "_mark": _mark_wide,
    "_column": _column_wide,
    "_book_probe": _book_probe_wide,
}
HELPERS = {"_fold": _fold}
ENTRIES = {"_solve": _solve_entry, "_analyze": _analyze_entry, "_probe": _probe_entry}


def _version() -> str:
    """A hash of this module, of the kernel's source and of the layout's constants:
    part of every compiled copy's name, so numba's cache never serves code of an
    older edit."""
    digest = hashlib.sha256(inspect.getsource(kernel).encode())
    digest.update(str(LAYOUT_VERSION).encode())  # the layout's constants, compiled in
    digest.update(inspect.getsource(_namespace).encode())
    for function in (*OVERRIDES.values(), *HELPERS.values(), *ENTRIES.values()):
        digest.update(inspect.getsource(function).encode())
    return digest.hexdigest()[:12]


def _namespace(width: int, height: int) -> dict[str, Any]:
    """The kernel's functions compiled for one wide board: every numba function of
    :mod:`connect4.solver.kernel` copied into one namespace with the board's
    constants and the overrides above, so each copy calls the others."""
    key_bits = width * (height + 1)
    g: dict[str, Any] = dict(vars(kernel))
    g.update(wide=wide, low=low, high=high, popcount=popcount, lda2=lda2, sta2=sta2, WORDS=WORDS)
    order = list(centre_order(width))
    g.update(SPEC_W=width, SPEC_H=height, W_BITS=key_bits)
    g["SPEC_ORDER"] = np.array(order + [0] * (MAXW - width), dtype=np.int64)
    for name, value in (
        ("BOTTOM", bottom_mask(width, height)),
        ("BOARD", board_mask(width, height)),
        ("MUL", HASH_MUL_WIDE),
        ("KMASK", (1 << key_bits) - 1),
    ):
        lo, hi = split(value)
        g[f"W_{name}_LO"], g[f"W_{name}_HI"] = np.uint64(lo), np.uint64(hi)
    version = _version()
    tag = f"{width}x{height}_{version}"
    folder = cache_folder()
    if folder is not None:  # read by _Locator
        g.update(WIDE_CACHE=str(folder), WIDE_VERSION=version)
    plain: dict[str, tuple[FunctionType, dict[str, Any]]] = {}
    for name, value in vars(kernel).items():
        if isinstance(value, Dispatcher) and value.py_func.__module__ == kernel.__name__:
            if name.startswith("native_") or name in ("layout_version", "_solve_batch"):
                continue
            options = {k: v for k, v in value.targetoptions.items() if k != "nopython"}
            plain[name] = (value.py_func, options)
    inline = {"cache": True, "nogil": True, "inline": "always"}
    for name, function in {**OVERRIDES, **HELPERS}.items():
        plain[name] = (function, inline)
    for name, (function, options) in plain.items():
        g[name] = _copy(function, g, f"{name}_wide_{tag}", options)
    g["negamax_7x6"] = g["negamax"]  # the kernel's 7x6 shortcut: this board's search
    for name, function in ENTRIES.items():
        options = {"cache": True, "nogil": True}
        g[f"{name}_entry"] = _copy(function, g, f"{name}_entry_{tag}", options)
    return g


def _copy(
    function: FunctionType, g: dict[str, Any], qualname: str, options: dict[str, Any]
) -> Dispatcher:
    """``function`` with the globals ``g``, compiled by numba with ``options``."""
    copy = FunctionType(function.__code__, g, function.__name__, function.__defaults__)
    copy.__qualname__ = qualname
    copy.__doc__ = function.__doc__
    options = dict(options)
    cache = options.pop("cache", False)
    dispatcher: Dispatcher = njit(**options)(copy)
    if cache:
        try:
            dispatcher._cache = _Cache(copy)  # type: ignore[attr-defined]
        except RuntimeError:  # no private cache directory: numba's own place
            dispatcher.enable_caching()
    return dispatcher


# ---------------------------------------------------------------- numba's cache of it
def cache_folder() -> Path | None:
    """Where numba keeps the compiled big-board kernels: ``wide/`` in the solver's
    cache directory (``CONNECT4_CACHE_DIR`` when set, see
    :func:`connect4.solver.native.cache_dirs`), or None when no cache directory is
    private (numba's own place beside the sources is used then)."""
    directories, _ = native.private_dirs(native.cache_dirs())
    if not directories:
        return None
    folder = directories[0] / "wide"
    return folder if why_not_private(folder) is None else None


class _Locator(_CacheLocator):
    """numba's cache locator of a big-board kernel function: the folder its namespace
    names (``WIDE_CACHE``), stamped with the kernel's version (``WIDE_VERSION``)."""

    def __init__(self, folder: str, stamp: str, line: int) -> None:
        self._folder = folder
        self._stamp = stamp
        self._line = line

    def ensure_cache_path(self) -> None:
        make_private_dir(Path(self._folder))

    def get_cache_path(self) -> str:
        return self._folder

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._line)

    @classmethod
    def from_function(cls, py_func: FunctionType, py_file: str) -> _Locator | None:
        folder = py_func.__globals__.get("WIDE_CACHE")
        if folder is None:
            return None
        locator = cls(folder, py_func.__globals__["WIDE_VERSION"], py_func.__code__.co_firstlineno)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator


class _CacheImpl(CompileResultCacheImpl):
    _locator_classes = [_Locator]  # type: ignore[list-item]  # noqa: RUF012


class _Cache(FunctionCache):
    """numba's cache of one big-board kernel function, kept in :func:`cache_folder`."""

    _impl_class = _CacheImpl


_TAGGED = re.compile(r"_\d+x\d+_([0-9a-f]{12})-\d+\.py")


def _remove_stale(folder: Path) -> None:
    """Delete the cache files of other versions of the kernels (older edits)."""
    version = _version()
    with contextlib.suppress(OSError):
        for path in folder.iterdir():
            match = _TAGGED.search(path.name)
            if match is not None and match.group(1) != version:
                remove(path)


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
            if _cache_is_warm(backend):
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
        if notice is not None and not _cache_is_warm(backend):
            notice(
                f"compiling the solver for {width}x{height} boards (first run only; "
                "cached afterwards)..."
            )
        backend.compile()
    finally:
        if lock is not None:
            lock.release()
    folder = cache_folder()
    if folder is not None:
        _remove_stale(folder)


def is_loaded(width: int, height: int) -> bool:
    """True once a board's kernel is loaded in this process."""
    with _lock:
        return (width, height) in _backends


def is_cached(width: int, height: int) -> bool:
    """True when numba's cache holds a board's kernel (it loads in a tenth of a second)."""
    return _cache_is_warm(WideBackend(width, height))


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


def _cache_is_warm(backend: WideBackend) -> bool:
    """True when numba's on-disk cache holds the board's entries."""
    try:
        return all(backend._g[f"{name}_entry"]._cache._cache_file._load_index() for name in ENTRIES)
    except Exception:  # numba internals moved: say nothing
        return True


assert {p.function for p in ENTRY_POINTS} >= set(ENTRIES)
