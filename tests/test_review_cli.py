"""``connect4 review`` through the real command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli


def test_the_table_grades_every_move_and_sums_up_each_player() -> None:
    result = run_cli("review", "4455")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    rows = [line for line in lines if line.startswith("│")]
    assert [row.split("│")[4].strip() for row in rows] == [
        "best", "best", "blunder", "blunder ◀ decisive",
    ]  # fmt: skip
    assert "-18 -18 2 -18 -18 2 -18" in rows[3]
    assert lines[-3:] == [
        "red: accuracy 50.0 % (1 of 2 moves best), 0 good, 0 mistakes, 1 blunder",
        "yellow: accuracy 50.0 % (1 of 2 moves best), 0 good, 0 mistakes, 1 blunder",
        "decided at ply 4 (yellow plays 5, blunder)",
    ]


def test_json_has_the_rows_and_the_summary(tmp_path: Path) -> None:
    plot = tmp_path / "eval.png"
    result = run_cli("review", "51238", "--game", "tictactoe", "--json", "--plot", str(plot))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert sorted(data) == sorted(
        ["game", "width", "height", "rules", "moves", "result", "opening", "names",
         "decisive_ply", "outcomes", "evaluation", "players", "plies"]
    )  # fmt: skip
    assert (data["game"], data["moves"], data["result"]) == ("tictactoe", "51238", "X has won")
    assert [row["verdict"] for row in data["plies"]] == [
        "best", "best", "best", "mistake", "best",
    ]  # fmt: skip
    assert sorted(data["plies"][0]) == sorted(
        ["ply", "player", "name", "move", "label", "scores", "proven", "best_score",
         "best_moves", "played_score", "loss", "verdict"]
    )  # fmt: skip
    assert data["plies"][3]["best_moves"] == [7]
    assert data["players"][1] == {
        "player": 2, "name": "O", "moves": 2, "proven": 2, "best": 1, "good": 0,
        "mistakes": 1, "blunders": 0, "accuracy": 0.5,
    }  # fmt: skip
    assert data["decisive_ply"] == 4
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_writes_a_png(tmp_path: Path) -> None:
    plot = tmp_path / "eval.png"
    result = run_cli("review", "4455", "--plot", str(plot))
    assert result.returncode == 0, result.stderr
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.stdout.splitlines()[-1] == f"plot written to {plot}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["48"], "error: move 2 ('8'): column 8 is out of range 1-7"),
        (["4444444"], "error: move 7 ('4'): column 4 is full"),
        (["11", "--game", "tictactoe"], "error: move 2 ('1'): cell 1 is taken"),
        (
            ["4", "--rules", "count-fours"],
            "error: the solver handles the standard rules only: count-fours games cannot be "
            "reviewed",
        ),
    ],
)
def test_bad_input_is_one_line_on_stderr(args: list[str], message: str) -> None:
    result = run_cli("review", *args)
    assert result.returncode == 2
    assert result.stderr.strip() == message
    assert result.stdout == ""


def test_play_ends_with_the_review_summary() -> None:
    result = run_cli("play", "--red", "human", "--yellow", "human", stdin="4\n4\n5\n5\n6\n6\n7\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-5:] == [
        "Game review:",
        "red: accuracy 75.0 % (3 of 4 moves best), 0 good, 0 mistakes, 1 blunder",
        "yellow: accuracy 66.7 % (2 of 3 moves best), 0 good, 0 mistakes, 1 blunder",
        "decided at ply 4 (yellow plays 5, blunder)",
        "every move: connect4 review 4455667",
    ]


def test_play_without_review_quit_games_and_count_fours_print_no_summary() -> None:
    runs = [
        ("--no-review",),
        ("--rules", "count-fours", "--width", "4", "--height", "4"),
    ]
    stdins = ["4\n4\n5\n5\n6\n6\n7\n", "\n".join("1234" * 4) + "\n"]
    for options, stdin in zip(runs, stdins, strict=True):
        result = run_cli("play", "--red", "human", "--yellow", "human", *options, stdin=stdin)
        assert result.returncode == 0, result.stderr
        assert "Game review" not in result.stdout + result.stderr
    quit_game = run_cli("play", "--red", "human", "--yellow", "human", stdin="4\n4\nq\n")
    assert "Game review" not in quit_game.stdout


def test_positions_out_of_budget_are_shown_not_proven() -> None:
    result = run_cli("review", "3322", "--width", "6", "--height", "4", "--max-nodes", "1")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
    assert [row.split("│")[4].strip() for row in rows] == ["not proven"] * 4
    assert "red: accuracy - (0 of 0 moves best), 0 good, 0 mistakes, 0 blunders, 2 not proven" in (
        result.stdout
    )
    # nothing proven is not 'no decisive mistake'
    assert result.stdout.splitlines()[-1] == (
        "the review proved nothing: none of the 4 moves was solved within the budget"
    )
    assert "no decisive mistake" not in result.stdout


def test_a_review_with_some_moves_unproven_says_how_many() -> None:
    result = run_cli("review", "4444433333", "--max-nodes", "30")  # the book: plies 1-8
    assert result.returncode == 0, result.stderr
    last = result.stdout.splitlines()[-1]
    assert last.startswith("no decisive mistake proven: ") and "2 of 10 moves not solved" in last


def test_max_nodes_0_means_no_limit_as_time_limit_0_does() -> None:
    """0 is 'no limit' for both budgets (--max-nodes 0 was 'no budget, not even the book')."""
    zero = run_cli("review", "3322", "--width", "6", "--height", "4", "--max-nodes", "0",
                   "--time-limit", "0")  # fmt: skip
    assert zero.returncode == 0, zero.stderr
    assert "not proven" not in zero.stdout
    shown = run_cli("review", "--help")
    assert "0 = no limit" in " ".join(shown.stdout.split()).split("--max-nodes")[1]


def test_whitespace_around_the_moves_is_no_part_of_them() -> None:
    """As connect4 solve reads ' 4455 ': one parsing of move strings."""
    spaced, plain = run_cli("review", " 4455 ", "--json"), run_cli("review", "4455", "--json")
    assert spaced.returncode == 0, spaced.stderr
    assert json.loads(spaced.stdout) == json.loads(plain.stdout)
    solved = run_cli("solve", " 4455 ")
    assert (solved.returncode, solved.stdout) == (0, "4455 18\n")
