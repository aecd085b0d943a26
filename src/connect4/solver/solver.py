"""The exact Connect Four solver: one board size, its own table, limits and statistics.

The search itself is a compiled kernel (:mod:`connect4.solver.kernel`), run
through one backend (:mod:`connect4.solver.backend`: the cached native code or
numba); :class:`Solver` wraps it with limits, statistics and clear errors, and
goes on with every thread (:mod:`connect4.solver.parallel`) when a search runs
long. Callers that want a shared solver with the board's opening book ask
:func:`connect4.solver.solver_for`.

>>> from connect4 import Position
>>> solver = Solver()
>>> solver.solve(Position.from_moves("4455"))
18
>>> solver.analyze(Position.from_moves("445566"))
[17, 17, 18, 17, 17, 17, 18]
>>> solver.best_move(Position.from_moves("445566"))
2
"""

from __future__ import annotations

import contextlib
import functools
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from connect4.core.bits import fits_word
from connect4.core.limits import Limit, clock
from connect4.core.position import Position
from connect4.core.score import ScoreError, check_tie_break, pick_best, win_score
from connect4.solver.backend import TABLES, SearchMemory, backend_for, warm_up
from connect4.solver.batch import batch_search
from connect4.solver.checks import (
    DEFAULT_TT_MEGABYTES,
    MAX_TT_MEGABYTES,
    BookArrays,
    SolverError,
    book_arrays,
    check_book,
    check_solver_board,
    check_threads,
)
from connect4.solver.layout import (
    BOOK_PLIES,
    NONE_SCORE,
    OPT_BUCKET,
    OPT_ETC,
    OPT_ETC_AFTER,
    OPT_SYM,
    OPT_TTMOVE,
    T_STOP,
    UNKNOWN_SCORE,
    next_generation,
    table_format,
    table_words,
)
from connect4.solver.narrow import immediate_win, narrow, never
from connect4.solver.parallel import (
    HELPER_NOISE_DEPTH,
    LazySmp,
    ParallelWindow,
    Tracker,
    run_parallel,
    sharing,
    sliced,
    stopping_alone,
    stopping_at,
)
from connect4.solver.results import BatchResult, ProbeResult, SolveResult

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["PARALLEL_AFTER_NODES", "Solver"]

# Enhanced transposition cut-offs at nodes with at least this many empty cells: a child's
# probe is one word on a packed table (7x6 and smaller boards), two or four on larger ones.
ETC_MIN_EMPTY_PACKED = 13
ETC_MIN_EMPTY = 14
ETC_AFTER_NODES = 20_000  # ... and only once a search has visited this many nodes
PARALLEL_AFTER_NODES = 1 << 17  # a search longer than this goes on with every thread


def etc_min_empty(words: int) -> int:
    """The fewest empty cells at which the search tries enhanced transposition cut-offs,
    for a table of ``words`` words an entry: where a child's probe is one read, a cut-off
    pays a cell earlier.

    >>> etc_min_empty(1), etc_min_empty(2)
    (13, 14)
    """
    return ETC_MIN_EMPTY_PACKED if words == 1 else ETC_MIN_EMPTY


_UNLIMITED = contextlib.nullcontext()  # a search without a caller's limit


