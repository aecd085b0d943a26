# mypy: disable-error-code="no-untyped-call,call-arg,return-value"
"""The vector env's loop on boards over 64 bits: the same functions over two words.

:mod:`connect4.envs.vecboard`, the classic search (:mod:`connect4.classic.node`)
and the playout's steps (:mod:`connect4.classic.mctsboard`) read every bitboard
through a few word helpers (``mask_at``, ``span``, ``one``, ``table_slot``,
``table_key``, ``load``, ``store``, ``cell_of``). Here are their two-word forms: the bitboards
become ``uint128`` values (the solver's 128-bit type, LLVM's ``i128``), and each
``int64`` array that holds bitboards keeps their low words, then as many high words
(:func:`~connect4.classic.fastsearch.pack` with ``words=2``); a game's row keeps
the high words of its boards after its ``N_SLOTS`` slots. Every other function is
compiled again, unchanged, on top of these (:data:`COMPILED`): the one-word code
that 7x6 runs stays as it was.

The search's table keeps a key's low word at the slot ``key % TT_SLOTS``: two keys
that share both differ by a multiple of ``TT_SLOTS * 2**64`` (over 2**84), so
entries stay exact on boards of up to 84 bits (8x8 has 72).

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

from collections.abc import Callable

import numpy as np
from numba.extending import overload_method

from connect4.classic.fastmcts import compile_mcts
from connect4.classic.fastsearch import compile_module, compile_search
from connect4.classic.node import TT_SLOTS
from connect4.envs import vecboard
from connect4.envs.vecboard import N_SLOTS
from connect4.solver.compiler import UInt128, high, low, popcount, wide

__all__ = ["COMPILED", "MCTS", "SEARCH"]

WORD_MOD = (1 << 64) % TT_SLOTS  # 2**64 modulo the table's prime


@overload_method(UInt128, "bit_count", inline="always")
def _bit_count(x: object) -> Callable[[object], int]:  # pragma: no cover - compiled
    """``int.bit_count`` for ``uint128``, as an ``int64`` (the heuristics' counts)."""

    def count(x: object) -> int:
        return np.int64(popcount(x))

    return count


# ---------------------------------------------------------------- the two-word forms
def mask_at_wide(values, index):  # type: ignore[no-untyped-def]
    """The bitboard ``values[index]``: its low word there, its high word half an array on."""
    return wide(np.uint64(values[index]), np.uint64(values[index + len(values) // 2]))


def span_wide(values):  # type: ignore[no-untyped-def]
    """The number of bitboards in ``values`` (half its words)."""
    return len(values) // 2


def one_wide(board):  # type: ignore[no-untyped-def]
    """1 as a ``uint128``."""
    return wide(np.uint64(1), np.uint64(0))


def table_slot_wide(key):  # type: ignore[no-untyped-def]
    """``key % TT_SLOTS`` of a ``uint128`` key, from its two words."""
    prime = np.uint64(TT_SLOTS)
    return np.int64(((high(key) % prime) * np.uint64(WORD_MOD) + low(key) % prime) % prime)


def table_key_wide(key):  # type: ignore[no-untyped-def]
    """What the table keeps of a ``uint128`` key: its low word."""
    return np.int64(low(key))


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


HELPERS = {"wide": wide, "low": low, "high": high, "np": np, "WORD_MOD": WORD_MOD}
SEARCH = compile_search(
    {
        "mask_at": mask_at_wide,
        "span": span_wide,
        "one": one_wide,
        "table_slot": table_slot_wide,
        "table_key": table_key_wide,
        **HELPERS,
    },
    tag="wide",
)
MCTS = compile_mcts(SEARCH, tag="wide")
COMPILED = compile_module(
    vecboard,
    (),
    vecboard.INLINE,
    (SEARCH, MCTS),
    {"load": load_wide, "store": store_wide, "cell_of": cell_of_wide, **HELPERS},
    "wide",
)
