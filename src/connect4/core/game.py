"""The game protocol that every search, player and interface works on.

:class:`~connect4.core.position.Position` (Connect Four, any size, both rule sets)
and :class:`~connect4.core.tictactoe.TicTacToe` implement it, so one minimax or
alpha-beta runs on both unchanged. Moves are small non-negative ints (a 0-based
column, or a 0-based cell); move strings use each game's own notation.

>>> from connect4 import Position, TicTacToe
>>> def count_leaves(game: Game, depth: int) -> int:
...     if depth == 0 or game.is_over():
...         return 1
...     total = 0
...     for move in game.legal_moves():
...         game.play(move)
...         total += count_leaves(game, depth - 1)
...         game.undo()
...     return total
>>> count_leaves(Position(), 2), count_leaves(TicTacToe(), 2)
(49, 72)
"""

from __future__ import annotations

from typing import Literal, Protocol, Self, runtime_checkable

GameKind = Literal["connect4", "tictactoe"]
"""The games the package plays: Connect Four (any size, both rule sets) and tic-tac-toe."""

Rules = Literal["standard", "count-fours"]
"""Connect Four's rule sets: first four in a row wins, or count every four at the end."""

RULES: tuple[Rules, ...] = ("standard", "count-fours")

GAME_KINDS: tuple[GameKind, ...] = ("connect4", "tictactoe")


class MoveStack:
    """The move stack both games keep, and what follows from it alone.

    >>> from connect4 import TicTacToe
    >>> game = TicTacToe.from_moves("59")
    >>> game.history, game.last_move, game.ply, game.to_move
    ([4, 8], 8, 2, 1)
    """

    __slots__ = ()
    _history: list[int]

    @property
    def history(self) -> list[int]:
        """The 0-based moves played so far, oldest first (a copy)."""
        return list(self._history)

    @property
    def last_move(self) -> int | None:
        """The 0-based last move, or ``None`` before the first."""
        return self._history[-1] if self._history else None

    @property
    def ply(self) -> int:
        """The number of moves played (stones on the board)."""
        return len(self._history)

    @property
    def to_move(self) -> int:
        """1 when the first player (red, X) is to move, 2 for the second."""
        return 1 + (len(self._history) & 1)


@runtime_checkable
class Game(Protocol):
    """A two-player, zero-sum, perfect-information game with make/unmake.

    Player 1 moves first. ``winner()`` is 1 or 2 once someone has won and
    ``None`` otherwise; ``is_over()`` is also true for a draw. ``kind``,
    ``width``, ``height``, ``rules`` and ``stones()`` tell callers what board
    they hold, so no caller needs to test the concrete type.
    """

    @property
    def kind(self) -> GameKind:
        """Which game this is: ``"connect4"`` or ``"tictactoe"``."""
        ...

    @property
    def width(self) -> int:
        """Columns of the board (3 for tic-tac-toe)."""
        ...

    @property
    def height(self) -> int:
        """Rows of the board (3 for tic-tac-toe)."""
        ...

    @property
    def size(self) -> int:
        """Cells on the board, ``width * height``."""
        ...

    @property
    def rules(self) -> Rules:
        """The rule set (tic-tac-toe has only ``"standard"``)."""
        ...

    def stones(self, player: int) -> int:
        """The bitboard of ``player``'s stones (1 or 2), in the game's own bit layout."""
        ...

    def owner(self, column: int, row: int) -> int:
        """0 for an empty cell, else the player (1 or 2) on it; row 0 is the bottom."""
        ...

    def cell_move(self, column: int, row: int) -> int:
        """The move that aims at a cell (Connect Four: its column; tic-tac-toe: the cell)."""
        ...

    def last_cell(self) -> tuple[int, int] | None:
        """``(column, row)`` of the stone the last move placed, if any."""
        ...

    def winning_cells(self) -> frozenset[tuple[int, int]]:
        """``(column, row)`` of every cell in the winner's lines (empty without a winner)."""
        ...

    def score_of(self, player: int) -> int:
        """Lines ``player`` owns: fours for count-fours scoring, threes in tic-tac-toe."""
        ...

    @property
    def to_move(self) -> int:
        """1 or 2: the player whose turn it is."""
        ...

    @property
    def ply(self) -> int:
        """Moves played so far."""
        ...

    @property
    def moves(self) -> str:
        """The move string in the game's notation."""
        ...

    @property
    def history(self) -> list[int]:
        """The moves played so far, oldest first."""
        ...

    def legal_moves(self) -> list[int]:
        """The moves that can be played now (empty once the game is over)."""
        ...

    def play(self, move: int) -> None:
        """Make a move; raises InvalidMoveError or IllegalMoveError."""
        ...

    def undo(self) -> int:
        """Take back the last move and return it."""
        ...

    def winner(self) -> int | None:
        """1 or 2 once a player has won, else None."""
        ...

    def is_over(self) -> bool:
        """True once the game has ended."""
        ...

    def is_draw(self) -> bool:
        """True when the game ended without a winner."""
        ...

    def key(self) -> int:
        """An int unique to the position (for transposition tables)."""
        ...

    def copy(self) -> Self:
        """An independent copy."""
        ...

    def parse_move(self, text: str) -> int:
        """A move from user input text; raises InvalidMoveError."""
        ...

    def move_label(self, move: int) -> str:
        """The notation of one move."""
        ...

    def result_text(self) -> str:
        """A short sentence about the result so far."""
        ...
