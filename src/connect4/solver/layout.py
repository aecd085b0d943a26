"""The solver's memory: one ``uint64`` array holding header, move lists and table.

This module has no numba import, so code that only needs the layout (the
:class:`~connect4.solver.Solver` set-up, the native kernel of
:mod:`connect4.solver.native`) starts fast.

======================  =======================================================
``mem[0:HDR]``          header: board constants, counters, limits, options
``mem[MOVES:TT0]``      move lists, one row of ``MAXW`` words per ply
``mem[TT0:]``           transposition table, two words per entry
======================  =======================================================

numba's on-disk cache of :mod:`connect4.solver.kernel` is keyed on
``kernel.py`` alone: after changing a constant here, touch ``kernel.py`` (or run
``make clean``) so the kernel is compiled again.

>>> mem = new_memory(7, 6, 1 << 10)
>>> int(mem[W_]), int(mem[H_]), int(mem[GEN]), len(mem) == TT0 + 2 * 1024
(7, 6, 1, True)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

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
    bottom = sum(1 << (c * (height + 1)) for c in range(width))
    mem[W_] = width
    mem[H_] = height
    mem[BOTTOM] = bottom
    mem[BOARD] = bottom * ((1 << height) - 1)
    mem[TT_SHIFT] = 64 - (tt_entries.bit_length() - 2)  # two entries per bucket
    mem[GEN] = 1
    mem[LIMIT] = 1 << 63
    mem[OPT_SYM] = 1
    mem[OPT_TTMOVE] = 1
    mem[OPT_BUCKET] = 1
    order = sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))
    for i, c in enumerate(order):
        mem[ORDER + i] = c
    return mem
