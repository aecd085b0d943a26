"""Solve the empty board exactly, without an opening book, and report time and nodes.

    nice .venv/bin/python benchmarks/solve_empty_board.py [--tt-mb 1024] [--width 7 --height 6]
        [--threads N]

Prints the score (+1 on 7x6), nodes, wall and CPU seconds (the CPU time is the
fair figure on a shared, busy machine), nodes/second and the machine.
References on this kind of 2-core machine: Pons' C++ solver 362 s (3.1 G nodes),
the Rust solver connect-four-ai 277 s (1.9 G nodes).
"""

from __future__ import annotations

import argparse
import json
import time

from machine import describe_machine

from connect4.core.position import Position
from connect4.solver import Solver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=7)
    parser.add_argument("--height", type=int, default=6)
    parser.add_argument("--tt-mb", type=int, default=1024, help="table size in MB")
    parser.add_argument("--moves", default="", help="start from this move string instead")
    parser.add_argument("--weak", action="store_true", help="win/draw/loss only")
    parser.add_argument("--no-symmetry", action="store_true")
    parser.add_argument("--etc", type=int, default=16, help="ETC at >= N empty cells (0 = off)")
    parser.add_argument("--threads", type=int, default=1, help="search threads (Lazy SMP)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    solver = Solver(
        args.width,
        args.height,
        args.tt_mb,
        symmetry=not args.no_symmetry,
        etc=args.etc,
        threads=args.threads,
    )
    solver.solve(Position.from_moves("4455", 7, 6)) if (args.width, args.height) == (7, 6) else None
    position = Position.from_moves(args.moves, args.width, args.height)
    cpu_start = time.process_time()
    start = time.perf_counter()
    result = solver.run(position, weak=args.weak)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    report = {
        "board": f"{args.width}x{args.height}",
        "moves": args.moves,
        "score": result.score,
        "nodes": result.nodes,
        "seconds": round(wall, 2),
        "cpu_seconds": round(cpu, 2),
        "nodes_per_second": round(result.nodes / wall),
        "nodes_per_cpu_second": round(result.nodes / cpu),
        "tt_mb": args.tt_mb,
        "symmetry": not args.no_symmetry,
        "etc": args.etc,
        "threads": args.threads,
        "machine": describe_machine(),
    }
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>17}: {value:,}" if type(value) is int else f"{key:>17}: {value}")


if __name__ == "__main__":
    main()
