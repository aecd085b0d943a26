"""The solver kernel as cached native code, run without numba.

Importing numba and setting up its compiler costs about 0.7 s in every new
process, even when the compiled kernel comes from numba's on-disk cache. That
would make ``connect4 solve`` miss its one-second start-up. So the two entry
points a :class:`~connect4.solver.Solver` calls (``native_solve`` and
``native_analyze`` in :mod:`connect4.solver.kernel`) are kept a second way:
:func:`build` takes numba's optimised code of them (once, while numba is loaded
anyway), emits it as one object file and writes it to the cache;
:func:`load` maps that file with llvmlite's MCJIT alone (about 5 ms) and calls
it through :mod:`ctypes`, which releases the GIL like numba's ``nogil``.

The file's name is a hash of everything the code depends on (the sources of
the kernel and the memory layout, the numba and llvmlite versions, the CPU and
numba's code-generation settings), so a change to any of them makes a new file;
a file whose checksum does not match is never loaded.

``CONNECT4_NATIVE=0`` turns this off (numba runs the kernel every time);
``CONNECT4_CACHE_DIR`` chooses the directory (default: ``__pycache__`` beside
this module, or ``~/.cache/connect4`` when that is not writable).

>>> from connect4 import Position, Solver
>>> from connect4.solver import layout
>>> p = Position.from_moves("44455554221")
>>> Solver(7, 6, 1).solve(p)  # the first Solver of a machine writes the file
-15
>>> native = load()
>>> mem = layout.new_memory(7, 6, 1 << 10)
>>> no_book = np.zeros(0, np.uint64), np.zeros(0, np.int8)
>>> native.solve(mem, *no_book, p.current, p.mask, p.ply, False)
-15
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import NDArray

FORMAT = 1  # bump when the file layout or the entry points' arguments change
ENTRY_POINTS = ("solve", "analyze")
# numba settings that change the code it generates
_NUMBA_CODEGEN_VARS = ("NUMBA_OPT", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_BOUNDSCHECK")

_i64 = ctypes.c_int64
_u64 = ctypes.c_uint64
_RESULT = ctypes.POINTER(_i64)
_EXCEPTION_INFO = ctypes.POINTER(ctypes.c_void_p)
_HEAD = (_RESULT, _EXCEPTION_INFO, _i64, _i64, _i64, _i64, _u64, _u64, _i64, _i64)
# numba's calling convention: status = f(&result, &exception_info, arguments...)
_SOLVE_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, *_HEAD)
_ANALYZE_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, *_HEAD, _i64)


class NativeKernel:
    """``solve`` and ``analyze`` of the kernel, taking the same arguments as
    :func:`connect4.solver.kernel.solve` and :func:`connect4.solver.kernel.analyze`."""

    def __init__(self, engine: Any, addresses: dict[str, int], path: Path) -> None:
        self._engine = engine  # owns the code: keep it alive as long as the functions
        self._solve = _SOLVE_TYPE(addresses["solve"])
        self._analyze = _ANALYZE_TYPE(addresses["analyze"])
        self.path = path

    def solve(
        self,
        mem: NDArray[np.uint64],
        book_keys: NDArray[np.uint64],
        book_values: NDArray[np.int8],
        current: int | np.uint64,
        mask: int | np.uint64,
        ply: int,
        weak: bool,
    ) -> int:
        """The exact score (or its sign when ``weak``); check ``mem[ABORT]`` afterwards."""
        result = _i64()
        arguments = _arguments(mem, book_keys, book_values, current, mask, ply, weak)
        exception_info = ctypes.byref(ctypes.c_void_p())
        status = self._solve(ctypes.byref(result), exception_info, *arguments)
        _check(status)
        return result.value

    def analyze(
        self,
        mem: NDArray[np.uint64],
        book_keys: NDArray[np.uint64],
        book_values: NDArray[np.int8],
        current: int | np.uint64,
        mask: int | np.uint64,
        ply: int,
        weak: bool,
        out: NDArray[np.int64],
    ) -> None:
        """Fill ``out`` with every column's score, as ``kernel.analyze`` does."""
        if out.dtype != np.int64 or not out.flags.c_contiguous:
            raise ValueError("out must be a contiguous int64 array")
        result = _i64()
        arguments = _arguments(mem, book_keys, book_values, current, mask, ply, weak)
        exception_info = ctypes.byref(ctypes.c_void_p())
        status = self._analyze(ctypes.byref(result), exception_info, *arguments, out.ctypes.data)
        _check(status)


