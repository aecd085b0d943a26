# mypy: disable-error-code="no-untyped-call,call-arg,return-value"
"""The two-word forms of the classic engines' word helpers, over the core's ``uint128``.

The classic search and MCTS read every bitboard through a few word helpers
(:mod:`connect4.classic.node`: ``mask_at``, ``span``, ``one``, ``table_slot``,
``table_holds``, ``table_keep``). Here are their two-word forms: bitboards become ``uint128`` values
(:mod:`connect4.core.compiler`'s 128-bit type, LLVM's ``i128``, which the solver's
wide kernel uses too) and each ``int64`` array that holds bitboards keeps their low
words, then as many high words (:func:`~connect4.classic.fastsearch.pack` with
``words=2``). :func:`connect4.classic.fastwide.forms` hands them to the engines, which
compile them on first use; numba is imported only when :func:`forms` is called.

>>> sorted(forms())[:5]
['WORD_MOD', 'high', 'low', 'mask_at', 'np']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from connect4.classic.node import TT_SLOTS

if TYPE_CHECKING:  # the helpers run compiled only, with these bound by forms()
    from connect4.core.compiler import high, low, wide

__all__ = ["WORD_MOD", "forms"]

WORD_MOD = (1 << 64) % TT_SLOTS  # 2**64 modulo the table's prime


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


def table_holds_wide(tt_key, slot, key):  # type: ignore[no-untyped-def]
    """True when ``slot`` holds both words of a ``uint128`` key (the high words half
    ``tt_key`` on)."""
    high_at = slot + len(tt_key) // 2
    return tt_key[slot] == np.int64(low(key)) and tt_key[high_at] == np.int64(high(key))


def table_keep_wide(tt_key, slot, key):  # type: ignore[no-untyped-def]
    """Keep both words of a ``uint128`` key in ``slot`` (the high word half ``tt_key`` on)."""
    tt_key[slot] = np.int64(low(key))
    tt_key[slot + len(tt_key) // 2] = np.int64(high(key))


_BIT_COUNT: list[bool] = []


def forms() -> Mapping[str, object]:
    """The two-word word helpers by name and the names they use (the ``uint128``
    joins and halves); teaches numba ``bit_count`` on ``uint128`` (the heuristics'
    popcounts) the first time."""
    from numba.extending import overload_method

    from connect4.core.compiler import UInt128, high, low, popcount, wide

    if not _BIT_COUNT:

        @overload_method(UInt128, "bit_count", inline="always")
        def _bit_count(x: object) -> Callable[[object], int]:  # pragma: no cover - compiled
            def count(x: object) -> int:
                return np.int64(popcount(x))

            return count

        _BIT_COUNT.append(True)
    return {
        "mask_at": mask_at_wide,
        "span": span_wide,
        "one": one_wide,
        "table_slot": table_slot_wide,
        "table_holds": table_holds_wide,
        "table_keep": table_keep_wide,
        "wide": wide,
        "low": low,
        "high": high,
        "np": np,
        "WORD_MOD": WORD_MOD,
    }
