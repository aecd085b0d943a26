"""Solve the empty board exactly, without an opening book, and report time and nodes.

    nice .venv/bin/python benchmarks/solve_empty_board.py [--tt-mb 1024] [--width 7 --height 6] \\
        [--threads N] [--reference '/work/c4ref/c4bench-{width}x{height}-t{threads}-{tt_mb}mb' \\
         --reference-threads 2] [--rounds 1] [--json]

Prints the score (+1 on 7x6), nodes, wall and CPU seconds (the CPU time is the
fair figure on a shared, busy machine), nodes/second and the machine.

With ``--reference CMD`` a reference solver (a driver of the protocol in
``reference_solver.py``, built as docs/solver.md says) solves the same
position in the same run, with the same table size; ``{width}``, ``{height}``,
``{tt_mb}`` and ``{threads}`` in CMD are filled in. With ``--rounds N`` both
solve N times, the reference first in the first round, second in the next, and
so on; the report gives medians over the rounds, the reference's figures beside
ours, and ``speedup`` (the reference's time over ours, median of the rounds'
ratios). The reference's wall time is its solve as it reports it; its CPU time
is its whole process's (every thread, table set-up included).

``--threads N`` solves with N threads on our side (Lazy SMP, see docs/solver.md);
the score is the same, the node count then varies from run to run (the report
gives the median over the rounds).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
from machine import describe_machine
from reference_solver import ReferenceError, reference_command, run_reference

from connect4.core.position import Position
from connect4.solver import Solver
from connect4.solver.layout import table_format
from connect4.solver.solver import etc_min_empty


@dataclass(frozen=True)
class SideRun:
    """One side's solve of the position: score, nodes, wall and CPU seconds."""

    score: int
    nodes: int
    seconds: float
    cpu_seconds: float


class ReferenceReport(TypedDict):
    """The reference's medians over the rounds."""

    command: str
    threads: int
    score: int
    nodes: int
    seconds: float
    cpu_seconds: float
    round_seconds: list[float]


class Report(TypedDict, total=False):
    """Our medians over the rounds (the keys of a one-round run), the reference's beside."""

    board: str
    moves: str
    score: int
    nodes: int
    seconds: float
    cpu_seconds: float
    nodes_per_second: int
    nodes_per_cpu_second: int
    tt_mb: int
    symmetry: bool
    etc: int
    threads: int
    rounds: int
    round_seconds: list[float]
    reference: ReferenceReport
    speedup: float
    cpu_speedup: float
    machine: str


def solve_ours(solver: Solver, position: Position, weak: bool) -> SideRun:
    """Our solver on the position, its table cleared first (as every call does)."""
    cpu_start = time.process_time()
    start = time.perf_counter()
    result = solver.run(position, weak=weak)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    assert result.score is not None, "an unlimited solve always completes"
    return SideRun(result.score, result.nodes, wall, cpu)


