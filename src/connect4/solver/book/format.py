"""Opening books: exact scores of early positions, looked up instead of searched.

A :class:`Book` maps positions of one board size to their exact score (Pons'
convention: from the side to move's point of view, larger is a faster win).
Mirror images share one entry: the key is the *canonical key*
``min(key, mirrored key)`` with ``key = current + mask`` (:meth:`Position.key`,
:func:`connect4.core.bits.canonical_key`). Keys are kept sorted in a ``uint64`` array beside an
``int8`` array of scores, which is exactly what the solver's kernel probes
inside its search (``connect4.solver.kernel``), so a position found in the book
is never searched.

Two sources of books:

* our own files (``.c4book``, any board size), written by :meth:`Book.save` and
  by ``connect4 book build`` (:mod:`connect4.solver.book.build`);
* the published 7x6 databases of the ``bitbully-databases`` package (MIT,
  Markus Thill), read by :func:`read_bitbully` and translated to our scores.

File format (version 1, little-endian)::

    offset  size  field
    0       8     magic b"C4BOOK\\r\\n"
    8       2     format version (1)
    10      1     board width
    11      1     board height
    12      1     depth: the book holds positions with at most this many stones
    13      1     flags: bit 0 = values are win/draw/loss signs only (not exact)
    14      2     length M of the metadata (UTF-8 JSON object)
    16      8     number of entries N
    24      8     length P of the compressed payload
    32      4     CRC-32 of bytes 0-31, the metadata and the payload
    36      M     metadata (source, date, build figures)
    36+M    P     zlib( key deltas as 8 byte planes (8*N bytes) + scores (N int8) )

Storing the differences of the sorted keys byte-plane by byte-plane lets zlib
pack a 7x6 book of 4.2 million positions into about 7 MB.

>>> from connect4 import Position
>>> book = Book.from_scores(7, 6, 2, {Position.from_moves("4"): -2, Position.from_moves("1"): -4})
>>> book.lookup(Position.from_moves("4")), book.lookup(Position.from_moves("7"))
(-2, -4)
>>> book.lookup(Position.from_moves("5")) is None
True
"""

from __future__ import annotations

import functools
import json
import os
import struct
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from connect4.core import bits
from connect4.core.bits import canonical_keys
from connect4.core.position import Position, check_board_size
from connect4.solver import cache

if TYPE_CHECKING:
    from connect4.solver import Solver

MAGIC = b"C4BOOK\r\n"
VERSION = 1
FLAG_WDL = 1
_HEADER = struct.Struct("<8sHBBBBHQQ")  # everything before the CRC
_CRC = struct.Struct("<I")
HEADER_SIZE = _HEADER.size + _CRC.size

Keys = npt.NDArray[np.uint64]
Scores = npt.NDArray[np.int8]


class BookError(ValueError):
    """A book file that cannot be read (missing, not a book, corrupted) or a bad book."""


# ---------------------------------------------------------------- keys
def canonical_key(position: Position) -> int:
    """``min(key, mirrored key)``: the one key a position and its mirror share.

    >>> canonical_key(Position.from_moves("7")) == canonical_key(Position.from_moves("1"))
    True
    """
    return bits.canonical_key(position.key(), position.width, position.height)


def key_plies(keys: Keys, width: int, height: int) -> npt.NDArray[np.int64]:
    """The number of stones of each position of a key array.

    A column with ``k`` stones holds a value in ``[2**k - 1, 2**(k+1) - 2]`` of
    its ``height + 1`` bits of the key, so ``k = bit_length(value + 1) - 1``.
    """
    h1 = height + 1
    column = np.uint64((1 << h1) - 1)
    total = np.zeros(keys.shape, dtype=np.int64)
    for c in range(width):
        part = ((keys >> np.uint64(c * h1)) & column) + np.uint64(1)
        for r in range(1, h1):
            total += (part >> np.uint64(r)) != 0
    return total


