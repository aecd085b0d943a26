"""Solve a whole board by splitting it: every position at a split ply solved as a task,
then a search above the split that reads their scores.

This is how the large boards were solved (Tromp's 8x8 with solved 16-ply positions,
ChristopheSteininger/c4's boards of width + height = 16): the positions with
``split_ply`` stones reachable from the root are listed once (mirror images and
transpositions merged), in the order the solver would try them (centre columns
first, so the likely best lines come first), and solved exactly as tasks on a local
process pool or a Dask cluster (:func:`connect4.core.processes.make_executor`, the
book builder's workers: :func:`~connect4.solver.book.build.solve_chunk`).

Only the positions the solver's search can reach are listed, with its own rules
(the kernel's static rules): a position whose side to move wins at once, must block
two threats or has no move that does not lose is settled without a task, and is not
expanded; from the others only the moves that do not lose at once are played.

Each result is journalled as it arrives (the book builder's journal,
:class:`~connect4.solver.book.build.Journal`, beside the results book as
``RESULTS.partial``), so a run stopped by Ctrl-C, a time limit or a killed client
loses only the tasks in flight, and rerunning the same solve finishes from the rest
(a lost task is run again, nothing finished is solved twice). When every task is in,
the results are written as an opening book of the split positions (``RESULTS``, its
metadata naming the root and the split) and the journal removed; the root's score and
every first move's score then come from the solver with that book probed at the
split (:class:`~connect4.solver.solver.Solver`, exact). A later run of the same solve
reads the book and searches only above the split.

This version solves every split position exactly (no null-window tasks, no
positions cut by their siblings' bounds).

>>> report = split_solve("", 4, 4, split_ply=4, workers=1, results=None, progress=False)
>>> report.score, report.column_scores, report.tasks
(0, [0, 0, 0, 0], 82)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

import numpy as np

from connect4.core import bits
from connect4.core.cache import cache_root
from connect4.core.errors import BudgetExceeded
from connect4.core.fileerror import FileError
from connect4.core.files import check_output
from connect4.core.journal import Journal as JobJournal, JournalError, journal_path
from connect4.core.limits import Limit, clock
from connect4.core.position import Position, board_mask, bottom_mask
from connect4.core.processes import JobInterrupted, make_executor, run_chunks
from connect4.core.progress import progress_bar
from connect4.solver import Solver, fresh_worker
from connect4.solver.book.build import Journal, base_book_for, book_tag, solve_chunk
from connect4.solver.book.format import BookError, is_book_file
from connect4.solver.book.keys import key_array
from connect4.solver.book.table import Book

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

MAX_SPLIT_TASKS = 4_000_000
"""The most positions a split may list (their listing alone then takes minutes)."""

AUTO_TASKS_PER_WORKER = 32  # ``split_ply=None``: the first ply with this many tasks a worker
AUTO_WORKERS = 8  # ... counting this many workers on a Dask cluster (its size is not known)
SEARCH_MEGABYTES = 64  # the table of the search above the split
CHECK_EVERY = 4096  # positions listed between looks at the caller's limit
LINE_EVERY = 5.0  # seconds between progress lines (``progress_lines``)


# ---------------------------------------------------------------- the positions
def threat_cells(stones: int, mask: int, height: int, board: int) -> int:
    """The empty cells that would complete a four for ``stones`` (Pons' formula, on
    Python ints so it holds on boards of any size).

    >>> bin(threat_cells(0b111, 0b111, 6, 0b111111))  # three in a column: the fourth cell
    '0b1000'
    """
    found = (stones << 1) & (stones << 2) & (stones << 3)
    for shift in (height + 1, height, height + 2):  # horizontal, both diagonals
        pair = (stones << shift) & (stones << (2 * shift))
        found |= pair & (stones << (3 * shift))
        found |= pair & (stones >> shift)
        pair = (stones >> shift) & (stones >> (2 * shift))
        found |= pair & (stones << shift)
        found |= pair & (stones >> (3 * shift))
    return found & board & ~mask


@dataclass
class SplitPositions:
    """The positions of a split: ``tasks`` (``{canonical key: move string}``, in the
    order they are solved), and how many positions above or at the split were
    ``settled`` by the rules alone."""

    width: int
    height: int
    root: str
    split_ply: int
    tasks: dict[int, str]
    settled: int = 0


def _levels(root: Position, last: int, limit: Limit | None = None) -> Iterator[SplitPositions]:
    """The split positions at every ply from the root's next one to ``last``, in turn;
    ``limit`` (its deadline or stop flag, looked at every ``CHECK_EVERY`` positions)
    stops the listing with :class:`~connect4.core.errors.BudgetExceeded`."""
    width, height = root.width, root.height
    h1, size = height + 1, width * height
    bottom, board = bottom_mask(width, height), board_mask(width, height)
    order = bits.centre_order(width)
    frontier = {root.key(): (root.current, root.mask, root.moves)}
    settled = 0
    for ply in range(root.ply, last + 1):
        tasks: dict[int, str] = {}
        children: dict[int, tuple[int, int, str]] = {}
        for index, (current, mask, moves) in enumerate(frontier.values()):
            if limit is not None and index % CHECK_EVERY == 0 and limit.expired():
                raise BudgetExceeded("stopped while listing the split positions")
            possible = (mask + bottom) & board
            opp_win = threat_cells(current ^ mask, mask, height, board)
            forced = possible & opp_win
            if forced:
                possible = forced
            playable = possible & ~(opp_win >> 1)
            if (
                threat_cells(current, mask, height, board) & ((mask + bottom) & board)
                or forced & (forced - 1)
                or not playable
                or ply >= size - 2
            ):
                settled += 1  # a win at once, two threats or no safe move, a draw
                continue
            if ply > root.ply:
                tasks[bits.canonical_key(current + mask, width, height)] = moves
            if ply == last:
                continue
            for column in order:
                move = playable & (((1 << height) - 1) << (column * h1))
                if move:
                    child = (current ^ mask, mask | move)
                    key = bits.canonical_key(child[0] + child[1], width, height)
                    children.setdefault(key, (*child, moves + str(column + 1)))
        if ply > root.ply:
            yield SplitPositions(width, height, root.moves, ply, tasks, settled)
        if len(children) > MAX_SPLIT_TASKS:
            raise BookError(
                f"a split at ply {ply + 1} of this {width}x{height} position lists over "
                f"{MAX_SPLIT_TASKS:,} positions: split nearer the root",
                setting="split_ply",
            )
        frontier = children


def check_split_ply(root: Position, split_ply: int) -> None:
    """Refuse a split ply that is not after the root and before the board's last cells."""
    last = root.width * root.height - 3
    if not root.ply < split_ply <= last:
        raise BookError(
            f"must be after the position's {root.ply} stones and at most {last} on a "
            f"{root.width}x{root.height} board, not {split_ply}",
            setting="split_ply",
        )


