"""Labelled positions per second: ``connect4 dataset`` on 7x6 by ply range and worker count.

    nice python benchmarks/bench_dataset.py               # 0-12, 12-24, 24+; 1 and all workers
    nice python benchmarks/bench_dataset.py --scale 0.2 --rounds 1
    nice python benchmarks/bench_dataset.py --mid 300      # plies 12-20: random vs games

For each ply range the same seeded positions are labelled three ways, in
alternation for ``--rounds`` rounds (this machine's speed drifts: only figures
measured side by side compare): the reference, a plain loop of
``Solver.analyze`` with the default 7x6 book in this process, then
:func:`connect4.envs.dataset.make_dataset` with 1 worker process and with one
per core. The pipeline's figures count everything a user waits for: drawing
the positions, starting the workers, labelling and writing the ``.npz`` file.
Prints the median and the range of positions per second over the rounds,
solver nodes per position, the reference's per-position mean, median and max,
and the machine.

``--mid N`` measures the middle plies (12-20) instead, where labelling is
slowest, three ways in alternation, one worker each: **before**, ``make_dataset``
of N random-playout positions; **after**, ``make_dataset`` with
``--sampler games`` (N positions of games the shipped network plays, each
game's positions labelled together, last first, on one table); and the
after's very positions labelled one by one on a fresh table each (a plain
``Solver.analyze`` loop: what the same positions cost without the game
order; its labels must equal the after's).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from machine import describe_machine

from connect4.core.position import Position
from connect4.envs.dataset import (
    FULL,
    GameSampling,
    game_positions,
    load_dataset,
    make_dataset,
    sample_positions,
)
from connect4.net import shipped_network
from connect4.solver import Solver
from connect4.solver.book import load_book

RANGES = {(0, 12): 600, (12, 24): 200, (24, 41): 20000}  # positions per range at --scale 1
SEED = 2026


def reference(plies: tuple[int, int], n: int) -> tuple[float, list[float], list[list[int]], int]:
    """Label the sample with ``Solver.analyze`` in a loop: seconds, per position, scores, nodes."""
    sample = sample_positions(n, plies, seed=SEED)
    times: list[float] = []
    rows: list[list[int]] = []
    with Solver(book=load_book("default", 7, 6)) as solver:
        solver.warm_up()
        started = time.perf_counter()
        for position in sample.positions():
            start = time.perf_counter()
            scores = solver.analyze(position)
            times.append(time.perf_counter() - start)
            rows.append([FULL if s is None else s for s in scores])
        return time.perf_counter() - started, times, rows, solver.total_nodes


def fresh_tables(moves: list[str]) -> tuple[float, list[list[int]], int]:
    """Label positions one by one, each on a fresh table: seconds, scores, nodes."""
    rows: list[list[int]] = []
    with Solver(book=load_book("default", 7, 6)) as solver:
        solver.warm_up()
        started = time.perf_counter()
        for line in moves:
            scores = solver.analyze(Position.from_moves(line))
            rows.append([FULL if s is None else s for s in scores])
        return time.perf_counter() - started, rows, solver.total_nodes


def middle(n: int, rounds: int, folder: Path) -> None:
    """Plies 12-20: random playouts, games, and the games' positions on fresh tables."""
    plies = (12, 20)
    games = game_positions(
        n, plies, seed=SEED, sampling=GameSampling(), network=shipped_network()
    ).sample.moves
    ways = ["before: random, dataset", "after: games, dataset", "games' positions, fresh"]
    speed: dict[str, list[float]] = {way: [] for way in ways}
    nodes: dict[str, float] = {}
    for _ in range(rounds):
        report = make_dataset(n, plies, folder / "random.npz", seed=SEED, workers=1,
                              progress=False, force=True)  # fmt: skip
        speed[ways[0]].append(n / report.seconds)
        nodes[ways[0]] = report.nodes / n
        report = make_dataset(n, plies, folder / "games.npz", seed=SEED, workers=1,
                              progress=False, force=True, sampling=GameSampling())  # fmt: skip
        speed[ways[1]].append(n / report.seconds)
        nodes[ways[1]] = report.nodes / n
        assert report.dataset.moves.tolist() == games, "the games differ"
        seconds, rows, total = fresh_tables(games)
        assert report.dataset.scores.tolist() == rows, "labels differ"
        speed[ways[2]].append(n / seconds)
        nodes[ways[2]] = total / n
    print(
        f"{'plies':>7} {'how':<26} {'positions':>9} {'pos/s median (range)':>30} {'nodes/pos':>10}"
    )
    for way in ways:
        print(f"{'12-20':>7} {way:<26} {n:>9} {rates(speed[way]):>30} {nodes[way]:>10,.0f}")
    after, before = statistics.median(speed[ways[1]]), statistics.median(speed[ways[0]])
    print(f"after / before: {after / before:.2f}x positions/s; the games' own positions: "
          f"{nodes[ways[2]] / nodes[ways[1]]:.2f}x fewer nodes in game order")  # fmt: skip


def rates(values: list[float]) -> str:
    """Median positions per second over the rounds, with the lowest and highest."""
    return f"{statistics.median(values):>9,.1f} ({min(values):,.1f}-{max(values):,.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the positions")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--mid", type=int, help="plies 12-20 only: N positions, random vs games")
    args = parser.parse_args()
    print(f"machine: {describe_machine()}, load {os.getloadavg()[0]:.1f}")
    if args.mid:
        with tempfile.TemporaryDirectory() as folder:
            middle(args.mid, args.rounds, Path(folder))
        print(f"load at the end {os.getloadavg()[0]:.1f}")
        return
    cores = os.cpu_count() or 1
    configs = ["Solver.analyze loop", *(f"dataset, {w} worker(s)" for w in sorted({1, cores}))]
    print(
        f"{'plies':>7} {'how':<22} {'positions':>9} {'pos/s median (range)':>30} {'nodes/pos':>10}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for plies, count in RANGES.items():
            n = max(1, round(count * args.scale))
            span = f"{plies[0]}-{plies[1]}"
            speed: dict[str, list[float]] = {config: [] for config in configs}
            nodes: dict[str, float] = {}
            times: list[float] = []
            for _ in range(args.rounds):
                seconds, per_position, rows, total = reference(plies, n)
                speed[configs[0]].append(n / seconds)
                nodes[configs[0]] = total / n
                times += per_position
                for config, workers in zip(configs[1:], sorted({1, cores}), strict=True):
                    out = Path(folder) / f"{span}-{workers}.npz"
                    report = make_dataset(n, plies, out, seed=SEED, workers=workers, progress=False)
                    assert load_dataset(out).scores.tolist() == rows, "labels differ"
                    speed[config].append(n / report.seconds)
                    nodes[config] = report.nodes / n
            for config in configs:
                print(
                    f"{span:>7} {config:<22} {n:>9} {rates(speed[config]):>30} "
                    f"{nodes[config]:>10,.0f}"
                )
            print(
                f"{'':>7} reference per position: mean {statistics.mean(times) * 1e3:.2f} ms, "
                f"median {statistics.median(times) * 1e3:.2f} ms, max {max(times) * 1e3:.1f} ms"
            )


if __name__ == "__main__":
    main()
