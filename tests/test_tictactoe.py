"""Tic-tac-toe: numpad notation, rules, errors, fuzz, and the shared Game protocol."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from connect4 import Game, IllegalMoveError, InvalidMoveError, Position, TicTacToe


def count_games(game: TicTacToe) -> int:
    if game.is_over():
        return 1
    total = 0
    for move in game.legal_moves():
        game.play(move)
        total += count_games(game)
        game.undo()
    return total


def test_complete_game_tree_has_255168_games() -> None:
    assert count_games(TicTacToe()) == 255168


def test_numpad_notation_round_trips() -> None:
    game = TicTacToe.from_moves("5193")
    assert game.moves == "5193"
    assert game.history == [4, 0, 8, 2]
    assert str(game) == ". . X\n. X .\nO . O"
    assert repr(game) == "TicTacToe.from_moves('5193')"
    assert eval(repr(game), {"TicTacToe": TicTacToe}).key() == game.key()


@pytest.mark.parametrize(
    ("moves", "winner"),
    [("14253", 1), ("12539", 1), ("159", None), ("142596", 2), ("5987", None)],
)
def test_winners(moves: str, winner: int | None) -> None:
    assert TicTacToe.from_moves(moves).winner() == winner


def test_draw() -> None:
    game = TicTacToe.from_moves("759821463")
    assert game.is_over() and game.is_draw() and game.winner() is None
    assert game.legal_moves() == []
    assert game.result_text() == "draw"


@pytest.mark.parametrize(
    ("moves", "error", "message"),
    [
        ("55", IllegalMoveError, "move 2 ('5'): cell 5 is taken"),
        ("50", InvalidMoveError, "move 2 ('0'): not a cell number 1-9"),
        ("5a", InvalidMoveError, "move 2 ('a'): not a cell number 1-9"),
        ("142536", IllegalMoveError, "move 6 ('6'): the game is already over (X has won)"),
    ],
)
def test_errors(moves: str, error: type[ValueError], message: str) -> None:
    with pytest.raises(error) as raised:
        TicTacToe.from_moves(moves)
    assert str(raised.value) == message


def test_undo_restores() -> None:
    game = TicTacToe.from_moves("51")
    key = game.key()
    game.play(8)
    assert game.undo() == 8
    assert game.key() == key
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        TicTacToe().undo()


@settings(max_examples=2000, deadline=None)
@given(st.text(max_size=20))
def test_fuzz_from_moves_raises_only_move_errors(moves: str) -> None:
    try:
        TicTacToe.from_moves(moves)
    except (InvalidMoveError, IllegalMoveError) as error:
        assert str(error).startswith("move ")


def test_both_games_implement_the_protocol() -> None:
    for game in (Position(), Position(5, 4, "count-fours"), TicTacToe()):
        assert isinstance(game, Game)
