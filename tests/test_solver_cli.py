"""``connect4 solve`` (Pons' stdin protocol) and ``connect4 bench``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from connect4.cli.app import app
from connect4.cli.bench import bench_command
from connect4.cli.solve import solve_command
from connect4.solver.bench import pons_path, read_cases
from tests.cli_helpers import run_cli

runner = CliRunner()


def run_solve(text: str, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    analyze = "-a" in args
    weak = "-w" in args
    code = solve_command(io.StringIO(text), analyze=analyze, weak=weak, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_solve_prints_moves_and_score() -> None:
    code, out, err = run_solve("4455\n44455554221\n")
    assert (code, err) == (0, "")
    assert out == "4455 18\n44455554221 -15\n"


def test_solve_analyze_shows_full_columns_as_dash() -> None:
    code, out, _ = run_solve("4444445\n", "-a")
    assert code == 0
    assert out == "4444445 -16 -16 -2 - -16 -1 -16\n"


def test_solve_weak() -> None:
    code, out, _ = run_solve("44455554221\n445566\n", "-w")
    assert code == 0
    assert out == "44455554221 -1\n445566 1\n"


def test_bad_lines_are_reported_and_the_run_goes_on() -> None:
    text = "4455\n48\n4444444\n4455667\nx1\n44455554221\n"
    code, out, err = run_solve(text)
    assert code == 1
    assert out == "4455 18\n44455554221 -15\n"
    lines = err.splitlines()
    assert lines[0] == "line 2: move 2 ('8'): column 8 is out of range 1-7"
    assert lines[1] == "line 3: move 7 ('4'): column 4 is full"
    assert lines[2].startswith("line 4: ") and "already over" in lines[2]
    assert lines[3].startswith("line 5: move 1 ('x')")


def test_solve_through_the_cli_with_board_size() -> None:
    result = runner.invoke(app, ["solve", "-a", "--width", "4", "--height", "4"], input="1122\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("1122 ")
    assert len(result.stdout.split()) == 5
    bad = runner.invoke(app, ["solve"], input="4455\n9\n")
    assert bad.exit_code == 1
    assert "line 2:" in bad.stderr


def test_solve_oversize_board_is_an_error() -> None:
    """A board size no game can have is a usage error (exit 2), as every command's is."""
    result = runner.invoke(app, ["solve", "--width", "12", "--height", "10"], input="1\n")
    assert result.exit_code == 2
    assert "too large" in result.stderr


