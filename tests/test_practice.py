"""Practise your mistakes: the exercises are exactly the review's mistakes, blunders and
missed wins; answers are graded as the solver scores them; the solver's answer and line;
``connect4 review --practice`` with its answers piped in."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from connect4.core import Board
from connect4.core.position import Position
from connect4.learn.practice import Practice, PracticeError, exercises, parse_sides
from connect4.review import review
from connect4.review.values import tictactoe_value
from connect4.solver import solve
from tests.cli_helpers import run_cli

TICTACTOE = Board("tictactoe")
SMALL = Board("connect4", 5, 4)


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


def _random_game(board: Board, rng: random.Random, length: int) -> str:
    game = board.new()
    while game.ply < length and not game.is_over():
        game.play(rng.choice(game.legal_moves()))
    return game.moves


def _solver_score(board: Board, position: str, move: int) -> int:
    """The move's exact score found without the review: the solver (or tic-tac-toe's full
    search) on the position after it, negated."""
    game = board.new(position)
    game.play(move)
    if game.winner() is not None or game.is_over():
        game.undo()
        return -_after(board, position, move)
    if board.kind == "tictactoe":
        return -tictactoe_value(game)
    assert isinstance(game, Position)
    return -solve(game)


def _after(board: Board, position: str, move: int) -> int:
    """Minus the score of a finished game's last move (a four or a full board)."""
    game = board.new(position)
    game.play(move)
    if game.winner() is None:
        return 0
    from connect4.core.score import win_score

    return -win_score(game.size, game.ply - 1)


def test_exercises_of_a_hand_made_game_are_its_missed_wins() -> None:
    # red's 5 throws the win away, yellow's 5 throws the next one away
    result = review("4455")
    found = exercises(result)
    assert [(e.ply, e.name, e.label, e.kind) for e in found] == [
        (3, "red", "5", "missed win"),
        (4, "yellow", "5", "missed win"),
    ]
    assert [e.position for e in found] == ["44", "445"]
    assert [e.ply for e in exercises(result, (2,))] == [4]
    first = found[0]
    assert first.scores == result.plies[2].scores
    assert first.best_moves == result.plies[2].best_moves
    assert all(first.scores[m] is not None and first.scores[m] > 0 for m in first.right_moves)


@pytest.mark.parametrize(
    ("board", "moves", "plies"),
    [
        (TICTACTOE, "5123", [4]),
        (TICTACTOE, "2468", [2, 3, 4]),
        (Board(), "4444441", [7]),
        (Board(), "44444417", [7, 8]),
        (Board(), "4444442", [7]),
    ],
)
def test_exercises_are_exactly_the_reviews_mistakes_blunders_and_missed_wins(
    board: Board, moves: str, plies: list[int]
) -> None:
    result = review(moves, board)
    wanted = [
        row.ply for row in result.plies if row.verdict in ("mistake", "blunder") or row.missed_win
    ]
    assert wanted == plies
    assert [e.ply for e in exercises(result)] == plies
    for exercise in exercises(result):
        row = result.plies[exercise.ply - 1]
        assert (exercise.verdict, exercise.move, exercise.scores) == (
            row.verdict, row.move, row.scores,
        )  # fmt: skip
        best = max(s for s in row.scores if s is not None)
        assert exercise.missed_win == (best > 0 >= row.scores[row.move])  # type: ignore[operator]


def test_an_imposed_opening_and_unproven_moves_give_no_exercise() -> None:
    assert exercises(review("4455", opening=3)) == exercises(review("4455"))[1:]
    from connect4.core.limits import Limit

    assert exercises(review("4455", limit=Limit(nodes=0), reuse_table=False)) == ()


