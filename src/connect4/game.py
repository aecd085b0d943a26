"""The game protocol that every search, player and interface works on.

:class:`~connect4.position.Position` (Connect Four, any size, both rule sets)
and :class:`~connect4.tictactoe.TicTacToe` implement it, so one minimax or
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

from typing import Protocol, Self, runtime_checkable


@runtime_checkable
class Game(Protocol):
    """A two-player, zero-sum, perfect-information game with make/unmake.

    Player 1 moves first. ``winner()`` is 1 or 2 once someone has won and
    ``None`` otherwise; ``is_over()`` is also true for a draw.
    """

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
