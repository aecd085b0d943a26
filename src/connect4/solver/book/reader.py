"""The one way to a book: :func:`load_book`, and the books it reads from outside the builder.

:func:`load_book` takes what a user or a caller names -- ``default`` (the board
size's shipped book), ``none``, a ``.c4book`` file, ``bitbully:NAME`` (a published
7x6 database) or a loaded :class:`Book` -- and holds the one failure policy:

* a book named explicitly (a file, a database, a book object) that cannot be
  read, or does not fit the solver when ``exact`` asks for that, is a
  :class:`BookError` naming it and saying why;
* the shipped default book, when it cannot be read, is left out: one line on
  stderr says so (once per process and board size) and the solver searches
  alone -- slower on early positions, the same scores. A board size with no
  shipped book has none, silently.

Underneath it, the formats' parsers: :meth:`Book.load` for ``.c4book`` files and
:func:`read_bitbully` for the published databases of the ``bitbully-databases``
package (MIT, Markus Thill), translated to our scores and cached as plain
arrays in the cache directory (``CONNECT4_CACHE_DIR``).

>>> load_book("default", 7, 6).plies
12
>>> load_book("none") is None
True
"""

from __future__ import annotations

import functools
import os
import threading
import zlib
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import BinaryIO, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from connect4.core import cache
from connect4.core.bits import canonical_keys
from connect4.core.errors import Connect4Error, clip, unknown_choice
from connect4.core.files import FileError, atomic_write, open_input, read_input_bytes
from connect4.core.position import Position
from connect4.core.score import win_score
from connect4.solver.backend import note
from connect4.solver.book.format import MAX_BOOK_BYTES, VERSION, BookError, Scores
from connect4.solver.book.keys import Keys
from connect4.solver.book.table import Book
from connect4.solver.checks import DEFAULT_BOOK

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
        raise BookError(unknown_choice("bitbully database", name, BITBULLY_DATABASES))
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
    plies from now, ``0`` a draw: the game ends with stone number
    ``stones + 100 - |v|``, which gives Pons' score (:func:`connect4.core.score.win_score`).
    """
    v = raw.astype(np.int64)
    end_stone = stones + 100 - np.abs(v)
    scores: Scores = (np.sign(v) * win_score(7 * 6, end_stone - 1)).astype(np.int8)
    return scores


def read_bitbully(name: str = "12-ply-dist") -> Book:
    """Translate a packaged bitbully database to a :class:`Book` (slow: ~1 s;
    ``load_book("bitbully:NAME")`` loads a cached copy).

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
        raw = np.frombuffer(
            read_input_bytes(path, what="bitbully database", max_bytes=MAX_BOOK_BYTES), np.uint8
        )
    except FileError as error:
        raise BookError(str(error)) from None
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
    cache directory (:func:`connect4.core.cache.cache_root`)."""
    return cache.cache_root()


def _cached_arrays(tag: str, plies: int, wdl: bool, source: str, make: Callable[[], Book]) -> Book:
    """A 7x6 book from ``cache_dir()/TAG.{keys,values}.npy``, made by ``make()`` when absent."""
    folder = cache_dir()
    keys_file, values_file = folder / f"{tag}.keys.npy", folder / f"{tag}.values.npy"
    if keys_file.exists() and values_file.exists():
        try:
            keys, values = (_load_array(keys_file), _load_array(values_file))
            if keys.dtype == np.uint64 and values.dtype == np.int8 and keys.shape == values.shape:
                arrays = np.asarray(keys, np.uint64), np.asarray(values, np.int8)  # no copies
                return Book(7, 6, plies, *arrays, wdl, {"source": f"{source} (cached)"})
        except (OSError, ValueError):  # FileError included: a damaged cache is made again
            pass
    book = make()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for file, array in ((keys_file, book.keys), (values_file, book.values)):
            atomic_write(file, functools.partial(_save_array, array=array), what="book cache")
    except (OSError, FileError):
        pass  # a read-only home: translate again next time
    return book


def _load_array(path: Path) -> npt.NDArray[np.generic]:
    """One ``.npy`` array of the cache (at most :data:`MAX_BOOK_BYTES`, no pickles)."""
    with open_input(path, what="book cache", max_bytes=MAX_BOOK_BYTES) as file:
        array: npt.NDArray[np.generic] = np.load(file, allow_pickle=False)
    return array


def _save_array(file: BinaryIO, array: npt.NDArray[np.generic]) -> None:
    np.save(file, array, allow_pickle=False)


@functools.cache
def _bitbully_book(name: str) -> Book:
    """:func:`read_bitbully`, cached on disk as plain arrays so later loads take ~20 ms."""
    path = bitbully_path(name)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise BookError(
            f"bitbully database {name}: {path} cannot be read ({error.strerror})"
        ) from None
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
def _default_book(width: int, height: int) -> Book | None:
    """The book that makes play instant on a board size, or ``None`` if none ships;
    :class:`BookError` or :class:`OSError` when a shipped one cannot be read.

    7x6: bitbully's 12-ply database with distances (exact scores at 12 stones),
    merged with the shipped 7x6 book of earlier positions. Other sizes:
    ``connect4/data/book_WxH.c4book`` built by ``connect4 book build``.
    """
    shipped = data_book_path(width, height)
    book = Book.load(shipped) if shipped is not None else None
    if (width, height) != (7, 6):
        return book
    try:
        size = bitbully_path("12-ply-dist").stat().st_size
    except (BookError, OSError) as error:
        if book is not None:  # cached: said once
            note(f"the 7x6 opening book holds its first {book.plies} plies only: {error}")
        return book
    if book is None:
        return _bitbully_book("12-ply-dist")
    crc = 0
    if shipped is not None:
        crc = zlib.crc32(read_input_bytes(shipped, what="book", max_bytes=MAX_BOOK_BYTES))
    small = book
    return _cached_arrays(
        f"default-7x6-v{VERSION}-{size}-{crc:08x}",
        12,
        False,
        "bitbully-databases 12-ply-dist + connect4/data/book_7x6.c4book",
        lambda: _bitbully_book("12-ply-dist").merged(small),
    )


_default_lock = threading.Lock()  # threads asking at once load a default book once
_unusable: dict[tuple[int, int], str] = {}  # board size -> why its default book is left out


def _usable_default(width: int, height: int, exact: bool) -> Book | None:
    """The board size's default book, or ``None`` (saying why once) when it cannot be used."""
    with _default_lock:
        if (width, height) in _unusable:
            return None
        try:
            book = _default_book(width, height)
            if book is not None and exact:
                _check_exact(book, "default book", width, height, "the default book", "solved")
            return book
        except (Connect4Error, OSError) as error:
            why = str(error)
            if isinstance(error, OSError) and not isinstance(error, Connect4Error):
                why = f"{error.filename or 'a file'}: {error.strerror or error}"
            _unusable[(width, height)] = why
    note(
        f"the {width}x{height} board's shipped opening book cannot be used ({why}); solving "
        "without it: the same scores, slower on early positions (reinstall connect4 to restore it)"
    )
    return None


