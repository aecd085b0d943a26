"""Load test of the web API: N concurrent clients on GET /solve for a mix of Pons' positions.

Starts ``connect4 serve`` on a free 127.0.0.1 port (or uses ``--url``), then runs
``--clients`` keep-alive HTTP/1.1 connections for ``--seconds`` (each from its own
loopback address, so the server's per-client bound sees N clients), each sending one
request after another for positions drawn at random from Pons' benchmark sets
(End-Easy, Middle-Easy and Middle-Medium by default). Every answer is
checked against the file's score, so a wrong answer counts as an error, like a
non-200 status or a broken connection. Prints throughput and latency percentiles,
overall and split at 20 stones, and the machine::

    nice -n 10 .venv/bin/python benchmarks/load_web.py --clients 50 --seconds 30

Only 127.0.0.1 is ever contacted; the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from machine import describe_machine

from connect4.solver.bench import pons_path

HERE = Path(__file__).resolve().parent
# End-Easy, Middle-Easy, Middle-Medium: every position with 15 stones or more. Begin
# positions with 12-14 stones cost up to ~2 s of CPU each to analyse (the book stops
# at 12 stones): add Test_L1_R1 with --sets to see them queue.
DEFAULT_SETS = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2")
SPLIT = 20  # stones: the latency target applies to positions with at least this many


def load_positions(sets: list[str]) -> list[tuple[str, int]]:
    positions = []
    for name in sets:
        try:
            path = pons_path(name)
        except KeyError:
            raise SystemExit(f"error: {name} is not one of Pons' sets") from None
        for line in path.read_text().splitlines():
            moves, score = line.split()
            positions.append((moves, int(score)))
    return positions


@dataclass
class Tally:
    latencies: dict[bool, list[float]] = field(default_factory=lambda: {True: [], False: []})
    errors: list[str] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return status, await reader.readexactly(length)


async def client(
    host: str, port: int, positions: list[tuple[str, int]], stop: float, seed: int, tally: Tally
) -> None:
    rng = random.Random(seed)
    # Each client from its own loopback address (127.0.1.x: all of 127/8 is this
    # machine), as real clients would be: the server bounds deep work per address.
    local = (f"127.0.{1 + seed // 250}.{1 + seed % 250}", 0) if host == "127.0.0.1" else None
    try:
        reader, writer = await asyncio.open_connection(host, port, local_addr=local)
    except OSError as error:
        raise SystemExit(f"error: cannot connect to {host}:{port}: {error.strerror}") from None
    try:
        while time.monotonic() < stop:
            moves, score = rng.choice(positions)
            request = f"GET /solve?pos={moves} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
            started = time.perf_counter()
            try:
                writer.write(request)
                await writer.drain()
                status, body = await read_response(reader)
            except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                tally.errors.append(f"{moves}: {type(error).__name__} {error}")
                writer.close()
                reader, writer = await asyncio.open_connection(host, port, local_addr=local)
                continue
            elapsed = time.perf_counter() - started
            tally.statuses[status] = tally.statuses.get(status, 0) + 1
            if status != 200:
                tally.errors.append(f"{moves}: HTTP {status} {body[:120]!r}")
                continue
            best = max(s for s in json.loads(body)["score"] if s != 100)
            if best != score:
                tally.errors.append(f"{moves}: best column score {best}, Pons says {score}")
                continue
            tally.latencies[len(moves) >= SPLIT].append(elapsed)
    finally:
        writer.close()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def summary(name: str, values: list[float], seconds: float) -> dict[str, float | int | str]:
    ms = [v * 1000 for v in values]
    return {
        "positions": name,
        "requests": len(ms),
        "per_second": round(len(ms) / seconds, 1),
        "mean_ms": round(sum(ms) / len(ms), 2) if ms else float("nan"),
        "p50_ms": round(percentile(ms, 50), 2),
        "p90_ms": round(percentile(ms, 90), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "max_ms": round(max(ms), 2) if ms else float("nan"),
    }


def server_side(log: Path) -> dict[bool, list[float]]:
    """Latencies the server measured itself (its request log), split at SPLIT stones."""
    found: dict[bool, list[float]] = {True: [], False: []}
    pattern = re.compile(r'"GET /solve\?pos=(\w*)" 200 ([\d.]+) ms')
    for line in log.read_text(errors="replace").splitlines():
        match = pattern.search(line)
        if match:
            found[len(match.group(1)) >= SPLIT].append(float(match.group(2)) / 1000)
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(options: list[str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``connect4 serve OPTIONS`` on a free 127.0.0.1 port; its process and URL once
    it answers (the first answer compiles or loads the solver: up to 120 s)."""
    port = free_port()
    command = [sys.executable, "-m", "connect4", "serve", "--port", str(port), *options]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/solve?pos=4455", timeout=30):  # warms numba too
                return process, url
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"error: the server exited; see {log}") from None
            time.sleep(0.2)
    process.kill()
    raise SystemExit("error: the server did not start within 120 s")