def split_positions(root: Position, split_ply: int, limit: Limit | None = None) -> SplitPositions:
    """The positions with ``split_ply`` stones a solve of ``root`` splits into.

    >>> split = split_positions(Position(4, 4), 2)
    >>> list(split.tasks.values())  # mirror images once, centre columns first
    ['22', '23', '21', '24', '12', '13', '11', '14']
    >>> split.settled
    0
    """
    check_split_ply(root, split_ply)
    *_, level = _levels(root, split_ply, limit)
    return level


def auto_split_ply(root: Position, workers: int, limit: Limit | None = None) -> int:
    """The first ply after ``root`` with at least ``AUTO_TASKS_PER_WORKER`` tasks for
    each of ``workers`` (the board's last ply but two when none has).

    >>> auto_split_ply(Position(7, 6), 2)
    3
    """
    last = root.width * root.height - 3
    if root.ply >= last:
        check_split_ply(root, root.ply + 1)  # refused: nothing to split
    wanted = AUTO_TASKS_PER_WORKER * workers
    for level in _levels(root, last, limit):
        if len(level.tasks) >= wanted:
            return level.split_ply
    return last


def chosen_split_ply(
    root: Position, split_ply: int | None, workers: int | None, scheduler: str | None
) -> int:
    """``split_ply``, or when ``None`` the one :func:`auto_split_ply` chooses for the
    workers (``None``: every core; a Dask cluster counts as ``AUTO_WORKERS``)."""
    if split_ply is not None:
        return split_ply
    return auto_split_ply(root, AUTO_WORKERS if scheduler else workers or os.cpu_count() or 2)


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


