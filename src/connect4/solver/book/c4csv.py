"""c4's published opening book: its rows read, its position hashes decoded.

ChristopheSteininger/c4 publishes ``data/book-8x7.csv``: every 8x7 position
of 4 to 6 stones (mirror images once) with its best move and exact score, one
``hash,move,score`` row each after a header line (boards over 64 bits write
the hash as two numbers, ``high,low``).

The hash (c4's ``Position::hash``) uses our bit layout (Pons': ``height + 1``
bits a column, bottom cell first): a 1 on every stone of the side to move, a
1 just above each column's top stone (``mask + bottom``), and a 1 on every
*dead* stone (one that can take part in no four whatever is played; c4 counts
it as the side to move's, so the hash does not depend on who owns it). Of a
position and its mirror image the smaller hash is kept; the row's move is a
0-based column of the position the hash shows.

Decoding reads each column's top 1 as the column's height, the bits below it
as the stones (1: the side to move's or dead, 0: the opponent's); the stone
count gives the side to move. Where the side to move has more stones than its
turn allows, that many of them were the opponent's dead stones: every choice
of them is tried, and the one whose hash (computed again with c4's dead-stone
rules, :func:`dead_stones`) is the row's is the position. Every decoded
position is checked: a legal board (a move order reaches it), the game not
over, the hash canonical, and the row's move a legal column.

Scores: c4's score of a win is ``1 + (cells - n) // 2`` where ``n`` is the
number of stones once the winning stone is down, which is Pons' (and our)
``(cells + 1 - stones) // 2`` with ``stones = n - 1`` stones before it; a loss
is its negation, a draw 0, all from the side to move. The row's score is ours
unchanged.

>>> from connect4 import Position
>>> p = Position.from_moves("4455", 8, 7)
>>> h, mirrored = c4_hash(p)
>>> decode_hash(h, 8, 7).moves in ("4455", "5544", "4545", "5454")
True
>>> row = C4Row(line=2, hash=72340181428011306, move=3, score=8)
>>> entry = decode_row(row)
>>> entry.position.ply, entry.position.to_move, entry.dead
(6, 1, 0)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from connect4.core.position import Position, bottom_mask
from connect4.solver.book.format import BookError

__all__ = [
    "C4Entry",
    "C4Row",
    "c4_hash",
    "dead_stones",
    "decode_hash",
    "decode_row",
    "mirror_bits",
    "read_c4_book",
]

_HEADER = "hash,move,score"
MAX_DEAD_CHOICES = 100_000  # ways of choosing the opponent's dead stones tried at most


@dataclass(frozen=True)
class C4Row:
    """One row of c4's book as written: its line number in the file (the header
    is line 1), the hash, the best move (0-based column of the hash's position)
    and the exact score (the side to move's, Pons' convention)."""

    line: int
    hash: int
    move: int
    score: int


@dataclass(frozen=True)
class C4Entry:
    """A decoded row: the position its hash shows and how many of the stones
    the hash counted as the side to move's were the opponent's dead stones."""

    row: C4Row
    position: Position
    dead: int


def _board_word(width: int, height: int) -> int:
    """All ones over the integer c4 keeps a board in (64 bits, or 128 above)."""
    bits = 64 if width * (height + 1) <= 64 else 128
    return (1 << bits) - 1


def _valid_cells(width: int, height: int) -> int:
    """A 1 on every playable cell (no sentinel row)."""
    column = (1 << height) - 1
    return sum(column << (c * (height + 1)) for c in range(width))


def mirror_bits(bits: int, width: int, height: int) -> int:
    """``bits`` with the columns in the opposite order (the board's mirror image).

    >>> mirror_bits(0b1, 8, 7) == 1 << 56
    True
    """
    step = height + 1
    column = (1 << step) - 1
    out = 0
    for c in range(width):
        out |= ((bits >> (c * step)) & column) << ((width - 1 - c) * step)
    return out


def _too_short(valid: int, shift: int) -> int:
    """Cells of no four in one direction (a diagonal near a corner)."""
    pairs = (valid >> shift) & valid
    triples = (pairs >> shift) & valid
    quads = (triples >> shift) & valid
    quads_shifted = quads | (quads << shift)
    return valid & ~(quads_shifted | (quads_shifted << 2 * shift))


def _dead_in_direction(b0: int, b1: int, valid: int, word: int, shift: int) -> int:
    """c4's stones that are dead in one direction: covered by enough stones, or
    pinned against the edge, plus the cells of no four in that direction."""
    border = word & ~(((valid << shift) & valid) & ((valid >> shift) & valid))
    played = b0 | b1
    empty = valid & ~played
    uncovered = ((empty >> shift) & played) | ((empty << shift) & played)
    covered_by_1 = ((uncovered >> shift) & played) | ((uncovered << shift) & played)
    pairs = ((b0 >> shift) & b0) | ((b1 >> shift) & b1)
    covered_by_pair = ((covered_by_1 >> shift) & (pairs >> shift)) | (
        (covered_by_1 << shift) & (pairs << 2 * shift)
    )
    covered = played & ~uncovered & ~covered_by_1 & ~covered_by_pair
    between = ((b0 >> shift) & (b1 << shift)) | ((b1 >> shift) & (b0 << shift))
    pinned = border & played & ((between >> 2 * shift) | (between << 2 * shift))
    return (covered | pinned | _too_short(valid, shift)) & word


def dead_stones(b0: int, b1: int, width: int, height: int) -> int:
    """c4's dead stones of a position (``b0``: the side to move's stones, ``b1``:
    the opponent's): the cells dead in all four directions.

    >>> dead_stones(0, 0, 8, 7)
    0
    """
    valid = _valid_cells(width, height)
    word = _board_word(width, height)
    dead = word
    for shift in (1, height + 1, height + 2, height):  # c4's order; 0 ends it early
        dead &= _dead_in_direction(b0, b1, valid, word, shift)
        if not dead:
            return 0
    return dead


def c4_hash(position: Position) -> tuple[int, bool]:
    """c4's hash of ``position`` and whether it is its mirror image's (the smaller
    of the two is the hash).

    >>> from connect4 import Position
    >>> c4_hash(Position(8, 7))
    (72340172838076673, False)
    """
    width, height = position.width, position.height
    b0 = position.current
    b1 = position.mask ^ b0
    dead = dead_stones(b0, b1, width, height)
    value = b0 | dead | (position.mask + bottom_mask(width, height))
    mirrored = mirror_bits(value, width, height)
    return (mirrored, True) if mirrored < value else (value, False)


def _columns(value: int, width: int, height: int) -> list[list[int]]:
    """Each column's stones bottom first, 1 where the hash has a 1 (the side to
    move's or a dead stone), 0 where it has a 0 (the opponent's)."""
    step = height + 1
    if value < 0 or value >> (width * step):
        raise BookError(f"hash {value} has bits outside a {width}x{height} board")
    columns = []
    for c in range(width):
        bits = (value >> (c * step)) & ((1 << step) - 1)
        if not bits:
            raise BookError(f"hash {value}: column {c + 1} has no top marker")
        top = bits.bit_length() - 1
        columns.append([(bits >> row) & 1 for row in range(top)])
    return columns


def _position(columns: list[list[int]], mover: int, width: int, height: int) -> Position:
    """The position of these stones (1: ``mover``'s, 0: the other's; ``mover`` 1 is
    red), or :class:`BookError` when no move order reaches it."""
    colours = {1: mover, 0: 3 - mover}
    rows = [
        [colours[col[row]] if row < len(col) else 0 for col in columns]
        for row in range(height - 1, -1, -1)
    ]
    try:
        return Position.from_rows(rows)
    except ValueError as error:
        raise BookError(f"not a legal position: {error}") from None


def _decode(value: int, width: int, height: int) -> tuple[Position, int]:
    """The position ``value`` shows and the number of its dead opponent's stones."""
    columns = _columns(value, width, height)
    ply = sum(len(col) for col in columns)
    if not ply:
        return Position(width, height), 0
    mover = 1 + ply % 2  # red (1) moves at even plies
    extra = sum(map(sum, columns)) - ply // 2
    if extra < 0:
        raise BookError(
            f"hash {value}: the side to move has fewer stones than a game of {ply} allows"
        )
    cells = [(c, r) for c, col in enumerate(columns) for r, bit in enumerate(col) if bit]
    if math.comb(len(cells), extra) > MAX_DEAD_CHOICES:
        raise BookError(f"hash {value}: too many stones of the side to move ({extra} over)")
    for flipped in itertools.combinations(cells, extra):
        trial = [list(col) for col in columns]
        for c, r in flipped:
            trial[c][r] = 0
        try:
            position = _position(trial, mover, width, height)
        except BookError:
            if extra:
                continue
            raise
        if c4_hash(position)[0] == value:
            return position, extra
    raise BookError(f"hash {value} is no position's c4 hash (it is not the canonical one)")


def decode_hash(value: int, width: int = 8, height: int = 7) -> Position:
    """The position (in the hash's orientation) of c4's hash ``value``.

    >>> decode_hash(72340172838076673, 8, 7).ply
    0
    """
    return _decode(value, width, height)[0]


def decode_row(row: C4Row, width: int = 8, height: int = 7) -> C4Entry:
    """``row`` decoded and checked: a legal position not over, whose hash is the
    row's, and the row's move a legal column there (else :class:`BookError`)."""
    try:
        position, dead = _decode(row.hash, width, height)
    except BookError as error:
        raise BookError(f"line {row.line}: {error}") from None
    if position.is_over():
        raise BookError(f"line {row.line}: the game is already over")
    if not 0 <= row.move < width or not position.can_play(row.move):
        raise BookError(f"line {row.line}: move {row.move} is not a legal column")
    return C4Entry(row, position, dead)


def _rows(path: Path) -> Iterator[C4Row]:
    """The rows of the csv at ``path`` (the header skipped)."""
    with path.open(encoding="ascii") as file:
        header = file.readline()
        if not header.startswith(_HEADER):
            raise BookError(f"{path}: not c4's book (the first line is not {_HEADER!r}...)")
        for line, text in enumerate(file, start=2):
            fields = text.strip().split(",")
            if fields == [""]:
                continue
            try:
                numbers = [int(field) for field in fields]
            except ValueError:
                raise BookError(f"{path}, line {line}: not numbers: {text.strip()!r}") from None
            if len(numbers) not in (3, 4):
                raise BookError(f"{path}, line {line}: expected hash,move,score")
            *words, move, score = numbers
            value = words[0] if len(words) == 1 else (words[0] << 64) | words[1]
            yield C4Row(line, value, move, score)


def read_c4_book(path: str | Path) -> list[C4Row]:
    """Every row of c4's book csv at ``path``; :class:`BookError` names a file that
    cannot be read or the first line that is not a row."""
    file = Path(path)
    try:
        return list(_rows(file))
    except (OSError, UnicodeDecodeError) as error:
        raise BookError(f"{file}: cannot read c4's book ({error})") from None
