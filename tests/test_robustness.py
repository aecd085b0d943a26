"""A hostile user's checks, each through the real command or a real server: what a
killed, interrupted or misused ``connect4`` must leave behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_files import alive, children


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_an_arena_killed_at_any_moment_leaves_no_temporary_folder(tmp_path: Path) -> None:
    """A worker sees the killed arena's pipe close while the arena is still exiting
    (not yet a zombie); it used to take the arena for alive and leave its cleaning
    undone (about one kill in two left /tmp/pymp-* and leaked semaphores)."""
    args = ["arena", "-p", "alphabeta:depth=8", "-p", "alphabeta:depth=7",
            "--games-per-pair", "2000", "--workers", "2"]  # fmt: skip
    for round_, games in enumerate((1, 3, 6, 10)):
        folder = tmp_path / str(round_)
        folder.mkdir()
        results, stderr = folder / "r.jsonl", folder / "stderr"
        with stderr.open("w") as err:
            process = subprocess.Popen(
                [sys.executable, "-m", "connect4", *args, "--results", str(results)],
                stdout=subprocess.DEVNULL,
                stderr=err,
                env={**os.environ, "TMPDIR": str(folder)},
                start_new_session=True,  # as a shell's background job
            )
        workers: set[int] = set()
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                workers = children(process.pid)
                if results.exists() and len(results.read_bytes().splitlines()) >= games:
                    break
                time.sleep(0.05)
            assert process.poll() is None, "the tournament ended before it could be killed"
            process.send_signal(signal.SIGKILL)
            time.sleep(0.2)  # not reaped at once: the workers may find it a zombie or exiting
            process.wait()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(alive(pid) for pid in workers):
                time.sleep(0.05)
            assert [pid for pid in workers if alive(pid)] == []
        finally:
            for pid in workers:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            if process.poll() is None:
                process.kill()
                process.wait()
        time.sleep(0.5)  # the resource tracker's last words
        assert list(folder.glob("pymp-*")) == [], f"round {round_}: the folder was left"
        assert "leaked" not in stderr.read_text(), f"round {round_}: semaphores leaked"
