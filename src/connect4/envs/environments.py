"""The environments' front door, re-exported by :mod:`connect4.envs` when the ``rl``
extra is installed: PettingZoo (two agents) and Gymnasium (one agent, one board or N
boards in one compiled call).

Importing it registers the Gymnasium id ``connect4/ConnectFour-v0``, with
the vectorised env (:mod:`connect4.envs.vector`) as its vector entry point, so
``gymnasium.make_vec`` returns it.

>>> env = pettingzoo_env(width=5, height=4, rules="count-fours")
>>> env.reset(seed=0)
>>> env.observe("player_0")["observation"].shape
(4, 5, 2)
"""

from __future__ import annotations

import gymnasium
from gymnasium.vector import VectorEnv

from connect4.envs.aec import ConnectFourAEC
from connect4.envs.single import ConnectFourEnv, Opponent

GYM_ID = "connect4/ConnectFour-v0"
"""The Gymnasium id of the single-agent environment (:class:`ConnectFourEnv`)."""

if GYM_ID not in gymnasium.registry:
    gymnasium.register(
        id=GYM_ID,
        entry_point="connect4.envs.single:ConnectFourEnv",
        vector_entry_point="connect4.envs.vector:ConnectFourVectorEnv",
    )


# A PettingZoo AEC env, equal to ``connect_four_v3`` on 7x6 (see :mod:`connect4.envs.aec`):
# the class itself, whose keywords (width, height, rules, game, render_mode) it takes.
pettingzoo_env = ConnectFourAEC


def vector_env(
    num_envs: int,
    opponent: str = "random",
    play_as: str = "red",
    width: int = 7,
    height: int = 6,
    rules: str = "standard",
    game: str = "connect4",
    autoreset_mode: str = "NextStep",
) -> VectorEnv:
    """``num_envs`` boards against ``opponent``, stepped in one compiled call (see
    :mod:`connect4.envs.vector`; importing it loads numba and compiles on first use).

    >>> env = vector_env(4, opponent="alphabeta:depth=1", width=5, height=4)
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, info["action_mask"].shape
    ((4, 4, 5, 2), (4, 5))
    """
    from connect4.envs.vector import ConnectFourVectorEnv

    return ConnectFourVectorEnv(
        num_envs=num_envs, opponent=opponent, play_as=play_as, width=width, height=height,
        rules=rules, game=game, autoreset_mode=autoreset_mode,
    )  # fmt: skip


__all__ = ["GYM_ID", "ConnectFourAEC", "ConnectFourEnv", "Opponent", "pettingzoo_env", "vector_env"]
