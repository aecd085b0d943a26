"""Wall time of ``connect4 solve`` on one late position, interpreter start included.

    .venv/bin/python benchmarks/startup.py [--runs 7] [--line 44455554221] [--numba]

Runs ``echo LINE | connect4 solve`` as a fresh process ``--runs`` times (after one
untimed run that fills the caches) and prints every time, the median and the
maximum; the target is 1 s. ``--numba`` also times ``CONNECT4_NATIVE=0`` (numba
runs the kernel, as before the native kernel existed) in alternation.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import describe_machine


def connect4_command() -> list[str]:
    """The ``connect4`` script beside this Python (the venv's), else ``python -m connect4``."""
    script = Path(sys.executable).parent / "connect4"
    if script.exists():
        return [str(script)]
    found = shutil.which("connect4")
    return [found] if found else [sys.executable, "-m", "connect4"]


def time_once(line: str, env: dict[str, str]) -> float:
    """Seconds from starting ``connect4 solve`` to its exit; exits on a wrong answer."""
    start = time.perf_counter()
    done = subprocess.run(
        [*connect4_command(), "solve"],
        input=line + "\n",
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0 or not done.stdout.startswith(line + " "):
        sys.exit(f"connect4 solve failed (exit {done.returncode}): {done.stderr.strip()}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--line", default="44455554221", help="the position (a move string)")
    parser.add_argument("--numba", action="store_true", help="also time CONNECT4_NATIVE=0")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    variants = {"native kernel": {}, "numba kernel": {"CONNECT4_NATIVE": "0"}}
    if not args.numba:
        del variants["numba kernel"]
    times: dict[str, list[float]] = {name: [] for name in variants}
    for env in variants.values():
        time_once(args.line, env)  # fill numba's and the native cache
    for _ in range(args.runs):
        for name, env in variants.items():
            times[name].append(time_once(args.line, env))
    print(f"echo {args.line} | connect4 solve, {args.runs} runs each (target: 1 s)")
    for name, values in times.items():
        runs = ", ".join(f"{v:.2f}" for v in values)
        print(
            f"  {name:14} median {statistics.median(values):.3f} s, "
            f"max {max(values):.3f} s  ({runs})"
        )
    print(f"machine: {describe_machine()}")


if __name__ == "__main__":
    main()