def _arguments(
    mem: NDArray[np.uint64],
    book_keys: NDArray[np.uint64],
    book_values: NDArray[np.int8],
    current: int | np.uint64,
    mask: int | np.uint64,
    ply: int,
    weak: bool,
) -> tuple[int, ...]:
    """The kernel's integer arguments: the arrays as pointers, then the position."""
    for name, array in (("mem", mem), ("book_keys", book_keys), ("book_values", book_values)):
        if not array.flags.c_contiguous:
            raise ValueError(f"{name} must be a contiguous array")
    pointers = (mem.ctypes.data, book_keys.ctypes.data, book_values.ctypes.data)
    return (*pointers, len(book_keys), int(current), int(mask), ply, int(weak))


def _check(status: int) -> None:
    if status != 0:  # the kernel raises nothing; a status would mean a broken build
        raise RuntimeError(f"the native solver kernel failed (status {status})")


def enabled() -> bool:
    """False when ``CONNECT4_NATIVE=0`` asks for numba's kernel every time."""
    return os.environ.get("CONNECT4_NATIVE", "1") != "0"


def cache_dirs() -> list[Path]:
    """Where the native file is looked for, in order (it is written to the first
    writable one)."""
    chosen = os.environ.get("CONNECT4_CACHE_DIR")
    if chosen:
        return [Path(chosen)]
    user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [Path(__file__).parent / "__pycache__", user_cache / "connect4"]


def _llvm() -> Any:
    """llvmlite's binding layer, with the host target initialised."""
    import llvmlite.binding as llvm  # type: ignore[import-untyped]

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


def _target_machine(llvm: Any) -> Any:
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        codemodel="jitdefault",
    )


def cache_key(llvm: Any) -> str:
    """A hash of everything the native code depends on."""
    import llvmlite

    digest = hashlib.sha256(f"connect4 native kernel, format {FORMAT}\n".encode())
    here = Path(__file__).parent
    for source in ("kernel.py", "layout.py"):
        digest.update((here / source).read_bytes())
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


def load() -> NativeKernel | None:
    """The cached native kernel for this machine and source, or None if there is none."""
    if not enabled():
        return None
    llvm = _llvm()
    name = _file_name(cache_key(llvm))
    for directory in cache_dirs():
        path = directory / name
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
            return _map(llvm, code, symbols, path)
    return None


def _map(llvm: Any, code: bytes, symbols: dict[str, str], path: Path) -> NativeKernel | None:
    """Load object ``code`` into a new MCJIT engine and look up the entry points."""
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _target_machine(llvm))
    engine.add_object_file(llvm.ObjectFileRef.from_data(code))
    engine.finalize_object()
    addresses = {entry: engine.get_function_address(symbols[entry]) for entry in ENTRY_POINTS}
    if not all(addresses.values()):
        return None
    return NativeKernel(engine, addresses, path)


def build(kernel: ModuleType) -> Path:
    """Compile the entry points of ``kernel`` (the numba module) to one object file
    and write it to the cache; return its path.

    The callee functions (``_solve``, the searches) come from numba's cache, so this
    takes about a second.
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
    for directory in cache_dirs():
        path = directory / name
        temporary = directory / f".{name}.{os.getpid()}"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(data)
            os.replace(temporary, path)  # atomic: a concurrent reader sees all or nothing
        except OSError as exc:
            errors.append(f"{directory}: {exc.strerror or exc}")
            with contextlib.suppress(OSError):
                temporary.unlink()
            continue
        return path
    raise OSError("cannot write the native kernel: " + "; ".join(errors))