def _check_grades(board: Board, moves: str) -> int:
    """Grade every legal answer of every exercise of ``moves`` against the solver's own
    scores; how many answers were graded."""
    graded = 0
    for exercise in exercises(review(moves, board)):
        scores = {
            m: _solver_score(board, exercise.position, m) for m in exercise.game().legal_moves()
        }
        best = max(scores.values())
        for move, score in scores.items():
            answer = exercise.grade(move)
            assert answer.score == score
            assert answer.right == (_sign(score) == _sign(best))
            assert (answer.grade == "best") == (score == best)
            assert (answer.grade == "better") == (
                _sign(score) != _sign(best) and score > exercise.played_score
            )
            if move == exercise.move:
                assert answer.grade == "wrong" and "the game's move" in answer.text
            graded += 1
    return graded


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_an_answer_is_right_iff_it_keeps_the_best_outcome_tictactoe(seed: int) -> None:
    _check_grades(TICTACTOE, _random_game(TICTACTOE, random.Random(seed), 9))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_an_answer_is_right_iff_it_keeps_the_best_outcome_connect4(seed: int) -> None:
    _check_grades(SMALL, _random_game(SMALL, random.Random(seed), 20))


def test_tictactoe_grades_a_slower_win_right_and_a_draw_better() -> None:
    (slower,) = [e for e in exercises(review("68271593", TICTACTOE)) if e.ply == 6]
    assert (slower.ply, slower.kind) == (6, "missed win")
    assert slower.grade(2).text == "right: 3 keeps the win (win in 2); the best, 9, is a win in 1"
    assert slower.grade(2).grade == "right"
    (drawn,) = [e for e in exercises(review("2761495", TICTACTOE)) if e.ply == 3]
    assert drawn.grade(4).text == "5 is better than the game's move, but only draws"


def test_many_answers_were_graded() -> None:
    """The property tests above are not empty: random games have mistakes to grade."""
    rng = random.Random(7)
    graded = sum(_check_grades(SMALL, _random_game(SMALL, rng, 20)) for _ in range(5))
    assert graded > 20


def test_an_answer_better_than_the_games_move_but_not_best_says_so() -> None:
    exercise = exercises(review("4444441"))[0]  # red's 1: a win became a loss
    better = [
        m for m, s in enumerate(exercise.scores) if s is not None and exercise.played_score < s <= 0
    ]
    assert better, exercise.scores
    answer = exercise.grade(better[0])
    assert answer.grade == "better" and not answer.right
    still = "only draws" if answer.score == 0 else "still loses (loss in"
    assert answer.text.startswith(f"{answer.label} is better than the game's move, but {still}")


def test_the_solution_is_a_best_move_and_its_line_plays_to_the_end() -> None:
    for board, moves in ((TICTACTOE, "5123"), (Board(), "4455"), (SMALL, "3322")):
        for exercise in exercises(review(moves, board)):
            solution = exercise.solution()
            assert solution.move in exercise.best_moves
            assert solution.score == exercise.best_score
            assert solution.complete
            game = exercise.game()
            for label in solution.line:
                game.play(game.parse_move(label))
            assert game.is_over()
            if exercise.best_score > 0:
                assert game.winner() == exercise.player


def test_a_practice_counts_how_each_exercise_ended() -> None:
    practice = Practice.of(review("2468", TICTACTOE))
    assert len(practice.exercises) == 3
    first = practice.current
    assert first is not None
    assert not practice.answer(first.move).right  # the game's own move
    assert practice.answer(first.best_moves[0]).right
    assert practice.current is not None and practice.current.ply == 3
    practice.reveal()
    practice.skip()
    assert practice.current is None
    summary = practice.summary()
    assert (summary.first_try, summary.after_retries, summary.revealed, summary.skipped) == (
        0, 1, 1, 1,
    )  # fmt: skip
    with pytest.raises(PracticeError, match="no exercise left"):
        practice.skip()


def test_answers_that_are_no_move_here_are_refused() -> None:
    exercise = exercises(review("4444441"))[0]
    for text, words in (("4", "full"), ("x", "not a column"), ("9", "1-7")):
        with pytest.raises(PracticeError, match=words):
            exercise.parse(text)
    taken = exercises(review("5123", TICTACTOE))[0]
    with pytest.raises(PracticeError, match="cell 5 is taken"):
        taken.parse("5")


def test_sides_are_named_by_colour_number_or_both() -> None:
    assert parse_sides("connect4", "red") == (1,)
    assert parse_sides("tictactoe", "O") == (2,)
    with pytest.raises(PracticeError, match="give x, o, 1, 2 or both"):
        parse_sides("tictactoe", "red")


# ---------------------------------------------------------------- the command line