@dataclass
class SplitJournal(Journal):
    """The solved split positions of one split solve (the book builder's journal, whose
    identity also names the root), with each position's nodes."""

    root: str = ""
    task_nodes: dict[int, int] = field(default_factory=dict)

    def on_disk(self) -> JobJournal:
        base = f"{self.base_tag:016x}" if self.base_tag else "none"
        identity = {"width": self.width, "height": self.height, "root": self.root,
                    "split_ply": self.plies, "base_book": base}  # fmt: skip
        return JobJournal(self.path, "split solve", identity)

    def open(self, resume: bool, force: bool = False) -> None:
        super().open(resume, force)
        assert self.file is not None
        record = self._record()
        for data in self.file.records():
            key, _, nodes = record.unpack(data)
            self.task_nodes[key] = nodes

    def append(self, results: list[tuple[int, int, int]]) -> None:  # type: ignore[override]
        super().append(results)
        for key, _, nodes in results:
            self.task_nodes[key] = nodes


@dataclass(frozen=True)
class SplitReport:
    """A finished split solve: the root's exact score and each column's (``None``: full),
    the split, its tasks (``solved`` now, ``resumed`` from the journal or the results
    book), positions ``settled`` by the rules, each task's nodes (``task_nodes``, in the
    order solved; empty when read back from a finished results book, whose metadata
    keeps only their total), their total, the search above's nodes and the results book."""

    moves: str
    width: int
    height: int
    split_ply: int
    score: int
    column_scores: list[int | None]
    tasks: int
    solved: int
    resumed: int
    settled: int
    task_nodes: list[int]
    task_nodes_total: int
    search_nodes: int
    seconds: float
    results: str | None

    @property
    def nodes(self) -> int:
        """Every node searched for the answer: the tasks' and the search above's."""
        return self.task_nodes_total + self.search_nodes


class SplitInterrupted(JobInterrupted):
    """A split solve stopped before every task was in; rerunning it finishes from its journal."""

    def __init__(self, journal: Path, done: int) -> None:
        super().__init__(journal, done, "split solve")


