"""Run the real ``connect4`` command in a subprocess, and watch what it leaves running."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def run_cli(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``connect4 ARGS`` with ``stdin`` piped in (not a terminal); output captured as text."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "connect4", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


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
) -> set[int]:
    """SIGKILL ``process`` once ``ready()`` holds (within 120 s), then check that every
    worker it had exits within 10 s; returns those workers. Whatever is left (a failed
    check) is killed, so a test never leaks processes. ``settle`` seconds pass between
    the kill and the reaping (a killed parent not yet a zombie: the workers may find it
    exiting)."""
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            workers = children(process.pid)
            if ready():
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
