"""Speed of the classic search: its targets, against the figures of the AIs it learnt from.

Run: ``nice .venv/bin/python benchmarks/bench_search.py [--quick]``. Prints the machine,
then for each figure the nodes, seconds (median of repeats, compiled kernels warm)
and nodes per second, for the compiled engine (numba) and the readable Python one.

Targets: alpha-beta depth 9 from the empty 7x6 board with windows/mollerhoj
<= 60,000 nodes and <= 1 s (Smart-Connect-4's own figure: 595,694 nodes, 0.9 s); full
tic-tac-toe minimax <= 1.5 s, alpha-beta <= 20 ms (zer0lose's AI: 4.57 s, 0.21 s);
minimax >= 200,000 nodes/s on 7x6 with windows; boards over 63 bits (8x8, 10x6, and
12x7, 96 bits, whose table keeps both words of a key: the engine compiled over two
words) within 2x of 7x6 per node.
"""

from __future__ import annotations

import argparse
import statistics
import time

from machine import describe_machine

from connect4 import Position, TicTacToe
from connect4.classic.fastsearch import warm_up
from connect4.classic.search import Limits, SearchResult, search
from connect4.core.game import Game


def timed(game: Game, repeats: int, **options: object) -> tuple[SearchResult, float]:
    """The result and the median wall time of ``repeats`` runs."""
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = search(game.copy(), **options)  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
    assert result is not None
    return result, statistics.median(times)


def line(label: str, result: SearchResult, seconds: float, target: str = "") -> None:
    nodes = result.stats.nodes
    rate = nodes / seconds if seconds > 0 else float("inf")
    print(
        f"{label:<58} {nodes:>10,} nodes {seconds:>9.4f} s {rate:>12,.0f} nodes/s"
        f"  value {result.value}  move {result.move}  {target}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, skip slow lines")
    args = parser.parse_args()
    repeats = 1 if args.quick else 3
    print(describe_machine())
    warm_up()
    empty = Position()

    print("\n# alpha-beta, depth 9, empty 7x6, windows/mollerhoj (target <= 60,000 nodes, <= 1 s)")
    for ordering, tt in (("none", False), ("center", False), ("center", True)):
        for engine in ("numba", "python"):
            if engine == "python" and (args.quick or not tt):
                continue
            result, seconds = timed(
                empty, repeats if engine == "numba" else 1, limits=Limits(depth=9),
                algorithm="alphabeta", heuristic="windows/mollerhoj", ordering=ordering,
                tt=tt, engine=engine,
            )  # fmt: skip
            line(f"{engine:<6} ordering={ordering:<6} tt={'on' if tt else 'off'}", result, seconds)

    print("\n# Smart-Connect-4's table (depth 6-9 from the empty board, windows/mollerhoj)")
    for depth in (6, 7, 8, 9):
        for algorithm in ("minimax", "alphabeta"):
            if algorithm == "minimax" and depth > (8 if not args.quick else 7):
                continue
            result, seconds = timed(
                empty, 1, limits=Limits(depth=depth), algorithm=algorithm,
                heuristic="windows/mollerhoj", engine="numba",
            )  # fmt: skip
            line(f"numba  {algorithm:<9} depth {depth}", result, seconds)

    print(
        "\n# full tic-tac-toe from the empty board (targets: minimax <= 1.5 s, alpha-beta <= 20 ms)"
    )
    for algorithm in ("minimax", "alphabeta"):
        for engine in ("numba", "python"):
            result, seconds = timed(
                TicTacToe(), repeats, limits=Limits(depth=9), algorithm=algorithm,
                engine=engine,
            )  # fmt: skip
            line(f"{engine:<6} {algorithm}", result, seconds)
    result, seconds = timed(
        TicTacToe(), repeats, limits=Limits(depth=9), algorithm="alphabeta", tt=True,
        engine="numba",
    )  # fmt: skip
    line("numba  alphabeta tt=on", result, seconds)

    print("\n# minimax speed on 7x6 with windows (target >= 200,000 nodes/s)")
    result, seconds = timed(
        empty, repeats, limits=Limits(depth=7), algorithm="minimax", engine="numba"
    )
    line("numba  minimax depth 7", result, seconds)
    result, seconds = timed(empty, 1, limits=Limits(depth=5), algorithm="minimax", engine="python")
    line("python minimax depth 5 (generic, over the Game protocol)", result, seconds)

    print("\n# per node on boards over 63 bits (two words) beside 7x6 (target: within 2x)")
    for algorithm, depth, tt in (("alphabeta", 9, True), ("minimax", 6, False)):
        for width, height in ((7, 6), (8, 8), (10, 6), (12, 7)):
            board = Position(width, height)
            search(board, limits=Limits(depth=1), engine="numba")  # compiled outside the time
            result, seconds = timed(
                board, repeats, limits=Limits(depth=depth), algorithm=algorithm,
                heuristic="windows/mollerhoj", tt=tt, engine="numba",
            )  # fmt: skip
            label = f"numba  {algorithm} depth {depth} tt={'on' if tt else 'off'} {width}x{height}"
            line(label, result, seconds)

    print("\n# generic Python search per heuristic: alpha-beta depth 5, tt on, after '4453'")
    middle = Position.from_moves("4453")
    for heuristic in (
        "windows", "cell-weights", "cell-weights+recent-lines", "adjacency", "threats"
    ):  # fmt: skip
        result, seconds = timed(
            middle, 1, limits=Limits(depth=5), heuristic=heuristic, tt=True, engine="python"
        )
        line(f"python {heuristic}", result, seconds)


if __name__ == "__main__":
    main()
