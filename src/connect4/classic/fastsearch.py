"""The compiled backend of :func:`connect4.classic.search.search`: the bitboard search,
compiled with numba.

Nothing here is a second search: :func:`connect4.classic.node.search_node`, the
heuristics it scores leaves with and the node steps it shares with the readable
engine are plain Python in :mod:`connect4.classic.node`; this module compiles
those very functions (and the four-in-a-row tests of :mod:`connect4.core.position`),
lays the position out in ``int64`` arrays and runs them. Values, principal
variations and node, leaf, cut-off and table-hit counts equal the readable
engine's (the tests check this).

Supported: Connect Four boards with ``width * (height + 1) <= 63`` (both rule sets)
and tic-tac-toe, with every heuristic that has a bitboard ``code``; boards of up to
128 bits run the same functions compiled over two words
(:mod:`connect4.classic.fastwide`), the table's included. A heuristic
that reads the move history (``recent-lines``) and a recorded tree run on the
readable engine.

>>> from connect4 import Position
>>> from connect4.classic.heuristics import get_heuristic
>>> from connect4.core.limits import Limit
>>> engine = CompiledEngine(Position(), "alphabeta", get_heuristic("windows"), "center", False)
>>> outcome = engine.run(4, Limit())
>>> outcome.value, outcome.pv[0], outcome.stats.nodes
(-4, 3, 239)
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import threading
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import cast

import numpy as np
from numba import types as numba_types
from numba.extending import overload_method

from connect4.classic import fastwide, node
from connect4.classic.heuristics import HEURISTICS, Heuristic, board_geometry
from connect4.classic.node import (
    INF,
    P_BOARD,
    P_BOTTOM,
    P_COUNT_FOURS,
    P_EVAL,
    P_GEN,
    P_HEIGHT,
    P_ODD,
    P_PRUNE,
    P_ROOT_RED,
    P_SIZE,
    P_SORTED,
    P_TICTACTOE,
    P_USE_TT,
    P_WIDTH,
    S_ABORTED,
    S_CUTOFFS,
    S_LEAVES,
    S_LIMIT,
    S_NODES,
    S_TT_HITS,
    TT_SLOTS,
)
from connect4.classic.results import Algorithm, Ordering, Outcome, SearchStats
from connect4.core.bits import MAX_BOARD_BITS, SIGNED_WORD_BITS, fits_word
from connect4.core.game import Game
from connect4.core.generated import Copy, generate, kernel_folder
from connect4.core.limits import Limit, clock
from connect4.core.position import Position, centre_order, count_fours, four_in_a_row
from connect4.core.tictactoe import MOVE_ORDER, TicTacToe

Array = np.ndarray


@overload_method(numba_types.Integer, "bit_count", inline="always")
def _bit_count(x: int) -> Callable[[int], int]:  # pragma: no cover - compiled
    """``int.bit_count`` for numba: a 64-bit popcount by bit slicing."""

    def popcount(x: int) -> int:
        x = x - ((x >> 1) & 0x5555555555555555)
        x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
        x = x + (x >> 8)
        x = x + (x >> 16)
        x = x + (x >> 32)
        return x & 0x7F

    return popcount


# small steps of every node, inlined into it (a call would count references to its arrays)
_INLINE = frozenset(
    (
        "end_state",
        "has_line",
        "evaluate",
        "mate_score",
        "use_entry",
        "entry_flag",
        "back_up",
        "gather_moves",
        "move_first",
        "node_key",
        "probe_entry",
        "extend_pv",
        "mask_at",
        "span",
        "one",
        "table_slot",
        "table_holds",
        "table_keep",
    )
)


def compile_module(
    module: types.ModuleType,
    extra: Iterable[Callable[..., object]] = (),
    inline: frozenset[str] = frozenset(),
    base: types.SimpleNamespace | tuple[types.SimpleNamespace, ...] | None = None,
    overrides: Mapping[str, object] | None = None,
    tag: str = "",
) -> types.SimpleNamespace:
    """Each function defined in ``module`` (and the ``extra`` ones it uses), compiled,
    calling each other's compiled versions (and those of ``base``: an earlier result,
    or several).

    ``overrides`` replaces names of the module: a function there is compiled (inlined)
    in place of the module's function of that name, other values are bound as they
    are; ``tag`` (a word) names this variant's generated module apart from the plain
    one's.

    The functions are compiled from their source, written into one generated module
    (:func:`connect4.core.generated.generate`) whose other globals are the module's,
    ``base``'s compiled functions and the overrides; its stamp is a digest of all the
    compiled source, of this module (the recipe) and of ``base``, so an edit to any
    of it (not only to the file of the function called) compiles afresh. The result's
    ``digest`` names that version. The compiled functions release the GIL
    (``nogil``): a search on one thread leaves the others (a waiting caller, a Ctrl-C
    handler) running.

    Compiled code that calls :func:`~connect4.classic.node.search_node` passes
    it no constants: numba would compile a copy typed for those literal values, whose
    recursion then runs through a pointer that the on-disk cache does not restore (a
    crash in the next process, "Symbol not found: .numba.unresolved$...").
    """
    replaced = dict(overrides or {})
    changed = {k: v for k, v in replaced.items() if isinstance(v, types.FunctionType)}
    extras = [cast(types.FunctionType, func) for func in extra]
    plain = extras + [
        value
        for name, value in vars(module).items()
        if inspect.isfunction(value) and value.__module__ == module.__name__
        if name not in replaced
    ]
    source = Path(inspect.getfile(module)).read_bytes() + Path(__file__).read_bytes()
    source += b"".join(inspect.getsource(f).encode() for f in (*extras, *changed.values()))
    source += tag.encode()
    scope = dict(vars(module))
    bases = () if base is None else base if isinstance(base, tuple) else (base,)
    for earlier in bases:
        source += earlier.digest.encode()
        scope.update((k, v) for k, v in vars(earlier).items() if k != "digest")
    scope.update((k, v) for k, v in replaced.items() if k not in changed)
    digest = hashlib.sha256(source).hexdigest()[:12]
    copies = {
        func.__name__: Copy(func, _JIT_INLINE if func.__name__ in inline else _JIT)
        for func in plain
    }
    copies.update((name, Copy(func, _JIT_INLINE)) for name, func in changed.items())
    name = module.__name__.removeprefix("connect4.").replace(".", "_") + (f"_{tag}" if tag else "")
    compiled = generate(name, kernel_folder(), scope, {}, copies, [digest])
    return types.SimpleNamespace(digest=digest, **{name: compiled[name] for name in copies})


_JIT: dict[str, object] = {"nogil": True}
_JIT_INLINE: dict[str, object] = {"nogil": True, "inline": "always"}


def compile_search(
    overrides: Mapping[str, object] | None = None,
    tag: str = "",
    extra: Iterable[Callable[..., object]] = (),
) -> types.SimpleNamespace:
    """The classic search's functions compiled (see :func:`compile_module` for
    ``overrides``, ``tag`` and ``extra``: the two-word variant's word helpers and
    entry point)."""
    extras = (count_fours, four_in_a_row, *extra)
    return compile_module(node, extras, _INLINE, None, overrides, tag)


COMPILED = compile_search()
_WIDE: list[types.SimpleNamespace] = []
_WIDE_LOCK = threading.Lock()


def wide_search() -> types.SimpleNamespace:
    """The search compiled over two words (:mod:`connect4.classic.fastwide`'s forms and
    its entry point ``search_words``), compiled or loaded from the cache on first use."""
    with _WIDE_LOCK:
        if not _WIDE:
            extra = (fastwide.search_words,)
            _WIDE.append(compile_search(fastwide.forms(), tag="wide", extra=extra))
    return _WIDE[0]


def supports(game: Game, heuristic: str | Heuristic, words: int = 1, tt: bool = False) -> bool:
    """True when the compiled backend can run this search in ``words`` words (with
    ``words=2``: its two-word form, boards of up to 128 bits, table on or off)."""
    if isinstance(heuristic, str):
        if heuristic not in HEURISTICS:
            return False
        heuristic = HEURISTICS[heuristic]
    if heuristic.code is None or game.kind not in heuristic.games:
        return False
    if words == 1 or game.kind == "tictactoe":
        return game.kind == "tictactoe" or fits_word(game.width, game.height, SIGNED_WORD_BITS)
    return fits_word(game.width, game.height, MAX_BOARD_BITS)


def words_of(game: Game) -> int:
    """The words a bitboard of ``game`` takes in the compiled code: 1 up to 63 bits,
    else 2.

    >>> [words_of(Position(w, h)) for w, h in ((7, 6), (8, 8))]
    [1, 2]
    """
    if game.kind == "tictactoe" or fits_word(game.width, game.height, SIGNED_WORD_BITS):
        return 1
    return 2


# ---------------------------------------------------------------- tables
_TABLE: list[tuple[Array, Array, Array]] = []
_GENERATIONS = itertools.count(1)  # next() is atomic: threads never share a generation
_TABLE_LOCK = threading.Lock()


def shared_table() -> tuple[tuple[Array, Array, Array], int]:
    """The process's table and a new generation: entries of other generations count as
    empty, so each search starts from an empty table without clearing 24 MB.
    Searches in several threads share it: they only evict each other's entries
    (more nodes, never a different value)."""
    with _TABLE_LOCK:
        if not _TABLE:
            _TABLE.append(new_table())
    return _TABLE[0], next(_GENERATIONS)


def new_table() -> tuple[Array, Array, Array]:
    """An empty transposition table: keys (-1 = empty; twice ``TT_SLOTS`` words, the
    second half for the two-word engines' high words), packed data, values."""
    return (
        np.full(2 * TT_SLOTS, -1, dtype=np.int64),
        np.zeros(TT_SLOTS, dtype=np.int64),
        np.zeros(TT_SLOTS, dtype=np.int64),
    )


_EMPTY_TABLE = (np.full(1, -1, dtype=np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64))


def pack(values: Sequence[int], words: int = 1) -> Array:
    """``values`` as the compiled code's ``int64`` array; with ``words=2`` the low
    words, then as many high words (the two-word code's layout of bitboards).

    >>> pack([5, 1 << 64 | 7], words=2).tolist()
    [5, 7, 0, 1]
    """
    if words == 1:
        return np.array(values, dtype=np.int64)
    low = [value & 0xFFFF_FFFF_FFFF_FFFF for value in values]
    words_array = np.array(low + [value >> 64 for value in values], dtype=np.uint64)
    return words_array.view(np.int64)


# ---------------------------------------------------------------- the engine
class CompiledEngine:
    """The root position laid out in arrays, searched by the compiled
    :func:`~connect4.classic.node.search_node`. Its table and its measured speed
    (which turns a limit's deadline into a node budget) last across the iterations of one
    search. ``words=2`` lays the arrays out for the two-word code of boards over 63
    bits (see :func:`pack`), which :meth:`run` searches with
    :mod:`connect4.classic.fastwide`'s kernels (and the vector env's compiled loop
    with its own)."""

    name = "numba"

    def __init__(
        self,
        game: Game,
        algorithm: Algorithm,
        heuristic: Heuristic,
        ordering: Ordering,
        tt: bool,
        words: int = 1,
    ) -> None:
        if heuristic.code is None:
            raise ValueError(f"the numba engine does not support {heuristic.name}")
        g = board_geometry(game)
        tictactoe = game.kind == "tictactoe"
        params = [0] * (P_TICTACTOE + 1)
        params[P_WIDTH], params[P_HEIGHT], params[P_SIZE] = game.width, game.height, game.size
        params[P_PRUNE] = int(algorithm == "alphabeta")
        params[P_SORTED] = int(ordering == "none")
        params[P_USE_TT] = int(tt)
        params[P_EVAL] = heuristic.code
        params[P_COUNT_FOURS] = int(game.rules == "count-fours")
        params[P_BOTTOM], params[P_BOARD], params[P_ODD] = g.bottom, g.board, g.odd_rows
        params[P_ROOT_RED] = int(game.to_move == 1)
        params[P_TICTACTOE] = int(tictactoe)
        self.table = _EMPTY_TABLE
        if tt:
            self.table, params[P_GEN] = shared_table()
        self.words = words
        self.params = pack(params, words)
        self.order = pack(MOVE_ORDER if tictactoe else centre_order(game.width))
        self.directions, self.cells = pack(g.directions, words), pack(g.weight_masks, words)
        self.lines, self.weights = pack(g.lines), pack(heuristic.weights)
        self.current = game.stones(game.to_move)
        self.mask = game.stones(1) | game.stones(2)
        self.ply = game.ply
        bits = game.height + 1
        column = (1 << bits) - 1
        self.heights = pack(
            [0] if tictactoe
            else [(self.mask >> (c * bits) & column).bit_count() for c in range(game.width)]
        )  # fmt: skip
        self.movebuf = np.zeros((game.size + 2, max(9, game.width)), dtype=np.int64)
        self.pv = np.zeros((game.size + 2, game.size + 2), dtype=np.int64)
        self.pvlen = np.zeros(game.size + 2, dtype=np.int64)
        self.nodes, self.seconds = 0, 0.0
        self.st = np.zeros(6, dtype=np.int64)
        self.halted = False

    def stop(self) -> None:
        """Stop the running iteration and every later one (safe from another thread):
        the kernel compares its node count with ``st[S_LIMIT]`` at every node, so a
        zero there ends it within one node, at no cost to a search left alone."""
        self.halted = True
        self.st[S_LIMIT] = 0

    def run(self, depth: int, limit: Limit) -> Outcome:
        """Search to ``depth``; see :class:`connect4.classic.results.Engine`. When
        ``limit`` has a deadline the iteration gets a node budget from the speed
        measured so far (the kernel does not read a clock); a stop reaches it through
        :meth:`stop`."""
        st = self.st = np.zeros(6, dtype=np.int64)
        budget = INF if limit.nodes is None else limit.nodes
        left = limit.remaining()
        if left is not None:
            rate = self.nodes / self.seconds if self.seconds > 0.002 else 500_000.0
            budget = min(budget, max(1, int(left * rate)))
        st[S_LIMIT] = 0 if self.halted or limit.stopped() else budget
        start = clock()
        if self.words == 1:
            value = COMPILED.search_node(
                self.current, self.mask, depth, -INF, INF, 0, self.ply, self.heights,
                self.params, self.order, self.directions, self.weights, self.cells, self.lines,
                st, *self.table, self.movebuf, self.pv, self.pvlen,
            )  # fmt: skip
        else:
            value = wide_search().search_words(
                fastwide.root_words(self.current, self.mask), depth, -INF, INF, 0, self.ply,
                self.heights, self.params, self.order, self.directions, self.weights,
                self.cells, self.lines, st, *self.table, self.movebuf, self.pv, self.pvlen,
            )  # fmt: skip
        self.seconds += clock() - start
        self.nodes += int(st[S_NODES])
        stats = SearchStats(
            nodes=int(st[S_NODES]), leaves=int(st[S_LEAVES]), cutoffs=int(st[S_CUTOFFS]),
            tt_hits=int(st[S_TT_HITS]),
        )  # fmt: skip
        if st[S_ABORTED]:
            return Outcome(float("nan"), [], stats, complete=False)
        line = [int(m) for m in self.pv[0, : self.pvlen[0]]]
        return Outcome(int(value), line, stats, complete=True)


def warm_up(wide: bool = True) -> None:
    """Compile (or load from the cache) the kernels once; with ``wide``, those of boards
    over 63 bits too (two words)."""
    windows = HEURISTICS["windows"]
    CompiledEngine(Position(), "alphabeta", windows, "center", True).run(1, Limit())
    CompiledEngine(TicTacToe(), "alphabeta", windows, "center", False).run(1, Limit())
    if wide:
        CompiledEngine(Position(8, 8), "alphabeta", windows, "center", True, 2).run(1, Limit())