def solve_reference(command: list[str], moves: str) -> SideRun:
    """The reference on the position, through its driver (a fresh process, a cleared table)."""
    run = run_reference(command, [moves])
    solve = run.solves[0]
    return SideRun(solve.score, solve.nodes, solve.micros / 1e6, run.cpu_seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=7)
    parser.add_argument("--height", type=int, default=6)
    parser.add_argument("--tt-mb", type=int, default=1024, help="table size in MB")
    parser.add_argument("--moves", default="", help="start from this move string instead")
    parser.add_argument("--weak", action="store_true", help="win/draw/loss only")
    parser.add_argument("--no-symmetry", action="store_true")
    parser.add_argument(
        "--etc",
        type=int,
        default=None,
        help="ETC at >= N empty cells (0 = off; default: the solver's own threshold)",
    )
    parser.add_argument("--threads", type=int, default=1, help="our search threads (Lazy SMP)")
    parser.add_argument("--reference", help="command of a reference solver to run beside ours")
    parser.add_argument(
        "--reference-threads", type=int, default=1, help="fills {threads} in the command"
    )
    parser.add_argument("--rounds", type=int, default=1, help="solves per side, alternating")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.reference and args.weak:
        parser.error("--weak: the reference drivers solve strongly; compare strong solves")
    try:
        solver = Solver(
            args.width,
            args.height,
            args.tt_mb,
            symmetry=not args.no_symmetry,
            etc=True if args.etc is None else args.etc,
            threads=args.threads,
        )
        position = Position.from_moves(args.moves, args.width, args.height)
        solver.check(position)
    except ValueError as error:
        parser.error(str(error))
    solver.warm_up()
    table = solver._table().table  # paged in untimed, as the reference's clear pages in its own
    np.add(table, 0, out=table)
    command: list[str] = []
    if args.reference:
        try:
            command = reference_command(
                args.reference, args.width, args.height, args.tt_mb, args.reference_threads
            )
        except ReferenceError as error:
            parser.error(f"--reference: {error}")
    ours: list[SideRun] = []
    theirs: list[SideRun] = []
    try:
        for round_number in range(args.rounds):
            if command and round_number % 2 == 0:
                theirs.append(solve_reference(command, args.moves))
            ours.append(solve_ours(solver, position, args.weak))
            if command and round_number % 2 == 1:
                theirs.append(solve_reference(command, args.moves))
    except ReferenceError as error:
        sys.exit(f"error: {error}")
    report = our_report(args, ours)
    if command:
        add_reference(report, args, command, ours, theirs)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            if isinstance(value, dict):
                for inner, item in value.items():
                    print(f"{'reference ' + inner:>22}: {_text(item)}")
            else:
                print(f"{key:>22}: {_text(value)}")
    if command and theirs[0].score != ours[0].score:
        sys.exit(f"error: the reference scored {theirs[0].score}, ours {ours[0].score}")


def our_report(args: argparse.Namespace, ours: list[SideRun]) -> Report:
    """Our side's figures: medians over the rounds."""
    wall = statistics.median(run.seconds for run in ours)
    cpu = statistics.median(run.cpu_seconds for run in ours)
    nodes = round(statistics.median(run.nodes for run in ours))  # threads: they vary
    report = Report(
        board=f"{args.width}x{args.height}",
        moves=args.moves,
        score=ours[0].score,
        nodes=nodes,
        seconds=round(wall, 2),
        cpu_seconds=round(cpu, 2),
        nodes_per_second=round(nodes / max(wall, 1e-9)),
        nodes_per_cpu_second=round(nodes / max(cpu, 1e-9)),
        tt_mb=args.tt_mb,
        symmetry=not args.no_symmetry,
        etc=args.etc
        if args.etc is not None
        else etc_min_empty(table_format(args.width, args.height, args.tt_mb << 20).words),
        threads=args.threads,
    )
    if args.rounds > 1:
        report["rounds"] = args.rounds
        report["round_seconds"] = [round(run.seconds, 2) for run in ours]
    report["machine"] = describe_machine()
    return report


def add_reference(
    report: Report,
    args: argparse.Namespace,
    command: list[str],
    ours: list[SideRun],
    theirs: list[SideRun],
) -> None:
    """The reference's medians and the speed-ups (its time over ours, per round) into ``report``."""
    machine = report.pop("machine")
    report["reference"] = ReferenceReport(
        command=" ".join(command),
        threads=args.reference_threads,
        score=theirs[0].score,
        nodes=round(statistics.median(run.nodes for run in theirs)),
        seconds=round(statistics.median(run.seconds for run in theirs), 2),
        cpu_seconds=round(statistics.median(run.cpu_seconds for run in theirs), 2),
        round_seconds=[round(run.seconds, 2) for run in theirs],
    )
    pairs = list(zip(theirs, ours, strict=True))
    report["speedup"] = round(statistics.median(t.seconds / o.seconds for t, o in pairs), 2)
    report["cpu_speedup"] = round(
        statistics.median(t.cpu_seconds / max(o.cpu_seconds, 1e-9) for t, o in pairs), 2
    )
    report["machine"] = machine


def _text(value: object) -> str:
    return f"{value:,}" if type(value) is int else str(value)


if __name__ == "__main__":
    main()
