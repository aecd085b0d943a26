"""The vectorised env against N single envs in Gymnasium's SyncVectorEnv, step for step.

The reference is Gymnasium's own vectorisation of :class:`ConnectFourEnv`; every
observation, reward, termination, truncation and info (masks, colours, illegal
actions, the final observations of ``SAME_STEP``) must be equal, compared with
Gymnasium's ``data_equivalence``. The search opponents are the project's players
themselves; the random opponent is the vector env's generator replayed in Python
(the same :func:`playout_cell` on Python ints) as a callable opponent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("numba")

import gymnasium
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from connect4 import Position
from connect4.classic.mctsboard import S_RNG, board_setup, draw, free_cells, next_state, playout_cell
from connect4.classic.mctsboard import MASK64, seed_state
from connect4.core.game import Game
from connect4.envs import GYM_ID, ConnectFourEnv, new_game, vector_env
from connect4.envs.vecboard import E_CUR, E_MASK, E_STONES, N_SLOTS
from connect4.envs.vector import COMPILED, CompiledOpponent, ConnectFourVectorEnv, loop_arguments
from connect4.players import make_player


class ReplayedRandom:
    """The vector env's random opponent and colour draws, on Python ints."""

    def __init__(self, game: Game) -> None:
        self.params, self.order, cells, self.lines = board_setup(game, False, False)
        self.cells = list(cells)
        self.st = [0] * (S_RNG + 1)

    def seed(self, seed: int) -> None:
        self.st[S_RNG] = seed_state(seed)

    def colour(self) -> str:
        self.st[S_RNG] = next_state(self.st[S_RNG], MASK64)
        return ("red", "yellow")[draw(self.st[S_RNG], 2)]

    def __call__(self, game: Game) -> int:
        cur = game.stones(game.to_move)
        mask = game.stones(1) | game.stones(2)
        free = free_cells(mask, self.params)
        bit = playout_cell(cur, mask, free, self.params, self.order, self.cells, self.lines, self.st)
        return next(move for move, cells in enumerate(self.cells) if cells & bit)


class ReferenceEnv(ConnectFourEnv):
    """The single env with the vector env's generator: seeded by ``reset(seed)``,
    drawing the random opponent's moves and, for ``play_as="random"``, the colour."""

    def __init__(self, opponent: str, play_as: str, **kwargs: Any) -> None:
        game = new_game(
            kwargs.get("game", "connect4"), kwargs.get("width", 7), kwargs.get("height", 6),
            kwargs.get("rules", "standard"),
        )  # fmt: skip
        self.replay = ReplayedRandom(game)
        self.random_colour = play_as == "random"
        super().__init__(
            opponent=self.replay if opponent == "random" else opponent,
            play_as="red" if self.random_colour else play_as,
            **kwargs,
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self.replay.seed(seed)
        if self.random_colour:
            self.play_as = self.replay.colour()
        return super().reset(seed=seed, options=options)


def reference(num_envs: int, mode: AutoresetMode, **kwargs: Any) -> SyncVectorEnv:
    makers: list[Callable[[], gymnasium.Env[Any, Any]]] = [
        lambda: ReferenceEnv(**kwargs) for _ in range(num_envs)
    ]
    return SyncVectorEnv(makers, autoreset_mode=mode)


def agent_actions(rng: np.random.Generator, masks: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A random legal action per env; now and then an illegal one (a full column, -1, W)."""
    actions = (rng.random(masks.shape) * masks).argmax(axis=1)
    wild = rng.random(len(actions)) < 0.03
    actions[wild] = rng.integers(-1, masks.shape[1] + 1, size=int(wild.sum()))
    return actions


def assert_same(a: Any, b: Any, what: str) -> None:
    """Equal as Gymnasium compares data; the message names the first part that differs."""
    if data_equivalence(a, b, exact=True):
        return
    names = ("observation", "reward", "terminated", "truncated", "info")[-len(a) :]
    for name, x, y in zip(names, a, b, strict=True):
        if isinstance(x, dict) and isinstance(y, dict):
            assert x.keys() == y.keys(), f"{what}: info keys {sorted(x)} != {sorted(y)}"
            for key in x:
                assert data_equivalence(x[key], y[key], exact=True), (
                    f"{what}: info[{key!r}] differs:\n{x[key]}\n{y[key]}"
                )
        assert data_equivalence(x, y, exact=True), f"{what}: {name} differs:\n{x}\n{y}"


CASES = [
    {"opponent": "random", "play_as": "red"},
    {"opponent": "random", "play_as": "random"},
    {"opponent": "alphabeta:depth=2", "play_as": "yellow"},
    {"opponent": "alphabeta:depth=3,heuristic=threats,tt=on", "play_as": "random"},
    {"opponent": "minimax:depth=2,heuristic=cell-weights,ordering=none", "play_as": "red"},
    {"opponent": "random", "play_as": "random", "width": 5, "height": 4, "rules": "count-fours"},
    {"opponent": "alphabeta:depth=2", "play_as": "red", "width": 4, "height": 4},
    {"opponent": "alphabeta:depth=2", "play_as": "random", "game": "tictactoe"},
    {"opponent": "random", "play_as": "yellow", "width": 9, "height": 6},
]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("case", CASES, ids=lambda case: ",".join(map(str, case.values())))
def test_equals_sync_vector_env_of_single_envs(case: dict[str, Any], mode: AutoresetMode) -> None:
    num_envs, steps = 6, 120
    ours = ConnectFourVectorEnv(num_envs=num_envs, autoreset_mode=mode, **case)
    theirs = reference(num_envs, mode, **case)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == mode
    rng = np.random.default_rng(7)
    first = ours.reset(seed=11)
    assert_same(first, theirs.reset(seed=11), "reset")
    masks = first[1]["action_mask"]
    ends = 0
    for step in range(steps):
        actions = agent_actions(rng, masks)
        result = ours.step(actions)
        assert_same(result, theirs.step(actions), f"step {step} (actions {actions})")
        masks = result[1 + 3]["action_mask"]
        ends += int(result[2].sum())
        if step == steps // 2:  # a partial reset, reseeding two envs
            which = np.zeros(num_envs, dtype=np.bool_)
            which[[1, 4]] = True
            seeds = [None, 5, None, None, 9, None]
            options = {"reset_mask": which}
            partial = ours.reset(seed=seeds, options=dict(options))
            assert_same(partial, theirs.reset(seed=seeds, options=dict(options)), "partial reset")
            masks = np.where(which[:, None], partial[1]["action_mask"], masks)
    assert ends >= num_envs  # the run crossed autoreset boundaries
