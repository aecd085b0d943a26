"""The Gymnasium single-agent env: the official checker, opponents, masks, illegal actions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import gymnasium
from gymnasium.utils.env_checker import check_env

import connect4.envs
from connect4.core.game import Game
from connect4.envs import GYM_ID, ConnectFourEnv


def first_legal(game: Game) -> int:
    return game.legal_moves()[0]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"opponent": "random", "play_as": "random"},
        {"opponent": "alphabeta:depth=2", "play_as": "yellow", "width": 5, "height": 4},
        {"opponent": "random", "game": "tictactoe"},
        {"opponent": first_legal, "rules": "count-fours"},
    ],
)
def test_check_env(kwargs: dict[str, object]) -> None:
    env = gymnasium.make(GYM_ID, **kwargs)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_registered_on_import_with_the_spec_options() -> None:
    assert connect4.envs.GYM_ID == "connect4/ConnectFour-v0"
    env = gymnasium.make(GYM_ID, opponent="perfect:level=easy", play_as="yellow")
    assert isinstance(env.unwrapped, ConnectFourEnv)
    observation, info = env.reset(seed=3)
    assert observation.shape == (6, 7, 2) and observation.dtype == np.int8
    assert int(observation[:, :, 1].sum()) == 1  # red (the opponent) has moved
    assert info["play_as"] == "yellow"
    env.close()


def play_episode(seed: int) -> tuple[list[int], float, int]:
    """A seeded episode against "random", the agent choosing masked random moves."""
    env = gymnasium.make(GYM_ID, opponent="random", play_as="random")
    observation, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    reward = 0.0
    terminated = truncated = False
    steps = 0
    while not (terminated or truncated):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (7,)
        np.testing.assert_array_equal(mask, (observation[0].sum(axis=1) == 0).astype(np.int8))
        action = int(rng.choice(np.flatnonzero(mask)))
        observation, reward, terminated, truncated, info = env.step(action)
        trace.append(action)
        steps += 1
    game = env.unwrapped.game
    assert game.is_over() and not info.get("illegal_action")
    winner = game.winner()
    agent = env.unwrapped.agent_player
    assert reward == (0.0 if winner is None else 1.0 if winner == agent else -1.0)
    assert not info["action_mask"].any()
    env.close()
    return [*trace, agent], reward, game.ply


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seeded_episode_against_random_is_deterministic(seed: int) -> None:
    first = play_episode(seed)
    assert play_episode(seed) == first
    assert first[2] >= 7


def test_illegal_action_ends_the_episode_with_minus_one() -> None:
    env = ConnectFourEnv(opponent=lambda game: 0, width=4, height=4)  # both sides fill column 0
    env.reset(seed=0)
    for _ in range(2):
        _, reward, terminated, _, info = env.step(0)
        assert (reward, terminated) == (0.0, False)
    assert info["action_mask"].tolist() == [0, 1, 1, 1]
    _, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.game.ply == 4


def test_a_callable_opponent_and_a_bad_spec() -> None:
    env = ConnectFourEnv(opponent=lambda game: 6, play_as="yellow")
    observation, _ = env.reset()
    assert observation[-1, 6, 1] == 1
    with pytest.raises(ValueError, match="unknown player"):
        ConnectFourEnv(opponent="nobody")


def test_render_modes() -> None:
    env = ConnectFourEnv(render_mode="rgb_array", width=5, height=4)
    env.reset(seed=0)
    image = env.render()
    assert isinstance(image, np.ndarray) and image.shape == (64, 80, 3)
    text = ConnectFourEnv(render_mode="ansi", game="tictactoe")
    text.reset(seed=0)
    assert str(text.render()).count(".") == 9


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)


def test_the_package_does_not_import_the_rl_libraries() -> None:
    code = (
        "import sys, connect4, connect4.players, connect4.arena, connect4.cli\n"
        "print(sorted(m for m in ('gymnasium', 'pettingzoo') if m in sys.modules))"
    )
    assert run_python(code).stdout.strip() == "[]"


def test_a_missing_extra_names_it() -> None:
    code = "import sys\nsys.modules['pettingzoo'] = None\nfrom connect4.envs import ConnectFourEnv"
    result = run_python(code)
    assert result.returncode != 0 and "pip install -e '.[rl]'" in result.stderr


def test_the_examples_in_docs_envs_md_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from connect4.envs.dataset import make_dataset

    text = (Path(__file__).parent.parent / "docs" / "envs.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    # PettingZoo, Gymnasium, the vectorised env, labelled positions, Kaggle ConnectX
    assert len(blocks) == 5
    monkeypatch.chdir(tmp_path)  # the labelled-positions example reads data.npz
    make_dataset(12, (30, 38), tmp_path / "data.npz", workers=1, progress=False)
    capsys.readouterr()
    printed: dict[str, list[str]] = {}
    for block in blocks:
        exec(compile(block, "docs/envs.md", "exec"), {})
        printed[block] = capsys.readouterr().out.splitlines()
    (gym,) = [lines for block, lines in printed.items() if 'print(info["play_as"]' in block]
    assert gym[-1].split()[0] in ("red", "yellow")
    assert gym[-1].split()[1] in ("-1.0", "0.0", "1.0")
    (kaggle,) = [lines for block, lines in printed.items() if "kaggle_agent" in block]
    assert kaggle[-1] == "[1, -1]"  # perfect, moving first, beats Kaggle's negamax


def test_the_env_in_five_lines_in_docs_rl_md_runs() -> None:
    text = (Path(__file__).parent.parent / "docs" / "rl.md").read_text()
    block = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)[0]
    assert len(block.strip().splitlines()) == 5
    scope: dict[str, object] = {}
    exec(compile(block, "docs/rl.md", "exec"), scope)
    assert scope["observation"].shape == (6, 7, 2)  # type: ignore[attr-defined]
    assert scope["info"]["action_mask"].tolist() == [1] * 7  # type: ignore[index]
