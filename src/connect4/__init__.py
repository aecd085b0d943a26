"""Connect Four and tic-tac-toe: positions, classic AIs, a perfect solver, an arena.

>>> from connect4 import Position, solve
>>> Position.from_moves("4453").to_move
1
>>> solve(Position.from_moves("44455554221"))
-15

Every name loads on first use (``connect4.Position``, ``connect4.Solver``, ...),
so ``import connect4`` costs next to nothing.
"""

from __future__ import annotations

import importlib
import sys


class _NumbaCacheRoute:
    """An import hook that, just before numba's first import, sends numba's caches to
    the package's cache root (:func:`connect4.core.cache.route_numba_cache`): numba
    reads its cache folder once, when it is imported, and importing the package
    stays as cheap as it was."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name == "numba":
            sys.meta_path.remove(_NumbaCacheRoute)
            from connect4.core.cache import route_numba_cache

            route_numba_cache()


if "numba" in sys.modules:
    from connect4.core.cache import route_numba_cache

    route_numba_cache()
else:
    sys.meta_path.insert(0, _NumbaCacheRoute)

TYPE_CHECKING = False  # not typing's: importing typing costs as much as the rest
if TYPE_CHECKING:
    from connect4.classic.search import Limits, SearchResult, alphabeta, minimax
    from connect4.core.errors import (
        BudgetExceeded,
        Connect4Error,
        Connect4Exception,
        GameError,
        IllegalMoveError,
        InvalidMoveError,
        Stopped,
    )
    from connect4.core.game import Game
    from connect4.core.games import Board, new_game
    from connect4.core.limits import Limit
    from connect4.core.position import Position
    from connect4.core.tictactoe import TicTacToe
    from connect4.core.version import __version__ as __version__
    from connect4.players import MoveChoice, Player, make_player
    from connect4.solver import Solver, SolverError, SolveResult, analyze, best_move, solve


# name -> module that defines it, imported on first access: numba is slow to import, and
# the command line catches a Ctrl-C only once its own code runs (the core loads then)
_LAZY = {
    "BudgetExceeded": "connect4.core.errors",
    "Connect4Error": "connect4.core.errors",
    "Connect4Exception": "connect4.core.errors",
    "GameError": "connect4.core.errors",
    "IllegalMoveError": "connect4.core.errors",
    "InvalidMoveError": "connect4.core.errors",
    "Stopped": "connect4.core.errors",
    "Game": "connect4.core.game",
    "Board": "connect4.core.games",
    "new_game": "connect4.core.games",
    "Limit": "connect4.core.limits",
    "Position": "connect4.core.position",
    "TicTacToe": "connect4.core.tictactoe",
    "__version__": "connect4.core.version",
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
    "Connect4Exception",
    "Game",
    "GameError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Limit",
    "Limits",
    "MoveChoice",
    "Player",
    "Position",
    "SearchResult",
    "SolveResult",
    "Solver",
    "SolverError",
    "Stopped",
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