def _stored(path: Path, split: SplitPositions, base: str) -> Book | None:
    """The finished results book of this very split at ``path``, if one is there;
    another split's book is refused (a results book is never silently replaced)."""
    if not path.exists():
        return None
    book = Book.load(path)
    ours = {"root": split.root, "split_ply": split.split_ply, "base_book": base}
    theirs = {name: book.meta.get(name) for name in ours}
    if (book.width, book.height) != (split.width, split.height) or theirs != ours:
        raise FileError(
            f"{path} holds the results of another split solve ({book.width}x{book.height}, "
            f"{theirs}): give {{force}} to replace it, or another results file",
            options=("force",),
        )
    return book


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
    executor: Executor | None = None,
    chunk: int = 1,
    force: bool = False,
    progress: bool = True,
    progress_lines: bool = False,
    stream: TextIO | None = None,
    stop_after: int | None = None,
) -> SplitReport:
    """Solve the position ``moves`` exactly by splitting it at ``split_ply`` stones.

    ``split_ply`` ``None`` chooses one (:func:`auto_split_ply`). The tasks (``chunk``
    positions each) run on ``executor`` when given, else on ``workers`` local processes
    (``None``: every core) or the Dask cluster at ``scheduler``; ``base_book`` (a book
    spec: ``default``, a file; ``None``: none) is probed inside the tasks' searches.
    ``results`` names the results book (``None``: a temporary one, removed at the end);
    the same solve run again resumes its journal or reads its book, ``force`` starts
    over. ``limit`` (its deadline or stop flag) stops the run, what finished kept:
    :class:`SplitInterrupted`; so does ``stop_after`` that many tasks (for tests).
    ``progress`` draws a bar on ``stream`` (default stdout), or with ``progress_lines`` a
    line there every few seconds.
    Bad input raises :class:`~connect4.core.errors.Connect4Error` before any work.
    """
    root = Position.from_moves(moves, width, height)
    if root.is_over():
        raise BookError(f"the game is already over ({root.result_text()})", setting="moves")
    split_ply = chosen_split_ply(root, split_ply, workers, scheduler)
    if chunk < 1:
        raise BookError(f"must be at least 1, not {chunk}", setting="chunk")
    split = split_positions(root, split_ply, limit)
    base = base_book_for(base_book, width, height, split_ply)
    base_name = base_book if base is not None else None
    with contextlib.ExitStack() as stack:
        if results is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="connect4-split-"))
            path = Path(folder) / "results.c4book"
        else:
            path = Path(results)
        shown = _Shown(progress, progress_lines, stream)
        return _solve(split, path, base, base_name, executor, workers, scheduler, chunk,
                      force, shown, stop_after, limit, keep=results is not None)  # fmt: skip
    raise AssertionError("unreachable")  # pragma: no cover


def _solve(
    split: SplitPositions,
    path: Path,
    base: Book | None,
    base_name: str | None,
    executor: Executor | None,
    workers: int | None,
    scheduler: str | None,
    chunk: int,
    force: bool,
    progress: _Shown,
    stop_after: int | None,
    limit: Limit | None,
    *,
    keep: bool,
) -> SplitReport:
    """:func:`split_solve` once the split is listed and the results book named."""
    width, height, plies = split.width, split.height, split.split_ply
    tag = f"{book_tag(base):016x}" if base is not None else "none"
    started = clock()
    check_output(path, what="results book", force=force, resume=not force, ours=is_book_file)
    stored = None if force else _stored(path, split, tag)
    journal = SplitJournal(journal_path(path), width, height, plies, root=split.root)
    journal.base_tag = book_tag(base) if base is not None else 0
    solved = 0
    if stored is None:
        _open(journal, force)
        try:
            solved = _run_tasks(split, journal, base_name, executor, workers, scheduler, chunk,
                                progress, stop_after, limit)  # fmt: skip
        finally:
            journal.close()
        book = _results_book(split, journal, tag)
        if keep:
            book.save(path)
        journal.on_disk().remove()
    else:
        book = stored
    score, columns, search_nodes = _search_above(split, book, limit)
    if stored is None:
        nodes = [journal.task_nodes.get(key, 0) for key in split.tasks]
        total = sum(nodes)
    else:
        nodes, total = [], int(str(book.meta.get("solver_nodes", 0)))
    return SplitReport(
        split.root, width, height, plies, score, columns, len(split.tasks), solved,
        len(split.tasks) - solved, split.settled, nodes, total, search_nodes,
        clock() - started, str(path) if keep else None,
    )  # fmt: skip


def _open(journal: SplitJournal, force: bool) -> None:
    """Continue the journal (or start it; ``force``: start over). A journal of another
    split is refused naming what differs, as a split solve words it (it has no resume
    option: the same solve always continues)."""
    try:
        journal.open(resume=not force, force=force)
    except JournalError as error:
        if "{resume}" not in error.template:
            raise
        text = error.template.replace(
            "resume with the same settings, or give {force} instead of {resume} to start over",
            "give {force} to start over, or another results file",
        )
        raise JournalError(text, options=("force",)) from None


