"""The Connect Four position: a bitboard for any ``width x height`` board.

Bit layout (Pons' layout; 7x6 shown). Each column takes ``height + 1`` bits,
bottom cell first, with one always-empty sentinel bit on top::

      .  .  .  .  .  .  .     <- sentinel row (bits 6, 13, 20, ...)
      5 12 19 26 33 40 47     <- top row
      4 11 18 25 32 39 46
      3 10 17 24 31 38 45
      2  9 16 23 30 37 44
      1  8 15 22 29 36 43
      0  7 14 21 28 35 42     <- bottom row
      col 0 (notation '1') ... col 6 (notation '7')

Two integers describe a position: ``mask`` has a 1 for every stone and
``current`` a 1 for every stone of the side to move. ``current + mask`` is a
unique key (it adds a 1 just above each column's top stone). Four in a row is
four shift-and-AND steps with shifts 1 (vertical), ``H+1`` (horizontal),
``H`` and ``H+2`` (the two diagonals); the sentinel row stops wrap-around.

Columns are 0-based in code and 1-based in move strings (``"4453"``).
Widths above 9 write columns 10, 11, ... as ``a``, ``b``, ...

>>> p = Position.from_moves("4453")
>>> p.moves, p.ply, p.to_move
('4453', 4, 1)
>>> p.play(2); p.moves
'44533'
>>> p.undo()
2
>>> p
Position.from_moves('4453')
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import SupportsIndex

from connect4.core.bits import MAX_BOARD_BITS, board_bits, centre_order as centre_order
from connect4.core.errors import (
    GameError,
    IllegalMoveError,
    InvalidMoveError,
    move_error_prefix,
    unknown_choice,
)
from connect4.core.game import RULES, Game, GameKind, MoveStack, Rules

COLUMN_SYMBOLS = "123456789abcdefghijklmnopqrstuvwxyz"
DEFAULT_WIDTH = 7
DEFAULT_HEIGHT = 6


def check_board_size(width: int, height: int) -> None:
    """Raise :class:`GameError` unless a ``width x height`` board fits the bitboard
    (``width * (height + 1) <= 128`` bits) and the move notation.

    >>> check_board_size(8, 8)
    >>> check_board_size(11, 11)
    Traceback (most recent call last):
    ...
    connect4.core.errors.GameError: board 11x11 is too large: width*(height+1) = 132 must be <= 128
    """
    if width < 1 or height < 1:
        raise GameError(f"board {width}x{height} is invalid: width and height must be >= 1")
    if board_bits(width, height) > MAX_BOARD_BITS:
        raise GameError(
            f"board {width}x{height} is too large: width*(height+1) = "
            f"{board_bits(width, height)} must be <= {MAX_BOARD_BITS}"
        )
    if width > len(COLUMN_SYMBOLS):
        raise GameError(f"board {width}x{height} is too wide for the move notation")


def bottom_mask(width: int, height: int) -> int:
    """A 1 in the bottom cell of every column.

    >>> bin(bottom_mask(3, 2))
    '0b1001001'
    """
    return sum(1 << (c * (height + 1)) for c in range(width))


def board_mask(width: int, height: int) -> int:
    """A 1 in every playable cell (sentinels excluded)."""
    return bottom_mask(width, height) * ((1 << height) - 1)


def four_in_a_row(stones: int, height: int) -> bool:
    """True when ``stones`` (one player's bitboard) hold four in a row.

    >>> four_in_a_row(0b1111, 6)
    True
    """
    for shift in (1, height + 1, height, height + 2):
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def count_fours(stones: int, height: int) -> int:
    """The number of distinct four-cell lines fully owned (five in a row counts 2).

    >>> count_fours(0b11111, 6)
    2
    """
    total = 0
    for shift in (1, height + 1, height, height + 2):
        pairs = stones & (stones >> shift)
        total += (pairs & (pairs >> (2 * shift))).bit_count()
    return total


def cells_in_fours(stones: int, height: int) -> int:
    """The cells that are part of some four-in-a-row of ``stones`` (a bitboard).

    >>> bin(cells_in_fours(0b11110, 6))
    '0b11110'
    """
    cells = 0
    for shift in (1, height + 1, height, height + 2):
        pairs = stones & (stones >> shift)
        starts = pairs & (pairs >> (2 * shift))
        for k in range(4):
            cells |= starts << (k * shift)
    return cells


def move_order(
    columns: Sequence[Sequence[int]], height: int, rules: Rules = "standard"
) -> list[int]:
    """0-based columns that, played in turn from the empty board, stack ``columns``.

    ``columns[c]`` lists column ``c``'s stones bottom first (1 red, 2 yellow).
    Red moves first and the turns alternate; under standard rules the game must
    not end before the last stone (no four in a row earlier). The order is
    found backwards: lift a top stone of the side that moved last, and back
    up when none is left, remembering the dead ends. Raises ``ValueError``
    when no order exists.

    >>> move_order([[1, 2], [1]], 6)
    [0, 0, 1]
    >>> move_order([[1, 1, 1, 1], [2, 2, 2, 2]], 6)
    Traceback (most recent call last):
    ...
    ValueError: both red and yellow have four in a row
    """
    stride = height + 1
    stones = [0, 0]  # red's and yellow's bitboards
    for column, stack in enumerate(columns):
        for row, cell in enumerate(stack):
            stones[cell - 1] |= 1 << (column * stride + row)
    reds, yellows = stones[0].bit_count(), stones[1].bit_count()
    if not 0 <= reds - yellows <= 1:
        raise ValueError(
            f"red has {reds} stones and yellow {yellows}: red moves first, so red has as "
            "many stones as yellow or one more"
        )
    fours = [four_in_a_row(mine, height) for mine in stones]
    if rules == "standard" and all(fours):
        raise ValueError("both red and yellow have four in a row")
    check = rules == "standard" and any(fours)  # else no earlier position can hold a four
    heights = [len(stack) for stack in columns]
    dead: set[tuple[int, ...]] = set()
    lifted: list[int] = []

    def lift(count: int) -> bool:
        """Lift ``count`` stones, last move first; True when the board is empty."""
        if count == 0:
            return True
        key = tuple(heights)
        if key in dead:
            return False
        mover = 2 - (count & 1)  # red made the odd-numbered moves
        for column, top in enumerate(heights):
            if not top or columns[column][top - 1] != mover:
                continue
            bit = 1 << (column * stride + top - 1)
            stones[mover - 1] ^= bit
            if not (check and any(four_in_a_row(mine, height) for mine in stones)):
                heights[column] = top - 1
                lifted.append(column)
                if lift(count - 1):
                    return True
                lifted.pop()
                heights[column] = top
            stones[mover - 1] ^= bit
        dead.add(key)
        return False

    if not lift(reds + yellows):
        early = " without a four in a row before the last stone" if check else ""
        raise ValueError(
            "no move order reaches this board: red moves first and the turns alternate, "
            f"but no such order stacks these stones{early}"
        )
    return lifted[::-1]


def parse_column(token: str, width: int, index: int) -> int:
    """The 0-based column of one notation character, or ``InvalidMoveError``.

    ``index`` is the 1-based place of the character in its move string, for the message.

    >>> parse_column("4", 7, 1)
    3
    >>> parse_column("4" * 5000, 7, 1)
    Traceback (most recent call last):
    ...
    connect4.core.errors.InvalidMoveError: move 1 ('44444444444444444444...', 5000 characters): \
column number out of range 1-7
    """
    symbol = token.lower()
    if len(token) == 1 and symbol in COLUMN_SYMBOLS[:width]:
        return COLUMN_SYMBOLS.index(symbol)
    prefix = move_error_prefix(index, token)
    digits = token.isascii() and token.isdigit()
    if digits and len(token) > 2:  # int() of a huge digit string is slow, then refused
        raise InvalidMoveError(f"{prefix}: column number out of range 1-{width}")
    if digits or (width > 9 and len(token) == 1 and symbol in COLUMN_SYMBOLS):
        number = int(token) if digits else COLUMN_SYMBOLS.index(symbol) + 1
        raise InvalidMoveError(f"{prefix}: column {number} is out of range 1-{width}")
    raise InvalidMoveError(f"{prefix}: not a column number 1-{width}")


class Position(MoveStack):
    """A Connect Four position with a make/unmake move stack.

    >>> p = Position(width=7, height=6)
    >>> for c in (3, 3, 4, 4, 5, 5):
    ...     p.play(c)
    >>> p.is_winning_move(6), p.is_winning_move(2), p.winner()
    (True, True, None)
    >>> p.play(6); p.winner(), p.is_over()
    (1, True)
    """

    __slots__ = (
        "_heights",
        "_history",
        "_over",
        "current",
        "height",
        "mask",
        "rules",
        "width",
    )

    def __init__(
        self, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT, rules: Rules = "standard"
    ) -> None:
        check_board_size(width, height)
        if rules not in RULES:
            raise GameError(unknown_choice("rules", rules, RULES))
        self.width = width
        self.height = height
        self.rules: Rules = rules
        self.current = 0
        self.mask = 0
        self._heights = [0] * width
        self._history: list[int] = []
        # _over[i] is True when the game had ended after i plies (standard rules).
        self._over: list[bool] = [False]

    # ----------------------------------------------------------------- notation
    @classmethod
    def from_moves(
        cls,
        moves: str,
        width: int = DEFAULT_WIDTH,
        height: int = DEFAULT_HEIGHT,
        rules: Rules = "standard",
    ) -> Position:
        """The position after a 1-indexed move string such as ``"4453"``; whitespace
        around it is no part of it (``" 4453 "`` is the same game).

        Raises :class:`InvalidMoveError` for a character that is not a column and
        :class:`IllegalMoveError` for a full column or a move after the game ended;
        the message names the move's place in the string.

        >>> Position.from_moves("4444444")
        Traceback (most recent call last):
        ...
        connect4.core.errors.IllegalMoveError: move 7 ('4'): column 4 is full
        """
        position = cls(width, height, rules)
        for index, token in enumerate(moves.strip(), start=1):
            position.play(parse_column(token, width, index))
        return position

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[object]], rules: Rules = "standard") -> Position:
        """The position a drawn board shows: ``rows`` top row first, each cell 0
        (empty), 1 (red, who moves first) or 2 (yellow).

        A board holds no move order, so this finds one that reaches it (see
        :func:`move_order`); the side to move follows from the stone counts.
        Raises ``ValueError`` naming the first thing that makes the board
        impossible.

        >>> Position.from_rows([[0, 0, 0], [0, 2, 0], [1, 1, 0]]).moves
        '221'
        >>> Position.from_rows([[0, 0], [1, 0], [2, 0]])
        Traceback (most recent call last):
        ...
        ValueError: no move order reaches this board: red moves first and the turns \
alternate, but no such order stacks these stones
        """
        if not rows or not all(len(row) == len(rows[0]) for row in rows):
            raise ValueError("a board needs at least one row, and all rows the same length")
        height, width = len(rows), len(rows[0])
        check_board_size(width, height)
        columns: list[list[int]] = [[] for _ in range(width)]
        for top, row in enumerate(rows):
            for column, value in enumerate(row):
                cell = operator.index(value) if isinstance(value, SupportsIndex) else -1
                if cell not in (0, 1, 2) or isinstance(value, bool):
                    raise ValueError(
                        f"row {top + 1} (from the top), column {column + 1}: "
                        f"{value!r} is not 0 (empty), 1 (red) or 2 (yellow)"
                    )
                stack = columns[column]
                if cell:
                    stack.insert(0, cell)
                elif stack:
                    raise ValueError(
                        f"column {column + 1}: a stone floats above the empty cell in row "
                        f"{top + 1} (from the top)"
                    )
        position = cls(width, height, rules)
        for column in move_order(columns, height, rules):
            position.play(column)
        return position

    @classmethod
    def of(cls, game: Game) -> Position:
        """A copy of the Connect Four position a game holds; ``ValueError`` for another game.

        For callers that hold a :class:`~connect4.core.game.Game` and need the
        bitboards (the solver, the books).

        >>> from connect4 import TicTacToe
        >>> Position.of(Position.from_moves("44")).moves
        '44'
        >>> Position.of(TicTacToe())
        Traceback (most recent call last):
        ...
        ValueError: a Connect Four position is needed, not tictactoe
        """
        if isinstance(game, Position):
            return game.copy()
        raise ValueError(f"a Connect Four position is needed, not {game.kind}")

    @property
    def moves(self) -> str:
        """The move string that reaches this position (1-indexed columns)."""
        return "".join(COLUMN_SYMBOLS[c] for c in self._history)

    def parse_move(self, text: str) -> int:
        """The 0-based column of a user-typed column number (``"4" -> 3``)."""
        text = text.strip()
        if text.isascii() and text.isdigit() and len(text) <= 2 and 1 <= int(text) <= self.width:
            return int(text) - 1
        return parse_column(text, self.width, self.ply + 1)

    def move_label(self, move: int) -> str:
        """The notation of a 0-based column (``3 -> '4'``)."""
        return COLUMN_SYMBOLS[move]

    # -------------------------------------------------------------- state
    @property
    def heights(self) -> list[int]:
        """Stones in each column (a copy)."""
        return list(self._heights)

    @property
    def size(self) -> int:
        """The number of cells, ``width * height``."""
        return self.width * self.height

    @property
    def kind(self) -> GameKind:
        """``"connect4"``: the game this position belongs to."""
        return "connect4"

    def stones(self, player: int) -> int:
        """The bitboard of ``player``'s stones (1 = red, 2 = yellow)."""
        if player == self.to_move:
            return self.current
        return self.current ^ self.mask

    def cell(self, column: int, row: int) -> int:
        """0 for empty, 1 for red, 2 for yellow; row 0 is the bottom."""
        bit = 1 << (column * (self.height + 1) + row)
        if not self.mask & bit:
            return 0
        return self.to_move if self.current & bit else 3 - self.to_move

    def key(self) -> int:
        """An integer unique to this position on this board size (``current + mask``)."""
        return self.current + self.mask

    def can_play(self, column: int) -> bool:
        """True when ``column`` (0-based) is on the board, not full, and the game is on."""
        return (
            0 <= column < self.width and self._heights[column] < self.height and not self._over[-1]
        )

    def legal_moves(self) -> list[int]:
        """Playable 0-based columns, centre first; empty once the game is over.

        >>> Position().legal_moves()
        [3, 2, 4, 1, 5, 0, 6]
        """
        if self._over[-1]:
            return []
        return [c for c in centre_order(self.width) if self._heights[c] < self.height]

    def is_winning_move(self, column: int) -> bool:
        """True when playing ``column`` now makes four in a row for the side to move.

        Under ``count-fours`` rules: when it completes a new four-cell line.
        """
        if not self.can_play(column):
            return False
        bit = 1 << (column * (self.height + 1) + self._heights[column])
        if self.rules == "count-fours":  # a move that completes a new four-cell line
            before = count_fours(self.current, self.height)
            return count_fours(self.current | bit, self.height) > before
        return four_in_a_row(self.current | bit, self.height)

    # -------------------------------------------------------------- make / unmake
    def play(self, column: int) -> None:
        """Drop a stone of the side to move in 0-based ``column``.

        Raises :class:`InvalidMoveError` (not a column) or :class:`IllegalMoveError`.
        """
        if not (isinstance(column, int) and 0 <= column < self.width):
            token = str(column + 1) if isinstance(column, int) else str(column)
            raise InvalidMoveError(
                f"{move_error_prefix(self.ply + 1, token)}: column {token} is out of range "
                f"1-{self.width}"
            )
        if self._over[-1]:
            raise IllegalMoveError(
                f"{move_error_prefix(self.ply + 1, COLUMN_SYMBOLS[column])}: the game is "
                f"already over ({self.result_text()})"
            )
        h = self._heights[column]
        if h >= self.height:
            raise IllegalMoveError(
                f"{move_error_prefix(self.ply + 1, COLUMN_SYMBOLS[column])}: column "
                f"{column + 1} is full"
            )
        bit = 1 << (column * (self.height + 1) + h)
        mover = self.current | bit
        self.current ^= self.mask
        self.mask |= bit
        self._heights[column] = h + 1
        self._history.append(column)
        full = len(self._history) == self.size
        if self.rules == "standard":
            self._over.append(full or four_in_a_row(mover, self.height))
        else:
            self._over.append(full)

    def undo(self) -> int:
        """Take back the last move and return its 0-based column.

        Raises :class:`IllegalMoveError` on the empty board.
        """
        if not self._history:
            raise IllegalMoveError("nothing to undo: the board is empty")
        column = self._history.pop()
        self._over.pop()
        h = self._heights[column] - 1
        self._heights[column] = h
        self.mask ^= 1 << (column * (self.height + 1) + h)
        self.current ^= self.mask
        return column

    # -------------------------------------------------------------- results
    def owner(self, column: int, row: int) -> int:
        """0 for empty, 1 for red, 2 for yellow; row 0 is the bottom (as :meth:`cell`)."""
        return self.cell(column, row)

    def cell_move(self, column: int, row: int) -> int:
        """The move that fills a cell: its column."""
        return column

    def last_cell(self) -> tuple[int, int] | None:
        """``(column, row)`` of the last stone played.

        >>> Position.from_moves("443").last_cell()
        (2, 0)
        """
        column = self.last_move
        return None if column is None else (column, self._heights[column] - 1)

    def winning_cells(self) -> frozenset[tuple[int, int]]:
        """``(column, row)`` of each cell in the winner's fours.

        >>> sorted(Position.from_moves("4455667").winning_cells())
        [(3, 0), (4, 0), (5, 0), (6, 0)]
        """
        line = self.winning_line()
        stride = self.height + 1
        return frozenset(
            (bit // stride, bit % stride) for bit in range(line.bit_length()) if line >> bit & 1
        )

    def score_of(self, player: int) -> int:
        """The count-fours score of ``player``: four-cell lines they own."""
        return count_fours(self.stones(player), self.height)

    def winner(self) -> int | None:
        """1 (red) or 2 (yellow) once a player has won, else ``None``.

        Under ``count-fours`` rules the winner is decided when the board is full,
        by the number of four-cell lines each player owns.
        """
        if not self._over[-1]:
            return None
        if self.rules == "standard":
            last = 2 - (len(self._history) & 1)  # the player who moved last
            return last if four_in_a_row(self.stones(last), self.height) else None
        red, yellow = self.score_of(1), self.score_of(2)
        if red == yellow:
            return None
        return 1 if red > yellow else 2

    def is_over(self) -> bool:
        """True once the game has ended (a win, or a full board)."""
        return self._over[-1]

    def is_draw(self) -> bool:
        """True when the game ended without a winner."""
        return self._over[-1] and self.winner() is None

    def winning_line(self) -> int:
        """Bitboard of the cells in the winner's fours (0 when nobody has won)."""
        who = self.winner()
        return 0 if who is None else cells_in_fours(self.stones(who), self.height)

    def result_text(self) -> str:
        """A short human sentence about the result so far."""
        who = self.winner()
        if who is not None:
            name = "red" if who == 1 else "yellow"
            if self.rules == "count-fours":
                return f"{name} wins {self.score_of(who)}-{self.score_of(3 - who)}"
            return f"{name} has won"
        if self.is_over():
            if self.rules == "count-fours":
                return f"draw {self.score_of(1)}-{self.score_of(2)}"
            return "draw"
        return f"{'red' if self.to_move == 1 else 'yellow'} to move"

    # -------------------------------------------------------------- copies
    def copy(self) -> Position:
        """An independent copy with the same move stack."""
        other = Position.__new__(Position)
        other.width, other.height, other.rules = self.width, self.height, self.rules
        other.current, other.mask = self.current, self.mask
        other._heights = list(self._heights)
        other._history = list(self._history)
        other._over = list(self._over)
        return other

    def mirrored(self) -> Position:
        """The left-right mirror image (reached by the mirrored move string)."""
        other = Position(self.width, self.height, self.rules)
        for column in self._history:
            other.play(self.width - 1 - column)
        return other

    # -------------------------------------------------------------- display
    def __repr__(self) -> str:
        extra = ""
        if (self.width, self.height) != (DEFAULT_WIDTH, DEFAULT_HEIGHT):
            extra += f", width={self.width}, height={self.height}"
        if self.rules != "standard":
            extra += f", rules={self.rules!r}"
        return f"Position.from_moves({self.moves!r}{extra})"

    def __str__(self) -> str:
        symbols = ".XO"
        rows = [
            " ".join(symbols[self.cell(c, r)] for c in range(self.width))
            for r in reversed(range(self.height))
        ]
        rows.append(" ".join(COLUMN_SYMBOLS[c] for c in range(self.width)))
        return "\n".join(rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (self.width, self.height, self.rules, self.current, self.mask) == (
            other.width,
            other.height,
            other.rules,
            other.current,
            other.mask,
        )

    def __hash__(self) -> int:
        return hash((self.width, self.height, self.rules, self.current, self.mask))
