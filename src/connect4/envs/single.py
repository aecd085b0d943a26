"""A Gymnasium single-agent environment: the agent plays one colour, an opponent the other.

The opponent is any player spec (``"random"``, ``"alphabeta:depth=3"``,
``"perfect:level=easy"``, ...) or a function from the game to a move. The
observation is the ``(H, W, 2)`` int8 tensor of :mod:`connect4.envs.board`
(plane 0 the agent's stones, row 0 the top); ``info["action_mask"]`` marks
the legal actions after every ``reset`` and ``step``.

Rewards: +1 when the agent wins, -1 when it loses, 0 for a draw and for every
move before the end. An illegal action (a full column, a taken cell) ends the
episode at once with reward -1 and ``info["illegal_action"] = True``. There is
no reward shaping.

>>> env = ConnectFourEnv(opponent="random", play_as="red")
>>> observation, info = env.reset(seed=1)
>>> observation.shape, info["action_mask"].tolist()
((6, 7, 2), [1, 1, 1, 1, 1, 1, 1])
>>> observation, reward, terminated, truncated, info = env.step(3)
>>> int(observation[:, :, 0].sum()), int(observation[:, :, 1].sum()), reward
(1, 1, 0.0)
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from connect4.core.game import Game
from connect4.core.games import Board
from connect4.envs.board import Info, action_count, action_mask, check_render_mode, picture, planes
from connect4.players import Player, PlayerContext, make_player

Opponent = str | Callable[[Game], int]
"""A player spec, or a function that returns the opponent's move in a game (left unchanged)."""

COLOURS = ("red", "yellow")
RENDER_MODES = ("ansi", "rgb_array")


class ConnectFourEnv(gymnasium.Env[npt.NDArray[np.int8], np.int64]):
    """The agent against a fixed opponent; see the module docstring for the conventions.

    ``play_as`` is ``"red"`` (the agent moves first), ``"yellow"`` or
    ``"random"`` (drawn at each reset from the env's seeded generator).

    >>> env = ConnectFourEnv(opponent=lambda game: game.legal_moves()[0], play_as="yellow")
    >>> observation, info = env.reset(seed=0)
    >>> int(observation[:, :, 0].sum()), int(observation[:, :, 1].sum()), info["play_as"]
    (0, 1, 'yellow')
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}  # noqa: RUF012 (Env's field)

    def __init__(
        self,
        opponent: Opponent = "random",
        play_as: str = "red",
        width: int = 7,
        height: int = 6,
        rules: str = "standard",
        game: str = "connect4",
        render_mode: str | None = None,
    ) -> None:
        if play_as not in (*COLOURS, "random"):
            raise ValueError(f"unknown play_as {play_as!r}: choose red, yellow or random")
        check_render_mode(render_mode, RENDER_MODES)
        self.opponent = opponent
        self.play_as = play_as
        self.board = Board(game, width, height, rules)
        self.game: Game = self.board.new()
        self.render_mode = render_mode
        self.agent_player = 1
        self._player: Player | None = None
        self.actions = action_count(self.game)
        self.action_space = spaces.Discrete(self.actions)
        self.observation_space = spaces.Box(
            low=0, high=1, shape=(self.game.height, self.game.width, 2), dtype=np.int8
        )
        if isinstance(opponent, str):  # a bad spec fails here, not at the first step
            self._player = make_player(opponent, PlayerContext(self.board))

    def reset(
        self, *, seed: int | None = None, options: Info | None = None
    ) -> tuple[npt.NDArray[np.int8], Info]:
        """A new game; when the agent plays yellow, the opponent has already moved."""
        super().reset(seed=seed)
        self.game = self.board.new()
        if self.play_as == "random":
            self.agent_player = int(self.np_random.integers(1, 3))
        else:
            self.agent_player = COLOURS.index(self.play_as) + 1
        if isinstance(self.opponent, str) and seed is not None:
            if self._player is not None:
                self._player.close()
            player_seed = int(self.np_random.integers(2**31))
            self._player = make_player(self.opponent, PlayerContext(self.board, player_seed))
        if self.game.to_move != self.agent_player:
            self.game.play(self._opponent_move())
        return self._observation(), self._info()

    def step(self, action: np.int64 | int) -> tuple[npt.NDArray[np.int8], float, bool, bool, Info]:
        """Play the agent's ``action`` and the opponent's answer."""
        move = int(action)
        if self.game.is_over() or move not in self.game.legal_moves():
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        self.game.play(move)
        if not self.game.is_over():
            self.game.play(self._opponent_move())
        reward = 0.0
        if self.game.is_over():
            winner = self.game.winner()
            reward = 0.0 if winner is None else (1.0 if winner == self.agent_player else -1.0)
        return self._observation(), reward, self.game.is_over(), False, self._info()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The board as text (``ansi``) or an RGB image (``rgb_array``)."""
        if self.render_mode == "rgb_array":
            return picture(self.game)
        if self.render_mode == "ansi":
            return str(self.game)
        return None

    def close(self) -> None:
        """Release the opponent's resources (an external program, a pool)."""
        if self._player is not None:
            self._player.close()
            self._player = None

    def _opponent_move(self) -> int:
        if callable(self.opponent):
            return self.opponent(self.game.copy())
        if self._player is None:
            self._player = make_player(self.opponent, PlayerContext(self.board))
        return self._player.choose(self.game).move

    def _observation(self) -> npt.NDArray[np.int8]:
        return planes(self.game, self.agent_player)

    def _info(self) -> Info:
        mask = (
            action_mask(self.game)
            if not self.game.is_over()
            else np.zeros(self.actions, dtype=np.int8)
        )
        return {"action_mask": mask, "play_as": COLOURS[self.agent_player - 1]}
