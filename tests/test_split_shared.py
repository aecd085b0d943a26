"""The split solve's local workers: one table in shared memory, stops that reach one
search only, and tasks stopped once the search above no longer needs them."""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import score_bounds
from connect4.solver import Solver
from connect4.solver.book.keys import canonical_key
from connect4.solver.book.split import split_positions, split_solve
from connect4.solver.book.splitroot import (
    Intervals,
    RootSearch,
    _shared,
    probe_chunk,
    shared_table,
)
from connect4.solver.checks import SolverError
from connect4.solver.layout import NODES, T_STOP, new_table
from connect4.solver.results import SolveResult

FORK = multiprocessing.get_context("fork")


def _solve_in(table: NDArray[np.uint64], moves: str, out: Any) -> None:
    result = Solver(6, 5, 1, book=None, table=table).run(Position.from_moves(moves, 6, 5))
    out.value = result.nodes


@pytest.mark.parametrize("shared", [True, False])
def test_a_process_forked_after_a_shared_table_finds_what_it_proved(shared: bool) -> None:
    """A child process solves a position on the table; the parent then solves it on the
    same table in a few nodes only when the table is shared (a private one is the
    child's copy-on-write copy: its entries never come back)."""
    table = new_table(6, 5, 1 << 20, shared=shared)
    nodes = FORK.Value("q", 0)
    child = FORK.Process(target=_solve_in, args=(table, "3443", nodes))
    child.start()
    child.join(60)
    assert child.exitcode == 0 and nodes.value > 10_000
    again = Solver(6, 5, 1, book=None, table=table).run(Position.from_moves("3443", 6, 5))
    assert again.score == 0
    assert (again.nodes < nodes.value // 20) is shared


def test_a_given_table_must_fit_the_board_and_one_thread() -> None:
    with pytest.raises(SolverError, match="not a 7x6 table of 2 MB"):
        Solver(7, 6, 2, table=new_table(7, 6, 1 << 20))
    with pytest.raises(SolverError, match="one thread"):
        Solver(7, 6, 1, table=new_table(7, 6, 1 << 20), threads=2)


def test_a_stop_on_a_shared_table_stops_that_search_only() -> None:
    """Two searches on one table: stopping one, while the other is inside its search,
    leaves the other running to its exact score (the stop ends the search by its own
    node limit; the table's stop slot would have ended both)."""
    table = new_table(7, 6, 16 << 20, shared=True)
    endless, long = (Solver(7, 6, 16, book=None, table=table) for _ in range(2))
    limit, results = Limit(), dict[str, SolveResult]()

    def search(name: str, solver: Solver, moves: str, within: Limit | None) -> None:
        results[name] = solver.run(Position.from_moves(moves), limit=within)

    threads = [
        threading.Thread(target=search, args=("endless", endless, "", limit)),
        threading.Thread(target=search, args=("long", long, "444444", None)),
    ]
    for thread in threads:
        thread.start()
    while "long" not in results and (long._mem is None or long._mem.threads[0][NODES] == 0):
        threading.Event().wait(0.001)
    limit.stop()  # the other search has begun its four million nodes
    for thread in threads:
        thread.join(120)
    assert results["endless"].score is None
    assert results["long"].score == 1 and results["long"].complete
    assert int(table[T_STOP]) == 0


def test_a_task_whose_flag_is_raised_stops_and_proves_nothing() -> None:
    with shared_table(7, 6, 2) as token:
        _shared[token][1][1] = 1
        (stopped,) = probe_chunk(7, 6, [("", 0, 1), ("4", 0, 1)], None, None, token, 1)
        assert stopped[:3] == (canonical_key(Position()), *score_bounds(42, 0))
        (answer,) = probe_chunk(6, 5, [("2233", 0, 1)], None, None)  # its own table
        (shared,) = probe_chunk(7, 6, [("4455", 17, 18)], None, None, token, 0)
        assert shared[1:3] == (18, 19) and answer[1] > 0


class _Idle:
    """An executor whose tasks never finish (the search above is looked at alone)."""

    def submit(self, *args: object) -> Future[object]:
        return Future()


@contextlib.contextmanager
def first_dispatch() -> Iterator[tuple[RootSearch, int]]:
    """The search above the empty 4x4 board split at 2, two workers on a shared table
    (tasks that never finish), after its first hand-out; and the table's token."""
    graph = split_positions(Position(4, 4), 2).graph()
    with shared_table(4, 4, 2) as token:
        pool: Any = _Idle()
        search = RootSearch(graph, Intervals(graph, {}), pool, 2, 1, None, lambda _: True,
                            table=token)  # fmt: skip
        search.question = canonical_key(Position(4, 4)), 0
        search._dispatch()
        yield search, token


def test_the_search_above_stops_a_task_cut_off_from_its_question() -> None:
    """A task is needed while a path of undecided positions leads to it from the
    question's position; once its parent is decided by another child, its flag is
    raised (and only its)."""
    with first_dispatch() as (search, token):
        graph, intervals = search.graph, search.intervals
        # young brothers wait: one task at first, which the idle worker helps
        main, helper = search.busy
        assert search.helpers == {helper: main}
        (task,) = search.busy[main]
        assert search.busy[helper] == [task] and search._needed(task)
        (parent,) = intervals.parents[task]
        siblings = [kid for kid in graph.children[parent] if kid != task]
        # a sibling scoring -1 answers the parent's question (is it above -1?): the
        # parent scores at least 1, and the task is cut off from the root
        intervals.tighten(siblings[0], -1, -1)
        assert intervals.decided(parent, -1)
        assert not search._needed(task)
        search._dispatch()
        flags = _shared[token][1]
        assert search.stopped == 2 and flags.tolist().count(1) == 2  # the task and its helper


def test_an_idle_worker_helps_a_task_and_makes_way_for_a_task_of_its_own() -> None:
    with first_dispatch() as (search, token):
        graph, intervals = search.graph, search.intervals
        main, helper = search.busy
        assert search.helpers == {helper: main} and search.busy[helper] == search.busy[main]
        assert search.sent[helper] == search.sent[main]  # the same windows
        # a brother of the task answered without deciding their parent: the younger
        # brothers are wanted now, and the helper's worker takes one
        (task,) = search.busy[main]
        (parent,) = intervals.parents[task]
        brother = next(kid for kid in graph.children[parent] if kid != task)
        intervals.tighten(brother, 1, 1)
        assert intervals.decided(brother, 0) and not intervals.decided(parent, -1)
        search._dispatch()
        assert search.stopping == {helper} and search.stopped == 1
        (new,) = set(search.busy) - {main, helper}
        assert new not in search.helpers and search.busy[new] != search.busy[main]
        assert _shared[token][1].tolist().count(1) == 1


def test_two_local_workers_give_the_unsplit_score() -> None:
    report = split_solve("", 6, 5, split_ply=5, workers=2, results=None, progress=False,
                         direct_nodes=0)  # fmt: skip
    assert report.score == 0 and report.best_move == 2


def test_a_win_at_once_is_solved_directly_even_when_the_split_is_asked() -> None:
    """Nothing to split (it crashed on no column's interval before); and an attempt of
    the plain solver that does not settle the root counts in the report's nodes."""
    won = split_solve("121212", 8, 7, split_ply=8, workers=1, results=None, progress=False,
                      direct_nodes=0)  # fmt: skip
    assert (won.direct, won.best_move, won.tasks) == (True, 0, 0)
    tried = split_solve("", 4, 4, split_ply=4, workers=1, results=None, progress=False,
                        direct_nodes=10)  # fmt: skip
    plain = split_solve("", 4, 4, split_ply=4, workers=1, results=None, progress=False,
                        direct_nodes=0)  # fmt: skip
    assert not tried.direct and tried.score == plain.score == 0
    assert tried.search_nodes >= plain.search_nodes + 10


@pytest.mark.parametrize("workers", [1, 2])
def test_a_task_over_its_node_budget_is_split_into_its_children_and_the_scores_hold(
    workers: int, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from connect4.solver.book import splitroot

    # about 570 of the 6x5 tasks at 5 spend more than 3,000 nodes (300: 6,300, five times
    # as long to run, no more to check)
    monkeypatch.setattr(splitroot, "SPLIT_AGAIN_NODES", 3000)
    analyze = workers > 1  # one worker: the root's score, twice (every column's: two workers)
    unsplit = Solver(6, 5).run(Position(6, 5), analyze=analyze)
    runs = []
    for run in range(2 if workers == 1 else 1):
        results = tmp_path / f"{run}.c4book"
        runs.append(split_solve("", 6, 5, split_ply=5, workers=workers, results=results,
                                progress=False, analyze=analyze, direct_nodes=0))  # fmt: skip
    for report in runs:
        assert report.split_again > 0
        assert report.searched <= report.tasks  # split positions only, not those below
        assert (report.score, report.column_scores) == (unsplit.score, unsplit.column_scores)
    if workers == 1:  # a node budget, not a clock: one worker searches the same every run
        assert runs[0].task_nodes == runs[1].task_nodes


def test_a_run_that_split_positions_again_resumes_and_reruns_from_its_journals(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from connect4.solver.book import splitroot
    from connect4.solver.book.split import SplitInterrupted

    monkeypatch.setattr(splitroot, "SPLIT_AGAIN_NODES", 300)
    results = tmp_path / "r.c4book"
    options: dict[str, Any] = {"split_ply": 5, "workers": 1, "results": results,
                               "progress": False, "direct_nodes": 0}  # fmt: skip
    with pytest.raises(SplitInterrupted):
        split_solve("", 6, 5, stop_after=60, **options)
    report = split_solve("", 6, 5, **options)
    assert report.resumed > 0 and report.split_again > 0 and report.score == 0
    again = split_solve("", 6, 5, **options)  # the positions split again are journaled too
    assert (again.probes, again.score, again.best_move) == (0, 0, report.best_move)
