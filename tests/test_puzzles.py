"""Puzzles: the definition on hand-made positions, verification, themes, and
``connect4 puzzles generate`` / ``verify`` through the real command line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from connect4 import Position
from connect4.core.games import Board
from connect4.core.processes import JobInterrupted
from connect4.learn.generate import generate_puzzles
from connect4.learn.mining import Candidate, candidates, mine_game
from connect4.learn.puzzlefile import read_puzzles
from connect4.learn.puzzles import (
    MAX_DEPTH,
    MAX_RATING,
    TRIVIAL_RATING,
    Puzzle,
    PuzzleError,
    find_puzzle,
    puzzle_id,
    rating_of,
    verify,
)
from connect4.learn.threats import explain, threat_map
from connect4.review import exact_scores
from tests.cli_helpers import interrupt_cli, journal_records, run_cli

DOUBLE = "6213363473676326576525"  # 7x6, red to move: only 4 wins, by a double threat


def puzzle_at(moves: str, width: int = 7, height: int = 6) -> Puzzle:
    found = find_puzzle(Position.from_moves(moves, width, height))
    assert found is not None, moves
    return found


def keepers(moves: str, sign: int, width: int = 7, height: int = 6) -> list[int]:
    scores = exact_scores(Position.from_moves(moves, width, height)).scores
    return [m for m, s in enumerate(scores) if s is not None and (s > 0) - (s < 0) == sign]


# ---------------------------------------------------------------- the definition
def test_two_winning_moves_is_no_puzzle() -> None:
    assert {2, 5} <= set(keepers("4455", 1))  # red wins with 3 or 6 (at once), and more
    assert find_puzzle(Position.from_moves("4455")) is None


def test_a_lost_position_is_no_puzzle() -> None:
    assert max(s for s in exact_scores(Position.from_moves("44556")).scores if s) < 0
    assert find_puzzle(Position.from_moves("44556")) is None


def test_exactly_one_winning_move_and_its_line() -> None:
    puzzle = puzzle_at(DOUBLE)
    assert keepers(DOUBLE, 1) == [3]
    assert (puzzle.solution, puzzle.outcome, puzzle.trivial) == ("444", "win", False)
    board = Position.from_moves(DOUBLE)
    board.play(3)
    reply = exact_scores(board).scores  # the reply is yellow's best-scored move
    assert reply[3] == max(s for s in reply if s is not None)
    assert keepers(board.moves, -1) == sorted(board.legal_moves())  # yellow loses whatever
    board.play(3)
    board.play(3)
    assert board.winner() == 1  # red's four ends the line
    assert puzzle.id == puzzle_id(Board(), Position.from_moves(DOUBLE))
    assert verify(puzzle).ok


def test_a_trivial_puzzle_is_the_easiest_tier() -> None:
    trivial = puzzle_at("36777454272212734247")  # red completes a four in column 3
    assert (trivial.solution, trivial.trivial, trivial.rating) == ("3", True, TRIVIAL_RATING)
    assert puzzle_at(DOUBLE).rating > TRIVIAL_RATING
    assert verify(trivial).ok


def test_only_connect4_standard_rules() -> None:
    with pytest.raises(PuzzleError, match="standard rules"):
        find_puzzle(Position.from_moves("44", rules="count-fours"))


# ---------------------------------------------------------------- verification
def test_verify_catches_a_changed_solution_move() -> None:
    puzzle = puzzle_at(DOUBLE)
    wrong = verify(dataclasses.replace(puzzle, solution="144"))
    assert not wrong.ok and "does not keep the win" in wrong.reason
    longer = puzzle_at("14155411455", 5, 4)
    assert longer.solution == "234333222" and verify(longer).ok
    reply = verify(dataclasses.replace(longer, solution="224333222"))
    assert not reply.ok and "(column 2) is not the most resisting reply" in reply.reason


def test_verify_catches_a_position_with_a_second_saving_move() -> None:
    position = Position.from_moves("4455")  # 3 and 6 both win
    corrupted = Puzzle(puzzle_id(Board(), position), Board(), "4455", "3", "win")
    verdict = verify(corrupted)
    assert not verdict.ok and "not the only move keeping the win: column 4, 5, 6" in verdict.reason


def test_verify_catches_a_cut_solution_and_a_wrong_id() -> None:
    puzzle = puzzle_at(DOUBLE)
    cut = verify(dataclasses.replace(puzzle, solution="4"))
    assert not cut.ok and "stops early" in cut.reason
    renamed = verify(dataclasses.replace(puzzle, id="0" * 12))
    assert not renamed.ok and "id" in renamed.reason


# ---------------------------------------------------------------- themes
THEME_CASES = [
    # (width, height, position, theme, a position of the same board without it)
    (7, 6, DOUBLE, "win-in-2", "62133"),
    (7, 6, "62133", "only-drawing-move", DOUBLE),
    (7, 6, "645545242215541676333", "defence", "62133"),  # else red's double threat wins
    (7, 6, "62133", "deep", DOUBLE),  # the only drawing move of an opening: 16 moves deep
    (7, 6, DOUBLE, "double-threat", "62133"),
    (5, 4, "333424452", "odd-even-threat", "222"),
    (5, 4, "14155411455", "zugzwang", "333424452"),
    (5, 4, "222", "claimeven", "333424452"),
]


@pytest.mark.parametrize(("width", "height", "moves", "theme", "without"), THEME_CASES)
def test_theme_on_a_hand_made_position(
    width: int, height: int, moves: str, theme: str, without: str
) -> None:
    assert theme in puzzle_at(moves, width, height).themes
    assert theme not in puzzle_at(without, width, height).themes


def test_themes_say_what_the_rules_say() -> None:
    """Each rule-based theme is the threat map's own reason along the solution."""
    board = Position.from_moves(DOUBLE)
    board.play(3)
    found = explain(board)  # yellow to move after red's 4: two threats, one stacked
    assert found is not None and found.rule == "double threat"
    assert puzzle_at("222", 5, 4).solution == "333"
    reason = explain(Position.from_moves("22233", 5, 4))  # yellow's third move of it
    assert reason is not None and reason.rule == "claimeven" and reason.move == 2
    odd = Position.from_moves("333424452", 5, 4)  # yellow's 2 makes a threat on an even row
    assert odd.to_move == 2 and puzzle_at("333424452", 5, 4).solution == "2"
    before = {(t.column, t.row) for t in threat_map(odd).yellow}
    odd.play(1)
    made = [t for t in threat_map(odd).yellow if (t.column, t.row) not in before]
    assert any(t.live and not t.playable and not t.odd for t in made)


