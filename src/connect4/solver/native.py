"""The solver kernel as cached native code, run without numba.

Importing numba and setting up its compiler costs about 0.7 s in every new
process, even when the compiled kernel comes from numba's on-disk cache. That
would make ``connect4 solve`` miss its one-second start-up. So the entry
points of the kernel (``native_*`` in :mod:`connect4.solver.kernel`: solve,
analyze, probe, batch and the layout version) are kept a second way:
:func:`build` takes numba's optimised code of them (once, while numba is loaded
anyway), emits it as one object file and writes it to the cache;
:func:`load` maps that file with llvmlite's MCJIT alone (about 5 ms) and calls
it through :mod:`ctypes`, which releases the GIL like numba's ``nogil``.

Rules of the cache:

* The file's name is a hash of everything the code depends on (the sources of
  the kernel, the memory layout, the bitboard helpers and this loader, the numba and
  llvmlite versions, the CPU and numba's code-generation settings), so a
  change to any of them makes a new file; a file whose checksum does not match
  is never loaded.
* The kernel returns the layout version it was compiled for
  (:data:`connect4.solver.layout.LAYOUT_VERSION`); a file of another version
  is refused.
* Code is loaded only from a directory (and a file) owned by the current user
  and not writable by group or others (:func:`connect4.solver.cache.why_not_private`).
* Writing a new file removes kernels of other versions and the temporary
  files of writers that were killed.

``CONNECT4_NATIVE=0`` turns this off (numba runs the kernel every time);
``CONNECT4_CACHE_DIR`` chooses the directory (default: ``__pycache__`` beside
this module, or the user's cache directory when that is not usable).

>>> from connect4 import Position, Solver
>>> from connect4.solver import layout
>>> p = Position.from_moves("44455554221")
>>> Solver(7, 6, 1).solve(p)  # the first Solver of a machine writes the file
-15
>>> native = load(cache_dirs())
>>> mem, table = layout.new_memory(7, 6), layout.new_table(7, 6, 1 << 16)
>>> no_book = np.zeros(0, np.uint64), np.zeros(0, np.int8)
>>> native.solve(mem, table, *no_book, p.current, p.mask, p.ply, False)
-15
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from connect4.solver import cache
from connect4.solver.layout import LAYOUT_VERSION

FORMAT = 3  # bump when the file layout or the entry points' arguments change
ENTRY_POINTS = ("version", "solve", "analyze", "probe", "batch")
# numba settings that change the code it generates
_NUMBA_CODEGEN_VARS = ("NUMBA_OPT", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_BOUNDSCHECK")
# sources compiled into the kernel, relative to the package
_SOURCES = ("solver/kernel.py", "solver/layout.py", "core/bits.py", "solver/native.py")
_FILE = re.compile(r"kernel-[0-9a-f]{32}\.native")
_TEMPORARY = re.compile(r"\.kernel-[0-9a-f]{32}\.native\.(\d+)")

_i64 = ctypes.c_int64
_u64 = ctypes.c_uint64
_RESULT = ctypes.POINTER(_i64)
_EXCEPTION_INFO = ctypes.POINTER(ctypes.c_void_p)
_HEAD = (_RESULT, _EXCEPTION_INFO, _i64, _i64, _i64, _i64, _i64, _u64, _u64, _i64)
# numba's calling convention: status = f(&result, &exception_info, arguments...)
_TYPES = {
    "version": ctypes.CFUNCTYPE(ctypes.c_int32, _RESULT, _EXCEPTION_INFO),
    "solve": ctypes.CFUNCTYPE(ctypes.c_int32, *_HEAD, _i64),
    "analyze": ctypes.CFUNCTYPE(ctypes.c_int32, *_HEAD, _i64, _i64),
    "probe": ctypes.CFUNCTYPE(ctypes.c_int32, *_HEAD, _i64, _i64),
    "batch": ctypes.CFUNCTYPE(ctypes.c_int32, _RESULT, _EXCEPTION_INFO, *[_i64] * 14),
}


# Not a Connect4Error on purpose: raised by :func:`load` and always caught by the
# backend, which then builds the kernel again; no user ever sees it.
class StaleKernel(RuntimeError):
    """A native file compiled for another memory layout."""


class _Entry(Protocol):
    def __call__(self, *arguments: object) -> int: ...


class NativeKernel:
    """The kernel's entry points from a native file: the same calls, arguments and
    results as :class:`connect4.solver.backend.NumbaBackend`."""

    name = "native"

    def __init__(self, engine: object, addresses: dict[str, int], path: Path) -> None:
        self._engine = engine  # owns the code: keep it alive as long as the functions
        self._entries: dict[str, _Entry] = {
            entry: _TYPES[entry](address) for entry, address in addresses.items()
        }
        self.path = path

    def _call(self, entry: str, *arguments: int) -> int:
        result = _i64()
        exception_info = ctypes.byref(ctypes.c_void_p())
        status = self._entries[entry](ctypes.byref(result), exception_info, *arguments)
        if status != 0:  # the kernel raises nothing; a status would mean a broken build
            raise RuntimeError(f"the native solver kernel failed (status {status})")
        return result.value

    def version(self) -> int:
        """The layout version the code was compiled for."""
        return self._call("version")

    def solve(
        self,
        mem: NDArray[np.uint64],
        table: NDArray[np.uint64],
        book_keys: NDArray[np.uint64],
        book_values: NDArray[np.int8],
        current: int,
        mask: int,
        ply: int,
        weak: bool,
    ) -> int:
        """The exact score (or its sign when ``weak``); check ``mem[ABORT]`` afterwards."""
        head = _head(mem, table, book_keys, book_values, current, mask, ply)
        return self._call("solve", *head, int(weak))

    def analyze(
        self,
        mem: NDArray[np.uint64],
        table: NDArray[np.uint64],
        book_keys: NDArray[np.uint64],
        book_values: NDArray[np.int8],
        current: int,
        mask: int,
        ply: int,
        weak: bool,
        out: NDArray[np.int64],
    ) -> None:
        """Fill ``out`` with every column's score, as ``kernel.analyze`` does."""
        head = _head(mem, table, book_keys, book_values, current, mask, ply)
        self._call("analyze", *head, int(weak), _pointer(out, np.int64, "out"))

    def probe(
        self,
        mem: NDArray[np.uint64],
        table: NDArray[np.uint64],
        book_keys: NDArray[np.uint64],
        book_values: NDArray[np.int8],
        current: int,
        mask: int,
        ply: int,
        alpha: int,
        beta: int,
    ) -> int:
        """One fail-soft search of ``(alpha, beta)``, as ``kernel.probe`` does."""
        head = _head(mem, table, book_keys, book_values, current, mask, ply)
        return self._call("probe", *head, alpha, beta)

    def batch(
        self,
        mem: NDArray[np.uint64],
        table: NDArray[np.uint64],
        book_keys: NDArray[np.uint64],
        book_values: NDArray[np.int8],
        currents: NDArray[np.int64],
        masks: NDArray[np.int64],
        plies: NDArray[np.int64],
        weak: bool,
        new_generation: bool,
        scores: NDArray[np.int64],
        nodes: NDArray[np.uint64],
        ticks: NDArray[np.uint64],
    ) -> None:
        """Solve many positions, as ``kernel.solve_batch`` does."""
        n = len(currents)
        if not n == len(masks) == len(plies) == len(scores) == len(nodes) == len(ticks):
            raise ValueError("batch arrays must have the same length")
        i64, u64 = np.int64, np.uint64
        self._call(
            "batch",
            _pointer(mem, u64, "mem"),
            _pointer(table, u64, "table"),
            _pointer(book_keys, u64, "book_keys"),
            _pointer(book_values, np.int8, "book_values"),
            len(book_keys),
            _pointer(currents, i64, "currents"),
            _pointer(masks, i64, "masks"),
            _pointer(plies, i64, "plies"),
            n,
            int(weak),
            int(new_generation),
            _pointer(scores, i64, "scores"),
            _pointer(nodes, u64, "nodes"),
            _pointer(ticks, u64, "ticks"),
        )


