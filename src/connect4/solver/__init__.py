"""The perfect Connect Four solver: exact scores in Pons' convention.

The search itself is a numba kernel (:mod:`connect4.solver.kernel`); this module
wraps it in a typed :class:`Solver` with limits, statistics and clear errors.

>>> from connect4 import Position
>>> solver = Solver()
>>> solver.solve(Position.from_moves("4455"))
18
>>> solver.analyze(Position.from_moves("445566"))
[17, 17, 18, 17, 17, 17, 18]
>>> solver.best_move(Position.from_moves("445566"))
2
>>> solve(Position.from_moves("44455554221"))
-15
"""

from __future__ import annotations

import random
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from connect4.core.position import Position, centre_order, check_board_size
from connect4.solver.layout import (
    ABORT,
    BOOK_PLIES,
    GEN,
    LIMIT,
    NODES,
    NONE_SCORE,
    OPT_BUCKET,
    OPT_ETC,
    OPT_ETC_AFTER,
    OPT_SYM,
    OPT_TTMOVE,
    UNKNOWN_SCORE,
    new_memory,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "SolveResult",
    "Solver",
    "SolverError",
    "analyze",
    "best_move",
    "default_solver",
    "solve",
]

DEFAULT_TT_MEGABYTES = 64
MAX_TT_MEGABYTES = 4096
TIE_BREAKS = ("center", "random")
ETC_MIN_EMPTY = 16  # enhanced transposition cut-offs where at least this many cells are empty
ETC_AFTER_NODES = 20_000  # ... and only once a search has visited this many nodes


class SolverError(ValueError):
    """The solver cannot answer: the game is over, the board is too large or
    of another size, or the rules are not the standard ones."""


@dataclass(frozen=True)
class SolveResult:
    """What one :meth:`Solver.run` found.

    ``score`` is ``None`` when a limit stopped the search (``complete`` is then
    False); ``column_scores`` is filled when ``analyze=True`` (``None`` for a
    full column, or for a column a limit left unknown).
    """

    score: int | None
    column_scores: list[int | None] | None
    nodes: int
    seconds: float
    complete: bool
    weak: bool


_compile_lock = threading.Lock()
_compiled = False


def _kernel() -> Any:
    """The kernel module, imported (and compiled or loaded from the cache) once.

    The first, cold compile takes a while: say so on stderr.
    """
    global _compiled
    from connect4.solver import kernel

    if _compiled:
        return kernel
    with _compile_lock:
        if not _compiled and not _cache_is_warm(kernel):
            # compile every entry point now, under the notice (a warm cache loads
            # each one lazily on its first call instead: faster start-up)
            print(
                "connect4: compiling the solver (first run only; cached afterwards)...",
                file=sys.stderr,
                flush=True,
            )
            mem = new_memory(4, 4, 4)
            empty_keys = np.zeros(0, dtype=np.uint64)
            empty_values = np.zeros(0, dtype=np.int8)
            out = np.zeros(4, dtype=np.int64)
            zero = np.uint64(0)
            kernel.analyze(mem, empty_keys, empty_values, zero, zero, 15, False, out)
            kernel.solve(mem, empty_keys, empty_values, zero, zero, 15, False)
            kernel.solve_fresh(mem, empty_keys, empty_values, 0, 0, 15, False, True)
            one = np.zeros(1, dtype=np.int64)
            kernel.solve_batch(
                mem,
                empty_keys,
                empty_values,
                one,
                one,
                one + 15,
                False,
                True,
                one.copy(),
                np.zeros(1, np.uint64),
                np.zeros(1, np.uint64),
            )
            kernel.probe(mem, empty_keys, empty_values, zero, zero, 15, 0, 1)
        _compiled = True
    return kernel


_backend_lock = threading.Lock()
_backend_kernel: Any = None


def _backend() -> Any:
    """What :class:`Solver` searches with: the cached native kernel when there is one
    (:mod:`connect4.solver.native`: no numba import, fast start-up), else numba's
    kernel, which then caches the native one for the next process.

    Both have ``solve`` and ``analyze`` with the same arguments and results.
    """
    global _backend_kernel
    if _backend_kernel is not None:
        return _backend_kernel
    with _backend_lock:
        if _backend_kernel is None:
            from connect4.solver import native

            chosen = None
            if native.enabled():
                try:
                    chosen = native.load()
                except Exception as exc:  # numba's kernel still works: say why
                    print(f"connect4: native solver kernel not loaded ({exc})", file=sys.stderr)
            if chosen is None:
                chosen = _kernel()
                if native.enabled():
                    try:
                        native.build(chosen)
                    except Exception as exc:  # only start-up time is lost: say why
                        print(f"connect4: native solver kernel not cached ({exc})", file=sys.stderr)
            _backend_kernel = chosen
    return _backend_kernel


