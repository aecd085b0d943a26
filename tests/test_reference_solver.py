"""The reference-solver harness of the benchmark scripts, driven with a stand-in driver."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli_helpers import run_benchmark

DRIVER = Path(__file__).resolve().parent / "fake_references" / "driver.py"
COMMAND = f"{sys.executable} {DRIVER} {{width}} {{height}}"


def test_compare_reference_checks_the_reference_and_reports_both_sides() -> None:
    done = run_benchmark(
        "compare_reference.py",
        *("--reference", COMMAND, "--sets", "L3_R1", "--limit", "5", "--rounds", "2", "--json"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(done.stdout)["sets"]
    assert row["n"] == 5 and row["rounds"] == 2
    assert row["reference_mean_us"] == 12.5
    assert row["our_nodes"] == row["reference_nodes"]


def test_a_wrong_or_broken_reference_is_a_clear_error() -> None:
    first = "2252576253462244111563365343671351441"  # End-Easy's first line, score -1
    for mode, message in [
        ("wrong", f"error: the reference scored {first} 0, expected -1"),
        ("short", "error: the reference printed 1 lines for 5 positions"),
        ("junk", f"error: expected '{first} score nodes microseconds'"),
    ]:
        done = run_benchmark(
            "compare_reference.py",
            *("--reference", f"{COMMAND} {mode}", "--sets", "L3_R1", "--limit", "5"),
        )
        assert done.returncode == 1, (mode, done.stderr)
        assert message in done.stderr, (mode, done.stderr)
        assert "Traceback" not in done.stderr
    done = run_benchmark("compare_reference.py", "--reference", "/no/such/driver", "--limit", "1")
    assert "error: cannot run the reference '/no/such/driver': No such file" in done.stderr
    done = run_benchmark("compare_reference.py", "--reference", "driver-{size}", "--limit", "1")
    assert "error: bad placeholder in 'driver-{size}' ('size')" in done.stderr


def test_solve_empty_board_runs_the_reference_beside_ours() -> None:
    done = run_benchmark(
        "solve_empty_board.py",
        *("--width", "5", "--height", "4", "--tt-mb", "16", "--rounds", "2", "--json"),
        *("--reference", COMMAND, "--reference-threads", "2"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["board"] == "5x4" and report["score"] == 0 and report["rounds"] == 2
    reference = report["reference"]
    assert reference["score"] == 0 and reference["nodes"] == report["nodes"]
    assert reference["command"].endswith("driver.py 5 4") and reference["threads"] == 2
    assert len(reference["round_seconds"]) == 2 and reference["cpu_seconds"] > 0
    assert isinstance(report["speedup"], float) and isinstance(report["cpu_speedup"], float)


def test_solve_empty_board_refuses_a_reference_that_disagrees() -> None:
    done = run_benchmark(
        "solve_empty_board.py",
        *("--width", "4", "--height", "4", "--tt-mb", "16", "--reference", f"{COMMAND} wrong"),
    )
    assert done.returncode == 1
    assert "error: the reference scored 1, ours 0" in done.stderr
    done = run_benchmark("solve_empty_board.py", "--moves", "48")
    assert done.returncode == 2 and "column 8 is out of range 1-7" in done.stderr


def test_compare_big_runs_every_sample_with_c4s_table_and_threads(tmp_path: Path) -> None:
    # c4's builds are named by board, threads and table: a driver only at the names the
    # template must be filled with (our threads; c4's least table where over ours)
    for name in ("8x8-t2-2048mb", "10x6-t2-512mb"):
        (tmp_path / f"c4bench-{name}.py").symlink_to(DRIVER)
    template = (
        f"{sys.executable} {tmp_path}/c4bench-{{width}}x{{height}}-t{{threads}}-{{tt_mb}}mb.py"
    )
    done = run_benchmark(
        "compare_big.py",
        *("--size", "8x8,10x6", "--empty", "8,10", "--positions", "3", "--rounds", "2"),
        *("--threads", "2", "--json", "--reference", f"{template} {{width}} {{height}}"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [(row["size"], row["empty"], row["c4_mb"]) for row in rows] == [
        ("8x8", 8, 2048), ("8x8", 10, 2048), ("10x6", 8, 512), ("10x6", 10, 512)
    ]  # fmt: skip
    for row in rows:
        assert len(row["moves"]) == len(row["our_us"]) == len(row["c4_us"]) == 3
        assert len(row["c4"]) == len(row["ours"]) == 2 and row["ours_as_fast"] > 0
        assert row["c4_position_nodes"] == row["our_position_nodes"]  # the driver is ours


def test_compare_big_refuses_a_board_of_one_word() -> None:
    done = run_benchmark("compare_big.py", "--size", "8x8,7x6", "--reference", COMMAND)
    assert done.returncode == 2
    assert "7x6 is not a board of 65 to 128 bits" in done.stderr
    assert "Traceback" not in done.stderr
