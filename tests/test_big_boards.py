"""Everything above the solver on boards over 64 bits (8x8, 10x6): the perfect player's
levels, per-column analysis, the review, the arena, alpha-beta/MCTS (compiled over
two words), the PettingZoo and Gymnasium envs, and the vectorised env's refusal with
its way out."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from typer.testing import CliRunner

from connect4 import Position
from connect4.arena import ArenaConfig, run_tournament
from connect4.classic import results
from connect4.classic.search import Limits, search
from connect4.cli.app import app
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.envs import GYM_ID, ConnectFourEnv, pettingzoo_env, vector_env
from connect4.players import make_player
from connect4.review import review
from connect4.solver import Solver
from tests.naive import NaiveSolver
from tests.test_solver_wide import columns_of, late_positions

runner = CliRunner()


def test_per_column_analysis_and_the_perfect_players_levels_on_10x6() -> None:
    position = late_positions(10, 6, 13, 1, seed=61)[0]
    columns = NaiveSolver(10, 6).column_scores(columns_of(position))
    assert Solver(10, 6, tt_megabytes=4).analyze(position) == columns
    best = max(s for s in columns if s is not None)
    perfect = make_player("perfect", width=10, height=6).choose(position)
    assert perfect.proven and perfect.value == best and columns[perfect.move] == best
    for level in ("easy", "medium", "hard"):
        choice = make_player(f"perfect:level={level}", width=10, height=6, seed=3).choose(position)
        assert choice.proven and choice.column_scores == columns
        assert choice.value == columns[choice.move]


def test_classic_engines_on_8x8_run_compiled_over_two_words(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results, "_told", set())  # as in a fresh process
    position = late_positions(8, 8, 14, 1, seed=8)[0]
    for spec in ("alphabeta:depth=3", "alphabeta:level=easy", "minimax:depth=2"):
        choice = make_player(spec, width=8, height=8, seed=1).choose(position)
        assert choice.move in position.legal_moves()
        assert choice.stats["engine"] == "numba"
    mcts = make_player("mcts:playouts=300", width=8, height=8, seed=1).choose(position)
    assert mcts.move in position.legal_moves() and mcts.stats["engine"] == "numba"
    assert capsys.readouterr().err == ""  # nothing runs on the readable engine
    python = search(position, limits=Limits(depth=2), engine="python")
    assert search(position, limits=Limits(depth=2), engine="numba").pv == python.pv


def test_the_review_grades_the_end_of_a_10x6_game() -> None:
    position = late_positions(10, 6, 12, 1, seed=106)[0]
    game = position.copy()
    while not game.is_over():  # the side to move plays its first legal column
        game.play(game.legal_moves()[0])
    result = review(game.moves, Board("connect4", 10, 6), limit=Limit(nodes=100_000))
    graded = [row for row in result.plies if row.proven]
    assert graded and graded[-1].ply == game.ply
    for row in graded:  # every move's score near the end: a naive negamax's
        before = Position.from_moves(game.moves[: row.ply - 1], 10, 6)
        if before.size - before.ply <= 12:
            scores = NaiveSolver(10, 6).column_scores(columns_of(before))
            assert list(row.scores) == scores and row.played_score == scores[row.move]


def test_an_arena_on_10x6() -> None:
    config = ArenaConfig(
        players=("random", "alphabeta:depth=2"),
        games_per_pair=2,
        openings=("1a",),
        board=Board("connect4", 10, 6),
        seed=2,
    )
    run = run_tournament(config)
    assert len(run.records) == 2
    for record in run.records:
        moves = str(record["moves"])
        assert moves.startswith("1a")
        Position.from_moves(moves, 10, 6)  # a legal 10x6 game


def test_pettingzoo_and_gymnasium_on_8x8() -> None:
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    aec = pettingzoo_env(width=8, height=8)
    api_test(aec, num_cycles=40)
    aec.reset(seed=0)
    assert aec.observe("player_0")["observation"].shape == (8, 8, 2)
    env = ConnectFourEnv(opponent="alphabeta:depth=1", width=8, height=8)
    check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=1)
    assert observation.shape == (8, 8, 2) and info["action_mask"].tolist() == [1] * 8
    total = 0.0
    done = False
    while not done:  # the agent always plays its leftmost legal column
        action = int(np.flatnonzero(info["action_mask"])[0])
        observation, reward, done, _, info = env.step(action)
        total += reward
    assert total in (-1.0, 0.0, 1.0)


@pytest.mark.xdist_group("two-word-loop")  # on the wideboard doctest's worker: one compile
def test_the_vector_env_runs_8x8_compiled_and_in_sync_mode() -> None:
    compiled = vector_env(4, width=8, height=8)
    assert compiled.words == 2  # the two-word loop
    for envs in (
        gymnasium.make_vec(GYM_ID, num_envs=3, width=8, height=8),
        gymnasium.make_vec(GYM_ID, num_envs=3, vectorization_mode="sync", width=8, height=8),
    ):
        observation, info = envs.reset(seed=0)
        assert observation.shape == (3, 8, 8, 2) and info["action_mask"].shape == (3, 8)
        observation, _, _, _, info = envs.step(np.array([0, 3, 7]))
        assert observation[:, -1, [0, 3, 7], 0].tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        envs.close()


def test_cli_solve_analyze_on_8x8() -> None:
    position = late_positions(8, 8, 13, 1, seed=88)[0]
    columns = NaiveSolver(8, 8).column_scores(columns_of(position))
    result = runner.invoke(
        app, ["solve", "-a", "--width", "8", "--height", "8", "-t", "1"], input=position.moves
    )
    assert result.exit_code == 0, result.output
    expected = [position.moves, *("-" if s is None else str(s) for s in columns)]
    assert result.stdout.split() == expected


def test_terminal_play_against_the_perfect_player_on_8x8() -> None:
    result = runner.invoke(
        app,
        ["play", "--width", "8", "--height", "8", "--red", "random", "--yellow",
         "perfect:time=0.1", "--seed", "4", "--no-review", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["finished"] and summary["winner"] in (0, 1, 2)
    Position.from_moves(summary["moves"], 8, 8)
