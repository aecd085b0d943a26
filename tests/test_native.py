"""The native kernel (numba's code loaded without numba): build and load, the same
scores, nodes and limits as numba's kernel, damaged or stale files ignored, and a
``connect4 solve`` that never imports numba."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from connect4.core.position import Position
from connect4.solver import Solver, backend, native
from connect4.solver.backend import numba_kernel as _kernel
from connect4.solver.bench import pons_path
from connect4.solver.entries import ENTRY_POINTS
from connect4.solver.layout import (
    ABORT,
    LIMIT,
    NODES,
    T_STOP,
    kernel_name,
    new_memory,
    new_table,
    next_generation,
)
from tests.test_solver import random_position
from tests.test_solver_threads import NO_BOOK


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's cache root. numba's 7x6 kernel is made first, from the run's own
    cache root (compiled there by ``connect4 prepare``), and kept by this process: made
    under a new root, its generated module would be a new file to numba's cache, and
    the whole search would compile again (about 40 s)."""
    _kernel()
    return tmp_path_factory.mktemp("native-cache")


@pytest.fixture
def in_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CONNECT4_CACHE_DIR", str(cache_dir))
    monkeypatch.delenv("CONNECT4_NATIVE", raising=False)
    return cache_dir


@pytest.fixture
def built(in_cache: Path) -> native.NativeKernel:
    """A native kernel built into the test's own cache directory and loaded back."""
    path = native.build(_kernel(), [in_cache])
    assert path.parent == in_cache
    loaded = native.load([in_cache])
    assert loaded is not None
    assert loaded.path == path
    return loaded


def memory(width: int, height: int, nbytes: int) -> tuple[np.ndarray, np.ndarray]:
    """A search thread's memory and a table (the kernel's first two arguments)."""
    return new_memory(width, height), new_table(width, height, nbytes)


def fresh(search: tuple[np.ndarray, np.ndarray], limit: int = 1 << 62) -> None:
    mem, table = search
    next_generation(table)
    mem[NODES] = 0
    mem[ABORT] = 0
    mem[LIMIT] = limit


def test_same_scores_and_nodes_as_numba_on_pons_positions(built: native.NativeKernel) -> None:
    kernel = backend.NumbaBackend(_kernel())
    lines = pons_path("Test_L2_R1").read_text().splitlines()[::10]
    mem_native = memory(7, 6, 1 << 20)
    mem_numba = memory(7, 6, 1 << 20)
    for line in lines:
        moves, expected = line.split()
        p = Position.from_moves(moves)
        fresh(mem_native)
        fresh(mem_numba)
        ours = built.solve(*mem_native, *NO_BOOK, p.current, p.mask, p.ply, False)
        theirs = kernel.solve(*mem_numba, *NO_BOOK, p.current, p.mask, p.ply, False)
        assert ours == theirs == int(expected), moves
        assert mem_native[0][NODES] == mem_numba[0][NODES], moves


