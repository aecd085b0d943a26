"""Train an action-masked PPO agent against ``alphabeta:level=easy``, then score it.

    pip install 'connect4[train]'          # sb3-contrib (and torch; the CPU build is enough)
    python examples/train_maskable_ppo.py --steps 200000

The agent learns in ``connect4/ConnectFour-v0`` (the Gymnasium env) with
sb3-contrib's MaskablePPO, which never samples a full column. The opponent
searches deterministically, so a tenth of its moves (``--explore``) are
random: the agent meets many games, not one line it could learn by heart.
Then the script scores the trained policy two ways and prints each figure
beside the built-in players' on the same test:

1. the share of optimal moves on Pons' benchmark positions, the solver
   (``Solver.analyze``) judging every move;
2. Elo in an arena round robin against built-in levels from every one-move
   opening, the policy entering as a registered player kind (``ppo``).

docs/rl.md shows a run's output.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

import connect4.envs
from connect4 import Game, Position, Solver
from connect4.arena import ArenaConfig, Summary, all_openings, run_tournament, summarize
from connect4.envs import Opponent, action_mask, planes
from connect4.players import MoveChoice, PlayerContext, PlayerKind, make_player, register
from connect4.solver.bench import pons_path, read_cases

OPPONENT = "alphabeta:level=easy"
PONS_SETS = {  # Pons' test sets: ply range and difficulty of the positions
    "Test_L3_R1": "End-Easy",
    "Test_L2_R1": "Middle-Easy",
    "Test_L2_R2": "Middle-Medium",
    "Test_L1_R1": "Begin-Easy",
}
REFERENCES = ("random", "alphabeta:level=easy", "alphabeta:level=medium")


# ------------------------------------------------------------------ training
def masks(env: gymnasium.Env[Any, Any]) -> np.ndarray:
    """The legal columns of the env's current position, as MaskablePPO asks for them."""
    return action_mask(env.unwrapped.game).astype(bool)  # type: ignore[attr-defined]


def opponent(explore: float, seed: int) -> Opponent:
    """``OPPONENT``, playing a uniformly random column on a share ``explore`` of its moves."""
    if explore <= 0:
        return OPPONENT
    player, rng = make_player(OPPONENT), random.Random(seed)

    def move(game: Game) -> int:
        if rng.random() < explore:
            return rng.choice(game.legal_moves())
        return player.choose(game).move

    return move


def make_env(explore: float, seed: int) -> gymnasium.Env[Any, Any]:
    """One training env: the agent plays a random colour against the opponent."""
    env = gymnasium.make(connect4.envs.GYM_ID, opponent=opponent(explore, seed), play_as="random")
    env.reset(seed=seed)
    return ActionMasker(env, masks)


