"""A fresh server's first minute: how quickly it answers while the big-board solvers compile.

Starts ``connect4 serve`` on a free 127.0.0.1 port with a new, empty cache directory
(``CONNECT4_CACHE_DIR``) holding only copies of the prepared native kernels of boards
up to 64 bits, so the server has to compile the 8x8, 9x7 and 10x6 kernels. From its
first answer on, for ``--seconds``, one client asks ``/api/health`` and another a
cheap 7x6 ``/solve`` (positions of Pons' End and Middle sets, each new to the server's
cache), one request after another; a third asks each big board for a late position
once a second. Prints the latency percentiles of the first two in the first minute and
once every big board answers, and when each big board's first 200 came (503 "being
compiled" until then), with the machine and the load::

    .venv/bin/python benchmarks/web_first_minute.py --seconds 150

Only 127.0.0.1 is ever contacted; the run stops by itself.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from load_web import load_positions, percentile, start_server
from machine import describe_machine

from connect4 import Position
from connect4.core.cache import cache_root

BIG = ((8, 8), (9, 7), (10, 6))
FIRST = 60.0  # seconds: the window the big boards compile in
SOURCE_TREE = Path(__file__).resolve().parents[1] / "src" / "connect4"


def late_position(width: int, height: int, empty: int, seed: int) -> str:
    """A random game's moves up to ``empty`` free cells, no side having won."""
    rng = random.Random(seed)
    while True:
        position = Position.from_moves("", width, height)
        while position.ply < width * height - empty:
            column = rng.choice(position.legal_moves())
            if position.is_winning_move(column):
                break
            position.play(column)
        else:
            return position.moves


def fresh_cache() -> Path:
    """A new private cache directory with the native kernels of the current one."""
    folder = Path(tempfile.mkdtemp(prefix="c4-first-minute-"))
    for kernel in cache_root().glob("kernel-*.native"):
        shutil.copy2(kernel, folder / kernel.name)
    return folder


def get(url: str, timeout: float = 30.0) -> tuple[int, float]:
    """The HTTP status of ``GET url`` and its seconds."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            answer.read()
            status = int(answer.status)
    except urllib.error.HTTPError as error:
        status = error.code
    return status, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    stale = [
        p.name
        for p in SOURCE_TREE.rglob("*.nbi")
        if "_wide_" in p.name or p.name.startswith("wide.")
    ]
    if stale:
        print(
            f"note: the source tree holds {len(stale)} big-board cache indexes (an older "
            "version wrote them there); they may be loaded instead of compiled"
        )
    folder = fresh_cache()
    os.environ["CONNECT4_CACHE_DIR"] = str(folder)
    log = folder / "serve.log"
    print(describe_machine())
    print("load before:", os.getloadavg())
    process, url = start_server(["--threads", "2"], log)
    started = time.monotonic()
    stop = started + args.seconds
    latencies: dict[str, list[tuple[float, float]]] = {"health": [], "solve 7x6": []}
    ready: dict[str, float] = {}
    refused: dict[str, int] = {f"{w}x{h}": 0 for w, h in BIG}
    errors: list[str] = []
    positions = [moves for moves, _ in load_positions(["Test_L3_R1", "Test_L2_R1", "Test_L2_R2"])]
    random.Random(1).shuffle(positions)
    late = {f"{w}x{h}": late_position(w, h, 14, 1) for w, h in BIG}

    def health() -> None:
        while time.monotonic() < stop:
            status, seconds = get(url + "/api/health")
            latencies["health"].append((time.monotonic() - started, seconds))
            if status != 200:
                errors.append(f"/api/health: HTTP {status}")
            time.sleep(0.02)

    def solve() -> None:
        for moves in positions:
            if time.monotonic() >= stop:
                break
            status, seconds = get(f"{url}/solve?pos={moves}")
            latencies["solve 7x6"].append((time.monotonic() - started, seconds))
            if status != 200:
                errors.append(f"/solve?pos={moves}: HTTP {status}")
            time.sleep(0.02)

    def big(width: int, height: int) -> None:
        name = f"{width}x{height}"
        query = f"/solve?width={width}&height={height}&pos={late[name]}"
        while time.monotonic() < stop:
            status, _ = get(url + query, timeout=60)
            if status == 200:
                ready[name] = time.monotonic() - started
                return
            if status == 503:
                refused[name] += 1
            else:
                errors.append(f"{query}: HTTP {status}")
            time.sleep(1.0)

    threads = [threading.Thread(target=health), threading.Thread(target=solve)]
    threads += [threading.Thread(target=big, args=size) for size in BIG]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        process.terminate()
        process.wait(10)
    print(
        f"first {args.seconds:.0f} s after the server's first answer; load after:", os.getloadavg()
    )
    all_ready = max(ready.values()) if len(ready) == len(BIG) else args.seconds
    windows = {
        f"0-{FIRST:.0f} s": (0.0, FIRST),
        f"{all_ready:.0f}-{args.seconds:.0f} s": (all_ready, args.seconds),
    }
    for name, timed in latencies.items():
        for window, (start, end) in windows.items():
            ms = [seconds * 1000 for at, seconds in timed if start <= at < end]
            print(
                f"{name:10s} {window:>10s} {len(ms):5d} requests  "
                f"p50 {percentile(ms, 50):7.1f} ms  p90 {percentile(ms, 90):7.1f} ms  "
                f"p99 {percentile(ms, 99):7.1f} ms  max {max(ms, default=float('nan')):7.1f} ms  "
                f"over 100 ms: {sum(m > 100 for m in ms)}"
            )
    for name, count in refused.items():
        when = f"{ready[name]:.1f} s" if name in ready else "not within the run"
        print(f"{name}: first 200 at {when} ({count} x 503 before)")
    for error in errors[:10]:
        print("error:", error)
    shutil.rmtree(folder, ignore_errors=True)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
