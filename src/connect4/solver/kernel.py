# mypy: disable-error-code="call-arg,no-untyped-call,import-untyped,arg-type,var-annotated"
# mypy: disable-error-code="assignment,return-value"
# mypy: disable-error-code="untyped-decorator"
"""The numba kernel of the perfect solver: negamax, alpha-beta, null-window search.

A search thread keeps its state in one ``uint64`` array ``mem`` (header:
board constants, counters, limits, options; then its move lists) and probes
a transposition table ``table`` that any number of threads share (layout,
entry format and :func:`new_memory`/:func:`new_table` in
:mod:`connect4.solver.layout`), so the recursive search passes few arguments
and allocates nothing per node.

An entry holds the lower and upper bound, the best column (canonical
orientation) and the ply of a position, tagged by the position's hash residue
and the generation: bucket and residue identify the key exactly. Entries come
in buckets of two within one cache line: slot 0 keeps the entry nearest the
root, slot 1 the newest. An entry from another generation counts as empty,
so a new search costs one increment of ``table[T_GEN]`` instead of a clear.
Table words are read and written whole (unordered atomics), and the
``table[T_STOP]`` flag stops every search on the table (Lazy SMP: the first
thread done stops the others, see :func:`_probe`).

Scores follow Pons' convention (from the side to move's point of view; a
larger absolute value is a faster end). Every node of the search
keeps the invariant that the side to move cannot win at once (the root checks
it; later nodes only get there through moves that do not lose at once).

The standard 7x6 board has a kernel of its own (:func:`board_kernel`): copies
of :func:`negamax` and the entry functions compiled with the board's constants
(width, height, masks, centre order) built in; the kernel of the other sizes
reads them from the header. Both search the same nodes, and each compiles only
when a board of its family first needs it.

An opening book is two arrays, ``book_keys`` (sorted ``uint64`` canonical keys,
see :func:`connect4.core.bits.canonical_key`) and ``book_values`` (``int8`` exact scores), probed
inside the search at ``ply <= mem[BOOK_PLIES]``; pass empty arrays for no book.

>>> from connect4 import Position
>>> mem, table = new_memory(7, 6), new_table(7, 6, 1 << 20)
>>> no_book = np.zeros(0, np.uint64), np.zeros(0, np.int8)
>>> p = Position.from_moves("44455554221")
>>> pointers = [a.ctypes.data for a in (mem, table, *no_book)]
>>> cur, msk = np.uint64(p.current), np.uint64(p.mask)
>>> _solve(*pointers, 0, cur, msk, p.ply, False), int(mem[NODES])
(-15, 1)
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import numpy as np
from numba import njit

# ---------------------------------------------------------------- memory layout
# (re-exported for the tests)
from connect4.core import bits
from connect4.core.compiler import (
    Dispatcher,
    bit_length,
    compiled_helpers,
    cycles,
    drop_cache,
    jit_options,
    ld,
    ld8,
    lda,
    popcount,
    prefetch,
    st,
    sta,
)
from connect4.core.generated import Copy, generate, kernel_folder
from connect4.core.position import bottom_mask
from connect4.solver import windows
from connect4.solver.entries import ENTRY_POINTS, EntryPoint
from connect4.solver.layout import (
    ABORT as ABORT,
    BOARD as BOARD,
    BOOK_PLIES as BOOK_PLIES,
    BOTTOM as BOTTOM,
    DEFER_PLY as DEFER_PLY,
    H_ as H_,
    HASH_MUL as HASH_MUL_INT,
    HDR as HDR,
    KERNEL_NAMES as KERNEL_NAMES,
    LAYOUT_VERSION as LAYOUT_VERSION,
    LIMIT as LIMIT,
    MAXPLY as MAXPLY,
    MAXW as MAXW,
    MOVES as MOVES,
    NODES as NODES,
    NOISE_PLY as NOISE_PLY,
    NONE_SCORE as NONE_SCORE,
    OPT_BUCKET as OPT_BUCKET,
    OPT_ETC as OPT_ETC,
    OPT_ETC_AFTER as OPT_ETC_AFTER,
    OPT_NOISE as OPT_NOISE,
    OPT_SIGNAL as OPT_SIGNAL,
    OPT_SYM as OPT_SYM,
    OPT_TTMOVE as OPT_TTMOVE,
    ORDER as ORDER,
    R_BASE as R_BASE,
    R_BUCKETS as R_BUCKETS,
    R_NBITS as R_NBITS,
    R_RBITS as R_RBITS,
    R_XSHIFT as R_XSHIFT,
    T_BUSY as T_BUSY,
    T_BUSY_SHIFT as T_BUSY_SHIFT,
    T_FAR_REGION as T_FAR_REGION,
    T_GBITS as T_GBITS,
    T_GEN as T_GEN,
    T_HDR as T_HDR,
    T_KMASK as T_KMASK,
    T_NEAR as T_NEAR,
    T_NEAR_REGION as T_NEAR_REGION,
    T_STOP as T_STOP,
    T_TAGSHIFT as T_TAGSHIFT,
    T_WORDS as T_WORDS,
    UNKNOWN_SCORE as UNKNOWN_SCORE,
    W_ as W_,
    new_memory as new_memory,
    new_table as new_table,
)

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
U5 = np.uint64(5)
U8 = np.uint64(8)
U16 = np.uint64(16)
UFF = np.uint64(0xFF)
HASH_MUL = np.uint64(HASH_MUL_INT)
U6 = np.uint64(6)
U7 = np.uint64(7)
U32 = np.uint64(32)
U56 = np.uint64(56)
U12 = np.uint64(12)
U18 = np.uint64(18)
U63 = np.uint64(63)
DATA_MASK = np.uint64((1 << 24) - 1)
NOISE_MUL = np.uint64(0xD6E8FEB86659FD93)
NO_BOUND = 1000  # evens_bound: no bound

# board constants of a specialised search (0 = read them from the header)
SPEC_W = 0
SPEC_H = 0
SPEC_BOTTOM = 0
SPEC_ORDER = np.zeros(MAXW, dtype=np.int64)


# the root's choice of null windows, compiled in (its source counts in the layout's version)
_next_window = compiled_helpers(windows)["next_window"]


# ---------------------------------------------------------------- bitboards
@njit(cache=True, nogil=True, inline="always")
def threat_cells(
    pos: np.uint64, mask: np.uint64, h: np.uint64, wide: bool, board: np.uint64
) -> np.uint64:
    """Empty cells that would complete a four for the stones ``pos``."""
    r = (pos << U1) & (pos << U2) & (pos << U3)
    if wide:
        s = h
        for _ in range(3):
            s2 = s * U2
            p = (pos << s) & (pos << s2)
            r |= p & (pos << (s2 + s))
            r |= p & (pos >> s)
            p = (pos >> s) & (pos >> s2)
            r |= p & (pos << s)
            r |= p & (pos >> (s2 + s))
            s += U1
    return r & (board ^ mask)


@njit(cache=True, nogil=True, inline="always")
def _four_tops(stones: np.uint64, h: np.uint64, wide: bool) -> np.uint64:
    """A bit on the top row of every four in a row that ``stones`` holds (0: none).

    ``stones`` must lie on the board (the empty bit above each column keeps the
    shifted lines from wrapping into the next column).
    """
    q = stones & (stones >> U1)
    top = (q & (q >> U2)) << U3  # vertical: four cells up from the bit
    if wide:
        for k in range(3):
            s = h + np.uint64(k)  # h: down-right, h + 1: right, h + 2: up-right
            q = stones & (stones >> s)
            q &= q >> (s * U2)
            top |= (q << U3) if k == 2 else q  # up-right fours start at their bottom
    return top


@njit(cache=True, nogil=True, inline="always")
def _unshadowed(
    mine: np.uint64, theirs: np.uint64, h: np.uint64, wide: bool, bottom: np.uint64
) -> bool:
    """Whether ``mine`` holds a four in a row that no four of ``theirs`` *shadows*:
    one of the same direction over the same columns, lower (every cell of it right
    below the cell of ours in that column, the same number of rows down). A vertical
    four is never shadowed.

    A four is marked by its first cell (``stones & stones >> s & ...``: the lowest bit);
    two fours of one direction span the same columns when their marks share a column.
    ``marks - (tops + 1)``, ``tops`` the cell above each column, keeps in each column
    the cells below its lowest mark (the whole column when it has none): a mark of
    ours there is not shadowed. (Each column's ``h + 1`` bits borrow from the next
    only through its top cell, which no mark holds.)
    """
    q = mine & (mine >> U1)
    if q & (q >> U2):
        return True
    if wide:
        below = (bottom << h) + U1
        for k in range(3):
            s = h + np.uint64(k)
            q = mine & (mine >> s)
            ours = q & (q >> (s * U2))
            if ours:
                q = theirs & (theirs >> s)
                if ours & ((q & (q >> (s * U2))) - below):
                    return True
    return False


@njit(cache=True, nogil=True, inline="always")
def evens_bound(
    current: np.uint64,
    mask: np.uint64,
    h: np.uint64,
    wide: bool,
    bottom: np.uint64,
    board: np.uint64,
) -> int:
    """An upper bound on the score of the side to move from the opponent's
    follow-up ("claimeven") strategy, or ``NO_BOUND``.

    Valid on boards with an even number of rows when an even number of stones
    has been played (the side to move started the game). The opponent answers a
    stone on an odd row (1-based) by playing on top of it, and a stone on an even
    row (possible only in a column that holds an odd number of stones now) by the
    even cell playable in another such column (there always is one: the number of
    such columns has the parity of the number of stones). So the opponent gets
    every empty even cell that is not playable now, and the side to move at most
    the remaining cells: when those hold no four in a row, the side to move cannot
    win (bound 0); when the opponent's cells also hold a four whose top is on row
    ``r`` (0-based), the opponent completes it, at the latest, before any cell
    above it is filled: a loss by the move ``size - (height - 1 - r)``, so the
    bound is ``-((height + 1 - r) // 2)``.

    A four of the remaining cells does not void the bound when a four of the
    opponent's cells *shadows* it (:func:`_unshadowed`): each of its cells can only
    be played once the opponent's cell below it in that column is filled, and the
    opponent gets that cell, so the opponent's four is complete first and the game
    is over (ChristopheSteininger/c4 applies the same test).
    """
    odd_rows = bottom * (((U1 << h) - U1) // U3)  # 1-based rows 1, 3, 5, ...
    playable = (mask + bottom) & board
    theirs = (current ^ mask) | ((odd_rows << U1) & board & ~mask & ~playable)
    if _unshadowed(board & ~theirs, theirs, h, wide, bottom):
        return NO_BOUND
    tops = _four_tops(theirs, h, wide)
    if tops == 0:
        return 0
    row = 0
    while (tops & (bottom << np.uint64(row))) == 0:
        row += 1
    return int(-((np.int64(h) + 1 - row) // 2))


# the mirror key of :mod:`connect4.core.bits`, compiled (written once, in plain Python)
mirror_key = njit(cache=True, nogil=True, inline="always")(bits.mirror_key)


@njit(cache=True, nogil=True, inline="always")
def _mirror_move(mv: np.uint64, c: int, width: int, h1: np.uint64) -> np.uint64:
    """A move bit in column ``c`` moved to the mirror column ``width - 1 - c``."""
    d = width - 1 - 2 * c
    if d > 0:
        return mv << (np.uint64(d) * h1)
    if d < 0:
        return mv >> (np.uint64(-d) * h1)
    return mv


# ---------------------------------------------------------------- the table store
# The recursive search reads and writes ``mem`` through a raw pointer ``m``:
# array arguments would cost reference counting on every call.
#
# The table store below is written once for both words of a key: a board's key and
# the entry words it is tagged in are ``uint64`` here, ``uint128`` in a board over
# 64 bits (connect4.solver.wide), which replaces only these accessors. An entry is
# made of ``_words(t)`` table words (1 packed, 2, or 4: two 128-bit words), read and
# written ``SPAN`` words at a time, each whole.
SPAN = 1  # table words per entry word (a wide board's: 2)


@njit(cache=True, nogil=True, inline="always")
def _hash(t: int, key: np.uint64) -> np.uint64:
    """The key's hash: multiplied by an odd constant (a bijection) modulo ``2^bits``."""
    return (key * HASH_MUL) & ld(t, T_KMASK)


@njit(cache=True, nogil=True, inline="always")
def _words(t: int) -> int:
    """The table words of an entry."""
    return np.int64(ld(t, T_WORDS))


@njit(cache=True, nogil=True, inline="always")
def _tagshift(t: int) -> np.uint64:
    """The bit an entry word's tag starts at."""
    return ld(t, T_TAGSHIFT)


@njit(cache=True, nogil=True, inline="always")
def _lift(x: np.uint64) -> np.uint64:
    """A ``uint64`` as a key word (a wide board's: widened)."""
    return x


@njit(cache=True, nogil=True, inline="always")
def _low(x: np.uint64) -> np.uint64:
    """The low 64 bits of a key word."""
    return x


@njit(cache=True, nogil=True, inline="always")
def _tload(t: int, i: int) -> np.uint64:
    """The entry word at table word ``i``, read whole (an unordered atomic load)."""
    return lda(t, i)


@njit(cache=True, nogil=True, inline="always")
def _tsave(t: int, i: int, word: np.uint64) -> None:
    """Write the entry word at table word ``i`` whole (an unordered atomic store)."""
    sta(t, i, word)


@njit(cache=True, nogil=True, inline="always")
def _address(t: int, key: np.uint64, empty: int) -> tuple[int, np.uint64]:
    """The bucket of ``key`` (an index into the table ``t``) and its tag: the residue
    (the hash bits the bucket does not give) above the generation. Bucket and
    residue identify the key exactly; a position with ``empty`` empty cells lives
    in the near region when that is below ``t[T_NEAR]`` (see
    :mod:`connect4.solver.layout`)."""
    h = _hash(t, key)
    r = T_NEAR_REGION if empty < np.int64(ld(t, T_NEAR)) else T_FAR_REGION
    b = (_low(h >> ld(t, r + R_XSHIFT)) * ld(t, r + R_BUCKETS)) >> ld(t, r + R_NBITS)
    bidx = np.int64(ld(t, r + R_BASE)) + 2 * _words(t) * np.int64(b)
    one = _lift(U1)
    residue = h & ((one << ld(t, r + R_RBITS)) - one)
    return bidx, (residue << ld(t, T_GBITS)) | _lift(ld(t, T_GEN))


@njit(cache=True, nogil=True, inline="always")
def _find(t: int, bidx: int, tag: np.uint64) -> tuple[int, int]:
    """``(slot, data)`` of the entry tagged ``tag`` in the bucket at ``bidx``: its first
    word and its 24 data bits (lower + 32, upper + 32 << 6, column + 1 << 12, rank << 18),
    or ``(-1, -1)``. Two-word entries count only when both words carry the tag."""
    shift = _tagshift(t)
    if _words(t) == 1:
        for slot in (bidx, bidx + 1):
            w = _tload(t, slot)
            if (w >> shift) == tag:
                return slot, np.int64(_low(w) & DATA_MASK)
        return -1, -1
    for slot in (bidx, bidx + 2 * SPAN):
        w0 = _tload(t, slot)
        if (w0 >> shift) == tag:
            w1 = _tload(t, slot + SPAN)
            if (w1 >> shift) == tag:
                a = _low(w0)
                b = _low(w1)
                data = (a & U63) | ((b & U63) << U6) | (((a >> U6) & U63) << U12)
                return slot, np.int64(data | (((b >> U6) & U63) << U18))
    return -1, -1


@njit(cache=True, nogil=True, inline="always")
def _store(
    t: int,
    bidx: int,
    tag: np.uint64,
    rank: int,
    lower: int,
    upper: int,
    col: int,
    two_slots: bool,
) -> None:
    """Write bounds for the entry tagged ``tag`` in the bucket at ``bidx``.

    An entry of the same search is merged (bounds intersected). Otherwise, with
    ``two_slots``, slot 0 keeps the entry of the lower ``rank`` (the most work saved:
    see :func:`_work_rank`) and slot 1 always takes the newest; without, slot 0 is
    overwritten. Every word is written whole: a reader racing with this write sees
    the old word or the new one.
    """
    words = _words(t)
    shift = _tagshift(t)
    slot, old = _find(t, bidx, tag)
    if slot >= 0:
        lower = max(lower, (old & 63) - 32)
        upper = min(upper, ((old >> 6) & 63) - 32)
        if col < 0:
            col = ((old >> 12) & 63) - 1
    elif not two_slots:
        slot = bidx
    else:
        gmask = (U1 << ld(t, T_GBITS)) - U1
        w0 = _tload(t, bidx)
        if (_low(w0 >> shift) & gmask) != (_low(tag) & gmask):
            slot = bidx
        else:
            if words == 1:
                rank0 = np.int64((_low(w0) >> U18) & U63)
            else:
                rank0 = np.int64((_low(_tload(t, bidx + SPAN)) >> U6) & U63)
            if rank <= rank0:
                for i in range(0, words, SPAN):  # the old deep entry moves to slot 1
                    _tsave(t, bidx + words + i, _tload(t, bidx + i))
                slot = bidx
            else:
                slot = bidx + words
    top = tag << shift
    low = np.uint64(lower + 32)
    up = np.uint64(upper + 32)
    c1 = np.uint64(col + 1)
    p = np.uint64(rank)
    if words == 1:
        _tsave(t, slot, top | _lift(low | (up << U6) | (c1 << U12) | (p << U18)))
    else:
        _tsave(t, slot, top | _lift(low | (c1 << U6)))
        _tsave(t, slot + SPAN, top | _lift(up | (p << U6)))


@njit(cache=True, nogil=True, inline="always")
def _book_key(bk: int, i: int) -> np.uint64:
    """The book's ``i``-th key (a wide board's: two words, low and high)."""
    return ld(bk, i)


@njit(cache=True, nogil=True, inline="always")
def _book_probe(bk: int, bv: int, nbook: int, key: np.uint64) -> int:
    """The book's score of ``key`` (binary search), or ``NONE_SCORE``."""
    lo = 0
    hi = nbook
    while lo < hi:
        mid = (lo + hi) >> 1
        if _book_key(bk, mid) < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < nbook and _book_key(bk, lo) == key:
        return ld8(bv, lo)
    return NONE_SCORE


# ---------------------------------------------------------------- search
@njit(cache=True, nogil=True, inline="always")
def _noise(key: np.uint64, thread: np.uint64, c: int) -> np.uint64:
    """Pseudo-random bits per (position, helper thread, column): how a helper thread
    of a Lazy SMP search reorders moves near the root (see :func:`negamax`)."""
    return (key + thread * NOISE_MUL + np.uint64(c + 1) * HASH_MUL) * HASH_MUL


@njit(cache=True, nogil=True, inline="always")
def _column(h: np.uint64) -> np.uint64:
    """The ``h`` cells of column 0: shifted to a column's bits, they pick its moves
    (a word as wide as the board's bitboards)."""
    return (U1 << h) - U1


@njit(cache=True, nogil=True, inline="always")
def _mark(key: np.uint64) -> np.uint64:
    """The word a busy mark holds for a child's key (the key itself; a wide board's
    kernel folds its key into one word)."""
    return key


OPEN = 9999  # a static rule's "no result: search on" (scores lie within +-32)
ABORTED = -9999  # a search stopped by an abort (no score)
Pos = tuple[np.uint64, np.uint64, np.uint64, np.uint64]  # current, mask, mcur, mmask
Geo = tuple[int, np.uint64, np.uint64, np.uint64]  # width, h, bottom, board

# Inside the search a position travels as ``pos = (current, mask, mcur, mmask)``
# (``mcur``/``mmask``: mirrored left-right) and the board as ``geo = (width, h,
# bottom, board)``. The helpers below are inlined into :func:`negamax`: numba
# compiles one function, as if they were written out in it.


@njit(cache=True, nogil=True, inline="always")
def _board(m: int, spec_w: int, spec_h: int, spec_bottom: int) -> Geo:
    """``geo``: the compile-time constants of a specialised search (``spec_w > 0``),
    else the header's."""
    if spec_w:
        h = np.uint64(spec_h)
        bottom = np.uint64(spec_bottom)
        return spec_w, h, bottom, bottom * ((U1 << h) - U1)
    return np.int64(ld(m, W_)), ld(m, H_), ld(m, BOTTOM), ld(m, BOARD)


@njit(cache=True, nogil=True, inline="always")
def _static(
    m: int, nbook: int, pos: Pos, ply: int, alpha: int, beta: int, geo: Geo
) -> tuple[int, Pos, int, int, int, int, np.uint64, np.uint64]:
    """The rules that settle a position, or narrow its window, without searching it.

    A single move that does not lose at once is played here, with no node of its
    own (up to a position the book may hold); ``sign`` is -1 while the position
    reached is the opponent's (after an odd number of such moves). Two threats
    to block, or no move that does not lose, is a loss; the last two cells are a
    draw; the window shrinks to what the next two stones allow and, on boards
    with an even number of rows, to :func:`evens_bound`.

    Returns ``(result, pos, ply, alpha, beta, sign, nxt, opp_win)``: ``result``
    is the score to return (from the caller's side), or :data:`OPEN` for a
    position still to search, whose moves that do not lose at once are ``nxt``
    and whose opponent's winning cells are ``opp_win``.
    """
    current, mask, mcur, mmask = pos
    width, h, bottom, board = geo
    h1 = h + U1
    wide = width >= 4
    size = width * np.int64(h)
    sign = 1
    while True:
        # moves that do not hand the opponent an immediate win
        pos = (current, mask, mcur, mmask)
        possible = (mask + bottom) & board
        opp = current ^ mask
        opp_win = threat_cells(opp, mask, h, wide, board)
        forced = possible & opp_win
        lost = sign * -((size - ply) // 2)
        if forced:
            if forced & (forced - U1):
                return lost, pos, ply, alpha, beta, sign, U0, U0  # two threats to block
            possible = forced
        nxt = possible & ~(opp_win >> U1)
        if nxt == 0:
            return lost, pos, ply, alpha, beta, sign, U0, U0
        if ply >= size - 2:
            return 0, pos, ply, alpha, beta, sign, U0, U0

        # no loss with the opponent's next stone, no win with our next one
        lo = -((size - 2 - ply) // 2)
        if alpha < lo:
            alpha = lo
            if alpha >= beta:
                return sign * alpha, pos, ply, alpha, beta, sign, U0, U0
        hi = (size - 1 - ply) // 2
        if beta > hi:
            beta = hi
            if alpha >= beta:
                return sign * beta, pos, ply, alpha, beta, sign, U0, U0
        if (h & U1) == 0 and (ply & 1) == 0:
            eb = evens_bound(current, mask, h, wide, bottom, board)
            if eb < beta:
                beta = eb
                if alpha >= beta:
                    return sign * beta, pos, ply, alpha, beta, sign, U0, U0
        if nxt & (nxt - U1):
            break
        if nbook > 0 and ply <= np.int64(ld(m, BOOK_PLIES)):
            break  # a position the book may hold: probe it, do not play past it
        c = np.int64(popcount(nxt - U1)) // np.int64(h1)
        mcur, mmask = mcur ^ mmask, mmask | _mirror_move(nxt, c, width, h1)
        current, mask = opp, mask | nxt
        ply += 1
        alpha, beta = -beta, -alpha
        sign = -sign
    return OPEN, pos, ply, alpha, beta, sign, nxt, opp_win


@njit(cache=True, nogil=True, inline="always")
def _table_key(
    m: int, t: int, pos: Pos, empty: int
) -> tuple[np.uint64, bool, bool, int, np.uint64]:
    """``(key, sym, mirrored, bucket, tag)`` of a position in the table: its key or,
    with ``mem[OPT_SYM]``, the smaller of its and its mirror's (``mirrored``). The
    bucket's cache line is fetched now; it is read after the moves are scored."""
    current, mask, mcur, mmask = pos
    key = current + mask
    sym = ld(m, OPT_SYM) != 0
    mirrored = False
    if sym and mcur + mmask < key:
        key = mcur + mmask
        mirrored = True
    bidx, tag = _address(t, key, empty)
    prefetch(t, bidx)
    return key, sym, mirrored, bidx, tag


@njit(cache=True, nogil=True, inline="always")
def _child_key(pos: Pos, mv: np.uint64, c: int, sym: bool, width: int, h1: np.uint64) -> np.uint64:
    """The table key of the child after move ``mv`` (in column ``c``)."""
    current, mask, mcur, mmask = pos
    ck = (current ^ mask) + (mask | mv)
    if sym:
        cmk = (mcur ^ mmask) + (mmask | _mirror_move(mv, c, width, h1))
        if cmk < ck:
            ck = cmk
    return ck


@njit(cache=True, nogil=True, inline="always")
def _score_moves(
    m: int,
    t: int,
    base: int,
    spec: int,
    order: np.ndarray,
    key: np.uint64,
    sym: bool,
    pos: Pos,
    nxt: np.uint64,
    opp_win: np.uint64,
    ply: int,
    geo: Geo,
) -> int:
    """Write the moves ``nxt`` to the move list at ``mem[base:]``, best first, and
    return how many there are, or -1 when one of them wins with our next stone
    whatever the opponent does (a win in two).

    A move scores the threats it makes that are not directly above one of the
    opponent's, weighted by how soon they become playable; ties go to the
    centre (``order``: the columns centre first when ``spec`` is set, else read
    from the header). A helper thread of a Lazy SMP search (``mem[OPT_NOISE] = k
    > 0``) orders the moves near the root its own way: random ties, scores
    jittered by up to 7. Each child's table bucket is fetched meanwhile.
    """
    current, mask, _, _ = pos
    width, h, bottom, board = geo
    h1 = h + U1
    wide = width >= 4
    size = width * np.int64(h)
    colmask = _column(h)
    noise = ld(m, OPT_NOISE) if ply < np.int64(ld(m, NOISE_PLY)) else np.uint64(0)
    n = 0
    for i in range(width):
        c = order[i] if spec else np.int64(ld(m, ORDER + i))
        mv = nxt & (colmask << (np.uint64(c) * h1))
        if mv:
            ours = threat_cells(current | mv, mask | mv, h, wide, board)
            cplay = ((mask | mv) + bottom) & board
            cposs = cplay
            cforced = cposs & ours
            if cforced:
                if cforced & (cforced - U1):
                    return -1
                cposs = cforced
            if (cposs & ~(ours >> U1)) == 0:
                return -1
            ck = _child_key(pos, mv, c, sym, width, h1)
            prefetch(t, _address(t, ck, size - ply - 1)[0])
            useful = ours & ~(opp_win << U1)
            above = (cplay << U1) & board
            s = (
                U12 * popcount(useful & above)
                + U5 * popcount(useful & (above << U1))
                + U3 * popcount(useful)
            )
            tie = np.uint64(255 - i)
            if noise:
                x = _noise(key, noise, c)
                s += (x >> U32) & U7
                tie = x >> U56
            v = (s << U16) | (tie << U8) | np.uint64(c)
            j = n
            while j > 0 and ld(m, base + j - 1) < v:
                st(m, base + j, ld(m, base + j - 1))
                j -= 1
            st(m, base + j, v)
            n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _table_bounds(
    t: int, bidx: int, tag: np.uint64, alpha: int, beta: int, mirrored: bool, width: int
) -> tuple[int, int, int, int]:
    """The table's bounds of the position (bucket ``bidx``, ``tag``) applied to the
    window: ``(result, alpha, beta, column)``, ``result`` the score when the window
    closes, else :data:`OPEN`; ``column`` the table's best move (-1: none) in the
    position's own orientation."""
    slot, data = _find(t, bidx, tag)
    if slot < 0:
        return OPEN, alpha, beta, -1
    tl = (data & 63) - 32
    tu = ((data >> 6) & 63) - 32
    if tl > alpha:
        alpha = tl
        if alpha >= beta:
            return alpha, alpha, beta, -1
    if tu < beta:
        beta = tu
        if alpha >= beta:
            return beta, alpha, beta, -1
    column = ((data >> 12) & 63) - 1
    if column >= 0 and mirrored:
        column = width - 1 - column
    return OPEN, alpha, beta, column


@njit(cache=True, nogil=True, inline="always")
def _book_score(
    m: int, bk: int, bv: int, nbook: int, key: np.uint64, sym: bool, ply: int, geo: Geo
) -> int:
    """The book's exact score of the position with table key ``key`` (the smaller of
    its key and its mirror's when ``sym``), or ``NONE_SCORE`` (not in the book, or
    past ``mem[BOOK_PLIES]``)."""
    if nbook == 0 or ply > np.int64(ld(m, BOOK_PLIES)):
        return NONE_SCORE
    if not sym:
        mk = mirror_key(key, geo[0], geo[1] + U1)
        if mk < key:
            key = mk
    return _book_probe(bk, bv, nbook, key)


@njit(cache=True, nogil=True, inline="always")
def _favour(m: int, base: int, n: int, column: int) -> None:
    """Raise the score of ``column``'s move (the table's best move) in the move list at
    ``mem[base:]`` by 5 (a threat counts 15 when the next stone makes it playable, 8
    one stone later, else 3) and move it up to its place: a move with more or sooner
    threats still goes first (fewer nodes than the table's move always first)."""
    for j in range(n):
        v = ld(m, base + j)
        if np.int64(v & UFF) == column:
            v += U5 << U16
            k = j
            while k > 0 and ld(m, base + k - 1) < v:
                st(m, base + k, ld(m, base + k - 1))
                k -= 1
            st(m, base + k, v)
            break


@njit(cache=True, nogil=True, inline="always")
def _settle_children(
    m: int,
    t: int,
    nbook: int,
    base: int,
    n: int,
    nodes: np.uint64,
    alpha: int,
    beta: int,
    pos: Pos,
    nxt: np.uint64,
    ply: int,
    geo: Geo,
) -> tuple[int, int, int, int]:
    """The children settled without a search of their own, before any is searched
    (enhanced transposition cut-offs).

    Each child goes through the static rules (:func:`_static`, its forced moves
    played) with the window it would be searched with; one they leave open is
    looked up in the table under the position it reaches: the table's bounds may
    close its window. A child that fails low is then not searched; one that fails
    high ends the search. Probing every child costs table misses (and the static
    rules of the children searched run twice) that only a long search earns back:
    only at nodes with at least ``mem[OPT_ETC]`` empty cells, once
    ``mem[OPT_ETC_AFTER]`` nodes are searched.

    Returns ``(best, column, settled, alpha)``: the best score of a settled child
    (-1000: none) and its column, bit ``j`` of ``settled`` set when the ``j``-th
    move of the list is settled, and the window's lower end raised to ``best``.
    It stops at the first child whose score reaches ``beta`` (a cut-off).
    """
    current, mask, mcur, mmask = pos
    width, h, _, _ = geo
    h1 = h + U1
    size = width * np.int64(h)
    etc_min = np.int64(ld(m, OPT_ETC))
    best = -1000
    best_col = -1
    settled = 0
    if etc_min == 0 or size - ply < etc_min or nodes < ld(m, OPT_ETC_AFTER):
        return best, best_col, settled, alpha
    opp, mopp = current ^ mask, mcur ^ mmask
    colmask = _column(h)
    for j in range(n):
        c = np.int64(ld(m, base + j) & UFF)
        mv = nxt & (colmask << (np.uint64(c) * h1))
        child = (opp, mask | mv, mopp, mmask | _mirror_move(mv, c, width, h1))
        r, cpos, cply, ca, cb, csign, _, _ = _static(m, nbook, child, ply + 1, -beta, -alpha, geo)
        if r == OPEN:
            _, _, cmirrored, cbidx, ctag = _table_key(m, t, cpos, size - cply)
            r = _table_bounds(t, cbidx, ctag, ca, cb, cmirrored, width)[0]
            if r == OPEN:
                continue
            r = csign * r
        settled |= 1 << j
        if -r > best:
            best = -r
            best_col = c
            if best >= beta:
                break
            if best > alpha:
                alpha = best
    return best, best_col, settled, alpha


@njit(cache=True, nogil=True, inline="always")
def _search_moves(
    m: int,
    t: int,
    bk: int,
    bv: int,
    nbook: int,
    base: int,
    n: int,
    best: int,
    best_col: int,
    settled: int,
    alpha: int,
    beta: int,
    pos: Pos,
    nxt: np.uint64,
    ply: int,
    geo: Geo,
) -> tuple[int, int]:
    """Search the moves of the list at ``mem[base:]`` in order, skipping those
    ``settled`` (bit ``j``: the ``j``-th move), from the best score and column
    found so far: ``(best, column)``, fail-soft, or ``(ABORTED, -1)`` after an abort.

    Near the root of a search with several threads, a move whose child another
    thread is searching waits for a second pass (simplified ABDADA): the child's
    busy mark is set while it is searched here.
    """
    current, mask, mcur, mmask = pos
    width, h, _, _ = geo
    h1 = h + U1
    opp, mopp = current ^ mask, mcur ^ mmask
    colmask = _column(h)
    defer = ply < np.int64(ld(m, DEFER_PLY))
    deferred = 0
    for k in range(0 if best >= beta else (2 * n if defer else n)):
        j = k if k < n else k - n
        if (k >= n and (deferred >> j) & 1 == 0) or (settled >> j) & 1:
            continue
        c = np.int64(ld(m, base + j) & UFF)
        mv = nxt & (colmask << (np.uint64(c) * h1))
        ck = _mark(opp + (mask | mv))
        busy = 0
        if defer:
            busy = np.int64(ld(t, T_BUSY)) + np.int64((ck * HASH_MUL) >> ld(t, T_BUSY_SHIFT))
            if 0 < k < n and lda(t, busy) == ck:
                deferred |= 1 << j
                continue
            sta(t, busy, ck)
        mchild = mmask | _mirror_move(mv, c, width, h1)
        child = (opp, mask | mv, mopp, mchild)
        score = -_child(m, t, bk, bv, nbook, child, ply + 1, -beta, -alpha, geo)
        if defer and lda(t, busy) == ck:
            sta(t, busy, U0)
        if ld(m, ABORT) != 0:
            return ABORTED, -1
        if score > best:
            best = score
            best_col = c
            if score >= beta:
                break
            if score > alpha:
                alpha = score
    return best, best_col


@njit(cache=True, nogil=True, inline="always")
def _work_rank(nodes: np.uint64) -> int:
    """An entry's rank for the table's slot 0 from the ``nodes`` its search took: 63
    minus their bit length, so the entry that saves the most work ranks lowest (as
    ChristopheSteininger/c4 keeps entries; measured against the nearness to the root
    kept before: Begin-Hard first 20 -0.9 % nodes, the empty board -1.6 %, no slower)."""
    return 63 - np.int64(bit_length(nodes))


@njit(cache=True, nogil=True, inline="always")
def _store_result(
    t: int,
    bidx: int,
    tag: np.uint64,
    rank: int,
    a0: int,
    beta: int,
    lo: int,
    hi: int,
    best: int,
    best_col: int,
    mirrored: bool,
    width: int,
    m: int,
) -> None:
    """Store a search's fail-soft result ``best`` (window ``(a0, beta)``) in the table:
    a lower bound (up to ``hi``) with its move, an exact score with its move, or an
    upper bound (down to ``lo``) without a move. The move is stored in the
    canonical orientation."""
    if mirrored and best_col >= 0:
        best_col = width - 1 - best_col
    if best >= beta:  # a lower bound
        lower, upper = best, hi
    elif best > a0:  # exact
        lower, upper = best, best
    else:  # an upper bound, no best move
        lower, upper, best_col = lo, best, -1
    _store(t, bidx, tag, rank, lower, upper, best_col, ld(m, OPT_BUCKET) != 0)  # one copy inlined


@njit(cache=True, nogil=True)
def negamax(
    m: int,
    t: int,
    bk: int,
    bv: int,
    nbook: int,
    current: np.uint64,
    mask: np.uint64,
    mcur: np.uint64,
    mmask: np.uint64,
    ply: int,
    alpha: int,
    beta: int,
    nxt: np.uint64,
    opp_win: np.uint64,
) -> int:
    """Fail-soft alpha-beta: a score ``v`` with ``v <= alpha`` an upper bound,
    ``v >= beta`` a lower bound, otherwise exact. Returns 0 after an abort.

    ``m`` points at this thread's ``mem``, ``t`` at the shared table; ``bk``/``bv`` at
    the book's keys/values (``nbook`` of them); ``mcur``/``mmask`` are
    ``current``/``mask`` mirrored left-right.

    The position is one the static rules (:func:`_static`) left open, with the
    window they narrowed, its moves that do not lose at once ``nxt`` and the
    opponent's winning cells ``opp_win``: a child is put through them here, in
    its parent, and searched only when they leave it open (so a child they
    settle costs no call and no node). Then move ordering (a win in two ends
    the search), the table, the book, the children's entries
    (:func:`_settle_children`), the moves (:func:`_search_moves`) and the store
    of the result (:func:`_store_result`).
    """
    nodes = ld(m, NODES) + U1
    st(m, NODES, nodes)
    if nodes >= ld(m, LIMIT) or lda(t, T_STOP) != 0:
        st(m, ABORT, U1)
        return 0
    geo = _board(m, SPEC_W, SPEC_H, SPEC_BOTTOM)
    width, h, _, _ = geo
    size = width * np.int64(h)
    pos = (current, mask, mcur, mmask)
    lo = -((size - 2 - ply) // 2)  # (the static rules' lower bound)
    key, sym, mirrored, bidx, tag = _table_key(m, t, pos, size - ply)
    base = MOVES + ply * MAXW
    n = _score_moves(m, t, base, SPEC_W, SPEC_ORDER, key, sym, pos, nxt, opp_win, ply, geo)
    if n < 0:
        return (size - 1 - ply) // 2  # a win with our next stone
    hi = (size - 3 - ply) // 2  # no move wins with our next two stones
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    result, alpha, beta, tt_col = _table_bounds(t, bidx, tag, alpha, beta, mirrored, width)
    if result != OPEN:
        return result
    result = _book_score(m, bk, bv, nbook, key, sym, ply, geo)
    if result != NONE_SCORE:
        return result
    if tt_col >= 0 and ld(m, OPT_TTMOVE) != 0:
        _favour(m, base, n, tt_col)
    a0 = alpha
    best, best_col, settled, alpha = _settle_children(
        m, t, nbook, base, n, nodes, alpha, beta, pos, nxt, ply, geo
    )
    best, best_col = _search_moves(
        m, t, bk, bv, nbook, base, n, best, best_col, settled, alpha, beta, pos, nxt, ply, geo
    )
    if best == ABORTED:
        return 0
    rank = _work_rank(ld(m, NODES) - nodes)
    _store_result(t, bidx, tag, rank, a0, beta, lo, hi, best, best_col, mirrored, width, m)
    return best


@njit(cache=True, nogil=True, inline="always")
def _child(
    m: int,
    t: int,
    bk: int,
    bv: int,
    nbook: int,
    pos: Pos,
    ply: int,
    alpha: int,
    beta: int,
    geo: Geo,
) -> int:
    """The score of a position (fail-soft, as :func:`negamax`'s): the static rules'
    when they settle it, else the search of the position they reach."""
    result, pos, ply, alpha, beta, sign, nxt, opp_win = _static(
        m, nbook, pos, ply, alpha, beta, geo
    )
    if result != OPEN:
        return result
    current, mask, mcur, mmask = pos
    return sign * negamax(
        m, t, bk, bv, nbook, current, mask, mcur, mmask, ply, alpha, beta, nxt, opp_win
    )


@njit(cache=True, nogil=True, inline="always")
def _search(
    m: int,
    t: int,
    bk: int,
    bv: int,
    nbook: int,
    current: np.uint64,
    mask: np.uint64,
    mcur: np.uint64,
    mmask: np.uint64,
    ply: int,
    alpha: int,
    beta: int,
) -> int:
    """:func:`_child` of a root position (it counts one node when the static rules
    settle it): in a board's own kernel (:func:`board_kernel`), that board's copy."""
    geo = _board(m, SPEC_W, SPEC_H, SPEC_BOTTOM)
    nodes = ld(m, NODES)
    r = _child(m, t, bk, bv, nbook, (current, mask, mcur, mmask), ply, alpha, beta, geo)
    if ld(m, NODES) == nodes:
        st(m, NODES, nodes + U1)  # the static rules settled it: still one node
    return r


# The searches work on raw pointers (``m`` to ``mem``, ``bk``/``bv`` to the book's
# keys and values, ``nbook`` of them). The entry points (connect4.solver.entries)
# call the four below: numba's backend from Python with addresses, the native
# kernel through the ``native_*`` functions made at the end of this module.


@njit(cache=True, nogil=True)
def _solve(
    m: int,
    t: int,
    bk: int,
    bv: int,
    nbook: int,
    current: np.uint64,
    mask: np.uint64,
    ply: int,
    weak: bool,
) -> int:
    """The exact score (or its sign when ``weak``) of a position that is not over.

    A sequence of null-window searches narrows ``[min, max]``
    (:func:`connect4.solver.windows.next_window`: two tests of the halving, then 0,
    then each next to the value the last returned). Check ``mem[ABORT]`` afterwards.
    """
    width, h, bottom, board = _board(m, SPEC_W, SPEC_H, SPEC_BOTTOM)
    height = np.int64(h)
    size = width * height
    possible = (mask + bottom) & board
    if threat_cells(current, mask, h, width >= 4, board) & possible:
        win = (size + 1 - ply) // 2
        return 1 if weak else win
    if ply >= size:
        return 0
    lo = -((size - ply) // 2)
    hi = (size + 1 - ply) // 2
    h1 = h + U1
    mcur = mirror_key(current, width, h1)
    mmask = mirror_key(mask, width, h1)
    if weak:
        lo = -1
        hi = 1
    tests = 0
    walking = False
    med = 0
    r = 0
    while lo < hi:
        med, walking = _next_window(lo, hi, tests, 0, False, walking, med, r)
        r = _search(m, t, bk, bv, nbook, current, mask, mcur, mmask, ply, med, med + 1)
        if ld(m, ABORT) != 0:
            return 0
        tests += 1
        if r <= med:
            hi = r
        else:
            lo = r
    if weak:
        return 1 if lo > 0 else (-1 if lo < 0 else 0)
    return lo


@njit(cache=True, nogil=True)
def _analyze(
    m: int,
    t: int,
    bk: int,
    bv: int,
    nbook: int,
    current: np.uint64,
    mask: np.uint64,
    ply: int,
    weak: bool,
    out: int,
) -> None:
    """Write the score of playing each column ``c`` to ``out[c]`` (``width`` ``int64``
    words): ``NONE_SCORE`` when full, ``UNKNOWN_SCORE`` when a limit stopped the search."""
    width, h, bottom, board = _board(m, SPEC_W, SPEC_H, SPEC_BOTTOM)
    height = np.int64(h)
    h1 = h + U1
    size = width * height
    possible = (mask + bottom) & board
    wins = threat_cells(current, mask, h, width >= 4, board) & possible
    colmask = _column(h)
    for c in range(width):
        st(out, c, np.uint64(NONE_SCORE))
    for i in range(width):
        c = np.int64(ld(m, ORDER + i))
        mv = possible & (colmask << (np.uint64(c) * h1))
        if mv == 0:
            continue
        if ld(m, ABORT) != 0:
            r = UNKNOWN_SCORE
        elif wins & mv:
            r = 1 if weak else (size + 1 - ply) // 2
        elif ply + 1 >= size:
            r = 0
        else:
            r = -_solve(m, t, bk, bv, nbook, current ^ mask, mask | mv, ply + 1, weak)
            if ld(m, ABORT) != 0:
                r = UNKNOWN_SCORE
        st(out, c, np.uint64(r))


@njit(cache=True, nogil=True)
def _probe(
    m: int,
    t: int,
    bk: int,
    bv: int,
    nbook: int,
    current: np.uint64,
    mask: np.uint64,
    ply: int,
    alpha: int,
    beta: int,
) -> int:
    """One fail-soft :func:`negamax` search of ``(alpha, beta)`` (a null window when
    ``beta = alpha + 1``). The side to move must not be able to win at once.

    With ``mem[OPT_SIGNAL]`` set, a search that completes sets the table's stop
    flag: the other threads of a Lazy SMP search on the same table stop."""
    width = np.int64(ld(m, W_))
    h1 = ld(m, H_) + U1
    mcur = mirror_key(current, width, h1)
    mmask = mirror_key(mask, width, h1)
    r = _search(m, t, bk, bv, nbook, current, mask, mcur, mmask, ply, alpha, beta)
    if ld(m, OPT_SIGNAL) != 0 and ld(m, ABORT) == 0:
        sta(t, T_STOP, U1)
    return r


@njit(cache=True, nogil=True)
def _solve_batch(
    m: int,
    t: int,
    bk: int,
    bv: int,
    nbook: int,
    currents: int,
    masks: int,
    plies: int,
    weak: bool,
    new_generation: bool,
    scores: int,
    nodes: int,
    ticks: int,
    n: int,
) -> None:
    """Solve ``n`` positions (``currents``, ``masks``, ``plies``: pointers to 64-bit
    words) without limits, counting nodes from 0 for each; with ``new_generation``
    each starts from a logically empty table. Writes ``scores``, ``nodes`` and
    ``ticks`` (cycle-counter ticks per position; the caller converts them to seconds
    with the batch's wall time)."""
    for i in range(n):
        start = cycles()
        if new_generation:  # as layout.next_generation
            top = (U1 << ld(t, T_GBITS)) - U1
            st(t, T_GEN, ld(t, T_GEN) % top + U1)
        st(m, NODES, np.uint64(0))
        st(m, ABORT, np.uint64(0))
        st(m, LIMIT, U1 << np.uint64(63))
        r = _solve(m, t, bk, bv, nbook, ld(currents, i), ld(masks, i), np.int64(ld(plies, i)), weak)
        st(scores, i, np.uint64(r))
        st(ticks, i, cycles() - start)
        st(nodes, i, ld(m, NODES))


# ---------------------------------------------------------------- native entries
# The entry points of the native kernel (see connect4.solver.native), made from
# their one description (connect4.solver.entries): integer arguments only (flags
# 0/1), an integer result, numba's own calling convention (a status code, a
# pointer for the result, a pointer for exception info) and no Python wrapper,
# so the object code built from them runs without numba.
_NATIVE_OPTIONS: dict[str, Any] = {
    "nogil": True,
    "no_cpython_wrapper": True,
    "no_cfunc_wrapper": True,
}


def _native(point: EntryPoint, g: dict[str, Any]) -> Dispatcher:
    """``native_<name>`` of an entry point, compiled from its generated source, calling
    the raw function of the namespace ``g`` (a kernel's, see :func:`board_kernel`)."""
    raw = g[point.function].py_func
    expected = [p.name for p in point.params]
    if len(inspect.signature(raw).parameters) != len(expected):
        raise TypeError(f"{point.function} does not take ({', '.join(expected)})")
    namespace: dict[str, Any] = {}
    exec(compile(point.native_source(), f"<native {point.name}>", "exec"), g, namespace)
    dispatcher: Dispatcher = njit(**_NATIVE_OPTIONS)(namespace[f"native_{point.name}"])
    return dispatcher


# ---------------------------------------------------------------- one kernel per board family
# The search and the raw entry functions; a board's own kernel copies them (the
# helpers marked inline="always" are inlined into the copies as they are).
_COPIED = (
    "negamax",
    "_search_moves",
    "_child",
    "_search",
    "_solve",
    "_analyze",
    "_probe",
    "_solve_batch",
)


class BoardKernel:
    """One kernel: the raw entry functions (``functions``, called from Python by
    numba's backend) and their ``native_*`` versions (``native``), of a
    :func:`connect4.solver.layout.kernel_name`: ``"any"`` reads the board from
    the header, ``"7x6"`` has the standard board's constants compiled in.

    Each compiles on its own, when first used: the standard board's games never
    wait for the kernel of the other sizes, and the other way round.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        g = globals() if name == "any" else _board_globals(name)
        self.functions: dict[str, Dispatcher] = {p.function: g[p.function] for p in ENTRY_POINTS}
        self.search: Dispatcher = g["_search"]  # a root's search (for tests that compare kernels)
        self.compiled: list[Dispatcher] = [g[function] for function in _COPIED]
        self.native: dict[str, Dispatcher] = {p.name: _native(p, g) for p in ENTRY_POINTS}


def _board_globals(name: str) -> dict[str, Any]:
    """The globals of a board's own kernel: this module's, with the board's
    constants (``SPEC_*``) and its own copies of the search and the entry functions,
    generated as source (:func:`connect4.core.generated.generate`), so the width,
    height, masks and centre order are compile-time constants: constant shifts, no
    header loads, unrollable column loops; each copy calls the others."""
    width, height = (int(part) for part in name.split("x"))
    order = list(bits.centre_order(width))
    constants = {
        "SPEC_W": width,
        "SPEC_H": height,
        "SPEC_BOTTOM": bottom_mask(width, height),
        "SPEC_ORDER": np.array(order + [0] * (MAXW - width), dtype=np.int64),
    }
    functions = {f: Copy(globals()[f].py_func, jit_options(globals()[f])) for f in _COPIED}
    sources = (sys.modules[__name__], sys.modules["connect4.core.compiler"], LAYOUT_VERSION)
    return generate(f"kernel_{name}", kernel_folder(), globals(), constants, functions, sources)


_kernels: dict[str, BoardKernel] = {}


def board_kernel(name: str) -> BoardKernel:
    """The kernel called ``name`` (``"7x6"`` or ``"any"``), made once (nothing is
    compiled until a function is called or compiled)."""
    if name not in _kernels:
        if name not in KERNEL_NAMES:
            raise ValueError(f"no solver kernel {name!r}: choose one of {', '.join(KERNEL_NAMES)}")
        _kernels[name] = BoardKernel(name)
    return _kernels[name]


# ---------------------------------------------------------------- stale code
@njit(cache=True)
def layout_version() -> int:
    """The layout version this module's cached code was compiled for."""
    return LAYOUT_VERSION


def _drop_stale_code() -> None:
    """Recompile this module's functions when numba's cache holds code of another
    layout.

    numba keys its on-disk cache on each function's own source file, so after an
    edit of :mod:`connect4.solver.layout` (or of the bitboard helpers in
    :mod:`connect4.core.bits`) it would load code with the old offsets and
    constants. :data:`LAYOUT_VERSION` covers both, and is compiled into
    :func:`layout_version`: when that disagrees, every cached function is dropped.
    (A board's own kernel is stamped with the layout version: its source changes.)
    """
    if layout_version() == LAYOUT_VERSION:
        return
    drop_cache([v for v in globals().values() if isinstance(v, Dispatcher)])
    layout_version.recompile()


_drop_stale_code()
