"""Our solver and a reference solver, timed in alternation on the same machine.

    nice .venv/bin/python benchmarks/compare_reference.py \
        --reference /work/c4ref/c4bench-7x6-t{threads}-{tt_mb}mb [--reference-threads 2] \
        [--sets L3_R1,L2_R1,L2_R2,L1_R1,L1_R2,L1_R3] [--rounds 3] [--limit N] [--tt-mb 64] \
        [--threads N] [--json]

This machine's speed drifts by ±30 % over minutes, so figures measured at
different times do not compare. This script runs, for every Pons set and every
round, the reference on the whole set and our solver on it (the reference first
in the first round, second in the next, and so on), and reports the median over
rounds of each side's mean time per position, its mean nodes, and the ratio of
the two from the same round (median over rounds). Every score of both is checked.

The reference is any program that reads move strings on stdin, one per line,
and prints ``moves score nodes microseconds`` for each, timing the solve only,
with its table cleared before each position and no opening book: the drivers
in ``benchmarks/reference/`` do this for Pons' solver and for c4, built beside
this project as docs/solver.md says ({tt_mb} and {threads} in the command are
filled in from ``--tt-mb`` and ``--reference-threads``). Begin-Medium (L1_R2)
runs its first 200 lines and Begin-Hard (L1_R3) its first 100 unless
``--limit`` says otherwise. With ``--threads N`` (N > 1) our side solves each
position with ``Solver(threads=N).run`` timed from Python (Lazy SMP; the batch
kernel is one thread), as ``thread_scaling.py`` does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import TypedDict

from machine import describe_machine
from reference_solver import ReferenceError, reference_command, run_reference
from thread_scaling import solve_all

from connect4.solver import Solver
from connect4.solver.bench import (
    PONS_SETS,
    BenchCase,
    pons_path,
    read_cases,
    run_cases,
    set_label,
)

SETS = [name.removeprefix("Test_") for name in PONS_SETS]  # L3_R1, L2_R1, ...
DEFAULT_LIMITS = {"L1_R2": 200, "L1_R3": 100}  # the reference needs long on these


def reference_means(command: list[str], cases: list[BenchCase]) -> tuple[float, float]:
    """Mean microseconds and mean nodes per position of the reference; checks its scores."""
    run = run_reference(command, [case.moves for case in cases])
    for case, solve in zip(cases, run.solves, strict=True):
        if solve.score != case.score:
            raise ReferenceError(
                f"the reference scored {case.moves} {solve.score}, expected {case.score}"
            )
    micros = sum(solve.micros for solve in run.solves)
    nodes = sum(solve.nodes for solve in run.solves)
    return micros / len(cases), nodes / len(cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reference",
        required=True,
        help="command of the reference solver ({tt_mb} and {threads} are filled in)",
    )
    parser.add_argument(
        "--reference-threads", type=int, default=1, help="fills {threads} in the command"
    )
    parser.add_argument("--sets", default="L3_R1,L2_R1,L2_R2,L1_R1,L1_R2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="first N lines of every set")
    parser.add_argument("--tt-mb", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="our search threads (Lazy SMP)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    solver = Solver(7, 6, args.tt_mb)
    solver.warm_up()
    keys = args.sets.split(",")
    unknown = [key for key in keys if key not in SETS]
    if unknown:
        parser.error(f"unknown set {unknown[0]!r}: choose from {', '.join(SETS)}")
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    try:
        command = reference_command(args.reference, 7, 6, args.tt_mb, args.reference_threads)
        rows = compare(
            command, keys, args.rounds, args.limit, solver, args.json, args.threads, args.tt_mb
        )
    except ReferenceError as error:
        sys.exit(f"error: {error}")
    if args.json:
        print(json.dumps({"machine": describe_machine(), "sets": rows}, indent=2))
    else:
        print(f"machine: {describe_machine()}")


class SetRow(TypedDict):
    """One Pons set: each side's median (over rounds) mean time, mean nodes, the speed-up."""

    set: str
    n: int
    reference_mean_us: float
    our_mean_us: float
    speedup: float
    reference_nodes: float
    our_nodes: float
    rounds: int


def our_means(
    name: str, cases: list[BenchCase], solver: Solver, threads: int, tt_mb: int
) -> tuple[float, float, bool]:
    """Our mean microseconds and nodes per position, and whether every score was right."""
    if threads == 1:
        report = run_cases(name, cases, solver)
        return report.mean_us, report.mean_nodes, report.correct == report.n
    run = solve_all(threads, [(case.moves, case.score) for case in cases], tt_mb)
    return run.wall / run.n * 1e6, run.nodes / run.n, run.correct == run.n


def compare(
    command: list[str],
    keys: list[str],
    rounds: int,
    limit: int | None,
    solver: Solver,
    quiet: bool,
    threads: int = 1,
    tt_mb: int = 64,
) -> list[SetRow]:
    """Every set, both sides in every round (the reference first in even rounds)."""
    rows = []
    for key in keys:
        name, default_limit = set_label(f"Test_{key}"), DEFAULT_LIMITS.get(key)
        cases = read_cases(
            str(pons_path(f"Test_{key}")), limit if limit is not None else default_limit
        )
        ref_us: list[float] = []
        our_us: list[float] = []
        ratios: list[float] = []
        ref_nodes = our_nodes = 0.0
        for round_number in range(rounds):
            if round_number % 2 == 0:
                ref_mean, ref_nodes = reference_means(command, cases)
            our_mean, our_nodes, right = our_means(name, cases, solver, threads, tt_mb)
            if round_number % 2 == 1:
                ref_mean, ref_nodes = reference_means(command, cases)
            if not right:
                sys.exit(f"error: our solver got a score wrong in {key}")
            ref_us.append(ref_mean)
            our_us.append(our_mean)
            ratios.append(ref_mean / our_mean)
        row = SetRow(
            set=f"{name} ({key})",
            n=len(cases),
            reference_mean_us=statistics.median(ref_us),
            our_mean_us=statistics.median(our_us),
            speedup=statistics.median(ratios),
            reference_nodes=ref_nodes,
            our_nodes=our_nodes,
            rounds=rounds,
        )
        rows.append(row)
        if not quiet:
            print(
                f"{row['set']:<22} n={row['n']:<5} reference {row['reference_mean_us']:>12,.1f} µs"
                f" {ref_nodes:>12,.0f} nodes | ours {row['our_mean_us']:>12,.1f} µs"
                f" {our_nodes:>12,.0f} nodes | ours {row['speedup']:.2f}x as fast",
                flush=True,
            )
    return rows


if __name__ == "__main__":
    main()
