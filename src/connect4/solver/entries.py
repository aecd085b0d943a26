# mypy: disable-error-code="empty-body"
"""The solver kernel's entry points, each described once: :class:`Kernel`.

Every method of :class:`Kernel` marked :func:`entry_point` names a raw-pointer
function of :mod:`connect4.solver.kernel` and declares, by its typed signature,
the arguments Python passes and what comes back. Everything else is made from
that one description (:data:`ENTRY_POINTS`, a table of :class:`EntryPoint`):

* the methods themselves: arrays checked (type, layout, equal lengths) and
  passed as addresses, lengths added, then the backend's one call path
  (:meth:`Kernel.run`);
* numba's side (:mod:`connect4.solver.kernel`): the signatures its raw
  functions are compiled for, and the ``native_*`` functions (integers in, an
  integer status and result out) that the native object file is built from;
* the native loader (:mod:`connect4.solver.native`): each function's ``ctypes``
  prototype, and the cache key (a file built for another description is never
  loaded).

The kinds of argument:

==================  ==========================================================
``NDArray`` (typed  a contiguous array of that type, passed as its address; an
with ``Array``)     ``Array`` with a ``length`` name also passes that length
                    (once, after the last array measured by it)
``U64``             a Python ``int`` passed as an unsigned 64-bit word
``int``             a signed 64-bit word
``bool``            a flag (0 or 1 in native code)
==================  ==========================================================

Adding an entry point: write its raw function in :mod:`connect4.solver.kernel`
and one method here.

>>> [point.name for point in ENTRY_POINTS]
['version', 'solve', 'analyze', 'probe', 'batch']
>>> SOLVE = ENTRY_POINTS[1]
>>> SOLVE.function, [p.name for p in SOLVE.params]
('_solve', ['mem', 'table', 'book_keys', 'book_values', 'nbook', 'current', 'mask', 'ply', 'weak'])
>>> SOLVE.native_signature
'int64(int64, int64, int64, int64, int64, uint64, uint64, int64, int64)'
"""

from __future__ import annotations

