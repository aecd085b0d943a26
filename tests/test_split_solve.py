"""A whole board solved split (``connect4 solve --split-ply``): the unsplit scores, the
positions listed, null-window tasks and their bounds, a root solved directly, resume
after a stop, a limit, a killed client and a killed Dask worker."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from connect4.core.bits import centre_order
from connect4.core.errors import BudgetExceeded
from connect4.core.fileerror import FileError
from connect4.core.journal import JournalError
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import score_bounds
from connect4.solver import Solver
from connect4.solver.book import splitlist
from connect4.solver.book.format import BookError
from connect4.solver.book.keys import canonical_key
from connect4.solver.book.split import (
    SplitInterrupted,
    SplitReport,
    split_positions,
    split_solve,
)
from connect4.solver.book.splitroot import probe_chunk
from connect4.solver.book.splitstore import bounds_path
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
    options.setdefault("direct_nodes", 0)  # these small positions go through the split
    with ThreadPoolExecutor(1) as pool:
        return split_solve(
            moves, width, height, split_ply=split_ply, executor=pool, progress=False,
            **options,  # type: ignore[arg-type]
        )  # fmt: skip


# The columns' exact scores after 4444 on 7x6 (the opening book's, checked in the killed
# client's test): seconds of split work, so a kill always finds it running.
AFTER_4444 = [-2, -2, -2, 1, -2, -2, -2]


def windows(results: Path) -> int:
    """The answers a split solve journalled: exact scores and bounds."""
    return journal_records(results.with_name(results.name + ".partial")) + journal_records(
        bounds_path(results)
    )


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
    expected = unsplit(moves, width, height)
    best = max(s for s in expected if s is not None)
    alone = in_threads(moves, width, height, split_ply)  # the score and best move only
    assert alone.column_scores is None and not alone.direct
    assert (alone.score, expected[alone.best_move]) == (best, best)
    report = in_threads(moves, width, height, split_ply, analyze=True)
    assert report.column_scores == expected
    assert report.score == best and expected[report.best_move] == best
    assert 0 < report.searched <= report.probes == len(report.task_nodes)
    assert report.searched < report.tasks  # the bounds cut the rest
    assert report.resumed == 0


@pytest.mark.slow
def test_the_empty_7x6_board_split_at_ply_8_is_a_first_player_win(tmp_path: Path) -> None:
    """76,687 positions, those the search needs searched with the published 12-ply
    database inside them (with it the plain solver settles the root at once, so the
    split is asked for: ``direct_nodes=0``)."""
    report = split_solve(
        "", 7, 6, split_ply=8, workers=2, base_book="default", results=tmp_path / "r.c4book",
        chunk=4, progress=False, analyze=True, direct_nodes=0,
    )  # fmt: skip
    assert report.tasks == 76_687 and not report.direct
    assert 0 < report.searched < report.tasks
    assert (report.score, report.best_move) == (1, 3)
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
                         [("", 4, 4, 4), ("", 5, 4, 6), ("445", 7, 6, 7),
                          ("55", 9, 7, 6)])  # fmt: skip  # 9x7: boards over a word
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
def test_a_stopped_split_resumes_without_searching_anything_twice(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    journal = tmp_path / "r.c4book.partial"
    with pytest.raises(SplitInterrupted) as caught:
        in_threads("", 6, 5, 6, results=results, stop_after=40)
    assert caught.value.done == 40 == windows(results)
    assert not results.exists()
    report = in_threads("", 6, 5, 6, results=results)
    assert report.resumed > 0 and report.probes > 0
    assert report.score == 0 and report.column_scores is None
    assert not journal.exists() and bounds_path(results).exists()
    book = Book.load(results)
    assert book.meta["root"] == "" and book.meta["split_ply"] == 6
    assert (book.meta["score"], book.meta["best_move"]) == (0, report.best_move + 1)
    again = in_threads("", 6, 5, 6, results=results)  # every answer is on disk
    assert (again.probes, again.score, again.best_move) == (0, 0, report.best_move)
    assert again.resumed >= report.searched
    columns = in_threads("", 6, 5, 6, results=results, analyze=True)  # more questions
    assert columns.column_scores == unsplit("", 6, 5) and columns.probes > 0
    last = in_threads("", 6, 5, 6, results=results, analyze=True)
    assert (last.probes, last.column_scores) == (0, columns.column_scores)


class StopAfterTasks(ThreadPoolExecutor):
    """One thread that stops ``limit`` once ``tasks`` of its tasks have finished: a stop
    in the middle of a run whatever the machine's speed (a watcher thread polling the
    journal raced with a run that ended in a third of a second)."""

    def __init__(self, limit: Limit, tasks: int) -> None:
        super().__init__(1)
        self.limit, self.left = limit, tasks

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        def run() -> Any:
            try:
                return fn(*args, **kwargs)
            finally:
                self.left -= 1  # (one thread: no race)
                if self.left <= 0:
                    self.limit.stop()

        return super().submit(run)


def test_a_stop_flag_keeps_the_finished_tasks(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    limit = Limit()
    with StopAfterTasks(limit, 5) as pool, pytest.raises(SplitInterrupted) as caught:
        split_solve("", 6, 5, split_ply=6, executor=pool, progress=False, direct_nodes=0,
                    results=results, limit=limit)  # fmt: skip
    kept = windows(results)
    assert caught.value.done == kept >= 5
    report = in_threads("", 6, 5, 6, results=results)
    assert report.resumed > 0 and report.score == 0


def test_a_task_stops_at_the_deadline_it_is_given() -> None:
    """Each task gets the run's time left: past it, a task's search stops and answers
    the whole range of scores (nothing proven) and the task ends (so a limit is not
    overrun by the tasks under way)."""
    (stopped,) = probe_chunk(7, 6, [("", 0, 1), ("4", -1, 0)], None, 0.0)
    assert stopped[:3] == (canonical_key(Position()), *score_bounds(42, 0))
    low, exact = probe_chunk(7, 6, [("4455", 17, 18), ("4455", 0, None)], None, 10.0)
    key = canonical_key(Position.from_moves("4455"))
    assert (low[:3], exact[:3]) == ((key, 18, 19), (key, 18, 18))  # 19: the most there is
    (answer,) = probe_chunk(6, 5, [("2233", 0, 1)], None, None)  # score 12: a lower bound
    assert answer[1] > 0 and answer[2] == 13


def test_a_time_limit_bounds_the_whole_run(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    with pytest.raises(SplitInterrupted) as caught:
        in_threads("", 7, 6, 4, results=results, limit=Limit.within(4.0))
    assert not results.exists()
    kept = windows(results)
    assert kept == caught.value.done
    with pytest.raises(SplitInterrupted) as again:  # a rerun goes on from what was kept
        in_threads("", 7, 6, 4, results=results, limit=Limit.within(4.0))
    assert windows(results) == kept + again.value.done


def test_a_stopped_limit_stops_the_listing_before_any_file(tmp_path: Path) -> None:
    limit = Limit()
    limit.stop()
    with pytest.raises(BudgetExceeded, match=r"^stopped "):
        split_solve("", 7, 6, split_ply=8, results=tmp_path / "r.c4book", limit=limit)
    assert list(tmp_path.iterdir()) == []


class CountingLimit(Limit):
    """A limit that never expires and counts how often it is looked at."""

    looks: int = 0

    def expired(self) -> bool:
        self.looks += 1
        return False


def test_the_listing_looks_at_its_limit_in_every_step_of_a_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each level is listed in three steps (the rules, the children's edges, the new
    positions' moves), each over up to millions of positions: each looks at the limit
    every ``CHECK_EVERY`` positions, so a deadline or Ctrl-C stops any of them."""
    monkeypatch.setattr(splitlist, "CHECK_EVERY", 64)
    root = Position(6, 5)
    limit = CountingLimit()
    split = split_positions(root, 8, limit)
    plies = [split_positions(root, ply).tasks for ply in range(1, 9)]
    sizes = [1] + [len(tasks) for tasks in plies]  # the open positions of each level
    rules = sum(-(-size // 64) for size in sizes)  # the rules' looks (and the moves' as many)
    assert len(split.tasks) == sizes[-1] > 64 * 100
    assert limit.looks >= 2 * rules  # the edges and the moves too, not the rules alone


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
    assert windows(unfinished) == 2


def test_a_killed_client_reruns_to_the_right_answer(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    journal = tmp_path / "r.c4book.partial"
    # Seconds of work (a 6x5 board was done in a third of a second, and could end before
    # the kill came).
    booked = run_cli("solve", "4444", "-a", timeout=120)
    assert booked.stdout == f"4444 {' '.join(map(str, AFTER_4444))}\n", booked.stderr
    args = ["solve", "4444", "--split-ply", "8", "--no-book",
            "--workers", "1", "--results", str(results), "-a"]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "connect4", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        start_new_session=True,
    )
    kill_when_working(process, lambda: windows(results) >= 20)
    kept = windows(results)
    assert kept >= 20 and not results.exists()
    rerun = run_cli(*args, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stdout == booked.stdout
    known = re.search(r"([\d,]+) known from earlier runs", rerun.stderr)
    assert known and int(known[1].replace(",", "")) > 0
    assert results.exists() and not journal.exists()


def test_ctrl_c_keeps_the_finished_tasks_and_says_so(tmp_path: Path) -> None:
    from tests.cli_helpers import interrupt_cli

    results = tmp_path / "r.c4book"
    journal = tmp_path / "r.c4book.partial"
    # The empty 7x6 board with no book: its first windows come within seconds, the whole
    # solve takes minutes, so the Ctrl-C always finds it working (a 6x5 board was done
    # in about a second and could finish before the signal came).
    args = ["solve", "", "--split-ply", "6", "--no-book", "--workers", "1",
            "--results", str(results), "-a"]  # fmt: skip
    done = interrupt_cli(args, lambda _: windows(results) >= 5, group=True)
    assert done.returncode == 130
    assert f"the finished tasks are in {journal}; rerun to finish" in done.stderr
    assert windows(results) >= 5


def test_a_second_run_on_the_same_results_is_refused_while_the_first_runs(
    tmp_path: Path,
) -> None:
    """A split solve always continues its results file: a second one started on it
    (the default file of the same root, say) would search everything again beside the
    first and race it to the book. It is refused, with --force too, and the first
    keeps its work."""
    from tests.cli_helpers import interrupt_cli

    results = tmp_path / "r.c4book"
    args = ["solve", "", "--split-ply", "6", "--no-book", "--workers", "1",
            "--results", str(results), "-a"]  # fmt: skip
    second: list[subprocess.CompletedProcess[str]] = []

    def refuse_a_second_run(_: object) -> bool:
        if windows(results) < 5:
            return False
        second.extend(run_cli(*args, *extra, timeout=120) for extra in ([], ["--force"]))
        return True

    done = interrupt_cli(args, refuse_a_second_run, group=True)
    assert done.returncode == 130, done.stderr
    assert len(second) == 2
    for refused in second:
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr == (
            f"error: journal {results}.partial is in use by another run of this job: "
            "let it finish, or stop it first\n"
        )
    assert windows(results) >= 5  # the first run's answers, kept for a rerun


def test_cli_limit_stops_the_run_and_keeps_what_finished(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    args = ["solve", "", "--split-ply", "6", "--no-book", "--workers", "1",
            "--results", str(results), "--limit", "2"]  # fmt: skip
    stopped = run_cli(*args, timeout=120)
    assert stopped.returncode == 1 and stopped.stdout == ""
    # a cold cache says first that the solver compiles (or waits for another compile)
    *before, last = stopped.stderr.splitlines()
    assert all("compil" in line for line in before), stopped.stderr
    assert last.startswith("stopped at --limit 2: ") and last.endswith("; rerun to go on")
    assert not results.exists()


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
            while windows(results) < 10:
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
                    "4444", 7, 6, split_ply=8, scheduler=cluster.scheduler_address,
                    results=results, progress=False, analyze=True, direct_nodes=0,
                ))  # fmt: skip
                break
            except Exception:
                continue
        finished.set()
        killer.join(timeout=60)
    report = reports[-1]
    assert killed == pids[:1]
    assert report.column_scores == AFTER_4444
    assert report.tasks == 450 and report.searched + report.resumed > 10
    assert not journal.exists() and Book.load(results).meta["score"] == 1


# ---------------------------------------------------------------- the command line
def test_cli_split_solve_prints_what_solve_prints(tmp_path: Path) -> None:
    results = tmp_path / "r.c4book"
    board = ["--width", "6", "--height", "5", "--no-book"]
    plain = run_cli("solve", "", *board, "-a")
    split = run_cli("solve", "", *board, "-a", "--split-ply", "auto", "--workers", "2",
                    "--results", str(results))  # fmt: skip
    assert split.returncode == 0, split.stderr
    assert split.stdout == plain.stdout
    assert "; split at ply " in split.stderr and f"results in {results}" in split.stderr
    quiet = run_cli("solve", "", *board, "-q", "--split-ply", "auto", "--workers", "2",
                    "--results", str(results))  # fmt: skip
    assert quiet.stdout == " 0\n"
    assert ", 0 searched now (0 windows)" in quiet.stderr
    other = ["solve", "", *board, "--split-ply", "5", "--workers", "1",
             "--results", str(results)]  # fmt: skip
    refused = run_cli(*other)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith(f"error: {results} holds the results of another split")
    assert refused.stderr.endswith("give --force to replace it, or another results file\n")
    forced = run_cli(*other, "--force", "--progress")
    assert forced.returncode == 0, forced.stderr
    line = r"^score (0|[-+]\d+)( to (0|[-+]\d+))?; [\d,]+ of [\d,]+ positions, [\d,]+ nodes; "
    assert re.search(line + r"at most about [\d,]+ nodes left$",
                     forced.stderr, re.MULTILINE)  # fmt: skip
    assert forced.stdout == quiet.stdout


def test_a_root_the_plain_solver_settles_never_goes_through_the_split(tmp_path: Path) -> None:
    """A win at once, and one of c4's 8x7 book rows (+20) the plain solver settles in a
    few hundred nodes: solved directly, no task, no results file."""
    results = tmp_path / "r.c4book"
    won = split_solve("4455", 7, 6, split_ply=8, results=results, progress=False)
    assert (won.direct, won.score, won.best_move, won.tasks, won.probes) == (True, 18, 2, 0, 0)
    row = split_solve(
        "522221", 8, 7, split_ply=12, results=results, progress=False, workers=1
    )  # fmt: skip (line 2070 of c4's book-8x7.csv: +20, move 4)
    assert (row.direct, row.score, row.tasks) == (True, 20, 0)
    child = Position.from_moves("522221" + str(row.best_move + 1), 8, 7)
    assert Solver(8, 7).probe(child, -20).value <= -20  # the move keeps the +20
    assert row.search_nodes < 100_000
    assert not results.exists()
    cli = run_cli("solve", "4455", "--split-ply", "8", "--workers", "1", "--results", str(results))
    assert cli.returncode == 0 and cli.stdout == "4455 18\n"
    assert cli.stderr.startswith("best move 3; solved directly (")
    assert not results.exists()


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
            "error: --workers, --scheduler, --results, --limit and --force go with --split-ply\n",
        ),
        (["--split-ply", "5", "--limit", "0"], "error: --limit must be above 0 seconds, not 0\n"),
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
