"""Check our solver against c4's published 8x7 book, row by row, within a limit per row.

    nice .venv/bin/python benchmarks/check_c4_book.py \\
        --csv /work/c4ref/src/data/book-8x7.csv [--order end|random] [--seed 1] \\
        [--rows 20] [--skip 0] [--lines N,...] [--limit 60] [--threads 1] [--tt-mb 256] \\
        [--json]

c4 (ChristopheSteininger/c4) publishes ``data/book-8x7.csv``: every 8x7 position
of 4 to 6 stones with its best move and exact score (``git clone
https://github.com/ChristopheSteininger/c4``). Each sampled row's hash is decoded
(:mod:`connect4.solver.book.c4csv`: a legal position, the row's move legal
there); our solver then solves the position, and, the score known, the
position after the row's move (a win at once needs no search). The row agrees
when our score is the row's and the row's move keeps it (any move with the best
score is right). ``--limit`` bounds both searches of a row together; a row not
solved in time is a timeout, neither agreement nor mismatch.

``--order end`` (the default) takes the rows nearest the end of the game first
(the largest ``|score|``: the shortest wins and losses, then the most stones);
``--order random`` a seeded sample. ``--skip N`` leaves out the first N rows of
that order; ``--lines 2,14760`` checks the rows on those lines of the file. The
table gives per row the position (our move string, in the hash's orientation),
c4's move (1-based) and score, ours, the score of c4's move, the verdict, nodes
and seconds; the summary counts agreements, mismatches and timeouts. Exit status
1 on any mismatch, 2 with a one-line error for a file that is not c4's book or a
line with no row, 130 after a Ctrl-C (the table so far is printed).

``--split-ply D --workers N`` solves each row through the split solve instead (the
positions of ``D`` stones asked null-window questions as tasks on N local processes,
the search above them narrowing the row's score and finding its best move; the
position after c4's move is solved split too when c4's move is not that best move).
A position the plain solver settles within ``--direct-nodes`` nodes is solved
directly (the split solve's default; 0 sends every row through the split but those
the rules settle at the root, which have nothing to split). Each row is then solved
by the plain solver too, as a reference: a row agrees when the split's score is c4's
and the plain solver's and c4's move keeps it (a plain solve not finished within the
row's limit leaves c4's alone; the summary counts those). The table adds the split's best move
(1-based) and the nodes of the solve after c4's move when that is another (counted
in the row's nodes), the plain solver's score, nodes and seconds, and the split's
positions (searched of listed, or ``direct``); the limit bounds the whole row, tasks
and reference included.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from machine import describe_machine

from connect4.core.errors import BudgetExceeded, Connect4Error
from connect4.core.limits import Limit, run_interruptible
from connect4.core.position import Position
from connect4.core.score import win_score
from connect4.solver import Solver
from connect4.solver.book import BookError
from connect4.solver.book.c4csv import C4Row, decode_row, read_c4_book
from connect4.solver.book.split import DIRECT_NODES, SplitReport, split_positions, split_solve

WIDTH, HEIGHT = 8, 7
MAX_STONES = 6  # the book's rows have 4 to 6 stones
HEADER = (
    f"{'line':>6} {'position':<8} {'ply':>4} {'c4 move':>7} {'c4 score':>8} "
    f"{'ours':>5} {'its move':>9} {'verdict':<9} {'nodes':>15} {'seconds':>9}"
)
SPLIT_HEADER = (
    f"{HEADER} {'best':>4} {'its move nodes':>14} {'plain':>5} {'plain nodes':>13} "
    f"{'plain s':>8} {'positions':>13}"
)


@dataclass
class RowCheck:
    """One row checked: c4's answer, ours (``None``: not solved within the limit)."""

    line: int
    moves: str
    ply: int
    c4_move: int  # 0-based column
    c4_score: int
    score: int | None
    move_score: int | None  # our score of c4's move
    verdict: str  # "agree", "MISMATCH" or "timeout"
    nodes: int
    seconds: float
    split: SplitFigures | None = None  # through the split: its figures and the reference


@dataclass
class SplitFigures:
    """A row solved split: the split's best move (0-based) and the nodes of the solve
    after c4's move when it is another (part of the row's nodes; 0: none needed), the
    plain solver's score of the position (``None``: not solved within the row's
    limit), its nodes and seconds, and the split's positions (``searched`` of
    ``tasks`` listed; ``direct``: settled without a split)."""

    best_move: int
    move_nodes: int
    plain_score: int | None
    plain_nodes: int
    plain_seconds: float
    tasks: int
    searched: int
    direct: bool


@dataclass
class Answer:
    """A method's answer for a row: the position's score and c4's move's (``None``:
    not solved within the limit), the nodes and seconds that took, and the split's
    figures when solved split."""

    score: int | None
    move_score: int | None
    nodes: int
    seconds: float
    split: SplitFigures | None = None