def _cache_is_warm(kernel: Any) -> bool:
    """True when numba's on-disk cache holds current code for the entry points."""
    try:
        for dispatcher in (
            kernel.solve,
            kernel.analyze,
            kernel.solve_fresh,
            kernel.solve_batch,
            kernel.probe,
        ):
            # an empty index: no cache file, or one for an older source (stamp differs)
            if not dispatcher._cache._cache_file._load_index():
                return False
    except Exception:  # numba internals moved: assume warm, say nothing
        return True
    return True


def _tt_entries(megabytes: int) -> int:
    """The largest power-of-two number of 16-byte entries within ``megabytes``."""
    entries = (megabytes << 20) // 16
    return 1 << (entries.bit_length() - 1)


class Solver:
    """An exact Connect Four solver for one board size, with its own table.

    ``tt_megabytes`` bounds the transposition table (rounded down to a power of
    two entries of 16 bytes). ``book_keys``/``book_values`` are an optional
    opening book: sorted ``uint64`` canonical keys (see :func:`position_key`)
    and ``int8`` exact scores, probed inside the search up to ``book_plies``
    stones. ``reuse_table=True`` keeps the table's entries between calls
    (faster batches; node counts then depend on what came before).

    Search options (the defaults are the fastest measured, see ``docs/solver.md``):
    ``symmetry`` (mirror positions share an entry), ``tt_move`` (the table's
    move first), ``etc`` (enhanced transposition cut-offs at nodes with at
    least 16 empty cells, once a search has visited 20,000 nodes; an int sets
    the empty-cell threshold, 0 = off) and
    ``two_slots`` (two-entry buckets instead of one always-replaced entry).

    >>> s = Solver(4, 4)
    >>> s.solve(Position(4, 4))
    0
    >>> s.run(Position(4, 4), max_nodes=10).complete
    False
    """

    def __init__(
        self,
        width: int = 7,
        height: int = 6,
        tt_megabytes: int = DEFAULT_TT_MEGABYTES,
        *,
        book_keys: NDArray[np.uint64] | None = None,
        book_values: NDArray[np.int8] | None = None,
        book_plies: int = 0,
        reuse_table: bool = False,
        symmetry: bool = True,
        tt_move: bool = True,
        etc: bool | int = True,
        two_slots: bool = True,
    ) -> None:
        try:
            check_board_size(width, height)
        except ValueError as exc:
            raise SolverError(str(exc)) from None
        if not 1 <= tt_megabytes <= MAX_TT_MEGABYTES:
            raise SolverError(f"tt_megabytes must be in 1..{MAX_TT_MEGABYTES}, not {tt_megabytes}")
        self.width = width
        self.height = height
        self.tt_megabytes = tt_megabytes
        self.reuse_table = reuse_table
        self._mem = new_memory(width, height, _tt_entries(tt_megabytes))
        self._mem[OPT_SYM] = int(symmetry)
        self._mem[OPT_TTMOVE] = int(tt_move)
        self._mem[OPT_ETC] = (ETC_MIN_EMPTY if etc else 0) if isinstance(etc, bool) else etc
        self._mem[OPT_ETC_AFTER] = ETC_AFTER_NODES
        self._mem[OPT_BUCKET] = int(two_slots)
        self._out = np.zeros(width, dtype=np.int64)
        self._lock = threading.Lock()
        self.set_book(book_keys, book_values, book_plies)
        self.last_nodes = 0
        self.last_seconds = 0.0
        self.total_nodes = 0
        self.total_seconds = 0.0
        self.calls = 0

    def warm_up(self) -> None:
        """Load (or compile) every kernel entry point now, so no timed call pays for it."""
        _kernel()
        self.run_batch([])
        done = Position(self.width, self.height)
        self._run(done.current, done.mask, 0, False, True, None, 1)
        self._run(done.current, done.mask, 0, False, False, None, 1)

    # ------------------------------------------------------------------ book hook
    def set_book(
        self,
        keys: NDArray[np.uint64] | None,
        values: NDArray[np.int8] | None,
        plies: int,
    ) -> None:
        """Install (or with ``None`` remove) an opening book probed at ``ply <= plies``.

        ``keys`` must be sorted canonical keys (:func:`position_key`) and
        ``values`` the exact scores of those positions.
        """
        if keys is None or values is None:
            keys = np.zeros(0, dtype=np.uint64)
            values = np.zeros(0, dtype=np.int8)
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        values = np.ascontiguousarray(values, dtype=np.int8)
        if keys.shape != values.shape or keys.ndim != 1:
            raise SolverError("book keys and values must be 1-D arrays of the same length")
        if keys.size > 1 and not bool(np.all(keys[1:] > keys[:-1])):
            raise SolverError("book keys must be sorted and distinct")
        self._book_keys = keys
        self._book_values = values
        self._mem[BOOK_PLIES] = max(0, plies)

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
        if tie_break not in TIE_BREAKS:
            raise SolverError(
                f"unknown tie_break {tie_break!r}: choose one of {', '.join(TIE_BREAKS)}"
            )
        scores = self.analyze(position, weak=weak)
        return pick_best(scores, tie_break, rng)

    def run(
        self,
        position: Position,
        *,
        weak: bool = False,
        analyze: bool = False,
        max_seconds: float | None = None,
        max_nodes: int | None = None,
    ) -> SolveResult:
        """Solve (and with ``analyze`` score every column) within optional limits.

        A limit that stops the search gives ``score=None`` and ``complete=False``.

        >>> r = Solver().run(Position.from_moves("445566"), analyze=True)
        >>> r.score, r.column_scores[2], r.complete
        (18, 18, True)
        """
        self.check(position)
        return self._run(
            position.current, position.mask, position.ply, weak, analyze, max_seconds, max_nodes
        )

    def run_raw(self, current: int, mask: int, ply: int, *, weak: bool = False) -> int:
        """The score from the two bitboards, without checks or limits (benchmarks).

        The position must not be over; nodes and seconds land in ``last_nodes``
        and ``last_seconds``.
        """
        kernel = _kernel()
        with self._lock:
            start = time.perf_counter()
            score = kernel.solve_fresh(
                self._mem,
                self._book_keys,
                self._book_values,
                current,
                mask,
                ply,
                weak,
                not self.reuse_table,
            )
            seconds = time.perf_counter() - start
            nodes = int(self._mem[kernel.NODES])
        self.last_nodes = nodes
        self.last_seconds = seconds
        self.total_nodes += nodes
        self.total_seconds += seconds
        self.calls += 1
        return int(score)

    def run_batch(
        self, positions: list[Position], *, weak: bool = False
    ) -> tuple[list[int], list[int], list[float]]:
        """Solve many positions in one kernel call: ``(scores, nodes, seconds)`` per
        position, timed inside the kernel (no Python overhead per position).

        >>> scores, nodes, seconds = Solver().run_batch([Position.from_moves("445566")])
        >>> scores, nodes
        ([18], [0])
        """
        for position in positions:
            self.check(position)
        kernel = _kernel()
        n = len(positions)
        currents = np.array([p.current for p in positions], dtype=np.int64)
        masks = np.array([p.mask for p in positions], dtype=np.int64)
        plies = np.array([p.ply for p in positions], dtype=np.int64)
        scores = np.zeros(n, dtype=np.int64)
        nodes = np.zeros(n, dtype=np.uint64)
        ticks = np.zeros(n, dtype=np.uint64)
        with self._lock:
            start = time.perf_counter()
            kernel.solve_batch(
                self._mem,
                self._book_keys,
                self._book_values,
                currents,
                masks,
                plies,
                weak,
                not self.reuse_table,
                scores,
                nodes,
                ticks,
            )
            wall = time.perf_counter() - start
        total_ticks = float(ticks.sum())
        per_tick = wall / total_ticks if total_ticks > 0 else 0.0
        seconds = [float(t) * per_tick for t in ticks]
        self.last_nodes = int(nodes.sum())
        self.last_seconds = wall
        self.total_nodes += self.last_nodes
        self.total_seconds += wall
        self.calls += 1
        return [int(s) for s in scores], [int(v) for v in nodes], seconds

    # ------------------------------------------------------------------ internals
    def _run(
        self,
        current: int,
        mask: int,
        ply: int,
        weak: bool,
        analyze: bool,
        max_seconds: float | None,
        max_nodes: int | None,
    ) -> SolveResult:
        kernel = _backend()
        mem = self._mem
        with self._lock:
            start = time.perf_counter()
            if not self.reuse_table:
                mem[GEN] += 1
            mem[NODES] = 0
            cur = np.uint64(current)
            msk = np.uint64(mask)
            deadline = None if max_seconds is None else start + max(0.0, max_seconds)
            cap = (1 << 62) if max_nodes is None else max(0, int(max_nodes))
            chunk = 1 << 16  # nodes before the first clock check when a time limit is set
            score: int | None = None
            complete = False
            while True:
                limit = cap if deadline is None else min(cap, int(mem[NODES]) + chunk)
                mem[LIMIT] = limit
                mem[ABORT] = 0
                if analyze:
                    kernel.analyze(
                        mem, self._book_keys, self._book_values, cur, msk, ply, weak, self._out
                    )
                else:
                    score = int(
                        kernel.solve(mem, self._book_keys, self._book_values, cur, msk, ply, weak)
                    )
                if not mem[ABORT]:
                    complete = True
                    break
                nodes = int(mem[NODES])
                now = time.perf_counter()
                if nodes >= cap or deadline is None or now >= deadline:
                    break
                # the table keeps what was proved: start again with a fresh budget
                rate = nodes / max(now - start, 1e-6)
                chunk = max(1 << 16, int(rate * min(0.1, deadline - now)))
            seconds = time.perf_counter() - start
            nodes = int(mem[NODES])
        column_scores: list[int | None] | None = None
        if analyze:
            column_scores = [
                None if v in (NONE_SCORE, UNKNOWN_SCORE) else int(v) for v in self._out
            ]
            known = [v for v in column_scores if v is not None]
            score = max(known) if complete and known else None
        if not complete:
            score = None
        self.last_nodes = nodes
        self.last_seconds = seconds
        self.total_nodes += nodes
        self.total_seconds += seconds
        self.calls += 1
        return SolveResult(score, column_scores, nodes, seconds, complete, weak)


