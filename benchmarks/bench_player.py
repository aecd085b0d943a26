"""Perfect-player benchmark: move times and optimality over full 7x6 games.

    nice python benchmarks/bench_player.py --games 100            # 25 per pairing
    python benchmarks/bench_player.py --games 8 --check           # also re-solve each move
    python benchmarks/bench_player.py --ties centre               # deterministic perfect player
    python benchmarks/bench_player.py --solve-empty               # `solve` of the empty board
    python benchmarks/bench_player.py --levels 40                 # win rates of the levels

Pairings: the perfect player as red and as yellow against ``random`` and
``alphabeta:depth=4`` (seeded). Each move is played as ``connect4 play`` and the
arena play it (:func:`connect4.players.match.play_move`: a thread per move), each
new player warmed up first as their rehearsal does. Prints move-time percentiles
by source (book, solver, search), each game's first move past the book (its
median and maximum) and the slowest move, the results, and with ``--check``
whether every move had the best exact score (each chosen child re-solved by the
kernel, compared with the root's score). Prints the machine (nproc, CPU model)
and the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from machine import cpu_model

from connect4.core.position import Position
from connect4.core.score import win_score
from connect4.players import make_player
from connect4.players.match import play_move
from connect4.players.perfect import PerfectPlayer
from connect4.solver import Solver, backend
from connect4.solver.book import load_book


def perfect_pool_clear() -> None:
    """Forget the pooled solver tables (every game starts with a cold table)."""
    backend.TABLES.clear()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


class Checker:
    """Independent optimality check: solve(root) == -solve(chosen child), by the solver."""

    def __init__(self) -> None:
        self.book = load_book("default", 7, 6)
        self.solver = Solver(7, 6, 64, book=self.book, etc=False)

    def solve(self, position: Position) -> int:
        return self.solver.solve(position)

    def optimal(self, position: Position, move: int) -> bool:
        """Whether ``move`` keeps ``position``'s exact score."""
        if position.is_winning_move(move):
            kept = win_score(position.size, position.ply)
        elif position.ply + 1 == position.size:
            kept = 0  # the last cell: a draw
        else:
            child = position.copy()
            child.play(move)
            kept = -self.solve(child)
        return kept == self.solve(position)