def pick_rows(
    rows: list[C4Row], order: str, seed: int, skip: int, count: int, lines: list[int]
) -> list[C4Row]:
    """The rows to check: those of ``lines`` (line numbers of the file), else the
    rows nearest the end of the game first, or a seeded sample."""
    if lines:
        by_line = {row.line: row for row in rows}
        missing = [line for line in lines if line not in by_line]
        if missing:
            raise BookError(f"no row on line {missing[0]} (rows are on lines 2-{len(rows) + 1})")
        return [by_line[line] for line in lines]
    if order == "end":
        ranked = sorted(rows, key=lambda r: (-abs(r.score), -_stones(r), r.line))
    else:
        ranked = list(rows)
        random.Random(seed).shuffle(ranked)
    return ranked[skip : skip + count]


def _stones(row: C4Row) -> int:
    """The stones of a row's position (each column's top marker sits on its stones)."""
    step = HEIGHT + 1
    return sum(((row.hash >> (c * step)) & 0xFF).bit_length() - 1 for c in range(WIDTH))


Method = Callable[[Position, int, Limit | None], Answer]


def plain_solve(solver: Solver) -> Method:
    """Our solver on the position, then on the position after c4's move."""

    def scores(position: Position, move: int, limit: Limit | None) -> Answer:
        solver.clear_table()
        result = solver.run(position, limit=limit)
        if result.score is None:
            return Answer(None, None, result.nodes, result.seconds)
        if position.is_winning_move(move):
            won = win_score(WIDTH * HEIGHT, position.ply)
            return Answer(result.score, won, result.nodes, result.seconds)
        child = position.copy()
        child.play(move)
        after = solver.run(child, guess=-result.score, limit=limit)
        move_score = None if after.score is None else -after.score
        return Answer(result.score, move_score, result.nodes + after.nodes,
                      result.seconds + after.seconds)  # fmt: skip

    return scores


def split_method(split_ply: int, workers: int, direct_nodes: int, reference: Solver) -> Method:
    """The split solve: the position's score and best move, its split positions asked
    null-window questions on ``workers`` local processes; when c4's move is not the best
    move found, the position after it solved split too. Then the plain solver
    (``reference``) on the position, for its score and nodes."""

    def scores(position: Position, move: int, limit: Limit | None) -> Answer:
        start = time.monotonic()
        try:
            report = split_row(position.moves, split_ply, workers, direct_nodes, limit)
            nodes, move_nodes = report.nodes, 0
            if move == report.best_move:
                move_score = report.score
            elif position.is_winning_move(move):
                move_score = win_score(WIDTH * HEIGHT, position.ply)
            else:
                after = split_row(
                    position.moves + str(move + 1), max(split_ply, position.ply + 2),
                    workers, direct_nodes, limit,
                )  # fmt: skip
                move_score, move_nodes = -after.score, after.nodes
        except BudgetExceeded:  # the limit stopped the tasks or the search above them
            return Answer(None, None, 0, time.monotonic() - start)
        seconds = time.monotonic() - start
        reference.clear_table()
        plain = reference.run(position, limit=limit)
        figures = SplitFigures(
            report.best_move, move_nodes, plain.score, plain.nodes, plain.seconds,
            report.tasks, report.searched, report.direct,
        )  # fmt: skip
        return Answer(report.score, move_score, nodes + move_nodes, seconds, figures)

    return scores


def split_row(
    moves: str, split_ply: int, workers: int, direct_nodes: int, limit: Limit | None
) -> SplitReport:
    """The split solve of ``moves`` (score and best move, a temporary results book); a
    position the rules settle at the root (a win at once, two threats to block, no safe
    move: nothing to split) is solved directly whatever ``direct_nodes`` says."""
    root = Position.from_moves(moves, WIDTH, HEIGHT)
    if direct_nodes <= 0 and not split_positions(root, root.ply + 1).inner:
        direct_nodes = DIRECT_NODES
    return split_solve(
        moves, WIDTH, HEIGHT, split_ply=split_ply, workers=workers, results=None,
        limit=limit, progress=False, direct_nodes=direct_nodes,
    )  # fmt: skip


def check_row(method: Method, row: C4Row, limit: Limit | None = None) -> RowCheck:
    """``row``'s position and c4's move scored by ``method`` under ``limit``."""
    position = decode_row(row, WIDTH, HEIGHT).position
    answer = method(position, row.move, limit)
    score, move_score, split = answer.score, answer.move_score, answer.split
    if score is None or move_score is None:
        verdict = "timeout"
    elif (
        score == row.score
        and move_score == score
        and (split is None or split.plain_score in (None, score))
    ):
        verdict = "agree"
    else:
        verdict = "MISMATCH"
    return RowCheck(
        row.line, position.moves, position.ply, row.move, row.score,
        score, move_score, verdict, answer.nodes, answer.seconds, split,
    )  # fmt: skip


