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
from connect4.players.options import Option
from connect4.players.registry import (
    KINDS,
    KindRef,
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

BUILTIN_KINDS: tuple[KindRef, ...] = (
    KindRef("human", "connect4.players.registry:HUMAN"),
    KindRef("random", "connect4.players.registry:RANDOM"),
    KindRef("cmd", "connect4.players.external:CMD"),
    KindRef("kaggle", "connect4.players.kaggle:KAGGLE"),
    KindRef("perfect", "connect4.players.perfect:PERFECT"),
    KindRef("minimax", "connect4.players.search:MINIMAX"),
    KindRef("alphabeta", "connect4.players.search:ALPHABETA"),
    KindRef("mcts", "connect4.players.mcts:MCTS"),
    KindRef("net", "connect4.players.net:NET"),
)
"""The kinds every program knows, in the order menus list them, each by where it is
defined: a kind's module (and what it needs: numpy, the solver, a network) is
imported when the kind is first looked up (a spec naming it, a menu describing it),
so a game of a person against one kind never loads the others."""

for _kind in BUILTIN_KINDS:
    register(_kind)

__all__ = [
    "BUILTIN_KINDS",
    "KINDS",
    "ColumnStats",
    "KindRef",
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