async def run(url: str, clients: int, seconds: float, positions: list[tuple[str, int]]) -> Tally:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("error: this load test only targets the local machine (127.0.0.1)")
    tally = Tally()
    stop = time.monotonic() + seconds
    await asyncio.gather(
        *(client(host, port, positions, stop, seed, tally) for seed in range(clients))
    )
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an already running server (default: start one)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=2, help="--workers of the started server")
    parser.add_argument("--threads", type=int, default=2, help="--threads of the started server")
    parser.add_argument(
        "--cache",
        type=int,
        default=0,
        help="--cache of the started server (default 0: every request solves)",
    )
    parser.add_argument("--sets", nargs="+", default=list(DEFAULT_SETS), help="Pons set names")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--log", type=Path, default=Path("/tmp/connect4-load-server.log"))
    args = parser.parse_args()
    if not 1 <= args.clients <= 1000 or not 0 < args.seconds <= 600:
        raise SystemExit("error: --clients must be 1-1000 and --seconds 0-600")

    positions = load_positions(args.sets)
    load_before = os.getloadavg()[0]
    process = None
    url = args.url
    if url is None:
        options = [
            "--workers",
            str(args.workers),
            "--threads",
            str(args.threads),
            "--cache",
            str(args.cache),
        ]
        process, url = start_server(options, args.log)
    try:
        started = time.monotonic()
        tally = asyncio.run(run(url, args.clients, args.seconds, positions))
        elapsed = time.monotonic() - started
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)

    everything = tally.latencies[True] + tally.latencies[False]
    rows = [
        summary("all", everything, elapsed),
        summary(f">= {SPLIT} stones", tally.latencies[True], elapsed),
        summary(f"< {SPLIT} stones", tally.latencies[False], elapsed),
    ]
    if process is not None:  # the same requests as timed inside the server (its log)
        inside = server_side(args.log)
        rows.append(summary(f"server >= {SPLIT}", inside[True], elapsed))
        rows.append(summary(f"server < {SPLIT}", inside[False], elapsed))
    report = {
        "machine": describe_machine(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "clients": args.clients,
        "seconds": round(elapsed, 1),
        "sets": args.sets,
        "server": (
            f"--workers {args.workers} --threads {args.threads} --cache {args.cache}"
            if args.url is None
            else args.url
        ),
        "errors": len(tally.errors),
        "statuses": tally.statuses,
        "rows": rows,
        "first_errors": tally.errors[:5],
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"machine: {report['machine']}; load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after (1 min)"
    )
    print(
        f"{args.clients} clients for {elapsed:.1f} s on {', '.join(args.sets)} "
        f"({len(positions)} positions); server {report['server']}"
    )
    print(f"errors: {len(tally.errors)}  statuses: {tally.statuses}")
    for error in tally.errors[:5]:
        print(f"  {error}")
    header = f"{'positions':<16}{'requests':>9}{'req/s':>9}{'mean':>9}{'p50':>9}{'p90':>9}"
    print(header + f"{'p99':>9}{'max':>9}  (ms)")
    for row in rows:
        print(
            f"{row['positions']!s:<16}{row['requests']:>9}{row['per_second']:>9}"
            f"{row['mean_ms']:>9}{row['p50_ms']:>9}{row['p90_ms']:>9}{row['p99_ms']:>9}"
            f"{row['max_ms']:>9}"
        )


if __name__ == "__main__":
    main()
