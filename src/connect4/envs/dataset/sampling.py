"""Random reachable positions, mirror images merged (the package's docstring describes
the draws): :func:`sample_positions`, the same for a seed on any number of workers.

>>> sample_positions(3, (4, 6), 5, 4, seed=1).moves
['54521', '53455', '131323']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from connect4.classic.node import threat_cells
from connect4.core.bits import canonical_key, canonical_keys, fits_word
from connect4.core.position import COLUMN_SYMBOLS, Position, board_mask, bottom_mask
from connect4.envs.dataset.config import DatasetConfig, DatasetError

__all__ = ["Sample", "sample_positions"]


@dataclass(frozen=True)
class Sample:
    """Sampled positions in the order drawn: move strings and each position's two
    bitboard words (``current``: the side to move's stones, ``mask``: all stones;
    ``uint64``, or Python ints in object arrays on a board over 64 bits)."""

    width: int
    height: int
    moves: list[str]
    current: npt.NDArray[np.uint64]
    mask: npt.NDArray[np.uint64]

    def __len__(self) -> int:
        return len(self.moves)

    def keys(self) -> npt.NDArray[np.uint64]:
        """Each position's own key (``Position.key()``: ``current + mask``)."""
        return self.current + self.mask

    def positions(self) -> list[Position]:
        """The positions, replayed from their move strings."""
        return [Position.from_moves(m, self.width, self.height) for m in self.moves]


Words = npt.NDArray[np.uint64]
# the bitboard arithmetic is plain Python on ints that works element-wise on uint64 arrays
_threat_cells = cast("Callable[[Words, Words, int, int], Words]", threat_cells)


def _playouts(
    rng: np.random.Generator, stones: npt.NDArray[np.int64], width: int, height: int
) -> tuple[
    npt.NDArray[np.int8], npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.bool_]
]:
    """Random playouts of ``stones[i]`` moves each that do not end the game, side by side.

    Each move is drawn uniformly among the columns with room whose cell does
    not complete a four for the mover (:func:`~connect4.classic.node.threat_cells`).
    Returns the columns played (``(N, max stones)``), the two bitboard words
    and whether each playout got there (False: no such move was left).
    """
    n = stones.size
    h1 = height + 1
    bottom, board = bottom_mask(width, height), board_mask(width, height)
    if fits_word(width, height):
        column_bits: np.uint64 | int = np.uint64((1 << h1) - 1)
        shifts = np.arange(width, dtype=np.uint64) * np.uint64(h1)
        current = np.zeros(n, dtype=np.uint64)
    else:  # Python ints, element by element (the same arithmetic, any width)
        column_bits = (1 << h1) - 1
        shifts = np.array([c * h1 for c in range(width)], dtype=object)
        current = np.zeros(n, dtype=object)
    mask = current.copy()
    longest = int(stones.max(initial=0))
    columns = np.zeros((n, max(longest, 1)), dtype=np.int8)
    ok = np.ones(n, dtype=bool)
    for ply in range(longest):
        playable = (mask + bottom) & board
        allowed = playable & ~_threat_cells(current, mask, height, board)
        room = np.asarray(((allowed[:, None] >> shifts) & column_bits) != 0, dtype=bool)
        weights = rng.random((n, width))
        weights[~room] = -1.0
        choice = weights.argmax(axis=1)
        active = ok & (stones > ply)
        dead = active & ~room.any(axis=1)
        ok &= ~dead
        active &= ~dead
        cell = playable & (column_bits << shifts[choice])
        current = np.where(active, current ^ mask, current)
        mask = np.where(active, mask | cell, mask)
        columns[active, ply] = choice[active]
    return columns, current, mask, ok


def sample_positions(
    n: int,
    plies: tuple[int, int],
    width: int = 7,
    height: int = 6,
    *,
    seed: int = 0,
    advance: Callable[[int], None] | None = None,
) -> Sample:
    """``n`` distinct random positions (mirror images merged) with ``plies[0]..plies[1]`` stones.

    Deterministic for a seed (the module's docstring describes the draws; a
    playout that reaches a dead end is drawn again with the same number of
    stones). Raises :class:`DatasetError` when the range does not hold ``n``
    distinct positions: after ``10,000 + n`` draws in a row found nothing new.
    ``advance(k)`` is told of the positions found.

    >>> sample_positions(4, (0, 1), seed=3).moves  # '2' stands for its mirror image '6' too
    ['4', '', '2', '5']
    """
    DatasetConfig(n, plies, width, height, seed=seed)
    rng = np.random.default_rng(seed)
    low, high = plies
    seen: set[int] = set()
    moves: list[str] = []
    currents: list[int] = []
    masks: list[int] = []
    again: list[int] = []  # stones of the playouts that reached a dead end
    draws = misses = 0
    patience = 10_000 + n
    while len(moves) < n:
        size = min(max(n - len(moves) + (n - len(moves)) // 4, 256), 1 << 15)
        fresh = rng.integers(low, high + 1, size=max(size - len(again), 0))
        stones = np.concatenate([np.array(again, dtype=np.int64), fresh])
        again = []
        columns, current, mask, ok = _playouts(rng, stones, width, height)
        if fits_word(width, height):
            keys = canonical_keys(current + mask, width, height).tolist()
        else:
            keys = [canonical_key(int(k), width, height) for k in (current + mask).tolist()]
        found = len(moves)
        for i, key in enumerate(keys):
            draws += 1
            if not ok[i]:
                again.append(int(stones[i]))
                misses += 1
            elif key in seen:
                misses += 1
            else:
                misses = 0
                seen.add(key)
                moves.append("".join(COLUMN_SYMBOLS[c] for c in columns[i, : stones[i]].tolist()))
                currents.append(int(current[i]))
                masks.append(int(mask[i]))
                if len(moves) == n:
                    break
            if misses >= patience:
                raise DatasetError(
                    f"only {len(moves):,} distinct positions with {low}-{high} stones turned up "
                    f"in {draws:,} draws on a {width}x{height} board: ask for fewer, or widen "
                    "the ply range",
                    setting="positions",
                )
        if advance is not None:
            advance(len(moves) - found)
    words = np.uint64 if fits_word(width, height) else object
    return Sample(
        width, height, moves, np.array(currents, dtype=words), np.array(masks, dtype=words)
    )