def _pointer(array: NDArray[np.generic], dtype: type[np.generic], name: str) -> int:
    """The address of a contiguous array of ``dtype`` (the kernel writes through it).

    ``ctypes.c_byte.from_buffer`` takes a third of the time of ``array.ctypes``
    (which builds a helper object): with nine arrays per call that is most of
    the call's cost. An empty array is never read (its length is passed): 0.
    """
    if array.dtype != dtype or not array.flags.c_contiguous:
        raise ValueError(f"{name} must be a contiguous {np.dtype(dtype).name} array")
    if array.size == 0:
        return 0
    try:
        return ctypes.addressof(ctypes.c_byte.from_buffer(array))  # type: ignore[arg-type]
    except (TypeError, ValueError):  # a read-only array
        return int(array.ctypes.data)


def _head(
    mem: NDArray[np.uint64],
    table: NDArray[np.uint64],
    book_keys: NDArray[np.uint64],
    book_values: NDArray[np.int8],
    current: int,
    mask: int,
    ply: int,
) -> tuple[int, ...]:
    """The arguments every entry starts with: the arrays as pointers, then the position."""
    pointers = (
        _pointer(mem, np.uint64, "mem"),
        _pointer(table, np.uint64, "table"),
        _pointer(book_keys, np.uint64, "book_keys"),
        _pointer(book_values, np.int8, "book_values"),
    )
    return (*pointers, len(book_keys), int(current), int(mask), ply)