def test_cli_practice_grades_answers_from_stdin_and_ends_with_a_summary() -> None:
    result = run_cli("review", "4455", "--practice", stdin="5\n3\n4\nh\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Exercise 1 of 2: ply 3, red to move: the game's 5 was a missed win" in out
    assert "wrong: 5 is the game's move (loss in 19)" in out
    assert "wrong: 3 is as bad as the game's move" in out
    assert "right: 4 is the best move (win in 20)" in out
    assert "Exercise 2 of 2: ply 4, yellow to move" in out
    assert "the answer: 3 (win in 19); the best line: 3 " in out
    assert out.splitlines()[-1] == (
        "Practice: 2 exercises: 0 right first time, 1 right after retries, 1 revealed, 0 skipped"
    )
    assert "│ ·  ·  · (○) ·  ·  · │" in out  # the terminal's board, yellow's 4 marked


def test_cli_practice_asks_again_after_bad_answers() -> None:
    result = run_cli("review", "4444441", "--practice", stdin="4\nx\n0\n\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    refusals = [line for line in lines if line.endswith("— try again")]
    assert len(refusals) == 4, lines
    assert "full" in refusals[0]
    assert lines[-2] == "end of input: the practice stops here"
    assert lines[-1].endswith("1 exercise: 0 right first time, 0 right after retries, "
                              "0 revealed, 0 skipped, 1 not reached")  # fmt: skip


def test_cli_practice_on_tictactoe_skips_and_quits() -> None:
    result = run_cli("review", "2468", "--game", "tictactoe", "--practice", stdin="s\nq\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Exercise 1 of 3: ply 2, O to move" in out
    assert "skipped" in out and "the practice stops here" in out
    assert out.splitlines()[-1].endswith("1 skipped, 2 not reached")


def test_cli_practice_side_picks_whose_moves() -> None:
    result = run_cli("review", "4455", "--practice", "--side", "yellow", stdin="3\n")
    assert result.returncode == 0, result.stderr
    assert "Exercise 1 of 1: ply 4, yellow to move" in result.stdout
    assert "right: 3 is the best move" in result.stdout
    assert result.stdout.splitlines()[-1].endswith("1 right first time, 0 right after "
                                                   "retries, 0 revealed, 0 skipped")  # fmt: skip


def test_cli_practice_json_prints_the_exercises() -> None:
    result = run_cli("review", "4455", "--practice", "--json", "--side", "red")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["moves"], data["sides"]) == ("4455", [1])
    (exercise,) = data["exercises"]
    assert (exercise["ply"], exercise["position"], exercise["kind"]) == (3, "44", "missed win")
    assert exercise["best_moves"] == [3]
    assert exercise["right_moves"] == [m for m, s in enumerate(exercise["scores"]) if s > 0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--side", "red"], "--side picks whose moves --practice asks about: add --practice"),
        (["--practice", "--side", "blue"], "side 'blue': give red, yellow, 1, 2 or both"),
    ],
)
def test_cli_practice_refuses_a_bad_side(args: list[str], message: str) -> None:
    result = run_cli("review", "4455", *args)
    assert result.returncode == 2
    assert result.stderr == f"error: {message}\n"


def test_ctrl_c_at_the_practice_prompt_is_one_line_and_130() -> None:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "connect4", "review", "4455", "--practice"],
        stdin=subprocess.PIPE,  # left open: the prompt waits for an answer
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        shown = ""
        while "your move" not in shown:  # the prompt: waiting for the answer
            char = process.stdout.read(1)
            assert char, f"ended before the prompt: {shown}"
            shown += char
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130
        assert process.stderr.read() == "interrupted\n"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_cli_practice_with_nothing_to_practise_says_so() -> None:
    result = run_cli("review", "44", "--practice", stdin="4\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "nothing to practise: no mistake, blunder or missed win was proven"
    )


def test_cli_practice_refuses_a_flood_on_stdin_at_once() -> None:
    command = [sys.executable, "-m", "connect4", "review", "4455", "--practice"]
    env = {**os.environ, "NO_COLOR": "1"}
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(command, stdin=zero, capture_output=True, timeout=120, env=env)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "error: input line 1 is longer than 1,024 bytes (more than any game's moves): "
        "the rest of the input is not read\n"
    )
