"""Round-robin matches between the heuristics at equal depth (alpha-beta, same options).

Every pair plays every opening twice, once with each colour; a win scores 1, a draw
0.5. The search is deterministic, so the result is reproducible. Prints the
standings and the crosstable as Markdown (pasted into docs/classic-ai.md).

Run: ``nice .venv/bin/python benchmarks/heuristic_matches.py --depth 4 [--workers 1]``
"""

from __future__ import annotations

import argparse
import itertools
import time
from concurrent.futures import ProcessPoolExecutor

from connect4 import Position
from connect4.classic.search import Limits, search

HEURISTICS = (
    "threats",
    "windows/mollerhoj",
    "windows/zer0lose",
    "windows/report",
    "cell-weights",
    "cell-weights+recent-lines",
    "adjacency",
)
# every two-move opening (49); both colours play each, so a biased opening cancels out
OPENINGS = tuple(a + b for a in "1234567" for b in "1234567")


def play(red: str, yellow: str, opening: str, depth: int) -> tuple[str, str, str, int | None]:
    """One game; returns (red, yellow, opening, winner 1/2/None)."""
    game = Position.from_moves(opening)
    while not game.is_over():
        heuristic = red if game.to_move == 1 else yellow
        result = search(
            game, limits=Limits(depth=depth), algorithm="alphabeta", heuristic=heuristic, tt=True
        )
        assert result.move is not None
        game.play(result.move)
    return red, yellow, opening, game.winner()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--openings", type=int, default=len(OPENINGS))
    parser.add_argument("--only", default="", help="comma-separated heuristics (default: all)")
    args = parser.parse_args()
    names = tuple(args.only.split(",")) if args.only else HEURISTICS
    openings = OPENINGS[: args.openings]
    jobs = [(a, b, o, args.depth) for a, b in itertools.permutations(names, 2) for o in openings]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        results = list(pool.map(play, *zip(*jobs, strict=True)))
    seconds = time.perf_counter() - start
    points = {n: 0.0 for n in names}
    record = {n: [0, 0, 0] for n in names}
    cross: dict[tuple[str, str], float] = {}
    for red, yellow, _, winner in results:
        score = {1: (1.0, 0.0), 2: (0.0, 1.0), None: (0.5, 0.5)}[winner]
        for name, other, s in ((red, yellow, score[0]), (yellow, red, score[1])):
            points[name] += s
            record[name][0 if s == 1 else 1 if s == 0.5 else 2] += 1
            cross[(name, other)] = cross.get((name, other), 0.0) + s
    games_each = 2 * len(openings) * (len(names) - 1)
    print(
        f"alpha-beta depth {args.depth}, tt on, centre ordering; {len(openings)} two-move openings "
        f"x 2 colours; {len(results)} games in {seconds:.0f} s\n"
    )
    print("| rank | heuristic | points | of | W | D | L |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    ranked = sorted(names, key=lambda n: -points[n])
    for rank, name in enumerate(ranked, 1):
        w, d, lost = record[name]
        print(f"| {rank} | {name} | {points[name]:g} | {games_each} | {w} | {d} | {lost} |")
    print("\nCrosstable (row's points against column, out of", 2 * len(openings), "games):\n")
    short = [n.replace("windows/", "w/").replace("cell-weights", "cells") for n in ranked]
    print("| | " + " | ".join(short) + " |")
    print("|---|" + "---:|" * len(ranked))
    for name, label in zip(ranked, short, strict=True):
        cells = ["-" if o == name else f"{cross.get((name, o), 0):g}" for o in ranked]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
