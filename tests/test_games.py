"""The one game builder: every kind, size, rule set and move string, and each refusal."""

from __future__ import annotations

import re

import pytest

from connect4 import (
    Board,
    Connect4Error,
    GameError,
    IllegalMoveError,
    InvalidMoveError,
    Position,
    TicTacToe,
    new_game,
)


def test_connect4_of_any_size_and_rules() -> None:
    game = new_game("connect4", 5, 4, "count-fours", "1122")
    assert isinstance(game, Position)
    assert (game.width, game.height, game.rules, game.moves) == (5, 4, "count-fours", "1122")
    assert new_game("connect4") == Position()


def test_tictactoe_is_always_3x3_and_ignores_the_connect4_board() -> None:
    game = new_game("tictactoe", 7, 6, "standard", "59")
    assert isinstance(game, TicTacToe)
    assert (game.width, game.height, game.moves) == (3, 3, "59")


@pytest.mark.parametrize(
    ("kind", "width", "height", "rules", "moves", "message"),
    [
        ("chess", 7, 6, "standard", "", "unknown game 'chess': choose one of connect4, tictactoe"),
        ("Connect4", 7, 6, "standard", "", "unknown game 'Connect4'"),
        ("connect4", 7, 6, "gomoku", "", "unknown rules 'gomoku': choose one of standard, count"),
        ("tictactoe", 3, 3, "count-fours", "", "tic-tac-toe has only the standard rules"),
        ("tictactoe", 3, 3, "gomoku", "", "unknown rules 'gomoku'"),
        ("connect4", 0, 6, "standard", "", "board 0x6 is invalid: width and height must be >= 1"),
        ("connect4", 11, 11, "standard", "", "board 11x11 is too large: width*(height+1) = 132"),
        ("connect4", 3, 3, "standard", "", "board 3x3 is too small: four in a row cannot fit"),
        ("connect4", 4, 4, "standard", "1" * 17, "too many moves: 17 moves but the board has"),
        ("tictactoe", 3, 3, "standard", "1234567891", "too many moves: 10 moves but the board"),
    ],
)
def test_each_refusal_names_what_is_wrong(
    kind: str, width: int, height: int, rules: str, moves: str, message: str
) -> None:
    with pytest.raises(GameError, match=re.escape(message)):
        new_game(kind, width, height, rules, moves)
    with pytest.raises(GameError, match=re.escape(message)):  # the board value says the same
        Board(kind, width, height, rules).new(moves)


@pytest.mark.parametrize(
    ("kind", "moves", "error", "message"),
    [
        ("connect4", "48", InvalidMoveError, r"move 2 \('8'\): column 8 is out of range 1-7"),
        ("connect4", "4444444", IllegalMoveError, r"move 7 \('4'\): column 4 is full"),
        ("tictactoe", "55", IllegalMoveError, r"move 2 \('5'\): cell 5 is taken"),
        ("tictactoe", "50", InvalidMoveError, r"move 2 \('0'\): not a cell number 1-9"),
    ],
)
def test_bad_moves_are_game_errors_too(
    kind: str, moves: str, error: type[GameError], message: str
) -> None:
    with pytest.raises(error, match=message) as caught:
        new_game(kind, moves=moves)
    assert isinstance(caught.value, GameError) and isinstance(caught.value, Connect4Error)
    assert isinstance(caught.value, ValueError)  # one `except ValueError` still catches it


def test_a_board_narrow_but_tall_enough_for_a_vertical_four_is_fine() -> None:
    assert new_game("connect4", 1, 4).size == 4


def test_the_board_value_is_checked_once_and_names_its_games() -> None:
    board = Board("connect4", 5, 4, "count-fours")
    game = board.new("1122")
    assert Board.of(game) == board and board.cells == 20
    assert {Board(), Board("connect4", 7, 6, "standard")} == {Board()}  # a dict key
    assert Board("tictactoe", 7, 6) == Board("tictactoe") == Board.of(TicTacToe())
    assert (Board("tictactoe").width, Board("tictactoe").height) == (3, 3)
    assert board.new() is not board.new()  # a new game each time
    with pytest.raises(AttributeError):
        board.width = 6  # type: ignore[misc]
