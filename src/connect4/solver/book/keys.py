"""A book's keys: the canonical key of a position, key arrays of one word (boards of up
to 64 bits) or two (``(N, 2)`` low and high words, boards over 64 bits), and what a key
array tells without replaying it (stones, impossible columns).

>>> key_ints(key_array([5, 1 << 70], 8, 8))
[5, 1180591620717411303424]
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from connect4.core import bits
from connect4.core.bits import fits_word
from connect4.core.position import Position

WORD = (1 << 64) - 1
Keys = npt.NDArray[np.uint64]


def canonical_key(position: Position) -> int:
    """``min(key, mirrored key)``: the one key a position and its mirror share.

    >>> canonical_key(Position.from_moves("7")) == canonical_key(Position.from_moves("1"))
    True
    """
    return bits.canonical_key(position.key(), position.width, position.height)


def key_array(keys: Iterable[int], width: int, height: int) -> Keys:
    """Keys (Python ints) as a book holds them: a ``uint64`` array, or on a board over
    64 bits an ``(N, 2)`` one of low and high words.

    >>> key_array([5, 1 << 70], 8, 8).tolist()
    [[5, 0], [0, 64]]
    """
    if fits_word(width, height):
        return np.array(list(keys), dtype=np.uint64)
    ints = list(keys)
    low = np.array([key & WORD for key in ints], dtype=np.uint64)
    high = np.array([key >> 64 for key in ints], dtype=np.uint64)
    return np.ascontiguousarray(np.stack((low, high), axis=1).reshape(len(ints), 2))


def key_ints(keys: Keys) -> list[int]:
    """A key array (see :func:`key_array`) as Python ints.

    >>> key_ints(key_array([5, 1 << 70], 8, 8))
    [5, 1180591620717411303424]
    """
    if keys.ndim == 1:
        return [int(key) for key in keys.tolist()]
    return [low | high << 64 for low, high in keys.tolist()]


def wide_plies(keys: Keys, width: int, height: int) -> npt.NDArray[np.int64]:
    """:func:`key_plies` of two-word keys, in Python ints."""
    h1 = height + 1
    column = (1 << h1) - 1
    return np.array(
        [
            sum((((key >> (c * h1)) & column) + 1).bit_length() - 1 for c in range(width))
            for key in key_ints(keys)
        ],
        dtype=np.int64,
    )


def key_plies(keys: Keys, width: int, height: int) -> npt.NDArray[np.int64]:
    """The number of stones of each position of a key array.

    A column with ``k`` stones holds a value in ``[2**k - 1, 2**(k+1) - 2]`` of
    its ``height + 1`` bits of the key, so ``k = bit_length(value + 1) - 1``
    (``frexp`` gives the bit length exactly).

    >>> key_plies(np.array([Position.from_moves("4455").key()], dtype=np.uint64), 7, 6).tolist()
    [4]
    >>> key_plies(key_array([Position.from_moves("1a", 10, 6).key()], 10, 6), 10, 6).tolist()
    [2]
    """
    if keys.ndim == 2:
        return wide_plies(keys, width, height)
    h1 = height + 1
    column = np.uint64((1 << h1) - 1)
    total = np.zeros(keys.shape, dtype=np.int64)
    for c in range(width):
        part = ((keys >> np.uint64(c * h1)) & column) + np.uint64(1)
        total += np.frexp(part.astype(np.float64))[1].astype(np.int64) - 1
    return total


def invalid_columns(keys: Keys, width: int, height: int) -> npt.NDArray[np.bool_]:
    """Which keys are not ``current + mask`` of a position of the board."""
    h1 = height + 1
    if keys.ndim == 2:
        full = (1 << h1) - 1
        return np.array(
            [
                key >> (width * h1) != 0
                or any((key >> (c * h1)) & full == full for c in range(width))
                for key in key_ints(keys)
            ],
            dtype=np.bool_,
        )
    column = np.uint64((1 << h1) - 1)
    bad = np.zeros(keys.shape, dtype=np.bool_)
    if width * h1 < 64:
        bad |= (keys >> np.uint64(width * h1)) != 0
    for c in range(width):  # all ones: more stones than the column holds
        bad |= ((keys >> np.uint64(c * h1)) & column) == column
    return bad
