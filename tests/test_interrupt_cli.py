"""Ctrl-C in the long commands: a SIGINT while they work ends them with exit 130 and
exactly one line on stderr (``interrupted``, or what they kept); what they saved stays
valid and ``--resume`` finishes the job; a second SIGINT right after the first still
ends them with 130, one line, no traceback. (How soon they stop, about two seconds, is
timed by benchmarks/fuzz_cli.py --interrupts.)

Each waits for a sign that the command works (a results line, a journal record, a
checkpoint, or its work or search threads, named in /proc) before the signal.

The signal goes to the command's process only (as ``kill -INT`` does), not to its
worker processes: the command itself must stop them.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest

from tests.cli_helpers import interrupt_cli, journal_records, run_cli


def working(process: subprocess.Popen[str]) -> bool:
    """True once the process runs its work thread or its search threads
    (``connect4-work``, ``connect4-solver``: the long work has started, start-up and
    loading done)."""
    for task in Path(f"/proc/{process.pid}/task").glob("*/comm"):
        with contextlib.suppress(OSError):
            if task.read_text().strip() in ("connect4-work", "connect4-solver"):
                return True
    return False


def said(stderr: str) -> str:
    """The one line about the interruption, the last on stderr (before it only the
    progress lines a run logs when stderr is not a terminal), with no traceback."""
    assert "Traceback" not in stderr, stderr
    about = [line for line in stderr.splitlines() if line.startswith("interrupted")]
    assert len(about) == 1 and stderr.splitlines()[-1] == about[0], stderr
    return about[0]


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


LONG_WORK = {
    "review": ["review", "4", "--width", "8", "--height", "7", "--time-limit", "0"],
    "solve": ["solve", "--no-book", "--width", "8", "--height", "7", "--threads", "2", "4"],
    "analyze": ["analyze", "--max-depth", "14", "--budget", "1000000000", "--heuristic",
                "windows"],
    "tree": ["tree", "", "--algorithm", "minimax", "--depth", "12", "--budget", "10000000"],
}  # fmt: skip
"""Commands whose one piece of work takes minutes: Ctrl-C ends them, nothing to keep."""


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
@pytest.mark.parametrize("twice", [False, True], ids=["once", "twice"])
@pytest.mark.parametrize("command", sorted(LONG_WORK))
def test_long_work_stops_at_once_with_one_line(command: str, twice: bool) -> None:
    done = interrupt_cli(LONG_WORK[command], working, twice=twice)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "interrupted\n"


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_bench_stops_at_once_keeping_the_files_reported(tmp_path: Path) -> None:
    """The first file's figures are printed; Ctrl-C in the second file's long position
    ends the run at once."""
    quick, slow = tmp_path / "quick.txt", tmp_path / "slow.txt"
    quick.write_text("4455 0\n")  # a 7x6 position the book settles at once
    slow.write_text("4 0\n")  # minutes without a book
    first: list[str] = []

    def on_the_slow_file(process: subprocess.Popen[str]) -> bool:
        if not first:
            assert process.stdout is not None
            first.append(process.stdout.readline())  # the quick file's figures: the slow one now
        return working(process)

    done = interrupt_cli(
        ["bench", str(quick), str(slow), "--width", "8", "--height", "7"], on_the_slow_file
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr == "interrupted\n"
    assert first[0].startswith(str(quick)) and str(slow) not in done.stdout


def test_arena_stops_mid_game_and_resumes(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    args = ["arena", "-p", "alphabeta:depth=6", "-p", "mcts:playouts=20000", "--openings",
            "plies=1", "--games-per-pair", "14", "--results", str(results),
            "--accuracy-nodes", "0"]  # fmt: skip
    done = interrupt_cli(args, lambda _: len(lines_of(results)) >= 2)
    assert done.returncode == 130, done.stderr
    assert (
        said(done.stderr) == f"interrupted: finished games are in {results} (resume with --resume)"
    )
    kept = [json.loads(line) for line in lines_of(results)]  # every line whole
    assert 2 <= len(kept) < 14
    resumed = run_cli(*args, "--resume", "--json", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(json.loads(line)["game"] for line in lines_of(results)) == list(range(14))


def test_lab_stops_and_resumes_to_the_report(tmp_path: Path) -> None:
    out = tmp_path / "lab"
    results = out / "results.jsonl"
    args = ["lab", "--depths", "1-2", "--heuristics", "cell-weights", "--playouts", "3000",
            "--mcts-solver", "off", "--no-perfect", "--openings", "plies=1", "--games", "20",
            "--accuracy-nodes", "1000", "--workers", "2", "--out", str(out)]  # fmt: skip
    done = interrupt_cli(args, lambda _: len(lines_of(results)) >= 3, twice=True)
    assert done.returncode == 130, done.stderr
    assert (
        said(done.stderr) == f"interrupted: finished games are in {results} (resume with --resume)"
    )
    assert not (out / "report.md").exists()
    assert 3 <= len([json.loads(line) for line in lines_of(results)]) < 60  # every line whole
    resumed = run_cli(*args, "--resume", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(json.loads(line)["game"] for line in lines_of(results)) == list(range(60))
    assert "## Standings" in (out / "report.md").read_text()


def test_book_build_stops_its_workers_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "b.c4book"
    journal = tmp_path / "b.c4book.partial"
    args = ["book", "build", "--out", str(out), "--width", "5", "--height", "4", "--plies",
            "8", "--workers", "2", "--chunk", "4", "--base-book", "none"]  # fmt: skip
    done = interrupt_cli(args, lambda _: journal_records(journal) >= 100)
    assert done.returncode == 130, done.stderr
    assert said(done.stderr) == (
        f"interrupted: the work done so far is in {journal} (resume with --resume)"
    )
    assert not out.exists()
    resumed = run_cli(*args, "--resume", "--json", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["from_journal"] > 0 and summary["damaged_journal_records"] == 0
    assert summary["entries"] > 0 and not journal.exists()


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_dataset_stops_its_workers_and_resumes(tmp_path: Path) -> None:
    from connect4.envs.dataset import load_dataset

    out = tmp_path / "d.npz"
    journal = tmp_path / "d.npz.partial"
    args = ["dataset", "--positions", "200", "--plies", "11-17", "--book", "none", "--seed",
            "5", "--workers", "2", "--chunk", "2", "--out", str(out)]  # fmt: skip
    # SIGINT to the parent only: it must stop its workers (interrupt_cli checks none is left)
    done = interrupt_cli(args, lambda _: journal_records(journal) >= 8, twice=True)
    assert done.returncode == 130, done.stderr
    assert said(done.stderr).startswith("interrupted: ") and "(resume with --resume)" in done.stderr
    assert not out.exists()
    resumed = run_cli(*args, "--resume", "--json", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["from_journal"] > 0
    assert summary["from_journal"] + summary["labelled"] == summary["positions"] == 200
    assert len(np.unique(load_dataset(out).key)) == 200


def test_book_verify_stops_at_once_and_reports_what_it_verified() -> None:
    """7x6 entries of 8 stones re-solved without a book take seconds each: Ctrl-C must
    not wait for the entry under way, and says how far the check got."""
    from connect4.solver.book.reader import data_book_path

    book = data_book_path(7, 6)  # 8 stones: the shipped 12-ply database is quicker to check
    assert book is not None
    # start-up and the book read done: the solver at work
    done = interrupt_cli(["book", "verify", str(book), "--sample", "50"], working)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "interrupted\n"
    summary = done.stdout.splitlines()[-1]
    assert summary.startswith(f"{book}: ") and " of the 50 entries chosen (of 113,934)" in summary
    assert "re-solved, all agree so far (" in summary  # the shipped book is right


@pytest.mark.parametrize("after", [0.3, 0.5, 0.8])
def test_ctrl_c_while_the_command_starts_says_one_line(after: float) -> None:
    """A Ctrl-C while the command line loads (typer reads the options, the players'
    kernels load) gets the same one line as one during the work: no traceback, and
    not the silent 130 of the command-line library."""
    started = time.monotonic()
    done = interrupt_cli(
        ["arena", "-p", "perfect", "-p", "mcts", "--workers", "2"],
        lambda _: time.monotonic() - started >= after,  # the moment, not what decides a pass
    )
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.splitlines()[-1] == "interrupted"


LOST_IN_A_CALLBACK = """
import os, signal, sys, time, weakref
if sys.argv[1:] == ["hook"]:
    from connect4.cli import keep_lost_interrupts
    keep_lost_interrupts()
