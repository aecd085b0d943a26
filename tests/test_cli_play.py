"""`connect4 play` through a real subprocess with piped input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli


def test_piped_game_red_wins() -> None:
    result = run_cli("play", "--red", "human", "--yellow", "human", stdin="4\n4\n5\n5\n6\n6\n7\n")
    assert result.returncode == 0, result.stderr
    assert "Red wins after 7 moves: 4455667" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_invalid_input_is_explained_and_asked_again() -> None:
    moves = "x\n0\n9\n4\n4\n4\n4\n4\n4\n4\n5\nq\n"
    result = run_cli("play", "--red", "human", "--yellow", "human", stdin=moves)
    assert result.returncode == 0
    out = result.stdout
    assert "move 1 ('x'): not a column number 1-7 — try again" in out
    assert "move 1 ('0'): column 0 is out of range 1-7 — try again" in out
    assert "move 1 ('9'): column 9 is out of range 1-7 — try again" in out
    assert "move 7 ('4'): column 4 is full — try again" in out
    assert "quit after 7 moves (4444445)" in out
    assert "Traceback" not in out + result.stderr


def test_a_long_line_within_the_bound_is_asked_again() -> None:
    # int() of a long digit string was slow, then refused (a traceback over 4,300 digits)
    moves = "4" * 1000 + "\n" + "x" * 1024 + "\n4\n4\n5\n5\n6\n6\n7\n"
    for game in ("connect4", "tictactoe"):
        stdin = moves if game == "connect4" else "9" * 1000 + "\n1\n4\n2\n5\n3\n"
        result = run_cli("play", "--game", game, "--red", "human", "--yellow", "human", stdin=stdin)
        assert result.returncode == 0, result.stderr
        assert "characters): " in result.stdout and "try again" in result.stdout
        assert "wins after" in result.stdout
        assert "Traceback" not in result.stdout + result.stderr


def test_json_output_has_moves_winner_and_times() -> None:
    result = run_cli(
        "play", "--red", "human", "--yellow", "human", "--json", stdin="1\n2\n1\n2\n1\n2\n1\n"
    )
    assert result.returncode == 0
    record = json.loads(result.stdout)
    assert record["moves"] == "1212121"
    assert record["winner"] == 1
    assert record["finished"] is True
    assert len(record["move_seconds"]) == 7
    assert all(seconds >= 0 for seconds in record["move_seconds"])


def test_random_players_are_reproducible_with_a_seed() -> None:
    def run(seed: str) -> dict[str, object]:
        result = run_cli("play", "--red", "random", "--yellow", "random", "--seed", seed, "--json")
        assert result.returncode == 0, result.stderr
        record: dict[str, object] = json.loads(result.stdout)
        return record

    first, second = run("11"), run("11")
    assert first["moves"] == second["moves"]
    assert first["finished"] is True


def test_end_of_input_before_the_end_exits_cleanly() -> None:
    result = run_cli("play", "--red", "human", "--yellow", "human", "--json", stdin="4\n4\n")
    assert result.returncode == 0
    assert "end of input before the game ended: stopped after 2 moves (44)" in result.stderr
    record = json.loads(result.stdout)
    assert record == {**record, "moves": "44", "winner": None, "finished": False}


def test_undo_against_the_computer_takes_back_two_plies() -> None:
    result = run_cli(
        "play", "--red", "human", "--yellow", "random", "--seed", "3", "--json", stdin="4\nu\nq\n"
    )
    assert result.returncode == 0
    assert "undone: back to the empty board" in result.stderr
    assert json.loads(result.stdout)["moves"] == ""


def test_undo_between_humans_takes_back_one_ply() -> None:
    result = run_cli("play", "--red", "human", "--yellow", "human", stdin="4\n5\nu\n3\nq\n")
    assert "undone: back to 4" in result.stdout
    assert "quit after 2 moves (43)" in result.stdout


def test_tictactoe_game() -> None:
    result = run_cli(
        "play", "--game", "tictactoe", "--red", "human", "--yellow", "human",
        stdin="5\n5\n1\n9\n3\n7\n2\n",
    )  # fmt: skip
    assert result.returncode == 0
    assert "cell 5 is taken" in result.stdout
    assert "O wins after 6 moves: 519372" in result.stdout  # O: 1-2-3


def test_count_fours_game_continues_after_a_four() -> None:
    moves = "\n".join("1234" * 4) + "\n"  # fills a 4x4 board; red owns the odd columns
    result = run_cli(
        "play", "--rules", "count-fours", "--width", "4", "--height", "4",
        "--red", "human", "--yellow", "human", "--json", stdin=moves,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["moves"] == "1234" * 4
    assert record["finished"] is True
    assert record["winner"] is None  # two vertical fours each
    assert "Draw (2-2 fours)" in result.stderr


def test_bad_player_spec_is_a_clear_error() -> None:
    result = run_cli("play", "--red", "genius", "--yellow", "human")
    assert result.returncode == 2
    assert "error: unknown player 'genius'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("option", "value", "echo"),
    [
        ("--red", "g" * 10_000, "unknown player '" + "g" * 40 + "…'"),
        ("--red", "random:" + "k" * 10_000 + "=1", "random: unknown key '" + "k" * 40 + "…'"),
        ("--red", "mcts:playouts=" + "9" * 10_000, "mcts: playouts='" + "9" * 40 + "…'"),
        ("--game", "g" * 10_000, "unknown game '" + "g" * 40 + "…'"),
        ("--rules", "r" * 10_000, "unknown rules '" + "r" * 40 + "…'"),
    ],
)
def test_long_input_is_echoed_cut_in_errors(option: str, value: str, echo: str) -> None:
    """A 10,000-character spec was echoed whole in its error."""
    result = run_cli("play", option, value, "--yellow", "human")
    assert result.returncode == 2
    assert echo in result.stderr
    assert len(result.stderr) < 300, result.stderr


def test_bad_board_size_and_rules_are_clear_errors() -> None:
    result = run_cli("play", "--width", "12", "--height", "10")
    assert result.returncode == 2
    assert "error: board 12x10 is too large" in result.stderr
    result = run_cli("play", "--rules", "nine-men")
    assert result.returncode == 2
    assert "error: unknown rules 'nine-men'" in result.stderr


def test_a_failing_bot_forfeits_with_its_reason_and_exit_status_1() -> None:
    bots = Path(__file__).resolve().parent / "fake_bots"
    expected = {
        "crash": "crash (exit status 1: RuntimeError: fake bot crashed)",
        "exits": "exited (exit status 0)",
        "garbage": "bad output 'hello'",
        "illegal": "illegal move 9",
    }
    for bot, reason in expected.items():
        spec = f"cmd:{sys.executable} {bots / bot}.py"
        result = run_cli("play", "--red", "human", "--yellow", spec, "--json", stdin="4\n4\n4\n")
        assert result.returncode == 1, (bot, result.stderr)
        record = json.loads(result.stdout)
        assert record["forfeit"] == 2 and record["winner"] == 1 and record["reason"] == reason
        said = " ".join(result.stderr.split())  # the console wraps long lines
        assert f"forfeits: {reason}" in said
        assert "Red wins by forfeit after" in said
        assert "Traceback (most recent call last)" not in result.stderr


def test_a_failing_hint_bot_is_reported_and_the_game_goes_on() -> None:
    spec = f"cmd:{sys.executable} {Path(__file__).resolve().parent / 'fake_bots' / 'crash.py'}"
    stdin = "h\n4\n4\n5\n5\n6\n6\n7\n"
    result = run_cli("play", "--red", "human", "--yellow", "human", "--hint", spec, stdin=stdin)
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stdout.split())
    assert "no hint available: the hint bot" in said and "failed: crash" in said
    assert "Red wins after 7 moves: 4455667" in result.stdout


@pytest.mark.slow
def test_a_first_game_starts_before_the_solver_is_compiled(tmp_path: Path) -> None:
    """With every cache empty, the game starts at once (the solver compiles in a child
    process, started on a thread while the first prompt waits), the opening comes from
    the book, and the computer's first move past the book waits for the compile with a
    line before and after."""
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "CONNECT4_CACHE_DIR": str(tmp_path / "kernel"),
        "COLUMNS": "200",
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "connect4", "play", "--red", "human", "--yellow", "auto"],
        input="4\n4\n3\n5\n2\nq\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "compiling the solver" not in done.stderr  # not in this process
    lines = [line for line in out.splitlines() if "solver" in line or "plays" in line]
    assert [line.split()[3] for line in lines[0:4]] == ["4", "4", "5", "5"]  # from the book
    assert all(", nodes 0," in line for line in lines[0:4])
    assert lines[4] == "yellow (perfect) needs the solver: still compiling (first run only)..."
    assert lines[5].startswith("the solver is ready (")
    assert lines[6].startswith("yellow (perfect) plays 1  ")  # searched
    assert out.rstrip().endswith("quit after 10 moves (4444355521)")
    assert [p.name[:11] for p in (tmp_path / "kernel").glob("*.native")] == ["kernel-7x6-"]


def test_one_move_quits_in_the_singular_and_auto_names_the_opponent() -> None:
    alone = run_cli("play", "--red", "human", "--yellow", "human", stdin="4\nq\n")
    assert "quit after 1 move (4)" in alone.stdout
    assert "against" not in alone.stdout
    against = run_cli("play", "--red", "human", "--yellow", "auto", stdin="q\n")
    assert against.stdout.splitlines()[0] == (
        "you play Red against perfect (auto: the strongest AI here)"
    )
    assert "quit after 0 moves (empty board)" in against.stdout


def test_tictactoe_asks_for_a_cell() -> None:
    result = run_cli("play", "--game", "tictactoe", "--red", "human", "--yellow", "human",
                     stdin="q\n")  # fmt: skip
    assert "X to move — cell, u undo, h hint, q quit: q" in result.stdout
    assert "column" not in result.stdout


def test_a_long_line_is_echoed_cut() -> None:
    result = run_cli("play", "--red", "human", "--yellow", "human", stdin="x" * 1000 + "\nq\n")
    assert "x" * 40 + "…" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) < 200
    assert "move 1 ('xxxxxxxxxxxxxxxxxxxx...', 1000 characters): not a column" in result.stdout


@pytest.mark.parametrize("flood", ["zero", "line"])
def test_a_flood_on_stdin_is_refused_at_once(flood: str) -> None:
    """A line longer than any game ends the game with its number, read no further
    (``< /dev/zero`` grew the process to gigabytes)."""
    command = [sys.executable, "-m", "connect4", "play", "--red", "human", "--yellow", "human"]
    env = {**os.environ, "NO_COLOR": "1"}
    if flood == "zero":
        with open("/dev/zero", "rb") as zero:
            done = subprocess.run(command, stdin=zero, capture_output=True, timeout=120, env=env)
    else:
        text = b"4\n" + b"5" * 50_000_000 + b"\n4\n"
        done = subprocess.run(command, input=text, capture_output=True, timeout=120, env=env)
    number = 1 if flood == "zero" else 2
    assert done.returncode == 1
    assert done.stderr.decode() == (
        f"error: input line {number} is longer than 1,024 bytes (more than any game's "
        "moves): the rest of the input is not read\n"
    )


def test_count_fours_names_the_winners_count_first() -> None:
    moves = "\n".join("23425142335214115354") + "\n"  # yellow owns 2 fours, red 1
    result = run_cli(
        "play", "--rules", "count-fours", "--width", "5", "--height", "4",
        "--red", "human", "--yellow", "human", stdin=moves,
    )  # fmt: skip
    assert "Yellow wins (2-1 fours) after 20 moves: 23425142335214115354" in result.stdout


def test_a_searchs_win_is_told_in_words() -> None:
    result = run_cli("play", "--red", "human", "--yellow", "alphabeta:depth=6",
                     stdin="1\n1\n1\n7\n7\n")  # fmt: skip
    plays = [line for line in result.stdout.splitlines() if "plays" in line]
    assert plays[0].startswith("yellow (alphabeta:depth=6) plays 3  heuristic -15, nodes ")
    assert plays[3].startswith("yellow (alphabeta:depth=6) plays 4  win in 2, nodes ")
    assert plays[4].startswith("yellow (alphabeta:depth=6) plays 2  win in 1, nodes ")
    assert "e+09" not in result.stdout and "value" not in result.stdout
    assert "Yellow wins after 10 moves: 1315117472" in result.stdout


def test_a_hint_without_proof_shows_no_score() -> None:
    """On 8x7 the perfect player cannot solve the empty board within its second: its
    hint is the move of its fallback search, with no value to mistake for a score."""
    result = run_cli("play", "--width", "8", "--height", "7", "--red", "human",
                     "--yellow", "human", stdin="h\nq\n", timeout=300)  # fmt: skip
    hint = [line for line in result.stdout.splitlines() if line.startswith("hint")]
    assert hint == ["hint (perfect): play 4 (not proven)"]


def test_an_exact_tictactoe_hint_is_worded_as_exact() -> None:
    """A search that reaches every game end knows a draw: it was 'heuristic +0'."""
    result = run_cli("play", "--game", "tictactoe", "--red", "human", "--yellow", "human",
                     stdin="5\nh\nq\n")  # fmt: skip
    hint = [line for line in result.stdout.splitlines() if line.startswith("hint")]
    assert hint[0].startswith("hint (alphabeta:depth=9): play 1 (draw with best play, nodes ")
    assert "heuristic" not in result.stdout


def test_the_perfect_players_seconds_are_rounded_as_the_move_times() -> None:
    """Its stats gave 0.00042849999999816646 s beside move_seconds' 0.000428."""
    result = run_cli("play", "--red", "perfect", "--yellow", "random", "--seed", "1", "--json",
                     "--no-review")  # fmt: skip
    assert result.returncode == 0, result.stderr
    stats = [s for s in json.loads(result.stdout)["move_stats"] if s is not None]
    assert stats and all(s["seconds"] == round(s["seconds"], 6) for s in stats)
