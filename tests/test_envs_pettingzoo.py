"""The PettingZoo AEC env: the official checkers, and equality with connect_four_v3."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test

from connect4 import Position
from connect4.envs import ConnectFourAEC, pettingzoo_env

BOARDS = [
    {},
    {"width": 5, "height": 4, "rules": "count-fours"},
    {"game": "tictactoe"},
    {"width": 8, "height": 7},
]


@pytest.mark.parametrize("kwargs", BOARDS)
def test_api_test(kwargs: dict[str, object]) -> None:
    api_test(pettingzoo_env(**kwargs), num_cycles=300)  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs", BOARDS)
def test_seed_test(kwargs: dict[str, object]) -> None:
    seed_test(lambda: pettingzoo_env(**kwargs), num_cycles=300)  # type: ignore[arg-type]


def test_render_test() -> None:
    render_test(lambda render_mode=None: pettingzoo_env(render_mode=render_mode))


def test_render_modes_return_text_and_image() -> None:
    env = pettingzoo_env(render_mode="ansi")
    env.step(3)
    assert str(env.render()).splitlines()[-2] == ". . . X . . ."
    image = pettingzoo_env(width=5, height=4, render_mode="rgb_array").render()
    assert isinstance(image, np.ndarray)
    assert image.shape == (64, 80, 3) and image.dtype == np.uint8


def play_both(seed: int) -> int:
    """Play one random game in both envs, asserting equality at every step; its length."""
    connect_four = pytest.importorskip("pettingzoo.classic.connect_four_v3")
    theirs = connect_four.env()
    ours = pettingzoo_env()
    theirs.reset(seed=seed)
    ours.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent, other in zip(theirs.agent_iter(), ours.agent_iter(), strict=True):
        assert agent == other
        obs_t, reward_t, term_t, trunc_t, _ = theirs.last()
        obs_o, reward_o, term_o, trunc_o, _ = ours.last()
        np.testing.assert_array_equal(obs_t["observation"], obs_o["observation"])
        np.testing.assert_array_equal(obs_t["action_mask"], obs_o["action_mask"])
        assert obs_o["observation"].dtype == obs_o["action_mask"].dtype == np.int8
        assert (reward_t, term_t, trunc_t) == (reward_o, term_o, trunc_o)
        for name in theirs.possible_agents:
            np.testing.assert_array_equal(
                theirs.observe(name)["observation"], ours.observe(name)["observation"]
            )
        if term_t or trunc_t:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs_t["action_mask"])))
        theirs.step(action)
        ours.step(action)
        steps += 1
    assert theirs.rewards == ours.rewards
    return steps


@pytest.mark.parametrize("seed", range(20))
def test_matches_connect_four_v3_on_random_games(seed: int) -> None:
    assert play_both(seed) >= 8


def test_illegal_action_follows_connect_four_v3() -> None:
    connect_four = pytest.importorskip("pettingzoo.classic.connect_four_v3")
    results = []
    for env in (connect_four.env(), pettingzoo_env()):
        env.reset()
        for _ in range(6):
            env.step(0)
        env.step(1)
        env.step(0)  # player_1 plays into the full column
        rewards = {}
        for agent in env.agent_iter():
            _, reward, terminated, truncated, _ = env.last()
            rewards[agent] = (reward, terminated, truncated)
            env.step(None)
        results.append(rewards)
    assert (
        results[0]
        == results[1]
        == {
            "player_1": (-1, True, True),
            "player_0": (0, True, True),
        }
    )


def test_action_outside_the_space_raises() -> None:
    env = pettingzoo_env()
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(7)


def test_tictactoe_cells_and_rewards() -> None:
    env = pettingzoo_env(game="tictactoe")
    assert env.observation_space("player_0")["observation"].shape == (3, 3, 2)
    assert env.action_space("player_1").n == 9
    for cell in (4, 0, 6, 1, 2):  # numpad 5, 1, 7, 2, 3: X takes the diagonal 3-5-7
        env.step(cell)
    assert env.rewards == {"player_0": 1, "player_1": -1}
    top_row = env.observe("player_0")["observation"][0]
    assert top_row[:, 0].tolist() == [1, 0, 0] and top_row[:, 1].tolist() == [0, 0, 0]


def test_count_fours_on_5x4_plays_to_the_end_and_scores() -> None:
    env = pettingzoo_env(width=5, height=4, rules="count-fours")
    moves = "11223344" + "55" + "1234512345"
    for move in moves:
        assert not env.terminations[env.agent_selection]
        env.step(int(move) - 1)
    game = Position.from_moves(moves, width=5, height=4, rules="count-fours")
    assert game.is_over()
    expected = {None: (0, 0), 1: (1, -1), 2: (-1, 1)}[game.winner()]
    assert (env.rewards["player_0"], env.rewards["player_1"]) == expected
    assert all(env.terminations.values())


def test_is_an_aec_env() -> None:
    from pettingzoo import AECEnv

    assert isinstance(pettingzoo_env(), AECEnv) and isinstance(pettingzoo_env(), ConnectFourAEC)
