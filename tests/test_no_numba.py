"""With the native kernel cached, `play`, `bench` and `arena` never import numba, and
`serve` solves through the native kernel (its warm-up loads numba for the compiled
alpha-beta and MCTS players, in the background).

Each command runs as a subprocess with ``PYTHONPROFILEIMPORTTIME`` (``-X importtime``,
inherited by worker processes), and its import log must not name numba.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from connect4.solver import backend


@pytest.fixture(scope="module", autouse=True)
def warm_cache() -> None:
    """The native kernel file exists (this process writes it if numba had to run)."""
    if os.environ.get("CONNECT4_NATIVE") == "0":
        pytest.skip("the native kernel is turned off")
    backend.warm_up()


def imported(stderr: str) -> set[str]:
    """Module names from ``-X importtime`` output."""
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if "|" in line}


def run_connect4(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "connect4", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
        timeout=600,
        check=False,
    )


def test_play_against_perfect_imports_no_numba() -> None:
    result = run_connect4("play", "--red", "perfect", "--yellow", "random", "--seed", "1", "--json")
    assert result.returncode == 0, result.stderr[-2000:]
    assert '"moves": "474731512"' in result.stdout
    modules = imported(result.stderr)
    assert "connect4.solver.native" in modules  # the solver ran
    assert "numba" not in modules


def test_bench_imports_no_numba() -> None:
    result = run_connect4("bench", "End-Easy", "--limit", "20")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "n=20 correct=20" in result.stdout
    assert "numba" not in imported(result.stderr)


def test_arena_with_the_accuracy_judge_imports_no_numba() -> None:
    result = run_connect4(
        "arena", "-p", "perfect", "-p", "random", "--games-per-pair", "2", "--json"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    modules = imported(result.stderr)
    assert "connect4.solver.native" in modules
    assert "numba" not in modules


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_serve_solves_on_the_native_kernel(tmp_path: Path) -> None:
    port = free_port()
    # The import log goes to a file: a pipe nobody reads fills (64 KB) and the server
    # blocks in its imports before it listens.
    log = (tmp_path / "stderr.txt").open("w+")
    server = subprocess.Popen(
        [sys.executable, "-m", "connect4", "serve", "--port", str(port), "--threads", "1"],
        stdout=subprocess.DEVNULL,
        stderr=log,
        text=True,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "/api/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        with urllib.request.urlopen(url + "/solve?pos=44455554221", timeout=60) as response:
            body = response.read().decode()
        assert body == '{"pos":"44455554221","score":[-15,-15,-15,-15,-15,-15,-15]}'
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
        log.seek(0)
        stderr = log.read()
        log.close()
    modules = imported(stderr)
    assert "connect4.solver.native" in modules  # /solve ran on the native kernel
