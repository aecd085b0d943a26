"""benchmarks/split_solve.py: 1 and 2 workers on one split, and the machine's ceiling beside."""

from __future__ import annotations

import json

import pytest

from tests.cli_helpers import run_benchmark


def test_the_split_benchmark_prints_the_speed_up_beside_the_machines_ceiling() -> None:
    done = run_benchmark(
        "split_solve.py", "--width", "4", "--height", "4", "--split-ply", "4", "--ceiling", "--json"
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["agree_with_unsplit"] and summary["score"] == 0  # 4x4: a draw
    assert len(summary["seconds_two_1_worker_at_once"]) == 1
    one, pair = summary["seconds_1_worker"][0], summary["seconds_two_1_worker_at_once"][0]
    two = summary["seconds_2_workers"][0]
    assert summary["ceiling"] == round(2 * one / pair, 2) > 0
    assert summary["speedup_per_round"] == [round(one / two, 2)]
    assert summary["ceiling_per_round"] == [summary["ceiling"]]
    assert summary["speedup_of_ceiling"] == round(pair / (2 * two), 2)  # the speed-up's share
    assert summary["speedup_of_ceiling_per_round"] == [summary["speedup_of_ceiling"]]
    assert "two 1-worker solves at once" in done.stderr


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--rounds", "0"], "--rounds must be at least 1"),
        (["--chunk", "0"], "--chunk must be at least 1"),
        (["--split-ply", "99"], "split ply: must be after the position's 0 stones"),
        (["--moves", "9"], "column 9 is out of range 1-4"),
        (["--width", "0"], "board 0x4 is invalid"),
        (["--moves", "1212121", "--split-ply", "9"], "the game is already over (red has won)"),
        (["--moves", "121212", "--split-ply", "8"], "the side to move wins at once"),
    ],
)
def test_the_split_benchmark_refuses_bad_options_in_one_line(
    options: list[str], message: str
) -> None:
    done = run_benchmark(
        "split_solve.py",
        "--width",
        "4",
        "--height",
        "4",
        "--split-ply",
        "4",
        *options,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr
