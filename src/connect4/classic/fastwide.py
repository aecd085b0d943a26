"""The compiled classic engines on boards of 64 to 128 bits: the same search and
MCTS compiled again over two-word bitboards.

Alpha-beta, minimax (:mod:`connect4.classic.fastsearch`) and MCTS
(:mod:`connect4.classic.fastmcts`) read every bitboard through a few word helpers
of :mod:`connect4.classic.node` (``mask_at``, ``span``, ``one``, ``table_slot``,
``table_key``). Their two-word forms make the bitboards ``uint128`` values and
keep, in each ``int64`` array that holds bitboards, the low words and then as many
high words (:func:`~connect4.classic.fastsearch.pack` with ``words=2``); every
other function is compiled again, unchanged, on top of them. The one-word code that
7x6 runs stays as it was.

The 128-bit integer is the solver's compiled type, a layer beside this one: the
players' layer builds the two-word forms (:mod:`connect4.players.twoword`), the
package's import hands them over (:func:`provide`), and the engines compile them on first
use (:func:`~connect4.classic.fastsearch.wide_search`,
:func:`~connect4.classic.fastmcts.wide_mcts`). Without them boards over 63 bits run
the readable engines.

Python cannot pass a ``uint128``, so the compiled entry points here take a position
as an array of words (its stones, then all stones: :func:`root_words`) and join
them in compiled code.

The search's table keeps a key's low word at the slot ``key % TT_SLOTS``: two keys
that share both differ by a multiple of ``TT_SLOTS * 2**64`` (over 2**84), so its
entries are exact on boards of up to :data:`EXACT_TABLE_BITS` bits (8x8 has 72);
a larger board with the table on runs the readable engine.

>>> from connect4.classic.fastsearch import pack
>>> root_words(5, (1 << 70) | 7).tolist() == pack([5, (1 << 70) | 7], words=2).tolist()
True
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the package's import wires this module in, cheaply
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import numpy as np

    # the entry points run compiled only, in the scope of these functions' modules
    from connect4.classic.mctsboard import run_playouts
    from connect4.classic.node import mask_at, search_node

__all__ = [
    "EXACT_TABLE_BITS",
    "available",
    "forms",
    "playouts_words",
    "provide",
    "root_words",
    "search_words",
]

EXACT_TABLE_BITS = 84  # the two-word table's entries are exact up to this many bits

_PROVIDER: list[Callable[[], Mapping[str, object]]] = []


def provide(forms: Callable[[], Mapping[str, object]]) -> None:
    """Install the two-word forms: ``forms()`` returns the word helpers by name
    (``mask_at``, ``span``, ``one``, ``table_slot``, ``table_key``) and the names
    they use, for :func:`~connect4.classic.fastsearch.compile_module`'s overrides."""
    _PROVIDER[:] = [forms]


def available() -> bool:
    """True when the two-word forms are installed (see :func:`provide`)."""
    return bool(_PROVIDER)


def forms() -> Mapping[str, object]:
    """The installed two-word forms (compiled by
    :func:`connect4.classic.fastsearch.wide_search` and
    :func:`connect4.classic.fastmcts.wide_mcts` on first use)."""
    if not _PROVIDER:
        raise ValueError("the compiled engines over 128 bits are not installed")
    return _PROVIDER[0]()


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
