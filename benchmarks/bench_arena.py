"""Arena throughput: games per second by executor, and the cost of external bots.

    nice python benchmarks/bench_arena.py                 # default sizes
    nice python benchmarks/bench_arena.py --games 200     # games per scenario

Scenarios (7x6, openings after 2 plies, results fsynced to a temporary file):
``random`` vs ``random:seed=1`` in-process, on 2 local processes and on a Dask
LocalCluster (threads); ``cmd:PYTHON examples/bot.py`` vs ``random`` (one
bot process per game); and the accuracy judgement (solver with the default
book, 200k nodes per position) of random games. Prints the machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from machine import cpu_model

from connect4.arena import ArenaConfig, load_openings, run_tournament

ROOT = Path(__file__).resolve().parent.parent


def config(players: tuple[str, ...], games: int, accuracy: int = 0) -> ArenaConfig:
    base = ArenaConfig(players=players, games_per_pair=games, seed=1, accuracy_nodes=accuracy)
    return replace(base, openings=load_openings("plies=2", base))


def timed(
    label: str, tournament: ArenaConfig, workers: int = 1, scheduler: str | None = None
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        started = time.perf_counter()
        results = Path(directory) / "r.jsonl"
        run = run_tournament(tournament, results, workers=workers, scheduler=scheduler)
        seconds = time.perf_counter() - started
    games = len(run.records)
    moves = sum(len(r["move_seconds"]) for r in run.records)
    print(
        f"{label:<44} {games:>5} games {seconds:8.2f} s  {games / seconds:8.1f} games/s"
        f"  {1000 * seconds / games:8.2f} ms/game  ({moves / games:.1f} moves/game)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per scenario")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, {cpu_model()}, Python {sys.version.split()[0]}")
    randoms = config(("random", "random:seed=1"), args.games)
    timed("random vs random, in-process", randoms)
    timed("random vs random, 2 processes", randoms, workers=2)
    try:
        from dask.distributed import LocalCluster

        with LocalCluster(
            processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
        ) as cluster:
            address = cluster.scheduler_address
            timed("random vs random, Dask LocalCluster", randoms, scheduler=address)
    except ImportError:
        print("dask not installed: skipped")
    bot = f"cmd:{sys.executable} {ROOT / 'examples' / 'bot.py'}"
    timed("example bot (process per game) vs random", config((bot, "random"), args.games))
    timed("example bot vs random, 2 processes", config((bot, "random"), args.games), workers=2)
    judged = config(("random", "random:seed=1"), max(args.games // 4, 2), accuracy=200_000)
    timed("random vs random + accuracy (200k nodes)", judged)


if __name__ == "__main__":
    main()