def _run_tasks(
    split: SplitPositions,
    journal: SplitJournal,
    base_name: str | None,
    executor: Executor | None,
    workers: int | None,
    scheduler: str | None,
    chunk: int,
    progress: _Shown,
    stop_after: int | None,
    limit: Limit | None,
) -> int:
    """Solve the split positions not in the journal; how many were solved now."""
    width, height = split.width, split.height
    todo = [moves for key, moves in split.tasks.items() if key not in journal.scores]
    done_before = len(split.tasks) - len(todo)
    solved = 0
    if not todo:
        return 0
    tasks = [(width, height, todo[i : i + chunk], base_name) for i in range(0, len(todo), chunk)]

    def run(pool: Executor, advance: Callable[[int], None], note: Callable[[str], None]) -> bool:
        chunks_done = 0

        def finished(result: list[tuple[int, int, int]]) -> bool:
            nonlocal solved, chunks_done
            journal.append(result)
            solved += len(result)
            chunks_done += 1
            advance(len(result))
            note(_estimate(journal, len(split.tasks)))
            return stop_after is None or chunks_done < stop_after

        return run_chunks(pool, solve_chunk, tasks, finished, limit)

    with contextlib.ExitStack() as stack:
        pool = (
            executor
            if executor is not None
            else stack.enter_context(make_executor(workers, scheduler, fresh_worker))
        )
        with progress_bar(
            progress.show, len(split.tasks), done_before, "solving", "pos",
            lines=progress.lines, stream=progress.stream, every=LINE_EVERY,
        ) as bar:  # fmt: skip
            complete = run(pool, bar, bar.note)
    if not complete:
        raise SplitInterrupted(journal.path, solved)
    return solved


@dataclass(frozen=True)
class _Shown:
    """How a split solve shows its progress (see :func:`split_solve`)."""

    show: bool
    lines: bool
    stream: TextIO | None


def _estimate(journal: SplitJournal, total: int) -> str:
    """What is done and left, the nodes left estimated from the finished tasks' nodes.

    >>> j = SplitJournal(Path("x"), 4, 4, 2, task_nodes={1: 100, 2: 300})
    >>> _estimate(j, 6)
    '2 of 6 positions, 400 nodes; about 800 nodes left'
    """
    done = len(journal.task_nodes)
    spent = sum(journal.task_nodes.values())
    left = round(spent / max(done, 1) * (total - done))
    return f"{done:,} of {total:,} positions, {spent:,} nodes; about {left:,} nodes left"


def _results_book(split: SplitPositions, journal: SplitJournal, base_tag: str) -> Book:
    """The book of every split position's score, its metadata naming the split."""
    width, height = split.width, split.height
    keys = list(split.tasks)
    return Book.from_arrays(
        width,
        height,
        split.split_ply,
        key_array(keys, width, height),
        np.array([journal.scores[key] for key in keys], dtype=np.int8),
        meta={
            "source": "connect4 solve --split-ply",
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "positions": "every position at the split the solver's search can reach",
            "root": split.root,
            "split_ply": split.split_ply,
            "base_book": base_tag,
            "rules": "standard",
            "solver_nodes": sum(journal.task_nodes.values()),
        },
    )


def _search_above(
    split: SplitPositions, book: Book, limit: Limit | None
) -> tuple[int, list[int | None], int]:
    """The root's score, each column's and the nodes, by the solver with the split's
    results as its book (probed at the split: exact)."""
    root = Position.from_moves(split.root, split.width, split.height)
    with Solver(split.width, split.height, SEARCH_MEGABYTES, book=book) as solver:
        result = solver.run(root, analyze=True, limit=limit)
    if not result.complete or result.column_scores is None:
        raise BudgetExceeded("stopped in the search above the split; its results are kept")
    known = [s for s in result.column_scores if s is not None]
    return max(known), result.column_scores, result.nodes
