# mypy: disable-error-code="no-untyped-call,call-arg,return-value"
"""The vector env's loop on boards over 64 bits: the same functions over two words.

:mod:`connect4.envs.vecboard`, the classic search (:mod:`connect4.classic.node`)
and the playout's steps (:mod:`connect4.classic.mctsboard`) read every bitboard
through a few word helpers (``mask_at``, ``span``, ``one``, ``table_slot``,
``table_holds``, ``table_keep``, ``load``, ``store``, ``cell_of``). The classic engines' two-word
kernels (:func:`connect4.classic.fastsearch.wide_search` and
:func:`connect4.classic.fastmcts.wide_mcts`, over the forms of
:mod:`connect4.classic.twoword`) give the first six; here are the loop's own three:
a game's row keeps the high words of its boards after its ``N_SLOTS`` slots. Every
other function is compiled again, unchanged, on top of these (:data:`COMPILED`): the
one-word code that 7x6 runs stays as it was.

>>> import numpy as np
>>> from connect4.classic.fastsearch import pack
>>> pack([7, (1 << 70) | 5], words=2).tolist()  # two bitboards: low words, high words
[7, 5, 0, 64]
>>> from connect4.envs.vector import ConnectFourVectorEnv
>>> env = ConnectFourVectorEnv(num_envs=1, width=10, height=6, opponent="alphabeta:depth=2")
>>> _ = env.reset(seed=0)
>>> for column in (9, 9, 9):  # the last column: bits 63 to 68, across the two words
...     observation, reward, terminated, _, info = env.step(np.array([column]))
>>> (observation[0, :, 9, 0] - observation[0, :, 9, 1]).tolist()  # top row first
[0, 0, 1, -1, 1, 1]
"""

from __future__ import annotations

import numpy as np

from connect4.classic import twoword
from connect4.classic.fastmcts import wide_mcts
from connect4.classic.fastsearch import compile_module, wide_search
from connect4.core.compiler import high, low, wide
from connect4.envs import vecboard
from connect4.envs.vecboard import N_SLOTS

__all__ = ["COMPILED", "MCTS", "SEARCH"]


def load_wide(row, slot):  # type: ignore[no-untyped-def]
    """The bitboard of ``row[slot]``, its high word at ``row[N_SLOTS + slot]``."""
    return wide(np.uint64(row[slot]), np.uint64(row[N_SLOTS + slot]))


def store_wide(row, slot, board):  # type: ignore[no-untyped-def]
    """Keep the ``uint128`` ``board`` in ``row[slot]`` and ``row[N_SLOTS + slot]``."""
    row[slot] = np.int64(low(board))
    row[N_SLOTS + slot] = np.int64(high(board))


def cell_of_wide(board, bit):  # type: ignore[no-untyped-def]
    """Bit ``bit`` of a ``uint128``, as an ``int64``."""
    return np.int64(low(board >> bit) & np.uint64(1))


NAMES = {"wide": wide, "low": low, "high": high, "np": np, "WORD_MOD": twoword.WORD_MOD}
SEARCH, MCTS = wide_search(), wide_mcts()
COMPILED = compile_module(
    vecboard,
    (),
    vecboard.INLINE,
    (SEARCH, MCTS),
    {"load": load_wide, "store": store_wide, "cell_of": cell_of_wide, **NAMES},
    "wide",
)
