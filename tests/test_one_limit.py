"""One ``Limit`` is the only control parameter of a long solve: its stop flag, set
from another thread, ends a solve, a review and a web analysis, and stops a book
build and a dataset keeping their journals; its node budget stops the solver as the
old ``max_nodes`` did; its progress sink hears the solver."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from connect4.core.games import Board
from connect4.core.journal import journal_path
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.processes import JobInterrupted
from connect4.review import review
from connect4.solver import SolveProgress, Solver
from connect4.solver.book.build import BuildConfig, BuildInterrupted, build_book
from connect4.web import service
from tests.cli_helpers import journal_records

T = TypeVar("T")
FAILURE_WAIT = 300.0  # seconds a failing test waits before it says so (a pass never waits)


def stopped_from_another_thread(work: Callable[[Limit], T]) -> tuple[T, list[object]]:
    """``work(limit)`` on a worker thread; once it reports progress (it is deep in a
    search), this thread stops the limit: the work's result and what it reported."""
    reports: list[object] = []
    started = threading.Event()

    def heard(report: object) -> None:
        reports.append(report)
        started.set()

    limit = Limit(progress=heard)
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(work, limit)
        assert started.wait(FAILURE_WAIT), "the work never reported its progress"
        assert not future.done()
        limit.stop()
        return future.result(timeout=FAILURE_WAIT), reports


def test_a_stop_flag_set_from_another_thread_stops_a_solve() -> None:
    # the empty 7x6 board without a book: a search of tens of seconds
    with Solver(7, 6, 16) as solver:
        result, reports = stopped_from_another_thread(
            lambda limit: solver.run(Position(), limit=limit)
        )
        assert (result.score, result.complete) == (None, False)
        assert reports and all(isinstance(r, SolveProgress) for r in reports)
        assert solver.solve(Position.from_moves("44455554221")) == -15  # still exact


def test_a_stop_flag_set_from_another_thread_stops_a_review() -> None:
    # 8x7 has no book: each move of the first position is a search of hours
    board = Board("connect4", 8, 7)
    result, _ = stopped_from_another_thread(lambda limit: review("1", board, limit=limit))
    assert [row.proven for row in result.plies] == [False]


def test_a_stop_flag_set_from_another_thread_stops_a_web_analysis() -> None:
    analysis, _ = stopped_from_another_thread(
        lambda limit: service.analyze_position(Position(8, 7), limit=limit, table_megabytes=16)
    )
    assert (analysis.score, analysis.complete) == (None, False)


def test_the_web_review_passes_the_request_limit_with_its_stop_flag() -> None:
    # the web's review of a game took only the request's deadline: without one, its
    # stop flag (a client gone, the server stopping) never ended the review
    game = Position.from_moves("1", 8, 7)
    result, _ = stopped_from_another_thread(lambda limit: service.review_game(game, limit=limit))
    assert [row.proven for row in result.plies] == [False]


def test_a_node_budget_in_the_limit_stops_the_solver_as_before() -> None:
    position = Position.from_moves("4455")
    with Solver(7, 6, 16) as solver:
        budget = solver.run(Position(), limit=Limit(nodes=10_000))
        assert (budget.score, budget.complete) == (None, False)
        assert 10_000 <= budget.nodes <= 10_001
        # a child's node budget is the smaller of its own and its parent's
        child = solver.run(Position(), limit=Limit(nodes=50_000).tighter(nodes=10_000))
        assert (child.score, child.complete, child.nodes) == (None, False, budget.nodes)
        parent = solver.run(Position(), limit=Limit(nodes=10_000).tighter(nodes=50_000))
        assert (parent.score, parent.complete, parent.nodes) == (None, False, budget.nodes)
        # a guess narrows by null-window searches within the same budget, in all
        guessed = solver.run(Position(), guess=1, limit=Limit(nodes=10_000))
        assert not guessed.complete and 10_000 <= guessed.nodes <= 10_001
        probe = solver.probe(Position(), 0, limit=Limit(nodes=10_000))
        assert (probe.value, probe.complete) == (None, False)
        # a budget large enough changes nothing
        assert solver.run(position, limit=Limit(nodes=10**9)).score == solver.solve(position)


def test_a_limit_that_expired_before_the_search_leaves_it_unproven() -> None:
    limit = Limit.within(60.0)
    limit.stop()
    with Solver(7, 6, 16) as solver:
        result = solver.run(Position(), analyze=True, limit=limit.tighter(nodes=10**9))
        assert (result.score, result.complete) == (None, False)
        assert result.column_scores == [None] * 7


class StopsOnItsSecondTask(ThreadPoolExecutor):
    """One worker thread; the second task submitted, once started, stops ``limit`` from
    that thread and holds until ``release`` is set: the job is stopped while a task is
    under way, and exactly the first task's results are done."""

    def __init__(self, limit: Limit) -> None:
        super().__init__(1)
        self.limit = limit
        self.release = threading.Event()
        self.submitted = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        self.submitted += 1
        number = self.submitted

        def task() -> T:
            if number == 2:
                self.limit.stop()
                self.release.wait(FAILURE_WAIT)
            return fn(*args, **kwargs)

        return super().submit(task)


def small_job(job: str, out: Path, executor: Executor, **options: Any) -> tuple[int, int, Any]:
    """The small book build or dataset ``job`` into ``out`` on ``executor``: how many
    items it took from its journal, how many it did now, and what it wrote (as lists)."""
    if job == "book build":
        built = build_book(
            BuildConfig(5, 4, 5, chunk=16), out, executor=executor, progress=False, **options
        )
        return built.resumed, built.solved, [built.book.keys.tolist(), built.book.values.tolist()]
    from connect4.envs.dataset import make_dataset

    made = make_dataset(24, (6, 9), out, width=5, height=4, chunk=4, progress=False,
                        executor=executor, **options)  # fmt: skip
    return made.resumed, made.labelled, {k: a.tolist() for k, a in made.dataset.arrays().items()}


@pytest.mark.parametrize(
    ("job", "suffix", "chunk", "total", "interrupted"),
    [
        ("book build", ".c4book", 16, 785, BuildInterrupted),
        ("dataset", ".npz", 4, 24, JobInterrupted),
    ],
)
def test_a_stop_flag_set_from_another_thread_stops_a_job_keeping_its_journal(
    tmp_path: Path, job: str, suffix: str, chunk: int, total: int, interrupted: type[Exception]
) -> None:
    """Stopped while its second chunk runs: exactly the first chunk journalled, nothing
    written; resumed, it writes what an uninterrupted run writes."""
    if job == "dataset":
        pytest.importorskip("gymnasium")
    out = tmp_path / f"small{suffix}"
    limit = Limit()
    pool = StopsOnItsSecondTask(limit)
    try:
        with pytest.raises(interrupted) as stopped:
            small_job(job, out, pool, limit=limit)
    finally:
        pool.release.set()
        pool.shutdown()
    journal = journal_path(out)
    assert isinstance(stopped.value, JobInterrupted)
    assert stopped.value.done == chunk and journal_records(journal) == chunk and not out.exists()
    with ThreadPoolExecutor(1) as again:
        resumed = small_job(job, out, again, resume=True)
    assert resumed[:2] == (chunk, total - chunk) and not journal.exists()
    with ThreadPoolExecutor(1) as whole:
        fresh = small_job(job, tmp_path / f"whole{suffix}", whole)
    assert resumed[2] == fresh[2]
