"""The one way into the solver kernel: its backend, chosen, warmed up and pooled here.

A :class:`Backend` (the entry points described in :mod:`connect4.solver.entries`)
runs the kernel's searches on a thread's memory ``mem`` and a transposition
``table`` (see :mod:`connect4.solver.layout`; threads may share the
table) and an opening book given as two arrays:

==========  ================================================================
``solve``   the exact score (or its sign) of a position that is not over
``analyze`` every column's score, written to an ``int64`` array
``probe``   one fail-soft search of a window ``(alpha, beta)``
``batch``   many positions in one call, each timed inside the kernel
==========  ================================================================

Every search stops once ``mem[NODES]`` reaches ``mem[LIMIT]`` and sets
``mem[ABORT]``: that node budget is how :class:`connect4.solver.Solver` keeps
deadlines. A search also stops once ``table[T_STOP]`` is set (how the
first thread of a Lazy SMP search stops the others). Every entry point runs
outside the GIL, so Python threads search in parallel. Two backends implement
it with the same compiled code and the same results, node for node:

* the native kernel (:mod:`connect4.solver.native`): numba's code of the
  kernel cached as an object file and loaded without importing numba (fast
  start-up); used whenever the file exists in a private cache directory;
* numba's kernel (:mod:`connect4.solver.kernel`): compiled (or loaded from
  numba's cache) on first use, and then written as the native file for the
  next process.

:func:`active_backend` chooses once per process; :func:`warm_up` loads every entry
point. :data:`TABLES` keeps search memories (a table and its threads' state)
for reuse, per board and table size, so the package allocates (and pages in)
tens of megabytes once.

>>> kernel = warm_up()
>>> kernel.name in ("native", "numba")
True
>>> from connect4.solver.layout import new_memory, new_table
>>> from connect4 import Position
>>> p = Position.from_moves("44455554221")
>>> mem, table = new_memory(7, 6), new_table(7, 6, 1 << 16)
>>> kernel.solve(mem, table, *NO_BOOK, p.current, p.mask, p.ply, False)
-15
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

import numpy as np
from numpy.typing import NDArray

from connect4.core.bits import fits_word
from connect4.core.cache import FileLock, make_private_dir
from connect4.solver import native
from connect4.solver.entries import ENTRY_POINTS, UINT64, EntryPoint, Kernel
from connect4.solver.layout import (
    HDR as HEADER_WORDS,
    check_kernel_board,
    kernel_name,
    new_memory,
    new_table,
)

Memory = NDArray[np.uint64]
NO_BOOK: tuple[NDArray[np.uint64], NDArray[np.int8]] = (
    np.zeros(0, dtype=np.uint64),
    np.zeros(0, dtype=np.int8),
)
Backend = Kernel  # the entry points, described once (connect4.solver.entries)


class NumbaBackend(Kernel):
    """A kernel run by numba (:mod:`connect4.solver.kernel`; ``board`` names it, see
    :func:`connect4.solver.layout.kernel_name`): each entry point calls its
    raw-pointer function through numba's dispatcher (``nogil``)."""

    name = "numba"

    def __init__(self, kernel: ModuleType, board: str = "7x6") -> None:
        self.kernel = kernel
        self.board = board
        functions = kernel.board_kernel(board).functions
        self._functions = {p.name: functions[p.function] for p in ENTRY_POINTS}
        self._unsigned = {
            p.name: [i for i, param in enumerate(p.params) if param.kind == UINT64]
            for p in ENTRY_POINTS
        }

    def run(self, point: EntryPoint, raw: list[int]) -> int:
        """Call the raw function, its unsigned words as ``np.uint64`` (numba's type)."""
        if point.params:  # mem comes first
            check_kernel_board(self.board, raw[0])
        arguments: list[object] = list(raw)
        for i in self._unsigned[point.name]:
            arguments[i] = np.uint64(raw[i])
        result = self._functions[point.name](*arguments)
        return 0 if result is None else int(result)


# ---------------------------------------------------------------- choosing
_lock = threading.RLock()  # active_backend() holds it while numba_kernel() takes it again
_chosen: dict[str, Backend] = {}  # per kernel name
_compiled: set[str] = set()


def note(message: str) -> None:
    """One line on stderr about the solver's set-up (it never stops the solver)."""
    print(f"connect4: {message}", file=sys.stderr, flush=True)


