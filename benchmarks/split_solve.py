"""A whole position solved split (``connect4 solve --split-ply``) with 1 and 2 local workers.

    nice python benchmarks/split_solve.py                       # 6x5, empty board, ply 5
    nice python benchmarks/split_solve.py --width 7 --height 6 --moves 444444 --split-ply 9
    nice python benchmarks/split_solve.py --rounds 2 --json

The same split solve (no opening book, a fresh results file each run, never solved
directly) runs with 1 worker process and with 2, alternated for ``--rounds`` rounds
(1, 2, then 2, 1, ...: this machine's speed drifts, only figures measured side by
side compare). Prints each run's wall time and CPU time (this process and its
workers), the speed-up (the median 1-worker time over the median 2-worker time, wall
and CPU; and each round's 1-worker time over its 2-worker time, as this machine's speed
can move by a third between rounds), the split's positions and those searched, the
windows searched, the node counts per window (mean, median, the largest and the share
of the largest tenth) and their total (the last run's) beside one unsplit search's
nodes, and every run's nodes by worker count; checks that every run gives the unsplit
score (with ``--analyze`` every column's; exit 1 if not), and prints the
machine and its load.

``--ceiling`` also runs, each round, two 1-worker solves at once in two processes
that share nothing, between the round's 1-worker and 2-worker solves: their
throughput over one alone (``2 x`` the 1-worker time over the pair's) is what this
machine's two cores give two copies of this very work at that moment (shared caches,
memory, a host's scheduling of the virtual cores), the most any 2-worker speed-up
could reach. Both figures are taken round by round (``ceiling_per_round``) and their
medians printed: a ceiling over 2 says the machine's speed moved within that round.
``speedup_of_ceiling`` is the search's share of the ceiling, in each round the
pair's time over twice the 2-worker solve's (both keep the two cores busy, so the
1-worker time and much of the drift cancel), and its median.

``--project`` also lists how many tasks a split of the empty 8x7, 9x6 and 7x7 boards
at the same ply holds (the positions the solver's search can reach, mirror images once).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from machine import describe_machine

from connect4.core.position import Position
from connect4.core.processes import WorkerPool
from connect4.solver import Solver, SolverError, SolveResult
from connect4.solver.book.split import SplitReport, split_positions, split_solve
from connect4.solver.book.splitlist import check_split_ply
from connect4.solver.narrow import immediate_win

PAIR = 0  # a round's step of two 1-worker solves at once (``--ceiling``)


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the pool's workers)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(args: argparse.Namespace, workers: int, folder: Path, number: int) -> SplitReport:
    """One split solve with ``workers`` local processes and a results file of its own."""
    return split_solve(
        args.moves, args.width, args.height, split_ply=args.split_ply, workers=workers,
        results=folder / f"run{number}-{workers}w.c4book", chunk=args.chunk, progress=False,
        analyze=args.analyze, direct_nodes=0,
    )  # fmt: skip


def run_pair(args: argparse.Namespace, folder: Path, number: int) -> float:
    """Two 1-worker solves at once, each in a process of its own: the slower one's seconds."""
    with WorkerPool(2) as pool:
        pair = [pool.submit(run_alone, args, folder / f"pair{copy}", number) for copy in (1, 2)]
        return float(max(future.result() for future in pair))


def run_alone(args: argparse.Namespace, folder: Path, number: int) -> float:
    """One 1-worker solve in a folder of its own: its seconds (a process of :func:`run_pair`)."""
    folder.mkdir(exist_ok=True)
    return run(args, 1, folder, number).seconds


def task_figures(nodes: list[int]) -> dict[str, float]:
    """Node counts per task: mean, median, largest, and the share of the largest tenth.

    >>> task_figures([1, 1, 1, 1, 1, 1, 1, 1, 1, 11])["top_tenth_share"]
    0.55
    """
    ranked = sorted(nodes, reverse=True)
    tenth = max(1, len(ranked) // 10)
    return {
        "mean": statistics.fmean(ranked),
        "median": statistics.median(ranked),
        "max": ranked[0],
        "top_tenth_share": round(sum(ranked[:tenth]) / max(sum(ranked), 1), 3),
    }


def ceiling_figures(times: dict[int, list[float]], pairs: list[float]) -> dict[str, object]:
    """The machine's ceiling and the speed-up's share of it, round by round and their
    medians (``times``: each round's seconds by worker count; ``pairs``: each round's
    two 1-worker solves at once).

    >>> ceiling_figures({1: [20.0, 22.0], 2: [12.0, 13.0]}, [21.0, 22.0])["ceiling_per_round"]
    [1.9, 2.0]
    """
    ceilings = [2 * one / pair for one, pair in zip(times[1], pairs, strict=True)]
    shares = [pair / (2 * two) for two, pair in zip(times[2], pairs, strict=True)]
    return {
        "seconds_two_1_worker_at_once": pairs,
        "ceiling_per_round": [round(c, 2) for c in ceilings],
        "ceiling": round(statistics.median(ceilings), 2),
        "speedup_of_ceiling_per_round": [round(s, 2) for s in shares],
        "speedup_of_ceiling": round(statistics.median(shares), 2),
    }


def options() -> tuple[argparse.Namespace, Position, Solver]:
    """The command line, the root it names and the solver of its unsplit search, checked
    before anything is solved (a bad option: one line and exit 2)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=6)
    parser.add_argument("--height", type=int, default=5)
    parser.add_argument("--moves", default="")
    parser.add_argument("--split-ply", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=1, help="positions per task")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--analyze", action="store_true", help="every column's score too")
    parser.add_argument("--project", action="store_true")
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="also two 1-worker solves at once: the machine's 2-process ceiling",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.chunk < 1:
        parser.error("--chunk must be at least 1")
    try:  # the board, the moves, the split, a game already over
        root = Position.from_moves(args.moves, args.width, args.height)
        check_split_ply(root, args.split_ply)
        unsplit = Solver(args.width, args.height)
        unsplit.check(root)
    except (ValueError, SolverError) as error:
        parser.error(str(error))
    if immediate_win(root):
        parser.error("the side to move wins at once: the split solve settles such a root "
                     "directly, with nothing split to time")  # fmt: skip
    return args, root, unsplit


@dataclass
class Rounds:
    """Every round's figures by worker count (``PAIR``'s in ``pairs``), the last run's
    report, and how many runs' scores differed from the unsplit ones."""

    times: dict[int, list[float]] = field(default_factory=lambda: {1: [], 2: []})
    cpu: dict[int, list[float]] = field(default_factory=lambda: {1: [], 2: []})
    nodes: dict[int, list[int]] = field(default_factory=lambda: {1: [], 2: []})
    pairs: list[float] = field(default_factory=list)
    report: SplitReport | None = None
    wrong: int = 0


