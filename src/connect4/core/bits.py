"""Bitboard helpers written once: centre order, mirror key, canonical key.

A position's key is ``current + mask`` (see :mod:`connect4.core.position` for
the bit layout: ``height + 1`` bits per column). Mirroring the board left-right
moves each column's bits to the mirror column, so the mirror image's key is a
pure function of the key; ``min(key, mirrored key)`` is the *canonical key*
a position shares with its mirror image (the solver's table and the opening
books store that one).

:func:`mirror_key` is plain Python that numba can compile as well: the solver
kernel compiles this very function, and it also works on ``uint64`` numpy
arrays and on Python ints. Every constant in it
is derived from ``h1`` so numba keeps all arithmetic in ``uint64``.

>>> centre_order(7)
(3, 2, 4, 1, 5, 0, 6)
>>> key = 0b0000001_0000011  # a 2x6 board: column 0 holds 0000011, column 1 0000001
>>> bin(mirror_key(key, 2, 7))
'0b110000001'
>>> canonical_key(key, 2, 6) == key
True
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, TypeVar

from connect4.core.errors import GameError

if TYPE_CHECKING:  # numpy is imported where arrays are used: plain positions start fast
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "MAX_BOARD_BITS",
    "SIGNED_WORD_BITS",
    "WORD_BITS",
    "bitboard_planes",
    "board_bits",
    "canonical_key",
    "canonical_keys",
    "centre_order",
    "check_word_board",
    "fits_word",
    "layout_bits",
    "mirror_key",
    "threat_cells",
]

WORD_BITS = 64  # the parts that keep a bitboard in one machine word (uint64)
SIGNED_WORD_BITS = 63  # the compiled classic engines and vector envs: a signed int64 word
MAX_BOARD_BITS = 128  # a position's bitboards (Python ints) up to this many bits

Word = TypeVar("Word", int, "NDArray[np.uint64]")


def board_bits(width: int, height: int) -> int:
    """The bits a ``width x height`` bitboard takes: ``height + 1`` per column.

    >>> board_bits(7, 6), board_bits(8, 8)
    (49, 72)
    """
    return width * (height + 1)


def fits_word(width: int, height: int, bits: int = WORD_BITS) -> bool:
    """True when a ``width x height`` bitboard fits ``bits`` bits (one machine word).

    >>> fits_word(7, 6), fits_word(8, 7), fits_word(8, 7, 63), fits_word(10, 6)
    (True, True, False, False)
    """
    return board_bits(width, height) <= bits


def check_word_board(width: int, height: int, part: str, bits: int = WORD_BITS) -> None:
    """Raise :class:`~connect4.core.errors.GameError` unless ``part`` of the
    package, which keeps a bitboard in one ``bits``-bit word (numpy ``uint64``,
    numba), can take a ``width x height`` board.

    The one check every 64-bit-only part makes before a position's bitboards or
    keys go into an array or a compiled function.

    >>> check_word_board(7, 6, "the vector env")
    >>> check_word_board(10, 6, "the vector env")
    Traceback (most recent call last):
    ...
    connect4.core.errors.GameError: the vector env handles boards of up to 64 bits \