def numba_kernel(board: str = "7x6") -> ModuleType:
    """The numba kernel module with its kernel ``board`` (see
    :func:`connect4.solver.layout.kernel_name`) compiled (or loaded from numba's
    cache) once.

    The first, cold compile takes a while: say so on stderr.
    """
    from connect4.core import compiler
    from connect4.solver import kernel

    if board in _compiled:
        return kernel
    with _lock:
        functions = kernel.board_kernel(board).functions.values()
        if board not in _compiled and not compiler.cache_is_warm(functions):
            # compile every entry point now, under the notice (a warm cache loads
            # each one lazily on its first call instead: faster start-up)
            sizes = "7x6 boards" if board == "7x6" else "boards other than 7x6"
            note(
                f"compiling the solver for {sizes} (about 30 s, first run only; "
                "cached afterwards)..."
            )
            _exercise(NumbaBackend(kernel, board))
        _compiled.add(board)
    return kernel


def active_backend(width: int = 7, height: int = 6) -> Backend:
    """What every solver of a board of up to 64 bits searches with, chosen once per
    process and kernel (:func:`connect4.solver.layout.kernel_name`): the cached
    native kernel when there is one, else numba's kernel (which then caches the
    native one for the next process). Problems are one line on stderr, never an
    error."""
    board = kernel_name(width, height)
    chosen = _chosen.get(board)
    if chosen is not None:
        return chosen
    with _lock:
        if board not in _chosen:
            _chosen[board] = _choose(board)
    return _chosen[board]


def _choose(board: str) -> Backend:
    directories: list[Path] = []
    if native.enabled():
        directories, problems = native.private_dirs(native.cache_dirs())
        if not directories:
            note(
                f"not using the solver's kernel cache: {problems[0]}; numba runs the "
                "kernel (set CONNECT4_CACHE_DIR to a directory only you can write)"
            )
        else:
            loaded = _load(directories, board)
            if loaded is not None:
                return loaded
    if not directories:
        return NumbaBackend(numba_kernel(board), board)
    # one process compiles a kernel at a time; the others wait for its file
    lock = _compile_lock(directories, board)
    try:
        if lock is not None and not lock.acquire(wait=False):
            if board not in _background and board not in _elsewhere:  # else the caller says so
                note("another connect4 process is compiling the solver; waiting for it...")
            lock.acquire(wait=True)
        loaded = _load(directories, board)  # written while this process waited?
        if loaded is not None:
            return loaded
        kernel = numba_kernel(board)
        try:
            native.build(kernel, directories, board)
        except Exception as exc:  # only start-up time is lost: say why
            note(f"native solver kernel not cached ({exc})")
        return NumbaBackend(kernel, board)
    finally:
        if lock is not None:
            lock.release()


def _load(directories: list[Path], board: str) -> Backend | None:
    """The cached native kernel, or None (a problem is one line on stderr)."""
    try:
        return native.load(directories, board)
    except native.StaleKernel as exc:
        note(f"native solver kernel refused ({exc}); building it again")
    except Exception as exc:  # numba's kernel still works: say why
        note(f"native solver kernel not loaded ({exc})")
    return None


# ---------------------------------------------------------------- compiling in the background
LOCK_HELD = "CONNECT4_KERNEL_LOCK_HELD"  # set for a child that holds its parent's compile lock
_background: dict[str, subprocess.Popen[bytes]] = {}
_elsewhere: set[str] = set()  # kernels compile_in_background() found compiling in another process
_COMPILE = "from connect4.solver.backend import warm_up; warm_up({width}, {height})"
BIG_NICE = 10  # a big board's child compiles below its parent (a server that goes on answering)
_TIED = "from connect4.core.processes import exit_with_parent; exit_with_parent({parent}); "
_tied: list[bool] = [False]  # background compiles end with this process (tie_background_compiles)


def tie_background_compiles() -> None:
    """From now on this process's background compiles end with it, even when it is
    killed (a parent-death signal): for a server, whose compiles would otherwise run
    on for a minute after it stopped. By default a child goes on, so that the next
    program finds its kernel compiled."""
    _tied[0] = True


def board_name(width: int, height: int) -> str:
    """The name of the kernel that searches a board (its compile lock's name):
    :func:`connect4.solver.layout.kernel_name` up to 64 bits, else the board's own.

    >>> board_name(7, 6), board_name(9, 5), board_name(8, 8)
    ('7x6', 'any', '8x8')
    """
    return kernel_name(width, height) if fits_word(width, height) else f"{width}x{height}"


def _compile_lock(directories: list[Path], board: str) -> FileLock | None:
    """The lock on compiling kernel ``board`` in the cache, or None when this process
    is the child compiling it for its parent (which took the lock for it)."""
    if os.environ.get(LOCK_HELD) == board:
        return None
    with contextlib.suppress(OSError):
        make_private_dir(directories[0])
    return FileLock(directories[0] / f"kernel-{board}.lock")