def run_rounds(args: argparse.Namespace, reference: SolveResult) -> Rounds:
    """The split solve with 1 and 2 workers (and the pair between, with ``--ceiling``),
    alternated for ``--rounds`` rounds, each run checked against ``reference``."""
    done = Rounds()
    with tempfile.TemporaryDirectory(prefix="split-bench-") as folder:
        for number in range(args.rounds):
            for workers in (1, PAIR, 2) if number % 2 == 0 else (2, PAIR, 1):
                if workers == PAIR:
                    if args.ceiling:  # between the two: as near in time to each
                        done.pairs.append(round(run_pair(args, Path(folder), number), 2))
                        print(f"round {number + 1}, two 1-worker solves at once: "
                              f"{done.pairs[-1]:.1f} s, load {os.getloadavg()[0]:.1f}",
                              file=sys.stderr, flush=True)  # fmt: skip
                    continue
                before = cpu_seconds()
                report = done.report = run(args, workers, Path(folder), number)
                done.cpu[workers].append(round(cpu_seconds() - before, 2))
                done.times[workers].append(round(report.seconds, 2))
                done.nodes[workers].append(report.nodes)
                done.wrong += report.score != reference.score or (
                    args.analyze and report.column_scores != reference.column_scores
                )
                print(f"round {number + 1}, {workers} worker(s): {report.seconds:.1f} s, "
                      f"{done.cpu[workers][-1]:.1f} s CPU, load {os.getloadavg()[0]:.1f}",
                      file=sys.stderr, flush=True)  # fmt: skip
    return done


def main() -> int:
    args, root, unsplit = options()
    start = time.perf_counter()
    reference = unsplit.run(root, analyze=args.analyze)
    unsplit_seconds = time.perf_counter() - start
    done = run_rounds(args, reference)
    report, times, cpu = done.report, done.times, done.cpu
    assert report is not None
    speedup = statistics.median(times[1]) / statistics.median(times[2])
    summary: dict[str, object] = {
        "board": f"{args.width}x{args.height}",
        "moves": args.moves,
        "split_ply": args.split_ply,
        "chunk": args.chunk,
        "score": report.score,
        "scores": report.column_scores,
        "agree_with_unsplit": done.wrong == 0,
        "tasks": report.tasks,
        "searched": report.searched,
        "windows": report.probes,
        "stopped": report.stopped,
        "settled": report.settled,
        "seconds_1_worker": times[1],
        "seconds_2_workers": times[2],
        "cpu_seconds_1_worker": cpu[1],
        "cpu_seconds_2_workers": cpu[2],
        "nodes_1_worker": done.nodes[1],
        "nodes_2_workers": done.nodes[2],
        "speedup": round(speedup, 2),
        "speedup_per_round": [
            round(one / two, 2) for one, two in zip(times[1], times[2], strict=True)
        ],
        **(ceiling_figures(times, done.pairs) if done.pairs else {}),
        "cpu_ratio_2_over_1": round(statistics.median(cpu[2]) / statistics.median(cpu[1]), 2),
        "task_nodes": task_figures(report.task_nodes),
        "task_nodes_total": report.task_nodes_total,
        "search_above_nodes": report.search_nodes,
        "unsplit_nodes": reference.nodes,
        "nodes_over_unsplit": round(report.nodes / max(reference.nodes, 1), 2),
        "unsplit_seconds": round(unsplit_seconds, 2),
        "machine": describe_machine(),
    }
    if args.project:
        summary["tasks_of_empty_boards"] = {
            f"{w}x{h}": len(split_positions(Position(w, h), args.split_ply).tasks)
            for w, h in ((8, 7), (9, 6), (7, 7))
        }
    if args.json:
        print(json.dumps(summary))
    else:
        for name, value in summary.items():
            print(f"{name:<22} {value}")
    return 1 if done.wrong else 0


if __name__ == "__main__":
    sys.exit(main())