def test_a_puzzle_line_round_trips() -> None:
    puzzle = puzzle_at(DOUBLE)
    assert Puzzle.from_dict(json.loads(json.dumps(puzzle.as_dict()))) == puzzle
    with pytest.raises(PuzzleError, match='"outcome"'):
        Puzzle.from_dict({**puzzle.as_dict(), "outcome": "loss"})


# ---------------------------------------------------------------- the command line
def games_files(folder: Path) -> list[Path]:
    """A tiny arena results file (one 7x6 game, one of another board) and a move-strings file."""
    results = folder / "results.jsonl"
    records = [{"moves": "4455661", "width": 7, "height": 6},
               {"moves": "3334", "width": 5, "height": 4}]  # fmt: skip
    results.write_text("".join(json.dumps(r) + "\n" for r in records))
    strings = folder / "games.txt"
    strings.write_text(DOUBLE + "11\n" + "62133634\n")
    return [results, strings]


def test_generate_from_files_and_verify(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    files = [arg for path in games_files(tmp_path) for arg in ("--from", str(path))]
    done = run_cli("puzzles", "generate", *files, "--out", str(out), "--workers", "1", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["games"], summary["other_boards"]) == (3, 1)
    puzzles = [p for _, p in read_puzzles(out)]
    assert summary["puzzles"] == len(puzzles) and puzzles
    assert DOUBLE in {p.position for p in puzzles}  # yellow's 1 threw the game: red's turn
    assert all(verify(p).ok for p in puzzles)
    checked = run_cli("puzzles", "verify", str(out))
    assert checked.returncode == 0 and "all verified" in checked.stdout, checked.stderr
    lines = out.read_text().splitlines()
    bad = json.loads(lines[0])
    bad["solution"] = "1" + bad["solution"][1:] if bad["solution"][0] != "1" else "2"
    lines[0] = json.dumps(bad)
    out.write_text("\n".join([*lines, '{"id": 3}']) + "\n")
    wrong = run_cli("puzzles", "verify", str(out))
    assert wrong.returncode == 1
    assert f"{out} line 1: move 1 of the solution" in wrong.stdout
    assert f"{out} line {len(lines) + 1}: not a puzzle" in wrong.stdout


def test_self_play_with_a_seed_is_the_same_run(tmp_path: Path) -> None:
    args = ["--self-play", "3", "--levels", "alphabeta:level=easy,mcts:playouts=50", "--seed",
            "5", "--workers", "1"]  # fmt: skip
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (first, second):
        done = run_cli("puzzles", "generate", *args, "--out", str(out))
        assert done.returncode == 0, done.stderr
    assert first.read_text() == second.read_text()
    sources = {p.source for _, p in read_puzzles(first)}
    assert all(source.startswith("self-play ") for source in sources)


def test_no_deep_and_a_trivial_share_leave_puzzles_out(tmp_path: Path) -> None:
    args = ["--self-play", "4", "--levels", "alphabeta:level=easy,mcts:playouts=50", "--seed",
            "5", "--workers", "1", "--json"]  # fmt: skip
    every, chosen = tmp_path / "all.jsonl", tmp_path / "chosen.jsonl"
    done = run_cli("puzzles", "generate", *args, "--out", str(every))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["left_out"] == 0
    options = ["--no-deep", "--trivial-share", "0"]
    done = run_cli("puzzles", "generate", *args, *options, "--out", str(chosen))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    all_puzzles = [p for _, p in read_puzzles(every)]
    kept = [p for _, p in read_puzzles(chosen)]
    expected = [p for p in all_puzzles if not p.trivial and "deep" not in p.themes]
    assert any(p.trivial for p in all_puzzles) and expected  # the check can fail
    assert kept == expected
    assert summary["left_out"] == len(all_puzzles) - len(kept)
    wrong = run_cli("puzzles", "generate", *args, "--trivial-share", "2", "--out", str(chosen),
                    "--force")  # fmt: skip
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert "trivial-share" in wrong.stderr


def test_resume_after_the_journal_says_some_are_done(tmp_path: Path) -> None:
    games = tmp_path / "games.txt"
    games.write_text(DOUBLE + "11\n62133634\n4455661\n")
    out = tmp_path / "p.jsonl"
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool, pytest.raises(JobInterrupted):
        generate_puzzles(out, files=[games], executor=pool, progress=False, stop_after=1)
    partial = tmp_path / "p.jsonl.partial"
    assert journal_records(partial) == 1 and not out.exists()
    refused = run_cli("puzzles", "generate", "--from", str(games), "--out", str(out))
    assert refused.returncode == 2 and "--resume" in refused.stderr
    done = run_cli("puzzles", "generate", "--from", str(games), "--out", str(out), "--resume",
                   "--workers", "1", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["from_journal"], summary["mined"]) == (1, 2)
    assert not partial.exists()
    fresh = tmp_path / "fresh.jsonl"
    assert run_cli("puzzles", "generate", "--from", str(games), "--out", str(fresh)).returncode == 0
    assert fresh.read_text() == out.read_text()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("4455661\n4448\n", "line 2: move 4 ('8'): column 8 is out of range 1-7"),
        ('{"moves": "44"}\n{"no": 1}\n', "line 2: not a game record"),
    ],
)
def test_a_bad_games_file_is_one_line(tmp_path: Path, content: str, expected: str) -> None:
    games = tmp_path / "games.txt"
    games.write_text(content)
    out = tmp_path / "p.jsonl"
    done = run_cli("puzzles", "generate", "--from", str(games), "--out", str(out))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and expected in done.stderr, done.stderr
    assert not out.exists() and not (tmp_path / "p.jsonl.partial").exists()


