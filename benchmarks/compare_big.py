"""Our solver and c4 on random late positions of boards over 64 bits, in alternation.

    nice .venv/bin/python benchmarks/compare_big.py --size 8x8,9x7,10x6 --empty 24,28,32 \
        --reference '/work/c4ref/c4bench-{width}x{height}-t{threads}-{tt_mb}mb' \
        [--positions 20] [--rounds 3] [--tt-mb 64] [--reference-mb MB] [--threads 1] \
        [--seed 1] [--json]

c4 (ChristopheSteininger/c4) compiles its board size, threads and table in: build it
per size with ``benchmarks/reference/build_c4.sh``. ``{width}``, ``{height}``,
``{threads}`` and ``{tt_mb}`` in the reference command are filled in per board: the
threads are ours (``--threads``), the table is c4's (``--reference-mb``; by default
ours, or the least c4 accepts for the board where that is more: its entries keep
``log2(entries) + 45`` bits of the key, so 2048 MB for 72-bit boards, 512 MB for
70-bit ones).

For every board and every count of empty cells (``--size`` and ``--empty`` take comma
lists) the positions are random games stopped that many cells before the board is
full, not over, and without a win at once for the side to move (seeded). For every
round both sides solve every position with a table cleared (and paged in) before each,
outside the timing (c4 first in even rounds, ours first in odd ones); every score must
agree. One row per sample: each side's mean time per position (the median over rounds
of the rounds' means) and mean nodes (last round), ours as fast as c4 (the median of
the rounds' ratios of the means; the least round beside it), on how many positions
ours was slower (each position's median time over the rounds), and the load average
when the row ended (on a shared machine the figures drift). ``--json`` adds every
position's figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
from dataclasses import asdict, dataclass, field

import numpy as np
from machine import describe_machine
from reference_solver import ReferenceError, reference_command, run_reference

from connect4.core.position import Position
from connect4.solver import Solver

C4_KEY_BITS = 45  # bits of the key a c4 entry keeps beside log2(entries)


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


def c4_least_mb(width: int, height: int) -> int:
    """The least power-of-two table (MB) c4 accepts for a board: its entry check
    wants ``log2(entries) + 45 > bits``, with ``2^17`` entries a MB.

    >>> c4_least_mb(8, 8), c4_least_mb(10, 6), c4_least_mb(11, 5), c4_least_mb(7, 6)
    (2048, 512, 32, 1)
    """
    bits = width * (height + 1)
    return 1 << max(0, bits - C4_KEY_BITS - 17 + 1)


@dataclass
class Side:
    """One solver's figures in one round: mean, median and max time per position
    (microseconds), mean nodes."""

    mean_us: float
    median_us: float
    max_us: float
    mean_nodes: float


@dataclass
class Row:
    """One sample (a board, a count of empty cells) over every round."""

    size: str
    bits: int
    empty: int
    positions: int
    c4_mb: int
    c4_mean_us: float
    our_mean_us: float
    c4_nodes: float
    our_nodes: float
    ours_as_fast: float
    least_round: float
    slower_on: int
    load: tuple[float, float, float]
    c4: list[Side] = field(default_factory=list)
    ours: list[Side] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    c4_us: list[float] = field(default_factory=list)
    our_us: list[float] = field(default_factory=list)
    c4_position_nodes: list[int] = field(default_factory=list)
    our_position_nodes: list[int] = field(default_factory=list)


def ours(
    moves: list[str], scores: list[int], width: int, height: int, args: argparse.Namespace
) -> tuple[list[float], list[int]]:
    """Our times per position (microseconds), nodes, after checking every score."""
    times: list[float] = []
    nodes: list[int] = []
    solver = Solver(width, height, args.tt_mb, threads=args.threads)
    try:
        solver.warm_up()
        # c4 clears (and so pages in) its table before each position, untimed: page ours
        # in too, so that the first round's searches do not pay for it
        table = solver._table().table
        np.add(table, 0, out=table)
        for line, score in zip(moves, scores, strict=True):
            result = solver.run(Position.from_moves(line, width, height))
            if result.score != score:
                sys.exit(f"error: {line}: ours {result.score}, c4 {score}")
            times.append(result.seconds * 1e6)
            nodes.append(result.nodes)
    finally:
        solver.close()
    return times, nodes


def side(times: list[float], nodes: list[float]) -> Side:
    return Side(
        statistics.mean(times), statistics.median(times), max(times), statistics.mean(nodes)
    )


def sample(width: int, height: int, empty: int, args: argparse.Namespace) -> Row:
    """Both sides on one sample, ``args.rounds`` rounds alternating who goes first."""
    moves = late_positions(width, height, empty, args.positions, args.seed)
    c4_mb = args.reference_mb or max(args.tt_mb, c4_least_mb(width, height))
    command = reference_command(args.reference, width, height, c4_mb, args.threads)
    c4_rounds: list[Side] = []
    our_rounds: list[Side] = []
    c4_times: list[list[float]] = []
    our_times: list[list[float]] = []
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
            sys.exit(f"error: {width}x{height}: c4's scores changed between rounds")
        c4_times.append([s.micros for s in run.solves])
        our_times.append(times)
        c4_rounds.append(side(c4_times[-1], [s.nodes for s in run.solves]))
        our_rounds.append(side(times, [float(n) for n in nodes]))
    ratios = [c4.mean_us / mine.mean_us for c4, mine in zip(c4_rounds, our_rounds, strict=True)]
    c4_us = [statistics.median(column) for column in zip(*c4_times, strict=True)]
    our_us = [statistics.median(column) for column in zip(*our_times, strict=True)]
    return Row(
        size=f"{width}x{height}", bits=width * (height + 1), empty=empty, positions=len(moves),
        c4_mb=c4_mb, c4_mean_us=statistics.median(s.mean_us for s in c4_rounds),
        our_mean_us=statistics.median(s.mean_us for s in our_rounds),
        c4_nodes=c4_rounds[-1].mean_nodes, our_nodes=our_rounds[-1].mean_nodes,
        ours_as_fast=statistics.median(ratios), least_round=min(ratios),
        slower_on=sum(mine > theirs for mine, theirs in zip(our_us, c4_us, strict=True)),
        load=os.getloadavg(), c4=c4_rounds, ours=our_rounds, moves=moves, c4_us=c4_us,
        our_us=our_us, c4_position_nodes=[s.nodes for s in run.solves],
        our_position_nodes=nodes,
    )  # fmt: skip


def board_sizes(text: str) -> list[tuple[int, int]]:
    """``"8x8,9x7"`` as ``[(8, 8), (9, 7)]``; a board of 64 bits or fewer is refused."""
    sizes = []
    for part in text.split(","):
        try:
            width, height = (int(number) for number in part.lower().split("x"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected sizes like 8x8,9x7, not {part!r}") from None
        if width < 4 or height < 1 or width * (height + 1) <= 64 or width * (height + 1) > 128:
            raise argparse.ArgumentTypeError(f"{part} is not a board of 65 to 128 bits")
        sizes.append((width, height))
    return sizes


def counts(text: str) -> list[int]:
    """``"24,28"`` as ``[24, 28]``: positive numbers."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 24,28, not {text!r}") from None
    if any(value < 1 for value in values):
        raise argparse.ArgumentTypeError(f"expected positive numbers, not {text!r}")
    return values