def compile_lock(width: int, height: int) -> FileLock | None:
    """The lock a process holds while it compiles a board's kernel into the cache, or
    None when there is no private cache directory or this process is the child
    compiling it for its parent."""
    directories, _ = native.private_dirs(native.cache_dirs())
    return _compile_lock(directories, board_name(width, height)) if directories else None


def compile_in_background(width: int = 7, height: int = 6) -> bool:
    """Start compiling a board's kernel in a child process when it is not cached yet,
    and return at once: True while it compiles (here or in another process), False
    when the kernel is ready or is compiled in this process when first used (numba
    without the native cache; boards over 64 bits: see :func:`compile_big_in_background`).

    The child writes the native kernel file and exits; a search that needs the
    kernel meanwhile waits for it (:func:`compile_pending`, :func:`wait_for_compile`
    let a caller say so first). The child goes on if this process ends, so the
    next one finds the file.
    """
    if not fits_word(width, height) or not native.enabled():
        return False
    board = kernel_name(width, height)
    with _lock:
        if board in _chosen:
            return False
        if board in _background:
            return compile_pending(width, height)
        directories, _ = native.private_dirs(native.cache_dirs())
        if not directories:
            return False
        loaded = _load(directories, board)
        if loaded is not None:
            _chosen[board] = loaded
            return False
        return _spawn(width, height, board, _compile_lock(directories, board))


def compile_big_in_background(width: int, height: int) -> bool:
    """:func:`compile_in_background` for a board over 64 bits (its own kernel, about a
    minute of numba): the child compiles it into numba's cache, below this process's
    priority, and exits. True while it compiles (here or in another process); False
    when the kernel is loaded, cached (loading it takes a tenth of a second), or
    there is no private cache directory (it is compiled in this process when first
    used)."""
    from connect4.solver import wide

    board = board_name(width, height)
    with _lock:
        if board in _background:
            return compile_pending(width, height)
        if wide.is_loaded(width, height) or wide.is_cached(width, height):
            return False
        return _spawn(width, height, board, compile_lock(width, height), nice=BIG_NICE)


