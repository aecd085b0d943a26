"""The compiled classic engines on boards of 64 to 128 bits: the same search and
MCTS compiled again over two-word bitboards.

Alpha-beta, minimax (:mod:`connect4.classic.fastsearch`) and MCTS
(:mod:`connect4.classic.fastmcts`) read every bitboard through a few word helpers
of :mod:`connect4.classic.node` (``mask_at``, ``span``, ``one``, ``table_slot``,
``table_holds``, ``table_keep``). Their two-word forms make the bitboards ``uint128`` values and
keep, in each ``int64`` array that holds bitboards, the low words and then as many
high words (:func:`~connect4.classic.fastsearch.pack` with ``words=2``); every
other function is compiled again, unchanged, on top of them. The one-word code that
7x6 runs stays as it was.

The 128-bit integer is the core's compiled ``uint128``
(:mod:`connect4.core.compiler`, which the solver's wide kernel uses too); the
two-word forms over it are :mod:`connect4.classic.twoword`'s (:func:`forms`), and
the engines compile them on first use
(:func:`~connect4.classic.fastsearch.wide_search`,
:func:`~connect4.classic.fastmcts.wide_mcts`).

Python cannot pass a ``uint128``, so the compiled entry points here take a position
as an array of words (its stones, then all stones: :func:`root_words`) and join
them in compiled code.

The search's table is direct-mapped at the slot ``key % TT_SLOTS`` and keeps both
words of a key (the high words in the second half of its key array), so its entries
are exact on every board up to 128 bits, as the one-word table's are.

>>> from connect4.classic.fastsearch import pack
>>> root_words(5, (1 << 70) | 7).tolist() == pack([5, (1 << 70) | 7], words=2).tolist()
True
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: imported by the engines, cheaply
if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np

    # the entry points run compiled only, in the scope of these functions' modules
    from connect4.classic.mctsboard import run_playouts
    from connect4.classic.node import mask_at, search_node

__all__ = [
    "forms",
    "playouts_words",
    "root_words",
    "search_words",
]


def forms() -> Mapping[str, object]:
    """The two-word forms (:func:`connect4.classic.twoword.forms`: the word helpers by
    name and the names they use, for :func:`~connect4.classic.fastsearch.compile_module`'s
    overrides), compiled by :func:`connect4.classic.fastsearch.wide_search` and
    :func:`connect4.classic.fastmcts.wide_mcts` on first use."""
    from connect4.classic.twoword import forms as two_word_forms

    return two_word_forms()


def root_words(current: int, mask: int) -> np.ndarray:
    """A position's two bitboards (the side to move's stones, all stones) as the
    two-word entry points take them: the low words, then the high words."""
    import numpy as np

    words = [
        current & 0xFFFF_FFFF_FFFF_FFFF,
        mask & 0xFFFF_FFFF_FFFF_FFFF,
        current >> 64,
        mask >> 64,
    ]
    return np.array(words, dtype=np.uint64).view(np.int64)


# ---------------------------------------------------------------- entry points
# Plain Python over the node's word helpers (one word here, two when compiled by
# wide_search() and wide_mcts()); the bounds come in as arguments, never as constants (see
# connect4.classic.fastsearch.compile_module).
def search_words(  # type: ignore[no-untyped-def]
    words, depth, alpha, beta, ply, stones, heights, params, order, directions, weights,
    cells, lines, st, tt_key, tt_data, tt_value, movebuf, pv, pvlen,
):  # fmt: skip
    """:func:`~connect4.classic.node.search_node` from a position given as words."""
    return search_node(
        mask_at(words, 0), mask_at(words, 1), depth, alpha, beta, ply, stones, heights,
        params, order, directions, weights, cells, lines, st, tt_key, tt_data, tt_value,
        movebuf, pv, pvlen,
    )  # fmt: skip


def playouts_words(  # type: ignore[no-untyped-def]
    count, c, words, stones, nodes, params, order, cells, lines, path, st, stop
):
    """:func:`~connect4.classic.mctsboard.run_playouts` from a position given as words."""
    return run_playouts(
        count, c, mask_at(words, 0), mask_at(words, 1), stones, nodes, params, order, cells,
        lines, path, st, stop,
    )  # fmt: skip