def ms(micros: float) -> str:
    return f"{micros / 1000:,.1f}" if micros < 100_000 else f"{micros / 1000:,.0f}"


def print_table(rows: list[Row], args: argparse.Namespace) -> None:
    print(f"{args.positions} positions a sample, {args.rounds} rounds alternating, "
          f"{args.threads} thread(s), our table {args.tt_mb} MB; "
          "scores equal on every position")  # fmt: skip
    print("| board (bits) | empty | c4 MB | c4 ms | c4 nodes | ours ms | our nodes "
          "| ours as fast (least round) | ours slower on | load |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row.size} ({row.bits}) | {row.empty} | {row.c4_mb} | {ms(row.c4_mean_us)} "
              f"| {row.c4_nodes:,.0f} | {ms(row.our_mean_us)} | {row.our_nodes:,.0f} "
              f"| {row.ours_as_fast:.2f}x ({row.least_round:.2f}x) "
              f"| {row.slower_on} of {row.positions} | {row.load[0]:.1f} |")  # fmt: skip
    print(f"machine: {describe_machine()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=board_sizes, default="8x8", help="WxH[,WxH...]")
    parser.add_argument("--reference", required=True, help="c4bench command (see above)")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--empty", type=counts, default="16", help="empty cells left, N[,N...]")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tt-mb", type=int, default=64)
    parser.add_argument("--reference-mb", type=int, default=0, help="c4's table (MB)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.positions < 1 or args.rounds < 1 or args.threads < 1 or args.reference_mb < 0:
        parser.error("--positions, --rounds and --threads must be positive")
    rows: list[Row] = []
    try:
        for width, height in args.size:
            for empty in args.empty:
                if empty >= width * height:
                    parser.error(f"--empty {empty}: a {width}x{height} board has fewer cells")
                rows.append(sample(width, height, empty, args))
                row = rows[-1]
                print(f"{row.size}, {empty} empty: c4 {ms(row.c4_mean_us)} ms, ours "
                      f"{ms(row.our_mean_us)} ms, {row.ours_as_fast:.2f}x", file=sys.stderr,
                      flush=True)  # fmt: skip
    except ReferenceError as error:
        sys.exit(f"error: {error}")
    except KeyboardInterrupt:
        sys.exit("interrupted")
    if args.json:
        report = {"rows": [asdict(row) for row in rows], "machine": describe_machine(),
                  "rounds": args.rounds, "threads": args.threads, "tt_mb": args.tt_mb}  # fmt: skip
        print(json.dumps(report, indent=2))
        return
    print_table(rows, args)


if __name__ == "__main__":
    main()
