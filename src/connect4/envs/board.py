"""What both environments show of a game: planes, action masks and pictures.

The tensor layout is PettingZoo's ``connect_four_v3``: an ``(H, W, 2)`` int8
array, plane 0 the stones of the player who observes, plane 1 the opponent's,
row 0 the top row. Actions are columns in Connect Four and 0-based cells
(``row * 3 + column``, row 0 the bottom, the numpad digit minus one) in
tic-tac-toe.

>>> from connect4 import Position
>>> game = Position.from_moves("4453")
>>> planes(game, 1)[-1].tolist()
[[0, 0], [0, 0], [0, 1], [1, 0], [1, 0], [0, 0], [0, 0]]
>>> action_mask(game).tolist()
[1, 1, 1, 1, 1, 1, 1]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from connect4.core.game import Game
from connect4.core.position import Position
from connect4.core.tictactoe import TicTacToe

CELL_PIXELS = 16
"""Side of one cell in ``rgb_array`` pictures."""

BOARD_RGB = (30, 80, 200)
STONE_RGB = ((235, 235, 235), (220, 40, 40), (240, 210, 40))  # empty, player 1, player 2


def new_game(game: str, width: int, height: int, rules: str) -> Game:
    """The empty board of ``game`` (``"connect4"`` any size and rules, or ``"tictactoe"``).

    >>> new_game("tictactoe", 7, 6, "standard").size
    9
    """
    if game == "tictactoe":
        return TicTacToe()
    if game != "connect4":
        raise ValueError(f"unknown game {game!r}: choose connect4 or tictactoe")
    if rules == "standard":
        return Position(width, height, "standard")
    if rules == "count-fours":
        return Position(width, height, "count-fours")
    raise ValueError(f"unknown rules {rules!r}: choose standard or count-fours")


def action_count(game: Game) -> int:
    """How many actions the game has: its columns, or its cells for tic-tac-toe."""
    return game.size if game.kind == "tictactoe" else game.width


def planes(game: Game, player: int) -> npt.NDArray[np.int8]:
    """The ``(H, W, 2)`` int8 observation of ``player`` (1 or 2); row 0 is the top."""
    height, width = game.height, game.width
    out = np.zeros((height, width, 2), dtype=np.int8)
    for column in range(width):
        for row in range(height):
            owner = game.owner(column, row)
            if owner:
                out[height - 1 - row, column, 0 if owner == player else 1] = 1
    return out


def action_mask(game: Game) -> npt.NDArray[np.int8]:
    """1 for each open action (a column with room, an empty cell), 0 otherwise.

    As in ``connect_four_v3``, the mask looks at the board only: once the game
    is over it still shows the open columns, though no agent may move.

    >>> action_mask(Position.from_moves("111111222222", width=2, height=6)).tolist()
    [0, 0]
    """
    if game.kind == "tictactoe":
        cells = [(c, r) for r in range(game.height) for c in range(game.width)]
        return np.array([game.owner(c, r) == 0 for c, r in cells], dtype=np.int8)
    top = game.height - 1
    return np.array([game.owner(c, top) == 0 for c in range(game.width)], dtype=np.int8)


def picture(game: Game) -> npt.NDArray[np.uint8]:
    """The board as an RGB image, ``(H * 16, W * 16, 3)`` uint8: discs on a blue board.

    >>> picture(Position()).shape
    (96, 112, 3)
    """
    size = CELL_PIXELS
    height, width = game.height, game.width
    image = np.empty((height * size, width * size, 3), dtype=np.uint8)
    image[:] = BOARD_RGB
    centre = (size - 1) / 2
    ys, xs = np.mgrid[0:size, 0:size]
    disc = (ys - centre) ** 2 + (xs - centre) ** 2 <= (size * 0.4) ** 2
    for column in range(width):
        for row in range(height):
            top = (height - 1 - row) * size
            cell = image[top : top + size, column * size : (column + 1) * size]
            cell[disc] = STONE_RGB[game.owner(column, row)]
    return image
