# mypy: disable-error-code="no-untyped-call,import-untyped,untyped-decorator,misc"
"""The compiler boundary: every use of numba's and llvmlite's internals, in one place.

The solver's kernel is plain numba code (:mod:`connect4.solver.kernel`,
:mod:`connect4.solver.wide`); what numba's public API does not offer is here,
each piece with what it relies on:

* the kernel's intrinsics, written in LLVM IR (llvmlite's ``ir`` builder inside
  numba's ``@intrinsic``): raw-pointer loads and stores, unordered atomics,
  ``ctpop``, ``ctlz``, ``prefetch``, the cycle counter;
* ``uint128``, LLVM's ``i128`` as a numba type (numba has no 128-bit integer), with
  its arithmetic lowered by numba's own integer implementations;
* what numba's on-disk cache holds (:func:`cache_is_warm`, :func:`drop_cache`), and
  a cache that cannot be read counting as empty (:func:`_readable_cache`);
* a function's optimised LLVM IR and symbol (:func:`native_code`), which the native
  kernel file is built from.

Importing this module imports numba; the native kernel's loader does not need it.
Should a numba release move one of these internals, this module is what breaks
(``pyproject.toml`` pins numba and llvmlite to the tested range).
"""

from __future__ import annotations

import operator
import pickle
from collections.abc import Callable, Iterable
from types import FunctionType, ModuleType
from typing import Any

from llvmlite import ir
from numba import njit, types

# numba.core is numba's implementation, not its public API: every import of it is here.
from numba.core import caching, cgutils, datamodel
from numba.core.dispatcher import Dispatcher
from numba.core.imputils import lower_builtin, lower_cast
from numba.core.sigutils import normalize_signature
from numba.core.typeconv.castgraph import Conversion
from numba.core.typeconv.rules import default_type_manager
from numba.core.typing.templates import ConcreteTemplate, infer_global, signature
from numba.cpython import numbers as integers
from numba.extending import intrinsic, register_model

__all__ = [
    "Dispatcher",
    "UInt128",
    "bit_length",
    "cache_is_warm",
    "compile_signature",
    "compiled_helpers",
    "cycles",
    "drop_cache",
    "high",
    "jit_options",
    "ld",
    "ld8",
    "lda",
    "lda2",
    "low",
    "native_code",
    "popcount",
    "prefetch",
    "st",
    "sta",
    "sta2",
    "uint128",
    "wide",
]

I64 = ir.IntType(64)
I128 = ir.IntType(128)


# ---------------------------------------------------------------- intrinsics
# numba has no raw-pointer access without reference counting, no unordered atomics
# and no prefetch: these are written in LLVM IR (numba's documented @intrinsic, whose
# code generators receive llvmlite's IR builder).
def _element(builder: Any, ptr: Any, idx: Any, bits: int = 64) -> Any:
    """The LLVM address of ``ptr[idx]`` for a raw pointer to ``bits``-bit integers."""
    return builder.gep(builder.inttoptr(ptr, ir.IntType(bits).as_pointer()), [idx])


def _intrinsic_call(builder: Any, name: str, result: Any, args: list[Any]) -> Any:
    """A call of LLVM intrinsic ``name`` (declared once per module: numba's
    ``cgutils.get_or_insert_function``)."""
    fnty = ir.FunctionType(result, [a.type for a in args])
    return builder.call(cgutils.get_or_insert_function(builder.module, fnty, name), args)


