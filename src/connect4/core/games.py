"""Building a game of a kind, size and rule set from outside input: the one place
that checks a kind name, a board size, a rule set and a move string together.

Every interface (terminal, CLI, web, arena, review, environments) builds its
games here, so a bad request gets the same :class:`GameError` message
everywhere.

>>> new_game("connect4", 7, 6, "standard", "4453").to_move
1
>>> new_game("tictactoe", moves="59").moves
'59'
>>> new_game("chess")
Traceback (most recent call last):
...
connect4.core.errors.GameError: unknown game 'chess': choose one of connect4, tictactoe
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, overload

from connect4.core.errors import GameError, unknown_choice
from connect4.core.game import GAME_KINDS, RULES, Game, Rules
from connect4.core.position import DEFAULT_HEIGHT, DEFAULT_WIDTH, Position, check_board_size
from connect4.core.tictactoe import TicTacToe


@dataclass(frozen=True)
class Board:
    """A game's kind, board size and rule set, checked once: the value every interface
    passes around instead of four loose parameters.

    Tic-tac-toe is always 3x3 (a width and height given for it are those of the
    Connect Four board and are dropped). Everything wrong raises :class:`GameError`.

    >>> Board("connect4", 5, 4, "count-fours").new("33").moves
    '33'
    >>> Board("tictactoe", 7, 6) == Board("tictactoe")
    True
    >>> Board("connect4", 2, 2)
    Traceback (most recent call last):
    ...
    connect4.core.errors.GameError: board 2x2 is too small: four in a row cannot fit
    >>> Board("tictactoe", rules="count-fours")
    Traceback (most recent call last):
    ...
    connect4.core.errors.GameError: tic-tac-toe has only the standard rules
    """

    kind: str = "connect4"
    width: int = DEFAULT_WIDTH
    height: int = DEFAULT_HEIGHT
    rules: str = "standard"

    def __post_init__(self) -> None:
        if self.kind not in GAME_KINDS:
            raise GameError(unknown_choice("game", self.kind, GAME_KINDS))
        rule_set = _rules(self.rules)
        if self.kind == "tictactoe":
            if rule_set != "standard":
                raise GameError("tic-tac-toe has only the standard rules")
            object.__setattr__(self, "width", 3)
            object.__setattr__(self, "height", 3)
            return
        check_board_size(self.width, self.height)
        if self.width < 4 and self.height < 4:
            size = f"{self.width}x{self.height}"
            raise GameError(f"board {size} is too small: four in a row cannot fit")

    @classmethod
    def of(cls, game: Game) -> Board:
        """The board ``game`` is played on.

        >>> Board.of(new_game("connect4", 6, 5))
        Board(kind='connect4', width=6, height=5, rules='standard')
        """
        return cls(game.kind, game.width, game.height, game.rules)

    @property
    def cells(self) -> int:
        """How many cells the board has (the most moves a game can last)."""
        return self.width * self.height

    def new(self, moves: str = "") -> Game:
        """The game on this board after ``moves`` (a move string in its notation); a bad
        move string raises :class:`GameError` (or its move errors), naming the move;
        whitespace around it is no part of it."""
        moves = moves.strip()
        if len(moves) > self.cells:
            raise GameError(
                f"too many moves: {len(moves)} moves but the board has only {self.cells} cells"
            )
        if self.kind == "tictactoe":
            return TicTacToe.from_moves(moves)
        return Position.from_moves(moves, self.width, self.height, _rules(self.rules))


@overload
def new_game(
    kind: Literal["connect4"],
    width: int = ...,
    height: int = ...,
    rules: str = ...,
    moves: str = ...,
) -> Position: ...
@overload
def new_game(
    kind: Literal["tictactoe"],
    width: int = ...,
    height: int = ...,
    rules: str = ...,
    moves: str = ...,
) -> TicTacToe: ...
@overload
def new_game(
    kind: str,
    width: int = ...,
    height: int = ...,
    rules: str = ...,
    moves: str = ...,
) -> Game: ...
def new_game(
    kind: str,
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
    rules: str = "standard",
    moves: str = "",
) -> Game:
    """The game ``kind`` on a ``width x height`` board under ``rules``, after ``moves``
    (``Board(kind, width, height, rules).new(moves)``).

    ``kind`` is ``connect4`` (any board of the 64-bit layout on which four in a
    row fits, both rule sets) or ``tictactoe`` (always 3x3: ``width`` and
    ``height`` are the Connect Four board's and are ignored; standard rules
    only). ``moves`` is a move string in the game's notation. Everything wrong
    raises :class:`GameError` (or its move errors, ``InvalidMoveError`` and
    ``IllegalMoveError``), naming what.

    >>> new_game("tictactoe", 7, 6).size
    9
    >>> new_game("connect4", moves="1" * 43)
    Traceback (most recent call last):
    ...
    connect4.core.errors.GameError: too many moves: 43 moves but the board has only 42 cells
    """
    return Board(kind, width, height, rules).new(moves)


def _rules(rules: str) -> Rules:
    """``rules`` as a rule set name, or :class:`GameError` listing the known ones."""
    for known in RULES:
        if rules == known:
            return known
    raise GameError(unknown_choice("rules", rules, RULES))


DEFAULT_BOARD = Board()
"""Standard Connect Four on the 7x6 board: every interface's default."""
