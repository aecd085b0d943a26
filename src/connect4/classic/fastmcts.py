"""The compiled MCTS engine: :mod:`connect4.classic.mctsboard`, compiled with numba.

Nothing here is a second MCTS: the iteration, playout, solver step and generator
are the plain Python functions of :mod:`connect4.classic.mctsboard`, compiled by
:func:`connect4.classic.fastsearch.compile_module` on top of the classic search's
compiled functions. This module keeps the tree in an ``int32`` array (one row per
node), grows it as needed, and moves the root down the tree between turns.

Supported: Connect Four boards with ``width * (height + 1) <= 63`` (both rule sets)
and tic-tac-toe; boards of up to 128 bits run the same steps compiled over two words
(:mod:`connect4.classic.fastwide`). The tree holds at most ``max_tree_nodes`` nodes (by default
:data:`~connect4.classic.mctsboard.MAX_NODES`, 112 MB); the search stops when it is
full and :meth:`CompiledTree.full` says so.

>>> from connect4 import Position
>>> from connect4.classic.mctsboard import seed_state
>>> tree = CompiledTree(Position(), solver=False, heuristic=False, state=seed_state(1))
>>> tree.run(100, 1.41), tree.root_visits()
(100, 100)
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable, Iterable

import numpy as np

from connect4.classic import fastwide, mctsboard
from connect4.classic.fastsearch import (
    COMPILED as SEARCH_COMPILED,
    compile_module,
    pack,
    wide_search,
    words_of,
)
from connect4.classic.mctsboard import (
    F_COUNT,
    F_FIRST,
    F_MOVE,
    F_PROVEN,
    F_REWARD,
    F_VISITS,
    MASK64,
    MAX_NODES,
    N_FIELDS,
    N_STATE,
    P_MASK64,
    S_FULL,
    S_MAX_DEPTH,
    S_PLAYOUTS,
    S_RNG,
    S_USED,
    board_setup,
    free_cells,
)
from connect4.core.bits import MAX_BOARD_BITS, fits_word
from connect4.core.game import Game
from connect4.core.limits import new_flag

_INLINE = frozenset(("next_state", "draw", "free_cells", "end_code", "makes_line"))


def compile_mcts(
    base: types.SimpleNamespace = SEARCH_COMPILED,
    tag: str = "",
    extra: Iterable[Callable[..., object]] = (),
) -> types.SimpleNamespace:
    """The MCTS steps compiled on top of the classic search's compiled ``base`` (another
    variant of it, such as the two-word one, names its copies with ``tag``; ``extra``:
    its entry point)."""
    return compile_module(mctsboard, extra, inline=_INLINE, base=base, tag=tag)


COMPILED = compile_mcts()
_WIDE: list[types.SimpleNamespace] = []
_WIDE_LOCK = threading.Lock()


def wide_mcts() -> types.SimpleNamespace:
    """The MCTS steps compiled over two words, on top of
    :func:`~connect4.classic.fastsearch.wide_search` (with the entry point
    :func:`~connect4.classic.fastwide.playouts_words`), on first use."""
    with _WIDE_LOCK:
        if not _WIDE:
            extra = (fastwide.playouts_words,)
            _WIDE.append(compile_mcts(wide_search(), tag="wide", extra=extra))
    return _WIDE[0]


Array = np.ndarray
MAX_VISITS = 1 << 29  # a node's doubled reward sum stays within int32
_NO_STOP = new_flag()  # never set: a search without a caller's limit


def supports(game: Game) -> bool:
    """True when the compiled engine can run on ``game``: its board fits 63 bits, or
    128 with the two-word kernels."""
    if words_of(game) == 1:
        return True
    return fits_word(game.width, game.height, MAX_BOARD_BITS)


def _int64(word: int) -> int:
    """A 64-bit word as numba's wrapping ``int64`` holds it."""
    return word - (1 << 64) if word >= 1 << 63 else word