@intrinsic
def popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """The number of set bits of an integer (``uint64`` or ``uint128``), as ``uint64``
    (LLVM's ``ctpop``)."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        count = builder.ctpop(args[0])
        width = count.type.width
        if width == 64:
            return count
        return builder.trunc(count, I64) if width > 64 else builder.zext(count, I64)

    return types.uint64(x), codegen


@intrinsic
def bit_length(typingctx, x):  # type: ignore[no-untyped-def]
    """The bit length of a ``uint64`` (64 minus LLVM's ``ctlz``), as ``uint64``."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        zeros = builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
        return builder.sub(ir.Constant(I64, 64), zeros)

    return types.uint64(types.uint64), codegen


@intrinsic
def ld(typingctx, ptr, idx):  # type: ignore[no-untyped-def]
    """``ptr[idx]`` for a raw pointer to ``uint64`` words (no reference counting)."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.load(_element(builder, *args))

    return types.uint64(types.intp, types.intp), codegen


@intrinsic
def st(typingctx, ptr, idx, value):  # type: ignore[no-untyped-def]
    """``ptr[idx] = value`` for a raw pointer to ``uint64`` words."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        builder.store(args[2], _element(builder, args[0], args[1]))
        return context.get_dummy_value()

    return types.void(types.intp, types.intp, types.uint64), codegen


@intrinsic
def lda(typingctx, ptr, idx):  # type: ignore[no-untyped-def]
    """``ptr[idx]`` read as one 64-bit word (an unordered atomic load: never torn,
    never re-read) for words other threads write: the table, its stop flag."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.load_atomic(_element(builder, *args), "unordered", 8)

    return types.uint64(types.intp, types.intp), codegen


@intrinsic
def sta(typingctx, ptr, idx, value):  # type: ignore[no-untyped-def]
    """``ptr[idx] = value`` written as one 64-bit word (an unordered atomic store)."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        builder.store_atomic(args[2], _element(builder, args[0], args[1]), "unordered", 8)
        return context.get_dummy_value()

    return types.void(types.intp, types.intp, types.uint64), codegen


@intrinsic
def ld8(typingctx, ptr, idx):  # type: ignore[no-untyped-def]
    """``ptr[idx]`` for a raw pointer to ``int8`` values, widened to ``int64``."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.sext(builder.load(_element(builder, args[0], args[1], 8)), I64)

    return types.int64(types.intp, types.intp), codegen


@intrinsic
def prefetch(typingctx, ptr, idx):  # type: ignore[no-untyped-def]
    """Ask the CPU to fetch the cache line of ``ptr[idx]`` (``uint64`` words)."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i32 = ir.IntType(32)
        read, locality, data = (ir.Constant(i32, v) for v in (0, 3, 1))
        address = _element(builder, *args)
        _intrinsic_call(builder, "llvm.prefetch.p0", ir.VoidType(), [address, read, locality, data])
        return context.get_dummy_value()

    return types.void(types.intp, types.intp), codegen


@intrinsic
def cycles(typingctx):  # type: ignore[no-untyped-def]
    """The CPU's cycle counter (``rdtsc`` on x86): cheap in-kernel timing."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return _intrinsic_call(builder, "llvm.readcyclecounter", I64, [])

    return types.uint64(), codegen


# ---------------------------------------------------------------- the uint128 type
# numba's integer types stop at 64 bits. A new type needs numba's data model
# (numba.core.datamodel), its implicit conversions (typeconv's cast graph) and
# lowering registries; the operators reuse numba's own integer implementations
# (numba.cpython.numbers), which work on any LLVM integer width.
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


_BINARY = (signature(uint128, uint128, uint128),)
_SHIFT = (signature(uint128, uint128, types.uint64), signature(uint128, uint128, types.int64))
_COMPARE = (signature(types.boolean, uint128, uint128),)
# Each row: operators (an operator and its in-place form share one implementation),
# the signatures they are typed with and numba's integer implementation lowering them.
for _ops, _sigs, _impl in (
    ((operator.add, operator.iadd), _BINARY, integers.int_add_impl),
    ((operator.sub, operator.isub), _BINARY, integers.int_sub_impl),
    ((operator.mul, operator.imul), _BINARY, integers.int_mul_impl),
    ((operator.and_, operator.iand), _BINARY, integers.int_and_impl),
    ((operator.or_, operator.ior), _BINARY, integers.int_or_impl),
    ((operator.xor, operator.ixor), _BINARY, integers.int_xor_impl),
    ((operator.lshift, operator.ilshift), _SHIFT, integers.int_shl_impl),
    ((operator.rshift, operator.irshift), _SHIFT, integers.int_shr_impl),
    ((operator.eq,), _COMPARE, integers.int_eq_impl),
    ((operator.ne,), _COMPARE, integers.int_ne_impl),
    ((operator.lt,), _COMPARE, integers.int_ult_impl),
    ((operator.le,), _COMPARE, integers.int_ule_impl),
    ((operator.gt,), _COMPARE, integers.int_ugt_impl),
    ((operator.ge,), _COMPARE, integers.int_uge_impl),
    ((operator.invert,), (signature(uint128, uint128),), integers.int_invert_impl),
    ((bool,), (signature(types.boolean, uint128),), integers.int_as_bool),
):
    for _op in _ops:
        for _sig in _sigs:
            _operator(_op, _sig, _impl)


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
        return builder.trunc(args[0], I64)

    return types.uint64(uint128), codegen


@intrinsic
def high(typingctx, x):  # type: ignore[no-untyped-def]
    """The high 64 bits of a ``uint128``."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        return builder.trunc(builder.lshr(args[0], ir.Constant(I128, 64)), I64)

    return types.uint64(uint128), codegen


def _pair(builder: Any, ptr: Any, idx: Any) -> Any:
    """The LLVM address of the 128 bits at word ``idx`` of a raw pointer to ``uint64``
    words (16-byte aligned: the table's entries are)."""
    return builder.bitcast(_element(builder, ptr, idx), I128.as_pointer())


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


# ---------------------------------------------------------------- numba's cache
UNREADABLE = (ImportError, AttributeError, EOFError, pickle.UnpicklingError, ValueError, TypeError)
"""What unpickling a cache file written by other code raises: an index naming a type
of a module that has moved (``ModuleNotFoundError``), a truncated or damaged file."""


def _readable_cache() -> None:
    """Make numba read a cache it cannot unpickle as an empty one (compile again, and
    write over it) instead of failing every compile that calls the function.

    numba checks an index's source stamp only after unpickling it, and an index
    holds the signatures' types by module: after the 128-bit type moved to this
    module, every old cache of a function over ``uint128`` raised
    ``ModuleNotFoundError`` on load."""
    index_file = caching.IndexDataCacheFile
    load_index, load = index_file._load_index, index_file.load

    def _load_index(self: Any) -> dict[Any, Any]:
        try:
            index: dict[Any, Any] = load_index(self)
        except UNREADABLE:
            return {}
        return index

    def _load(self: Any, key: Any) -> Any:
        try:
            return load(self, key)
        except UNREADABLE:
            return None

    index_file._load_index, index_file.load = _load_index, _load  # type: ignore[method-assign]


_readable_cache()


def cache_is_warm(functions: Iterable[Dispatcher]) -> bool:
    """True when numba's on-disk cache holds current code of every function (its
    index is read: an index of an older source is empty). False when it does not, or
    when numba's internals cannot tell: a caller then says a compile may be long
    rather than stay silent through one."""
    try:
        return all(_index(f) for f in functions)
    except Exception:  # numba's cache internals moved: cannot tell, so cold
        return False


def _index(function: Dispatcher) -> dict[Any, Any]:
    """numba's on-disk index of a function's compiled versions (its cache's private
    index file; empty when there is none or it belongs to an older source)."""
    index: dict[Any, Any] = function._cache._cache_file._load_index()  # type: ignore[attr-defined]
    return index


def drop_cache(functions: Iterable[Dispatcher]) -> None:
    """Delete numba's on-disk cache of each function (numba has no public way)."""
    for f in functions:
        f._cache.flush()  # type: ignore[attr-defined]


def compiled_helpers(module: ModuleType) -> dict[str, Any]:
    """The plain functions of ``module`` compiled as inlined helpers of a kernel
    (``njit(cache=True, nogil=True, inline="always")``), each calling the others'
    compiled versions: the module's namespace with its functions replaced. Their
    source stays plain, typed Python that Python code calls as well.

    >>> from connect4.solver import windows
    >>> compiled_helpers(windows)["next_test"](-21, 21)  # (compiled: a numba dispatcher)
    -10
    """
    namespace = dict(vars(module))
    for name, value in vars(module).items():
        if isinstance(value, FunctionType) and value.__module__ == module.__name__:
            here = FunctionType(value.__code__, namespace, name)
            namespace[name] = njit(cache=True, nogil=True, inline="always")(here)
    return namespace


def jit_options(function: Dispatcher) -> dict[str, object]:
    """The jit options a numba function was made with (``nogil``, ``inline``, ...;
    its dispatcher's target options, less the implied ``nopython``)."""
    options: dict[str, object] = function.targetoptions
    return {key: value for key, value in options.items() if key != "nopython"}


def compile_signature(function: Dispatcher, text: str) -> tuple[Any, ...]:
    """Compile (or load from numba's cache) ``function`` for a signature written as
    numba's text (``"int64(intp, uint64, boolean)"``); return its argument types."""
    args, _ = normalize_signature(text)
    arguments = tuple(args)
    function.compile(arguments)
    return arguments


def native_code(function: Dispatcher, text: str) -> tuple[str, str]:
    """``(symbol, LLVM IR)`` of ``function`` compiled for signature ``text``: the
    optimised module numba made of it (its compiled library's IR) and the name its
    entry has there (numba's mangled name)."""
    result = function.overloads[compile_signature(function, text)]
    return str(result.fndesc.mangled_name), str(result.library.get_llvm_str())  # type: ignore[attr-defined]
