"""Our solver and c4 on random late positions of a board over 64 bits, in alternation.

    nice .venv/bin/python benchmarks/compare_big.py --size 8x8 \
        --reference /work/c4ref/c4bench-8x8-t1-2048mb [--positions 20] [--empty 16] \
        [--rounds 3] [--tt-mb 64] [--threads 1] [--seed 1] [--json]

c4 (ChristopheSteininger/c4) compiles its board size and table in: build it per size
with ``benchmarks/reference/build_c4.sh`` (over 64 bits its entries need a large table:
2048 MB for 72-bit boards, 512 MB for 70-bit ones). The positions are random games
stopped ``--empty`` cells before the board is full, not over, and without a win at
once for the side to move (seeded). For every round both sides solve every position
with a table cleared before each (c4 first in even rounds, ours first in odd ones);
every score must agree. Printed per side: the median over rounds of the mean time
per position, with median and max over positions and nodes, the ratio from the same
rounds, the machine and its load average (on a shared machine the figures drift).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
from dataclasses import asdict, dataclass

from machine import describe_machine
from reference_solver import ReferenceError, reference_command, run_reference

from connect4.core.position import Position
from connect4.solver import Solver


def late_positions(width: int, height: int, empty: int, count: int, seed: int) -> list[str]:
    """Move strings of random games ``empty`` cells before the end, not over, and
    without a win at once for the side to move."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        position = Position(width, height)
        while position.ply < width * height - empty and not position.is_over():
            position.play(rng.choice(position.legal_moves()))
        if position.is_over() or any(position.is_winning_move(c) for c in position.legal_moves()):
            continue
        found.append(position.moves)
    return found


@dataclass
class Side:
    """One solver's figures: means per round, and the last round's per-position times."""

    mean_us: float
    median_us: float
    max_us: float
    mean_nodes: float


def ours(
    moves: list[str], scores: list[int], width: int, height: int, args: argparse.Namespace
) -> tuple[list[float], list[int]]:
    """Our times per position (microseconds), nodes, after checking every score."""
    times: list[float] = []
    nodes: list[int] = []
    solver = Solver(width, height, args.tt_mb, threads=args.threads)
    solver.warm_up()
    for line, score in zip(moves, scores, strict=True):
        result = solver.run(Position.from_moves(line, width, height))
        if result.score != score:
            sys.exit(f"error: {line}: ours {result.score}, c4 {score}")
        times.append(result.seconds * 1e6)
        nodes.append(result.nodes)
    solver.close()
    return times, nodes


def side(times: list[float], nodes: list[float]) -> Side:
    return Side(
        statistics.mean(times), statistics.median(times), max(times), statistics.mean(nodes)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="8x8", help="WIDTHxHEIGHT, over 64 bits")
    parser.add_argument("--reference", required=True, help="c4bench built for the size")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--empty", type=int, default=16, help="empty cells left")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tt-mb", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        width, height = (int(part) for part in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size must be like 8x8, not {args.size!r}")
    moves = late_positions(width, height, args.empty, args.positions, args.seed)
    try:
        command = reference_command(args.reference, width, height, args.tt_mb, 1)
        c4_rounds: list[Side] = []
        our_rounds: list[Side] = []
        ratios: list[float] = []
        scores: list[int] = []
        for round_number in range(args.rounds):
            if round_number % 2 == 0:
                run = run_reference(command, moves)
            if round_number == 0:  # c4 ran first: its scores are the ones to match
                scores = [solve.score for solve in run.solves]
            times, nodes = ours(moves, scores, width, height, args)
            if round_number % 2 == 1:
                run = run_reference(command, moves)
            if [solve.score for solve in run.solves] != scores:
                sys.exit("error: c4's scores changed between rounds")
            c4 = side([s.micros for s in run.solves], [s.nodes for s in run.solves])
            mine = side(times, [float(n) for n in nodes])
            c4_rounds.append(c4)
            our_rounds.append(mine)
            ratios.append(c4.mean_us / mine.mean_us)
    except ReferenceError as error:
        sys.exit(f"error: {error}")
    c4_mean = statistics.median(s.mean_us for s in c4_rounds)
    our_mean = statistics.median(s.mean_us for s in our_rounds)
    load = os.getloadavg()
    report = {
        "size": args.size, "positions": len(moves), "empty": args.empty, "rounds": args.rounds,
        "threads": args.threads, "tt_mb": args.tt_mb, "scores_equal": True,
        "c4": [asdict(s) for s in c4_rounds], "ours": [asdict(s) for s in our_rounds],
        "c4_mean_us": c4_mean, "our_mean_us": our_mean, "ours_as_fast": statistics.median(ratios),
        "machine": describe_machine(), "load": load,
    }  # fmt: skip
    if args.json:
        print(json.dumps(report, indent=2))
        return
    last_c4, last_ours = c4_rounds[-1], our_rounds[-1]
    print(f"{args.size}, {len(moves)} positions {args.empty} cells from the end, "
          f"{args.rounds} rounds, scores equal on every position")  # fmt: skip
    for name, mean, last in (("c4  ", c4_mean, last_c4), ("ours", our_mean, last_ours)):
        print(f"{name} mean {mean:>12,.0f} µs (median of rounds) | last round: median "
              f"{last.median_us:>10,.0f} µs, max {last.max_us:>12,.0f} µs, "
              f"{last.mean_nodes:>12,.0f} nodes")  # fmt: skip
    print(f"ours {statistics.median(ratios):.2f}x as fast as c4 (median of the rounds' ratios)")
    print(f"machine: {describe_machine()}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