@pytest.mark.parametrize(("width", "height"), [(4, 4), (5, 4), (6, 5), (7, 6)])
def test_analyze_and_weak_agree_with_numba_on_any_board(
    in_cache: Path, width: int, height: int
) -> None:
    board = kernel_name(width, height)
    native.build(_kernel(board), [in_cache], board)
    built = native.load([in_cache], board)
    assert built is not None and built.board == board
    kernel = backend.NumbaBackend(_kernel(board), board)
    rng = random.Random(width * 100 + height)
    mem_native = memory(width, height, 1 << 18)
    mem_numba = memory(width, height, 1 << 18)
    checked = 0
    while checked < 25:
        size = width * height
        p = random_position(rng, width, height, rng.randrange(size // 2, size - 1))
        if p is None:
            continue
        for weak in (False, True):
            out_native = np.zeros(width, np.int64)
            out_numba = np.zeros(width, np.int64)
            fresh(mem_native)
            fresh(mem_numba)
            built.analyze(*mem_native, *NO_BOOK, p.current, p.mask, p.ply, weak, out_native)
            kernel.analyze(*mem_numba, *NO_BOOK, p.current, p.mask, p.ply, weak, out_numba)
            assert out_native.tolist() == out_numba.tolist(), (p.moves, weak)
        checked += 1


def test_node_limit_aborts_like_numba(built: native.NativeKernel) -> None:
    kernel = backend.NumbaBackend(_kernel())
    p = Position.from_moves("4")
    mem_native = memory(7, 6, 1 << 20)
    mem_numba = memory(7, 6, 1 << 20)
    fresh(mem_native, limit=5000)
    fresh(mem_numba, limit=5000)
    out_native = np.zeros(7, np.int64)
    out_numba = np.zeros(7, np.int64)
    built.analyze(*mem_native, *NO_BOOK, p.current, p.mask, p.ply, False, out_native)
    kernel.analyze(*mem_numba, *NO_BOOK, p.current, p.mask, p.ply, False, out_numba)
    assert mem_native[0][ABORT] == mem_numba[0][ABORT] == 1
    assert mem_native[0][NODES] == mem_numba[0][NODES]
    assert out_native.tolist() == out_numba.tolist()


def test_a_damaged_file_is_not_loaded(built: native.NativeKernel) -> None:
    data = bytearray(built.path.read_bytes())
    try:
        data[-100] ^= 0xFF  # one flipped byte of machine code
        built.path.write_bytes(bytes(data))
        assert native.load([built.path.parent]) is None
        built.path.write_bytes(b"not a native kernel")
        assert native.load([built.path.parent]) is None
    finally:
        built.path.unlink()


def test_a_changed_code_generation_setting_needs_a_new_file(
    built: native.NativeKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_OPT", "1")
    assert native.load([built.path.parent]) is None
    monkeypatch.delenv("NUMBA_OPT")
    assert native.load([built.path.parent]) is not None


def test_connect4_native_0_turns_it_off(
    built: native.NativeKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONNECT4_NATIVE", "0")
    assert not native.enabled()
    assert native.load([built.path.parent]) is None


def test_an_unwritable_cache_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("CONNECT4_CACHE_DIR", str(blocker / "cache"))
    with pytest.raises(OSError, match="cannot write the native kernel"):
        native.build(_kernel(), [blocker / "cache"])


def run_solve(env: dict[str, str], lines: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        input=lines,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )


SOLVE_AND_REPORT_NUMBA = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('numba imported' if 'numba' in sys.modules else 'no numba',"
    " file=sys.stderr))\n"
    "sys.argv = ['connect4', 'solve', '-a']\n"
    "from connect4.cli import main\n"
    "main()\n"
)


def test_connect4_solve_runs_without_numba_once_the_file_exists(
    built: native.NativeKernel, in_cache: Path
) -> None:
    run_solve({}, "", SOLVE_AND_REPORT_NUMBA)  # translates the published 7x6 book into the cache
    result = run_solve({}, "44455554221\n4455\n", SOLVE_AND_REPORT_NUMBA)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "44455554221 -15 -15 -15 -15 -15 -15 -15",
        "4455 -4 -3 18 2 2 18 -3",
    ]
    assert result.stderr.strip() == "no numba"


def test_connect4_solve_builds_the_file_when_missing(tmp_path: Path) -> None:
    """The first ``connect4 solve`` writes the native kernel, the next one runs without
    numba. On 6x5, the kernel of the other sizes: the 7x6 kernel's module is generated
    under the cache root, so under this new root the whole search would compile again
    (30-40 s; ``make test``'s ``connect4 prepare`` does that cold 7x6 build first)."""
    env = {"CONNECT4_CACHE_DIR": str(tmp_path)}
    code = SOLVE_AND_REPORT_NUMBA.replace("'-a'", "'-a', '--width', '6', '--height', '5'")
    assert code != SOLVE_AND_REPORT_NUMBA
    first = run_solve(env, "4455\n", code)
    assert first.returncode == 0, first.stderr
    assert first.stderr.strip().splitlines()[-1] == "numba imported"
    assert [p.name.startswith("kernel-any-") for p in tmp_path.glob("kernel-*.native")] == [True]
    second = run_solve(env, "4455\n", code)
    assert second.stdout == first.stdout == "4455 -2 0 12 0 0 -2\n"
    assert second.stderr.strip() == "no numba"


def test_solver_falls_back_to_numba_when_the_native_kernel_fails(
    in_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken_load(directories: object, board: str = "7x6") -> native.NativeKernel | None:
        raise RuntimeError("no MCJIT here")

    def broken_build(kernel: object, directories: object, board: str = "7x6") -> Path:
        raise OSError("read-only")

    monkeypatch.setattr(backend, "_chosen", {})
    monkeypatch.setattr(native, "load", broken_load)
    monkeypatch.setattr(native, "build", broken_build)
    assert Solver(4, 4).solve(Position(4, 4)) == 0
    chosen = backend.active_backend(4, 4)
    assert isinstance(chosen, backend.NumbaBackend) and chosen.kernel is _kernel()
    assert chosen.board == "any"
    err = capsys.readouterr().err
    assert "connect4: native solver kernel not loaded (no MCJIT here)" in err
    assert "connect4: native solver kernel not cached (read-only)" in err


def test_probe_and_batch_agree_with_numba(built: native.NativeKernel) -> None:
    numba = backend.NumbaBackend(_kernel())
    lines = pons_path("Test_L2_R1").read_text().splitlines()[:40]
    positions = [Position.from_moves(line.split()[0]) for line in lines]
    found = []
    for kernel in (built, numba):
        mem = memory(7, 6, 1 << 20)
        probes = []
        for p in positions[:10]:
            fresh(mem)
            probes.append(
                (kernel.probe(*mem, *NO_BOOK, p.current, p.mask, p.ply, 0, 1), int(mem[0][NODES]))
            )
        n = len(positions)
        arrays = [
            np.array([p.current for p in positions], np.int64),
            np.array([p.mask for p in positions], np.int64),
            np.array([p.ply for p in positions], np.int64),
        ]
        scores, nodes, ticks = np.zeros(n, np.int64), np.zeros(n, np.uint64), np.zeros(n, np.uint64)
        kernel.batch(*mem, *NO_BOOK, *arrays, False, True, scores, nodes, ticks)
        found.append((probes, scores.tolist(), nodes.tolist()))
    assert found[0] == found[1]
    assert found[0][1] == [int(line.split()[1]) for line in lines]


def test_a_shared_cache_directory_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    path = native.build(_kernel(), [shared])
    shared.chmod(0o777)  # anyone could have replaced the code
    assert native.private_dirs([shared]) == ([], [f"{shared} is writable by group or others"])
    assert native.load([]) is None
    monkeypatch.setenv("CONNECT4_CACHE_DIR", str(shared))
    monkeypatch.setattr(backend, "_chosen", {})
    monkeypatch.setattr(native, "build", lambda *args: pytest.fail("wrote to a shared directory"))
    assert isinstance(backend.active_backend(), backend.NumbaBackend)
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"connect4: not using the solver's kernel cache: {shared} is writable by group or "
        "others; numba runs the kernel (set CONNECT4_CACHE_DIR to a directory only you can write)"
    ]
    shared.chmod(0o700)
    path.chmod(0o666)  # a private directory, but a file others may write
    assert native.load([shared]) is None


def test_writing_a_kernel_cleans_old_kernels_and_dead_writers_files(tmp_path: Path) -> None:
    other_version = tmp_path / ("kernel-" + "0" * 32 + ".native")
    other_version.write_bytes(b"code of another source")
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    killed = tmp_path / f".kernel-{'1' * 32}.native.{int(dead.stdout)}"
    killed.write_bytes(b"half a file")
    writing = tmp_path / f".kernel-{'2' * 32}.native.{os.getpid()}"  # a live writer
    writing.write_bytes(b"being written")
    unrelated = tmp_path / "notes.txt"
    unrelated.write_text("keep me")
    same_kernel = tmp_path / ("kernel-7x6-" + "3" * 32 + ".native")
    same_kernel.write_bytes(b"an older 7x6 kernel")
    other_kernel = tmp_path / ("kernel-any-" + "3" * 32 + ".native")  # another board family's
    other_kernel.write_bytes(b"the kernel of the other sizes")
    path = native.build(_kernel(), [tmp_path])
    assert path.name.startswith("kernel-7x6-")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [path.name, writing.name, unrelated.name, other_kernel.name]
    )


STALE_LAYOUT_CHECK = (
    "import sys\n"
    "from connect4.core.position import Position\n"
    "from connect4.solver import Solver, backend, layout\n"
    "solver = Solver(7, 6, 16)\n"
    "result = solver.run(Position.from_moves('5554224333234511764415115'))\n"
    "kernel = backend.active_backend()\n"
    "version = kernel.version()\n"
    "print(result.score, result.nodes, kernel.name, version == layout.LAYOUT_VERSION)\n"
)


@pytest.mark.slow
def test_an_edited_layout_never_runs_with_old_offsets(tmp_path: Path) -> None:
    """A copy of the package, its numba cache warm, then layout.py edited (two
    header slots swapped) without touching kernel.py: the stale code is dropped,
    recompiled and cached again, and the scores and node counts stay right."""
    import shutil

    import connect4

    package = Path(connect4.__file__).parent
    copy = tmp_path / "src" / "connect4"
    shutil.copytree(package, copy, copy_function=shutil.copy2)  # keeps numba's cache stamps
    env = {"PYTHONPATH": str(tmp_path / "src"), "CONNECT4_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> list[str]:
        done = run_solve(env, "", STALE_LAYOUT_CHECK)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    expected = Solver(7, 6, 16).run(Position.from_moves("5554224333234511764415115"))
    assert run() == [str(expected.score), str(expected.nodes), "numba", "True"]
    assert run() == [str(expected.score), str(expected.nodes), "native", "True"]
    layout = copy / "solver" / "layout.py"
    text = layout.read_text()
    assert "NODES = 6  #" in text and "LIMIT = 7  #" in text
    layout.write_text(
        text.replace("NODES = 6  #", "NODES = 7  #").replace("LIMIT = 7  #", "LIMIT = 6  #")
    )
    assert run() == [str(expected.score), str(expected.nodes), "numba", "True"]
    assert run() == [str(expected.score), str(expected.nodes), "native", "True"]
    assert len(list((tmp_path / "cache").glob("kernel-*.native"))) == 1


def test_a_native_file_of_another_layout_is_refused(
    built: native.NativeKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(native, "LAYOUT_VERSION", native.LAYOUT_VERSION + 1)
    with pytest.raises(native.StaleKernel, match="was compiled for memory layout"):
        native.load([built.path.parent])


# ------------------------------------------------------------------ entry points
def both_backends(built: native.NativeKernel) -> list[backend.Backend]:
    return [built, backend.NumbaBackend(_kernel())]


def test_a_search_in_a_thread_stops_at_the_stop_flag(
    built: native.NativeKernel,
) -> None:
    """Each backend runs outside the GIL (this thread sees the node counter move
    while the other searches) and stops at ``table[T_STOP]``, set from here."""
    p = Position.from_moves("13712")  # tens of millions of nodes without the book
    for kernel in both_backends(built):
        mem, table = memory(7, 6, 16 << 20)
        worker = threading.Thread(
            target=kernel.solve, args=(mem, table, *NO_BOOK, p.current, p.mask, p.ply, False)
        )
        worker.start()
        seen = set()
        while len(seen) < 3 and worker.is_alive():
            seen.add(int(mem[NODES]))
            time.sleep(0.01)
        assert worker.is_alive(), kernel.name
        table[T_STOP] = 1
        worker.join(timeout=120)  # (run on, it would take minutes; bench_stop times it)
        assert not worker.is_alive() and mem[ABORT] == 1, kernel.name
        assert len(seen) >= 3, kernel.name


def test_the_cache_key_covers_the_entry_points_description() -> None:
    llvm = native._llvm()
    before = native.cache_key(llvm)
    index = [p.name for p in ENTRY_POINTS].index("probe")
    probe = ENTRY_POINTS[index]
    ENTRY_POINTS[index] = probe._replace(params=probe.params[:-1])  # one argument fewer
    try:
        assert native.cache_key(llvm) != before
    finally:
        ENTRY_POINTS[index] = probe
    assert native.cache_key(llvm) == before


def test_every_entry_point_is_made_from_its_description() -> None:
    kernel = _kernel()
    assert [p.name for p in ENTRY_POINTS] == ["version", "solve", "analyze", "probe", "batch"]
    for point in ENTRY_POINTS:
        for board in ("7x6", "any"):
            assert set(kernel.board_kernel(board).native) == {p.name for p in ENTRY_POINTS}
        raw = getattr(kernel, point.function).py_func
        assert len(point.params) == raw.__code__.co_argcount, point.name
        method = getattr(backend.Backend, point.name)
        python = [p.name for p in point.params if not p.measures]
        assert method.__code__.co_varnames[1 : 1 + len(python)] == tuple(python)


def test_bad_arrays_are_refused_before_the_kernel_runs(built: native.NativeKernel) -> None:
    p = Position.from_moves("4455")
    for kernel in both_backends(built):
        mem, table = memory(7, 6, 1 << 16)
        with pytest.raises(ValueError, match="table must be a contiguous uint64 array"):
            kernel.solve(mem, table.astype(np.int64), *NO_BOOK, p.current, p.mask, p.ply, False)
        with pytest.raises(ValueError, match="out must be a contiguous int64 array"):
            out = np.zeros(14, np.int64)[::2]
            kernel.analyze(mem, table, *NO_BOOK, p.current, p.mask, p.ply, False, out)
        keys = np.zeros(3, np.uint64)
        with pytest.raises(ValueError, match="book_values and book_keys must have the same"):
            kernel.probe(mem, table, keys, np.zeros(2, np.int8), p.current, p.mask, p.ply, 0, 1)
        one, two = np.zeros(1, np.int64), np.zeros(2, np.int64)
        words = np.zeros(1, np.uint64)
        with pytest.raises(ValueError, match="plies and currents must have the same length"):
            kernel.batch(mem, table, *NO_BOOK, one, one, two, False, True, one, words, words)
        assert kernel.solve(mem, table, *NO_BOOK, p.current, p.mask, p.ply, False) == 18


def test_the_7x6_kernel_refuses_another_boards_memory(built: native.NativeKernel) -> None:
    """The 7x6 kernel has the board compiled in: another board's memory would be read
    out of bounds, so both backends refuse it before the kernel runs."""
    p = Position.from_moves("1122", 5, 4)
    for kernel in (built, backend.NumbaBackend(_kernel())):
        with pytest.raises(ValueError, match="7x6 kernel cannot search a 5x4 board"):
            kernel.solve(*memory(5, 4, 1 << 16), *NO_BOOK, p.current, p.mask, p.ply, False)
    assert backend.backend_for(5, 4).solve(
        *memory(5, 4, 1 << 16), *NO_BOOK, p.current, p.mask, p.ply, False
    ) == Solver(5, 4).solve(p)


LOCK_AND_WRITE = """
import fcntl, os, shutil, sys, time
lock = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(lock, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(1.5)
shutil.copy(sys.argv[2], sys.argv[3])  # the compiled kernel, written while locked
"""


def test_a_process_waits_for_anothers_compile_and_loads_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """While another process holds the compile lock, the solver waits for it (one line
    on stderr) and loads the kernel file it wrote instead of compiling its own."""
    prebuilt = native.build(_kernel(), [tmp_path / "elsewhere"])
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("CONNECT4_CACHE_DIR", str(cache))
    monkeypatch.delenv("CONNECT4_NATIVE", raising=False)
    monkeypatch.setattr(backend, "_chosen", {})
    monkeypatch.setattr(backend, "numba_kernel", lambda board: pytest.fail("compiled again"))
    other = subprocess.Popen(
        [
            sys.executable,
            "-c",
            LOCK_AND_WRITE,
            str(cache / "kernel-7x6.lock"),
            str(prebuilt),
            str(cache / prebuilt.name),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None and other.stdout.readline() == "locked\n"
        assert backend.compile_pending(7, 6)
        assert not backend.compile_pending(9, 5)  # another kernel's lock
        chosen = backend.active_backend(7, 6)
    finally:
        other.wait()
    assert isinstance(chosen, native.NativeKernel) and chosen.path == cache / prebuilt.name
    assert not backend.compile_pending(7, 6)
    assert capsys.readouterr().err == (
        "connect4: another connect4 process is compiling the solver; waiting for it...\n"
    )


def test_compile_in_background_starts_a_child_only_when_the_kernel_is_missing(
    built: native.NativeKernel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached kernel is loaded, not compiled again; a missing one is compiled by a
    child process that holds the lock, which a search then waits for. (The missing one
    is the kernel of the other sizes, 6x5's: the 7x6 kernel's module is generated under
    the cache root, so under a new root its child would compile the whole search anew,
    30-40 s; the cold 7x6 build is tested through ``connect4 solve`` above.)"""
    monkeypatch.setattr(backend, "_chosen", {})
    monkeypatch.setattr(backend, "_background", {})
    assert backend.compile_in_background(7, 6) is False  # the file is there: loaded
    assert isinstance(backend.active_backend(7, 6), native.NativeKernel)
    cache = tmp_path / "cold"
    monkeypatch.setenv("CONNECT4_CACHE_DIR", str(cache))
    monkeypatch.setattr(backend, "_chosen", {})
    assert backend.compile_in_background(6, 5) is True
    assert backend.compile_in_background(6, 5) is True  # one child, not two
    assert backend.compile_in_background(5, 4) is True  # the same kernel: the same child
    assert len(backend.background_compiles()) == 1
    assert backend.compile_pending(6, 5)
    backend.wait_for_compile(6, 5)
    assert backend.background_compiles() == [] and not backend.compile_pending(6, 5)
    assert [p.name.startswith("kernel-any-") for p in cache.glob("*.native")] == [True]
    assert isinstance(backend.active_backend(6, 5), native.NativeKernel)


@pytest.mark.parametrize("source", ["core/bits.py", "core/compiler.py", "solver/windows.py"])
def test_the_layout_version_covers_every_source_the_kernel_compiles_in(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """numba's cache of the kernel sees only kernel.py: an edit of a file whose code it
    compiles in (the bitboard helpers, the intrinsics, the root's windows) must change
    the layout version, or stale code would run."""
    from connect4.solver import layout

    before = layout._version()
    edited = (Path(layout.__file__).parents[1] / source).resolve()
    read = Path.read_bytes

    def read_bytes(path: Path) -> bytes:
        data = read(path)
        return data + b"\n# edited\n" if path.resolve() == edited else data

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert layout._version() != before
