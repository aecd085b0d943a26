"""Opening books: exact scores of early positions, looked up instead of searched.

A :class:`Book` maps positions of one board size to their exact score (Pons'
convention: from the side to move's point of view, larger is a faster win).
Mirror images share one entry: the key is the *canonical key*
``min(key, mirrored key)`` with ``key = current + mask`` (:meth:`Position.key`,
:func:`connect4.core.bits.canonical_key`). Keys are kept sorted in a ``uint64`` array beside an
``int8`` array of scores, which is exactly what the solver's kernel probes
inside its search (``connect4.solver.kernel``), so a position found in the book
is never searched. On a board over 64 bits (8x8, 10x6, ...) a key takes two
words: the array has shape ``(N, 2)``, each row the key's low word then its high
word (:func:`key_array`, :func:`key_ints`), sorted as 128-bit numbers.

Our own files (``.c4book``, any board size) are written by :meth:`Book.save`
and by ``connect4 book build`` (:mod:`connect4.solver.book.build`); the
published 7x6 databases and the books that ship with the package are read by
:mod:`connect4.solver.book.reader`.

File format (little-endian)::

    offset  size  field
    0       8     magic b"C4BOOK\\r\\n"
    8       2     format version: 1, or 2 for 16-byte keys
    10      1     board width
    11      1     board height
    12      1     depth: the book holds positions with at most this many stones
    13      1     flags: bit 0 = values are win/draw/loss signs only (not exact);
                  bit 1 = keys of 16 bytes (a board over 64 bits; version 2)
    14      2     length M of the metadata (UTF-8 JSON object)
    16      8     number of entries N
    24      8     length P of the compressed payload
    32      4     CRC-32 of bytes 0-31, the metadata and the payload
    36      M     metadata (source, date, build figures)
    36+M    P     zlib( key deltas as K byte planes (K*N bytes) + scores (N int8) )

``K``, the key's width in bytes, is 8, or 16 when bit 1 of the flags is set:
exactly on boards whose keys need more than 64 bits (a book of 8-byte keys is
still version 1, as before). Storing the differences of the sorted keys
byte-plane by byte-plane lets zlib pack a 7x6 book of 4.2 million positions
into about 7 MB.

Reading a file checks more than its checksum (a valid checksum proves only
that the bytes were not damaged since they were written): the payload must
inflate to exactly the ``9 * N`` bytes the header announces (inflating stops
as soon as it would exceed them), the metadata must be a JSON object with
fields of the right types, the keys must be sorted, unique, canonical keys of
positions of the board with at most the book's depth in stones, and every
score must be one the position can have (:func:`connect4.core.score.score_bounds`).

>>> from connect4 import Position
>>> book = Book.from_scores(7, 6, 2, {Position.from_moves("4"): -2, Position.from_moves("1"): -4})
>>> book.lookup(Position.from_moves("4")), book.lookup(Position.from_moves("7"))
(-2, -4)
>>> book.lookup(Position.from_moves("5")) is None
True
"""

from __future__ import annotations

import itertools
import json
import os
import struct
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from connect4.core import bits, score as pons
from connect4.core.bits import canonical_keys, fits_word
from connect4.core.errors import Connect4Error
from connect4.core.files import FileError, atomic_write, file_errors, open_input
from connect4.core.position import Position, check_board_size
from connect4.solver.book.keys import (
    WORD,
    Keys,
    canonical_key,
    invalid_columns,
    key_array,
    key_ints,
    key_plies,
)

MAGIC = b"C4BOOK\r\n"
VERSION = 1  # a book of 8-byte keys
WIDE_VERSION = 2  # a book of 16-byte keys (boards over 64 bits)
FLAG_WDL = 1
FLAG_WIDE = 2
KNOWN_FLAGS = FLAG_WDL | FLAG_WIDE
# A book's payload inflates at most this many times (real books: 12x for exact 7x6
# scores, 24x win/draw/loss, 43x all draws; deflate itself allows 1032x, so a small
# hostile file could claim gigabytes of entries) and never grows by more than zlib's
# worst case over the raw entries: both checked on the header, before the payload is read.
MAX_INFLATION = 64
INFLATION_SLACK = 1 << 20  # any book may inflate to 1 MB (tiny books compress best)
# the metadata fields a book may carry and their types (other fields: any JSON)
META_FIELDS: dict[str, type] = {
    "source": str,
    "created": str,
    "positions": str,
    "base_book": str,
    "translated": str,
    "rules": str,
    "solver_nodes": int,
}
MAX_BOOK_BYTES = 1 << 30  # the largest book file read (a 7x6 12-ply book is about 7 MB)
_HEADER = struct.Struct("<8sHBBBBHQQ")  # everything before the CRC
_CRC = struct.Struct("<I")
HEADER_SIZE = _HEADER.size + _CRC.size