def pick_best(
    scores: list[int | None], tie_break: str = "center", rng: random.Random | None = None
) -> int:
    """The column of the best score among ``scores`` (``None`` = not playable).

    >>> pick_best([0, 2, None, 2, 1])
    1
    >>> pick_best([0, 2, None, 2, 1], "random", random.Random(3)) in (1, 3)
    True
    """
    known = [(c, s) for c, s in enumerate(scores) if s is not None]
    if not known:
        raise SolverError("no playable column")
    top = max(s for _, s in known)
    best = [c for c, s in known if s == top]
    if tie_break == "random":
        return (rng or random.Random()).choice(best)
    if tie_break != "center":
        raise SolverError(f"unknown tie_break {tie_break!r}: choose one of {', '.join(TIE_BREAKS)}")
    order = centre_order(len(scores))
    return min(best, key=order.index)


def position_key(position: Position) -> int:
    """The canonical key the solver's table and book use: ``min(key, mirror key)``.

    >>> position_key(Position.from_moves("1")) == position_key(Position.from_moves("7"))
    True
    """
    h1 = position.height + 1
    key = position.current + position.mask
    column = (1 << h1) - 1
    mirror = 0
    for c in range(position.width):
        mirror |= ((key >> (c * h1)) & column) << ((position.width - 1 - c) * h1)
    return min(key, mirror)


_default_solvers: dict[tuple[int, int], Solver] = {}
_default_lock = threading.Lock()


def default_solver(width: int = 7, height: int = 6) -> Solver:
    """The shared solver for one board size (created on first use)."""
    with _default_lock:
        solver = _default_solvers.get((width, height))
        if solver is None:
            solver = Solver(width, height)
            _default_solvers[(width, height)] = solver
        return solver


def _for(position: Position) -> Solver:
    if position.rules != "standard":
        raise SolverError(f"the solver handles standard rules only, not {position.rules!r}")
    return default_solver(position.width, position.height)


def solve(position: Position, *, weak: bool = False) -> int:
    """The exact score of ``position`` with the shared solver of its board size.

    >>> solve(Position.from_moves("4455"))
    18
    """
    return _for(position).solve(position, weak=weak)


def analyze(position: Position, *, weak: bool = False) -> list[int | None]:
    """Every column's score with the shared solver (``None`` for a full column)."""
    return _for(position).analyze(position, weak=weak)


def best_move(
    position: Position, tie_break: str = "center", rng: random.Random | None = None
) -> int:
    """The best 0-based column with the shared solver (ties: centre first or random)."""
    return _for(position).best_move(position, tie_break, rng)
