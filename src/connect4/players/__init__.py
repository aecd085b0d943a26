"""Players and player specs: one string names a player everywhere.

The kinds a spec can name are registered here, from one explicit list:
``human``, ``random``, ``cmd`` (external programs), ``kaggle`` (Kaggle ConnectX
agent files), ``perfect`` (the solver
with beatable levels), ``minimax`` and ``alphabeta`` (the classic search),
``mcts`` (Monte Carlo tree search), ``net`` (the learned network, alone or with PUCT).

>>> from connect4 import Position
>>> make_player("alphabeta:depth=2").choose(Position.from_moves("112233")).move
3
>>> sorted(KINDS)
['alphabeta', 'cmd', 'human', 'kaggle', 'mcts', 'minimax', 'net', 'perfect', 'random']
"""

from __future__ import annotations

from connect4.players.base import ColumnStats, MoveChoice, MoveStats, Player, PlayerContext
from connect4.players.external import CMD
from connect4.players.kaggle import KAGGLE
from connect4.players.mcts import MCTS
from connect4.players.net import NET
from connect4.players.options import Option
from connect4.players.perfect import PERFECT
from connect4.players.registry import (
    HUMAN,
    KINDS,
    RANDOM,
    PlayerKind,
    PlayerSpec,
    PlayerSpecError,
    RandomPlayer,
    UnknownPlayer,
    describe_players,
    find_kind,
    make_player,
    parse_spec,
    register,
    rehearse,
)
from connect4.players.search import ALPHABETA, MINIMAX

BUILTIN_KINDS: tuple[PlayerKind, ...] = (
    HUMAN,
    RANDOM,
    CMD,
    KAGGLE,
    PERFECT,
    MINIMAX,
    ALPHABETA,
    MCTS,
    NET,
)
"""The kinds every program knows, in the order menus list them."""

for _kind in BUILTIN_KINDS:
    register(_kind)

__all__ = [
    "BUILTIN_KINDS",
    "KINDS",
    "ColumnStats",
    "MoveChoice",
    "MoveStats",
    "Option",
    "Player",
    "PlayerContext",
    "PlayerKind",
    "PlayerSpec",
    "PlayerSpecError",
    "RandomPlayer",
    "UnknownPlayer",
    "describe_players",
    "find_kind",
    "make_player",
    "parse_spec",
    "register",
    "rehearse",
]