Scores = npt.NDArray[np.int8]
Meta = dict[str, object]
"""A book's metadata: a JSON object (its known fields typed, see :data:`META_FIELDS`)."""


class BookError(Connect4Error):
    """A book file that cannot be read (missing, not a book, corrupted) or a bad book."""


# ---------------------------------------------------------------- keys
def position_from_key(key: int, width: int, height: int) -> Position:
    """The position (with a move order that reaches it) of a key ``current + mask``.

    Raises :class:`BookError` if no game still in progress reaches it.

    >>> position_from_key(Position.from_moves("4453").key(), 7, 6).key() == (
    ...     Position.from_moves("4453").key())
    True
    """
    limit = 1 << (64 if fits_word(width, height) else 128)
    keys = key_array([key], width, height) if 0 <= key < limit else None
    unreachable = BookError(
        f"key {key} is not a position reachable in a game still in progress "
        f"on a {width}x{height} board"
    )
    if keys is None or invalid_columns(keys, width, height)[0]:
        raise unreachable
    h1 = height + 1
    heights: list[int] = []
    to_move: list[int] = []  # per column: the cells of the side to move, as bits
    for c in range(width):
        value = (key >> (c * h1)) & ((1 << h1) - 1)
        stones = (value + 1).bit_length() - 1
        heights.append(stones)
        to_move.append(value - ((1 << stones) - 1))
    total = sum(heights)
    first_to_move = total % 2 == 0
    position = Position(width, height)
    failed: set[int] = set()

    def extend() -> bool:
        if position.ply == total:
            return True
        if position.mask in failed:
            return False
        first = position.ply % 2 == 0
        for c in range(width):
            h = position.heights[c]
            if h < heights[c] and bool((to_move[c] >> h) & 1) == (first == first_to_move):
                position.play(c)
                if not position.is_over() and extend():
                    return True
                position.undo()
        failed.add(position.mask)
        return False

    if not extend():
        raise unreachable
    return position


# ---------------------------------------------------------------- the book
@dataclass(frozen=True)
class BookInfo:
    """What ``connect4 book info`` reports of a book (:meth:`Book.info`); ``file_bytes``
    is the size of the file it came from, when it came from one."""

    board: str
    width: int
    height: int
    depth: int
    entries: int
    kind: str
    entries_per_ply: dict[int, int]
    wins: int
    draws: int
    losses: int
    score_range: tuple[int, int] | None
    memory_bytes: int
    meta: dict[str, object]
    file_bytes: int | None = None

    def to_json(self) -> str:
        """The summary as a JSON object (``file_bytes`` only when known)."""
        fields = asdict(self)
        if self.file_bytes is None:
            del fields["file_bytes"]
        return json.dumps(fields)