(width*(height+1) <= 64): board 10x6 needs 70
    """
    if not fits_word(width, height, bits):
        raise GameError(
            f"{part} handles boards of up to {bits} bits (width*(height+1) <= {bits}): "
            f"board {width}x{height} needs {board_bits(width, height)}"
        )


@functools.cache
def centre_order(width: int) -> tuple[int, ...]:
    """Columns ordered from the centre outwards, left before right on ties.

    >>> centre_order(6)
    (2, 3, 1, 4, 0, 5)
    """
    return tuple(sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c)))


def mirror_key(key: Word, width: int, h1: Word) -> Word:
    """The key (or any bitboard) ``key`` mirrored left-right: column ``c`` of
    ``h1`` bits becomes column ``width - 1 - c``.

    Works on Python ints, on ``uint64`` arrays (with ``h1`` a one-element
    ``uint64`` array), and compiled by numba with ``uint64`` arguments.

    >>> import numpy as np
    >>> h1 = np.full(1, 7, dtype=np.uint64)
    >>> mirror_key(np.array([0b1, 0b10], dtype=np.uint64), 3, h1).tolist()
    [16384, 32768]
    """
    one = h1 // h1  # 1 in h1's type: numba would turn uint64 mixed with int64 into float
    column = (one << h1) - one
    mirrored = key ^ key
    low = h1 ^ h1
    high = h1 ^ h1
    for _ in range(width):
        high += h1
    for _ in range(width):
        high -= h1
        mirrored |= ((key >> low) & column) << high
        low += h1
    return mirrored


def canonical_key(key: int, width: int, height: int) -> int:
    """``min(key, mirrored key)``: the one key a position and its mirror image share.

    >>> canonical_key(0b1, 7, 6) == canonical_key(0b1 << 42, 7, 6) == 1
    True
    """
    return min(key, mirror_key(key, width, height + 1))


def threat_cells(stones: Word, mask: Word, height: int, board: int) -> Word:
    """The empty cells that would complete a four for ``stones`` (Pons' formula, on
    Python ints so it holds on boards of any size, or elementwise on ``uint64`` arrays
    of boards that fit a word; ``board`` is every cell's bit).

    The compiled classic engines keep a word form of the same formula (numba compiles
    it over one or two machine words).

    >>> bin(threat_cells(0b111, 0b111, 6, 0b111111))  # three in a column: the fourth cell
    '0b1000'
    """
    found = (stones << 1) & (stones << 2) & (stones << 3)
    for shift in (height + 1, height, height + 2):  # horizontal, both diagonals
        pair = (stones << shift) & (stones << (2 * shift))
        found |= pair & (stones << (3 * shift))
        found |= pair & (stones >> shift)
        pair = (stones >> shift) & (stones >> (2 * shift))
        found |= pair & (stones << shift)
        found |= pair & (stones >> (3 * shift))
    return found & board & ~mask  # type: ignore[return-value]  # stubs: a shifted uint64 is signed


def canonical_keys(keys: NDArray[np.uint64], width: int, height: int) -> NDArray[np.uint64]:
    """:func:`canonical_key` for a whole ``uint64`` array of keys.

    >>> import numpy as np
    >>> canonical_keys(np.array([1 << 42], dtype=np.uint64), 7, 6).tolist()
    [1]
    """
    import numpy as np

    h1 = np.full(1, height + 1, dtype=keys.dtype)  # an object array of Python ints too
    return np.minimum(keys, mirror_key(keys, width, h1))


def layout_bits(width: int, height: int) -> NDArray[np.int64]:
    """The tensor layout of a Connect Four board, written once: the bitboard bit of each
    cell of an ``(H, W)`` picture, row 0 the top row (the layout of the environments'
    observations, of the network's input and of the vectorised env's compiled view).

    >>> layout_bits(2, 2).tolist()  # columns of 3 bits, the top row first
    [[1, 4], [0, 3]]
    """
    import numpy as np

    rows = np.arange(height - 1, -1, -1)  # row 0 of the picture is the top row
    return np.arange(width)[None, :] * (height + 1) + rows[:, None]


def bitboard_planes(
    current: NDArray[np.uint64], mask: NDArray[np.uint64], width: int, height: int
) -> NDArray[np.int8]:
    """Many Connect Four positions seen by their side to move, at once: ``(N, H, W, 2)``
    int8 planes (plane 0 the side to move's stones, plane 1 the opponent's; row 0 the
    top) from the positions' two bitboard words (``current``, the side to move's
    stones, and ``mask``, all stones); object arrays of Python ints on boards over 64
    bits. The layout the environments show and the network reads.

    >>> import numpy as np
    >>> from connect4 import Position
    >>> p = Position.from_moves("4453")
    >>> words = np.array([p.current], np.uint64), np.array([p.mask], np.uint64)
    >>> bitboard_planes(*words, 7, 6)[0, -1].tolist()
    [[0, 0], [0, 0], [0, 1], [1, 0], [1, 0], [0, 0], [0, 0]]
    """
    import numpy as np

    cells = layout_bits(width, height)
    wide = current.dtype == object  # Python ints: a board over 64 bits
    bits = cells.astype(object) if wide else cells.astype(np.uint64)
    one = 1 if wide else np.uint64(1)
    own = (current[:, None, None] >> bits) & one
    other = ((current ^ mask)[:, None, None] >> bits) & one
    return np.stack([own, other], axis=-1).astype(np.int8)