def enabled() -> bool:
    """False when ``CONNECT4_NATIVE=0`` asks for numba's kernel every time."""
    return os.environ.get("CONNECT4_NATIVE", "1") != "0"


def cache_dirs() -> list[Path]:
    """Where the native file is looked for, in order (it is written to the first
    usable one): ``CONNECT4_CACHE_DIR`` alone when set."""
    chosen = cache.chosen_dir()
    if chosen is not None:
        return [chosen]
    return [Path(__file__).parent / "__pycache__", cache.user_cache_dir()]


def private_dirs(directories: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """The directories code may be loaded from, and why each of the others may not."""
    usable: list[Path] = []
    problems: list[str] = []
    for directory in directories:
        problem = cache.why_not_private(directory)
        if problem is None:
            usable.append(directory)
        else:
            problems.append(problem)
    return usable, problems


def _llvm() -> ModuleType:
    """llvmlite's binding layer, with the host target initialised."""
    import llvmlite.binding as llvm  # type: ignore[import-untyped]

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    binding: ModuleType = llvm
    return binding


class _TargetMachine(Protocol):
    """The part of llvmlite's ``TargetMachine`` used here."""

    def emit_object(self, module: object) -> bytes: ...


def _target_machine(llvm: ModuleType) -> _TargetMachine:
    target = llvm.Target.from_default_triple()
    machine: _TargetMachine = target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        reloc="static",  # as numba's own JIT: direct addresses, no GOT loads
        codemodel="jitdefault",
        jit=True,
    )
    return machine


def cache_key(llvm: ModuleType) -> str:
    """A hash of everything the native code depends on."""
    import llvmlite

    digest = hashlib.sha256(f"connect4 native kernel, format {FORMAT}\n".encode())
    package = Path(__file__).parent.parent
    for source in _SOURCES:
        digest.update((package / source).read_bytes())
    spec = importlib.util.find_spec("numba")  # finds numba without importing it
    if spec is not None and spec.origin is not None:
        version_file = Path(spec.origin).parent / "_version.py"
        digest.update(spec.origin.encode())
        digest.update(version_file.read_bytes() if version_file.exists() else b"")
    digest.update(llvmlite.__version__.encode())
    digest.update(llvm.get_process_triple().encode())
    digest.update(llvm.get_host_cpu_name().encode())
    digest.update(llvm.get_host_cpu_features().flatten().encode())
    for var in _NUMBA_CODEGEN_VARS:
        digest.update(f"{var}={os.environ.get(var, '')}\n".encode())
    return digest.hexdigest()[:32]


def _file_name(key: str) -> str:
    return f"kernel-{key}.native"


