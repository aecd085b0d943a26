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
word (:func:`~connect4.solver.book.keys.key_array`,
:func:`~connect4.solver.book.keys.key_ints`), sorted as 128-bit numbers.

Our own files (``.c4book``, any board size, :mod:`connect4.solver.book.format`)
are written by :meth:`Book.save` and by ``connect4 book build``
(:mod:`connect4.solver.book.build`) and read by :meth:`Book.load`, which checks
every entry (:meth:`Book.check`); the published 7x6 databases and the books that
ship with the package are read by :mod:`connect4.solver.book.reader`.

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
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field

import numpy as np

from connect4.core import bits, score as pons
from connect4.core.bits import canonical_keys, fits_word
from connect4.core.files import atomic_write
from connect4.core.position import Position, check_board_size
from connect4.solver.book.format import BookError, Meta, Scores, decode, encode, read_image
from connect4.solver.book.keys import (
    WORD,
    Keys,
    canonical_key,
    invalid_columns,
    key_array,
    key_ints,
    key_plies,
)


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
        """The book in the ``.c4book`` format (:func:`connect4.solver.book.format.encode`)."""
        return encode(
            self.width,
            self.height,
            self.plies,
            self.keys,
            self.values,
            wdl=self.wdl,
            meta=self.meta,
        )

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
        """Parse a ``.c4book`` image (:func:`connect4.solver.book.format.decode`) and
        check what it holds; :class:`BookError` names what is wrong."""
        image = decode(data, name)
        try:
            book = cls(
                image.width,
                image.height,
                image.plies,
                image.keys,
                image.values,
                image.wdl,
                image.meta,
            )
            book.check()
        except ValueError as error:
            raise BookError(f"{name} is corrupted: {error}") from None
        return book

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Book:
        """Read a ``.c4book`` file; :class:`BookError` if it is missing or damaged.

        The header is read first: a file that is not a book, or whose size is
        not the one its header declares, is refused before the rest is read
        (:func:`connect4.solver.book.format.read_image`).
        """
        return cls.from_bytes(read_image(path), name=os.fspath(path))


def _stones(count: int) -> str:
    return "1 stone" if count == 1 else f"{count} stones"
