"""The solver's memory: per-thread search state and one shared transposition table.

This module has no numba import, so code that only needs the layout (the
:class:`~connect4.solver.Solver` set-up, the native kernel of
:mod:`connect4.solver.native`) starts fast.

A search thread owns a ``mem`` array (:func:`new_memory`); every thread of a
solver shares one ``table`` array (:func:`new_table`):

======================  =======================================================
``mem[0:HDR]``          header: board constants, counters, limits, options
``mem[MOVES:]``         move lists, one row of ``MAXW`` words per ply
``table[0:T_HDR]``      table header: generation, stop flag, entry format,
                        the two regions' addressing
``table[T_HDR:]``       the far region's buckets, then the near region's: two
                        entries per bucket, each entry one or two words
``table[T_BUSY:]``      busy marks: the positions threads are searching now
======================  =======================================================

**Two regions.** Positions with at least ``table[T_NEAR]`` empty cells (the
few, costly ones near the root) live in the *far* region, the rest (most
nodes, each cheap to search again) in a small *near* region of about an
eighth of the table, at most :data:`NEAR_MAX_BYTES`: its buckets stay in the
processor's caches and address translation buffers, where a probe of a large
table costs a trip to memory. Tables under :data:`NEAR_MIN_TABLE` bytes have
the far region only.

**Entry addressing.** A position's key ``k`` (``current + mask``, or its mirror)
has at most ``B = width * (height + 1)`` bits. The table hashes it with a
bijection of the ``B``-bit integers, ``h = k * HASH_MUL mod 2^B`` (an odd
multiplier). A region of ``N`` buckets, ``2^(n-1) <= N < 2^n``, takes the
top ``n`` bits ``x`` of ``h`` to bucket ``x * N >> n`` and stores the low
``B - n + 1`` bits of ``h`` (the *residue*). At most two consecutive values of
``x`` share a bucket, and the residue holds the lowest bit of ``x``: bucket and
residue give ``h`` back, hence the key. A match is exact, never a partial-key
guess, no key needs storing in full, and a region may have any number of
buckets, so a table fills its whole budget. (Pons and Steininger get the same
from the Chinese remainder theorem with a prime number of entries; a
multiplicative bijection and a multiply-shift cost no division.)

**Busy marks.** With several threads, a thread about to search a child near
the root writes the child's key into the mark its hash selects and clears it
afterwards; a thread that finds a later move's child marked by another thread
searches the move after its other moves instead (a simplified ABDADA), so
threads split the work rather than repeat it. A mark only changes the order of
moves, never a score, so races on marks are harmless.

**Entry format.** 24 bits of data: lower bound + 32 (bits 0-5), upper bound
+ 32 (bits 6-11), best column + 1 in the canonical orientation (12-17, 0 =
none) and ply (18-23); then a *tag*: the residue and the generation.

* *packed* (``table[T_WORDS] == 1``): one word per entry, ``tag << 24 | data``,
  when the residues leave at least :data:`GEN_BITS_MIN` bits of generation
  (7x6 from 1 MB on). An entry is written and read as one 64-bit word.
* *two words* (``table[T_WORDS] == 2``, larger boards): each word carries
  the whole tag and half the data (``lower | column << 6`` and
  ``upper | ply << 6``, tag above bit 12). A reader takes an entry only when
  both words carry its tag: words of two writers racing on the same entry
  then belong to the same position, and their bounds are true bounds of it.

So the score is exact with any number of threads writing at once. The
generation (``table[T_GEN]``, between 1 and ``2^gbits - 1``) makes a new
search find an empty table without clearing it; the zero word never matches.
After ``2^gbits - 1`` generations old entries count again: they are true
bounds of their positions, so only node counts can change.

:data:`LAYOUT_VERSION` is a hash of these constants, of the bitboard
helpers the kernel compiles (:mod:`connect4.core.bits`), of its intrinsics
(:mod:`connect4.core.compiler`) and of its root's windows
(:mod:`connect4.solver.windows`). The kernel compiles it
in, and code compiled for another version is never run: numba's cache is
dropped (:mod:`connect4.solver.kernel`) and a native kernel file refused
(:mod:`connect4.solver.native`). Edit a constant here and nothing else.

>>> mem = new_memory(7, 6)
>>> int(mem[W_]), int(mem[H_]), len(mem) == MEM_WORDS
(7, 6, True)
>>> table = new_table(7, 6, 1 << 20)
>>> int(table[T_WORDS]), int(table[T_GEN]), table_entries(table)
(1, 1, 126976)
>>> int(new_table(8, 7, 1 << 20)[T_WORDS])
2
>>> f = table_format(7, 6, 1000 << 20)  # any budget is used whole
>>> f.far, f.near, 16 * (f.far + f.near) + 8 * busy_words(1000 << 20) == 1000 << 20
(63436800, 2097152, True)
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import mmap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from connect4.core import bits
from connect4.core.position import board_mask, bottom_mask

# ---------------------------------------------------------------- per-thread memory
W_ = 0  # width
H_ = 1  # height
BOTTOM = 2  # a 1 in the bottom cell of every column
BOARD = 3  # a 1 in every playable cell
OPT_SIGNAL = 4  # 1: a probe that completes sets the table's stop flag (Lazy SMP)
NOISE_PLY = 5  # OPT_NOISE applies at plies below this
NODES = 6  # nodes searched since the counter was reset
LIMIT = 7  # abort once NODES reaches this
ABORT = 8  # 1 once the search was aborted
BOOK_PLIES = 9  # probe the book at ply <= this
OPT_SYM = 10  # 1: mirror positions share a table entry
OPT_TTMOVE = 11  # 1: search the table's best move first
OPT_ETC = 12  # enhanced transposition cut-off at nodes with >= this many empty cells (0 = off)
OPT_BUCKET = 13  # 1: two-slot buckets (most work + newest); 0: one slot, always replace
OPT_ETC_AFTER = 14  # ETC only once the search has visited this many nodes
OPT_NOISE = 15  # 0: plain move order; k > 0: helper thread k jitters it (below NOISE_PLY)
ORDER = 16  # columns centre first (MAXW words)
DEFER_PLY = 48  # below this ply, a move another thread is searching waits (0 = never)
HDR = 64
MAXW = 32  # columns (a board's width, checked by the solver)
MAXPLY = 128  # move lists by ply: a board of up to 128 bits has fewer cells
MOVES = HDR
MEM_WORDS = MOVES + MAXW * MAXPLY

# ---------------------------------------------------------------- shared table
T_GEN = 0  # current generation, 1 .. 2^gbits - 1
T_STOP = 1  # 1: every search on this table stops (the first Lazy SMP thread done)
T_WORDS = 2  # words per entry: 1 (packed) or 2
T_GBITS = 3  # generation bits stored per entry
T_KMASK = 4  # 2^B - 1: the hash is taken modulo 2^B
T_TAGSHIFT = 5  # the tag starts at this bit: 24 (packed) or 12 (two words)
T_NEAR = 6  # positions with fewer empty cells than this use the near region (0: none)
T_BUSY = 7  # the busy marks' first word (after the buckets)
T_FAR_REGION = 8  # the far region's addressing (R_* words from here)
T_NEAR_REGION = 16  # the near region's addressing
T_BUSY_SHIFT = 23  # 64 - log2(number of busy marks): a hash's top bits pick a mark
T_HDR = 24  # three cache lines: the buckets that follow stay inside lines
BUSY_WORDS = 1 << 12  # busy marks (the children threads are searching): at most this many
R_BASE = 0  # index of the region's first word
R_BUCKETS = 1  # N, its number of buckets
R_XSHIFT = 2  # B - n: x = h >> R_XSHIFT
R_NBITS = 3  # n: the bucket is x * N >> n
R_RBITS = 4  # residue bits stored: B - n + 1
DATA_BITS = 24
GEN_BITS_MIN = 6  # the packed format needs this many generation bits
NEAR_EMPTY = 22  # positions with fewer empty cells use the near region
NEAR_MIN_TABLE = 16 << 20  # smaller tables have no near region
NEAR_MAX_BYTES = 32 << 20  # the near region's largest size
HUGE_PAGE = 2 << 20  # a huge page of x86-64 and most others
HASH_MUL = 0x9E3779B97F4A7C15

KERNEL_NAMES = ("7x6", "any")  # the standard board's own kernel, and the other sizes'


def kernel_name(width: int, height: int) -> str:
    """The kernel that searches a board of up to 64 bits: the standard board's own
    (its constants compiled in), else the one that reads the board from ``mem``.

    >>> kernel_name(7, 6), kernel_name(9, 5)
    ('7x6', 'any')
    """
    return "7x6" if (width, height) == (7, 6) else "any"


def check_kernel_board(kernel: str, mem_address: int) -> None:
    """Refuse to run kernel ``kernel`` on the ``mem`` at ``mem_address`` when that
    memory is another board's: a board's own kernel has the board compiled in and
    would read and write out of bounds (the kernel ``"any"`` reads it from ``mem``).

    >>> mem = new_memory(5, 4)
    >>> check_kernel_board("any", mem.ctypes.data)
    >>> check_kernel_board("7x6", mem.ctypes.data)
    Traceback (most recent call last):
    ...
    ValueError: the solver's 7x6 kernel cannot search a 5x4 board (its kernel is 'any')
    """
    if kernel == "any":
        return
    width = ctypes.c_uint64.from_address(mem_address + 8 * W_).value
    height = ctypes.c_uint64.from_address(mem_address + 8 * H_).value
    if kernel != f"{width}x{height}":
        raise ValueError(
            f"the solver's {kernel} kernel cannot search a {width}x{height} board "
            f"(its kernel is {kernel_name(width, height)!r})"
        )


NONE_SCORE = -1000  # analyze: full column
UNKNOWN_SCORE = -999  # analyze: stopped by a limit


def _aligned(words: int) -> NDArray[np.uint64]:
    """A zeroed ``uint64`` array starting on a page boundary, every page touched: in a
    private anonymous mapping of its own, backed by the kernel's huge pages where it
    offers them (``MADV_HUGEPAGE``): a table probe then seldom misses the processor's
    address translation buffers as well as its caches."""
    huge = words * 8 >= HUGE_PAGE and hasattr(mmap, "MADV_HUGEPAGE")
    pad = HUGE_PAGE if huge else 0  # room to start on a huge page's boundary
    private = {"flags": mmap.MAP_PRIVATE} if hasattr(mmap, "MAP_PRIVATE") else {}  # (not shmem)
    raw = mmap.mmap(-1, words * 8 + pad, **private)  # (-1: anonymous)
    if huge:
        with contextlib.suppress(OSError):  # (a kernel without transparent huge pages)
            raw.madvise(mmap.MADV_HUGEPAGE)
    whole = np.frombuffer(raw, dtype=np.uint64)
    skip = (-whole.ctypes.data % pad) // 8 if pad else 0
    array = whole[skip : skip + words]
    array.fill(0)  # touch every page now, not during the first searches
    return array


def table_words(width: int, height: int, nbytes: int) -> int:
    """How many words :func:`new_table` makes for a board and ``nbytes``: the header,
    the buckets and the busy flags.

    >>> table_words(7, 6, 1 << 20) == len(new_table(7, 6, 1 << 20))
    True
    """
    f = table_format(width, height, nbytes)
    return T_HDR + 2 * f.words * (f.far + f.near) + busy_words(nbytes)


def shared_zeros(count: int, dtype: type[np.generic]) -> NDArray[Any]:
    """A zeroed array of ``count`` items in an anonymous shared mapping (page-aligned),
    every page touched: processes forked later share it, not a copy-on-write copy.

    >>> shared_zeros(3, np.uint8).tolist()
    [0, 0, 0]
    """
    array = np.frombuffer(mmap.mmap(-1, count * np.dtype(dtype).itemsize), dtype=dtype)
    array.fill(0)
    return array


def _mapped(words: int) -> NDArray[np.uint64]:
    return shared_zeros(words, np.uint64)


def new_memory(width: int, height: int) -> NDArray[np.uint64]:
    """A search thread's ``mem``: the board's header and empty move lists."""
    mem = _aligned(MEM_WORDS)
    mem[W_] = width
    mem[H_] = height
    if bits.fits_word(width, height):  # (a wide board's kernel has them compiled in)
        mem[BOTTOM] = bottom_mask(width, height)
        mem[BOARD] = board_mask(width, height)
    mem[LIMIT] = 1 << 63
    mem[OPT_SYM] = 1
    mem[OPT_TTMOVE] = 1
    mem[OPT_BUCKET] = 1
    for i, c in enumerate(bits.centre_order(width)):
        mem[ORDER + i] = c
    return mem


@dataclass(frozen=True)
class TableFormat:
    """How a table of a given budget is laid out for a board.

    ``words`` per entry (1: packed, 2: two words, 4: four words on boards over
    64 bits, see :mod:`connect4.solver.wide`), buckets of the ``far`` and
    ``near`` regions (two entries each), and the generation bits each entry keeps.
    """

    words: int
    far: int
    near: int
    gbits: int


def atomic_words(words: int) -> int:
    """How many words, each read and written whole, an entry of ``words`` 64-bit words
    is made of: 1, 2, or 2 of 128 bits for a four-word entry (boards over 64 bits).

    >>> [atomic_words(w) for w in (1, 2, 4)]
    [1, 2, 2]
    """
    return min(words, 2)


def data_bits(words: int) -> int:
    """The data bits each of an entry's atomic words keeps below its tag.

    >>> [data_bits(w) for w in (1, 2, 4)]
    [24, 12, 12]
    """
    return DATA_BITS // atomic_words(words)


def busy_words(nbytes: int) -> int:
    """The number of busy marks of a table of ``nbytes``: a power of two, at most
    :data:`BUSY_WORDS` and 1/32 of the table.

    >>> busy_words(64 << 20), busy_words(1 << 12)
    (4096, 16)
    """
    return min(BUSY_WORDS, 1 << max(0, (nbytes // 256).bit_length() - 1))


def region_bits(buckets: int, key_bits: int) -> tuple[int, int]:
    """``(n, residue bits)`` of a region of ``buckets`` buckets for ``key_bits``-bit keys.

    >>> region_bits(1 << 22, 49)  # 2^22 buckets: x has 23 bits, 27 stored
    (23, 27)
    >>> region_bits(3_000_000, 49)
    (22, 28)
    """
    n = buckets.bit_length()
    return n, key_bits - n + 1


def table_format(width: int, height: int, nbytes: int) -> TableFormat:
    """The layout of the largest table within ``nbytes`` for a board: packed entries
    when they fit, a near region from :data:`NEAR_MIN_TABLE` bytes on.

    >>> table_format(7, 6, 64 << 20)  # 8 M packed entries (1 M near), 32 KB of busy marks
    TableFormat(words=1, far=3667968, near=524288, gbits=10)
    >>> table_format(8, 7, 64 << 20).words  # 64-bit keys: two words per entry
    2
    >>> table_format(8, 8, 64 << 20)  # 72-bit keys: four words (two of 128 bits) per entry
    TableFormat(words=4, far=916992, near=131072, gbits=32)
    """
    found = _format(width, height, nbytes)
    if found is not None:
        return found
    key_bits = width * (height + 1)
    if key_bits > 64:
        least = smallest_table(width, height)
        need = f"at least {_bytes(least)}" if least else "more than any machine holds"
        raise ValueError(
            f"a {_bytes(nbytes)} table is too small for exact entries on a {width}x{height} "
            f"board ({key_bits}-bit keys): it needs {need}"
        )
    raise ValueError(f"a {nbytes}-byte table is too small for a {width}x{height} board")


def _format(width: int, height: int, nbytes: int) -> TableFormat | None:
    """:func:`table_format`, or None when no entry format keeps the keys exact."""
    key_bits = width * (height + 1)
    for words in (1, 2) if key_bits <= 64 else (4,):
        bucket_bytes = 16 * words
        budget = (nbytes - 8 * busy_words(nbytes)) // bucket_bytes
        most = (1 << min(key_bits, 32)) - 1  # x * N < 2^64; no more buckets than keys
        near = 0
        if nbytes >= NEAR_MIN_TABLE:
            near = min(nbytes // 8, NEAR_MAX_BYTES) // bucket_bytes
        far = min(budget - near, most)
        near = min(near, most)
        if far < 2:
            continue
        rbits = max(region_bits(b, key_bits)[1] for b in (far, near) if b)
        gbits = 64 * words // atomic_words(words) - data_bits(words) - rbits
        if gbits >= (GEN_BITS_MIN if words == 1 else 1):
            return TableFormat(words, far, near, min(gbits, 32))
    return None


def _bytes(nbytes: int) -> str:
    """A table's size in words: ``"64 MB"``, ``"512 KB"`` or ``"100 bytes"``.

    >>> _bytes(64 << 20), _bytes(512 << 10), _bytes(100)
    ('64 MB', '512 KB', '100 bytes')
    """
    for unit, shift in (("MB", 20), ("KB", 10)):
        if nbytes >= 1 << shift:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} bytes"


def smallest_table(width: int, height: int) -> int | None:
    """The smallest table (a power of two of bytes, at most 16 TB) whose entries keep
    the board's keys exact, or None.

    >>> smallest_table(8, 8), smallest_table(16, 7) >> 20
    (4096, 1)
    """
    for shift in range(12, 45):
        if _format(width, height, 1 << shift) is not None:
            return 1 << shift
    return None


def new_table(width: int, height: int, nbytes: int, shared: bool = False) -> NDArray[np.uint64]:
    """An empty transposition table of at most ``nbytes`` for a board (generation 1);
    ``shared``: in memory shared with the processes forked afterwards (an anonymous
    shared mapping: what one writes, the others read), else in this process's own."""
    f = table_format(width, height, nbytes)
    key_bits = width * (height + 1)
    buckets_end = T_HDR + 2 * f.words * (f.far + f.near)
    table = (_mapped if shared else _aligned)(table_words(width, height, nbytes))
    table[T_BUSY] = buckets_end
    table[T_BUSY_SHIFT] = 64 - (busy_words(nbytes).bit_length() - 1)
    table[T_GEN] = 1
    table[T_WORDS] = f.words
    table[T_GBITS] = f.gbits
    table[T_KMASK] = (1 << key_bits) - 1 if key_bits <= 64 else 0  # (wide: compiled in)
    table[T_TAGSHIFT] = data_bits(f.words)
    table[T_NEAR] = NEAR_EMPTY if f.near else 0
    base = T_HDR
    for region, buckets in ((T_FAR_REGION, f.far), (T_NEAR_REGION, f.near)):
        if buckets:
            n, rbits = region_bits(buckets, key_bits)
            table[region + R_BASE] = base
            table[region + R_BUCKETS] = buckets
            table[region + R_XSHIFT] = key_bits - n
            table[region + R_NBITS] = n
            table[region + R_RBITS] = rbits
            base += 2 * f.words * buckets
    return table


