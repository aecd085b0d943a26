"""The ``.c4book`` file format: an opening book as bytes, and bytes as a book's parts.

:func:`encode` writes what a :class:`~connect4.solver.book.table.Book` holds (its
``save`` and ``to_bytes``); :func:`decode` parses an image and checks everything the
file itself can prove, and :func:`read_image` reads a file's image after checking
its header; the book's entries are then checked by ``Book.check``.

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

>>> import numpy as np
>>> keys = np.array([3, 9], dtype=np.uint64)
>>> image = encode(7, 6, 2, keys, np.array([-2, 1], dtype=np.int8), wdl=False, meta={})
>>> parts = decode(image, "demo")
>>> parts.keys.tolist(), parts.values.tolist(), len(image)
([3, 9], [-2, 1], 52)
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from connect4.core.bits import fits_word
from connect4.core.errors import Connect4Error
from connect4.core.files import FileError, file_errors, open_input
from connect4.core.position import check_board_size
from connect4.solver.book.keys import Keys, key_array

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
MAX_META_BYTES = 0xFFFF  # the header keeps the metadata's length in 16 bits
_CRC = struct.Struct("<I")
HEADER_SIZE = _HEADER.size + _CRC.size

Scores = npt.NDArray[np.int8]
Meta = dict[str, object]
"""A book's metadata: a JSON object (its known fields typed, see :data:`META_FIELDS`)."""


class BookError(Connect4Error):
    """A book file that cannot be read (missing, not a book, corrupted) or a bad book."""


@dataclass(frozen=True)
class BookImage:
    """What a ``.c4book`` image holds, its header and payload checked (:func:`decode`);
    the entries are checked once they make a book (``Book.check``)."""

    width: int
    height: int
    plies: int
    keys: Keys
    values: Scores
    wdl: bool
    meta: Meta


def encode(
    width: int,
    height: int,
    plies: int,
    keys: Keys,
    values: Scores,
    *,
    wdl: bool,
    meta: Meta,
) -> bytes:
    """A book's sorted canonical keys and scores in the ``.c4book`` format."""
    narrow = fits_word(width, height)
    planes = _key_planes(keys)
    payload = zlib.compress(planes + values.tobytes(), 6)
    meta_bytes = json.dumps(meta, sort_keys=True).encode()
    if len(meta_bytes) > MAX_META_BYTES:
        raise BookError(
            f"the book's metadata is {len(meta_bytes):,} bytes of JSON, over the "
            f"{MAX_META_BYTES:,} a .c4book holds: nothing was written"
        )
    header = _HEADER.pack(
        MAGIC,
        VERSION if narrow else WIDE_VERSION,
        width,
        height,
        plies,
        (FLAG_WDL if wdl else 0) | (0 if narrow else FLAG_WIDE),
        len(meta_bytes),
        len(values),
        len(payload),
    )
    crc = zlib.crc32(payload, zlib.crc32(meta_bytes, zlib.crc32(header)))
    return header + _CRC.pack(crc) + meta_bytes + payload


def decode(data: bytes, name: str = "book") -> BookImage:
    """Parse a ``.c4book`` image, checking its header, checksum, metadata and payload;
    :class:`BookError` names what is wrong."""
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
            f"{name} is corrupted: checksum mismatch (stored {stored_crc:08x}, computed {crc:08x})"
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
    return BookImage(width, height, plies, keys, values, bool(flags & FLAG_WDL), meta)


def read_image(path: str | os.PathLike[str]) -> bytes:
    """The image of a ``.c4book`` file; :class:`BookError` if it is missing or cannot be a
    book's.

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
    return head


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