def level_rates(games: int, seed: int) -> None:
    """Win/draw/loss rates of each level against random and alphabeta:depth=4
    (half the games as red, half as yellow)."""
    print(f"\nlevels: {games} games per level and opponent (half as red)")
    print("  level     opponent              wins  draws losses   win rate")
    for level in ("easy", "medium", "hard", "perfect"):
        for opponent_spec in ("random", "alphabeta:depth=4"):
            tally = {"win": 0, "draw": 0, "loss": 0}
            for index in range(games):
                game_seed = seed + index
                player = PerfectPlayer(level=level, seed=game_seed, seconds=5.0)
                opponent = make_player(opponent_spec, seed=game_seed)
                level_red = index % 2 == 0
                position = Position()
                while not position.is_over():
                    mine = (position.to_move == 1) == level_red
                    mover = player if mine else opponent
                    position.play(mover.choose(position).move)
                winner = position.winner()
                colour = 1 if level_red else 2
                key = "draw" if winner is None else ("win" if winner == colour else "loss")
                tally[key] += 1
            rate = tally["win"] / games
            print(
                f"  {level:<9} {opponent_spec:<20} {tally['win']:>5} {tally['draw']:>6} "
                f"{tally['loss']:>6} {rate:>9.0%}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games in all (>= 4)")
    parser.add_argument("--check", action="store_true", help="re-solve every move")
    parser.add_argument("--solve-empty", action="store_true", help="time solving the empty board")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--ties",
        choices=("random", "centre"),
        default="random",
        help="perfect player's tie-break: random (seeded per game) or centre",
    )
    parser.add_argument(
        "--cold", action="store_true", help="with random ties: a cold solver table for every game"
    )
    parser.add_argument(
        "--levels",
        type=int,
        default=0,
        metavar="N",
        help="only measure each level's win rates over N games per opponent",
    )
    args = parser.parse_args()
    print(f"machine: nproc={os.cpu_count()}, CPU {cpu_model()}, load {os.getloadavg()[0]:.2f}")
    if args.levels:
        level_rates(args.levels, args.seed)
        return

    start = time.perf_counter()
    perfect = PerfectPlayer(seed=None)
    perfect.engine.book_scores(Position())
    print(f"start-up (book load): {time.perf_counter() - start:.3f} s")
    warm = time.perf_counter()
    perfect.engine.solve_columns(Position.from_moves("4444444"[:5] + "3"), None)
    print(f"kernel warm-up: {time.perf_counter() - warm:.3f} s")

    if args.solve_empty:
        # what `connect4 solve` does per line once started: the solver with the book
        book = perfect.engine.book
        assert book is not None
        solver = Solver(7, 6)
        solver.set_book(book)
        solver.solve(Position.from_moves("4444"))  # load the kernel
        for label, analyze in (("solve", False), ("solve -a", True)):
            times = []
            for _ in range(20):
                t = time.perf_counter()
                result = solver.run(Position(), analyze=analyze)
                times.append(time.perf_counter() - t)
            median = statistics.median(times) * 1e3
            print(
                f"empty board, {label} with the book: score {result.score}, "
                f"{result.nodes} nodes, median {median:.3f} ms, max {max(times) * 1e3:.3f} ms"
            )

    checker = Checker() if args.check else None
    pairings = [
        ("random", True),
        ("random", False),
        ("alphabeta:depth=4", True),
        ("alphabeta:depth=4", False),
    ]
    per = max(1, args.games // len(pairings))
    times: dict[str, list[float]] = {}
    nodes: dict[str, list[float]] = {}
    all_times: list[float] = []
    results: dict[str, list[str]] = {}
    checked = optimal = 0
    slowest: tuple[float, str] = (0.0, "")
    first_solver: list[float] = []  # each game's first move past the book
    for opponent_spec, perfect_red in pairings:
        label = f"perfect {'red' if perfect_red else 'yellow'} vs {opponent_spec}"
        for game_index in range(per):
            seed = args.seed + game_index
            opponent = make_player(opponent_spec, seed=seed)
            if args.ties == "random":  # a fresh seeded player: games differ
                perfect.close()  # its table goes back to the pool (unless --cold)
                perfect = PerfectPlayer(seed=seed + 1000 * perfect_red)
                if args.cold:
                    perfect_pool_clear()
                perfect.warm_up()  # as a game's rehearsal does, off the clock
            position = Position()
            past_book = False
            while not position.is_over():
                perfect_turn = (position.to_move == 1) == perfect_red
                if perfect_turn:
                    t = time.perf_counter()
                    choice = play_move(perfect, position).choice
                    elapsed = time.perf_counter() - t
                    assert choice is not None, "the perfect player forfeited"
                    source = str(choice.stats.get("source"))
                    if source != "book" and not past_book:
                        past_book = True
                        first_solver.append(elapsed)
                    times.setdefault(source, []).append(elapsed)
                    nodes.setdefault(source, []).append(float(choice.stats.get("nodes", 0)))
                    all_times.append(elapsed)
                    if elapsed > slowest[0]:
                        slowest = (elapsed, position.moves)
                    if checker is not None:
                        checked += 1
                        optimal += checker.optimal(position, choice.move)
                    position.play(choice.move)
                else:
                    position.play(opponent.choose(position).move)
            winner = position.winner()
            perfect_colour = 1 if perfect_red else 2
            outcome = "draw" if winner is None else ("win" if winner == perfect_colour else "LOSS")
            results.setdefault(label, []).append(outcome)
    print(f"\n{per * len(pairings)} games, {len(all_times)} perfect moves")
    for label, outcomes in results.items():
        print(
            f"  {label:<40} wins {outcomes.count('win')}, draws {outcomes.count('draw')}, "
            f"losses {outcomes.count('LOSS')}"
        )
    print("\nmove time (ms)      moves    mean   median     p99      max")
    for source, values in [*sorted(times.items()), ("all", all_times)]:
        ms = [v * 1e3 for v in values]
        print(
            f"  {source:<16} {len(ms):>6} {statistics.mean(ms):>7.2f} "
            f"{statistics.median(ms):>8.3f} {percentile(ms, 99):>7.2f} {max(ms):>8.2f}"
        )
    print("\nnodes per move      moves   median      p99      max   (load-independent)")
    for source, values in sorted(nodes.items()):
        print(
            f"  {source:<16} {len(values):>6} {statistics.median(values):>8.0f} "
            f"{percentile(values, 99):>8.0f} {max(values):>8.0f}"
        )
    if first_solver:
        ms = [v * 1e3 for v in first_solver]
        print(
            f"first move past the book: median {statistics.median(ms):.2f} ms, "
            f"max {max(ms):.2f} ms ({len(ms)} games)"
        )
    print(f"slowest move: {slowest[0] * 1e3:.1f} ms at {slowest[1]!r}")
    print(f"load: {os.getloadavg()[0]:.2f}")
    if checker is not None:
        print(f"optimal moves (re-solved by the kernel): {optimal}/{checked}")


if __name__ == "__main__":
    main()