import ctypes
import inspect
from collections.abc import Callable
from types import FunctionType
from typing import (
    Annotated,
    Concatenate,
    NamedTuple,
    ParamSpec,
    TypeVar,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

import numpy as np
from numpy.typing import NDArray


class Array(NamedTuple):
    """An array argument: its element type and, when the kernel needs it, the name
    of the length argument passed after the last array of that length."""

    dtype: type[np.generic]
    length: str | None = None


class Word(NamedTuple):
    """A 64-bit integer argument: ``int64`` or ``uint64`` (numba's type names)."""

    numba: str


INT64 = Word("int64")
UINT64 = Word("uint64")
FLAG = Word("boolean")  # int64 (0/1) in native code

Words = Annotated[NDArray[np.uint64], Array(np.uint64)]  # mem, table
BookKeys = Annotated[NDArray[np.uint64], Array(np.uint64, "nbook")]
BookValues = Annotated[NDArray[np.int8], Array(np.int8, "nbook")]
Column = Annotated[NDArray[np.int64], Array(np.int64)]  # analyze: one score per column
BatchInts = Annotated[NDArray[np.int64], Array(np.int64, "n")]
BatchWords = Annotated[NDArray[np.uint64], Array(np.uint64, "n")]
U64 = Annotated[int, UINT64]


class Param(NamedTuple):
    """One argument of a raw kernel function: an array's address, a length, or a word.

    ``source`` is the index of the Python argument it comes from; a length has
    the indices of the arrays it measures in ``measures`` instead.
    """

    name: str
    kind: Array | Word
    source: int = -1
    measures: tuple[int, ...] = ()

    @property
    def numba(self) -> str:
        """numba's type of this argument when Python calls the raw function."""
        return self.kind.numba if isinstance(self.kind, Word) else "int64"

    @property
    def native(self) -> str:
        """numba's type of this argument at the native entry (flags as ``int64``)."""
        return "uint64" if self.kind == UINT64 else "int64"


class EntryPoint(NamedTuple):
    """One entry point: the backends' method ``name``, the raw function it runs
    (``function`` in :mod:`connect4.solver.kernel`), the raw function's
    arguments in order, and whether it returns an integer (else ``None``)."""

    name: str
    function: str
    params: tuple[Param, ...]
    returns: bool
    doc: str

    @property
    def numba_signature(self) -> str:
        """The argument types numba compiles the raw function for, called from Python."""
        return "(" + ", ".join(p.numba for p in self.params) + ")"

    @property
    def native_signature(self) -> str:
        """The signature of the native entry ``native_<name>`` (always returns ``int64``)."""
        return "int64(" + ", ".join(p.native for p in self.params) + ")"

    def native_prototype(self) -> Callable[[int], Callable[..., int]]:
        """The ``ctypes`` prototype of the native entry, in numba's calling convention:
        ``status = f(&result, &exception_info, arguments...)``."""
        words = {"int64": ctypes.c_int64, "uint64": ctypes.c_uint64}
        return ctypes.CFUNCTYPE(
            ctypes.c_int32,
            ctypes.POINTER(ctypes.c_int64),
            ctypes.POINTER(ctypes.c_void_p),
            *(words[p.native] for p in self.params),
        )

    def native_source(self) -> str:
        """Python source of ``native_<name>``: the raw function with flags as integers
        and an integer result (0 for a function that returns nothing)."""
        names = [p.name for p in self.params]
        passed = [f"{p.name} != 0" if p.kind == FLAG else p.name for p in self.params]
        call = f"{self.function}({', '.join(passed)})"
        body = f"return {call}" if self.returns else f"{call}\n    return 0"
        return f"def native_{self.name}({', '.join(names)}):\n    {body}\n"

    def method_source(self) -> str:
        """Python source of the backends' method: arrays checked and turned into
        addresses, lengths checked equal and added, then :meth:`Kernel.run`."""
        names = [p.name for p in self.params if p.source >= 0]
        checks = []
        raw = []
        for p in self.params:
            if p.measures:
                first, *others = [names[i] for i in p.measures]
                for other in others:
                    checks.append(
                        f"    if len({other}) != len({first}):\n"
                        f"        raise ValueError('{self.name}: {other} and {first} must"
                        " have the same length')\n"
                    )
                raw.append(f"len({first})")
            elif isinstance(p.kind, Array):
                raw.append(f"address({p.name}, np.{np.dtype(p.kind.dtype).name}, '{p.name}')")
            else:
                raw.append(f"{'bool' if p.kind == FLAG else 'int'}({p.name})")
        call = f"self.run(point, [{', '.join(raw)}])"
        result = f"    return {call}\n" if self.returns else f"    {call}\n    return None\n"
        return f"def {self.name}({', '.join(['self', *names])}):\n" + "".join(checks) + result


def address(array: object, dtype: type[np.generic], name: str) -> int:
    """The address of a contiguous array of ``dtype`` (the kernel writes through it).

    ``ctypes.c_byte.from_buffer`` takes a third of the time of ``array.ctypes``
    (which builds a helper object): with nine arrays per call that is most of
    the call's cost. An empty array is never read (its length is passed): 0.

    >>> address(np.zeros(3, np.int8), np.int64, "out")
    Traceback (most recent call last):
    ...
    ValueError: out must be a contiguous int64 array
    """
    if not isinstance(array, np.ndarray) or array.dtype != dtype or not array.flags.c_contiguous:
        raise ValueError(f"{name} must be a contiguous {np.dtype(dtype).name} array")
    if array.size == 0:
        return 0
    try:
        return ctypes.addressof(ctypes.c_byte.from_buffer(array))  # type: ignore[arg-type]
    except (TypeError, ValueError):  # a read-only array
        return int(array.ctypes.data)


def describe(name: str, function: str, stub: Callable[..., object]) -> EntryPoint:
    """The :class:`EntryPoint` of a method ``stub`` of :class:`Kernel` (its typed
    signature) that runs the raw function ``function``."""
    hints = get_type_hints(stub, include_extras=True)
    arguments = list(inspect.signature(stub).parameters)[1:]  # without self
    params: list[Param] = []
    kinds = [_kind(hints[a]) for a in arguments]
    for index, (argument, kind) in enumerate(zip(arguments, kinds, strict=True)):
        params.append(Param(argument, kind, index))
        length = kind.length if isinstance(kind, Array) else None
        later = [k for k in kinds[index + 1 :] if isinstance(k, Array) and k.length == length]
        if length is not None and not later:  # the last array it measures
            measured = tuple(
                i for i, k in enumerate(kinds) if isinstance(k, Array) and k.length == length
            )
            params.append(Param(length, INT64, measures=measured))
    returns = hints["return"] is not type(None)
    return EntryPoint(name, function, tuple(params), returns, inspect.getdoc(stub) or "")


def _kind(hint: object) -> Array | Word:
    """The kind of an argument from its annotation (see the module docstring)."""
    if get_origin(hint) is Annotated:
        kind = get_args(hint)[1]
        if isinstance(kind, (Array, Word)):
            return kind
    if hint is bool:
        return FLAG
    if hint is int:
        return INT64
    raise TypeError(f"an entry point's argument has no kernel type: {hint!r}")


ENTRY_POINTS: list[EntryPoint] = []
K = TypeVar("K", bound="Kernel")
P = ParamSpec("P")
R = TypeVar("R")


def entry_point(
    function: str,
) -> Callable[[Callable[Concatenate[K, P], R]], Callable[Concatenate[K, P], R]]:
    """Make the method ``stub`` (a signature and a docstring) an entry point that
    runs the kernel's raw ``function``, and add it to :data:`ENTRY_POINTS`."""

    def make(stub: Callable[Concatenate[K, P], R]) -> Callable[Concatenate[K, P], R]:
        point = describe(stub.__name__, function, stub)
        ENTRY_POINTS.append(point)

        namespace: dict[str, object] = {}
        scope = {"address": address, "np": np, "point": point}
        exec(
            compile(point.method_source(), f"<entry point {point.name}>", "exec"), scope, namespace
        )
        method = namespace[point.name]
        assert isinstance(method, FunctionType)
        method.__qualname__ = f"Kernel.{point.name}"
        method.__doc__ = stub.__doc__
        method.__annotations__ = stub.__annotations__
        return cast(Callable[Concatenate[K, P], R], method)

    return make


class Kernel:
    """The kernel's entry points (each method below describes one; see the module
    docstring). A backend implements :meth:`run`, the one call path.

    Every search stops once ``mem[NODES]`` reaches ``mem[LIMIT]`` or the table's
    ``table[T_STOP]`` is set, and sets ``mem[ABORT]``; every call runs outside
    the GIL."""

    name: str

    def run(self, point: EntryPoint, raw: list[int]) -> int:
        """Call the raw function of ``point`` with ``raw`` (addresses and words)."""
        raise NotImplementedError

    @entry_point("layout_version")
    def version(self) -> int:
        """The memory layout version the code was compiled for."""

    @entry_point("_solve")
    def solve(
        self,
        mem: Words,
        table: Words,
        book_keys: BookKeys,
        book_values: BookValues,
        current: U64,
        mask: U64,
        ply: int,
        weak: bool,
    ) -> int:
        """The exact score (or its sign when ``weak``) of a position that is not over;
        0 after an abort (check ``mem[ABORT]``)."""

    @entry_point("_analyze")
    def analyze(
        self,
        mem: Words,
        table: Words,
        book_keys: BookKeys,
        book_values: BookValues,
        current: U64,
        mask: U64,
        ply: int,
        weak: bool,
        out: Column,
    ) -> None:
        """Fill ``out[c]`` (at least ``width`` of them) with the score of playing
        column ``c`` (``NONE_SCORE`` when full, ``UNKNOWN_SCORE`` when a limit
        stopped the search)."""

    @entry_point("_probe")
    def probe(
        self,
        mem: Words,
        table: Words,
        book_keys: BookKeys,
        book_values: BookValues,
        current: U64,
        mask: U64,
        ply: int,
        alpha: int,
        beta: int,
    ) -> int:
        """One fail-soft search of the window ``(alpha, beta)``."""

    @entry_point("_solve_batch")
    def batch(
        self,
        mem: Words,
        table: Words,
        book_keys: BookKeys,
        book_values: BookValues,
        currents: BatchInts,
        masks: BatchInts,
        plies: BatchInts,
        weak: bool,
        new_generation: bool,
        scores: BatchInts,
        nodes: BatchWords,
        ticks: BatchWords,
    ) -> None:
        """Solve many positions without limits, each counted from node 0 (and from a
        logically empty table with ``new_generation``), timed inside the kernel in
        cycle-counter ticks."""
