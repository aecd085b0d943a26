"""Labelled positions per second: ``connect4 dataset`` on 7x6 by ply range and worker count.

    nice python benchmarks/bench_dataset.py               # 0-12, 12-24, 24+; 1 and all workers
    nice python benchmarks/bench_dataset.py --scale 0.2   # fewer positions per range

For each ply range the same seeded positions are labelled three ways, one
after the other: the reference, a plain loop of ``Solver.analyze`` with the
default 7x6 book in this process (per-position mean, median and max), then
:func:`connect4.envs.dataset.make_dataset` with 1 worker process and with one
per core. The pipeline's figures count everything a user waits for: drawing
the positions, starting the workers, loading the book in each, labelling and
writing the ``.npz`` file. Prints positions per second, solver nodes per
position and the machine.
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
from connect4.solver.book import default_book

RANGES = {(0, 12): 300, (12, 24): 40, (24, 41): 4000}  # positions per range at --scale 1
SEED = 2026


def reference(plies: tuple[int, int], n: int) -> tuple[float, list[float], list[list[int]]]:
    """Label the sample with ``Solver.analyze`` in a loop: (seconds, per position, scores)."""
    sample = sample_positions(n, plies, seed=SEED)
    times: list[float] = []
    rows: list[list[int]] = []
    with Solver(book=default_book(7, 6)) as solver:
        solver.warm_up()
        started = time.perf_counter()
        for position in sample.positions():
            start = time.perf_counter()
            scores = solver.analyze(position)
            times.append(time.perf_counter() - start)
            rows.append([FULL if s is None else s for s in scores])
        return time.perf_counter() - started, times, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the positions")
    args = parser.parse_args()
    print(f"machine: {describe_machine()}")
    cores = os.cpu_count() or 1
    print(
        f"{'plies':>7} {'how':<22} {'positions':>9} {'seconds':>8} {'pos/s':>9} "
        f"{'nodes/pos':>10}  per position (mean / median / max)"
    )
    with tempfile.TemporaryDirectory() as folder:
        for plies, count in RANGES.items():
            n = max(1, round(count * args.scale))
            span = f"{plies[0]}-{plies[1]}"
            seconds, times, rows = reference(plies, n)
            print(
                f"{span:>7} {'Solver.analyze loop':<22} {n:>9} {seconds:>8.2f} "
                f"{n / seconds:>9,.1f} {'':>10}  {statistics.mean(times) * 1e3:.2f} / "
                f"{statistics.median(times) * 1e3:.2f} / {max(times) * 1e3:.1f} ms"
            )
            for workers in sorted({1, cores}):
                out = Path(folder) / f"{span}-{workers}.npz"
                report = make_dataset(n, plies, out, seed=SEED, workers=workers, progress=False)
                assert load_dataset(out).scores.tolist() == rows, "labels differ"
                print(
                    f"{span:>7} {f'dataset, {workers} worker(s)':<22} {n:>9} "
                    f"{report.seconds:>8.2f} {n / report.seconds:>9,.1f} "
                    f"{report.nodes / n:>10,.0f}"
                )


if __name__ == "__main__":
    main()