class Progress(BaseCallback):  # type: ignore[misc]
    """Prints the games' recent results every ``every`` steps, with the CPU time so far."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every, self.next = every, every
        self.started = time.process_time()
        self.results: deque[float] = deque(maxlen=1000)
        self.episodes = 0

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.results.append(float(info["episode"]["r"]))
                self.episodes += 1
        if self.num_timesteps >= self.next:
            self.next += self.every
            self.report()
        return True

    def report(self) -> None:
        results = np.array(self.results)
        print(
            f"{self.num_timesteps:8d} steps {self.episodes:7d} games "
            f"{time.process_time() - self.started:6.0f} s CPU   last {len(results)} games: "
            f"won {np.mean(results > 0):4.0%} drew {np.mean(results == 0):4.0%} "
            f"lost {np.mean(results < 0):4.0%}",
            flush=True,
        )


def train(steps: int, explore: float, seed: int, envs: int) -> MaskablePPO:
    """MaskablePPO on ``envs`` copies of the env for ``steps`` of the agent's moves."""
    vec = VecMonitor(DummyVecEnv([lambda i=i: make_env(explore, seed + i) for i in range(envs)]))
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=256,
        batch_size=256,
        n_epochs=4,
        learning_rate=3e-4,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128]},
        seed=seed,
        device="cpu",
    )
    model.learn(total_timesteps=steps, callback=Progress(max(steps // 10, 1)))
    return model


# ------------------------------------------------------------------ the policy as a player
def policy_move(model: MaskablePPO, game: Game) -> int:
    """The trained policy's column for the side to move (the most likely legal one)."""
    observation = planes(game, game.to_move)
    action, _ = model.predict(
        observation, action_masks=action_mask(game).astype(bool), deterministic=True
    )
    return int(action)


@dataclass
class PolicyPlayer:
    """The trained policy behind the :class:`~connect4.players.Player` protocol."""

    spec: str
    model: MaskablePPO
    is_human: bool = False

    def choose(self, game: Game) -> MoveChoice:
        return MoveChoice(move=policy_move(self.model, game))

    def close(self) -> None:
        pass


def register_policy(model: MaskablePPO) -> None:
    """Make the spec ``ppo`` name the trained policy (in this process)."""

    def build(spec: str, options: dict[str, object], context: PlayerContext) -> PolicyPlayer:
        return PolicyPlayer(spec, model)

    register(PlayerKind("ppo", "the trained MaskablePPO policy", {}, build, ("connect4",)))


# ------------------------------------------------------------------ scores
def optimal_share(specs: list[str], positions: int) -> dict[str, dict[str, float]]:
    """Per spec and Pons set: the share of positions where the spec's move is optimal."""
    solver = Solver()
    players = {spec: make_player(spec, seed=1) for spec in specs}
    shares: dict[str, dict[str, float]] = {spec: {} for spec in specs}
    for name, label in PONS_SETS.items():
        hits = dict.fromkeys(specs, 0)
        cases = read_cases(str(pons_path(name)), limit=positions)
        for case in cases:
            position = Position.from_moves(case.moves)
            scores = solver.analyze(position)
            best = max(score for score in scores if score is not None)
            for spec, player in players.items():
                hits[spec] += scores[player.choose(position.copy()).move] == best
        for spec in specs:
            shares[spec][label] = hits[spec] / len(cases)
    return shares


def arena(specs: list[str], games_per_pair: int, seed: int) -> Summary:
    """A round robin of ``specs`` from every one-move opening, both colours of each."""
    base = ArenaConfig(players=tuple(specs))
    config = ArenaConfig(
        players=tuple(specs),
        openings=tuple(all_openings(base, 1)),
        games_per_pair=games_per_pair,
        seed=seed,
    )
    return summarize(config, run_tournament(config).records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=200_000, help="training steps (moves)")
    parser.add_argument("--explore", type=float, default=0.1, help="opponent's random share")
    parser.add_argument("--envs", type=int, default=8, help="envs stepped together")
    parser.add_argument("--positions", type=int, default=200, help="positions per Pons set")
    parser.add_argument("--arena-games", type=int, default=14, help="arena games per pair")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, help="save the trained model here (.zip)")
    args = parser.parse_args()
    torch.set_num_threads(1)  # small networks: one thread is as fast, and leaves a core free

    print(
        f"training MaskablePPO against {OPPONENT} ({args.explore:.0%} of its moves random) "
        f"for {args.steps} steps",
        flush=True,
    )
    started = time.monotonic()
    model = train(args.steps, args.explore, args.seed, args.envs)
    print(f"trained in {time.monotonic() - started:.0f} s", flush=True)
    if args.save:
        model.save(args.save)
    register_policy(model)
    specs = ["ppo", *REFERENCES]

    print(f"\noptimal moves on Pons' sets ({args.positions} positions each)", flush=True)
    shares = optimal_share(specs, args.positions)
    print("  " + " " * 24 + "".join(f"{label:>15}" for label in PONS_SETS.values()))
    for spec in specs:
        row = "".join(f"{shares[spec][label]:15.1%}" for label in PONS_SETS.values())
        print(f"  {spec:24}{row}", flush=True)

    print(f"\narena round robin, {args.arena_games} games per pair", flush=True)
    summary = arena(specs, args.arena_games, args.seed)
    for row in summary.standings:
        print(f"  {row.player:24} Elo {row.elo or 0:+5.0f}   score {row.score or 0:4.0%}")
    cells = summary.crosstable.get("ppo", {})
    points = [f"{cells[s].points:g}/{cells[s].games} against {s}" for s in specs if s in cells]
    print("  ppo scored " + ", ".join(points), flush=True)


if __name__ == "__main__":
    main()
