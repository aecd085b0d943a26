"""A PettingZoo AEC environment for Connect Four (any size, both rule sets) and tic-tac-toe.

On 7x6 it is a drop-in for PettingZoo's ``connect_four_v3``: agents
``player_0`` (moves first) and ``player_1``; observations
``{"observation": (H, W, 2) int8, "action_mask": (W,) int8}`` with plane 0
the observing agent's stones and row 0 the top; rewards +1/-1 for a win or a
loss and 0 for a draw, given at the end.

Illegal actions follow ``connect_four_v3`` (its ``TerminateIllegalWrapper``
with an illegal reward of -1): an action its mask forbids ends the game for
both agents (terminated and truncated), the agent who played it gets -1 and
the other 0, and a warning is logged. An action outside the action space
raises ``ValueError``.

>>> env = ConnectFourAEC()
>>> env.reset(seed=0)
>>> for action in (3, 3, 4, 4, 5, 5, 6):
...     env.step(action)
>>> env.rewards, env.terminations["player_1"]
({'player_0': 1, 'player_1': -1}, True)
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.agent_selector import AgentSelector
from pettingzoo.utils.env_logger import EnvLogger

from connect4.core.game import Game
from connect4.core.games import Board
from connect4.envs.board import Info, action_count, action_mask, check_render_mode, picture, planes

Observation = dict[str, npt.NDArray[np.int8]]

RENDER_MODES = ("human", "ansi", "rgb_array")
"""``human`` prints the board, ``ansi`` returns it as text, ``rgb_array`` as an image."""


class ConnectFourAEC(AECEnv[str, Observation, int]):  # type: ignore[misc]
    """Two agents take turns on one board; see the module docstring for the conventions.

    >>> env = ConnectFourAEC(game="tictactoe")
    >>> env.reset()
    >>> env.observe("player_0")["observation"].shape, env.action_space("player_0").n
    ((3, 3, 2), np.int64(9))
    """

    metadata: ClassVar[Info] = {
        "render_modes": list(RENDER_MODES),
        "name": "connect4_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        width: int = 7,
        height: int = 6,
        rules: str = "standard",
        game: str = "connect4",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_render_mode(render_mode, RENDER_MODES)
        self.board = Board(game, width, height, rules)
        self.game: Game = self.board.new()
        self.render_mode = render_mode
        self.agents = ["player_0", "player_1"]
        self.possible_agents = self.agents[:]
        n = action_count(self.game)
        shape = (self.game.height, self.game.width, 2)
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.agents}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low=0, high=1, shape=shape, dtype=np.int8),
                    "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
                }
            )
            for agent in self.agents
        }
        self.reset()

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of ``agent`` (the same for both)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The action space of ``agent``: one action per column (per cell in tic-tac-toe)."""
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Observation:
        """``agent``'s view: its stones in plane 0; a mask only while it is to move."""
        player = self.possible_agents.index(agent) + 1
        mask = action_mask(self.game)
        if agent != self.agent_selection:
            mask[:] = 0
        return {"observation": planes(self.game, player), "action_mask": mask}

    def reset(self, seed: int | None = None, options: Info | None = None) -> None:
        """Start a new game (the game has no randomness, so ``seed`` changes nothing)."""
        self.game = self.board.new()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, Info] = {agent: {} for agent in self.agents}
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to move (``None`` for an agent that is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        space = self.action_spaces[agent]
        if action is None or not space.contains(action):
            raise ValueError(f"action {action!r} is outside the action space {space}")
        self.rewards = dict.fromkeys(self.agents, 0)
        if self.game.is_over() or not action_mask(self.game)[action]:
            EnvLogger.warn_on_illegal_move()
            self._cumulative_rewards[agent] = 0
            self.terminations = dict.fromkeys(self.agents, True)
            self.truncations = dict.fromkeys(self.agents, True)
            self.rewards[agent] = -1
            self._accumulate_rewards()
            self._deads_step_first()
            return
        self.game.play(int(action))
        next_agent = self._agent_selector.next()
        if self.game.is_over():
            winner = self.game.winner()
            if winner is not None:
                self.rewards[self.possible_agents[winner - 1]] = 1
                self.rewards[self.possible_agents[2 - winner]] = -1
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = next_agent
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The board in the render mode chosen at construction (``None`` for ``human``)."""
        if self.render_mode == "rgb_array":
            return picture(self.game)
        if self.render_mode == "ansi":
            return str(self.game)
        if self.render_mode == "human":
            print(self.game)
        return None

    def close(self) -> None:
        """Nothing to release."""
