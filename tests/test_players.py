"""Player specs: parsing, errors listing the valid choices, reproducible random play."""

from __future__ import annotations

import pytest

from connect4 import Position, TicTacToe
from connect4.players import KINDS, PlayerSpecError, describe_players, make_player


def test_unknown_kind_lists_the_known_ones() -> None:
    with pytest.raises(PlayerSpecError) as raised:
        make_player("genius")
    message = str(raised.value)
    assert message.startswith("unknown player 'genius': choose one of ")
    for kind in ("human", "random"):
        assert kind in message


def test_unknown_key_lists_valid_keys() -> None:
    expected = r"random: unknown key 'speed' \(random takes: seed\)"
    with pytest.raises(PlayerSpecError, match=expected):
        make_player("random:speed=3")


def test_bad_value_says_what_is_allowed() -> None:
    with pytest.raises(PlayerSpecError, match="random: seed='x' must be an integer"):
        make_player("random:seed=x")
    with pytest.raises(PlayerSpecError, match="seed needs a value"):
        make_player("random:seed")


def test_random_player_is_reproducible() -> None:
    def game_with(seed: int) -> str:
        position = Position()
        red, yellow = make_player("random", seed=seed), make_player("random", seed=seed + 1)
        while not position.is_over():
            mover = red if position.to_move == 1 else yellow
            position.play(mover.choose(position).move)
        return position.moves

    assert game_with(5) == game_with(5)
    assert game_with(5) != game_with(6)


def test_random_player_plays_tictactoe() -> None:
    game = TicTacToe()
    player = make_player("random:seed=2", game="tictactoe")
    while not game.is_over():
        game.play(player.choose(game).move)
    assert game.ply >= 5


def test_human_player_is_driven_by_the_interface() -> None:
    human = make_player("human")
    assert human.is_human
    with pytest.raises(PlayerSpecError):
        human.choose(Position())


def test_describe_players_lists_every_kind() -> None:
    described = {entry["kind"]: entry for entry in describe_players()}
    assert set(described) == set(KINDS)
    assert "seed" in described["random"]["options"]
