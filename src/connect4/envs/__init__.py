"""Reinforcement-learning environments: PettingZoo (two agents) and Gymnasium (one agent,
one board or N boards in one compiled call), any player as a Kaggle ConnectX agent
(:func:`kaggle_agent`), and labelled positions for training (:mod:`.dataset`).

The environments need the ``rl`` extra (in the project's folder:
``.venv/bin/pip install -e '.[rl]'``); with it, importing this package registers the
Gymnasium id ``connect4/ConnectFour-v0`` (see :mod:`.environments`). Without it the
package still imports, so ``connect4 dataset``, training and Kaggle agents need no RL
library, and each environment's name (:data:`NEEDS_RL`) raises an ``ImportError``
that names the install command.

>>> env = pettingzoo_env(width=5, height=4)
>>> env.reset(seed=0)
>>> sorted(env.agents)
['player_0', 'player_1']
"""

from __future__ import annotations

from connect4.core.errors import MissingExtra
from connect4.core.games import new_game
from connect4.envs.board import action_mask, picture, planes
from connect4.envs.kaggle import ConnectXAgent, kaggle_agent

try:
    import gymnasium  # noqa: F401 (its absence, or pettingzoo's, is MISSING)
    import pettingzoo  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installation
    _missing = MissingExtra.of_module(error.name or "pettingzoo")
    MISSING: str | None = str(_missing) if _missing else str(error)
else:
    MISSING = None
"""Why the environments cannot be used here (the install command), or None."""

if MISSING is None:
    from connect4.envs.environments import (
        GYM_ID,
        ConnectFourAEC,
        ConnectFourEnv,
        Opponent,
        pettingzoo_env,
        vector_env,
    )

NEEDS_RL = ("GYM_ID", "ConnectFourAEC", "ConnectFourEnv", "Opponent", "pettingzoo_env",
            "vector_env")  # fmt: skip
"""The names that need the ``rl`` extra (the rest: the tensor layout and Kaggle agents)."""

__all__ = [
    "GYM_ID",
    "ConnectFourAEC",
    "ConnectFourEnv",
    "ConnectXAgent",
    "Opponent",
    "action_mask",
    "kaggle_agent",
    "new_game",
    "pettingzoo_env",
    "picture",
    "planes",
    "vector_env",
]


def __getattr__(name: str) -> object:
    """An environment's name without the ``rl`` extra: ImportError naming the extra."""
    if MISSING is not None and name in NEEDS_RL:
        raise ImportError(MISSING)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
