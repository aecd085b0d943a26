"""The bottom layer: errors, the game protocol, bitboard positions and tic-tac-toe.

Nothing here imports any other part of the package.

>>> from connect4.core import Position
>>> Position.from_moves("4453").to_move
1
"""

from __future__ import annotations

from connect4.core.errors import GameError, IllegalMoveError, InvalidMoveError
from connect4.core.game import Game
from connect4.core.games import Board, new_game
from connect4.core.position import Position
from connect4.core.tictactoe import TicTacToe

__all__ = [
    "Board",
    "Game",
    "GameError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Position",
    "TicTacToe",
    "new_game",
]
