"""The web's settings as one object (built by ``connect4 serve``, carried to worker
processes as JSON) and its two worker pools: quick threads and deep threads at a
lower priority, where every job runs once."""

from __future__ import annotations

import asyncio
import doctest
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from connect4.core.limits import Limit
from connect4.web import api, settings
from connect4.web.settings import Settings, SettingsError
from tests.web_helpers import wait_for


def test_docstring_examples() -> None:
    assert doctest.testmod(settings, optionflags=doctest.ELLIPSIS).failed == 0


def test_settings_come_back_whole_from_their_json() -> None:
    chosen = Settings(
        threads=3, queue=7, time_limit=2.5, quick_nodes=1000, cache_size=0, warm_up=False,
        deep_threads=1, quick_threads=4, board_sizes=((7, 6), (4, 4)), deep_per_client=0,
    )  # fmt: skip
    assert Settings.from_json(chosen.to_json()) == chosen
    assert Settings.from_json("{}") == Settings()


BAD_JSON = [
    ('{"threads": 0}', "bad web settings: threads: must be at least 1, not 0"),
    ('{"thread": 1}', "bad web settings: thread: Unexpected keyword argument"),
    ('{"threads": 2.0}', "bad web settings: threads: Input should be a valid integer"),
    ('{"warm_up": 1}', "bad web settings: warm_up: Input should be a valid boolean"),
    ('{"time_limit": -1}', "bad web settings: time limit: must be a positive number"),
    ('{"board_sizes": [[7]]}', "bad web settings: board_sizes.0.1: Field required"),
    ("[]", "bad web settings: Input should be an object"),
    ("threads=2", "bad web settings: Invalid JSON"),
]


@pytest.mark.parametrize(("text", "message"), BAD_JSON)
def test_bad_settings_json_is_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_json(text)
    said = str(caught.value)
    assert said.startswith(message), said
    assert "\n" not in said


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"queue": -1}, "queue: must be at least 0, not -1"),
        ({"deep_threads": 0}, "deep threads: must be at least 1, not 0"),
        ({"time_limit": float("nan")}, "time limit: must be a positive number of seconds, not nan"),
        ({"board_sizes": ()}, "board sizes: must name at least one board size"),
    ],
)
def test_settings_out_of_range_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError, match="^" + message):
        Settings(**changes)  # type: ignore[arg-type]


def test_a_multi_process_server_works_by_the_settings_given() -> None:
    # Each worker process reads the settings back from their JSON (uvicorn starts its
    # app by name): its lanes and its limits are the command line's, not the defaults.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "connect4", "serve", "--port", str(port), "--workers",
               "2", "--threads", "1", "--queue", "3", "--time-limit", "7"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        try:
            return httpx.get(url + "/api/health", timeout=5).status_code == 200
        except httpx.TransportError:
            return process.poll() is not None  # it ended: the asserts below say why

    try:
        wait_for(answers, "the server never answered", seconds=300)
        assert process.poll() is None
        pools = httpx.get(url + "/api/health", timeout=10).json()["pools"]
        limits = httpx.get(url + "/api/info", timeout=10).json()["limits"]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    shapes = [(pool["name"], pool["workers"], pool["capacity"]) for pool in pools]
    assert shapes == [("quick", 3, 6), ("deep", 1, 4)]
    assert limits["request_seconds"] == 7


def test_deep_work_runs_once_even_when_it_gets_no_cpu_for_a_while() -> None:
    # A job that runs without CPU (asleep) for longer than the old lanes judged a job
    # "starved" (0.5 s): it is not stopped and searched again elsewhere, it finishes.
    calls: list[str] = []

    def work(limit: Limit) -> str:
        calls.append(threading.current_thread().name)
        time.sleep(1.0)
        return "done"

    async def scenario() -> str:
        lanes = api.Api(Settings(threads=1, warm_up=False))
        try:
            request = Limit.within(30.0)
            return await lanes.run_deep(0.0, work, lanes.working(request), request, None)
        finally:
            lanes.stop()

    assert asyncio.run(scenario()) == "done"
    assert calls == ["connect4-deep-0"]


@pytest.mark.skipif(not hasattr(os, "sched_getscheduler"), reason="Linux thread priorities")
def test_deep_threads_run_at_a_lower_priority_under_the_normal_policy() -> None:
    # Nice +10 (the quick lane +3), never SCHED_IDLE: under SCHED_IDLE deep work got no
    # CPU at all while other programs kept every core busy.
    def priority() -> tuple[int, int]:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id()), os.sched_getscheduler(0)

    async def scenario() -> tuple[tuple[int, int], tuple[int, int]]:
        lanes = api.Api(Settings(threads=1, warm_up=False))
        try:
            quick = await lanes.quick.run(lanes.limit(), priority)
            return quick, await lanes.deep.run(lanes.limit(), priority)
        finally:
            lanes.stop()

    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    quick, deep = asyncio.run(scenario())
    assert quick == (min(19, base + api.QUICK_NICE), os.SCHED_OTHER)
    assert deep == (min(19, base + api.DEEP_NICE), os.SCHED_OTHER)
