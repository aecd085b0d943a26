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

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from connect4.core.bits import bitboard_planes, fits_word
from connect4.core.errors import unknown_choice
from connect4.core.game import Game
from connect4.core.position import Position

CELL_PIXELS = 16
"""Side of one cell in ``rgb_array`` pictures."""

BOARD_RGB = (30, 80, 200)
STONE_RGB = ((235, 235, 235), (220, 40, 40), (240, 210, 40))  # empty, player 1, player 2

Info = dict[str, object]
"""An env's ``info`` (and ``options``) dict: names to values of any kind, read by narrowing."""


def check_render_mode(render_mode: str | None, modes: Sequence[str]) -> None:
    """Refuse a ``render_mode`` that is neither ``None`` nor one of ``modes``.

    >>> check_render_mode("human", ("ansi",))
    Traceback (most recent call last):
    ...
    ValueError: unknown render_mode 'human': choose one of ansi
    """
    if render_mode is not None and render_mode not in modes:
        raise ValueError(unknown_choice("render_mode", render_mode, modes))


def action_count(game: Game) -> int:
    """How many actions the game has: its columns, or its cells for tic-tac-toe."""
    return game.size if game.kind == "tictactoe" else game.width


def planes(game: Game, player: int) -> npt.NDArray[np.int8]:
    """The ``(H, W, 2)`` int8 observation of ``player`` (1 or 2); row 0 is the top.

    A Connect Four position is read from its bitboards
    (:func:`~connect4.core.bits.bitboard_planes`, where the layout is written once);
    another game (tic-tac-toe) cell by cell through :meth:`Game.owner`.
    """
    if isinstance(game, Position):
        own = game.stones(player)
        words = np.array([own], dtype=np.uint64 if fits_word(game.width, game.height) else object)
        both = np.array([game.mask], dtype=words.dtype)
        seen: npt.NDArray[np.int8] = bitboard_planes(words, both, game.width, game.height)[0]
        return seen
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

    >>> from connect4 import Position
    >>> action_mask(Position.from_moves("111111222222", width=2, height=6)).tolist()
    [0, 0]
    """
    if game.kind == "tictactoe":
        cells = [(c, r) for r in range(game.height) for c in range(game.width)]
        return np.array([game.owner(c, r) == 0 for c, r in cells], dtype=np.int8)
    top = game.height - 1
    return np.array([game.owner(c, top) == 0 for c in range(game.width)], dtype=np.int8)


def bitboard_action_mask(
    mask: npt.NDArray[np.uint64], width: int, height: int
) -> npt.NDArray[np.int8]:
    """:func:`action_mask` of many Connect Four positions at once (``(N, W)`` int8),
    from their ``mask`` words.

    >>> from connect4 import Position
    >>> game = Position.from_moves("111111", width=3, height=6)
    >>> bitboard_action_mask(np.array([game.mask], dtype=np.uint64), 3, 6).tolist()
    [[0, 1, 1]]
    """
    cells = np.arange(width) * (height + 1) + (height - 1)
    wide = mask.dtype == object  # Python ints: a board over 64 bits
    top = cells.astype(object) if wide else cells.astype(np.uint64)
    one = 1 if wide else np.uint64(1)
    full = np.asarray(((mask[:, None] >> top) & one) != 0, dtype=np.bool_)
    return (~full).astype(np.int8)


def picture(game: Game) -> npt.NDArray[np.uint8]:
    """The board as an RGB image, ``(H * 16, W * 16, 3)`` uint8: discs on a blue board.

    >>> from connect4 import Position
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
