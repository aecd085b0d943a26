"""The terminal game's start: players made ready on a thread while the first prompt waits."""

from __future__ import annotations

import threading

import pytest

from connect4 import Position
from connect4.core.games import Board
from connect4.players import Player, PlayerSpecError, make_player
from connect4.terminal import BackgroundPlayer, ready_players, wait_until_ready


def test_a_named_spec_is_checked_before_the_game() -> None:
    with pytest.raises(PlayerSpecError, match="depth"):
        ready_players(["human", "alphabeta:depth=99"], [False, False], Board(), None, False)


def test_a_named_computer_player_is_built_at_once_and_rehearsed_on_a_thread() -> None:
    human, computer = ready_players(
        ["human", "alphabeta:depth=2"], [False, False], Board(), None, False
    )
    assert human.is_human and not isinstance(human, BackgroundPlayer)
    assert isinstance(computer, BackgroundPlayer) and computer.spec == "alphabeta:depth=2"
    assert computer.choose(Position.from_moves("112233")).move == 3
    computer.close()


def test_a_chosen_player_plays_as_the_same_player_built_directly() -> None:
    red, yellow = ready_players(["random", "random"], [True, True], Board(), 7, False)
    direct = [make_player("random", seed=7), make_player("random", seed=8)]
    game = Position()
    for player, twin in zip((red, yellow, red, yellow), direct * 2, strict=True):
        move = player.choose(game).move
        assert move == twin.choose(game).move
        game.play(move)


def test_a_failed_preparation_is_raised_where_the_player_is_used() -> None:
    (player,) = ready_players(["alphabeta:depth=99"], [True], Board(), None, False)
    wait_until_ready([player])  # leaves the error to the move
    with pytest.raises(PlayerSpecError, match="depth"):
        player.choose(Position())
    player.close()  # nothing was built: nothing to close


def test_the_player_is_used_only_after_its_preparation() -> None:
    release = threading.Event()
    closed: list[str] = []

    class Slow:
        spec, is_human = "slow", False

        def choose(self, game: Position, limit: object = None) -> object:
            raise AssertionError("not used here")

        def close(self) -> None:
            closed.append(self.spec)

    def prepare() -> Player:
        release.wait(5)
        return Slow()  # type: ignore[return-value]

    player = BackgroundPlayer("slow", prepare)
    waiter = threading.Thread(target=player.close)
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive() and not closed  # close waits for the preparation
    release.set()
    waiter.join(5)
    assert closed == ["slow"]
