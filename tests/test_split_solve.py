"""A whole board solved split (``connect4 solve --split-ply``): the unsplit scores, the
positions listed, resume after a stop, a killed client and a killed Dask worker."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from connect4.core.bits import centre_order
from connect4.core.errors import BudgetExceeded
from connect4.core.fileerror import FileError
from connect4.core.journal import JournalError
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.solver import Solver
from connect4.solver.book.format import BookError
from connect4.solver.book.keys import canonical_key
from connect4.solver.book.split import (
    SplitInterrupted,
    SplitReport,
    split_positions,
    split_solve,
)
from connect4.solver.book.table import Book
from tests.cli_helpers import cli_env, journal_records, kill_when_working, run_cli


def unsplit(moves: str, width: int, height: int) -> list[int | None]:
    """Every column's exact score by one search of the whole position, no book."""
    result = Solver(width, height).run(Position.from_moves(moves, width, height), analyze=True)
    assert result.column_scores is not None
    return result.column_scores


def in_threads(
    moves: str, width: int, height: int, split_ply: int, **options: object
) -> SplitReport:
    with ThreadPoolExecutor(1) as pool:
        return split_solve(
            moves, width, height, split_ply=split_ply, executor=pool, progress=False,
            **options,  # type: ignore[arg-type]
        )  # fmt: skip


# ---------------------------------------------------------------- exact
@pytest.mark.parametrize(
    ("moves", "width", "height", "split_ply"),
    [
        ("", 4, 4, 4),
        ("", 5, 4, 4),
        ("", 4, 5, 4),
        ("", 6, 4, 4),
        ("", 5, 5, 4),
        ("", 4, 4, 9),
        ("2233", 6, 5, 8),
        ("44444433", 7, 6, 11),
    ],
)
def test_split_gives_the_unsplit_scores(
    moves: str, width: int, height: int, split_ply: int
) -> None:
    report = in_threads(moves, width, height, split_ply)
    expected = unsplit(moves, width, height)
    assert report.column_scores == expected
    assert report.score == max(s for s in expected if s is not None)
    assert report.tasks == report.solved == len(report.task_nodes) > 0
    assert report.resumed == 0
    assert all(nodes > 0 for nodes in report.task_nodes)


@pytest.mark.slow
def test_the_empty_7x6_board_split_at_ply_8_is_a_first_player_win(tmp_path: Path) -> None:
    """76,687 tasks, each searched with the published 12-ply database inside it."""
    report = split_solve(
        "", 7, 6, split_ply=8, workers=2, base_book="default", results=tmp_path / "r.c4book",
        chunk=64, progress=False,
    )  # fmt: skip
    assert report.tasks == 76_687
    assert report.column_scores == [-2, -1, 0, 1, 0, -1, -2]


def brute_force_split(root: Position, split_ply: int) -> dict[int, str]:
    """The positions a split lists, found with the position's own rules (no bitboards):
    a position whose side to move wins at once, must block two threats or has no move
    that does not hand the opponent a win is settled; only such moves are played."""
    frontier = {canonical_key(root): root}
    for _ in range(root.ply, split_ply + 1):
        listed: dict[int, str] = {}
        children: dict[int, Position] = {}
        for position in frontier.values():
            moves = position.legal_moves()
            if any(position.is_winning_move(c) for c in moves):
                continue
            safe = []
            for column in moves:
                child = position.copy()
                child.play(column)
                if not any(child.is_winning_move(c) for c in child.legal_moves()):
                    safe.append(child)
            if not safe:
                continue
            listed[canonical_key(position)] = position.moves
            for child in safe:
                children.setdefault(canonical_key(child), child)
        frontier = children
    return listed


@pytest.mark.parametrize(("moves", "width", "height", "split_ply"),
                         [("", 4, 4, 4), ("", 5, 4, 6), ("445", 7, 6, 7)])  # fmt: skip
def test_the_split_lists_each_reachable_position_once_centre_first(
    moves: str, width: int, height: int, split_ply: int
) -> None:
    root = Position.from_moves(moves, width, height)
    split = split_positions(root, split_ply)
    assert split.tasks == brute_force_split(root, split_ply)
    mirrors = {
        canonical_key(Position.from_moves(m, width, height).mirrored())
        for m in split.tasks.values()
    }
    assert mirrors == set(split.tasks)  # a position and its mirror image: one task
    rank = {str(column + 1): n for n, column in enumerate(centre_order(width))}
    lines = list(split.tasks.values())  # in the order solved: centre columns first
    assert lines == sorted(lines, key=lambda line: [rank[move] for move in line])


