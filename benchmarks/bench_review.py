"""Game review speed: wall time to review whole 7x6 games with the shipped books and a warm solver.

    nice python benchmarks/bench_review.py                # 100 games
    nice python benchmarks/bench_review.py --games 20
    nice python benchmarks/bench_review.py --http         # also through GET /api/review

The games are played from the empty board between ``random``,
``alphabeta:level=medium`` and ``perfect:level=easy`` (every pairing, mirror
matches too, in turn, seeded), then each is reviewed with no budget (every verdict
proven, no scores kept from earlier games). Prints mean, median (p50), p99 and max
seconds per game, plies per game, and the machine. The target: p99 <= 1 s per game.
With ``--http`` the same games are then reviewed one request at a time through
``GET /api/review`` on a local server (no other load; targets p99 <= 300 ms).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time

from machine import cpu_model

from connect4 import Position
from connect4.players import make_player
from connect4.review import review
from connect4.review.values import clear_cache

SPECS = ("random", "alphabeta:level=medium", "perfect:level=easy")


def play(red: str, yellow: str, seed: int) -> str:
    players = [
        make_player(spec, game="connect4", seed=seed + i) for i, spec in enumerate((red, yellow))
    ]
    position = Position()
    while not position.is_over():
        position.play(players[position.ply % 2].choose(position).move)
    return position.moves


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games to play and review")
    parser.add_argument("--http", action="store_true", help="also time GET /api/review")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, {cpu_model()}, Python {sys.version.split()[0]}")
    pairings = itertools.cycle(itertools.product(SPECS, repeat=2))
    games = [play(*next(pairings), seed=seed) for seed in range(args.games)]
    review("4")  # warm the solver and load the book
    seconds: list[float] = []
    for moves in games:
        clear_cache()  # each game solved afresh, not from earlier games' positions
        started = time.perf_counter()
        result = review(moves)
        seconds.append(time.perf_counter() - started)
        assert all(row.proven for row in result.plies), moves
    plies = statistics.mean(len(moves) for moves in games)
    print(
        f"{len(games)} games ({plies:.1f} plies on average): "
        f"mean {statistics.mean(seconds):.3f} s, "
        f"p50 {percentile(seconds, 0.5):.3f} s, p99 {percentile(seconds, 0.99):.3f} s, "
        f"max {max(seconds):.3f} s per game"
    )
    slowest = max(range(len(games)), key=seconds.__getitem__)
    print(f"slowest: {games[slowest]} ({seconds[slowest]:.3f} s)")
    long = [s for s, moves in zip(seconds, games, strict=True) if len(moves) >= 30]
    if long:
        print(
            f"{len(long)} games of 30 plies or more: p50 {percentile(long, 0.5):.3f} s, "
            f"max {max(long):.3f} s"
        )
    if args.http:
        http(games)


def http(games: list[str]) -> None:
    import httpx

    from connect4.web import create_app
    from connect4.web.server import BackgroundServer

    seconds: list[float] = []
    with (
        BackgroundServer(create_app(threads=2, time_limit=10.0)) as live,
        httpx.Client(base_url=live.url, timeout=60) as client,
    ):
        client.get("/api/review", params={"pos": "4"}).raise_for_status()  # warm the lane
        for moves in games:
            clear_cache()  # the server runs in this process: each game solved afresh
            started = time.perf_counter()
            client.get("/api/review", params={"pos": moves}).raise_for_status()
            seconds.append(time.perf_counter() - started)
    print(
        f"GET /api/review, {len(games)} games one at a time: "
        f"mean {statistics.mean(seconds):.3f} s, p50 {percentile(seconds, 0.5):.3f} s, "
        f"p99 {percentile(seconds, 0.99):.3f} s, max {max(seconds):.3f} s"
    )


if __name__ == "__main__":
    main()
