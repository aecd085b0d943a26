"""Solve a whole board by splitting it: the positions at a split ply searched as tasks,
under a search above the split that asks them only what it needs.

This is how the large boards were solved (Tromp's 8x8 with solved 16-ply positions,
ChristopheSteininger/c4's boards of width + height = 16): the positions with
``split_ply`` stones reachable from the root are listed once, with the positions
between the root and the split (:mod:`connect4.solver.book.splitlist`: mirror images
and transpositions merged, centre columns first, positions the solver's rules settle
solved here in a few nodes).

The search above the split (:mod:`connect4.solver.book.splitroot`) narrows the
root's score by null-window questions, as the solver does; each question reaches
only the split positions it needs, likely-best lines first, as null-window tasks
("is this position above ``alpha``?") on a local process pool or a Dask cluster
(:func:`connect4.core.processes.make_executor`), as many at a time as there are
workers. A root the plain solver settles in a few nodes (a win at once, a short
forced line) is solved directly. The root's score and best move come first; every
first move's score only when asked (``analyze``).

Each answer, an exact score or a bound, is journalled as it arrives
(:mod:`connect4.solver.book.splitstore`: ``RESULTS.partial`` and ``RESULTS.bounds``
beside the results book), so a run stopped by Ctrl-C, its limit or a killed client
loses only the tasks in flight, and rerunning the same solve goes on from the rest
(a lost task is run again, a bound proven is never searched again). The exact
scores are merged into ``RESULTS``, an opening book of the split positions (its
metadata naming the root, the split and the answer), at the end of each run.

>>> report = split_solve("", 4, 4, split_ply=4, workers=1, results=None, progress=False,
...                      analyze=True, direct_nodes=0)
>>> report.score, report.best_move, report.column_scores, report.tasks
(0, 1, [0, 0, 0, 0], 82)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from connect4.core import bits
from connect4.core.cache import cache_root
from connect4.core.errors import BudgetExceeded
from connect4.core.files import check_output
from connect4.core.journal import journal_path
from connect4.core.limits import Limit, clock
from connect4.core.position import Position
from connect4.core.processes import START_METHOD, JobInterrupted
from connect4.core.progress import Advance, progress_bar
from connect4.solver import Solver, job_pool
from connect4.solver.book.build import base_book_for, book_tag
from connect4.solver.book.format import BookError, is_book_file
from connect4.solver.book.splitlist import (
    AUTO_WORKERS,
    MAX_SPLIT_TASKS,
    SplitPositions,
    auto_split_ply,
    check_split_ply,
    chosen_split_ply,
    split_positions,
)
from connect4.solver.book.splitroot import (
    Intervals,
    ProbeResult,
    RootSearch,
    StopSearch,
    column_key,
    shared_table,
)
from connect4.solver.book.splitstore import (
    BoundsJournal,
    SplitJournal,
    book_scores,
    bounds_path,
    identity,
    open_journal,
    results_book,
    stored,
)
from connect4.solver.book.table import Book
from connect4.solver.narrow import immediate_win

__all__ = [
    "MAX_SPLIT_TASKS",
    "SplitInterrupted",
    "SplitPositions",
    "SplitReport",
    "auto_split_ply",
    "default_results",
    "split_positions",
    "split_solve",
]

SEARCH_MEGABYTES = 64  # the table of a root solved directly
DIRECT_NODES = 1_000_000  # a root the plain solver settles within this many nodes: no split
LINE_EVERY = 5.0  # seconds between progress lines (``progress_lines``)
JOURNAL_EVERY = 0.25  # seconds between the journals' writes (one disk write for many tasks)


# ---------------------------------------------------------------- the results
def default_results(root: Position, split_ply: int, base_book: str | None) -> Path:
    """Where a split solve's results book goes unless named: under the cache root,
    named by board, position and split.

    >>> default_results(Position.from_moves("44", 7, 6), 8, None).name
    '7x6-44-ply8-nobook.c4book'
    """
    moves = root.moves or "empty"
    book = "" if base_book else "-nobook"
    name = f"{root.width}x{root.height}-{moves}-ply{split_ply}{book}.c4book"
    return cache_root() / "splits" / name


@dataclass(frozen=True)
class SplitReport:
    """A finished split solve: the root's exact score and best move (0-based), each
    column's score when asked (``None``: not asked; a full column's ``None``), the
    split, its positions (``tasks``; ``searched`` now, ``resumed``: known from earlier
    runs; the others were never needed), ``probes`` (the windows searched now), the
    positions ``settled`` by the rules, each probe's nodes (``task_nodes``, in the order
    they came) and their total, the nodes searched here (the positions the rules
    settle and the plain solver's attempt before the split, or the whole search
    when ``direct``: the plain solver settled the root within a small budget and no
    task ran), the results book, how many tasks
    were ``stopped`` as no longer needed (their nodes counted in ``task_nodes``), and
    how many positions were ``split_again``: their task spent its node budget, so their
    children became tasks (local workers on a shared table)."""

    moves: str
    width: int
    height: int
    split_ply: int
    score: int
    best_move: int
    column_scores: list[int | None] | None
    tasks: int
    searched: int
    resumed: int
    probes: int
    settled: int
    task_nodes: list[int]
    task_nodes_total: int
    search_nodes: int
    seconds: float
    results: str | None
    direct: bool = False
    stopped: int = 0
    split_again: int = 0

    @property
    def nodes(self) -> int:
        """Every node searched now for the answer: the tasks' and this process's."""
        return self.task_nodes_total + self.search_nodes


class SplitInterrupted(JobInterrupted):
    """A split solve stopped before its answer; rerunning it finishes from its journals."""

    def __init__(self, journal: Path, done: int) -> None:
        super().__init__(journal, done, "split solve")


# ---------------------------------------------------------------- the solve
def split_solve(
    moves: str,
    width: int = 7,
    height: int = 6,
    *,
    split_ply: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    results: str | Path | None = None,
    limit: Limit | None = None,
    base_book: str | None = None,
    analyze: bool = False,
    direct_nodes: int = DIRECT_NODES,
    executor: Executor | None = None,
    chunk: int = 1,
    force: bool = False,
    progress: bool = True,
    progress_lines: bool = False,
    stream: TextIO | None = None,
    stop_after: int | None = None,
) -> SplitReport:
    """Solve the position ``moves`` exactly by splitting it at ``split_ply`` stones: its
    score and best move, and with ``analyze`` every column's score.

    A position the plain solver settles within ``direct_nodes`` nodes (0: never tried)
    is solved directly, with no task. ``split_ply`` ``None`` chooses one
    (:func:`auto_split_ply`). The tasks (``chunk`` positions each) run on ``executor``
    when given, else on ``workers`` local processes (``None``: every core) or the Dask
    cluster at ``scheduler``; ``base_book`` (a book spec: ``default``, a file; ``None``:
    none) is probed inside the tasks' searches. ``results`` names the results book
    (``None``: a temporary one, removed at the end); the same solve run again resumes
    from its journals and book, ``force`` starts over. ``limit`` (its deadline or stop
    flag) bounds the whole run: tasks get the time left and the run stops, what
    finished kept: :class:`SplitInterrupted`; so does ``stop_after`` that many tasks
    (for tests). ``progress`` draws a bar on ``stream`` (default stdout), or with
    ``progress_lines`` a line there every few seconds.
    Bad input raises :class:`~connect4.core.errors.Connect4Error` before any work.
    """
    started = clock()
    root = Position.from_moves(moves, width, height)
    if root.is_over():
        raise BookError(f"the game is already over ({root.result_text()})", setting="moves")
    split_ply = chosen_split_ply(root, split_ply, workers, scheduler)
    check_split_ply(root, split_ply)
    if chunk < 1:
        raise BookError(f"must be at least 1, not {chunk}", setting="chunk")
    base = base_book_for(base_book, width, height, split_ply)
    if results is not None:  # a bad results file is refused even when none is written
        check_output(Path(results), what="results book", force=force, resume=not force,
                     ours=is_book_file)  # fmt: skip
    quick, tried = _direct(root, split_ply, base, analyze, direct_nodes, limit, started)
    if quick is not None:
        return quick
    split = split_positions(root, split_ply, limit)
    run = _Run(split, base, base_book if base is not None else None, executor, workers,
               scheduler, chunk, _Shown(progress, progress_lines, stream), stop_after,
               limit or Limit(), analyze, started, tried)  # fmt: skip
    with contextlib.ExitStack() as stack:
        if results is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="connect4-split-"))
            return run.solve(Path(folder) / "results.c4book", force, keep=False)
        return run.solve(Path(results), force, keep=True)
    raise AssertionError("unreachable")  # pragma: no cover


def _direct(
    root: Position,
    split_ply: int,
    base: Book | None,
    analyze: bool,
    direct_nodes: int,
    limit: Limit | None,
    started: float,
) -> tuple[SplitReport | None, int]:
    """The report of a root the plain solver settles within ``direct_nodes`` nodes (a
    short forced line; a win at once whatever ``direct_nodes``: there is nothing to
    split), or ``None``; and the nodes the attempt searched."""
    if direct_nodes <= 0 and not immediate_win(root):
        return None, 0
    budget = (limit or Limit()).tighter(nodes=max(direct_nodes, 1))
    with Solver(root.width, root.height, SEARCH_MEGABYTES, book=base) as solver:
        result = solver.run(root, analyze=analyze, limit=budget)
        nodes = result.nodes
        columns = result.column_scores
        best: int | None = None
        if result.complete and columns is not None:
            score = max(c for c in columns if c is not None)
            best = next(c for c in bits.centre_order(root.width) if columns[c] == score)
        elif result.complete and result.score is not None:
            score = result.score
            best, more = _best_within(solver, root, score, budget.after(nodes))
            nodes += more
        if best is None:
            if limit is not None and limit.expired():
                raise BudgetExceeded("stopped before the split; nothing was solved")
            return None, nodes
    return SplitReport(root.moves, root.width, root.height, split_ply, score, best,
                       columns if analyze else None, 0, 0, 0, 0, 0, [], 0, nodes,
                       clock() - started, None, direct=True), nodes  # fmt: skip


def _best_within(
    solver: Solver, root: Position, score: int, budget: Limit
) -> tuple[int | None, int]:
    """A move that keeps ``score`` (centre first; ``None``: not found within ``budget``)
    by null-window tests "is the position after it at most ``-score``?", and the nodes."""
    order = [c for c in bits.centre_order(root.width) if root.can_play(c)]
    won = [c for c in order if root.is_winning_move(c)]
    if won:
        return won[0], 0
    nodes = 0
    for column in order:
        child = root.copy()
        child.play(column)
        probe = solver.probe(child, -score, limit=budget.after(nodes))
        nodes += probe.nodes
        if probe.value is None:
            return None, nodes
        if probe.value <= -score:
            return column, nodes
    raise AssertionError(f"no move keeps the score {score}")  # pragma: no cover


@dataclass(frozen=True)
class _Shown:
    """How a split solve shows its progress (see :func:`split_solve`)."""

    show: bool
    lines: bool
    stream: TextIO | None


@dataclass
class _Run:
    """One split solve once its positions are listed (see :func:`split_solve`)."""

    split: SplitPositions
    base: Book | None
    base_name: str | None
    executor: Executor | None
    workers: int | None
    scheduler: str | None
    chunk: int
    shown: _Shown
    stop_after: int | None
    limit: Limit
    analyze: bool
    started: float
    tried: int = 0  # nodes of the plain solver's attempt before the split
    probes: list[int] = field(default_factory=list)
    searched: set[int] = field(default_factory=set)
    spent: int = 0  # the nodes of every task's answers so far (the sum of ``probes``)
    touched: int = 0  # the positions known before the run or searched in it
    stopped: int = 0
    split_again: int = 0
    unwritten: list[ProbeResult] = field(default_factory=list)
    written: float = 0.0

    def solve(self, path: Path, force: bool, *, keep: bool) -> SplitReport:
        split = self.split
        width, height, plies = split.width, split.height, split.split_ply
        tag = book_tag(self.base) if self.base is not None else 0
        ours = {"root": split.root, "split_ply": plies,
                "base_book": f"{tag:016x}" if tag else "none"}  # fmt: skip
        check_output(path, what="results book", force=force, resume=not force, ours=is_book_file)
        book = None if force else stored(path, width, height, ours)
        exact = SplitJournal(
            journal_path(path), width, height, plies, base_tag=tag, root=split.root
        )
        bounds = BoundsJournal(bounds_path(path), identity(width, height, split.root, plies, tag))
        open_journal(exact, force)
        try:
            open_journal(bounds, force)
            known = {**bounds.bounds}
            known.update((k, (v, v)) for k, v in {**book_scores(book), **exact.scores}.items())
            resumed = sum(key in known for key in split.tasks)
            self.touched = resumed
            answer = self._search(known, exact, bounds, resumed)
        finally:
            exact.close()
            bounds.close()
        score, best, columns, local = answer
        if keep:
            scores = {**book_scores(book), **exact.scores}
            meta = {**ours, "score": score, "best_move": best + 1,
                    "solver_nodes": bounds.nodes + sum(exact.task_nodes.values())}  # fmt: skip
            results_book(width, height, plies, scores, meta).save(path)
        exact.on_disk().remove()
        return SplitReport(
            split.root, width, height, plies, score, best, columns, len(split.tasks),
            len(self.searched), resumed, len(self.probes), split.settled, self.probes,
            sum(self.probes), local + self.tried, clock() - self.started,
            str(path) if keep else None, stopped=self.stopped, split_again=self.split_again,
        )  # fmt: skip

    def _search(
        self,
        known: dict[int, tuple[int, int]],
        exact: SplitJournal,
        bounds: BoundsJournal,
        done_before: int,
    ) -> tuple[int, int, list[int | None] | None, int]:
        """The root's score, best move, columns (when asked) and the nodes searched here."""
        split = self.split
        graph = split.graph()
        intervals = Intervals(graph, known)
        slots = self.workers or (AUTO_WORKERS if self.scheduler else os.cpu_count() or 2)
        if self.executor is not None and self.workers is None:
            slots = 1
        with contextlib.ExitStack() as stack:
            table = None  # local workers forked from here search one table together
            if self.executor is None and self.scheduler is None and START_METHOD == "fork":
                table = stack.enter_context(shared_table(split.width, split.height, slots))
            pool = stack.enter_context(job_pool(self.executor, self.workers, self.scheduler))
            bar = stack.enter_context(progress_bar(
                self.shown.show, len(split.tasks), done_before, "searching", "pos",
                lines=self.shown.lines, stream=self.shown.stream, every=LINE_EVERY,
            ))  # fmt: skip

            _, root_key = self._root()

            def record(answers: list[ProbeResult]) -> bool:
                interval = intervals.lo[root_key], intervals.hi[root_key]
                return self._record(answers, exact, bounds, bar, known, interval)

            search = RootSearch(graph, intervals, pool, slots, self.chunk, self.base_name,
                                record, self.limit, table, expand=self._expand)  # fmt: skip
            stack.callback(search.close)
            try:
                answer = self._answer(search)
                self.stopped, self.split_again = search.stopped, search.split_again
                return answer
            except StopSearch:
                search.cancel()
                raise SplitInterrupted(exact.path, len(self.probes)) from None
            finally:
                self.unwritten.extend(search.split_bounds())  # known to a later run at once
                self._write(exact, bounds)

    def _expand(self, moves: str) -> tuple[list[int], dict[int, str]]:
        """A split position's children, listed by the split's own rules (none when the
        game is too near its end to split)."""
        split = self.split
        position = Position.from_moves(moves, split.width, split.height)
        if position.ply + 1 >= position.size - 2:
            return [], {}
        below = split_positions(position, position.ply + 1)
        key = bits.canonical_key(position.current + position.mask, split.width, split.height)
        return below.children.get(key, []), {**below.tasks, **below.settled_moves}

    def _record(
        self,
        answers: list[ProbeResult],
        exact: SplitJournal,
        bounds: BoundsJournal,
        bar: Advance,
        known: dict[int, tuple[int, int]],
        interval: tuple[int, int],
    ) -> bool:
        """Take a task's answers, journaled with those of the next ``JOURNAL_EVERY``
        seconds (a killed run loses at most those, as it loses the tasks under way: they
        are searched again), and show them with the root's ``interval`` of scores so far;
        False to stop."""
        self.unwritten.extend(answers)
        if clock() - self.written >= JOURNAL_EVERY:
            self._write(exact, bounds)
        fresh = 0
        for key, _, _, nodes in answers:
            self.probes.append(nodes)
            self.spent += nodes
            if key in self.split.tasks:  # (not a position below it, split again)
                fresh += key not in self.searched and key not in known
                self.searched.add(key)
        bar(fresh)
        self.touched += fresh
        bar.note(_estimate(interval, self.touched, len(self.split.tasks), self.spent))
        return self.stop_after is None or len(self.probes) < self.stop_after

    def _write(self, exact: SplitJournal, bounds: BoundsJournal) -> None:
        """Journal the answers taken since the last write: the split positions' exact
        scores (the results book's) apart from bounds and from every answer on a
        position below the split (a position split again has its children searched)."""
        answers, self.unwritten, self.written = self.unwritten, [], clock()
        tasks = self.split.tasks
        scores = [(key, lo, nodes) for key, lo, hi, nodes in answers if lo == hi and key in tasks]
        if scores:
            exact.append(scores)
        if len(scores) < len(answers):
            bounds.append(
                [answer for answer in answers if answer[1] != answer[2] or answer[0] not in tasks]
            )

    def _root(self) -> tuple[Position, int]:
        """The split's root and its canonical key."""
        split = self.split
        root = Position.from_moves(split.root, split.width, split.height)
        return root, bits.canonical_key(root.current + root.mask, split.width, split.height)

    def _answer(self, search: RootSearch) -> tuple[int, int, list[int | None] | None, int]:
        root, root_key = self._root()
        score = search.score(root_key)
        iv = search.intervals
        best = next(
            c
            for c in bits.centre_order(root.width)
            if root.can_play(c) and iv.hi.get(column_key(root, c), 1 - score) <= -score
        )
        columns: list[int | None] | None = None
        if self.analyze:
            columns = []
            for column in range(root.width):
                if not root.can_play(column):
                    columns.append(None)
                    continue
                key = column_key(root, column)
                if key in iv.lo:
                    columns.append(-search.score(key))
                else:  # a move that loses at once, or leaves a forced block undone
                    columns.append(search.solve_here(root, column))
        return score, best, columns, search.local_nodes


def _estimate(interval: tuple[int, int], known: int, total: int, spent: int) -> str:
    """The root's scores still possible (the search ends when one is left), what is
    known and searched, and the nodes left were every other position needed (a bound:
    a search usually needs a small share of the split's positions).

    >>> _estimate((-2, 3), 2, 6, 400)
    'score -2 to +3; 2 of 6 positions, 400 nodes; at most about 800 nodes left'
    """
    lo, hi = (f"{v:+d}" if v else "0" for v in interval)
    scores = f"score {lo}" if lo == hi else f"score {lo} to {hi}"
    left = round(spent / max(known, 1) * (total - known))
    searched = f"{known:,} of {total:,} positions, {spent:,} nodes"
    return f"{scores}; {searched}; at most about {left:,} nodes left"
