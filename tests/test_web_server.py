"""``connect4 serve`` as a process: its ready line, its stop on Ctrl-C or SIGTERM, the
children that compile big boards' solvers, and whose proxy headers it believes."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from connect4.web.server import BackgroundServer
from tests.cli_helpers import alive, children
from tests.web_helpers import deep_busy, wait_for, web_app

REQUEST_LOG = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ")  # a request's line
SLOW_MOVE = {
    "pos": "",
    "player": "mcts:playouts=100000000",
}  # runs until its tree is full (~2 M playouts)
STEADY_MOVE = {"pos": "", "player": "minimax:depth=30"}  # runs to the time limit


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """A ``connect4 serve`` process and the lines of its stderr as they come."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "connect4", "serve", "--port", str(self.port), *args]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))

    def line_with(self, text: str, timeout: float = 120) -> str:
        """The first stderr line (from here on) that contains ``text``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line with {text!r} in {timeout} s: {self.seen}") from None
            self.seen.append(line)
            if text in line:
                return line

    def rest(self) -> list[str]:
        """Every line after the process ended."""
        self.process.wait(timeout=30)
        self.reader.join(timeout=30)  # it has read the last line
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return self.seen

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def served(*args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    server = Served(*args, env=env)
    try:
        yield server
    finally:
        server.close()


def in_flight(
    server: Served, answers: list[httpx.Response], move: dict[str, str] = SLOW_MOVE
) -> threading.Thread:
    """A slow AI move asked in a thread; returns once the server is working on it."""

    def ask() -> None:
        # (a server stopped at once closes the connection: no answer)
        with contextlib.suppress(httpx.TransportError):
            answers.append(httpx.post(server.url + "/api/move", json=move, timeout=120))

    deadline = time.monotonic() + 60
    while True:  # (it listens once it said so; this waits for a server that said it early)
        try:
            deep_busy(server.url)
            break
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.1)
    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    while deep_busy(server.url) < 1:
        assert time.monotonic() < deadline, "the slow move never started"
        time.sleep(0.02)
    return thread


def test_serve_says_ready_only_when_it_accepts_connections() -> None:
    with served("--threads", "1") as server:
        ready = server.line_with("connect4 web app on ")
        assert httpx.get(server.url + "/api/health", timeout=10).status_code == 200
        assert f"http://127.0.0.1:{server.port}/" in ready
        assert "warming up" in server.seen[0]  # said first, while it was not listening


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_cancels_work_in_flight_and_stops_at_once(stop: signal.Signals) -> None:
    with served("--threads", "1", "--time-limit", "60") as server:
        server.line_with("connect4 web app on ")
        answers: list[httpx.Response] = []
        asking = in_flight(server, answers)
        server.process.send_signal(stop)
        server.process.wait(timeout=60)
        asking.join(timeout=10)
        lines = server.rest()
        assert server.process.returncode == 128 + stop
        # the move was cancelled (run on, it would have answered 200 once its tree filled)
        assert answers and answers[0].status_code == 503
        assert answers[0].json()["error"].startswith("the server is stopping")
        stopping = [line for line in lines if line.startswith("stopping")]
        assert stopping == ["stopping: 1 request cancelled"], lines
        assert not any("Traceback" in line or "Error" in line for line in lines), lines


def test_a_multi_process_server_cancels_work_in_flight_too() -> None:
    # uvicorn's supervisor passes the stop to its workers as SIGTERM; each worker's
    # first signal cancels its requests' work before uvicorn waits for their answers
    with served("--workers", "2", "--threads", "1", "--time-limit", "60") as server:
        server.line_with("connect4 web app on ")
        answers: list[httpx.Response] = []
        asking = in_flight(server, answers, move=STEADY_MOVE)
        server.process.send_signal(signal.SIGINT)
        server.process.wait(timeout=90)
        asking.join(timeout=10)
        lines = server.rest()
        # cancelled (waited out, the move's 60 s limit would have answered "time limit")
        assert answers and answers[0].status_code == 503, lines
        assert answers[0].json()["error"].startswith("the server is stopping")


def test_a_second_ctrl_c_stops_at_once_without_a_traceback() -> None:
    with served("--threads", "1", "--time-limit", "60") as server:
        server.line_with("connect4 web app on ")
        answers: list[httpx.Response] = []
        in_flight(server, answers)
        server.process.send_signal(signal.SIGINT)
        server.process.send_signal(signal.SIGINT)
        server.process.wait(timeout=60)
        lines = server.rest()
        assert server.process.returncode == 130
        assert not any("Traceback" in line for line in lines), lines
        said = [line for line in lines if not REQUEST_LOG.match(line)]
        assert len(said) <= 4, said  # warming up, ready, stopping, stopped at once


def test_compile_children_end_with_a_killed_server(tmp_path: Path) -> None:
    # An empty cache: the server starts a child per big board (8x8, 9x7, 10x6) to
    # compile its solver. Killed, the server takes them with it.
    cold = {"CONNECT4_CACHE_DIR": str(tmp_path / "cache")}
    with served("--threads", "1", env=cold) as server:
        deadline = time.monotonic() + 120
        compiling: set[int] = set()
        while len(compiling) < 3:
            assert server.process.poll() is None and time.monotonic() < deadline, server.seen
            compiling = children(server.process.pid)
            time.sleep(0.1)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in compiling) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [pid for pid in compiling if alive(pid)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == []


def deep_move(url: str, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(url + "/api/move", json=SLOW_MOVE, headers=headers, timeout=30)


@pytest.mark.parametrize(("trusted", "status"), [("", 503), ("127.0.0.1", 200)])
def test_forwarded_for_is_believed_only_from_a_named_proxy(trusted: str, status: int) -> None:
    app = web_app(threads=2, time_limit=3.0, warm_up=False)
    proxies = {"forwarded_allow_ips": trusted} if trusted else {}  # "": the default
    with BackgroundServer(app, **proxies) as live:
        first: list[httpx.Response] = []
        hold = threading.Thread(target=lambda: first.append(deep_move(live.url, {})))
        hold.start()
        wait_for(lambda: deep_busy(live.url) >= 1, "the first move never reached the deep lane")
        # The same peer says it forwards another client: without a trusted proxy it is
        # still the same client (its one deep job runs), with one it is 1.2.3.4.
        other = deep_move(live.url, {"X-Forwarded-For": "1.2.3.4"})
        hold.join()
        assert other.status_code == status, other.text
        if status == 503:
            assert other.json()["error"].startswith("this client already has 1 deep job")
