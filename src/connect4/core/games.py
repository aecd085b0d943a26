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

from typing import Literal, overload

from connect4.core.errors import GameError
from connect4.core.game import GAME_KINDS, RULES, Game, Rules
from connect4.core.position import DEFAULT_HEIGHT, DEFAULT_WIDTH, Position, check_board_size
from connect4.core.tictactoe import TicTacToe


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
    """The game ``kind`` on a ``width x height`` board under ``rules``, after ``moves``.

    ``kind`` is ``connect4`` (any board of the 64-bit layout on which four in a
    row fits, both rule sets) or ``tictactoe`` (always 3x3: ``width`` and
    ``height`` are the Connect Four board's and are ignored; standard rules
    only). ``moves`` is a move string in the game's notation. Everything wrong
    raises :class:`GameError` (or its move errors, ``InvalidMoveError`` and
    ``IllegalMoveError``), naming what.

    >>> new_game("tictactoe", 7, 6).size
    9
    >>> new_game("connect4", 2, 2)
    Traceback (most recent call last):
    ...
    connect4.core.errors.GameError: board 2x2 is too small: four in a row cannot fit
    >>> new_game("tictactoe", rules="count-fours")
    Traceback (most recent call last):
    ...
    connect4.core.errors.GameError: tic-tac-toe has only the standard rules
    >>> new_game("connect4", moves="1" * 43)
    Traceback (most recent call last):
    ...
    connect4.core.errors.GameError: too many moves: 43 moves but the board has only 42 cells
    """
    if kind not in GAME_KINDS:
        raise GameError(f"unknown game {kind!r}: choose one of {', '.join(GAME_KINDS)}")
    rule_set = _rules(rules)
    if kind == "tictactoe":
        if rule_set != "standard":
            raise GameError("tic-tac-toe has only the standard rules")
        _check_length(moves, TicTacToe.size)
        return TicTacToe.from_moves(moves)
    check_board_size(width, height)
    if width < 4 and height < 4:
        raise GameError(f"board {width}x{height} is too small: four in a row cannot fit")
    _check_length(moves, width * height)
    return Position.from_moves(moves, width, height, rule_set)


def _rules(rules: str) -> Rules:
    """``rules`` as a rule set name, or :class:`GameError` listing the known ones."""
    for known in RULES:
        if rules == known:
            return known
    raise GameError(f"unknown rules {rules!r}: choose one of {', '.join(RULES)}")


def _check_length(moves: str, cells: int) -> None:
    """A move string longer than the board is refused before any move is replayed."""
    if len(moves) > cells:
        raise GameError(f"too many moves: {len(moves)} moves but the board has only {cells} cells")