class Held: pass
def freed(_):  # a Ctrl-C taken while a weakref callback runs, as imports' lock callbacks do
    os.kill(os.getpid(), signal.SIGINT)
held = Held(); ref = weakref.ref(held, freed)
try:
    del held
    deadline = time.monotonic() + 2  # a Ctrl-C sent again comes within milliseconds
    while time.monotonic() < deadline: pass
    print("lost")
except KeyboardInterrupt:
    print("delivered")
"""


@pytest.mark.parametrize("hook", [True, False], ids=["command", "plain-python"])
def test_a_ctrl_c_python_drops_in_a_callback_is_delivered_again(hook: bool) -> None:
    """Python drops a KeyboardInterrupt raised inside a weakref callback ("Exception
    ignored"); the command's hook sends the Ctrl-C again, so it still stops the command
    (a Ctrl-C while the command line loaded was once lost this way: the command ran on)."""
    done = subprocess.run(
        [sys.executable, "-c", LOST_IN_A_CALLBACK, *(["hook"] if hook else [])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if hook:
        assert (done.stdout, done.stderr) == ("delivered\n", "")
    else:  # what the hook is for: plain Python loses it
        assert done.stdout == "lost\n" and "Exception ignored in" in done.stderr


def test_the_lost_ctrl_c_hook_is_installed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second install keeps the first hook (no chain of hooks growing per call), and
    other unraisable exceptions still reach the hook before it."""
    from connect4.cli import keep_lost_interrupts

    reported: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    keep_lost_interrupts()
    first = sys.unraisablehook
    keep_lost_interrupts()
    assert sys.unraisablehook is first and first is not reported.append
    other = ValueError("not a Ctrl-C")
    sys.unraisablehook(types.SimpleNamespace(exc_value=other))
    assert [getattr(r, "exc_value", None) for r in reported] == [other]


@pytest.mark.parametrize("twice", [False, True], ids=["once", "twice"])
def test_train_saves_its_checkpoint_and_resumes(tmp_path: Path, twice: bool) -> None:
    """The first Ctrl-C stops the training after the step under way and saves it; a
    second one stops the step itself and the last curve point's checkpoint stays."""
    pytest.importorskip("torch")
    from connect4.envs.dataset import FULL, label, sample_positions
    from connect4.solver import Solver

    sample = sample_positions(200, (0, 12), 5, 4, seed=3)
    solver = Solver(5, 4)
    rows = [[FULL if s is None else s for s in solver.analyze(p)] for p in sample.positions()]
    data, out = tmp_path / "d.npz", tmp_path / "n.pt"
    label(sample, rows).save(data)
    args = ["train", "--data", str(data), "--out", str(out), "--channels", "8", "--blocks",
            "1", "--eval-every", "5", "--held-out", "0.1"]  # fmt: skip
    done = interrupt_cli([*args, "--steps", "1000000"], lambda _: out.exists(), twice=twice)
    assert done.returncode == 130, done.stderr  # a point saved, then interrupted
    stderr = done.stderr
    assert len(stderr.splitlines()) == 1 and "Traceback" not in stderr, stderr
    saved = re.fullmatch(
        r"interrupted: step ([\d,]+) saved in (.+); continue with --resume\n", stderr
    )
    assert twice or saved is not None, stderr  # one Ctrl-C: the step under way ends, saved
    if saved is None:  # the second Ctrl-C came during the last step
        assert stderr == f"interrupted: stopped during a step; the last checkpoint is in {out}\n"
    else:
        assert saved[2] == str(out)
    steps = 50 if saved is None else int(saved[1].replace(",", "")) + 5
    resumed = run_cli(*args, "--resume", "--steps", str(steps), "--json", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["finished"] and summary["step"] >= steps


def test_a_stopped_job_names_its_unit_and_what_resumes_it(tmp_path: Path) -> None:
    """run_job's line says what the job counts (puzzle mining counts games) and what
    the command needs to continue (``resume``), not always ``positions`` and --resume."""
    import sys

    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "import typer\n"
        "from connect4.cli.common import run_job\n"
        "from connect4.core.processes import JobInterrupted\n"
        "def job():\n"
        f"    raise JobInterrupted(Path({str(tmp_path / 'p.jsonl.partial')!r}), 7, "
        "'puzzle mining', 'games')\n"
        "try:\n"
        f"    run_job(job, Path({str(tmp_path / 'p.jsonl')!r}), 'a rerun of the same command')\n"
        "except typer.Exit as end:\n"
        "    sys.exit(end.exit_code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 130, done.stderr
    assert said(done.stderr) == (
        "interrupted: puzzle mining stopped after 7 games; resume with a rerun of the same "
        f"command (journal {tmp_path / 'p.jsonl.partial'})"
    )
