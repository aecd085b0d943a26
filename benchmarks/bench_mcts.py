"""Speed of Monte Carlo tree search beside the compiled alpha-beta, on one core.

Run: ``nice .venv/bin/python benchmarks/bench_mcts.py [--rounds 5] [--playouts 100000]``.
Prints the machine, then rounds that alternate (this machine's speed drifts):

* MCTS: a whole UCT search with random playouts from the empty 7x6 board
  (selection, expansion, playout, back-up), in playouts per second;
* playouts alone: the compiled random playout from the empty board, no tree;
* alpha-beta: the compiled engine, depth 9, windows/mollerhoj, centre order,
  table on, from the empty board, in nodes per second.

Then the same MCTS and alpha-beta on boards over 63 bits (8x8, 10x6: the engines
compiled over two words), beside 7x6 in the same rounds.

Targets: >= 500,000 random playouts per second (the issue's figure); the big boards
within 2x of 7x6 per node (their playouts are longer: 64 and 60 cells against 42).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from machine import describe_machine
from numba import njit

from connect4 import Position
from connect4.classic import fastmcts
from connect4.classic.fastsearch import warm_up as warm_search
from connect4.classic.mcts import Mcts
from connect4.classic.mctsboard import seed_state
from connect4.classic.search import Limits, search

_playout = fastmcts.COMPILED.playout


@njit
def playouts_alone(count: int, params: np.ndarray, order: np.ndarray, cells: np.ndarray,
                   lines: np.ndarray, st: np.ndarray) -> int:  # fmt: skip
    total = 0
    for _ in range(count):
        total += _playout(0, 0, 0, params, order, cells, lines, st)
    return total


BIG = ((8, 8), (10, 6))


def mcts_rate(playouts: int, width: int = 7, height: int = 6) -> float:
    result = Mcts(seed=1).search(Position(width, height), playouts=playouts)
    assert result.engine == "numba"
    return result.playouts_per_second


def playout_rate(count: int) -> float:
    tree = fastmcts.CompiledTree(Position(), False, False, seed_state(1))
    start = time.perf_counter()
    playouts_alone(count, tree.params, tree.order, tree.cells, tree.lines, tree.st)
    return count / (time.perf_counter() - start)


def alphabeta_rate(width: int = 7, height: int = 6) -> float:
    board = Position(width, height)
    start = time.perf_counter()
    result = search(board, limits=Limits(depth=9), heuristic="windows/mollerhoj", tt=True)
    assert result.engine == "numba"
    return result.stats.nodes / (time.perf_counter() - start)


def summary(label: str, rates: list[float], unit: str) -> None:
    print(
        f"{label:<34} mean {statistics.mean(rates):>12,.0f}  median "
        f"{statistics.median(rates):>12,.0f}  max {max(rates):>12,.0f} {unit}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--playouts", type=int, default=100_000)
    args = parser.parse_args()
    print(describe_machine())
    warm_search()
    fastmcts.warm_up()
    playout_rate(1000)
    for width, height in BIG:  # the two-word kernels, compiled outside the rounds
        mcts_rate(10, width, height)
        search(Position(width, height), limits=Limits(depth=1))
    big: dict[str, list[float]] = {}
    mcts, alone, alphabeta = [], [], []
    for index in range(args.rounds):
        mcts.append(mcts_rate(args.playouts))
        alone.append(playout_rate(args.playouts))
        alphabeta.append(alphabeta_rate())
        print(
            f"round {index + 1}: MCTS {mcts[-1]:,.0f} playouts/s, playouts alone "
            f"{alone[-1]:,.0f}/s, alpha-beta {alphabeta[-1]:,.0f} nodes/s"
        )
        for width, height in BIG:
            size = f"{width}x{height}"
            big.setdefault(f"MCTS {size}", []).append(mcts_rate(args.playouts, width, height))
            big.setdefault(f"alpha-beta {size}", []).append(alphabeta_rate(width, height))
            print(
                f"         {size}: MCTS {big[f'MCTS {size}'][-1]:,.0f} playouts/s, "
                f"alpha-beta {big[f'alpha-beta {size}'][-1]:,.0f} nodes/s"
            )
    print()
    summary(f"MCTS, {args.playouts:,} playouts", mcts, "playouts/s (target >= 500,000)")
    summary("random playouts alone", alone, "playouts/s")
    summary("alpha-beta depth 9 (compiled)", alphabeta, "nodes/s")
    for width, height in BIG:  # two words
        size = f"{width}x{height}"
        summary(f"MCTS {size}, {args.playouts:,} playouts", big[f"MCTS {size}"], "playouts/s")
        summary(f"alpha-beta depth 9 {size}", big[f"alpha-beta {size}"], "nodes/s")


if __name__ == "__main__":
    main()
