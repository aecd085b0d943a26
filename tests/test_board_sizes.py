"""benchmarks/board_sizes.py: our empty-board solves against the published tables (c4, Tromp)."""

from __future__ import annotations

import json
import subprocess
from types import ModuleType

import pytest

from tests.cli_helpers import load_benchmark, run_benchmark

# Boards our solver finishes in well under a second each (6x4: a second-player win).
SMALL = ["4x4", "4x5", "5x4", "4x6", "6x4", "5x5", "4x7"]


def run_script(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return run_benchmark("board_sizes.py", *args, timeout=timeout)


@pytest.fixture(scope="module")
def board_sizes() -> ModuleType:
    return load_benchmark("board_sizes")


def test_the_published_tables_are_consistent(board_sizes: ModuleType) -> None:
    published = board_sizes.PUBLISHED
    assert len(published) == 9 + 8 + 7 + 6 + 5 + 5 + 4 + 3 + 3 + 2
    assert published[(7, 6)] == board_sizes.Published("first", 41)
    assert published[(8, 9)] == board_sizes.Published("first", None)
    for (width, height), result in published.items():
        if result.end_ply is None:
            continue
        assert result.end_ply <= width * height
        if result.winner == "draw":
            assert result.end_ply == width * height, (width, height)
        else:
            # The first player plays the odd plies, the second the even ones.
            assert result.end_ply % 2 == (1 if result.winner == "first" else 0), (width, height)


def test_scores_give_the_winner_and_the_last_ply(board_sizes: ModuleType) -> None:
    assert board_sizes.winner_of(1) == "first"
    assert board_sizes.end_ply(1, 7, 6) == 41
    assert board_sizes.end_ply(-1, 6, 4) == 24
    assert board_sizes.end_ply(0, 5, 4) == 20
    # The fastest wins: each side's fourth stone (plies 7 and 8), on an odd and an even board.
    assert board_sizes.end_ply(10, 5, 5) == 7
    assert board_sizes.end_ply(-10, 5, 5) == 8
    assert board_sizes.end_ply(18, 7, 6) == 7
    assert board_sizes.end_ply(-18, 7, 6) == 8
    assert [b for b in board_sizes.default_boards(False) if b in [(8, 6), (7, 7)]] == []
    assert board_sizes.default_boards(True)[-2:] == [(8, 6), (7, 7)]
    assert board_sizes.default_boards(False, True)[-3:] == [(5, 12), (6, 10), (5, 13)]


def test_small_boards_agree_with_the_published_tables() -> None:
    done = run_script("--only", ",".join(SMALL), "--tt-mb", "16", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert [row["board"] for row in report["boards"]] == SMALL
    assert {row["verdict"] for row in report["boards"]} == {"AGREE"}
    assert report["boards"][SMALL.index("6x4")]["winner"] == "second"
    assert report["summary"]["AGREE"] == len(SMALL)


def test_a_bad_board_list_is_a_clear_error() -> None:
    done = run_script("--only", "7x6,seven")
    assert done.returncode == 2
    assert "--only: 'seven' is not a board size like 7x6" in done.stderr
    assert "Traceback" not in done.stderr
    done = run_script("--only", "3x7")
    assert done.returncode == 2
    assert "--only: 3x7: need width, height >= 4" in done.stderr
    done = run_script("--only", "20x6")  # 140 bits: more than a position holds
    assert done.returncode == 2
    assert "20x6: board 20x6 is too large: width*(height+1) = 140 must be <= 128" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_timeout_is_reported_and_sets_the_exit_status() -> None:
    done = run_script("--only", "4x8", "--timeout", "0.001", "--tt-mb", "16")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "TIMEOUT" in done.stdout
    assert "summary: 1 boards: 1 TIMEOUT" in done.stdout


@pytest.mark.slow
def test_every_default_board_agrees_with_the_published_tables() -> None:
    done = run_script("--tt-mb", "256", timeout=6 * 3600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "DISAGREE" not in done.stdout
    assert "summary: 21 boards: 21 AGREE" in done.stdout
