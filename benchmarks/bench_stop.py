"""How soon each long search stops once its caller's limit says so.

Run: ``nice .venv/bin/python benchmarks/bench_stop.py [--rounds 3] [--after 0.2]``.

Each search below would run for hours (minutes for the solver) on its own; a limit
stops it ``--after`` seconds in, by its stop flag (set from another thread) or by its
deadline. Prints, per search, the median and the worst seconds from the stop to the
search's return over the rounds, and whether the worst is within the target
(:data:`TARGET_SECONDS`: on an idle machine each stops within about a tenth of a second).
The tests check that each stops at all (tests/test_limits.py); the times live here.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable

from machine import describe_machine

from connect4 import Position
from connect4.classic.search import Limits, search
from connect4.core.limits import Limit
from connect4.players import make_player

TARGET_SECONDS = 0.5


def flag_search(engine: str) -> Callable[[Limit], object]:
    return lambda limit: search(Position(), limits=Limits(depth=30), engine=engine, limit=limit)


def compiled_mcts(limit: Limit) -> object:
    from connect4.classic import fastmcts
    from connect4.classic.mctsboard import seed_state

    tree = fastmcts.CompiledTree(Position(), solver=False, heuristic=False, state=seed_state(1))
    return tree.run(100_000_000, 1.41, limit.flag)


def player_move(limit: Limit) -> object:
    return make_player("alphabeta:time=3600").choose(Position(), limit)


def solver_8x7(limit: Limit) -> object:
    from connect4.solver import solver_for

    return solver_for(8, 7).run(Position(8, 7), limit=limit)


SEARCHES: dict[str, tuple[Callable[[Limit], object], bool]] = {
    # name: (the search under a limit, stopped by its deadline rather than its flag)
    "alphabeta numba, flag": (flag_search("numba"), False),
    "alphabeta python, flag": (flag_search("python"), False),
    "compiled MCTS, flag": (compiled_mcts, False),
    "alphabeta player, deadline": (player_move, True),
    "solver 8x7, flag": (solver_8x7, False),
}


def stop_latency(run: Callable[[Limit], object], by_deadline: bool, after: float) -> float:
    """Seconds from the limit's stop to ``run``'s return."""
    if by_deadline:  # (a player answers a little before its deadline: a margin of its own)
        started = time.monotonic()
        run(Limit.within(after))
        return time.monotonic() - started - after
    limit = Limit()
    stopped: list[float] = []

    def stop() -> None:
        stopped.append(time.monotonic())
        limit.stop()

    timer = threading.Timer(after, stop)
    timer.start()
    run(limit)
    ended = time.monotonic()
    timer.join()
    return ended - stopped[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each search")
    parser.add_argument("--after", type=float, default=0.2, help="seconds before the stop")
    options = parser.parse_args()
    print(describe_machine())
    for run, by_deadline in SEARCHES.values():  # compiled before the clock
        stop_latency(run, by_deadline, 0.01)
    print(f"{'search':<28} {'median s':>9} {'worst s':>8}  within {TARGET_SECONDS} s")
    for name, (run, by_deadline) in SEARCHES.items():
        times = [stop_latency(run, by_deadline, options.after) for _ in range(options.rounds)]
        worst = max(times)
        verdict = "yes" if worst <= TARGET_SECONDS else "NO"
        print(f"{name:<28} {statistics.median(times):>9.3f} {worst:>8.3f}  {verdict}")


if __name__ == "__main__":
    main()