def test_bad_levels_and_no_games_are_one_line(tmp_path: Path) -> None:
    out = str(tmp_path / "p.jsonl")
    no_games = run_cli("puzzles", "generate", "--out", out)
    assert no_games.returncode == 2 and "no games to mine" in no_games.stderr
    levels = run_cli("puzzles", "generate", "--self-play", "1", "--levels", "wizard", "--out", out)
    assert levels.returncode == 2 and "wizard" in levels.stderr
    assert levels.stderr.count("\n") == 1, levels.stderr
    missing = run_cli("puzzles", "verify", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and missing.stderr.startswith("error:")


def test_ctrl_c_keeps_what_is_done(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    partial = tmp_path / "p.jsonl.partial"
    args = ["puzzles", "generate", "--self-play", "400", "--levels", "alphabeta:level=easy",
            "--seed", "2", "--workers", "1", "--out", str(out)]  # fmt: skip
    done = interrupt_cli(args, lambda _: journal_records(partial) >= 1, group=True)
    assert done.returncode == 130, done.stderr
    assert "resume with --resume" in done.stderr
    kept = journal_records(partial)
    assert kept >= 1 and not out.exists()


def test_a_longer_line_rates_higher_with_the_same_temptations() -> None:
    assert rating_of(3, 2) > rating_of(2, 2) > rating_of(1, 2)
    assert rating_of(1, 0) < rating_of(1, 3)
    assert rating_of(MAX_DEPTH, 0) < MAX_RATING  # the shallow range is spread below the cap
    assert puzzle_at("6455452422155416763").rating > puzzle_at("645545242215541676333").rating


def test_a_short_only_move_late_in_a_game_is_mined_without_a_swing() -> None:
    """Red's 3 at stone 20 was its only winning move and yellow's 3 its best reply: no
    move changed the outcome there, yet red's next only move (win in 2) is a candidate."""
    game = "645545242215541676333243"
    assert Candidate(21, game[:21]) in candidates(game, Board())
    assert "645545242215541676333" in [p.position for p in mine_game(game, Board(), "t")]
