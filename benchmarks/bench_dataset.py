"""Labelled positions per second: ``connect4 dataset`` on 7x6 by ply range and worker count.

    nice python benchmarks/bench_dataset.py               # 0-12, 12-24, 24+; 1 and all workers
    nice python benchmarks/bench_dataset.py --scale 0.2 --rounds 1

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
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from machine import describe_machine

from connect4.envs.dataset import FULL, load_dataset, make_dataset, sample_positions
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


def rates(values: list[float]) -> str:
    """Median positions per second over the rounds, with the lowest and highest."""
    return f"{statistics.median(values):>9,.1f} ({min(values):,.1f}-{max(values):,.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the positions")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    args = parser.parse_args()
    print(f"machine: {describe_machine()}")
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
