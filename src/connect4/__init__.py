"""Connect Four and tic-tac-toe: positions, classic AIs, a perfect solver, an arena.

>>> from connect4 import Position
>>> Position.from_moves("4453").to_move
1
"""

from connect4.errors import IllegalMoveError, InvalidMoveError
from connect4.game import Game
from connect4.position import Position
from connect4.tictactoe import TicTacToe

__all__ = ["Game", "IllegalMoveError", "InvalidMoveError", "Position", "TicTacToe"]
__version__ = "0.1.0"