# ---------------------------------------------------------------- the book
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
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_board_size(self.width, self.height)
        if not 0 <= self.plies <= self.width * self.height:
            raise BookError(f"book depth {self.plies} is out of range 0-{self.width * self.height}")
        if self.keys.shape != self.values.shape:
            raise BookError("book keys and values differ in length")

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
        meta: dict[str, Any] | None = None,
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
        keys = canonical_keys(np.array(keys_list, dtype=np.uint64), width, height)
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
        meta: dict[str, Any] | None = None,
    ) -> Book:
        """A book from canonical keys (any order, duplicates allowed if they agree)."""
        order = np.argsort(keys, kind="stable")
        keys = np.ascontiguousarray(keys[order], dtype=np.uint64)
        values = np.ascontiguousarray(values[order], dtype=np.int8)
        if len(keys) > 1:
            same = keys[1:] == keys[:-1]
            if same.any():
                if np.any(values[1:][same] != values[:-1][same]):
                    bad = int(keys[1:][same & (values[1:] != values[:-1])][0])
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
        i = int(np.searchsorted(keys, np.uint64(key)))
        if i < keys.shape[0] and int(keys[i]) == key:
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

    def __contains__(self, position: object) -> bool:
        return isinstance(position, Position) and self.lookup(position) is not None

    def ply_counts(self) -> dict[int, int]:
        """How many entries the book holds for each number of stones."""
        plies, counts = np.unique(key_plies(self.keys, self.width, self.height), return_counts=True)
        return {int(p): int(n) for p, n in zip(plies, counts, strict=True)}

    def info(self) -> dict[str, Any]:
        """A JSON-ready summary: size, depth, entries per ply, score range, metadata."""
        values = self.values
        return {
            "board": f"{self.width}x{self.height}",
            "width": self.width,
            "height": self.height,
            "depth": self.plies,
            "entries": len(self),
            "kind": "win/draw/loss" if self.wdl else "exact scores",
            "entries_per_ply": self.ply_counts(),
            "wins": int((values > 0).sum()),
            "draws": int((values == 0).sum()),
            "losses": int((values < 0).sum()),
            "score_range": [int(values.min()), int(values.max())] if len(self) else None,
            "memory_bytes": int(self.keys.nbytes + self.values.nbytes),
            "meta": self.meta,
        }

    # ------------------------------------------------------------- files
    def to_bytes(self) -> bytes:
        """The book in the ``.c4book`` format (see the module docstring)."""
        deltas = np.diff(self.keys, prepend=np.uint64(0)).astype("<u8")
        planes = deltas.view(np.uint8).reshape(-1, 8).T.tobytes()
        payload = zlib.compress(planes + self.values.tobytes(), 6)
        meta = json.dumps(self.meta, sort_keys=True).encode()
        if len(meta) > 0xFFFF:
            raise BookError("book metadata is too long")
        header = _HEADER.pack(
            MAGIC,
            VERSION,
            self.width,
            self.height,
            self.plies,
            FLAG_WDL if self.wdl else 0,
            len(meta),
            len(self),
            len(payload),
        )
        crc = zlib.crc32(payload, zlib.crc32(meta, zlib.crc32(header)))
        return header + _CRC.pack(crc) + meta + payload

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the book to ``path`` (atomically: a temporary file is renamed)."""
        target = Path(path)
        temporary = target.with_name(target.name + ".tmp")
        temporary.write_bytes(self.to_bytes())
        temporary.replace(target)

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "book") -> Book:
        """Parse a ``.c4book`` image; :class:`BookError` names what is wrong."""
        if len(data) < HEADER_SIZE or data[:8] != MAGIC:
            raise BookError(f"{name} is not a connect4 book file (bad magic bytes)")
        _, version, width, height, plies, flags, meta_len, count, payload_len = _HEADER.unpack_from(
            data
        )
        if version != VERSION:
            raise BookError(
                f"{name} has book format version {version}; this reader knows {VERSION}"
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
        try:
            raw = zlib.decompress(payload)
            meta = json.loads(meta_bytes) if meta_len else {}
        except (zlib.error, ValueError) as error:
            raise BookError(f"{name} is corrupted: {error}") from None
        if len(raw) != 9 * count:
            raise BookError(f"{name} is corrupted: payload holds {len(raw)} bytes, not {9 * count}")
        planes = np.frombuffer(raw, dtype=np.uint8, count=8 * count).reshape(8, count)
        deltas = np.ascontiguousarray(planes.T).view("<u8").reshape(count)
        keys = np.cumsum(deltas, dtype=np.uint64)
        values = np.frombuffer(raw, dtype=np.int8, offset=8 * count).copy()
        try:
            return cls(width, height, plies, keys, values, bool(flags & FLAG_WDL), meta)
        except ValueError as error:
            raise BookError(f"{name}: {error}") from None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Book:
        """Read a ``.c4book`` file; :class:`BookError` if it is missing or damaged."""
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise BookError(f"cannot read book {os.fspath(path)}: {error.strerror}") from None
        return cls.from_bytes(data, name=os.fspath(path))


# ---------------------------------------------------------------- bitbully databases
BitbullyName = Literal["8-ply", "12-ply", "12-ply-dist"]
BITBULLY_DATABASES: dict[str, tuple[str, int, bool]] = {
    # name: (file inside the package, stones per position, stores distances)
    "8-ply": ("book_8ply.dat", 8, False),
    "12-ply": ("book_12ply.dat", 12, False),
    "12-ply-dist": ("book_12ply_distances.dat", 12, True),
}


def bitbully_path(name: str) -> Path:
    """The file of a packaged bitbully database (``8-ply``, ``12-ply``, ``12-ply-dist``)."""
    if name not in BITBULLY_DATABASES:
        raise BookError(
            f"unknown bitbully database {name!r}: choose one of {', '.join(BITBULLY_DATABASES)}"
        )
    try:
        root = resources.files("bitbully_databases")
    except ModuleNotFoundError:
        raise BookError("the bitbully-databases package is not installed") from None
    return Path(str(root.joinpath("assets", BITBULLY_DATABASES[name][0])))


def _decode_codes(codes: Keys, nbits: int, keys: Keys) -> None:  # pragma: no cover - jitted
    """Loop body of :func:`decode_bitbully_codes` (compiled with numba on first use)."""
    one = np.uint64(1)
    for i in range(codes.shape[0]):
        code = codes[i]
        pointer = nbits - 1
        current = np.uint64(0)
        mask = np.uint64(0)
        for column in range(7):
            for row in range(7):
                if pointer < 1 or row == 6 or (code >> np.uint64(pointer)) & one == 0:
                    pointer -= 1
                    break
                cell = one << np.uint64(column * 7 + row)
                mask |= cell
                if (code >> np.uint64(pointer - 1)) & one == 0:
                    current |= cell
                pointer -= 2
        keys[i] = current + mask


@functools.cache
def _decoder() -> Callable[[Keys, int, Keys], None]:
    from numba import njit

    decoder: Callable[[Keys, int, Keys], None] = njit(cache=True, nogil=True)(_decode_codes)
    return decoder


def decode_bitbully_codes(codes: npt.NDArray[np.uint64], nbits: int) -> Keys:
    """Position keys (``current + mask``, 7x6) of bitbully's column codes.

    A code lists the columns left to right, each bottom to top: ``10`` for a
    stone of the first player, ``11`` for the second player's, ``0`` to close
    the column (a full column is closed too); a final ``0`` pads the code to
    ``nbits`` bits. Every position in these databases has an even number of
    stones, so the first player is the side to move.

    >>> import numpy as np
    >>> code = int("100" "0" "0" "110" "000" "0", 2) << 12  # '14' on 7x6, padded to 24 bits
    >>> int(decode_bitbully_codes(np.array([code], dtype=np.uint64), 24)[0]) == (
    ...     Position.from_moves("14").key())
    True
    """
    keys = np.zeros(codes.shape, dtype=np.uint64)
    _decoder()(np.ascontiguousarray(codes, dtype=np.uint64), nbits, keys)
    return keys


def _bitbully_score(raw: npt.NDArray[np.int8], stones: int) -> Scores:
    """Our scores from bitbully's signed distances (12-ply-dist).

    A stored ``v > 0`` means the side to move (the first player) wins with the
    stone played ``100 - v`` plies from now, ``v < 0`` that it loses that many
    plies from now, ``0`` a draw. The winner then has played
    ``k = ceil((stones + 100 - |v|) / 2)`` stones, and Pons' score is
    ``+-(22 - k)`` on 7x6.
    """
    v = raw.astype(np.int64)
    distance = 100 - np.abs(v)
    winner_stones = (stones + distance + 1) // 2
    scores: Scores = (np.sign(v) * (22 - winner_stones)).astype(np.int8)
    return scores


def read_bitbully(name: str = "12-ply-dist") -> Book:
    """Translate a packaged bitbully database to a :class:`Book` (slow: ~1 s; see
    :func:`bitbully_book` for a cached copy).

    ``12-ply-dist`` gives exact scores of 4.2 million 12-stone positions
    (those where the side to move cannot win at once). ``8-ply`` and ``12-ply``
    hold only draws and losses for the side to move; every other position of
    their depth that is not over is a win. Their books are ``wdl`` books holding
    the stored positions (scores 0 and -1); :func:`wdl_lookup` applies the
    "missing means a win" rule.
    """
    path = bitbully_path(name)
    file_name, stones, distances = BITBULLY_DATABASES[name]
    width = stones // 4 + 1  # 3 bytes for 8 stones, 4 for 12
    record = width + (1 if distances else 0)
    try:
        raw = np.fromfile(path, dtype=np.uint8)
    except OSError as error:
        raise BookError(f"cannot read {path}: {error.strerror}") from None
    if raw.size % record:
        raise BookError(
            f"{path} is not a bitbully database: size {raw.size} is not a multiple of {record}"
        )
    rows = raw.reshape(-1, record)
    codes = np.zeros(rows.shape[0], dtype=np.uint64)
    for k in range(width):
        codes = (codes << np.uint64(8)) | rows[:, k].astype(np.uint64)
    if distances:
        values = _bitbully_score(rows[:, width].view(np.int8), stones)
    else:
        # the two low bits (always 0 in a code) hold 0 for a draw, 1 for a loss
        low = (codes & np.uint64(3)).astype(np.int8)
        if np.any(low > 1):
            raise BookError(f"{path}: unexpected value {int(low.max())} in a win/draw/loss record")
        values = -low
        codes &= ~np.uint64(3)
    keys = canonical_keys(decode_bitbully_codes(codes, 8 * width), 7, 6)
    meta = {
        "source": f"bitbully-databases {name} ({file_name}), MIT licence, by Markus Thill",
        "translated": "distance to end -> Pons score" if distances else "draw/loss signs",
    }
    return Book.from_arrays(7, 6, stones, keys, values, wdl=not distances, meta=meta)


def wdl_lookup(book: Book, position: Position) -> int | None:
    """Win (1) / draw (0) / loss (-1) for the side to move from a bitbully 8-/12-ply book.

    Applies the databases' rule that a position of the book's depth that is not
    over and not stored is a win for the side to move. ``None`` for positions of
    another depth or already over.
    """
    if position.ply != book.plies or position.is_over():
        return None
    value = book.lookup(position)
    return 1 if value is None else (1 if value > 0 else (0 if value == 0 else -1))


def cache_dir() -> Path:
    """Where translated databases are cached: ``$CONNECT4_CACHE_DIR`` or the user's
    cache directory (:func:`connect4.solver.cache.user_cache_dir`)."""
    return cache.user_cache_dir()


def _cached_arrays(tag: str, plies: int, wdl: bool, source: str, make: Callable[[], Book]) -> Book:
    """A 7x6 book from ``cache_dir()/TAG.{keys,values}.npy``, made by ``make()`` when absent."""
    folder = cache_dir()
    keys_file, values_file = folder / f"{tag}.keys.npy", folder / f"{tag}.values.npy"
    if keys_file.exists() and values_file.exists():
        try:
            keys = np.load(keys_file)
            values = np.load(values_file)
            if keys.dtype == np.uint64 and values.dtype == np.int8 and keys.shape == values.shape:
                return Book(7, 6, plies, keys, values, wdl, {"source": f"{source} (cached)"})
        except (OSError, ValueError):
            pass
    book = make()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for file, array in ((keys_file, book.keys), (values_file, book.values)):
            temporary = file.with_name(file.name + f".{os.getpid()}.tmp.npy")
            np.save(temporary, array)
            temporary.replace(file)
    except OSError:
        pass  # a read-only home: translate again next time
    return book


@functools.cache
def bitbully_book(name: str = "12-ply-dist") -> Book:
    """:func:`read_bitbully`, cached on disk as plain arrays so later loads take ~20 ms."""
    size = bitbully_path(name).stat().st_size
    stones = BITBULLY_DATABASES[name][1]
    return _cached_arrays(
        f"bitbully-{name}-v{VERSION}-{size}",
        stones,
        name != "12-ply-dist",
        f"bitbully-databases {name}",
        lambda: read_bitbully(name),
    )


# ---------------------------------------------------------------- shipped books
def data_book_path(width: int, height: int) -> Path | None:
    """The book shipped in ``connect4/data`` for a board size, if there is one."""
    path = Path(str(resources.files("connect4").joinpath("data", f"book_{width}x{height}.c4book")))
    return path if path.exists() else None


@functools.cache
def default_book(width: int = 7, height: int = 6) -> Book | None:
    """The book that makes play instant on a board size, or ``None`` if none ships.

    7x6: bitbully's 12-ply database with distances (exact scores at 12 stones),
    merged with the shipped 7x6 book of earlier positions if there is one. Other
    sizes: ``connect4/data/book_WxH.c4book`` built by ``connect4 book build``.
    """
    shipped = data_book_path(width, height)
    book = Book.load(shipped) if shipped is not None else None
    if (width, height) == (7, 6):
        try:
            size = bitbully_path("12-ply-dist").stat().st_size
        except (BookError, OSError):
            return book
        if book is None:
            return bitbully_book("12-ply-dist")
        crc = zlib.crc32(shipped.read_bytes()) if shipped is not None else 0
        small = book
        return _cached_arrays(
            f"default-7x6-v{VERSION}-{size}-{crc:08x}",
            12,
            False,
            "bitbully-databases 12-ply-dist + connect4/data/book_7x6.c4book",
            lambda: bitbully_book("12-ply-dist").merged(small),
        )
    return book


def load_book(spec: str, width: int = 7, height: int = 6) -> Book | None:
    """A book named on a command line: a file, ``bitbully:NAME``, ``default`` or ``none``."""
    if spec == "none":
        return None
    if spec == "default":
        return default_book(width, height)
    if spec.startswith("bitbully:"):
        return bitbully_book(spec.partition(":")[2])
    return Book.load(spec)


def exact_default_book(width: int, height: int) -> Book | None:
    """The board size's default book if it holds exact scores, else ``None``.

    Never raises: a missing, win/draw/loss-only or unreadable book only makes
    early positions slower to solve.

    >>> exact_default_book(5, 4) is None
    True
    """
    try:
        book = default_book(width, height)
    except Exception:  # a broken book must not stop play: the solver works alone
        return None
    return None if book is None or book.wdl else book


def solver_with_book(width: int, height: int, tt_megabytes: int, book: Book | None) -> Solver:
    """A :class:`connect4.solver.Solver` that probes ``book`` inside its search (if given).

    >>> from connect4 import Position
    >>> solver_with_book(4, 4, 1, None).solve(Position.from_moves("1122", 4, 4))
    0
    """
    from connect4.solver import Solver

    return Solver(width, height, tt_megabytes, book=book)
