"""Run the real ``connect4`` command in a subprocess, and watch what it leaves running."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType


def cli_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment ``connect4`` runs in for a test: 100 columns, no colour, UTF-8,
    then ``extra`` (another width, a fake bot's setting)."""
    return {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8",
            **(extra or {})}  # fmt: skip


def run_cli(
    *args: str, stdin: str = "", timeout: float = 120, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``connect4 ARGS`` with ``stdin`` piped in (not a terminal); output captured as text;
    ``env``: variables set beside :func:`cli_env`'s."""
    return subprocess.run(
        [sys.executable, "-m", "connect4", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=cli_env(env),
        check=False,
    )


def interrupt_cli(
    args: Sequence[str],
    ready: Callable[[subprocess.Popen[str]], object],
    *,
    twice: bool = False,
    how: int = signal.SIGINT,
    group: bool = False,
    env: Mapping[str, str] | None = None,
    wait: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``connect4 ARGS`` sent SIGINT (or ``how``) once ``ready(process)`` holds (its sign
    of work, looked for every 50 ms; it must come within ``wait`` seconds, the command
    still running), with ``twice`` a second one right after the first is taken; its
    exit status and output (captured as text), collected within 60 s of the signal.

    The signal goes to the command's process only, as ``kill -INT`` does, or with
    ``group`` to its whole process group, as a terminal's Ctrl-C does; the command
    runs in a session of its own, and every process of that session (its workers,
    their children) must have exited with it. Whatever is left is killed.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "connect4", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(env),
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + wait
        while not ready(process):
            assert process.poll() is None, f"exited {process.returncode} before working"
            assert time.monotonic() < deadline, "never started working"
            time.sleep(0.05)
        send = functools.partial(os.killpg, process.pid) if group else process.send_signal
        send(how)
        if twice:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=0.1)  # the first one taken: two, not one merged
            if process.poll() is None:
                send(how)
        stdout, stderr = process.communicate(timeout=60)
        wait_for(
            lambda: not in_session(process.pid),
            "a worker outlived the interrupted command",
            seconds=10,
        )
    finally:
        if process.poll() is None or in_session(process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the session's group: nothing leaks
            process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def journal_records(path: Path) -> int:
    """How many records the journal of a resumable job (``OUT.partial``) holds now, read
    while the job may be writing it (0 while there is none); never creates the file."""
    if not path.exists() or path.stat().st_size == 0:
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return int(db.execute("SELECT count(*) FROM records").fetchone()[0])
    except sqlite3.Error:  # made under another name and renamed: not there yet, or locked
        return 0


def damage_journal_records(path: Path, rows: list[int], at: int = 0) -> None:
    """Flip a bit in byte ``at`` of the data of the journal's records at these positions
    (0-based, in the order appended), leaving their checksums: what a damaged disk does."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        ids = [row for (row,) in db.execute("SELECT id FROM records ORDER BY id")]
        for index in rows:
            (data,) = db.execute("SELECT data FROM records WHERE id = ?", (ids[index],)).fetchone()
            flipped = data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1 :]
            db.execute("UPDATE records SET data = ? WHERE id = ?", (flipped, ids[index]))
        db.commit()


def children(pid: int) -> set[int]:
    """Every descendant of ``pid`` now (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def in_session(session: int) -> list[int]:
    """The processes alive now in session ``session`` (a command started in a session
    of its own, and its workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if os.getsid(int(entry.name)) == session and alive(int(entry.name)):
                    found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def kill_when_working(
    process: subprocess.Popen[str] | subprocess.Popen[bytes],
    ready: Callable[[], bool],
    *,
    what: str = "the command ended before it could be killed",
    settle: float = 0.0,
    poll: float = 0.1,
    least: int = 0,
) -> set[int]:
    """SIGKILL ``process`` once ``ready()`` holds and it has ``least`` descendants at
    least (within 120 s: a bot that lives for one game comes and goes), then check that every
    worker it had exits within 10 s; returns those workers. Whatever is left (a failed
    check) is killed, so a test never leaks processes. ``settle`` seconds pass between
    the kill and the reaping (a killed parent not yet a zombie: the workers may find it
    exiting)."""
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            workers = children(process.pid)
            if len(workers) >= least and ready():
                break
            time.sleep(poll)
        assert process.poll() is None, what
        process.send_signal(signal.SIGKILL)
        time.sleep(settle)
        process.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(pid) for pid in workers):
            time.sleep(poll)
        assert [pid for pid in workers if alive(pid)] == []
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
            process.wait()
    return workers


def wait_for(condition: Callable[[], object], what: str, seconds: float = 30) -> None:
    """Return once ``condition()`` holds; fail with ``what`` if it does not within ``seconds``
    (a bound for a stuck run, never what decides a pass)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def refused_untouched(args: Sequence[str], path: Path) -> subprocess.CompletedProcess[str]:
    """``connect4 ARGS`` exits 2 and leaves ``path`` as it was, byte for byte."""
    before = path.read_bytes()
    refused = run_cli(*args)
    assert refused.returncode == 2, refused.stderr
    assert path.read_bytes() == before
    return refused


def check_existing_output_refused(
    args: Sequence[str], path: Path, what: str, *, foreign: str | None = None
) -> None:
    """The output policy on a file of the user's at ``path``, which the command writes as
    ``what``: refused untouched, saying so (and how to go on); where the command can
    resume (``foreign``: words its refusal holds), ``--resume`` refuses it untouched too."""
    size = path.stat().st_size
    resume = ", --resume to continue it" if foreign is not None else ""
    assert refused_untouched(args, path).stderr == (
        f"error: cannot write {what} {path}: it already exists ({size:,} bytes); give --force "
        f"to replace it{resume}, or another name\n"
    )
    if foreign is not None:
        assert foreign in refused_untouched([*args, "--resume"], path).stderr


BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def run_benchmark(
    script: str, *args: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``python benchmarks/SCRIPT ARGS`` run from that folder, as its docs run it (its
    sibling modules importable); output captured as text."""
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=BENCHMARKS,
    )


def load_benchmark(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py`` imported as a module (its own folder on the
    path while it loads, as when it runs)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module