def test_bench_checks_every_score(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.write_text(pons_path("Test_L3_R1").read_text().splitlines()[0] + "\n4455 18\n")
    bad = tmp_path / "bad"
    bad.write_text("4455 18\n44455554221 -14\n")
    out, err = io.StringIO(), io.StringIO()
    assert bench_command([str(good)], out=out, err=err) == 0
    assert "n=2 correct=2" in out.getvalue()
    out = io.StringIO()
    assert bench_command([str(good), str(bad)], out=out, err=err) == 1
    assert "n=2 correct=1" in out.getvalue()
    assert "line 2 44455554221: expected -14, got -15" in out.getvalue()


def test_bench_json_and_limit() -> None:
    result = runner.invoke(
        app,
        ["bench", "Test_L3_R1", str(pons_path("Test_L2_R1")), "--limit", "20", "--json"],
    )
    assert result.exit_code == 0, result.output
    reports = json.loads(result.stdout)
    assert [r["n"] for r in reports] == [20, 20]
    assert set(reports[0]) >= {
        "file",
        "n",
        "correct",
        "mean_us",
        "median_us",
        "max_us",
        "mean_nodes",
        "nodes_per_second",
    }
    assert all(r["correct"] == 20 for r in reports)


def test_bench_reports_unreadable_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.write_text("4455 x\n")
    out, err = io.StringIO(), io.StringIO()
    assert bench_command([str(broken), str(tmp_path / "missing")], out=out, err=err) == 1
    assert "broken:1: score 'x' is not an integer" in err.getvalue()
    assert read_cases(str(pons_path("Test_L1_R1")), limit=3)[2].line == 3


def test_cold_compile_prints_a_notice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from connect4.core import compiler
    from connect4.solver import backend

    monkeypatch.setattr(backend, "_compiled", set())
    monkeypatch.setattr(compiler, "cache_is_warm", lambda functions: False)
    backend.numba_kernel()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiling the solver" in err
    backend.numba_kernel()  # once compiled, silent
    assert capsys.readouterr().err == ""


def test_cli_import_stays_light() -> None:
    code = (
        "import sys, connect4.cli.app; a = sorted(m for m in ('numba', 'numpy') "
        "if m in sys.modules); "
        "import connect4.solver.bench, connect4.solver; print(a, 'numba' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[] False"  # numba loads on the first solve only


def test_a_broken_default_book_is_left_out_and_said_once(tmp_path: Path) -> None:
    """A shipped book that cannot be read is left out: ``connect4 solve`` answers with the
    solver alone (the scores it gives without the book) and says so in one line on stderr.
    Before, the command refused to solve at all (exit 1)."""
    broken = tmp_path / "book_6x5.c4book"
    broken.write_bytes(b"not a book at all")
    code = (
        "import pathlib, runpy, sys\n"
        "from connect4.solver.book import reader\n"
        f"reader.data_book_path = lambda width, height: pathlib.Path({str(broken)!r})\n"
        "sys.argv = ['connect4', 'solve', '--width', '6', '--height', '5', '-t', '1']\n"
        "runpy.run_module('connect4', run_name='__main__')\n"
    )
    lines = "3\n33\n"
    result = subprocess.run(
        [sys.executable, "-c", code], input=lines, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    alone = run_cli("solve", "--width", "6", "--height", "5", "-t", "1", "--no-book", stdin=lines)
    assert result.stdout == alone.stdout != ""
    notes = [line for line in result.stderr.splitlines() if "compiling" not in line]
    assert notes == [
        f"connect4: the 6x5 board's shipped opening book cannot be used ({broken} is not a "
        "connect4 book file (bad magic bytes)); solving without it: the same scores, slower on "
        "early positions (reinstall connect4 to restore it)"
    ]


def test_solve_takes_positions_as_arguments() -> None:
    result = run_cli("solve", "4455", "44455554221")
    assert (result.returncode, result.stdout) == (0, "4455 18\n44455554221 -15\n")
    bad = run_cli("solve", "4455", "48", "-a")
    assert bad.returncode == 2  # a bad move string given as an argument: a usage error
    assert bad.stdout == "4455 -4 -3 18 2 2 18 -3\n"
    assert bad.stderr == "argument 2: move 2 ('8'): column 8 is out of range 1-7\n"


def test_solve_is_a_typer_command_with_the_same_options() -> None:
    """``solve --help`` is the typer help every other command has (it was argparse's):
    its options listed, no ``<bool>`` beside a flag."""
    shown = run_cli("solve", "--help")
    assert shown.returncode == 0, shown.stderr
    assert "Usage: connect4 solve [OPTIONS] [MOVES]..." in shown.stdout
    for flag in ("--analyze", "-a", "--weak", "-w", "--width", "--height", "--no-book"):
        assert f" {flag} " in shown.stdout, flag
    assert "<bool>" not in shown.stdout
    assert "show this help message" not in shown.stdout  # argparse's words
    bad = run_cli("solve", "--no-such-option", stdin="4455\n")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert "No such option" in bad.stderr
    weak = run_cli("solve", "-w", "--width", "4", "--height", "4", "--no-book", "1122")
    assert (weak.returncode, weak.stdout) == (0, "1122 0\n")


@pytest.mark.parametrize("flood", ["zero", "line"])
def test_a_flood_on_stdin_is_refused_at_once(flood: str) -> None:
    """A line longer than any game is refused as soon as that much of it is read, with
    the line's number (``/dev/zero`` grew the process to gigabytes before)."""
    command = [sys.executable, "-m", "connect4", "solve"]
    if flood == "zero":
        with open("/dev/zero", "rb") as zero:
            done = subprocess.run(command, stdin=zero, capture_output=True, timeout=120)
    else:
        text = b"4455\n" + b"4" * 50_000_000 + b"\n44\n"
        done = subprocess.run(command, input=text, capture_output=True, timeout=120)
    first = "4455 18\n" if flood == "line" else ""
    number = 2 if flood == "line" else 1
    assert (done.returncode, done.stdout.decode()) == (1, first)
    assert done.stderr.decode() == (
        f"line {number} is longer than 1,024 bytes (more than any game's moves): "
        "the rest of the input is not read\n"
    )


def test_bytes_that_are_not_text_are_a_bad_line() -> None:
    done = run_cli("solve", stdin="4455\n")
    assert done.returncode == 0
    raw = subprocess.run(
        [sys.executable, "-m", "connect4", "solve"],
        input=b"\xff\xfe4\n4455\n",
        capture_output=True,
        timeout=120,
    )
    assert (raw.returncode, raw.stdout) == (1, b"4455 18\n")
    assert raw.stderr.decode().startswith("line 1: move 1 ('\ufffd'): not a column number 1-7")


def test_the_bound_counts_bytes_so_a_long_line_is_never_split() -> None:
    """600 two-byte characters are 1,200 bytes: refused whole, not read as two lines."""
    done = subprocess.run(
        [sys.executable, "-m", "connect4", "solve"],
        input=("é" * 600 + "\n4455\n").encode(),
        capture_output=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode().startswith("line 1 is longer than 1,024 bytes")
