"""Game review speed: wall time to review whole 7x6 games with the shipped books and a warm solver.

    nice python benchmarks/bench_review.py                # 100 games
    nice python benchmarks/bench_review.py --games 20
    nice python benchmarks/bench_review.py --http         # also through GET /api/review
    nice python benchmarks/bench_review.py --http --reference ../main/src

The games are played from the empty board between ``random``,
``alphabeta:level=medium`` and ``perfect:level=easy`` (every pairing, mirror
matches too, in turn, seeded), then each is reviewed with no budget (every verdict
proven, no scores kept from earlier games). Prints mean, median (p50), p99 and max
seconds per game, plies per game, and the machine. The target: p99 <= 1 s per game.
With ``--http`` the same games are then reviewed one request at a time through
``GET /api/review`` on a local server (no other load; targets p99 <= 300 ms).

``--reference SRC`` times another checkout of the package (its ``src`` folder)
on the same games in alternation with this one, game by game: each side runs in
its own process (``review_worker.py``) with its own server, so the two figures
come from the same minutes of this machine's drifting speed.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import cpu_model

from connect4 import Position
from connect4.players import make_player

SPECS = ("random", "alphabeta:level=medium", "perfect:level=easy")
HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "src"


def play(red: str, yellow: str, seed: int) -> str:
    players = [
        make_player(spec, game="connect4", seed=seed + i) for i, spec in enumerate((red, yellow))
    ]
    position = Position()
    while not position.is_over():
        position.play(players[position.ply % 2].choose(position).move)
    return position.moves


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def figures(seconds: list[float]) -> str:
    return (
        f"mean {statistics.mean(seconds):.3f} s, p50 {percentile(seconds, 0.5):.3f} s, "
        f"p99 {percentile(seconds, 0.99):.3f} s, max {max(seconds):.3f} s"
    )


class Worker:
    """A ``review_worker.py`` process reviewing games with the package found in ``source``."""

    def __init__(self, source: Path, http: bool) -> None:
        env = {**os.environ, "PYTHONPATH": str(source)}
        command = [sys.executable, str(HERE / "review_worker.py")] + (["--http"] if http else [])
        self.process = subprocess.Popen(
            command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.ask("warm", "4")

    def ask(self, kind: str, moves: str) -> float:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{kind} {moves}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            sys.exit(f"error: the review worker for {kind} {moves} stopped")
        return float(answer)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games to play and review")
    parser.add_argument("--http", action="store_true", help="also time GET /api/review")
    parser.add_argument(
        "--reference", type=Path, help="another checkout's src folder, timed in alternation"
    )
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, {cpu_model()}, Python {sys.version.split()[0]}")
    pairings = itertools.cycle(itertools.product(SPECS, repeat=2))
    games = [play(*next(pairings), seed=seed) for seed in range(args.games)]
    sides = {"this build": SOURCE}
    if args.reference is not None:
        sides["reference"] = args.reference.resolve()
    workers = {name: Worker(source, args.http) for name, source in sides.items()}
    kinds = ["library"] + (["http"] if args.http else [])
    seconds: dict[tuple[str, str], list[float]] = {(n, k): [] for n in sides for k in kinds}
    for index, moves in enumerate(games):
        order = list(workers) if index % 2 == 0 else list(reversed(workers))
        for kind in kinds:
            for name in order:
                seconds[(name, kind)].append(workers[name].ask(kind, moves))
    for worker in workers.values():
        worker.close()
    plies = statistics.mean(len(moves) for moves in games)
    print(f"{len(games)} games, {plies:.1f} plies on average, each reviewed afresh")
    for kind in kinds:
        label = "library review()" if kind == "library" else "GET /api/review, one at a time"
        for name in sides:
            print(f"{label:32} {name:10}: {figures(seconds[(name, kind)])} per game")
    mine = seconds[("this build", "library")]
    slowest = max(range(len(games)), key=mine.__getitem__)
    print(f"slowest (library, this build): {games[slowest]} ({mine[slowest]:.3f} s)")
    long = [s for s, moves in zip(mine, games, strict=True) if len(moves) >= 30]
    if long:
        print(
            f"{len(long)} games of 30 plies or more (library, this build): "
            f"p50 {percentile(long, 0.5):.3f} s, max {max(long):.3f} s"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"{time.perf_counter() - started:.0f} s in all")
