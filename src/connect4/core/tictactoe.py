"""Tic-tac-toe: 3x3, three in a row, no gravity, numpad notation.

Cells are numbered like a numeric keypad, and moves are the 0-based cell
``digit - 1``::

    7 8 9
    4 5 6
    1 2 3

>>> t = TicTacToe.from_moves("5193")
>>> t.to_move, t.legal_moves()
(1, [6, 1, 3, 5, 7])
>>> print(t)
. . X
. X .
O . O
"""

from __future__ import annotations

from connect4.core.errors import IllegalMoveError, InvalidMoveError, move_error_prefix
from connect4.core.game import GameKind, MoveStack, Rules

LINES = (
    0b000000111, 0b000111000, 0b111000000,  # rows (bottom, middle, top)
    0b001001001, 0b010010010, 0b100100100,  # columns
    0b100010001, 0b001010100,  # diagonals
)  # fmt: skip
FULL = 0b111111111
# Centre, then corners, then edges: the usual good order for search.
MOVE_ORDER = (4, 0, 2, 6, 8, 1, 3, 5, 7)


def three_in_a_row(stones: int) -> bool:
    """True when the 9-bit board ``stones`` holds a line of three."""
    return any(stones & line == line for line in LINES)


class TicTacToe(MoveStack):
    """A tic-tac-toe position with a move stack; implements :class:`connect4.core.game.Game`.

    >>> TicTacToe.from_moves("121")
    Traceback (most recent call last):
    ...
    connect4.core.errors.IllegalMoveError: move 3 ('1'): cell 1 is taken
    """

    __slots__ = ("_history", "_stones")

    width = 3
    height = 3
    size = 9
    rules: Rules = "standard"
    kind: GameKind = "tictactoe"

    def __init__(self) -> None:
        self._stones = [0, 0]  # X (player 1), O (player 2)
        self._history: list[int] = []

    @classmethod
    def from_moves(cls, moves: str) -> TicTacToe:
        """The position after a numpad move string such as ``"5193"`` (whitespace around
        it is no part of it, as for :meth:`Position.from_moves`)."""
        game = cls()
        for index, token in enumerate(moves.strip(), start=1):
            if not (len(token) == 1 and token in "123456789"):
                raise InvalidMoveError(f"{move_error_prefix(index, token)}: not a cell number 1-9")
            game.play(int(token) - 1)
        return game

    @property
    def moves(self) -> str:
        return "".join(str(m + 1) for m in self._history)

    def stones(self, player: int) -> int:
        """The 9-bit board of ``player`` (1 = X, 2 = O)."""
        return self._stones[player - 1]

    def cell(self, index: int) -> int:
        """0 empty, 1 X, 2 O, for the 0-based cell ``index`` (numpad digit - 1)."""
        bit = 1 << index
        return 1 if self._stones[0] & bit else 2 if self._stones[1] & bit else 0

    def owner(self, column: int, row: int) -> int:
        """0 empty, 1 X, 2 O; row 0 is the bottom row (cells 1-3 on the keypad)."""
        return self.cell(self.cell_move(column, row))

    def cell_move(self, column: int, row: int) -> int:
        """The 0-based cell at ``(column, row)``: ``row * 3 + column``."""
        return row * 3 + column

    def last_cell(self) -> tuple[int, int] | None:
        """``(column, row)`` of the last mark.

        >>> TicTacToe.from_moves("57").last_cell()
        (0, 2)
        """
        move = self.last_move
        return None if move is None else (move % 3, move // 3)

    def winning_cells(self) -> frozenset[tuple[int, int]]:
        """``(column, row)`` of each cell in the winner's lines of three.

        >>> sorted(TicTacToe.from_moves("14253").winning_cells())
        [(0, 0), (1, 0), (2, 0)]
        """
        who = self.winner()
        if who is None:
            return frozenset()
        stones = self._stones[who - 1]
        cells = 0
        for line in LINES:
            if stones & line == line:
                cells |= line
        return frozenset((cell % 3, cell // 3) for cell in range(9) if cells >> cell & 1)

    def score_of(self, player: int) -> int:
        """Lines of three ``player`` owns."""
        stones = self._stones[player - 1]
        return sum(stones & line == line for line in LINES)

    def legal_moves(self) -> list[int]:
        if self.is_over():
            return []
        taken = self._stones[0] | self._stones[1]
        return [m for m in MOVE_ORDER if not taken & (1 << m)]

    def can_play(self, move: int) -> bool:
        return (
            0 <= move < 9
            and not self.is_over()
            and not ((self._stones[0] | self._stones[1]) & (1 << move))
        )

    def play(self, move: int) -> None:
        index = len(self._history) + 1
        if not (isinstance(move, int) and 0 <= move < 9):
            token = str(move + 1) if isinstance(move, int) else str(move)
            raise InvalidMoveError(f"{move_error_prefix(index, token)}: not a cell number 1-9")
        token = str(move + 1)
        if self.is_over():
            raise IllegalMoveError(
                f"{move_error_prefix(index, token)}: the game is already over "
                f"({self.result_text()})"
            )
        if (self._stones[0] | self._stones[1]) & (1 << move):
            raise IllegalMoveError(f"{move_error_prefix(index, token)}: cell {token} is taken")
        self._stones[len(self._history) & 1] |= 1 << move
        self._history.append(move)

    def undo(self) -> int:
        if not self._history:
            raise IllegalMoveError("nothing to undo: the board is empty")
        move = self._history.pop()
        self._stones[len(self._history) & 1] &= ~(1 << move)
        return move

    def winner(self) -> int | None:
        if three_in_a_row(self._stones[0]):
            return 1
        if three_in_a_row(self._stones[1]):
            return 2
        return None

    def is_over(self) -> bool:
        return len(self._history) == 9 or self.winner() is not None

    def is_draw(self) -> bool:
        return len(self._history) == 9 and self.winner() is None

    def key(self) -> int:
        return self._stones[0] | (self._stones[1] << 9)

    def copy(self) -> TicTacToe:
        other = TicTacToe()
        other._stones = list(self._stones)
        other._history = list(self._history)
        return other

    def parse_move(self, text: str) -> int:
        text = text.strip()
        if len(text) == 1 and text in "123456789":
            return int(text) - 1
        raise InvalidMoveError(f"{move_error_prefix(self.ply + 1, text)}: not a cell number 1-9")

    def move_label(self, move: int) -> str:
        return str(move + 1)

    def result_text(self) -> str:
        who = self.winner()
        if who is not None:
            return f"{'X' if who == 1 else 'O'} has won"
        if self.is_over():
            return "draw"
        return f"{'X' if self.to_move == 1 else 'O'} to move"

    def __repr__(self) -> str:
        return f"TicTacToe.from_moves({self.moves!r})"

    def __str__(self) -> str:
        symbols = ".XO"
        rows = []
        for base in (6, 3, 0):
            rows.append(" ".join(symbols[self.cell(base + i)] for i in range(3)))
        return "\n".join(rows)
