"""Time the solver on Pons' benchmark sets and compare with the C++ reference.

    .venv/bin/python benchmarks/bench_solver.py [--sets L3_R1,L2_R1] [--limit N] [--tt-mb 64]
        [--no-symmetry] [--no-tt-move] [--etc] [--json]

Prints, per set: positions, correct, mean / median / max time per position
(wall clock), CPU time per position, mean nodes, nodes/second, and the C++
reference (Pons' solver, 2^24-entry table cleared per position), then the machine.
Begin-Hard (L1_R3) runs its first 100 lines, like the reference.
"""

from __future__ import annotations

import argparse
import json
import sys

from machine import describe_machine

from connect4.solver import Solver
from connect4.solver.bench import format_report, pons_path, read_cases, run_cases, set_label

# set: (the reference's quoted mean seconds and mean nodes, default line limit)
SETS = {
    "L3_R1": (3.9e-6, 51, None),
    "L2_R1": (25.9e-6, 449, None),
    "L2_R2": (2.11e-3, 39_800, None),
    "L1_R1": (165e-6, 3_300, None),
    "L1_R2": (0.163, 1_190_000, None),
    "L1_R3": (6.6, 58_000_000, 100),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="L3_R1,L2_R1,L2_R2,L1_R1,L1_R2,L1_R3")
    parser.add_argument("--limit", type=int, default=None, help="first N lines of every set")
    parser.add_argument("--tt-mb", type=int, default=64)
    parser.add_argument("--no-symmetry", action="store_true")
    parser.add_argument("--no-tt-move", action="store_true")
    parser.add_argument(
        "--etc", type=int, default=None, help="ETC at nodes with >= N empty cells (0 = off)"
    )
    parser.add_argument("--one-slot", action="store_true", help="one-entry buckets, always replace")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    solver = Solver(
        7,
        6,
        args.tt_mb,
        symmetry=not args.no_symmetry,
        tt_move=not args.no_tt_move,
        etc=args.etc if args.etc is not None else True,
        two_slots=not args.one_slot,
    )
    rows = []
    for key in args.sets.split(","):
        ref_seconds, ref_nodes, default_limit = SETS[key]
        name = set_label(f"Test_{key}")
        limit = args.limit if args.limit is not None else default_limit
        cases = read_cases(str(pons_path(f"Test_{key}")), limit)
        report = run_cases(f"{name} ({key})", cases, solver)
        row = report.as_json() | {
            "ref_mean_us": ref_seconds * 1e6,
            "ref_nodes": ref_nodes,
            "speedup": ref_seconds * 1e6 / report.mean_us,
            "cpu_speedup": ref_seconds * 1e6 / report.cpu_mean_us,
        }
        rows.append(row)
        if not args.json:
            print(format_report(report))
            print(
                f"    reference: {ref_seconds * 1e6:,.1f} µs, {ref_nodes:,} nodes -> "
                f"wall {row['speedup']:.2f}x, cpu {row['cpu_speedup']:.2f}x the reference speed",
                flush=True,
            )
    options = {
        "tt_mb": args.tt_mb,
        "symmetry": not args.no_symmetry,
        "tt_move": not args.no_tt_move,
        "etc": args.etc,
        "two_slots": not args.one_slot,
    }
    if args.json:
        report = {"machine": describe_machine(), "options": options, "sets": rows}
        print(json.dumps(report, indent=2))
    else:
        print(f"options: {options}")
        print(f"machine: {describe_machine()}")
    if any(row["correct"] != row["n"] for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