BookSpec: TypeAlias = str | os.PathLike[str] | Book | None
"""What names a book: ``default``, ``none`` (or ``None``), a ``.c4book`` file,
``bitbully:8-ply|12-ply|12-ply-dist``, or a :class:`Book` already loaded."""


def load_book(
    spec: BookSpec,
    width: int = 7,
    height: int = 6,
    *,
    exact: bool = False,
    role: str = "book",
    doing: str = "solved",
) -> Book | None:
    """The book ``spec`` names (see :data:`BookSpec`), under the module's one failure policy.

    ``default`` is the board size's shipped book: ``None`` when none ships, and
    when one cannot be read (said once on stderr). Anything named explicitly
    that cannot be read is a :class:`BookError` naming it and why. ``exact``
    checks that the book fits exact solving on the ``width`` x ``height`` board
    (its size, the standard rules, exact scores rather than win/draw/loss
    signs); ``role`` and ``doing`` word that message (``base book ... not the
    5x4 board being built``). Without ``exact`` a named book of any size loads.

    >>> load_book("default", 6, 5, exact=True).plies
    8
    >>> load_book("bitbully:12-ply", 7, 6, exact=True)
    Traceback (most recent call last):
    ...
    connect4.solver.book.format.BookError: book bitbully:12-ply holds win/draw/loss signs only, \
not the exact scores the solver needs
    """
    if spec is None or spec == "none":
        return None
    if isinstance(spec, Book):
        book, name = spec, f"the {role}"
    elif spec == DEFAULT_BOOK:
        return _usable_default(width, height, exact)
    elif isinstance(spec, str) and spec.startswith("bitbully:"):
        book, name = _bitbully_book(spec.partition(":")[2]), f"{role} {spec}"
    elif isinstance(spec, str | os.PathLike):
        book, name = Book.load(spec), f"{role} {os.fspath(spec)}"
    else:
        raise BookError(
            f"a {role} is default, none, a file, bitbully:NAME or a loaded "
            f"connect4.solver.book.Book, not {clip(repr(spec))}"
        )
    if exact:
        _check_exact(book, name, width, height, role, doing)
    return book


def _check_exact(book: Book, name: str, width: int, height: int, role: str, doing: str) -> None:
    """:class:`BookError` unless ``book`` holds exact standard-rules scores of the board."""
    if (book.width, book.height) != (width, height):
        raise BookError(
            f"{name} is for {book.width}x{book.height} boards, "
            f"not the {width}x{height} board being {doing}"
        )
    rules = book.meta.get("rules", "standard")
    if rules != "standard":
        raise BookError(f"{name} is for {rules} rules; the solver handles the standard rules only")
    if book.wdl:
        raise BookError(
            f"{name} holds win/draw/loss signs only, not the exact scores the solver needs"
        )