@dataclass
class Book:
    """Exact scores of positions of one board size, mirror images merged.

    ``plies`` is the book's depth: it holds (some of) the positions with at most
    that many stones. ``wdl`` books hold only the sign of the score (1 win,
    0 draw, -1 loss) and are never given to the solver as exact scores.
    """

    width: int
    height: int
    plies: int
    keys: Keys
    values: Scores
    wdl: bool = False
    meta: Meta = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_board_size(self.width, self.height)
        if not 0 <= self.plies <= self.width * self.height:
            raise BookError(f"book depth {self.plies} is out of range 0-{self.width * self.height}")
        shape = (len(self.values),) if self.narrow else (len(self.values), 2)
        if self.keys.shape != shape or self.values.ndim != 1:
            raise BookError(
                f"book keys must have shape {shape} beside {len(self.values)} values on a "
                f"{self.width}x{self.height} board, not {self.keys.shape}"
            )

    @property
    def narrow(self) -> bool:
        """True when a key fits one ``uint64`` word (else two: a board over 64 bits)."""
        return fits_word(self.width, self.height)

    def key_at(self, index: int) -> int:
        """The canonical key of entry ``index``, as a Python int."""
        row = self.keys[index]
        return int(row) if self.narrow else int(row[0]) | int(row[1]) << 64

    # ------------------------------------------------------------- building
    @classmethod
    def from_scores(
        cls,
        width: int,
        height: int,
        plies: int,
        scores: Mapping[Position, int] | Iterable[tuple[int, int]],
        *,
        wdl: bool = False,
        meta: Mapping[str, object] | None = None,
    ) -> Book:
        """A book from ``{position: score}`` or ``(key, score)`` pairs (any key, canonicalised).

        A position and its mirror image given with different scores is an error.
        """
        pairs = [(p.key(), s) for p, s in scores.items()] if isinstance(scores, Mapping) else scores
        keys_list: list[int] = []
        values_list: list[int] = []
        for key, score in pairs:
            keys_list.append(key)
            values_list.append(score)
        if fits_word(width, height):
            keys = canonical_keys(np.array(keys_list, dtype=np.uint64), width, height)
        else:
            canonical = (bits.canonical_key(k, width, height) for k in keys_list)
            keys = key_array(canonical, width, height)
        values = np.array(values_list, dtype=np.int8)
        return cls.from_arrays(width, height, plies, keys, values, wdl=wdl, meta=meta)

    @classmethod
    def from_arrays(
        cls,
        width: int,
        height: int,
        plies: int,
        keys: Keys,
        values: Scores,
        *,
        wdl: bool = False,
        meta: Mapping[str, object] | None = None,
    ) -> Book:
        """A book from canonical keys (any order, duplicates allowed if they agree; two
        words per key on a board over 64 bits, see :func:`key_array`)."""
        if keys.ndim == 2:
            order = np.lexsort((keys[:, 0], keys[:, 1]))
        else:
            order = np.argsort(keys, kind="stable")
        keys = np.ascontiguousarray(keys[order], dtype=np.uint64)
        values = np.ascontiguousarray(values[order], dtype=np.int8)
        if len(keys) > 1:
            same = keys[1:] == keys[:-1]
            if same.ndim == 2:
                same = same.all(axis=1)
            if same.any():
                if np.any(values[1:][same] != values[:-1][same]):
                    first = int(np.flatnonzero(same & (values[1:] != values[:-1]))[0]) + 1
                    bad = key_ints(keys[first : first + 1])[0]
                    raise BookError(f"conflicting scores for the position with key {bad}")
                keep = np.concatenate(([True], ~same))
                keys, values = keys[keep], values[keep]
        return cls(width, height, plies, keys, values, wdl, dict(meta or {}))

    def merged(self, other: Book) -> Book:
        """A book holding the entries of both (same board; conflicting scores are an error)."""
        if (self.width, self.height, self.wdl) != (other.width, other.height, other.wdl):
            raise BookError("only books of the same board size and kind can be merged")
        return Book.from_arrays(
            self.width,
            self.height,
            max(self.plies, other.plies),
            np.concatenate((self.keys, other.keys)),
            np.concatenate((self.values, other.values)),
            wdl=self.wdl,
            meta={**other.meta, **self.meta},
        )

    # ------------------------------------------------------------- lookup
    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def lookup_key(self, key: int) -> int | None:
        """The score stored under a canonical key, or ``None``."""
        keys = self.keys
        if not 0 <= key < 1 << (64 if self.narrow else 128):
            return None
        if self.narrow:
            i = int(np.searchsorted(keys, np.uint64(key)))
        else:  # the rows whose high word matches, then the low word among them
            high = np.uint64(key >> 64)
            first = int(np.searchsorted(keys[:, 1], high, side="left"))
            last = int(np.searchsorted(keys[:, 1], high, side="right"))
            i = first + int(np.searchsorted(keys[first:last, 0], np.uint64(key & WORD)))
        if i < keys.shape[0] and self.key_at(i) == key:
            return int(self.values[i])
        return None

    def lookup(self, position: Position) -> int | None:
        """The position's score (side to move's view; a sign for wdl books), or ``None``.

        Raises :class:`BookError` for a position of another board size.
        """
        if (position.width, position.height) != (self.width, self.height):
            raise BookError(
                f"this book is for {self.width}x{self.height} boards, "
                f"not {position.width}x{position.height}"
            )
        if position.ply > self.plies:
            return None
        return self.lookup_key(canonical_key(position))

    def __contains__(self, position: Position) -> bool:
        return self.lookup(position) is not None

    def ply_counts(self) -> dict[int, int]:
        """How many entries the book holds for each number of stones."""
        plies, counts = np.unique(key_plies(self.keys, self.width, self.height), return_counts=True)
        return {int(p): int(n) for p, n in zip(plies, counts, strict=True)}

    def info(self) -> BookInfo:
        """A summary: size, depth, entries per ply, score range, metadata."""
        values = self.values
        return BookInfo(
            board=f"{self.width}x{self.height}",
            width=self.width,
            height=self.height,
            depth=self.plies,
            entries=len(self),
            kind="win/draw/loss" if self.wdl else "exact scores",
            entries_per_ply=self.ply_counts(),
            wins=int((values > 0).sum()),
            draws=int((values == 0).sum()),
            losses=int((values < 0).sum()),
            score_range=(int(values.min()), int(values.max())) if len(self) else None,
            memory_bytes=int(self.keys.nbytes + self.values.nbytes),
            meta=dict(self.meta),
        )

    # ------------------------------------------------------------- files
    def to_bytes(self) -> bytes:
        """The book in the ``.c4book`` format (see the module docstring)."""
        planes = _key_planes(self.keys)
        payload = zlib.compress(planes + self.values.tobytes(), 6)
        meta = json.dumps(self.meta, sort_keys=True).encode()
        if len(meta) > 0xFFFF:
            raise BookError("book metadata is too long")
        header = _HEADER.pack(
            MAGIC,
            VERSION if self.narrow else WIDE_VERSION,
            self.width,
            self.height,
            self.plies,
            (FLAG_WDL if self.wdl else 0) | (0 if self.narrow else FLAG_WIDE),
            len(meta),
            len(self),
            len(payload),
        )
        crc = zlib.crc32(payload, zlib.crc32(meta, zlib.crc32(header)))
        return header + _CRC.pack(crc) + meta + payload

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the book to ``path`` (atomically: :func:`connect4.core.files.atomic_write`)."""
        atomic_write(path, self.to_bytes(), what="book")

    def check(self) -> None:
        """Raise :class:`BookError` naming the first impossible entry, if any.

        Keys: canonical keys of positions of the board, sorted, unique, with
        at most the book's depth in stones. Scores: within :func:`score_bounds`
        for the entry's number of stones (-1, 0 or 1 in a win/draw/loss book).
        """
        keys, values = self.keys, self.values
        width, height, key = self.width, self.height, self.key_at
        board = f"{width}x{height}"
        problems = np.flatnonzero(invalid_columns(keys, width, height))
        if problems.size:
            i = int(problems[0])
            raise BookError(f"entry {i}: key {key(i)} is not a position of a {board} board")
        if self.narrow:
            unsorted = keys[1:] <= keys[:-1]
            mirrored = canonical_keys(keys, width, height) != keys
        else:
            ints = key_ints(keys)
            unsorted = np.array([b <= a for a, b in itertools.pairwise(ints)], dtype=np.bool_)
            mirrored = np.array(
                [bits.canonical_key(k, width, height) != k for k in ints], dtype=np.bool_
            )
        problems = np.flatnonzero(unsorted)
        if problems.size:
            i = int(problems[0]) + 1
            raise BookError(
                f"keys are not sorted and unique: entry {i} (key {key(i)}) follows key {key(i - 1)}"
            )
        problems = np.flatnonzero(mirrored)
        if problems.size:
            i = int(problems[0])
            raise BookError(
                f"entry {i}: key {key(i)} is not canonical (its mirror image's key is smaller)"
            )
        stones = key_plies(keys, self.width, self.height)
        problems = np.flatnonzero(stones > self.plies)
        if problems.size:
            i = int(problems[0])
            raise BookError(
                f"entry {i} holds {_stones(int(stones[i]))}, more than the book's depth "
                f"{self.plies}"
            )
        scores = values.astype(np.int64)
        if self.wdl:
            low, high = np.full_like(scores, -1), np.full_like(scores, 1)
            where = "for a win/draw/loss book"
        else:
            low, high = pons.score_bounds(self.width * self.height, stones)
            where = f"for a {board} board"
        problems = np.flatnonzero((scores < low) | (scores > high))
        if problems.size:
            i = int(problems[0])
            raise BookError(
                f"entry {i} (a position with {_stones(int(stones[i]))}) has score "
                f"{int(scores[i])}, outside [{int(low[i])}, {int(high[i])}] {where}"
            )

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "book") -> Book:
        """Parse a ``.c4book`` image and check what it holds; :class:`BookError` names
        what is wrong."""
        if not data:
            raise BookError(f"{name} is empty, not a connect4 book file")
        if data[: len(MAGIC)] != MAGIC[: len(data)]:
            raise BookError(f"{name} is not a connect4 book file (bad magic bytes)")
        if len(data) < HEADER_SIZE:
            raise BookError(
                f"{name} is truncated: {len(data)} bytes, shorter than the "
                f"{HEADER_SIZE}-byte header of a book"
            )
        _, version, width, height, plies, flags, meta_len, count, payload_len = _HEADER.unpack_from(
            data
        )
        if version not in (VERSION, WIDE_VERSION):
            raise BookError(
                f"{name} has book format version {version}; this reader knows "
                f"{VERSION} and {WIDE_VERSION}"
            )
        expected = HEADER_SIZE + meta_len + payload_len
        if len(data) != expected:
            raise BookError(
                f"{name} is truncated or padded: {len(data)} bytes, the header says {expected}"
            )
        (stored_crc,) = _CRC.unpack_from(data, _HEADER.size)
        meta_bytes = data[HEADER_SIZE : HEADER_SIZE + meta_len]
        payload = data[HEADER_SIZE + meta_len :]
        crc = zlib.crc32(payload, zlib.crc32(meta_bytes, zlib.crc32(data[: _HEADER.size])))
        if crc != stored_crc:
            raise BookError(
                f"{name} is corrupted: checksum mismatch (stored {stored_crc:08x}, "
                f"computed {crc:08x})"
            )

        def corrupted(problem: str) -> BookError:
            return BookError(f"{name} is corrupted: {problem}")

        try:
            check_board_size(width, height)
        except ValueError as error:
            raise corrupted(str(error)) from None
        if flags & ~KNOWN_FLAGS:
            raise corrupted(f"unknown flags 0x{flags & ~KNOWN_FLAGS:02x} in the header")
        wide = not fits_word(width, height)
        if bool(flags & FLAG_WIDE) != wide or (version == WIDE_VERSION) != wide:
            raise corrupted(
                f"a {width}x{height} board needs {16 if wide else 8}-byte keys (format version "
                f"{WIDE_VERSION if wide else VERSION}), the header says "
                f"{16 if flags & FLAG_WIDE else 8}-byte keys (version {version})"
            )
        key_bytes = 16 if wide else 8
        meta = _read_meta(meta_bytes, corrupted)
        raw_size = _check_payload_size(name, count, payload_len, key_bytes)
        inflater = zlib.decompressobj()
        try:  # never inflate more than the header's entries need
            raw = inflater.decompress(payload, raw_size + 1)
        except zlib.error as error:
            raise corrupted(str(error)) from None
        if len(raw) > raw_size:
            raise corrupted(
                f"payload inflates to more than the {raw_size} bytes "
                f"{'its 1 entry needs' if count == 1 else f'its {count} entries need'}"
            )
        if not inflater.eof:
            raise corrupted("the compressed payload is cut short")
        if inflater.unused_data:
            raise corrupted("data after the end of the compressed payload")
        if len(raw) != raw_size:
            raise corrupted(f"payload holds {len(raw)} bytes, not {raw_size}")
        keys = _keys_from_planes(raw, count, width, height)
        values = np.frombuffer(raw, dtype=np.int8, offset=key_bytes * count).copy()
        try:
            book = cls(width, height, plies, keys, values, bool(flags & FLAG_WDL), meta)
            book.check()
        except ValueError as error:
            raise corrupted(str(error)) from None
        return book

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Book:
        """Read a ``.c4book`` file; :class:`BookError` if it is missing or damaged.

        The header is read first: a file that is not a book, or whose size is
        not the one its header declares, is refused before the rest is read
        (at most :data:`MAX_BOOK_BYTES`).
        """
        name = os.fspath(path)
        try:
            with open_input(path, what="book", max_bytes=MAX_BOOK_BYTES) as file:
                size = os.fstat(file.fileno()).st_size
                with file_errors(path, "book", "read"):
                    head = file.read(HEADER_SIZE)
                    if len(head) == HEADER_SIZE and head[:8] == MAGIC:
                        meta_len, count, payload_len = _HEADER.unpack_from(head)[-3:]
                        expected = HEADER_SIZE + meta_len + payload_len
                        if size != expected:
                            raise BookError(
                                f"{name} is truncated or padded: {size} bytes, "
                                f"the header says {expected}"
                            )
                        width, height = _HEADER.unpack_from(head)[2:4]
                        key_bytes = 8 if fits_word(width, height) else 16
                        _check_payload_size(name, count, payload_len, key_bytes)
                        head += file.read(size - HEADER_SIZE + 1)
        except FileError as error:
            raise BookError(str(error)) from None
        return cls.from_bytes(head, name=name)


def is_book_file(file: BinaryIO) -> str | None:
    """``None`` when a file starts as a ``.c4book`` does (its magic bytes), else why not:
    how a build that is resumed recognises the book it replaces.

    >>> import io
    >>> is_book_file(io.BytesIO(MAGIC + bytes(40))), is_book_file(io.BytesIO(b"notes"))
    (None, 'it is not a connect4 book file (bad magic bytes)')
    """
    if file.read(len(MAGIC)) == MAGIC:
        return None
    return "it is not a connect4 book file (bad magic bytes)"


def _key_planes(keys: Keys) -> bytes:
    """The differences of sorted keys as byte planes (8, or 16 for two-word keys): the
    low byte of every difference first."""
    if keys.ndim == 1:
        deltas = np.diff(keys, prepend=np.uint64(0)).astype("<u8")
        return deltas.view(np.uint8).reshape(-1, 8).T.tobytes()
    low, high = keys[:, 0], keys[:, 1]
    previous_low = np.concatenate((np.zeros(1, np.uint64), low))[:-1]
    previous_high = np.concatenate((np.zeros(1, np.uint64), high))[:-1]
    borrow = (low < previous_low).astype(np.uint64)
    deltas = np.stack((low - previous_low, high - previous_high - borrow), axis=1).astype("<u8")
    return np.ascontiguousarray(deltas).view(np.uint8).reshape(-1, 16).T.tobytes()


def _keys_from_planes(raw: bytes, count: int, width: int, height: int) -> Keys:
    """The keys :func:`_key_planes` wrote (the running sums of the differences)."""
    if fits_word(width, height):
        planes = np.frombuffer(raw, dtype=np.uint8, count=8 * count).reshape(8, count)
        deltas = np.ascontiguousarray(planes.T).view("<u8").reshape(count)
        return np.cumsum(deltas, dtype=np.uint64)
    planes = np.frombuffer(raw, dtype=np.uint8, count=16 * count).reshape(16, count)
    words = np.ascontiguousarray(planes.T).view("<u8").reshape(count, 2).tolist()
    total = 0
    keys: list[int] = []
    for low, high in words:
        total = (total + (low | high << 64)) & ((1 << 128) - 1)
        keys.append(total)
    return key_array(keys, width, height)


def _check_payload_size(name: str, count: int, payload_len: int, key_bytes: int = 8) -> int:
    """The raw size of ``count`` entries of ``key_bytes``-byte keys, after checking that
    ``payload_len`` compressed bytes can hold them (see :data:`MAX_INFLATION`);
    :class:`BookError` if not."""
    raw_size = (key_bytes + 1) * count
    if raw_size > MAX_INFLATION * payload_len + INFLATION_SLACK:
        raise BookError(
            f"{name} is corrupted: the header's {count} entries cannot fit in "
            f"{payload_len} compressed bytes"
        )
    if payload_len > raw_size + raw_size // 1000 + 1024:  # zlib's worst case, with room
        raise BookError(
            f"{name} is corrupted: {payload_len} compressed bytes are more than the "
            f"header's {count} entries need"
        )
    return raw_size


def _stones(count: int) -> str:
    return "1 stone" if count == 1 else f"{count} stones"


_JSON_TYPES = (
    (bool, "a boolean"),
    (int, "a number"),
    (float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
)


def _json_type(value: object) -> str:
    """What a decoded JSON value is, in words (``null`` for ``None``)."""
    for kind, words in _JSON_TYPES:
        if isinstance(value, kind):
            return words
    return "null"


def _read_meta(data: bytes, corrupted: Callable[[str], BookError]) -> Meta:
    """The metadata: a JSON object whose known fields (:data:`META_FIELDS`) have their types."""
    if not data:
        return {}
    try:
        meta = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise corrupted("metadata is not UTF-8") from None
    except ValueError as error:
        raise corrupted(f"metadata is not JSON ({error})") from None
    if not isinstance(meta, dict):
        raise corrupted(f"metadata is a JSON {_json_type(meta).split()[-1]}, not an object")
    for field_name, kind in META_FIELDS.items():
        if field_name not in meta:
            continue
        value = meta[field_name]
        if isinstance(value, bool) or not isinstance(value, kind):
            wanted = "a string" if kind is str else "an integer"
            raise corrupted(f"metadata field {field_name!r} is {_json_type(value)}, not {wanted}")
    return meta