def print_row(check: RowCheck) -> None:
    """One line of the table."""
    ours = "-" if check.score is None else f"{check.score:+d}"
    move = "-" if check.move_score is None else f"{check.move_score:+d}"
    text = (
        f"{check.line:>6} {check.moves:<8} {check.ply:>4} {check.c4_move + 1:>7} "
        f"{check.c4_score:>+8d} {ours:>5} {move:>9} {check.verdict:<9} "
        f"{check.nodes:>15,} {check.seconds:>9.2f}"
    )
    split = check.split
    if split is not None:
        plain = "-" if split.plain_score is None else f"{split.plain_score:+d}"
        where = "direct" if split.direct else f"{split.searched:,}/{split.tasks:,}"
        text += (
            f" {split.best_move + 1:>4} {split.move_nodes:>14,} {plain:>5} "
            f"{split.plain_nodes:>13,} {split.plain_seconds:>8.2f} {where:>13}"
        )
    print(text, flush=True)


def summary(checks: list[RowCheck], args: argparse.Namespace, stopped: bool) -> dict[str, object]:
    """Counts and totals of the rows checked."""
    solved = [c for c in checks if c.verdict != "timeout"]
    split = [c.split for c in solved if c.split is not None]
    return {
        "rows": len(checks), "agree": sum(c.verdict == "agree" for c in checks),
        "mismatch": sum(c.verdict == "MISMATCH" for c in checks),
        "timeout": len(checks) - len(solved), "limit_s": args.limit, "order": args.order,
        "seed": args.seed, "skip": args.skip, "threads": args.threads, "tt_mb": args.tt_mb,
        "split_ply": args.split_ply or None, "workers": args.workers,
        "solved_nodes": sum(c.nodes for c in solved),
        "solved_seconds": round(sum(c.seconds for c in solved), 3),
        "max_solved_seconds": round(max((c.seconds for c in solved), default=0.0), 3),
        "direct_nodes": args.direct_nodes if args.split_ply else None,
        "solved_direct": sum(f.direct for f in split),
        "solved_plain_nodes": sum(f.plain_nodes for f in split),
        "solved_plain_seconds": round(sum(f.plain_seconds for f in split), 3),
        "plain_timeout": sum(f.plain_score is None for f in split),
        "stopped": stopped, "machine": describe_machine(), "load": os.getloadavg(),
    }  # fmt: skip


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", required=True, help="c4's data/book-8x7.csv")
    parser.add_argument("--order", choices=("end", "random"), default="end")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument("--skip", type=int, default=0)
    parser.add_argument("--lines", default="", help="rows by line number: 2,14760,...")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per row")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tt-mb", type=int, default=256)
    parser.add_argument("--split-ply", type=int, default=0, help="solve through the split solve")
    parser.add_argument("--workers", type=int, default=1, help="the split solve's processes")
    parser.add_argument("--direct-nodes", type=int, default=DIRECT_NODES,
                        help="solve a row directly when the plain solver settles it within "
                             "this many nodes (0: every row split)")  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for name in ("rows", "skip"):
        if getattr(args, name) < 0:
            parser.error(f"--{name} must be at least 0")
    if args.split_ply and not MAX_STONES < args.split_ply <= WIDTH * HEIGHT:
        parser.error(f"--split-ply must be above the rows' {MAX_STONES} stones")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.direct_nodes < 0:
        parser.error("--direct-nodes must be at least 0")
    if args.limit <= 0:
        parser.error("--limit must be above 0 seconds")
    try:
        args.lines = [int(line) for line in args.lines.split(",") if line.strip()]
    except ValueError:
        parser.error(f"--lines must be line numbers separated by commas, not {args.lines!r}")
    return args


def main() -> None:
    args = parse_args()
    checks: list[RowCheck] = []
    stopped = False
    try:
        rows = pick_rows(
            read_c4_book(args.csv), args.order, args.seed, args.skip, args.rows, args.lines
        )
        solver = Solver(WIDTH, HEIGHT, args.tt_mb, reuse_table=True, threads=args.threads)
        solver.warm_up()
        if args.split_ply:
            method = split_method(args.split_ply, args.workers, args.direct_nodes, solver)
        else:
            method = plain_solve(solver)
        if not args.json:
            print(SPLIT_HEADER if args.split_ply else HEADER)
        for row in rows:
            check = run_interruptible(
                functools.partial(check_row, method, row), Limit.within(args.limit)
            )
            checks.append(check)
            if not args.json:
                print_row(check)
    except Connect4Error as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        stopped = True
    report = summary(checks, args, stopped)
    if args.json:
        print(json.dumps({"checks": [asdict(c) for c in checks], **report}, indent=2))
    else:
        print(
            f"{report['rows']} rows: {report['agree']} agree, {report['mismatch']} mismatch, "
            f"{report['timeout']} not solved within {args.limit:g} s"
            + (" (stopped by Ctrl-C)" if stopped else "")
        )
        print(f"solved rows: {report['solved_nodes']:,} nodes, {report['solved_seconds']} s "
              f"(longest {report['max_solved_seconds']} s)")  # fmt: skip
        if args.split_ply:
            print(f"the plain solver on the solved rows: {report['solved_plain_nodes']:,} "
                  f"nodes, {report['solved_plain_seconds']} s ({report['plain_timeout']} not "
                  f"within the row's limit: checked against c4 only); "
                  f"{report['solved_direct']} rows solved directly")  # fmt: skip
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"machine: {report['machine']}; load average {load}")
    if stopped:
        sys.exit(130)
    if report["mismatch"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
