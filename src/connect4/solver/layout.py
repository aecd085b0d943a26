"""The solver's memory: one ``uint64`` array holding header, move lists and table.

This module has no numba import, so code that only needs the layout (the
:class:`~connect4.solver.Solver` set-up, the native kernel of
:mod:`connect4.solver.native`) starts fast.

======================  =======================================================
``mem[0:HDR]``          header: board constants, counters, limits, options
``mem[MOVES:TT0]``      move lists, one row of ``MAXW`` words per ply
``mem[TT0:]``           transposition table, two words per entry
======================  =======================================================

:data:`LAYOUT_VERSION` is a hash of these constants and of the bitboard
helpers the kernel compiles (:mod:`connect4.core.bits`). The kernel compiles it
in, and code compiled for another version is never run: numba's cache is
dropped (:mod:`connect4.solver.kernel`) and a native kernel file refused
(:mod:`connect4.solver.native`). Edit a constant here and nothing else.

>>> mem = new_memory(7, 6, 1 << 10)
>>> int(mem[W_]), int(mem[H_]), int(mem[GEN]), len(mem) == TT0 + 2 * 1024
(7, 6, 1, True)
"""

from __future__ import annotations

import hashlib

import numpy as np
from numpy.typing import NDArray

from connect4.core import bits
from connect4.core.position import board_mask, bottom_mask

W_ = 0  # width
H_ = 1  # height
BOTTOM = 2  # a 1 in the bottom cell of every column
BOARD = 3  # a 1 in every playable cell
TT_SHIFT = 4  # 64 - log2(table entries): the index is the hash's top bits
GEN = 5  # current generation (>= 1)
NODES = 6  # nodes searched since the counter was reset
LIMIT = 7  # abort once NODES reaches this
ABORT = 8  # 1 once the search was aborted
BOOK_PLIES = 9  # probe the book at ply <= this
OPT_SYM = 10  # 1: mirror positions share a table entry
OPT_TTMOVE = 11  # 1: search the table's best move first
OPT_ETC = 12  # enhanced transposition cut-off at nodes with >= this many empty cells (0 = off)
OPT_BUCKET = 13  # 1: two-slot buckets (nearest-root + newest); 0: one slot, always replace
OPT_ETC_AFTER = 14  # ETC only once the search has visited this many nodes
ORDER = 16  # columns centre first (MAXW words)
HDR = 64
MAXW = 32
MAXPLY = 64
MOVES = HDR
TT0 = MOVES + MAXW * MAXPLY

NONE_SCORE = -1000  # analyze: full column
UNKNOWN_SCORE = -999  # analyze: stopped by a limit


def new_memory(width: int, height: int, tt_entries: int) -> NDArray[np.uint64]:
    """A zeroed ``mem`` array for a board and a table of ``tt_entries`` (a power of 2)."""
    if tt_entries & (tt_entries - 1) or tt_entries < 4:
        raise ValueError("tt_entries must be a power of two >= 4")
    size = TT0 + 2 * tt_entries
    raw = np.zeros(size + 8, dtype=np.uint64)
    skip = (-raw.ctypes.data % 64) // 8  # buckets must not straddle cache lines
    mem = raw[skip : skip + size]
    mem.fill(0)  # touch every page now, not during the first searches
    mem[W_] = width
    mem[H_] = height
    mem[BOTTOM] = bottom_mask(width, height)
    mem[BOARD] = board_mask(width, height)
    mem[TT_SHIFT] = 64 - (tt_entries.bit_length() - 2)  # two entries per bucket
    mem[GEN] = 1
    mem[LIMIT] = 1 << 63
    mem[OPT_SYM] = 1
    mem[OPT_TTMOVE] = 1
    mem[OPT_BUCKET] = 1
    for i, c in enumerate(bits.centre_order(width)):
        mem[ORDER + i] = c
    return mem


def _version() -> int:
    """A hash of the layout constants and of the compiled bitboard helpers' code."""
    offsets = sorted(
        (name, value) for name, value in globals().items() if name.isupper() and type(value) is int
    )
    digest = hashlib.sha256(repr(offsets).encode())
    code = bits.mirror_key.__code__
    constants = code.co_consts[1:] if bits.mirror_key.__doc__ else code.co_consts  # no docstring
    digest.update(code.co_code)
    digest.update(repr(constants).encode())
    return int.from_bytes(digest.digest()[:7], "little")  # fits an int64


LAYOUT_VERSION = _version()
