"""How often MCTS picks an optimal move, by playout budget, judged by the solver.

Run: ``nice .venv/bin/python benchmarks/mcts_accuracy.py [--limit 50]``. For the first
``--limit`` positions of Pons' Middle-Easy (``Test_L2_R1``) and Begin-Easy
(``Test_L1_R1``) sets, every MCTS configuration picks a move; the solver's column
scores say whether it is optimal (the best score available). Prints the share of
optimal moves and the mean playouts per second.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from machine import describe_machine

from connect4 import Position
from connect4.classic.mcts import Mcts
from connect4.solver import Solver

PONS = Path(__file__).resolve().parent / "pons"
SETS = (("Middle-Easy", "Test_L2_R1"), ("Begin-Easy", "Test_L1_R1"))
BUDGETS = (1_000, 10_000, 100_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=50, help="positions per set")
    args = parser.parse_args()
    print(describe_machine())
    solver = Solver()
    for label, name in SETS:
        lines = (PONS / name).read_text().splitlines()[: args.limit]
        positions = [Position.from_moves(line.split()[0]) for line in lines]
        scores = [solver.analyze(position) for position in positions]
        print(f"\n# {label} ({name}), {len(positions)} positions")
        for solver_on in (False, True):
            for budget in BUDGETS:
                optimal, rates = 0, []
                for index, (position, columns) in enumerate(zip(positions, scores, strict=True)):
                    result = Mcts(seed=index, solver=solver_on).search(position, playouts=budget)
                    best = max(s for s in columns if s is not None)
                    optimal += columns[result.move] == best
                    if result.playouts:
                        rates.append(result.playouts_per_second)
                print(
                    f"mcts playouts={budget:>7,} solver={'on ' if solver_on else 'off'}  "
                    f"optimal {optimal / len(positions):6.1%}  "
                    f"({statistics.mean(rates or [0]):>9,.0f} playouts/s)"
                )


if __name__ == "__main__":
    main()
