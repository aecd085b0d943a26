"""Connect Four and tic-tac-toe: positions, classic AIs, a perfect solver, an arena.

>>> from connect4 import Position, solve
>>> Position.from_moves("4453").to_move
1
>>> solve(Position.from_moves("44455554221"))
-15

The solver, the search and the players load on first use (``connect4.Solver``,
``connect4.classic.search``, ...), so ``import connect4`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from connect4.core.errors import (
    BudgetExceeded,
    Connect4Error,
    GameError,
    IllegalMoveError,
    InvalidMoveError,
)
from connect4.core.game import Game
from connect4.core.games import Board, new_game
from connect4.core.position import Position
from connect4.core.tictactoe import TicTacToe
from connect4.core.version import __version__ as __version__

if TYPE_CHECKING:
    from connect4.classic.search import Limits, SearchResult, alphabeta, minimax
    from connect4.players import MoveChoice, Player, make_player
    from connect4.solver import Solver, SolverError, SolveResult, analyze, best_move, solve

# name -> module that defines it, imported on first access (numba is slow to import)
_LAZY = {
    "Solver": "connect4.solver",
    "SolveResult": "connect4.solver",
    "SolverError": "connect4.solver",
    "solve": "connect4.solver",
    "analyze": "connect4.solver",
    "best_move": "connect4.solver",
    "Limits": "connect4.classic.search",
    "SearchResult": "connect4.classic.search",
    "minimax": "connect4.classic.search",
    "alphabeta": "connect4.classic.search",
    "make_player": "connect4.players",
    "Player": "connect4.players",
    "MoveChoice": "connect4.players",
}

__all__ = [
    "Board",
    "BudgetExceeded",
    "Connect4Error",
    "Game",
    "GameError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Limits",
    "MoveChoice",
    "Player",
    "Position",
    "SearchResult",
    "SolveResult",
    "Solver",
    "SolverError",
    "TicTacToe",
    "alphabeta",
    "analyze",
    "best_move",
    "make_player",
    "minimax",
    "new_game",
    "solve",
]


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'connect4' has no attribute {name!r}")