def _spawn(width: int, height: int, board: str, lock: FileLock | None, nice: int = 0) -> bool:
    """Start the child that compiles kernel ``board`` holding ``lock`` (caller holds
    ``_lock``); True when it started or another process holds the lock."""
    if lock is None or not lock.acquire(wait=False):
        if lock is not None:  # another process compiles it
            _elsewhere.add(board)
        return lock is not None
    try:
        held = lock.fileno()
        command = _COMPILE.format(width=width, height=height)
        if nice:
            command = f"import os; os.nice({nice}); {command}"
        if _tied[0]:
            command = _TIED.format(parent=os.getpid()) + command
        _background[board] = subprocess.Popen(
            [sys.executable, "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, LOCK_HELD: board},
            pass_fds=() if held is None else (held,),
            start_new_session=True,  # a Ctrl-C of the game does not stop it
        )
    except OSError:
        return False  # compiled here on first use instead
    finally:
        lock.release()  # the child holds it now
    return True


def compile_pending(width: int = 7, height: int = 6) -> bool:
    """True while a board's kernel compiles in another process (this process's child
    from :func:`compile_in_background` or :func:`compile_big_in_background`, or
    another program's)."""
    board = board_name(width, height)
    process = _background.get(board)
    if process is not None and process.poll() is None:
        return True
    if fits_word(width, height):
        if not native.enabled() or board in _chosen:
            return False
    else:
        from connect4.solver import wide

        if wide.is_loaded(width, height):
            return False
    lock = compile_lock(width, height)
    return lock is not None and lock.held_elsewhere()


def wait_for_compile(width: int = 7, height: int = 6, poll: float = 0.1) -> float:
    """Wait while :func:`compile_pending`; return the seconds waited."""
    started = time.perf_counter()
    while compile_pending(width, height):
        time.sleep(poll)
    return time.perf_counter() - started


def background_compiles() -> list[int]:
    """The process ids of this process's background compiles still running."""
    return [p.pid for p in _background.values() if p.poll() is None]


def _exercise(kernel: Backend) -> None:
    """Load (or compile) every entry point's code now: numba's for the argument
    types the description gives; the native file's is mapped already."""
    if isinstance(kernel, NumbaBackend):
        from connect4.core.compiler import compile_signature

        functions = kernel.kernel.board_kernel(kernel.board).functions
        for point in ENTRY_POINTS:
            compile_signature(functions[point.function], point.numba_signature)
    kernel.version()


def backend_for(width: int, height: int) -> Backend:
    """The backend that searches a board: :func:`active_backend` for boards of up to
    64 bits, else the board's own 128-bit kernel (:mod:`connect4.solver.wide`,
    compiled when first asked for)."""
    if fits_word(width, height):
        return active_backend(width, height)
    from connect4.solver.wide import is_loaded, wide_backend

    if is_loaded(width, height):  # no compile lock to make (a path, a folder) per solve
        return wide_backend(width, height)
    return wide_backend(width, height, note, compile_lock(width, height))


_warm: set[str] = set()


def warm_up(width: int = 7, height: int = 6) -> Backend:
    """Choose the backend of a board and load every entry point now, so no timed call
    pays for it (a few milliseconds with the native kernel). Returns the backend."""
    if not fits_word(width, height):
        return backend_for(width, height)  # compiled or loaded whole
    chosen = active_backend(width, height)
    board = kernel_name(width, height)
    if board not in _warm:
        _exercise(chosen)
        _warm.add(board)
    return chosen


# ---------------------------------------------------------------- tables
class SearchMemory:
    """A transposition table and the memories of the threads that search it: thread
    0's, and more made on demand (:meth:`thread`) for a Lazy SMP search.

    >>> memory = SearchMemory(7, 6, 1 << 16)
    >>> len(memory.threads), memory.thread(2) is memory.threads[2]
    (1, True)
    """

    def __init__(
        self, width: int, height: int, nbytes: int, table: NDArray[np.uint64] | None = None
    ) -> None:
        self.width = width
        self.height = height
        self.nbytes = nbytes
        self.table = new_table(width, height, nbytes) if table is None else table
        self.threads = [new_memory(width, height)]

    def thread(self, index: int) -> Memory:
        """Thread ``index``'s memory (made, with thread 0's options, when new)."""
        while len(self.threads) <= index:
            mem = new_memory(self.width, self.height)
            mem[:HEADER_WORDS] = self.threads[0][:HEADER_WORDS]
            self.threads.append(mem)
        return self.threads[index]


class TablePool:
    """Search memories (a transposition table and its threads' state) kept for reuse.

    A table of tens of megabytes costs milliseconds to allocate and page in:
    :meth:`take` hands out a free one of the same board and table size when
    there is one, :meth:`give` returns it (at most ``keep`` free ones are
    kept per size, and ``keep_total`` in all: the least recently returned go
    first, so a server asked for many board sizes does not keep a table for
    each). A returned table keeps its entries: they are exact bounds
    whatever the root, so a user may start warm with them (or call
    :func:`connect4.solver.layout.next_generation` for a logically empty table).

    >>> pool = TablePool()
    >>> memory = pool.take(4, 4, 1 << 10)
    >>> pool.give(memory)
    >>> pool.take(4, 4, 1 << 10) is memory
    True
    """

    def __init__(self, keep: int = 2, keep_total: int = 4) -> None:
        self.keep = keep
        self.keep_total = keep_total
        self._free: dict[tuple[int, int, int], list[SearchMemory]] = {}
        self._returned: list[SearchMemory] = []  # every free one, least recently returned first
        self._lock = threading.Lock()

    @staticmethod
    def _size(memory: SearchMemory) -> tuple[int, int, int]:
        return memory.width, memory.height, memory.nbytes

    def take(self, width: int, height: int, nbytes: int) -> SearchMemory:
        """A free search memory of this board and table size from the pool, or a new one."""
        with self._lock:
            free = self._free.get((width, height, nbytes))
            if free:
                memory = free.pop()
                self._returned = [m for m in self._returned if m is not memory]
                return memory
        return SearchMemory(width, height, nbytes)

    def give(self, memory: SearchMemory) -> None:
        """Return a search memory for the next user of its size (dropped if enough are kept)."""
        with self._lock:
            free = self._free.setdefault(self._size(memory), [])
            if len(free) < self.keep and all(m is not memory for m in free):
                free.append(memory)
                self._returned.append(memory)
            while len(self._returned) > self.keep_total:
                oldest = self._returned.pop(0)
                kept = self._free[self._size(oldest)]
                kept[:] = [m for m in kept if m is not oldest]

    def free_tables(self) -> int:
        """How many free search memories the pool holds now."""
        with self._lock:
            return len(self._returned)

    def clear(self) -> None:
        """Drop every free search memory (the next users start with new, empty ones)."""
        with self._lock:
            self._free.clear()
            self._returned.clear()


TABLES = TablePool()