def test_the_split_ply_is_checked_before_any_work(tmp_path: Path) -> None:
    for moves, ply, message in [
        ("44", 2, "after the position's 2 stones"),
        ("", 40, "at most 39 on a 7x6 board, not 40"),
    ]:
        with pytest.raises(BookError, match=message) as caught:
            split_solve(moves, split_ply=ply, results=tmp_path / "r.c4book", progress=False)
        assert caught.value.setting == "split_ply"
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- resume
def test_a_stopped_split_resumes_without_solving_anything_twice(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    journal = tmp_path / "r.c4book.partial"
    with pytest.raises(SplitInterrupted) as caught:
        in_threads("2233", 6, 5, 8, results=results, stop_after=40)
    assert caught.value.done == 40 == journal_records(journal)
    assert not results.exists()
    report = in_threads("2233", 6, 5, 8, results=results)
    assert (report.resumed, report.solved) == (40, report.tasks - 40)
    assert report.column_scores == unsplit("2233", 6, 5)
    assert not journal.exists()
    book = Book.load(results)
    assert book.meta["root"] == "2233" and book.meta["split_ply"] == 8
    assert len(book) == report.tasks
    again = in_threads("2233", 6, 5, 8, results=results)  # read from the results book
    assert (again.resumed, again.solved, again.column_scores) == (
        report.tasks,
        0,
        report.column_scores,
    )
    assert (again.task_nodes, again.task_nodes_total) == ([], sum(report.task_nodes))


def test_a_stop_flag_keeps_the_finished_tasks(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    journal = tmp_path / "r.c4book.partial"
    limit = Limit()

    def stop_when_working() -> None:
        while journal_records(journal) < 5:
            threading.Event().wait(0.01)
        limit.stop()

    threading.Thread(target=stop_when_working, daemon=True).start()
    with pytest.raises(SplitInterrupted) as caught:
        in_threads("2233", 6, 5, 8, results=results, limit=limit)
    kept = journal_records(journal)
    assert caught.value.done == kept >= 5
    report = in_threads("2233", 6, 5, 8, results=results)
    assert (report.resumed, report.column_scores) == (kept, unsplit("2233", 6, 5))


def test_a_stopped_limit_stops_the_listing_before_any_file(tmp_path: Path) -> None:
    limit = Limit()
    limit.stop()
    with pytest.raises(BudgetExceeded, match="stopped while listing the split positions"):
        split_solve("", 7, 6, split_ply=8, results=tmp_path / "r.c4book", limit=limit)
    assert list(tmp_path.iterdir()) == []


def test_the_results_of_another_split_are_refused_unless_forced(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    in_threads("", 4, 4, 4, results=results)
    before = results.read_bytes()
    with pytest.raises(FileError, match="holds the results of another split solve"):
        in_threads("", 4, 4, 5, results=results)
    assert results.read_bytes() == before
    report = in_threads("", 4, 4, 5, results=results, force=True)
    assert (report.split_ply, report.resumed) == (5, 0)
    assert Book.load(results).meta["split_ply"] == 5
    unfinished = tmp_path / "u.c4book"
    with pytest.raises(SplitInterrupted):
        in_threads("", 4, 4, 5, results=unfinished, stop_after=2)
    with pytest.raises(JournalError) as caught:
        in_threads("", 4, 4, 4, results=unfinished)
    assert str(caught.value).endswith(
        "belongs to another split solve (split ply 5 there, 4 here): give force=True to "
        "start over, or another results file"
    )
    assert journal_records(tmp_path / "u.c4book.partial") == 2


def test_a_killed_client_reruns_to_the_right_answer(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    journal = tmp_path / "r.c4book.partial"
    args = ["solve", "2233", "--width", "6", "--height", "5", "--split-ply", "8", "--no-book",
            "--workers", "1", "--results", str(results), "-a"]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "connect4", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        start_new_session=True,
    )
    kill_when_working(process, lambda: journal_records(journal) >= 20)
    kept = journal_records(journal)
    assert kept >= 20 and not results.exists()
    rerun = run_cli(*args, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    expected = " ".join("-" if s is None else str(s) for s in unsplit("2233", 6, 5))
    assert rerun.stdout == f"2233 {expected}\n"
    assert f"({kept:,} from earlier runs, {297 - kept:,} solved now)" in rerun.stderr
    assert results.exists() and not journal.exists()


def test_ctrl_c_keeps_the_finished_tasks_and_says_so(tmp_path: Path) -> None:
    from tests.cli_helpers import interrupt_cli

    results = tmp_path / "r.c4book"
    journal = tmp_path / "r.c4book.partial"
    args = ["solve", "2233", "--width", "6", "--height", "5", "--split-ply", "8", "--no-book",
            "--workers", "1", "--results", str(results)]  # fmt: skip
    done = interrupt_cli(args, lambda _: journal_records(journal) >= 5, group=True)
    assert done.returncode == 130
    assert f"the finished tasks are in {journal}; rerun to finish" in done.stderr
    assert journal_records(journal) >= 5


# ---------------------------------------------------------------- Dask
def test_a_killed_dask_worker_loses_only_its_task(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    results = tmp_path / "r.c4book"
    journal = tmp_path / "r.c4book.partial"
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        pids = list(client.run(os.getpid).values())
        killed: list[int] = []
        finished = threading.Event()

        def kill_one() -> None:
            while journal_records(journal) < 10:
                if finished.wait(0.02):
                    return
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

        killer = threading.Thread(target=kill_one, daemon=True)
        killer.start()
        reports = []
        for _ in range(2):  # the cluster reruns the lost task; should it give up, a rerun
            try:
                reports.append(split_solve(
                    "2233", 6, 5, split_ply=8, scheduler=cluster.scheduler_address,
                    results=results, progress=False,
                ))  # fmt: skip
                break
            except Exception:
                continue
        finished.set()
        killer.join(timeout=60)
    report = reports[-1]
    assert killed == pids[:1]
    assert report.column_scores == unsplit("2233", 6, 5)
    assert report.solved + report.resumed == report.tasks == 297
    assert not journal.exists() and len(Book.load(results)) == 297


# ---------------------------------------------------------------- the command line
def test_cli_split_solve_prints_what_solve_prints(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    plain = run_cli("solve", "44", "--width", "5", "--height", "4", "-a", "--no-book")
    split = run_cli("solve", "44", "--width", "5", "--height", "4", "-a", "--no-book",
                    "--split-ply", "auto", "--workers", "2", "--results", str(results))  # fmt: skip
    assert split.returncode == 0, split.stderr
    assert split.stdout == plain.stdout
    assert "split at ply " in split.stderr and f"results in {results}" in split.stderr
    quiet = run_cli("solve", "44", "--width", "5", "--height", "4", "--no-book", "-q",
                    "--split-ply", "auto", "--workers", "2", "--results", str(results))  # fmt: skip
    assert (
        quiet.stdout
        == "44 " + str(max(int(s) for s in plain.stdout.split()[1:] if s != "-")) + "\n"
    )
    assert "from earlier runs, 0 solved now" in quiet.stderr
    other = ["solve", "44", "--width", "5", "--height", "4", "--no-book", "--split-ply", "3",
             "--workers", "1", "--results", str(results)]  # fmt: skip
    refused = run_cli(*other)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith(f"error: {results} holds the results of another split")
    assert refused.stderr.endswith("give --force to replace it, or another results file\n")
    forced = run_cli(*other, "--force", "--progress")
    assert forced.returncode == 0, forced.stderr
    assert re.search(r"^\d+ of \d+ positions, [\d,]+ nodes; about [\d,]+ nodes left$",
                     forced.stderr, re.MULTILINE)  # fmt: skip
    assert forced.stdout == quiet.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--split-ply", "x"],
            "error: --split-ply must be a whole number of stones or auto, not 'x'\n",
        ),
        (["--split-ply", "2", "4455"], "error: --split-ply: must be after the position's 4 stones"),
        (
            ["--split-ply", "5", "1", "2"],
            "error: --split-ply solves one position: give one MOVES argument\n",
        ),
        (["--split-ply", "5", "--weak"], "error: --split-ply finds exact scores with --workers"),
        (
            ["--workers", "2", "4455"],
            "error: --workers, --scheduler, --results and --force go with --split-ply\n",
        ),
        (
            ["--split-ply", "5", "--results", "/nonexistent/r.c4book"],
            "error: cannot write results book /nonexistent/r.c4book: the folder /nonexistent "
            "does not exist\n",
        ),
    ],
)
def test_cli_split_errors_are_one_line(extra: list[str], message: str) -> None:
    result = run_cli("solve", *extra)
    assert result.returncode == 2
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1
    assert result.stdout == ""