def load(directories: Sequence[Path]) -> NativeKernel | None:
    """The cached native kernel for this machine and source from the first of
    ``directories`` that holds one (check them with :func:`private_dirs` first),
    or None if there is none. Raises :class:`StaleKernel` for a file compiled for
    another layout version."""
    if not enabled():
        return None
    llvm = _llvm()
    name = _file_name(cache_key(llvm))
    for directory in directories:
        path = directory / name
        if cache.why_not_private(path) is not None:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        header, _, code = data.partition(b"\n")
        try:
            meta = json.loads(header)
            symbols = {entry: str(meta["symbols"][entry]) for entry in ENTRY_POINTS}
            intact = meta["format"] == FORMAT and meta["sha256"] == hashlib.sha256(code).hexdigest()
        except (ValueError, KeyError, TypeError):
            continue
        if intact:
            kernel = _map(llvm, code, symbols, path)
            if kernel is None:
                continue
            if kernel.version() != LAYOUT_VERSION:
                raise StaleKernel(
                    f"{path} was compiled for memory layout {kernel.version()}, "
                    f"not {LAYOUT_VERSION}"
                )
            return kernel
    return None


def _map(llvm: ModuleType, code: bytes, symbols: dict[str, str], path: Path) -> NativeKernel | None:
    """Load object ``code`` into a new MCJIT engine and look up the entry points."""
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _target_machine(llvm))
    engine.add_object_file(llvm.ObjectFileRef.from_data(code))
    engine.finalize_object()
    addresses = {entry: int(engine.get_function_address(symbols[entry])) for entry in ENTRY_POINTS}
    if not all(addresses.values()):
        return None
    return NativeKernel(engine, addresses, path)


def build(kernel: ModuleType, directories: Sequence[Path]) -> Path:
    """Compile the entry points of ``kernel`` (the numba module) to one object file
    and write it to the first writable of ``directories``; return its path.

    The callee functions (``_solve``, the searches) come from numba's cache, so this
    takes about a second. Kernels of other versions in that directory, and the
    temporary files of writers that were killed, are removed.
    """
    from numba.core.sigutils import normalize_signature

    llvm = _llvm()
    linked = None
    symbols = {}
    for entry in ENTRY_POINTS:
        dispatcher = getattr(kernel, f"native_{entry}")
        signature = kernel.NATIVE_SIGNATURES[entry]
        args, _ = normalize_signature(signature)  # type: ignore[no-untyped-call]
        dispatcher.compile(tuple(args))
        result = dispatcher.overloads[tuple(args)]
        symbols[entry] = result.fndesc.mangled_name
        module = llvm.parse_assembly(result.library.get_llvm_str())
        if linked is None:
            linked = module
        else:
            linked.link_in(module)
    assert linked is not None
    linked.verify()
    code = _target_machine(llvm).emit_object(linked)
    header = {"format": FORMAT, "symbols": symbols, "sha256": hashlib.sha256(code).hexdigest()}
    data = json.dumps(header).encode() + b"\n" + code
    name = _file_name(cache_key(llvm))
    errors = []
    for directory in directories:
        path = directory / name
        temporary = directory / f".{name}.{os.getpid()}"
        try:
            cache.make_private_dir(directory)
            temporary.write_bytes(data)
            temporary.chmod(0o644)
            os.replace(temporary, path)  # atomic: a concurrent reader sees all or nothing
        except OSError as exc:
            errors.append(f"{directory}: {exc.strerror or exc}")
            cache.remove(temporary)
            continue
        clean(directory, keep=name)
        return path
    raise OSError("cannot write the native kernel: " + "; ".join(errors))


def clean(directory: Path, keep: str) -> list[Path]:
    """Remove kernels other than ``keep`` and the temporary files of dead writers
    from ``directory``; return what was removed.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> old = folder / ("kernel-" + "0" * 32 + ".native")
    >>> _ = old.write_bytes(b"old")
    >>> [p.name == old.name for p in clean(folder, keep="kernel-" + "1" * 32 + ".native")]
    [True]
    """
    removed: list[Path] = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        path = directory / name
        if _FILE.fullmatch(name) and name != keep:
            removed.append(path)
        else:
            writer = _TEMPORARY.fullmatch(name)
            if writer and not cache.pid_alive(int(writer.group(1))):
                removed.append(path)
    for path in removed:
        cache.remove(path)
    return removed
