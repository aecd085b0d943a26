"""Random play in PettingZoo's ``connect_four_v3`` beside this package's envs, on one core.

Run: ``nice .venv/bin/python benchmarks/bench_env.py [--rounds 3] [--sizes 1,8,64,256,1024,4096]
[--boards 7x6,8x8]``.
Prints the machine, then per round (rounds alternate the envs, as this machine's
speed drifts) and as medians over the rounds:

* ``connect_four_v3``: PettingZoo's AEC loop (``agent_iter``, ``last``, a random
  action from the mask, ``step``), reset after each game;
* ``vector N=...``: :class:`connect4.envs.vector.ConnectFourVectorEnv`, N boards,
  the agent's actions drawn for all N at once from ``info["action_mask"]``, the
  random opponent inside the compiled loop, autoreset (``NextStep``), on each board
  of ``--boards`` (7x6 by default; boards over 63 bits, such as 8x8, run its
  two-word loop);
* ``single``: the Gymnasium env ``connect4/ConnectFour-v0`` against ``"random"``.

A **step is one move**: a disc dropped by the agent or by the opponent, so a
vector-env step of N boards counts up to 2N moves (the env counts them); in
``connect_four_v3`` each ``step`` with an action is one move (the steps with
``None`` that close a game are run but not counted). Each side samples its
actions from the masks with NumPy: one ``Generator`` call per move for the AEC
loop, one call per batch for the vector env. The process is pinned to one core
and numba runs one thread. Target: the vector env at >= 100x ``connect_four_v3``.
"""

from __future__ import annotations

import argparse
import os

os.environ["NUMBA_NUM_THREADS"] = "1"  # before numba is imported
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from board_sizes import parse_boards
from machine import describe_machine
from pettingzoo.classic import connect_four_v3

from connect4.envs import ConnectFourEnv
from connect4.envs.vector import ConnectFourVectorEnv


@dataclass
class Rate:
    """Moves (and agent steps) per second of one timed run."""

    moves: int
    steps: int
    seconds: float

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds


def pettingzoo_rate(moves: int, seed: int) -> Rate:
    """``moves`` random moves in ``connect_four_v3``'s AEC loop."""
    env = connect_four_v3.env()
    rng = np.random.default_rng(seed)
    played = 0
    start = time.perf_counter()
    while played < moves:
        env.reset(seed=seed + played)
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                played += 1
            env.step(action)
    seconds = time.perf_counter() - start
    env.close()
    return Rate(played, played, seconds)


def vector_rate(
    num_envs: int, moves: int, seed: int, opponent: str, board: tuple[int, int] = (7, 6)
) -> Rate:
    """About ``moves`` moves in the vector env with ``num_envs`` boards of ``board``."""
    width, height = board
    env = ConnectFourVectorEnv(
        num_envs=num_envs, opponent=opponent, play_as="random", width=width, height=height
    )
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps = min(max(20, moves // (2 * num_envs)), 5000)  # small N: 5,000 steps are plenty
    before = env.moves_played
    start = time.perf_counter()
    for _ in range(steps):
        masks = info["action_mask"]
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        _, _, _, _, info = env.step(actions)
    seconds = time.perf_counter() - start
    return Rate(env.moves_played - before, steps * num_envs, seconds)


def single_rate(moves: int, seed: int) -> Rate:
    """About ``moves`` moves in the single Gymnasium env against ``"random"``."""
    env = ConnectFourEnv(opponent="random", play_as="random")
    rng = np.random.default_rng(seed)
    played = steps = 0
    start = time.perf_counter()
    while played < moves:
        _, info = env.reset(seed=seed + played)
        terminated = False
        while not terminated:
            legal = np.flatnonzero(info["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            _, _, terminated, _, info = env.step(action)
            steps += 1
        played += env.game.ply  # the agent's moves and the opponent's
    seconds = time.perf_counter() - start
    return Rate(played, steps, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", default="1,8,64,256,1024,4096", help="vector env sizes N")
    parser.add_argument("--pz-moves", type=int, default=10_000, help="moves per PettingZoo run")
    parser.add_argument("--moves", type=int, default=1_000_000, help="moves per vector run")
    parser.add_argument("--opponent", default="random", help="the vector env's opponent spec")
    parser.add_argument("--boards", default="7x6", help="the vector env's boards, e.g. 7x6,8x8")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    try:
        boards = parse_boards(args.boards)
    except ValueError as error:
        parser.error(f"--boards: {error}")
    print(describe_machine(), "| pinned to 1 core, NUMBA_NUM_THREADS=1")
    for board in boards:  # compile (or load the cache) off the clock
        try:
            vector_rate(8, 1000, 0, args.opponent, board)
        except ValueError as error:  # a board or an opponent the vector env refuses
            parser.error(str(error))
    runs: dict[str, list[Rate]] = {}
    jobs: list[tuple[str, Callable[[int], Rate]]] = [
        ("connect_four_v3", lambda seed: pettingzoo_rate(args.pz_moves, seed)),
        ("single (ours)", lambda seed: single_rate(args.pz_moves, seed)),
    ]
    for board in boards:
        label = "" if board == (7, 6) else f"{board[0]}x{board[1]} "
        for n in sizes:
            jobs.append(
                (
                    f"vector {label}N={n}",
                    lambda seed, n=n, b=board: vector_rate(n, args.moves, seed, args.opponent, b),
                )
            )
    for round_ in range(args.rounds):
        for name, job in jobs:
            rate = job(round_)
            runs.setdefault(name, []).append(rate)
            print(
                f"round {round_ + 1} {name:<20} {rate.moves:>9,} moves "
                f"{rate.seconds:6.2f} s {rate.moves_per_second:>12,.0f} moves/s"
            )
    pz = runs["connect_four_v3"]
    print(
        f"\nover {args.rounds} rounds (opponent in the vector env: {args.opponent}); the ratio is"
    )
    print("the median over rounds of moves/s / connect_four_v3's moves/s in the same round")
    print(
        f"{'env':<20} {'median moves/s':>15} {'best moves/s':>13} {'agent steps/s':>14} {'x v3':>8}"
    )
    for name, rates in runs.items():
        moves = statistics.median(r.moves_per_second for r in rates)
        best = max(r.moves_per_second for r in rates)
        steps = statistics.median(r.steps_per_second for r in rates)
        ratio = statistics.median(
            r.moves_per_second / p.moves_per_second for r, p in zip(rates, pz, strict=True)
        )
        print(f"{name:<20} {moves:>15,.0f} {best:>13,.0f} {steps:>14,.0f} {ratio:>7.0f}x")


if __name__ == "__main__":
    main()
