"""``connect4 puzzle`` through the real command: puzzles solved, failed, hinted and
shown with answers piped in, the player's record under the cache root, the options
and their errors, Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from connect4 import Position
from connect4.learn.puzzlefile import write_puzzles
from connect4.learn.puzzleindex import PuzzleIndex, right_moves, shipped_puzzles
from connect4.learn.puzzles import Puzzle, find_puzzle
from connect4.learn.ratings import RECORD
from tests.cli_helpers import cli_env, run_cli

WIN_IN_1 = "36777454272212734247"  # red completes a four in column 3, nothing else wins


@pytest.fixture(scope="module")
def shipped() -> PuzzleIndex:
    path = shipped_puzzles()
    assert path is not None
    return PuzzleIndex.load(path)


@pytest.fixture(scope="module")
def long_win(shipped: PuzzleIndex) -> Puzzle:
    """A shipped puzzle whose solution asks three moves of the solver's side."""
    return next(p for p in shipped.puzzles if p.outcome == "win" and len(p.solution) == 5)


def run(cache: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``connect4 puzzle ARGS`` with ``cache`` as the cache root."""
    return run_cli("puzzle", *args, stdin=stdin, env={"CONNECT4_CACHE_DIR": str(cache)})


def answers(puzzle: Puzzle) -> str:
    """The solver's side's moves of the solution, one a line."""
    return "".join(f"{move}\n" for move in puzzle.solution[::2])


def record(cache: Path) -> dict[str, object]:
    data = json.loads((cache / RECORD).read_text())
    assert isinstance(data, dict)
    return data


def rating(cache: Path) -> float:
    player = record(cache)["player"]
    assert isinstance(player, list)
    return float(player[0])


def test_solving_a_shipped_puzzle_by_its_moves(tmp_path: Path, long_win: Puzzle) -> None:
    done = run(tmp_path, "--id", long_win.id, stdin=answers(long_win))
    assert done.returncode == 0, done.stderr
    side = ("Red", "Yellow")[Position.from_moves(long_win.position).to_move - 1]
    assert f"{side} to move: find the only move that keeps the win" in done.stdout
    assert done.stdout.count("✓") == 3
    assert f"answers {long_win.solution[1]}; find the next move" in done.stdout
    assert f"Solved — puzzle {long_win.id}: rating {long_win.rating}, themes " in done.stdout
    assert "Puzzles: 1 of 1 solved, your rating 1500 → " in done.stdout
    data = record(tmp_path)
    assert (data["attempts"], data["solved"], data["streak"], data["best_streak"]) == (1, 1, 1, 1)
    assert rating(tmp_path) > 1500  # a win against the puzzle
    assert long_win.id in data["puzzles"]  # type: ignore[operator]
    assert done.stderr == ""


def test_a_tiny_file_of_my_own(tmp_path: Path) -> None:
    found = find_puzzle(Position.from_moves(WIN_IN_1))
    assert found is not None and found.solution == "3"
    path = tmp_path / "mine.jsonl"
    write_puzzles(path, [found])
    cache = tmp_path / "cache"
    done = run(cache, "--file", str(path), "--count", "2", stdin="3\n3\n")
    assert done.returncode == 0, done.stderr
    assert f"Puzzles from {path} (1): your rating 1500" in done.stdout
    assert "Puzzle 2 (" in done.stdout  # the one puzzle again: nothing else is near
    assert "(tried before: not rated again); streak 1, best 1" in done.stdout
    assert "Puzzles: 2 of 2 solved" in done.stdout and "best streak 1" in done.stdout
    assert record(cache)["attempts"] == 1  # a puzzle is rated once


def test_a_puzzle_is_rated_once(tmp_path: Path, long_win: Puzzle) -> None:
    run(tmp_path, "--id", long_win.id, stdin=answers(long_win))
    kept = (tmp_path / RECORD).read_bytes()
    again = run(tmp_path, "--id", long_win.id, stdin="s\n")
    assert again.returncode == 0, again.stderr
    assert "Failed (the solution was shown)" in again.stdout
    assert "(tried before: not rated again); streak 1, best 1" in again.stdout
    assert (tmp_path / RECORD).read_bytes() == kept


def test_any_four_is_right_at_the_last_step(tmp_path: Path, shipped: PuzzleIndex) -> None:
    puzzle = next(p for p in shipped.puzzles if len(right_moves(p)[-1]) > 1)
    last = right_moves(puzzle)[-1]
    other = next(m for m in last if str(m + 1) != puzzle.solution[-1])
    moves = [*puzzle.solution[::2][:-1], str(other + 1)]
    done = run(tmp_path, "--id", puzzle.id, "--no-record", stdin="\n".join(moves) + "\n")
    assert "Solved — puzzle" in done.stdout, done.stdout


def test_a_wrong_move_fails_and_shows_the_solution(tmp_path: Path, long_win: Puzzle) -> None:
    position = Position.from_moves(long_win.position)
    wrong = next(m for m in position.legal_moves() if m not in right_moves(long_win)[0])
    done = run(tmp_path, "--id", long_win.id, stdin=f"{wrong + 1}\n")
    assert done.returncode == 0, done.stderr
    assert f"✗ {wrong + 1} does not keep the win: the move was {long_win.solution[0]}" in (
        done.stdout
    )
    names = ("red", "yellow") if position.to_move == 1 else ("yellow", "red")
    said = ", ".join(f"{names[i % 2]} {m}" for i, m in enumerate(long_win.solution))
    assert f"the solution from here: {said}" in done.stdout
    assert "Failed — puzzle" in done.stdout
    assert rating(tmp_path) < 1500
    assert (record(tmp_path)["solved"], record(tmp_path)["streak"]) == (0, 0)


def test_a_hinted_solve_counts_as_failed(tmp_path: Path, long_win: Puzzle) -> None:
    first = long_win.solution[0]
    done = run(tmp_path, "--id", long_win.id, stdin="h\nh\nh\n" + answers(long_win))
    assert done.returncode == 0, done.stderr
    assert "hint: look at the threats" in done.stdout
    marked = done.stdout.split("hint: the move is one of the marked columns (")[1].split(")")[0]
    assert first in marked.split(", ") and len(marked.split(", ")) <= 3
    assert "no more hints: s shows the solution" in done.stdout
    assert "Solved with a hint: it counts as failed" in done.stdout
    assert record(tmp_path)["solved"] == 0 and rating(tmp_path) < 1500


def test_showing_the_solution_fails(tmp_path: Path, long_win: Puzzle) -> None:
    done = run(tmp_path, "--id", long_win.id, stdin=f"{long_win.solution[0]}\ns\n")
    assert done.returncode == 0, done.stderr
    rest = long_win.solution[2:]
    assert f"the rest of the solution: {rest[0]}" not in done.stdout  # named by side
    assert "the rest of the solution: " in done.stdout
    assert done.stdout.split("the rest of the solution: ")[1].split("\n")[0].endswith(rest[-1])
    assert "Failed (the solution was shown)" in done.stdout
    assert record(tmp_path)["attempts"] == 1 and rating(tmp_path) < 1500


def test_bad_input_is_asked_again(tmp_path: Path, shipped: PuzzleIndex) -> None:
    def full_column(puzzle: Puzzle) -> int | None:
        heights = Position.from_moves(puzzle.position).heights
        return next((c for c, h in enumerate(heights) if h == 6), None)

    puzzle = next(p for p in shipped.puzzles if full_column(p) is not None)
    full = full_column(puzzle)
    assert full is not None
    stdin = f"x\n9\n{full + 1}\n" + answers(puzzle)
    done = run(tmp_path, "--id", puzzle.id, "--no-record", stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert "not a column number 1-7 — try again" in done.stdout
    assert "column 9 is out of range 1-7 — try again" in done.stdout
    assert f"column {full + 1} is full — try again" in done.stdout
    assert "Solved — puzzle" in done.stdout


def test_the_end_of_input_ends_with_the_summary(tmp_path: Path) -> None:
    done = run(tmp_path, "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert "end of input: the puzzles stop here; this one is not counted" in done.stdout
    assert done.stdout.rstrip().endswith("Puzzles: no puzzle finished; your rating 1500")
    assert not (tmp_path / RECORD).exists()  # nothing finished, nothing written


def test_quit_after_some_and_the_picks_follow_the_rating(tmp_path: Path) -> None:
    done = run(tmp_path, "--rating", "2400", "--theme", "zugzwang", "--seed", "3",
               stdin="s\ns\nq\n")  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = [line for line in done.stdout.splitlines() if line.startswith("Failed (")]
    assert len(results) == 2
    ids = set()
    for line in results:
        puzzle_id, _, rest = line.partition("puzzle ")[2].partition(": rating ")
        ids.add(puzzle_id)
        assert abs(int(rest.split(",")[0]) - 2400) <= 200
        assert "zugzwang" in rest
    assert len(ids) == 2  # not the same one twice
    assert "the puzzles stop here; this one is not counted" in done.stdout
    assert "Puzzles: 0 of 2 solved" in done.stdout
    assert record(tmp_path)["attempts"] == 2


def test_the_default_rating_is_the_players_own(
    tmp_path: Path, shipped: PuzzleIndex, long_win: Puzzle
) -> None:
    other = next(p for p in shipped.puzzles if p.id != long_win.id)
    for puzzle in (long_win, other):  # two failures: the rating falls far below 1500
        run(tmp_path, "--id", puzzle.id, stdin="s\n")
    own = rating(tmp_path)
    done = run(tmp_path, "--seed", "5", stdin="s\n")
    assert f"your rating {round(own)}, 0 of 2 solved before" in done.stdout
    shown = int(done.stdout.split(": rating ")[1].split(",")[0])
    assert abs(shown - own) <= 400, (shown, own)


def test_no_record_leaves_no_file(tmp_path: Path, long_win: Puzzle) -> None:
    done = run(tmp_path, "--id", long_win.id, "--no-record", stdin=answers(long_win))
    assert done.returncode == 0, done.stderr
    assert "(not recorded)" in done.stdout and "Solved" in done.stdout
    assert not tmp_path.exists() or list(tmp_path.iterdir()) == []


def test_a_damaged_record_is_one_line_and_left_alone(tmp_path: Path) -> None:
    tmp_path.joinpath(RECORD).write_text('{"version": 1, "player": [')
    done = run(tmp_path, "--seed", "1", stdin="s\n")
    assert done.returncode == 2
    assert done.stderr.startswith("error: the puzzle record ") and "is damaged" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert tmp_path.joinpath(RECORD).read_text() == '{"version": 1, "player": ['
    assert done.stdout == ""


def test_reset_forgets_the_record(tmp_path: Path, long_win: Puzzle) -> None:
    run(tmp_path, "--id", long_win.id, stdin="s\n")
    assert rating(tmp_path) < 1500
    done = run(tmp_path, "--reset")
    assert done.returncode == 0, done.stderr
    assert (
        f"forgot your puzzle record ({tmp_path / RECORD}): your rating starts again from 1500"
        in (done.stdout)
    )
    assert "your rating 1500" in done.stdout and not (tmp_path / RECORD).exists()
    again = run(tmp_path, "--reset")
    assert "no record to forget: your rating starts again from 1500" in again.stdout
    damaged = tmp_path / RECORD
    damaged.write_text("not json")
    fixed = run(tmp_path, "--reset", "--id", long_win.id, stdin=answers(long_win))
    assert fixed.returncode == 0, fixed.stderr
    assert record(tmp_path)["solved"] == 1  # the damaged one is forgotten, a new one kept


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--theme", "fork"], "unknown theme 'fork'"),
        (["--id", "abc123"], "no puzzle abc123 in the shipped set"),
        (["--id", "XYZ"], "'XYZ' is no puzzle id"),
        (["--reset", "--no-record"], "--reset forgets the record that --no-record"),
        (["--id", "abc", "--count", "2"], "--id names one puzzle"),
        (["--rating", "5000"], "--rating is from 0 to 2800, not 5000"),
        (["--count", "0"], "--count"),
        (["--file", "nowhere.jsonl"], "nowhere.jsonl"),
    ],
)
def test_bad_options_are_one_line(tmp_path: Path, args: list[str], said: str) -> None:
    done = run(tmp_path, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / RECORD).exists()


def test_a_theme_no_puzzle_has(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    found = find_puzzle(Position.from_moves(WIN_IN_1))
    assert found is not None
    write_puzzles(path, [found])
    done = run(tmp_path, "--file", str(path), "--theme", "zugzwang")
    assert done.returncode == 2
    assert done.stderr == f"error: no puzzle of {path} has the theme zugzwang\n"


def test_ctrl_c_ends_with_the_summary_and_keeps_the_record(
    tmp_path: Path, long_win: Puzzle
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "connect4", "puzzle", "--seed", "2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env({"CONNECT4_CACHE_DIR": str(tmp_path)}),
    )
    assert process.stdin is not None and process.stdout is not None
    seen: list[str] = []
    stdout = process.stdout
    reader = threading.Thread(target=lambda: seen.extend(iter(stdout.readline, "")))
    reader.start()
    try:
        process.stdin.write("s\n")  # the first puzzle: its solution, counted as failed
        process.stdin.flush()
        deadline = time.monotonic() + 120
        while not any("Puzzle 2 (" in line for line in seen):
            assert process.poll() is None and time.monotonic() < deadline, "".join(seen)
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)  # at the second puzzle's prompt
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        reader.join(timeout=60)
    stderr = process.stderr.read() if process.stderr else ""
    assert process.returncode == 130, stderr
    assert stderr.startswith("interrupted: 0 of 1 solved, your rating 1500 → ")
    assert stderr.rstrip().endswith("; your rating is kept") and "Traceback" not in stderr
    assert record(tmp_path)["attempts"] == 1


def test_the_help_reads_as_text() -> None:
    shown = run_cli("puzzle", "--help")
    assert shown.returncode == 0, shown.stderr
    assert "``" not in shown.stdout and "<bool>" not in shown.stdout
    for flag in ("--rating", "--theme", "--id", "--file", "--count", "--reset", "--no-record"):
        assert flag in shown.stdout


def test_one_puzzle_by_id_takes_a_count_of_one(tmp_path: Path, long_win: Puzzle) -> None:
    done = run(tmp_path, "--id", long_win.id, "--count", "1", "--no-record", stdin="s\ns\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("the solution: ") == 1 and "Puzzles: 0 of 1 solved" in done.stdout