def table_entries(table: NDArray[np.uint64]) -> int:
    """How many entries ``table`` holds (two per bucket, both regions)."""
    return 2 * int(table[T_FAR_REGION + R_BUCKETS] + table[T_NEAR_REGION + R_BUCKETS])


def next_generation(table: NDArray[np.uint64]) -> None:
    """Make every entry of ``table`` count as empty: one increment, and when the
    generation wraps back to 1 the entries are zeroed (else those stored ``2^g - 1``
    generations ago would match again: an 8x8 table of 64 MB has 3
    generation bits, so a benchmark's "table cleared per position" was warm after 7).

    >>> t = new_table(4, 4, 1 << 12)
    >>> t[T_HDR] = 7
    >>> t[T_GEN] = (1 << int(t[T_GBITS])) - 1
    >>> next_generation(t); int(t[T_GEN]), int(t[T_HDR])
    (1, 0)
    """
    top = (1 << int(table[T_GBITS])) - 1
    generation = int(table[T_GEN]) % top + 1
    if generation == 1:
        table[T_HDR : int(table[T_BUSY])] = 0
    table[T_GEN] = generation


def batch_runs(table: NDArray[np.uint64], n: int, fresh: bool) -> Iterator[slice]:
    """Split a batch of ``n`` searches into the runs of one kernel call each: with
    ``fresh`` the kernel starts each search on a new generation of ``table``, and no
    run goes past the last one; the wrap (and its clear) is :func:`next_generation`'s,
    here between runs. Consumed run by run, each after the kernel ran the last.

    >>> t = new_table(4, 4, 1 << 12)
    >>> top = (1 << int(t[T_GBITS])) - 1
    >>> t[T_GEN] = top - 2
    >>> runs = batch_runs(t, 5, True)
    >>> next(runs)
    slice(0, 2, None)
    >>> t[T_GEN] = top  # the kernel's two new generations
    >>> next(runs), int(t[T_GEN])
    (slice(2, 5, None), 1)
    """
    if not fresh:
        yield slice(0, n)
        return
    top = (1 << int(table[T_GBITS])) - 1
    start = 0
    while start < n:
        if int(table[T_GEN]) == top:
            next_generation(table)
        end = min(n, start + top - int(table[T_GEN]))
        yield slice(start, end)
        start = end


def _version() -> int:
    """A hash of the layout constants and of the sources the kernel compiles code from
    beside its own: the bitboard helpers, the compiler boundary (its intrinsics and
    ``uint128``) and the root's choice of windows (:mod:`connect4.solver.windows`), read
    as bytes (numba's cache of the kernel does not see them)."""
    offsets = sorted(
        (name, value) for name, value in globals().items() if name.isupper() and type(value) is int
    )
    digest = hashlib.sha256(repr(offsets).encode())
    core = Path(bits.__file__)
    for source in (core, core.with_name("compiler.py"), Path(__file__).with_name("windows.py")):
        digest.update(source.read_bytes())
    return int.from_bytes(digest.digest()[:7], "little")  # fits an int64


LAYOUT_VERSION = _version()
