"""Fuzz the web server: N passes of one fixed, seeded list of hostile HTTP requests.

Starts ``connect4 serve`` on a free 127.0.0.1 port (or uses ``--url``), builds
``--requests`` requests from ``--seed`` (odd and random board sizes, bad and
random positions, long strings, bad player specs, malformed and oversized
bodies, odd methods, Range and CORS headers, malformed HTTP), then sends the
same list ``--passes`` times (``--fresh``: a new list each pass) over raw
sockets, ``--clients`` at a time, each request sent whole before its answer is
read. After each pass it prints the
answers by outcome and the server's resident memory::

    .venv/bin/python benchmarks/fuzz_web.py --passes 3

Outcomes: HTTP status codes; ``reset`` (the connection was reset or closed
before a full answer); ``timeout``; ``non-JSON error`` (status >= 400 without a
JSON ``{"error": ...}`` body); ``500s`` (5xx other than 503). Requests the
HTTP layer rejects before the app sees them (a malformed request line) are
counted on their own line, ``http-layer``. Only 127.0.0.1 is contacted.

``--starvation`` runs the starvation pass instead: hostile AI moves in flight
at once, each from its own client address (127.0.0.10, .11, ...: all of 127/8
is this machine), beside cheap probes (``/api/health``, ``/solve?pos=4455``) in
a loop. It prints the probes' p50/p99, each hostile request's status and
time, one more hostile request from a busy client (refused at once), and the
server's CPU use after the last answer (``/proc/PID/stat``: time to idle),
with the load average. Targets: probes' p99 <= 100 ms and none failing, every
hostile request answered (200, or 503 with no move at all) within the request
limit (+ :data:`ANSWER_SLACK` for the client's own side), the busy client's
extra request refused within a second, the server idle within 1 s. Each missed
target is printed and the exit status is 1::

    .venv/bin/python benchmarks/fuzz_web.py --starvation

A fuzzing pass exits 1 likewise when an answer timed out, was a 5xx other than
503 or an error without a JSON body.

``--stopping`` runs the stopping passes instead, each on a server of its own:
*proxy headers* (a client with a deep job in flight sends more with forged
``X-Forwarded-For``, ``Forwarded`` and ``X-Real-IP`` headers: each refused at
once as the same client; with ``--forwarded-allow-ips 127.0.0.1`` the forwarded
address is another client, answered 200); *Ctrl-C with work in flight* (slow AI
moves from three addresses, then SIGINT, SIGTERM, or SIGINT twice: every client
answered 503 "the server is stopping", the server gone within
:data:`STOP_SECONDS`, one ``stopping:`` line and no traceback; after a second
Ctrl-C at once, the clients may see the connection close); and a *cold-cache
shutdown* (an empty ``CONNECT4_CACHE_DIR``: the server starts three children
that compile the big boards' solvers; SIGINT, SIGTERM or SIGKILL it during the
warm-up: the server and every child gone within :data:`STOP_SECONDS`). Each
missed target is printed and the exit status is 1::

    .venv/bin/python benchmarks/fuzz_web.py --stopping
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx
from load_web import start_server
from machine import describe_machine

from connect4 import Position

NOTATION = "123456789abcdefghijklmnopqrstuvwxyz"
GOOD_SPECS = (
    "perfect",
    "perfect:level=easy,time=0.05",
    "perfect:level=hard,time=0.05",
    "perfect:time=0.05",
    "random",
    "random:seed=3",
    "alphabeta:depth=3",
    "alphabeta:depth=2,heuristic=windows,tt=on",
    "minimax:depth=2",
    "alphabeta:depth=99,time=0.05",
)
BAD_SPECS = (
    "genius",
    "cmd:ls",
    "human",
    "perfect:level=godlike",
    "random:speed=9",
    "alphabeta:depth=-1",
    "alphabeta:depth=" + "9" * 30,
    "perfect:" + "x" * 300,
    ":",
    "",
    "\u00e9\u00e9\u00e9",
    "perfect,level=easy",
)
PAGE_SIZES = (("7", "6"), ("6", "5"), ("5", "4"), ("4", "4"), ("6", "7"), ("8", "7"), ("9", "6"))
ODD_NUMBERS = ("0", "-1", "65", "1e3", "7.5", "abc", "", "99999999999999999999999", "%00", "NaN")
METHODS = ("PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "HEAD", "CONNECT", "FOO", "get")
PATHS = ("/", "/solve", "/api/analyze", "/api/move", "/api/players", "/api/info", "/api/health")
STATIC = ("/static/style.css", "/static/js/main.js", "/docs-files/favicon.png")
RANGES = (
    "bytes=abc",
    "bytes=999999-",
    "bytes=5-1",
    "bytes=0-1,,2-3",
    "bytes=-0",
    "items=0-5",
    "bytes=0-10,20-30",
    "bytes=" + "1" * 40 + "-",
)


@dataclass
class Request:
    """One fuzzed request: its raw bytes and the kind of attack, for the tallies."""

    kind: str
    data: bytes
    head: bool = False


def http(
    method: str, target: str, headers: dict[str, str] | None = None, body: bytes = b""
) -> bytes:
    """A raw HTTP/1.1 request that closes the connection after its answer."""
    lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape") + body


def random_size(rng: random.Random) -> tuple[str, str]:
    """A board size: the page's, any that fits, or nonsense."""
    roll = rng.random()
    if roll < 0.15:
        return rng.choice(ODD_NUMBERS), rng.choice(ODD_NUMBERS)
    if roll < 0.3:
        return str(rng.randint(1, 70)), str(rng.randint(1, 70))
    if roll < 0.6:
        return rng.choice(PAGE_SIZES)
    width = rng.randint(1, 16)
    height = rng.randint(1, max(1, 64 // width - 1))
    return str(width), str(height)


def random_game(rng: random.Random, width: int, height: int) -> str:
    """Random legal moves, mostly many of them (cheap to solve), stopped before the end."""
    game = Position(width, height)
    target = rng.randint(0, width * height) if rng.random() < 0.3 else width * height
    while game.ply < target:
        column = rng.choice(game.legal_moves())
        before = game.moves
        game.play(column)
        if game.is_over():
            return before
    return game.moves


def random_pos(rng: random.Random, width: str, height: str) -> str:
    """A move string: a random game near its end (cheap to solve), an early one, or junk."""
    w = int(width) if width.isdigit() and 0 < int(width) <= 35 else 7
    h = int(height) if height.isdigit() and 0 < int(height) <= 64 else 6
    roll = rng.random()
    if roll < 0.45 and w * (h + 1) <= 64:  # a random legal game, not over yet
        return random_game(rng, w, h)
    if roll < 0.6:  # random column symbols: often a full column or a move after a win
        cells = w * h
        length = rng.randint(max(0, cells - 12), cells) if rng.random() < 0.8 else rng.randint(0, 8)
        return "".join(NOTATION[rng.randrange(w)] for _ in range(length))
    if roll < 0.75:
        return "".join(rng.choice("0123456789abcxyz-!~ ") for _ in range(rng.randint(1, 30)))
    if roll < 0.85:
        return rng.choice("1234567") * rng.choice((1025, 4301, 5000))
    if roll < 0.95:
        return "".join(chr(rng.randint(0x80, 0x2FFF)) for _ in range(rng.randint(1, 20)))
    return "4" * rng.randint(100, 900)


def solver_request(rng: random.Random) -> Request:
    width, height = random_size(rng)
    pos = random_pos(rng, width, height)
    params = f"pos={quote(pos)}&width={quote(width)}&height={quote(height)}"
    if rng.random() < 0.5:
        return Request("solve", http("GET", f"/solve?{params}"))
    game = rng.choice(("connect4", "connect4", "tictactoe", "chess", "x" * 50))
    if game == "tictactoe":
        pos = "".join(rng.choice("123456789") for _ in range(rng.randint(0, 5)))
        params = f"pos={pos}&width={quote(width)}&height={quote(height)}"
    return Request("analyze", http("GET", f"/api/analyze?{params}&game={quote(game)}"))


def move_request(rng: random.Random) -> Request:
    json_type = {"Content-Type": "application/json"}
    if rng.random() < 0.4:  # a plausible request: a page board, a legal game, a real AI
        width, height = rng.choice(PAGE_SIZES)
        plausible = {
            "pos": random_game(rng, int(width), int(height)),
            "player": rng.choice(GOOD_SPECS),
            "width": int(width),
            "height": int(height),
            "tree": rng.random() < 0.3,
        }
        return Request("move", http("POST", "/api/move", json_type, json.dumps(plausible).encode()))
    width, height = random_size(rng)
    body: dict[str, object] = {
        "pos": random_pos(rng, width, height),
        "player": rng.choice(GOOD_SPECS if rng.random() < 0.7 else BAD_SPECS),
        "game": rng.choice(("connect4",) * 8 + ("tictactoe", "go")),
        "rules": rng.choice(("standard",) * 6 + ("count-fours", "x")),
        "tree": rng.random() < 0.3,
    }
    if body["game"] == "tictactoe":
        body["pos"] = "".join(rng.choice("123456789") for _ in range(rng.randint(0, 4)))
    for key, value in (("width", width), ("height", height)):
        body[key] = int(value) if value.lstrip("-").isdigit() and len(value) < 6 else value
    if rng.random() < 0.1:  # wrong types and unknown fields
        body[rng.choice(list(body))] = rng.choice([None, [], {}, 1.5, True, "x" * 2000])
        body["extra"] = "field"
    data = json.dumps(body).encode()
    return Request("move", http("POST", "/api/move", json_type, data))


def body_request(rng: random.Random) -> Request:
    """Malformed and oversized bodies, sent whole (declared length) or in chunks."""
    roll = rng.random()
    json_type = {"Content-Type": "application/json"}
    if roll < 0.35:
        size = rng.choice(
            (70_000, 200_000, 1_000_000, 10_000_000 if rng.random() < 0.2 else 300_000)
        )
        data = b'{"pos": "' + b"4" * size + b'"}'
        return Request(f"big body {size // 1000} KB", http("POST", "/api/move", json_type, data))
    if roll < 0.5:  # chunked: no length to check up front
        chunk = b"4" * 16_000
        pieces = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(rng.randint(2, 8)))
        head = (
            b"POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        return Request("chunked body", head + pieces + b"0\r\n\r\n")
    bad = rng.choice(
        (
            b"{",
            b"not json",
            b"[]",
            b"null",
            b'{"pos": 5}',
            b'{"pos": "\\ud800"}',
            b"\xff\xfe\x00",
            b'{"a":' * 5000,
            json.dumps({"pos": "4" * 100, "width": 10**40}).encode(),
        )
    )
    content_type = rng.choice(("application/json", "text/plain", "multipart/form-data", ""))
    headers = {"Content-Type": content_type} if content_type else {}
    return Request("bad body", http("POST", "/api/move", headers, bad))


def odd_request(rng: random.Random) -> Request:
    """Odd methods, headers, Range and CORS requests, long URLs, malformed HTTP."""
    roll = rng.random()
    if roll < 0.25:
        method = rng.choice(METHODS)
        path = rng.choice(PATHS + STATIC)
        return Request("method", http(method, path), head=method == "HEAD")
    if roll < 0.4:
        headers = {"Range": rng.choice(RANGES)}
        return Request("range", http("GET", rng.choice(STATIC), headers))
    if roll < 0.55:
        headers = {
            "Origin": rng.choice(("http://evil.example", "null", "x" * 300)),
            "Access-Control-Request-Method": rng.choice(("POST", "DELETE", "PUT", "GET", "X")),
        }
        if rng.random() < 0.5:
            headers["Access-Control-Request-Headers"] = rng.choice(("x-evil", "content-type"))
        return Request("cors", http("OPTIONS", rng.choice(PATHS), headers))
    if roll < 0.7:
        headers = rng.choice(
            (
                {"X-Long": "y" * 20_000},
                {"Content-Length": "-5"},
                {"Content-Length": "abc"},
                {"Expect": "100-continue"},
                {"Accept-Encoding": "gzip;q=nonsense"},
                {"Cookie": "a=" + "b" * 4000},
                {"If-None-Match": '"' + "z" * 500 + '"'},
                {"If-Modified-Since": "yesterday"},
                {"Upgrade": "websocket", "Connection": "Upgrade"},
                {"X-Forwarded-For": "1.2.3.4"},
                {"X-Forwarded-For": "not an address, " + "9" * 300},
                {"Forwarded": "for=1.2.3.4;proto=gopher"},
                {"X-Forwarded-Proto": "gopher", "X-Forwarded-Host": "evil.example"},
            )
        )
        return Request("header", http("GET", rng.choice(PATHS + STATIC), headers))
    if roll < 0.85:
        target = rng.choice(
            (
                "/solve?pos=" + "4" * 20_000,
                "/static/../../etc/passwd",
                "/static/%2e%2e/%2e%2e/etc/passwd",
                "/api/analyze?" + "&".join(f"k{i}=v" for i in range(500)),
                "/" + "a" * 5000,
                "/solve?pos=%ff%fe",
                "/solve?pos=4&pos=5&width=7&width=8",
                "//api//move",
            )
        )
        return Request("url", http("GET", target))
    garbage = rng.choice(
        (
            b"GARBAGE\r\n\r\n",
            b"GET / HTTP/9.9\r\n\r\n",
            b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
            b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",  # a TLS hello
            b"GET / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
            b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        )
    )
    return Request("malformed", garbage)


def build_requests(seed: int, count: int) -> list[Request]:
    """The fixed list of fuzzed requests for a seed."""
    rng = random.Random(seed)
    makers = (solver_request, move_request, body_request, odd_request)
    weights = (0.4, 0.3, 0.1, 0.2)
    return [rng.choices(makers, weights)[0](rng) for _ in range(count)]


@dataclass
class Tally:
    outcomes: Counter[str] = field(default_factory=Counter)
    kinds: Counter[tuple[str, str]] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    def add(self, request: Request, outcome: str, detail: str = "") -> None:
        self.outcomes[outcome] += 1
        self.kinds[(request.kind, outcome)] += 1
        self.examples.setdefault(outcome, f"{request.kind}: {request.data[:80]!r} -> {detail}")


def classify(request: Request, answer: bytes) -> tuple[str, str, bool]:
    """(status, detail, JSON error?) of a whole answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    while head.startswith(b"HTTP/1.1 1") and body.startswith(b"HTTP/"):  # 100 Continue
        head, _, body = body.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    status = parts[1] if len(parts) > 1 else "?"
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines[1:])
    }
    if request.head:
        is_json = "json" in headers.get("content-type", "")
        return status, headers.get("content-type", ""), is_json
    try:
        parsed = json.loads(body)
        is_json = isinstance(parsed, dict) and isinstance(parsed.get("error"), str)
    except ValueError:
        is_json = False
    return status, body[:100].decode("utf-8", "replace"), is_json


async def send(host: str, port: int, request: Request, timeout: float, tally: Tally) -> None:
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError as error:
        tally.add(request, "connect error", str(error))
        return
    try:
        writer.write(request.data)
        await asyncio.wait_for(writer.drain(), timeout)
        if request.kind == "malformed":
            writer.write_eof()
        answer = await asyncio.wait_for(reader.read(), timeout)
    except (ConnectionResetError, BrokenPipeError) as error:
        tally.add(request, "reset", type(error).__name__)
        return
    except TimeoutError:
        tally.add(request, "timeout")
        return
    except OSError as error:
        tally.add(request, "reset", f"{type(error).__name__} {error}")
        return
    finally:
        writer.close()
    if not answer.startswith(b"HTTP/"):
        tally.add(request, "reset" if not answer else "not HTTP", repr(answer[:60]))
        return
    status, detail, is_json = classify(request, answer)
    tally.add(request, status, detail)
    if status >= "400" and not is_json:
        tally.add(
            request, "http-layer" if request.kind == "malformed" else "non-JSON error", detail
        )
    if status.startswith("5") and status != "503":
        tally.add(request, "500s", detail)


async def run_pass(
    host: str, port: int, requests: list[Request], clients: int, timeout: float
) -> Tally:
    tally = Tally()
    queue = list(reversed(requests))

    async def worker() -> None:
        while queue:
            await send(host, port, queue.pop(), timeout, tally)

    await asyncio.gather(*(worker() for _ in range(clients)))
    return tally


def resident_mb(pid: int) -> float:
    """Resident memory of a process and its children (uvicorn workers), in MB (Linux)."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
        stack.extend(int(child) for child in children)
    return total / 1024


HOSTILE = (
    ("mcts playouts=1e8", {"pos": "", "player": "mcts:playouts=100000000"}),
    ("mcts time=3600", {"pos": "", "player": "mcts:time=3600"}),
    ("alphabeta time=3600", {"pos": "", "player": "alphabeta:time=3600"}),
    ("alphabeta depth=40", {"pos": "", "player": "alphabeta:depth=40"}),
    ("mcts 9x6", {"pos": "", "player": "mcts:playouts=100000000", "width": 9, "height": 6}),
    ("perfect 8x7 #1", {"pos": "", "player": "perfect:time=3600", "width": 8, "height": 7}),
    ("perfect 8x7 #2", {"pos": "", "player": "perfect:time=3600", "width": 8, "height": 7}),
)
PROBES = ("/api/health", "/solve?pos=4455")
PROBE_P99_MS = 100.0  # the cheap requests' target
IDLE_SECONDS = 1.0  # from the last answer to a server at rest
ANSWER_SLACK = 0.5  # seconds the measuring client may add to the request limit


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_to_idle(pid: int, since: float, window: float = 0.1, most: float = 3.0) -> float | None:
    """Seconds from ``since`` (a ``time.monotonic()`` time) to the end of the first
    ``window`` in which the server used under 10 % of a core (``None``: not within ``most``)."""
    while time.monotonic() - since < most:
        before = cpu_seconds(pid)
        time.sleep(window)
        if cpu_seconds(pid) - before < 0.1 * window:
            return time.monotonic() - since
    return None


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def starvation_pass(url: str, pid: int | None, limit: float) -> dict[str, object]:
    """Hostile moves in flight beside cheap probes; see the module docstring."""
    probes: list[float] = []
    failures: Counter[str] = Counter()
    hostile: dict[str, tuple[int, float, str]] = {}
    stop = threading.Event()

    def probe() -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            while not stop.is_set():
                for path in PROBES:
                    began = time.perf_counter()
                    try:
                        status = client.get(path).status_code
                    except httpx.HTTPError as error:
                        failures[type(error).__name__] += 1
                        continue
                    probes.append(time.perf_counter() - began)
                    if status != 200:
                        failures[str(status)] += 1

    def attack(index: int, name: str, body: dict[str, object]) -> None:
        transport = httpx.HTTPTransport(local_address=f"127.0.0.{10 + index}")
        with httpx.Client(base_url=url, transport=transport, timeout=limit + 30) as client:
            began = time.perf_counter()
            try:
                answer = client.post("/api/move", json=body)
                text = answer.json().get("reached") or answer.json().get("error") or "complete"
                hostile[name] = (answer.status_code, time.perf_counter() - began, str(text))
            except (httpx.HTTPError, ValueError) as error:
                hostile[name] = (0, time.perf_counter() - began, type(error).__name__)

    probing = [threading.Thread(target=probe) for _ in range(2)]
    attacks = [threading.Thread(target=attack, args=(i, *h)) for i, h in enumerate(HOSTILE)]
    for thread in probing + attacks:
        thread.start()
    time.sleep(0.5)
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.10")) as again:
        began = time.perf_counter()
        answer = again.post(url + "/api/move", json=dict(HOSTILE[0][1]), timeout=limit + 30)
        hostile["same client again"] = (
            answer.status_code, time.perf_counter() - began, str(answer.json().get("error")),
        )  # fmt: skip
    for thread in attacks:
        thread.join()
    last_answer = time.monotonic()
    stop.set()
    for thread in probing:
        thread.join()
    idle = None if pid is None else time_to_idle(pid, last_answer)
    return {
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "request_limit": limit,
        "probes": len(probes),
        "probe_p50_ms": round(1000 * statistics.median(probes), 1) if probes else None,
        "probe_p99_ms": round(1000 * percentile(probes, 0.99), 1),
        "probe_max_ms": round(1000 * max(probes), 1) if probes else None,
        "probe_failures": dict(failures),
        "hostile": {
            k: {"status": v[0], "seconds": round(v[1], 2), "note": v[2][:90]}
            for k, v in hostile.items()
        },
        "seconds_to_idle": None if idle is None else round(idle, 2),
    }


def missed_targets(report: dict[str, object], limit: float) -> list[str]:
    """What the starvation pass's report misses of its targets (the module docstring).

    >>> fine = {"probe_p99_ms": 40.0, "probe_failures": {}, "seconds_to_idle": 0.2,
    ...         "hostile": {"a": {"status": 200, "seconds": 9.6, "note": "complete"}}}
    >>> missed_targets(fine, 10.0)
    []
    >>> missed_targets({**fine, "probe_p99_ms": 180.0, "seconds_to_idle": None}, 10.0)
    ['probe p99 180.0 ms > 100.0 ms', 'the server not idle within 3 s of the last answer']
    """
    missed = []
    p99 = report["probe_p99_ms"]
    if not isinstance(p99, float) or not p99 <= PROBE_P99_MS:
        missed.append(f"probe p99 {p99} ms > {PROBE_P99_MS} ms")
    if report["probe_failures"]:
        missed.append(f"probes failed: {report['probe_failures']}")
    hostile = report["hostile"]
    assert isinstance(hostile, dict)
    for name, answer in hostile.items():
        status, seconds = answer["status"], answer["seconds"]
        most = 1.0 if name == "same client again" else limit + ANSWER_SLACK
        if status not in (200, 429, 503) or seconds > most:
            missed.append(f"{name}: status {status} after {seconds} s (at most {most} s)")
    idle = report["seconds_to_idle"]
    if idle is None:
        missed.append("the server not idle within 3 s of the last answer")
    elif isinstance(idle, float) and idle > IDLE_SECONDS:
        missed.append(f"the server idle {idle} s after the last answer (> {IDLE_SECONDS} s)")
    return missed


# ------------------------------------------------------------------ stopping
STOP_SECONDS = 2.0  # a stopped server and its children are gone within this
SLOW_MOVE = {"pos": "", "player": "mcts:playouts=100000000"}  # thinks to the time limit
FORGED = (
    {"X-Forwarded-For": "1.2.3.4"},
    {"X-Forwarded-For": "1.2.3.4, 5.6.7.8"},
    {"X-Forwarded-For": "garbage"},
    {"Forwarded": "for=1.2.3.4"},
    {"X-Real-IP": "1.2.3.4"},
)
BUSY = "this client already has"
STOPPING = "the server is stopping"


def descendants(pid: int) -> set[int]:
    """Every process under ``pid`` now (``/proc/PID/task/*/children``, recursively)."""
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = {int(k) for k in (task / "children").read_text().split()}
            except OSError:
                continue
            frontier += list(kids - found)
            found |= kids
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def deep_busy(url: str) -> int:
    pools = httpx.get(url + "/api/health", timeout=10).json()["pools"]
    return int(next(pool["busy"] for pool in pools if pool["name"] == "deep"))


def wait_for_deep(url: str, jobs: int, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while deep_busy(url) < jobs:
        if time.monotonic() > deadline:
            raise SystemExit(f"error: {jobs} deep jobs never ran")
        time.sleep(0.02)


def ask(
    url: str,
    address: str,
    body: dict[str, object],
    headers: dict[str, str],
    out: dict[str, object],
    name: str,
) -> None:
    """POST /api/move from ``address``; its status, seconds and error (or note) in ``out``."""
    began = time.perf_counter()
    transport = httpx.HTTPTransport(local_address=address)
    try:
        with httpx.Client(base_url=url, transport=transport, timeout=120) as client:
            answer = client.post("/api/move", json=body, headers=headers)
        try:
            note = str(answer.json().get("error") or "answered")
        except ValueError:
            note = "not JSON"
        out[name] = {
            "status": answer.status_code,
            "seconds": round(time.perf_counter() - began, 2),
            "note": note[:90],
        }
    except httpx.HTTPError as error:
        out[name] = {
            "status": 0,
            "seconds": round(time.perf_counter() - began, 2),
            "note": type(error).__name__,
        }


def stop_server(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def proxy_pass(log: Path) -> tuple[dict[str, object], list[str]]:
    """Forged proxy headers from a client with a deep job in flight."""
    report: dict[str, object] = {}
    missed = []
    for trusted in ("", "127.0.0.1"):
        options = ["--time-limit", "3"] + (["--forwarded-allow-ips", trusted] if trusted else [])
        process, url = start_server(options, log)
        answers: dict[str, object] = {}
        try:
            hold = threading.Thread(
                target=ask, args=(url, "127.0.0.1", SLOW_MOVE, {}, answers, "held")
            )
            hold.start()
            wait_for_deep(url, 1)
            forged = FORGED if not trusted else FORGED[:1]
            for headers in forged:
                name = "; ".join(f"{k}: {v}" for k, v in headers.items())
                ask(url, "127.0.0.1", SLOW_MOVE, headers, answers, name)
            hold.join()
        finally:
            stop_server(process)
        report["trusted " + (trusted or "none")] = answers
        for name, answer in answers.items():
            assert isinstance(answer, dict)
            if name == "held":
                continue
            if not trusted and (
                answer["status"] != 503
                or not answer["note"].startswith(BUSY)
                or answer["seconds"] > 1.0
            ):
                missed.append(f"untrusted {name}: {answer} (want a 503 '{BUSY}...' at once)")
            if trusted and answer["status"] != 200:
                missed.append(f"trusted {name}: {answer} (want 200: another client)")
    return report, missed


def interrupt_pass(
    log: Path, signals: tuple[signal.Signals, ...]
) -> tuple[dict[str, object], list[str]]:
    """Slow moves from three addresses in flight, then ``signals`` to the server."""
    process, url = start_server(["--time-limit", "60", "--threads", "2"], log)
    answers: dict[str, object] = {}
    clients = [
        threading.Thread(
            target=ask, args=(url, f"127.0.0.{10 + i}", SLOW_MOVE, {}, answers, f"client {i + 1}")
        )
        for i in range(3)
    ]
    try:
        for client in clients:
            client.start()
        wait_for_deep(url, 3)  # two running, one queued
        time.sleep(0.3)
        began = time.monotonic()
        for number in signals:
            process.send_signal(number)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=60)
        seconds = time.monotonic() - began
        for client in clients:
            client.join(timeout=60)
    finally:
        stop_server(process)
    lines = log.read_text(errors="replace").splitlines()
    said = [line for line in lines if not line[:4].isdigit()]  # not a request's log line
    name = "+".join(signal.Signals(n).name for n in signals)
    report = {
        "signals": name,
        "exit_seconds": round(seconds, 2),
        "returncode": process.returncode,
        "answers": answers,
        "said": said[-6:],
    }
    missed = []
    if seconds > STOP_SECONDS:
        missed.append(f"{name}: the server took {seconds:.1f} s to stop (> {STOP_SECONDS} s)")
    if any("Traceback" in line for line in lines):
        missed.append(f"{name}: a traceback in the server's log ({log})")
    stopping = [line for line in said if line.startswith("stopping")]
    if len(stopping) != 1 and not (len(signals) > 1 and not stopping):  # (too quick to say)
        missed.append(f"{name}: {len(stopping)} 'stopping' lines (want 1)")
    if len(signals) == 1:
        for client, answer in answers.items():
            assert isinstance(answer, dict)
            if answer["status"] != 503 or not answer["note"].startswith(STOPPING):
                missed.append(f"{name}: {client} got {answer} (want 503 '{STOPPING}...')")
    return report, missed


def cold_pass(log: Path, number: signal.Signals) -> tuple[dict[str, object], list[str]]:
    """A server on an empty cache stopped by ``number`` while its children compile."""
    with tempfile.TemporaryDirectory(prefix="connect4-cold-") as cache:
        env = {**os.environ, "CONNECT4_CACHE_DIR": cache}
        command = [sys.executable, "-m", "connect4", "serve", "--port", "0"]
        with log.open("wb") as sink:
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink, env=env)
        children: set[int] = set()
        try:
            deadline = time.monotonic() + 120
            while len(children) < 3 and time.monotonic() < deadline and process.poll() is None:
                children = descendants(process.pid)
                time.sleep(0.05)
            began = time.monotonic()
            process.send_signal(number)
            process.wait(timeout=60)
            while any(alive(pid) for pid in children) and time.monotonic() - began < 60:
                time.sleep(0.05)
            seconds = time.monotonic() - began
            left = [pid for pid in children if alive(pid)]
        finally:
            stop_server(process)
            for pid in children:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
    lines = log.read_text(errors="replace").splitlines()
    report = {
        "signal": number.name,
        "children": len(children),
        "all_gone_seconds": round(seconds, 2),
        "left": left,
        "said": lines[-3:],
    }
    missed = []
    if len(children) < 3:
        missed.append(f"cold {number.name}: {len(children)} compile children seen (want 3)")
    if left or seconds > STOP_SECONDS:
        missed.append(
            f"cold {number.name}: server and children gone after {seconds:.1f} s, {len(left)} left"
        )
    if any("Traceback" in line for line in lines):
        missed.append(f"cold {number.name}: a traceback in the server's log ({log})")
    return report, missed


def stopping_passes(log: Path) -> tuple[dict[str, object], list[str]]:
    """Every stopping pass (see the module docstring): the report and the missed targets."""
    report: dict[str, object] = {"load_average_before": [round(x, 2) for x in os.getloadavg()]}
    missed: list[str] = []
    runs = [
        ("proxy headers", lambda: proxy_pass(log)),
        ("ctrl-c", lambda: interrupt_pass(log, (signal.SIGINT,))),
        ("sigterm", lambda: interrupt_pass(log, (signal.SIGTERM,))),
        ("ctrl-c twice", lambda: interrupt_pass(log, (signal.SIGINT, signal.SIGINT))),
        *[
            (f"cold {n.name}", lambda n=n: cold_pass(log, n))
            for n in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
        ],
    ]
    for name, run in runs:
        part, misses = run()
        report[name] = part
        missed += misses
    report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return report, missed


def fuzz_problems(passes: list[dict[str, object]]) -> list[str]:
    """The answers of the fuzzing passes that count as failures: timeouts, 5xx but 503,
    errors without a JSON body."""
    problems = []
    for row in passes:
        outcomes = row["outcomes"]
        assert isinstance(outcomes, dict)
        for outcome in ("timeout", "500s", "non-JSON error"):
            if outcomes.get(outcome):
                problems.append(f"pass {row['pass']}: {outcomes[outcome]} {outcome}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an already running server (default: start one)")
    parser.add_argument("--pid", type=int, help="with --url: the server's pid, for its memory")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--requests", type=int, default=2000, help="requests per pass")
    parser.add_argument("--clients", type=int, default=8, help="requests in flight")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per request")
    parser.add_argument("--workers", type=int, default=1, help="--workers of the started server")
    parser.add_argument("--time-limit", type=float, default=1.0, help="of the started server")
    parser.add_argument("--log", type=Path, default=Path("/tmp/connect4-fuzz-server.log"))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--by-kind", action="store_true", help="outcomes per kind of request")
    parser.add_argument(
        "--fresh", action="store_true", help="new requests each pass (seeds seed, seed+1, ...)"
    )
    parser.add_argument(
        "--starvation", action="store_true", help="the starvation pass only (see above)"
    )
    parser.add_argument(
        "--starvation-limit", type=float, default=10.0, help="the started server's time limit"
    )
    parser.add_argument(
        "--stopping", action="store_true", help="the stopping passes only (see above)"
    )
    args = parser.parse_args()
    if args.stopping:
        print(f"machine: {describe_machine()}")
        report, missed = stopping_passes(args.log)
        print(json.dumps(report, indent=2))
        for line in missed:
            print(f"missed: {line}")
        print("stopping targets: " + ("missed" if missed else "all met"))
        return 1 if missed else 0
    if args.starvation:
        process, url, pid = None, args.url, args.pid
        if url is None:
            options = ["--workers", "1", "--time-limit", str(args.starvation_limit)]
            process, url = start_server(options, args.log)
            pid = process.pid
        try:
            print(f"machine: {describe_machine()}")
            report = starvation_pass(url, pid, args.starvation_limit)
            print(json.dumps(report, indent=2))
        finally:
            if process is not None:
                process.terminate()
                process.wait(timeout=30)
        missed = missed_targets(report, args.starvation_limit)
        for line in missed:
            print(f"missed: {line}")
        print("starvation targets: " + ("missed" if missed else "all met"))
        return 1 if missed else 0
    if not 1 <= args.passes <= 50 or not 1 <= args.requests <= 100_000:
        raise SystemExit("error: --passes must be 1-50 and --requests 1-100000")

    requests = build_requests(args.seed, args.requests)
    process, url, pid = None, args.url, args.pid
    if url is None:
        options = ["--workers", str(args.workers), "--time-limit", str(args.time_limit)]
        process, url = start_server(options, args.log)
        pid = process.pid
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("error: this fuzzer only targets the local machine (127.0.0.1)")
    passes = []
    started = time.monotonic()
    if not args.json:
        print(f"machine: {describe_machine()}")
        kinds = Counter(r.kind.split(" ")[0] for r in requests)
        print(
            f"{len(requests)} requests per pass (seed {args.seed}): {dict(sorted(kinds.items()))}"
        )
        if pid is not None:
            print(f"server RSS before: {resident_mb(pid):.0f} MB")
    try:
        for number in range(1, args.passes + 1):
            began = time.monotonic()
            if args.fresh and number > 1:
                requests = build_requests(args.seed + number - 1, args.requests)
            tally = asyncio.run(run_pass(host, port, requests, args.clients, args.timeout))
            time.sleep(0.5)
            rss = resident_mb(pid) if pid is not None else None
            row = {
                "pass": number,
                "seconds": round(time.monotonic() - began, 1),
                "rss_mb": None if rss is None else round(rss),
                "outcomes": dict(sorted(tally.outcomes.items())),
                "examples": {k: v for k, v in tally.examples.items() if not k[0].isdigit()},
            }
            passes.append(row)
            if not args.json:
                rss_text = "?" if rss is None else f"{rss:.0f} MB"
                print(f"pass {number}: {row['seconds']} s, server RSS {rss_text}")
                counts = tally.outcomes
                print(
                    f"  resets {counts['reset']}, timeouts {counts['timeout']}, "
                    f"non-JSON errors {counts['non-JSON error']} "
                    f"(+{counts['http-layer']} from the HTTP layer), 500s {counts['500s']}"
                )
                statuses = {k: v for k, v in row["outcomes"].items() if k[0].isdigit()}
                print(f"  statuses {statuses}")
                for outcome, example in row["examples"].items():
                    print(f"  first {outcome}: {example[:200]}")
                if args.by_kind:
                    for kind in sorted({kind for kind, _ in tally.kinds}):
                        counts = {o: n for (k, o), n in sorted(tally.kinds.items()) if k == kind}
                        print(f"    {kind}: {counts}")
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)
    problems = fuzz_problems(passes)
    if args.json:
        report = {
            "machine": describe_machine(),
            "seed": args.seed,
            "requests": len(requests),
            "seconds": round(time.monotonic() - started, 1),
            "passes": passes,
            "problems": problems,
        }
        print(json.dumps(report, indent=2))
    else:
        print(f"total {time.monotonic() - started:.1f} s")
        for line in problems:
            print(f"problem: {line}")
        print("clean" if not problems else "not clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
