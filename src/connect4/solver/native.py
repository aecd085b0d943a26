"""The solver kernel as cached native code, run without numba.

Importing numba and setting up its compiler costs about 0.7 s in every new
process, even when the compiled kernel comes from numba's on-disk cache. That
would make ``connect4 solve`` miss its one-second start-up. So the entry
points of the kernel (described once in :mod:`connect4.solver.entries`; their
integer-only ``native_*`` versions made in :mod:`connect4.solver.kernel`) are
kept a second way:
:func:`build` takes numba's optimised code of them (once, while numba is loaded
anyway: :func:`connect4.core.compiler.native_code`), emits it as one object
file with llvmlite's binding layer and writes it to the cache;
:func:`load` maps that file with llvmlite's MCJIT alone (about 5 ms) and calls
it through :mod:`ctypes`, which releases the GIL like numba's ``nogil``.

Rules of the cache:

* The file's name is a hash of everything the code depends on (the sources of
  the kernel, its entry points' description, the memory layout, the bitboard
  helpers and this loader, the numba and
  llvmlite versions, the CPU and numba's code-generation settings), so a
  change to any of them makes a new file; a file whose checksum does not match
  is never loaded.
* The kernel returns the layout version it was compiled for
  (:data:`connect4.solver.layout.LAYOUT_VERSION`); a file of another version
  is refused.
* Code is loaded only from a directory (and a file) owned by the current user
  and not writable by group or others (:func:`connect4.core.cache.why_not_private`).
* Writing a new file removes kernels of other versions and the temporary
  files of writers that were killed.

``CONNECT4_NATIVE=0`` turns this off (numba runs the kernel every time);
The file lives in the package's cache root (``CONNECT4_CACHE_DIR``, else the
user's cache folder: :func:`connect4.core.cache.cache_root`).

>>> import numpy as np
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
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Protocol

from connect4.core import cache
from connect4.core.errors import Connect4Exception
from connect4.solver.entries import ENTRY_POINTS, EntryPoint, Kernel
from connect4.solver.layout import LAYOUT_VERSION, check_kernel_board

FORMAT = 5  # bump when the file's layout changes (the entry points are in the key)
# numba settings that change the code it generates
_NUMBA_CODEGEN_VARS = ("NUMBA_OPT", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_BOUNDSCHECK")
# sources compiled into the kernel, relative to the package
_SOURCES = (
    "solver/kernel.py",
    "core/compiler.py",
    "solver/entries.py",
    "solver/layout.py",
    "core/bits.py",
    "solver/native.py",
)
_FILE = re.compile(r"kernel-(?:([0-9a-z]+)-)?[0-9a-f]{32}\.native")  # (older files: no name)
_TEMPORARY = re.compile(r"\.kernel-(?:[0-9a-z]+-)?[0-9a-f]{32}\.native\.(\d+)")


# Not a Connect4Error on purpose: raised by :func:`load` and always caught by the
# backend, which then builds the kernel again; no user ever sees it.
class StaleKernel(Connect4Exception, RuntimeError):
    """A native file compiled for another memory layout."""


class NativeKernel(Kernel):
    """The kernel's entry points from a native file: the same calls, arguments and
    results as :class:`connect4.solver.backend.NumbaBackend`."""

    name = "native"

    def __init__(
        self, engine: object, addresses: dict[str, int], path: Path, board: str = "7x6"
    ) -> None:
        self._engine = engine  # owns the code: keep it alive as long as the functions
        self._functions: dict[str, Callable[..., int]] = {
            point.name: point.native_prototype()(addresses[point.name]) for point in ENTRY_POINTS
        }
        self.path = path
        self.board = board  # the kernel's name (connect4.solver.layout.kernel_name)

    def run(self, point: EntryPoint, raw: list[int]) -> int:
        """Call ``native_<name>`` through ``ctypes`` (which releases the GIL)."""
        if point.params:  # mem comes first
            check_kernel_board(self.board, raw[0])
        result = ctypes.c_int64()
        exception_info = ctypes.byref(ctypes.c_void_p())
        status = self._functions[point.name](ctypes.byref(result), exception_info, *raw)
        if status != 0:  # the kernel raises nothing; a status would mean a broken build
            raise RuntimeError(f"the native solver kernel failed (status {status})")
        return result.value


def enabled() -> bool:
    """False when ``CONNECT4_NATIVE=0`` asks for numba's kernel every time."""
    return os.environ.get("CONNECT4_NATIVE", "1") != "0"


def cache_dirs() -> list[Path]:
    """Where the native file is looked for, in order (it is written to the first
    usable one): the cache root, never a folder beside the sources."""
    return [cache.cache_root()]


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


def cache_key(llvm: ModuleType, name: str = "7x6") -> str:
    """A hash of everything the native code of kernel ``name`` depends on."""
    import llvmlite

    digest = hashlib.sha256(f"connect4 native kernel {name}, format {FORMAT}\n".encode())
    for point in ENTRY_POINTS:  # the entry points' names and signatures
        digest.update(f"{point.name} {point.function} {point.native_signature}\n".encode())
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