class CompiledTree:
    """An MCTS tree in an ``int32`` array, searched by the compiled iteration.

    ``state`` is the generator's 64-bit state; it carries over between searches. The
    tree holds at most ``max_tree_nodes`` nodes (at least one expansion's worth).
    """

    name = "numba"

    def __init__(
        self, game: Game, solver: bool, heuristic: bool, state: int, max_tree_nodes: int = MAX_NODES
    ) -> None:
        params, order, cells, lines = board_setup(game, solver, heuristic)
        self.board, self.board_cells = params, cells  # Python ints, for descend()
        self.words = words_of(game)
        self.kernels = COMPILED if self.words == 1 else wide_mcts()
        params = [*params]
        params[P_MASK64] = -1 if self.words == 1 else MASK64  # -1 as int64 (the low word)
        self.params = pack(params, self.words)
        self.order = np.array(order, dtype=np.int64)
        self.cells = pack(cells, self.words)
        self.lines = np.array(lines or (0,), dtype=np.int64)
        self.path = np.zeros(game.size + 2, dtype=np.int64)
        self.st = np.zeros(N_STATE, dtype=np.int64)
        self.st[S_RNG] = _int64(state)
        self.max_tree_nodes = max(max_tree_nodes, 1 + len(order))
        self.nodes = np.zeros(
            (min(4096, self.max_tree_nodes), N_FIELDS), dtype=np.int32
        )  # small rows: fewer cache misses
        self.reset(game)

    def reset(self, game: Game) -> None:
        """Start a fresh tree at ``game``'s position."""
        self.cur = game.stones(game.to_move)
        self.mask = game.stones(1) | game.stones(2)
        self.stones = game.ply
        self.nodes[0] = 0
        self.st[S_USED], self.st[S_PLAYOUTS], self.st[S_MAX_DEPTH], self.st[S_FULL] = 1, 0, 0, 0

    def run(self, count: int, c: float, stop: Array | None = None) -> int:
        """Up to ``count`` iterations (fewer once the root is proven, once the tree is
        full, or once another thread sets ``stop[0]``, a
        :class:`~connect4.core.limits.Limit`'s flag); the number run."""
        count = min(count, MAX_VISITS - self.root_visits())
        needed = min(int(self.st[S_USED]) + count * len(self.order) + 1, self.max_tree_nodes)
        if len(self.nodes) < needed:  # each iteration expands at most one node
            rows = min(max(needed, 2 * len(self.nodes)), self.max_tree_nodes)
            grown = np.zeros((rows, N_FIELDS), dtype=self.nodes.dtype)
            grown[: len(self.nodes)] = self.nodes
            self.nodes = grown
        flag = _NO_STOP if stop is None else stop
        if self.words == 1:
            ran = COMPILED.run_playouts(
                count, c, self.cur, self.mask, self.stones, self.nodes, self.params,
                self.order, self.cells, self.lines, self.path, self.st, flag,
            )  # fmt: skip
        else:
            ran = self.kernels.playouts_words(
                count, c, fastwide.root_words(self.cur, self.mask), self.stones, self.nodes,
                self.params, self.order, self.cells, self.lines, self.path, self.st, flag,
            )  # fmt: skip
        return int(ran)

    def descend(self, moves: list[int]) -> bool:
        """Make the node reached by ``moves`` the root, keeping its subtree; False when
        the tree does not hold it."""
        if not moves:
            self.st[S_PLAYOUTS], self.st[S_MAX_DEPTH] = 0, 0
            return True
        node = 0
        for move in moves:
            first, count = self.nodes[node, F_FIRST], self.nodes[node, F_COUNT]
            children = [k for k in range(first, first + count) if self.nodes[k, F_MOVE] == move]
            if not children:
                return False
            node = children[0]
        out = np.zeros_like(self.nodes)
        self.st[S_USED] = self.kernels.copy_subtree(node, self.nodes, out)
        self.nodes = out
        for move in moves:
            cell = free_cells(self.mask, self.board) & self.board_cells[move]
            mover = self.cur | cell
            self.mask |= cell
            self.cur = mover ^ self.mask
            self.stones += 1
        self.st[S_PLAYOUTS], self.st[S_MAX_DEPTH], self.st[S_FULL] = 0, 0, 0
        return True

    def children(self) -> list[tuple[int, int, int, int]]:
        """The root's children: ``(move, visits, doubled reward sum, proven code)``."""
        first, count = self.nodes[0, F_FIRST], self.nodes[0, F_COUNT]
        rows = self.nodes[first : first + count]
        return [
            (int(r[F_MOVE]), int(r[F_VISITS]), int(r[F_REWARD]), int(r[F_PROVEN])) for r in rows
        ]

    def root_visits(self) -> int:
        return int(self.nodes[0, F_VISITS])

    def root_proven(self) -> int:
        return int(self.nodes[0, F_PROVEN])

    def size(self) -> int:
        return int(self.st[S_USED])

    def max_depth(self) -> int:
        return int(self.st[S_MAX_DEPTH])

    def full(self) -> bool:
        """True once an iteration found no room to expand a node."""
        return bool(self.st[S_FULL])


def warm_up(wide: bool = True) -> None:
    """Compile (or load from the cache) the kernels once: playouts, and the subtree
    copy that keeps the tree from one move to the next; with ``wide``, those of boards
    over 63 bits too (two words)."""
    from connect4.core.position import Position

    boards = [Position()] + ([Position(8, 8)] if wide else [])
    for board in boards:
        tree = CompiledTree(board, solver=True, heuristic=True, state=1)
        tree.run(2, 1.0)
        tree.descend([tree.children()[0][0]])
