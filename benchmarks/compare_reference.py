"""Our solver and a reference solver, timed in alternation on the same machine.

    nice -n 0 .venv/bin/python benchmarks/compare_reference.py --reference /tmp/ref/c4bench \
        [--sets L3_R1,L2_R1,L2_R2,L1_R1,L1_R2,L1_R3] [--rounds 3] [--limit N] [--json]

This machine's speed drifts by ±30 % over minutes, so figures measured at
different times do not compare. This script runs, for every Pons set and every
round, the reference on the whole set and then our solver on it, and reports
the median over rounds of each side's mean time per position, its mean nodes,
and the ratio of the two from the same round (median over rounds).

The reference is any program that reads move strings on stdin, one per line,
and prints ``moves score nodes microseconds`` for each, timing the solve only:
for Pons' C++ solver, the ``main()`` of his tutorial (a ``solver.reset()`` of the
2^24-entry table before each position, outside the timed region, and no opening
book). It is not shipped with this project: build it yourself beside it.
Begin-Medium (L1_R2) runs its first 200 lines and Begin-Hard (L1_R3) its first
100 unless ``--limit`` says otherwise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from machine import describe_machine

from connect4.solver import Solver
from connect4.solver.bench import BenchCase, read_cases, run_cases

PONS = Path(__file__).resolve().parent / "pons"
SETS = {
    "L3_R1": ("End-Easy", None),
    "L2_R1": ("Middle-Easy", None),
    "L2_R2": ("Middle-Medium", None),
    "L1_R1": ("Begin-Easy", None),
    "L1_R2": ("Begin-Medium", 200),
    "L1_R3": ("Begin-Hard", 100),
}


def run_reference(command: str, cases: list[BenchCase]) -> tuple[float, float]:
    """Mean microseconds and mean nodes per position of the reference; checks its scores."""
    text = "".join(f"{case.moves}\n" for case in cases)
    try:
        done = subprocess.run(command.split(), input=text, capture_output=True, text=True)
    except OSError as error:
        sys.exit(f"error: cannot run the reference {command!r}: {error.strerror}")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        sys.exit(f"error: the reference exited with status {done.returncode}: {last}")
    rows = [line.split() for line in done.stdout.splitlines() if line.strip()]
    if len(rows) != len(cases):
        sys.exit(f"error: the reference printed {len(rows)} lines for {len(cases)} positions")
    micros = nodes = 0.0
    for case, row in zip(cases, rows, strict=True):
        if len(row) != 4 or row[0] != case.moves:
            sys.exit(f"error: expected 'moves score nodes microseconds', got {' '.join(row)!r}")
        if int(row[1]) != case.score:
            sys.exit(f"error: the reference scored {case.moves} {row[1]}, expected {case.score}")
        nodes += int(row[2])
        micros += float(row[3])
    return micros / len(cases), nodes / len(cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True, help="command of the reference solver")
    parser.add_argument("--sets", default="L3_R1,L2_R1,L2_R2,L1_R1,L1_R2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="first N lines of every set")
    parser.add_argument("--tt-mb", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    solver = Solver(7, 6, args.tt_mb)
    solver.warm_up()
    keys = args.sets.split(",")
    unknown = [key for key in keys if key not in SETS]
    if unknown:
        parser.error(f"unknown set {unknown[0]!r}: choose from {', '.join(SETS)}")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    rows = []
    for key in keys:
        name, default_limit = SETS[key]
        limit = args.limit if args.limit is not None else default_limit
        cases = read_cases(str(PONS / f"Test_{key}"), limit)
        ref_us: list[float] = []
        our_us: list[float] = []
        ratios: list[float] = []
        ref_nodes = our_nodes = 0.0
        for _ in range(args.rounds):
            ref_mean, ref_nodes = run_reference(args.reference, cases)
            report = run_cases(name, cases, solver)
            if report.correct != report.n:
                sys.exit(f"error: our solver got {report.n - report.correct} wrong in {key}")
            ref_us.append(ref_mean)
            our_us.append(report.mean_us)
            ratios.append(ref_mean / report.mean_us)
            our_nodes = report.mean_nodes
        row = {
            "set": f"{name} ({key})",
            "n": len(cases),
            "reference_mean_us": statistics.median(ref_us),
            "our_mean_us": statistics.median(our_us),
            "speedup": statistics.median(ratios),
            "reference_nodes": ref_nodes,
            "our_nodes": our_nodes,
            "rounds": args.rounds,
        }
        rows.append(row)
        if not args.json:
            print(
                f"{row['set']:<22} n={row['n']:<5} reference {row['reference_mean_us']:>12,.1f} µs"
                f" {ref_nodes:>12,.0f} nodes | ours {row['our_mean_us']:>12,.1f} µs"
                f" {our_nodes:>12,.0f} nodes | ours {row['speedup']:.2f}x as fast",
                flush=True,
            )
    if args.json:
        print(json.dumps({"machine": describe_machine(), "sets": rows}, indent=2))
    else:
        print(f"machine: {describe_machine()}")


if __name__ == "__main__":
    main()
