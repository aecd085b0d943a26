"""Build opening books: solve every position up to N plies on an executor.

``connect4 book build --width 6 --height 5 --plies 8 --out book.c4book`` lists
every position with at most N stones that is not over and whose side to move
cannot win at once (mirror images merged; positions with an immediate win are
left out because the solver answers them without searching), then solves them
level by level, **deepest level first**:

* the positions with N stones are solved by full searches (using a *base*
  book of deeper positions inside the search when one is given, e.g.
  bitbully's 12-ply database on 7x6);
* a level with fewer stones is solved with the level below it as the book,
  so each of its searches is one ply deep.

Work is split into chunks run on a ``concurrent.futures`` executor: a local
process pool by default, or a Dask distributed cluster when a scheduler
address is given (``client.get_executor()``). Every finished chunk is appended
to a journal (``OUT.partial``, :mod:`connect4.core.journal`: one transaction per
chunk, each position's record with its checksum; damaged ones are dropped and
solved again on resume) before the progress bar moves, so an interrupted build
loses at most the chunks in flight and ``--resume`` continues from the journal.
When all levels are done the book is written to ``OUT`` and the journal removed.

Inputs are checked before any work and before the journal exists, so a
refused build leaves nothing behind: a base book must be of the build's board
size, standard rules and exact scores (not win/draw/loss signs), and deeper
than the build (a named book that is not is refused; the default book then
simply stays unused). A fixed random sample of the entries the build can
probe (32, or all if there are fewer) is solved without any book, and a
disagreement stops the build (:func:`spot_check`).

>>> levels = enumerate_levels(4, 4, 2)
>>> [len(level) for level in levels]
[1, 2, 8]
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from connect4.core.bits import fits_word
from connect4.core.files import check_output
from connect4.core.journal import Journal as JobJournal, journal_path
from connect4.core.limits import Limit, clock
from connect4.core.position import Position
from connect4.core.processes import JobInterrupted, run_chunks
from connect4.core.progress import progress_bar
from connect4.solver import BookArrays, Solver, job_pool, solver_for
from connect4.solver.book.format import BookError, is_book_file
from connect4.solver.book.jobs import DEFAULT_CHUNK, worker_book
from connect4.solver.book.keys import canonical_key, key_array, key_plies
from connect4.solver.book.reader import load_book
from connect4.solver.book.table import Book, position_from_key
from connect4.solver.checks import check_solver_board


class WideRecord(struct.Struct):
    """A journal record of a board over 64 bits: its key (the first field) in two words,
    low then high, before the fields ``rest`` describes (a build's: score, nodes).

    >>> WideRecord().unpack(WideRecord().pack(1 << 70, -3, 9))
    (1180591620717411303424, -3, 9)
    """

    def __init__(self, rest: str = "bxxxI") -> None:
        super().__init__("<QQ" + rest)

    def pack(self, *record: int) -> bytes:
        key, *fields = record
        return super().pack(key & ((1 << 64) - 1), key >> 64, *fields)

    def unpack(self, buffer: object) -> tuple[int, ...]:
        low, high, *fields = super().unpack(buffer)  # type: ignore[arg-type]
        return (low | high << 64, *fields)


class Record:
    """A build journal's record of a solved position: its canonical key, score and nodes
    (64 bits). A journal written before nodes had 64 bits kept them in 32 (saturated at
    4,294,967,295) and still reads: the two are told apart by their length.

    >>> Record(wide=False).unpack(Record(wide=False).pack(5, -2, 1 << 40))
    (5, -2, 1099511627776)
    >>> Record(wide=False).unpack(struct.pack("<QbxxxI", 5, -2, 2**32 - 1))
    (5, -2, 4294967295)
    """

    def __init__(self, *, wide: bool) -> None:
        self.now: struct.Struct = WideRecord("bxxxq") if wide else struct.Struct("<Qbxxxq")
        self.before: struct.Struct = WideRecord() if wide else struct.Struct("<QbxxxI")

    def pack(self, *record: int) -> bytes:
        return self.now.pack(*record)

    def unpack(self, data: bytes) -> tuple[int, ...]:
        layout = self.before if len(data) == self.before.size else self.now
        return tuple(layout.unpack(data))


SPOT_CHECK_ENTRIES = 32  # base book entries solved before a build uses the book
SPOT_CHECK_NODES = 5_000_000  # an entry needing more is skipped (counted, not trusted)
_SPOT_CHECK_SAMPLE = 20261122  # fixes the sample: the same entries on every run


# ---------------------------------------------------------------- the settings
MAX_BUILD_POSITIONS = 16_000_000
"""The most positions a build may enumerate (by :func:`positions_bound`): past it the
listing alone takes gigabytes and the solving days (7x6: up to 11 plies)."""


def positions_bound(width: int, height: int, plies: int) -> int:
    """An upper bound on the positions a book of ``plies`` stones can list: for each ply
    ``p``, every way to stack ``p`` stones in the columns, times the ways to colour
    them (mirror images, finished games and immediate wins not taken off).

    >>> positions_bound(4, 4, 2), len(enumerate_levels(4, 4, 2)[2])
    (25, 8)
    >>> f"{positions_bound(7, 6, 11):,} {positions_bound(7, 6, 12):,}"
    '7,805,617 21,970,537'
    """
    stacks = [1] + [0] * plies  # stacks[p]: column heights (each 0..height) adding up to p
    for _ in range(width):
        stacks = [sum(stacks[p - k] for k in range(min(height, p) + 1)) for p in range(plies + 1)]
    return sum(count * comb(p, p // 2) for p, count in enumerate(stacks))


@dataclass(frozen=True)
class BuildConfig:
    """What a book build makes and with what, checked when made.

    ``base_book`` is probed in the deepest searches (``default``: the book that
    ships for the board, ``none``/``None``: no book, or a file); ``chunk``
    positions go to a task, run by ``workers`` local processes (``None``: all
    cores) or on the Dask cluster at ``scheduler``. A build that may list more
    than ``max_positions`` positions (:func:`positions_bound`) is refused.
    Errors name the setting at fault (:attr:`~connect4.core.errors.Connect4Error.setting`).

    >>> BuildConfig(5, 4, plies=6).plies
    6
    >>> BuildConfig(7, 6, plies=12)
    Traceback (most recent call last):
    ...
    connect4.solver.book.format.BookError: plies: a 7x6 book of 12 plies may list up to \
21,970,537 positions, over the limit of 16,000,000 (at most 11 plies on this board)
    """

    width: int = 7
    height: int = 6
    plies: int = 4
    base_book: str | None = "default"
    chunk: int = DEFAULT_CHUNK
    workers: int | None = None
    scheduler: str | None = None
    max_positions: int = MAX_BUILD_POSITIONS

    def __post_init__(self) -> None:
        width, height, plies = self.width, self.height, self.plies
        try:
            check_solver_board(width, height)
        except ValueError as error:
            raise BookError(str(error)) from None
        if not 0 <= plies <= width * height:
            raise BookError(
                f"must be 0-{width * height} on a {width}x{height} board, not {plies}",
                setting="plies",
            )
        for setting in ("chunk", "workers", "max_positions"):
            value = getattr(self, setting)
            if value is not None and value < 1:
                raise BookError(f"must be at least 1, not {value}", setting=setting)
        bound = positions_bound(width, height, plies)
        if bound > self.max_positions:
            deepest = max(
                p for p in range(plies) if positions_bound(width, height, p) <= self.max_positions
            )
            raise BookError(
                f"a {width}x{height} book of {plies} plies may list up to {bound:,} positions, "
                f"over the limit of {self.max_positions:,} (at most {deepest} plies on this "
                "board)",
                setting="plies",
            )


# ---------------------------------------------------------------- positions
def enumerate_levels(width: int, height: int, plies: int) -> list[dict[int, str]]:
    """For each ply ``0..plies``: ``{canonical key: move string}`` of the book's positions.

    A position is listed when it is not over and its side to move has no
    immediate win; all positions that are not over are expanded. The board and
    depth are checked as a :class:`BuildConfig` (the position limit included).
    """
    BuildConfig(width, height, plies, base_book=None)
    frontier: dict[int, Position] = {0: Position(width, height)}
    levels: list[dict[int, str]] = []
    for ply in range(plies + 1):
        level = {
            key: position.moves
            for key, position in frontier.items()
            if not any(position.is_winning_move(c) for c in position.legal_moves())
        }
        levels.append(level)
        if ply == plies:
            break
        children: dict[int, Position] = {}
        for position in frontier.values():
            for column in position.legal_moves():
                child = position.copy()
                child.play(column)
                if child.is_over():
                    continue
                key = canonical_key(child)
                if key not in children:
                    children[key] = child
        frontier = children
    return levels


# ---------------------------------------------------------------- workers
TABLE_MEGABYTES = 16  # each worker thread's table


@dataclass(frozen=True)
class ChunkBook:
    """A book passed to :func:`solve_chunk` as arrays (picklable for worker processes)."""

    plies: int
    keys: npt.NDArray[np.uint64]
    values: npt.NDArray[np.int8]


def solve_chunk(
    width: int,
    height: int,
    moves: Sequence[str],
    book: ChunkBook | str | None,
) -> list[tuple[int, int, int]]:
    """Solve positions (move strings) exactly; ``[(canonical key, score, nodes)]``.

    ``book`` is a :class:`ChunkBook` probed in the search, or a book spec for
    :func:`connect4.solver.book.load_book` (loaded once per worker process).
    Runs in worker processes: it must stay a picklable module-level function.
    """
    if isinstance(book, str):
        probed: BookArrays | None = worker_book(book, width, height)
    else:
        probed = book
    solver = solver_for(
        width, height, tt_megabytes=TABLE_MEGABYTES, book=probed, reuse_table=True, etc=False
    )
    results = []
    # one table generation for the whole chunk: stored bounds hold whatever the
    # root, so neighbouring positions share their searches
    solver.clear_table()
    for line in moves:
        position = Position.from_moves(line, width, height)
        result = solver.run(position)
        assert result.score is not None
        results.append((canonical_key(position), result.score, result.nodes))
    return results


# ---------------------------------------------------------------- journal
def book_tag(book: Book) -> int:
    """A 64-bit fingerprint of a book's entries (never 0), recorded in a build's journal.

    >>> from connect4.solver.book.reader import load_book
    >>> book_tag(load_book("default", 6, 5)) == book_tag(load_book("default", 6, 5)) != 0
    True
    """
    keys = zlib.crc32(np.ascontiguousarray(book.keys).tobytes())
    values = zlib.crc32(np.ascontiguousarray(book.values).tobytes(), book.plies)
    return (keys << 32 | values) or 1


@dataclass
class Journal:
    """The solved positions of a build, journalled beside the book being built
    (:class:`connect4.core.journal.Journal`): a record per position, its key, score and
    nodes packed; the build's board, plies and base book are the journal's identity."""

    path: Path
    width: int
    height: int
    plies: int
    base_tag: int = 0  # :func:`book_tag` of the base book (0: none), so a resume uses the same
    scores: dict[int, int] = field(default_factory=dict)
    nodes: int = 0
    damaged: int = 0  # damaged records dropped on resume (solved again)
    file: JobJournal | None = field(default=None, init=False, repr=False)

    def on_disk(self) -> JobJournal:
        """The journal's file of records, not yet opened."""
        base = f"{self.base_tag:016x}" if self.base_tag else "none"  # the base book's entries
        identity = {"width": self.width, "height": self.height, "plies": self.plies,
                    "base_book": base}  # fmt: skip
        return JobJournal(self.path, "build", identity)

    def open(self, resume: bool, force: bool = False) -> None:
        """Start a new journal, or (``resume``) read the one on disk and continue it."""
        self.file = self.on_disk().open(resume=resume, force=force)
        record = self._record()
        for data in self.file.records():
            key, score, nodes = record.unpack(data)
            self.scores[key] = score
            self.nodes += nodes
        self.damaged = self.file.damaged

    def close(self) -> None:
        """Close the journal; its file stays for a resume."""
        if self.file is not None:
            self.file.close()

    def _record(self) -> Record:
        return Record(wide=not fits_word(self.width, self.height))

    def append(self, results: Sequence[tuple[int, int, int]]) -> None:
        """Record finished positions durably (one transaction)."""
        assert self.file is not None, "open the journal first"
        record = self._record()
        self.file.append([record.pack(*result) for result in results])
        for key, score, nodes in results:
            self.scores[key] = score
            self.nodes += nodes


# ---------------------------------------------------------------- base books
def base_book_for(spec: str | None, width: int, height: int, plies: int) -> Book | None:
    """The base book ``spec`` names, if a build of ``plies`` stones can use it.

    ``None`` for ``none``, or for ``default`` when no default book is deeper
    than the build. Raises :class:`BookError` for a book of another board
    size, of other rules, of win/draw/loss signs, or (named explicitly) not
    deeper than the build.

    >>> base_book_for("none", 6, 5, 4) is None
    True
    >>> base_book_for("default", 6, 5, 4).plies
    8
    """
    if spec is None:
        return None
    book = load_book(spec, width, height, exact=True, role="base book", doing="built")
    if book is None:
        return None
    if book.plies <= plies:
        if spec == "default":
            return None
        raise BookError(
            f"{spec} holds positions with up to {book.plies} stones, no deeper than the "
            f"build's {plies} plies: the build would never probe it (give a deeper book, or none)",
            setting="base_book",
        )
    return book


@dataclass(frozen=True)
class BaseBookCheck:
    """How many entries of a base book the solver checked (all agreed).

    ``entries`` counts the entries the build can probe: those with more than
    ``deeper_than`` stones (the build's searches start at ``deeper_than``).
    """

    entries: int
    checked: int
    skipped: int
    deeper_than: int = 0

    def summary(self) -> str:
        """One line for the build's output.

        >>> BaseBookCheck(430, 32, 0, 3).summary()
        'base book: 32 of 430 entries with more than 3 stones checked with the solver, all agree'
        >>> BaseBookCheck(0, 0, 0, 3).summary()
        'base book: no entries with more than 3 stones, nothing for the build to probe'
        """
        which = f"entries with more than {self.deeper_than} stones"
        if self.checked == 0:
            if self.entries == 0:
                return f"base book: no {which}, nothing for the build to probe"
            return (
                f"base book: none of {self.entries:,} {which} checked with the solver "
                f"({self.skipped} tried, each over {SPOT_CHECK_NODES:,} nodes)"
            )
        line = (
            f"base book: {self.checked} of {self.entries:,} {which} checked with the solver, "
            "all agree"
        )
        if self.skipped:
            line += f" ({self.skipped} more skipped: over {SPOT_CHECK_NODES:,} nodes each)"
        return line


def spot_check(
    book: Book,
    spec: str,
    *,
    deeper_than: int = 0,
    entries: int = SPOT_CHECK_ENTRIES,
    limit: Limit | None = None,
    setting: str = "base_book",
) -> BaseBookCheck:
    """Solve a fixed random sample of ``book``'s entries without any book.

    The sample is drawn from the entries with more than ``deeper_than`` stones (a build
    of that depth probes no others): ``entries`` of them, all if there are fewer. An
    entry the solver cannot settle within ``limit`` (default: ``SPOT_CHECK_NODES`` nodes
    each) is skipped and another one tried, at most twice as many as wanted in all.
    Raises :class:`BookError` naming the position and both scores at the first
    disagreement (its ``setting`` the one that named the book).

    >>> book = Book.from_scores(4, 4, 2, {Position.from_moves("11", 4, 4): 0})
    >>> spot_check(book, "tiny.c4book", deeper_than=1)
    BaseBookCheck(entries=1, checked=1, skipped=0, deeper_than=1)
    """
    usable = np.flatnonzero(key_plies(book.keys, book.width, book.height) > deeper_than)
    rng = np.random.default_rng(_SPOT_CHECK_SAMPLE)
    sample = usable[rng.choice(usable.size, size=min(usable.size, 2 * entries), replace=False)]
    checked = skipped = 0
    budget = Limit(nodes=SPOT_CHECK_NODES) if limit is None else limit
    with Solver(book.width, book.height, TABLE_MEGABYTES) as solver:
        for index in sample.tolist():
            if checked == entries:
                break
            key, stored = book.key_at(index), int(book.values[index])
            try:
                position = position_from_key(key, book.width, book.height)
            except BookError as error:
                raise BookError(
                    f"{spec} is wrong: entry {index}: {error}", setting=setting
                ) from None
            result = solver.run(position, limit=budget)
            if result.score is None:
                skipped += 1
                continue
            if result.score != stored:
                where = f'position "{position.moves}"' if position.moves else "empty board"
                raise BookError(
                    f"{spec} is wrong: it gives the {where} ({book.width}x{book.height}) "
                    f"the score {stored}, the solver finds {result.score}; give a correct "
                    "book, or none",
                    setting=setting,
                )
            checked += 1
    return BaseBookCheck(int(usable.size), checked, skipped, deeper_than)


# ---------------------------------------------------------------- the build
@dataclass
class BuildReport:
    """What a build did: entries, positions solved now (vs from the journal), figures."""

    book: Book
    solved: int
    resumed: int
    nodes: int
    seconds: float
    base_check: BaseBookCheck | None = None
    damaged: int = 0  # damaged journal records dropped and solved again


def build_book(
    config: BuildConfig,
    out: str | os.PathLike[str],
    *,
    executor: Executor | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    stop_after: int | None = None,
    say: Callable[[str], None] | None = None,
    limit: Limit | None = None,
) -> BuildReport:
    """Solve every book position up to ``config.plies`` stones and write the book to ``out``.

    Checked before any work, so a refused build leaves nothing behind: the
    output (:func:`~connect4.core.files.check_output`: an existing file is
    replaced with ``force``; with ``resume`` it must be a book), an unfinished journal
    beside it (without ``resume``), the base book (:func:`base_book_for`,
    :func:`spot_check`; ``say`` is given the spot check's summary line). The
    work runs on ``executor`` when given, else as the config says.
    ``limit`` stops the build once it expires (its stop flag, set from any thread, or
    its deadline; looked at every few hundredths of a second, chunks under way or
    not): what finished is kept in the journal and :class:`BuildInterrupted` raised,
    so a resumed build goes on from there. ``stop_after`` stops the same way after
    that many chunks: for tests.
    """
    width, height, plies, chunk = config.width, config.height, config.plies, config.chunk
    out_path = Path(out)
    check_output(out_path, what="book", force=force, resume=resume, ours=is_book_file)
    journal = Journal(journal_path(out_path), width, height, plies)
    journal.on_disk().check(resume=resume, force=force)  # before any work
    levels = enumerate_levels(width, height, plies)
    base_book, base_check = _checked_base(config, journal, say)
    started = clock()
    fresh = not (resume and journal.path.exists())
    journal.open(resume, force)
    resumed = sum(1 for level in levels for key in level if key in journal.scores)
    total = sum(len(level) for level in levels)
    solved = 0

    def run(pool: Executor, advance: Callable[[int], None]) -> bool:
        nonlocal solved
        chunks_done = 0

        def finished(results: list[tuple[int, int, int]]) -> bool:
            nonlocal solved, chunks_done
            journal.append(results)
            solved += len(results)
            advance(len(results))
            chunks_done += 1
            return stop_after is None or chunks_done < stop_after

        for ply in range(plies, -1, -1):
            tasks = _level_tasks(levels, ply, journal, base_book, chunk)
            if tasks and not run_chunks(pool, solve_chunk, tasks, finished, limit):
                return False
        return True

    try:
        with (
            job_pool(executor, config.workers, config.scheduler) as pool,
            progress_bar(progress, total, resumed) as advance,
        ):
            finished = run(pool, advance)
    except BaseException:
        if fresh and not journal.scores and journal.file is not None:  # nothing to resume
            journal.file.remove()
        raise
    finally:
        journal.close()
    seconds = clock() - started
    if not finished:
        raise BuildInterrupted(journal.path, solved)
    book_out = finished_book(journal, levels, base_book)
    book_out.save(out_path)
    journal.on_disk().remove()
    return BuildReport(
        book_out, solved, resumed, journal.nodes, seconds, base_check, journal.damaged
    )


def _checked_base(
    config: BuildConfig, journal: Journal, say: Callable[[str], None] | None
) -> tuple[str | None, BaseBookCheck | None]:
    """The base book's name and its spot check (``None, None`` without one), its tag
    given to ``journal`` (a resumed build must read the same base) and the check's
    summary to ``say``."""
    base = base_book_for(config.base_book, config.width, config.height, config.plies)
    if base is None:
        return None, None
    assert config.base_book is not None
    base_check = spot_check(base, config.base_book, deeper_than=config.plies)
    journal.base_tag = book_tag(base)
    if say is not None:
        say(base_check.summary())
    return config.base_book, base_check


def _level_tasks(
    levels: list[dict[int, str]], ply: int, journal: Journal, base_book: str | None, chunk: int
) -> list[tuple[int, int, list[str], ChunkBook | str | None]]:
    """The chunks of the level at ``ply`` not yet journalled, each with the book its
    searches read: the base book below the deepest level, else the level below's
    journalled scores (solved before it)."""
    width, height = journal.width, journal.height
    todo = [moves for key, moves in levels[ply].items() if key not in journal.scores]
    if not todo:
        return []
    if ply == journal.plies:
        book: ChunkBook | str | None = base_book
    else:
        below = sorted(levels[ply + 1])
        keys = key_array(below, width, height)
        values = np.array([journal.scores[k] for k in below], dtype=np.int8)
        book = ChunkBook(ply + 1, keys, values)
    return [(width, height, todo[i : i + chunk], book) for i in range(0, len(todo), chunk)]


def finished_book(journal: Journal, levels: list[dict[int, str]], base_book: str | None) -> Book:
    """The book of every listed position's journalled score, with its provenance."""
    width, height, plies = journal.width, journal.height, journal.plies
    keys_all = [key for level in levels for key in level]
    return Book.from_arrays(
        width,
        height,
        plies,
        key_array(keys_all, width, height),
        np.array([journal.scores[k] for k in keys_all], dtype=np.int8),
        meta={
            "source": "connect4 book build",
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "positions": "every position up to the depth that is not over and whose side "
            "to move cannot win at once",
            "base_book": base_book or "none",
            "rules": "standard",
            "solver_nodes": journal.nodes,
        },
    )


class BuildInterrupted(JobInterrupted):
    """A build stopped before the end; its journal lets a resumed build continue."""

    def __init__(self, journal: Path, solved: int) -> None:
        super().__init__(journal, solved, "build")