def _file_name(key: str, name: str) -> str:
    return f"kernel-{name}-{key}.native"


def load(directories: Sequence[Path], name: str = "7x6") -> NativeKernel | None:
    """The cached native kernel ``name`` (see :func:`connect4.solver.layout.kernel_name`)
    for this machine and source from the first of ``directories`` that holds one
    (check them with :func:`private_dirs` first), or None if there is none. Raises
    :class:`StaleKernel` for a file compiled for another layout version."""
    if not enabled():
        return None
    llvm = _llvm()
    file_name = _file_name(cache_key(llvm, name), name)
    for directory in directories:
        path = directory / file_name
        if cache.why_not_private(path) is not None:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        header, _, code = data.partition(b"\n")
        try:
            meta = json.loads(header)
            symbols = {p.name: str(meta["symbols"][p.name]) for p in ENTRY_POINTS}
            intact = meta["format"] == FORMAT and meta["sha256"] == hashlib.sha256(code).hexdigest()
        except (ValueError, KeyError, TypeError):
            continue
        if intact:
            kernel = _map(llvm, code, symbols, path, name)
            if kernel is None:
                continue
            if kernel.version() != LAYOUT_VERSION:
                raise StaleKernel(
                    f"{path} was compiled for memory layout {kernel.version()}, "
                    f"not {LAYOUT_VERSION}"
                )
            return kernel
    return None


def _map(
    llvm: ModuleType, code: bytes, symbols: dict[str, str], path: Path, board: str
) -> NativeKernel | None:
    """Load object ``code`` into a new MCJIT engine and look up the entry points."""
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _target_machine(llvm))
    engine.add_object_file(llvm.ObjectFileRef.from_data(code))
    engine.finalize_object()
    addresses = {p.name: int(engine.get_function_address(symbols[p.name])) for p in ENTRY_POINTS}
    if not all(addresses.values()):
        return None
    return NativeKernel(engine, addresses, path, board)


def build(kernel: ModuleType, directories: Sequence[Path], name: str = "7x6") -> Path:
    """Compile the entry points of kernel ``name`` of ``kernel`` (the numba module)
    to one object file and write it to the first writable of ``directories``;
    return its path.

    The callee functions (``_solve``, the searches) come from numba's cache, so this
    takes about a second. Other versions of this kernel in that directory, and the
    temporary files of writers that were killed, are removed.
    """
    from connect4.core.compiler import native_code

    llvm = _llvm()
    linked = None
    symbols = {}
    native = kernel.board_kernel(name).native  # made from the description
    for point in ENTRY_POINTS:
        symbols[point.name], llvm_ir = native_code(native[point.name], point.native_signature)
        module = llvm.parse_assembly(llvm_ir)
        if linked is None:
            linked = module
        else:
            linked.link_in(module)
    assert linked is not None
    linked.verify()
    code = _target_machine(llvm).emit_object(linked)
    header = {"format": FORMAT, "symbols": symbols, "sha256": hashlib.sha256(code).hexdigest()}
    data = json.dumps(header).encode() + b"\n" + code
    file_name = _file_name(cache_key(llvm, name), name)
    errors = []
    for directory in directories:
        path = directory / file_name
        temporary = directory / f".{file_name}.{os.getpid()}"
        try:
            cache.make_private_dir(directory)
            temporary.write_bytes(data)
            temporary.chmod(0o644)
            os.replace(temporary, path)  # atomic: a concurrent reader sees all or nothing
        except OSError as exc:
            errors.append(f"{directory}: {exc.strerror or exc}")
            cache.remove(temporary)
            continue
        clean(directory, keep=file_name)
        return path
    raise OSError("cannot write the native kernel: " + "; ".join(errors))


def clean(directory: Path, keep: str) -> list[Path]:
    """Remove the other versions of the kernel ``keep`` (and files of the older
    format, without a kernel name) and the temporary files of dead writers from
    ``directory``; return what was removed. Other kernels' files stay.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for old in ("kernel-7x6-" + "0" * 32, "kernel-any-" + "0" * 32, "kernel-" + "0" * 32):
    ...     _ = (folder / (old + ".native")).write_bytes(b"old")
    >>> sorted(p.name[:11] for p in clean(folder, keep="kernel-7x6-" + "1" * 32 + ".native"))
    ['kernel-0000', 'kernel-7x6-']
    """
    removed: list[Path] = []
    kept = _FILE.fullmatch(keep)
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        path = directory / name
        found = _FILE.fullmatch(name)
        if found and name != keep and found.group(1) in (None, kept and kept.group(1)):
            removed.append(path)
        else:
            writer = _TEMPORARY.fullmatch(name)
            if writer and not cache.pid_alive(int(writer.group(1))):
                removed.append(path)
    for path in removed:
        cache.remove(path)
    return removed