class Solver:
    """An exact Connect Four solver for one board size, with its own table.

    ``tt_megabytes`` bounds the transposition table (a power-of-two number of
    entries: 8 bytes each on boards up to 7x6 and most others, 16 bytes on the
    largest; see :mod:`connect4.solver.layout`); the table comes from the package's pool
    (:data:`connect4.solver.backend.TABLES`) and :meth:`close` gives it back.
    ``book`` is an optional opening book of the board
    (:func:`connect4.solver.book.load_book` loads one; any
    :class:`~connect4.solver.checks.BookArrays` will do): sorted ``uint64``
    canonical keys (see :func:`~connect4.solver.checks.position_key`) and ``int8``
    exact scores, probed inside the search up to its ``plies`` stones. ``reuse_table=True``
    keeps the table's entries between calls (faster batches; node counts then
    depend on what came before), and ``keep_entries=True`` even starts with the
    entries a pooled table holds.

    Search options (the defaults are the fastest measured, see ``docs/solver.md``):
    ``symmetry`` (mirror positions share an entry), ``tt_move`` (the table's
    move raised in the move order), ``etc`` (enhanced transposition cut-offs
    at nodes with at least 14 empty cells, once a search has visited 20,000
    nodes; an int sets the empty-cell threshold, 0 = off) and
    ``two_slots`` (two-entry buckets instead of one always-replaced entry).

    ``table`` is a table of this board and size to search instead of a pooled one
    (:func:`~connect4.solver.layout.new_table`; ``shared=True`` makes one that worker
    processes forked later search together); its entries are kept between calls
    (``reuse_table`` and ``keep_entries`` hold).

    ``threads`` > 1 searches with that many threads sharing the table (Lazy SMP):
    a search that has not ended after ``parallel_after`` nodes (default
    ``PARALLEL_AFTER_NODES``, about 20 ms; 0: at once) goes on with every
    thread searching each window, the first one done stopping the
    others. The score is the same; node counts then vary from run to run. The
    default, 1, suits callers that run many short searches (often from several
    threads of their own: the web service, the perfect player, the arena's
    judge); ``connect4 solve`` uses every core.

    >>> s = Solver(4, 4)
    >>> s.solve(Position(4, 4))
    0
    >>> s.run(Position(4, 4), limit=Limit(nodes=10)).complete
    False
    """

    def __init__(
        self,
        width: int = 7,
        height: int = 6,
        tt_megabytes: int = DEFAULT_TT_MEGABYTES,
        *,
        book: BookArrays | None = None,
        reuse_table: bool = False,
        keep_entries: bool = False,
        symmetry: bool = True,
        tt_move: bool = True,
        etc: bool | int = True,
        two_slots: bool = True,
        threads: int = 1,
        parallel_after: int = PARALLEL_AFTER_NODES,
        table: NDArray[np.uint64] | None = None,
    ) -> None:
        if not 1 <= tt_megabytes <= MAX_TT_MEGABYTES:
            raise SolverError(f"tt_megabytes must be in 1..{MAX_TT_MEGABYTES}, not {tt_megabytes}")
        check_solver_board(width, height)
        try:
            words = table_format(width, height, tt_megabytes << 20).words  # room for exact entries
        except ValueError as exc:
            raise SolverError(str(exc)) from None
        if table is not None and table.shape != (table_words(width, height, tt_megabytes << 20),):
            raise SolverError(f"the table is not a {width}x{height} table of {tt_megabytes} MB")
        if table is not None and threads != 1:
            raise SolverError("a given table is searched by one thread")
        self._given = table
        self.threads = check_threads(threads)
        self.parallel_after = max(0, parallel_after)
        self.width = width
        self.height = height
        self.tt_megabytes = tt_megabytes
        self.reuse_table = reuse_table or table is not None
        self._keep_entries = keep_entries or table is not None
        self._options = {
            OPT_SYM: int(symmetry),
            OPT_TTMOVE: int(tt_move),
            OPT_ETC: (etc_min_empty(words) if etc else 0) if isinstance(etc, bool) else etc,
            OPT_ETC_AFTER: ETC_AFTER_NODES,
            OPT_BUCKET: int(two_slots),
        }
        self._mem: SearchMemory | None = None
        self._smp = LazySmp(self.threads)
        self._out = np.zeros(width, dtype=np.int64)
        self._lock = threading.RLock()
        self._book_plies = 0
        self.set_book(book)
        self.last_nodes = 0
        self.last_seconds = 0.0
        self.total_nodes = 0
        self.total_seconds = 0.0
        self.calls = 0
        self._stopped: Callable[[], bool] = never  # a caller's limit expired (see _under)

    def _table(self) -> SearchMemory:
        """This solver's table and threads' memories, taken from the pool on first use."""
        if self._mem is None:
            nbytes = self.tt_megabytes << 20
            memory = (
                TABLES.take(self.width, self.height, nbytes)
                if self._given is None
                else SearchMemory(self.width, self.height, nbytes, self._given)
            )
            if not self._keep_entries:
                next_generation(memory.table)  # the previous user's entries count as empty
            memory.table[T_STOP] = 0
            for index in range(self.threads):
                mem = memory.thread(index)
                for slot, value in self._options.items():
                    mem[slot] = value
                mem[BOOK_PLIES] = self._book_plies
            self._mem = memory
        return self._mem

    def close(self) -> None:
        """Give the table back to the pool and end the helper threads (a later call
        takes a table and starts threads again)."""
        with self._lock:
            if self._mem is not None and self._given is None:
                TABLES.give(self._mem)
            self._mem = None
            self._smp.close()

    def __enter__(self) -> Solver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def clear_table(self) -> None:
        """Start the next search from a logically empty table (one increment)."""
        with self._lock:
            next_generation(self._table().table)

    def warm_up(self) -> None:
        """Load (or compile) every kernel entry point and take this solver's table
        now, so no timed call pays for them."""
        warm_up(self.width, self.height)
        with self._lock:
            self._table()

    # ------------------------------------------------------------------ book hook
    def set_book(self, book: BookArrays | None) -> None:
        """Install (or with ``None`` remove) an opening book of this board, probed at
        ``ply <= book.plies``.

        Its ``keys`` must be sorted canonical keys
        (:func:`~connect4.solver.checks.position_key`) and its ``values`` the exact
        scores of those positions. On a board over 64 bits a key takes two words:
        ``keys`` has shape ``(N, 2)``, each row its low word then its high word
        (:func:`connect4.solver.book.keys.key_array`).
        """
        if book is None:
            keys, values = book_arrays(None, None, self.width, self.height)
            plies = 0
        else:
            check_book(book)
            size = (getattr(book, "width", self.width), getattr(book, "height", self.height))
            if size != (self.width, self.height):
                raise SolverError(
                    f"the book is for {size[0]}x{size[1]} boards, "
                    f"not the {self.width}x{self.height} board"
                )
            keys, values = book_arrays(book.keys, book.values, self.width, self.height)
            plies = book.plies
        with self._lock:
            self._book_keys = keys
            self._book_values = values
            self._book_plies = max(0, plies)
            if self._mem is not None:
                for mem in self._mem.threads:
                    mem[BOOK_PLIES] = self._book_plies

    # ------------------------------------------------------------------ stats
    @property
    def stats(self) -> dict[str, float]:
        """Nodes and seconds of the last call, and totals since creation."""
        return {
            "nodes": self.last_nodes,
            "seconds": self.last_seconds,
            "total_nodes": self.total_nodes,
            "total_seconds": self.total_seconds,
            "calls": self.calls,
        }

    def _count(self, nodes: int, seconds: float) -> None:
        self.last_nodes = nodes
        self.last_seconds = seconds
        self.total_nodes += nodes
        self.total_seconds += seconds
        self.calls += 1

    # ------------------------------------------------------------------ checks
    def check(self, position: Position) -> None:
        """Raise :class:`SolverError` unless this solver can solve ``position``."""
        if position.rules != "standard":
            raise SolverError(f"the solver handles standard rules only, not {position.rules!r}")
        if (position.width, position.height) != (self.width, self.height):
            raise SolverError(
                f"this solver is for {self.width}x{self.height} boards, "
                f"not {position.width}x{position.height}"
            )
        if position.is_over():
            raise SolverError(
                f"the game is already over ({position.result_text()}): nothing to solve"
            )

    # ------------------------------------------------------------------ API
    def solve(self, position: Position, *, weak: bool = False) -> int:
        """The exact score of ``position`` (with ``weak``: 1, 0 or -1).

        >>> Solver().solve(Position.from_moves("4455"))
        18
        """
        result = self.run(position, weak=weak)
        assert result.score is not None
        return result.score

    def analyze(self, position: Position, *, weak: bool = False) -> list[int | None]:
        """The score of playing each column (``None`` for a full column).

        >>> Solver().analyze(Position.from_moves("445566"))
        [17, 17, 18, 17, 17, 17, 18]
        """
        result = self.run(position, weak=weak, analyze=True)
        assert result.column_scores is not None
        return result.column_scores

    def best_move(
        self,
        position: Position,
        tie_break: str = "center",
        rng: random.Random | None = None,
        *,
        weak: bool = False,
    ) -> int:
        """A 0-based column with the best score; ties go to the centre or at random.

        >>> Solver().best_move(Position.from_moves("445566"))
        2
        """
        try:
            check_tie_break(tie_break)
        except ScoreError as error:
            raise SolverError(str(error)) from None
        scores = self.analyze(position, weak=weak)
        return pick_best(scores, tie_break, rng)

    def run(
        self,
        position: Position,
        *,
        weak: bool = False,
        analyze: bool = False,
        guess: int | None = None,
        lower: int | None = None,
        limit: Limit | None = None,
    ) -> SolveResult:
        """Solve (and with ``analyze`` score every column) within an optional ``limit``.

        The caller's ``limit`` stops the search at its deadline, after its node budget
        or within milliseconds of its stop flag (or a parent's). ``guess``, a likely
        score (e.g. the score two plies earlier), makes the first null-window searches
        test it: right, the score costs two searches instead of about five. ``lower``, a
        proven lower bound on the score (e.g. from an opening book), is the first guess
        unless one is given, and no search tests below it: when the score is the bound,
        one null-window search proves it. A limit that stops the search gives
        ``score=None`` and ``complete=False``.

        The limit's progress sink is handed a :class:`SolveProgress` about every
        ``PROGRESS_EVERY`` seconds, from the calling thread, once the search
        has run ``parallel_after`` nodes (the threads then search while the
        calling thread reports).

        >>> r = Solver().run(Position.from_moves("445566"), analyze=True)
        >>> r.score, r.column_scores[2], r.complete
        (18, 18, True)
        >>> Solver(4, 4).run(Position(4, 4), guess=0).score
        0
        >>> Solver().run(Position.from_moves("4455"), lower=18).score
        18
        """
        self.check(position)
        start = clock()
        budget = Limit() if limit is None else limit
        parallel = self.threads > 1 or budget.progress is not None
        with self._lock, self._under(limit):
            score, columns, complete, nodes = self._run_here(
                position, weak, analyze, guess, lower, self._first(budget, parallel)
            )
            if self._goes_on(parallel, complete, budget, nodes):
                tracker = Tracker(start, budget, self.threads, nodes)
                score, columns, complete, more = run_parallel(
                    position, self._all_threads(), weak=weak, analyze=analyze, guess=guess,
                    lower=lower, limit=budget.after(nodes), tracker=tracker,
                )  # fmt: skip
                nodes += more
        seconds = clock() - start
        self._count(nodes, seconds)
        return SolveResult(score if complete else None, columns, nodes, seconds, complete, weak)

    def _run_here(
        self,
        position: Position,
        weak: bool,
        analyze: bool,
        guess: int | None,
        lower: int | None,
        budget: Limit,
    ) -> tuple[int, list[int | None] | None, bool, int]:
        """One kernel call on this thread (thread 0's memory): ``(score, column scores,
        complete, nodes)``."""
        kernel = backend_for(self.width, self.height)
        keys, values = self._book_keys, self._book_values
        current, mask, ply = position.current, position.mask, position.ply
        table = self._table().table
        if analyze:
            out = self._out
            out[:] = UNKNOWN_SCORE  # a search stopped before its first slice sets none

            def search(mem: NDArray[np.uint64]) -> int:
                kernel.analyze(mem, table, keys, values, current, mask, ply, weak, out)
                return 0

            _, complete, nodes = self._budgeted(search, budget)
            columns: list[int | None] = [
                None if v in (NONE_SCORE, UNKNOWN_SCORE) else int(v) for v in self._out
            ]
            known = [v for v in columns if v is not None]
            return (max(known) if complete and known else 0), columns, complete, nodes
        if (guess is not None or lower is not None) and not weak:

            def window(alpha: int, beta: int, cap: int | None) -> tuple[int, bool, int]:
                return self._probe(position, alpha, beta, budget.capped(cap))

            score, complete, nodes = narrow(
                position, guess, weak, window, budget.nodes, lower=lower
            )
            return score, None, complete, nodes

        def solve(mem: NDArray[np.uint64]) -> int:
            return kernel.solve(mem, table, keys, values, current, mask, ply, weak)

        score, complete, nodes = self._budgeted(solve, budget)
        return score, None, complete, nodes

    def _first(self, budget: Limit, parallel: bool) -> Limit:
        """The part of a search this thread starts on a fresh table generation (unless the
        table is reused): all of it, or with other threads at hand the first
        ``parallel_after`` nodes (short searches stay here, without their overhead)."""
        if not self.reuse_table:
            next_generation(self._table().table)
        return budget.first(self.parallel_after) if parallel else budget

    def _goes_on(self, parallel: bool, complete: bool, budget: Limit, nodes: int) -> bool:
        """Whether a search this thread did not finish goes on with every thread: not
        once its nodes or time are spent, nor when the caller stopped it."""
        return parallel and not complete and not budget.spent(nodes) and not self._stopped()

    def _all_threads(self) -> ParallelWindow:
        """One window searched by every thread (Lazy SMP) on this solver's table."""
        book = (self._book_keys, self._book_values)
        return functools.partial(self._smp.window, self._table(), book)

    def probe(
        self,
        position: Position,
        alpha: int,
        beta: int | None = None,
        *,
        limit: Limit | None = None,
        helper: int = 0,
    ) -> ProbeResult:
        """One fail-soft search of the window ``(alpha, beta)`` (default: the null
        window ``beta = alpha + 1``): a value ``<= alpha`` bounds the score from
        above, ``>= beta`` from below, anything between is exact.

        A cheap test "is the score above ``alpha``?", within a caller's ``limit``
        (its deadline, nodes and stop flag) as in :meth:`run`. On a given table
        (searched by other processes too) the search leaves to the others, near its
        root, the moves they are searching; ``helper`` k > 0 also orders its moves
        there its own way: a second search of a window another process searches
        then shares the work with it (Lazy SMP across processes).

        >>> r = Solver().probe(Position.from_moves("4455"), 17)
        >>> r.value, r.complete
        (18, True)
        """
        self.check(position)
        start = clock()
        budget = Limit() if limit is None else limit
        window = alpha + 1 if beta is None else beta
        parallel = self.threads > 1
        with self._lock, self._under(limit):
            value, complete, nodes = self._probe(
                position, alpha, window, self._first(budget, parallel), helper
            )
            if self._goes_on(parallel, complete, budget, nodes):
                tracker = Tracker(start, budget, self.threads, nodes)
                value, complete, more = self._all_threads()(
                    position, alpha, window, budget.after(nodes), tracker
                )
                nodes += more
        seconds = clock() - start
        self._count(nodes, seconds)
        return ProbeResult(value if complete else None, nodes, seconds, complete)

    def run_batch(self, positions: list[Position], *, weak: bool = False) -> BatchResult:
        """Solve many positions in one kernel call: ``(scores, nodes, seconds)`` per
        position, timed inside the kernel (no Python overhead per position; on a
        board over 64 bits, one call per position, timed around it). The table's
        clear when its generations run out (every 1,023 searches on 7x6) falls
        between two kernel calls and is not timed, as a reference solver's clear
        before each position is not. One thread searches, whatever ``threads`` says.

        >>> scores, nodes, seconds = Solver().run_batch([Position.from_moves("445566")])
        >>> scores, nodes
        ([18], [0])
        """
        for position in positions:
            self.check(position)
        if not fits_word(self.width, self.height):
            return self._run_each(positions, weak)
        with self._lock:
            result, wall = batch_search(
                self._table(), (self._book_keys, self._book_values), positions, weak,
                fresh=not self.reuse_table,
            )  # fmt: skip
        self._count(sum(result.nodes), wall)
        return result

    def _run_each(self, positions: list[Position], weak: bool) -> BatchResult:
        """:meth:`run_batch` on a board over 64 bits (whose kernel has no batch entry):
        one search per position on this thread, each timed around its call."""
        scores: list[int] = []
        nodes: list[int] = []
        seconds: list[float] = []
        budget = Limit()
        with self._lock:
            for position in positions:
                start = time.perf_counter()
                score, _, _, count = self._run_here(position, weak, False, None, None,
                                                    self._first(budget, False))  # fmt: skip
                seconds.append(time.perf_counter() - start)
                scores.append(score)
                nodes.append(count)
        self._count(sum(nodes), sum(seconds))
        return BatchResult(scores, nodes, seconds)

    # ------------------------------------------------------------------ internals
    def _under(self, limit: Limit | None) -> contextlib.AbstractContextManager[None]:
        """Run a search under a caller's ``limit`` (inside the lock): its expiry sets
        the table's stop slot, and :meth:`_stopped` says so to the slicing loops.
        (No limit, nothing to watch: a short solve skips the watch's cost.)"""
        return _UNLIMITED if limit is None else self._watched(limit)

    @contextlib.contextmanager
    def _watched(self, limit: Limit) -> Iterator[None]:
        memory = self._table()
        with (
            stopping_at(limit, memory.table)
            if self._given is None
            else stopping_alone(limit, memory.threads[0])
        ) as stopped:
            self._stopped = stopped
            try:
                yield
            finally:
                self._stopped = never

    def _budgeted(
        self,
        search: Callable[[NDArray[np.uint64]], int],
        budget: Limit,
    ) -> tuple[int, bool, int]:
        """``(result, complete, nodes)`` of ``search(mem)`` on thread 0's memory within
        a limit's node budget and deadline (:func:`~connect4.solver.parallel.sliced`)."""
        return sliced(search, self._table().threads[0], budget, self._stopped)

    def _probe(
        self,
        position: Position,
        alpha: int,
        beta: int,
        budget: Limit,
        helper: int = 0,
    ) -> tuple[int, bool, int]:
        """One window on this thread, inside the lock: ``(value, complete, nodes)``."""
        if immediate_win(position):
            return win_score(position.size, position.ply), True, 0  # the kernel's precondition
        kernel = backend_for(self.width, self.height)
        keys, values = self._book_keys, self._book_values
        current, mask, ply = position.current, position.mask, position.ply
        table = self._table().table

        def search(mem: NDArray[np.uint64]) -> int:
            return kernel.probe(mem, table, keys, values, current, mask, ply, alpha, beta)

        if self._given is None:
            return self._budgeted(search, budget)
        with sharing(self._table().threads[0], ply, helper, HELPER_NOISE_DEPTH):
            return self._budgeted(search, budget)
