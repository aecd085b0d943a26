"""How the solver's speed scales with threads (Lazy SMP on one shared table).

    .venv/bin/python benchmarks/thread_scaling.py [--threads 1,2] [--set L1_R3] [--limit 20]
        [--tt-mb 64] [--rounds 1] [--empty-board] [--json]

For each round and each thread count (in turn, so the machine's drift hits every
count alike) solves the first ``--limit`` positions of a Pons set (default:
Begin-Hard, first 20) with a ``--tt-mb`` table logically cleared before each
position, checks every score, and prints per thread count: wall seconds, CPU
seconds, nodes (every thread's), nodes per second, and the speed-up against
the first count (the median of the per-round ratios). ``--empty-board`` adds
the 7x6 empty board (no book; minutes per count on 2 cores). The load average
is printed beside: on a shared machine a thread may not get a core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass

from machine import describe_machine

from connect4.core.position import Position
from connect4.solver import Solver
from connect4.solver.bench import pons_path


@dataclass
class Run:
    """One thread count on one set in one round."""

    threads: int
    wall: float
    cpu: float
    nodes: int
    correct: int
    n: int


def solve_all(threads: int, cases: list[tuple[str, int | None]], tt_mb: int) -> Run:
    """Solve every case with a fresh table generation each; count the right scores."""
    solver = Solver(7, 6, tt_mb, threads=threads)
    solver.solve(Position.from_moves("4455"))  # the table and the threads are ready
    wall = cpu = 0.0
    nodes = correct = 0
    for moves, expected in cases:
        position = Position.from_moves(moves)
        start, cpu_start = time.perf_counter(), time.process_time()
        result = solver.run(position)
        wall += time.perf_counter() - start
        cpu += time.process_time() - cpu_start
        nodes += result.nodes
        correct += expected is None or result.score == expected
    solver.close()
    return Run(threads, wall, cpu, nodes, correct, len(cases))


def thread_counts(text: str) -> list[int]:
    """``--threads``: a comma-separated list of counts >= 1."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"expected counts >= 1 such as 1,2,4, not {text!r}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=thread_counts, default=[1, 2])
    parser.add_argument("--set", default="L1_R3", help="Pons set (default Begin-Hard)")
    parser.add_argument("--limit", type=int, default=20, help="first N positions")
    parser.add_argument("--tt-mb", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--empty-board", action="store_true", help="also the 7x6 empty board")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    lines = pons_path(f"Test_{args.set}").read_text().splitlines()[: args.limit]
    suites: dict[str, list[tuple[str, int | None]]] = {
        f"{args.set} (first {len(lines)})": [(m, int(s)) for m, s in (x.split() for x in lines)]
    }
    if args.empty_board:
        suites["empty board"] = [("", 1)]
    runs: dict[str, list[list[Run]]] = {name: [] for name in suites}
    for _ in range(args.rounds):
        for name, cases in suites.items():
            runs[name].append([solve_all(t, cases, args.tt_mb) for t in args.threads])
            if not args.json:
                for run in runs[name][-1]:
                    print(f"  {name}, {run.threads} threads: {run.wall:.2f} s", flush=True)
    report = {"machine": describe_machine(), "load_average": os.getloadavg(), "suites": {}}
    wrong = False
    for name, rounds in runs.items():
        rows = []
        for i in range(len(args.threads)):
            mine = [r[i] for r in rounds]
            wall = statistics.median(r.wall for r in mine)
            speedup = statistics.median(r[0].wall / r[i].wall for r in rounds)
            nodes = int(statistics.median(r.nodes for r in mine))
            rows.append(
                asdict(mine[-1])
                | {"wall": wall, "nodes": nodes, "nodes_per_second": nodes / wall}
                | {"speedup": speedup}
            )
            wrong |= any(r.correct != r.n for r in mine)
        report["suites"][name] = rows  # type: ignore[index]
        if not args.json:
            print(f"{name}, {args.tt_mb} MB table, {args.rounds} round(s):")
            print("  threads   wall s    CPU s        nodes   nodes/s  speed-up  correct")
            for row in rows:
                print(
                    f"  {row['threads']:>7} {row['wall']:>8.2f} {row['cpu']:>8.2f} "
                    f"{row['nodes']:>12,} {row['nodes_per_second'] / 1e6:>7.2f}M "
                    f"{row['speedup']:>8.2f}x  {row['correct']}/{row['n']}"
                )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"load average: {report['load_average']}")
        print(f"machine: {report['machine']}")
    if wrong:
        sys.exit(1)


if __name__ == "__main__":
    main()
