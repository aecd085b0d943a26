"""Minimax and alpha-beta over the :class:`~connect4.core.game.Game` protocol, instrumented.

One search runs unchanged on Connect Four of any size, the count-fours variant and
tic-tac-toe. It is the textbook max/min form: the side to move at the root is the
maximiser, the heuristic scores positions for that player, values are from its
point of view. Options (all keyword arguments of :func:`search`):

* ``algorithm``: ``"minimax"`` (no pruning, kept for teaching and comparison) or
  ``"alphabeta"`` (fail-soft alpha-beta; same value, fewer nodes);
* ``limits``: a :class:`Limits` — fixed ``depth`` or a ``schedule`` of depths by game
  phase (the Power-4 contest AI's 4/5/6);
* ``limit``: the caller's :class:`~connect4.core.limits.Limit` — a deadline (iterative
  deepening, so a move is ready when it hits), a ``nodes`` budget and a stop flag;
* ``ordering``: ``"center"`` (the game's own order: centre columns first, or
  tic-tac-toe's centre, corners, edges) or ``"none"`` (ascending moves);
* ``tt``: a transposition table (its best move is tried first);
* ``record_tree``: record the explored tree (see :mod:`connect4.classic.tree`);
* ``engine``: ``"python"`` (the readable engine below, over the Game protocol),
  ``"numba"`` (the compiled backend of :mod:`connect4.classic.fastsearch`: the same
  search on bitboards of one or two words, same values and node counts) or
  ``"auto"`` (compiled when it runs the request: not for a recorded tree or a
  heuristic that reads the moves).

Both engines take each heuristic and each node step (table probe, back-up) from
:mod:`connect4.classic.node`; this module drives the iterations and builds the
result, whichever engine ran.

Game ends are scored by distance: a win for the root player is ``MATE - ply``
(``ply`` = stones on the board), a loss ``-(MATE - ply)``, a draw 0, so a faster
win and a slower loss score better and every heuristic plays sensible endgames.

The transposition table keeps, per position, ``(depth left, flag, value, best
move)`` with flag exact/lower/upper, and uses an entry only at the same depth
left: a depth-limited value depends on the depth, so a deeper entry would change
the result. Move ordering and the table therefore never change the value.

>>> from connect4 import Position, TicTacToe
>>> r = search(Position(), limits=Limits(depth=2), algorithm="minimax")
>>> r.move, r.value, r.stats.nodes, r.stats.leaves
(3, -3, 57, 49)
>>> search(Position(), limits=Limits(depth=2)).stats.nodes < 57
True
>>> search(TicTacToe.from_moves("5"), limits=Limits(depth=9)).value
0
"""

from __future__ import annotations

import math
from typing import TypedDict, Unpack

from connect4.classic.heuristics import Heuristic, get_heuristic
from connect4.classic.node import (
    MATE as MATE,
    TT_SLOTS,
    back_up,
    entry_flag,
    mate_score,
    use_entry,
)
from connect4.classic.recorder import TreeRecorder
from connect4.classic.results import (
    ALGORITHMS as ALGORITHMS,
    ORDERINGS as ORDERINGS,
    Algorithm as Algorithm,
    Engine,
    Iteration,
    Limits as Limits,
    Ordering as Ordering,
    Outcome,
    SearchResult as SearchResult,
    SearchStats as SearchStats,
    check_options,
    describe_value as describe_value,
    is_mate as is_mate,
    note_python_engine,
)
from connect4.core.bits import MAX_BOARD_BITS, check_word_board
from connect4.core.errors import Stopped, unknown_choice
from connect4.core.game import Game
from connect4.core.limits import Limit, clock

ENGINES = ("auto", "python", "numba")
Table = dict[int, tuple[int, int, int, float, int]]  # slot -> key, depth, flag, value, move


class SearchAborted(Stopped):
    """Raised inside a search when its limit (node budget, deadline, stop) is reached: control
    flow inside one engine, always caught by its own ``run`` (which answers an
    incomplete Outcome), so it never reaches a caller."""


class PythonEngine:
    """The readable engine: recursive max/min over the Game protocol, with make/unmake.

    It runs every heuristic and game, and records the tree when asked. Its table
    lives as long as the engine, across the iterations of one search.
    """

    name = "python"

    def __init__(
        self,
        game: Game,
        algorithm: Algorithm,
        heuristic: Heuristic,
        ordering: Ordering,
        tt: bool,
        tree_cap: int | None = None,
    ) -> None:
        self.game = game
        self.prune = algorithm == "alphabeta"
        self.heuristic = heuristic
        self.sorted_moves = ordering == "none"
        self.tt: Table | None = {} if tt else None
        self.path_key = heuristic.path_dependent
        self.tree_cap = tree_cap
        self.root = game.to_move
        self.limit = Limit()
        self.recorder: TreeRecorder | None = None
        self.stats = SearchStats()
        self.pv: list[list[int]] = []
        self.halted = False

    def stop(self) -> None:
        """Stop the running iteration and every later one (safe from another thread)."""
        self.halted = True

    def run(self, depth: int, limit: Limit) -> Outcome:
        """Search to ``depth``; see :class:`connect4.classic.results.Engine`."""
        self.limit = limit
        self.stats = SearchStats()
        self.pv = [[] for _ in range(self.game.size + 2)]
        if self.tree_cap is not None:
            self.recorder = TreeRecorder(self.game, self.tree_cap)
        try:
            value = self.node(depth, -math.inf, math.inf, 0)
        except SearchAborted:
            return Outcome(math.nan, [], self.stats, complete=False)
        tree = self.recorder.to_json() if self.recorder is not None else None
        return Outcome(value, list(self.pv[0]), self.stats, complete=True, tree=tree)

    def key(self) -> int:
        key = self.game.key()
        if self.path_key:
            for index, move in enumerate(self.game.history[-2:]):
                key += (move + 1) << (MAX_BOARD_BITS + 8 * index)
        return key

    def tick(self) -> None:
        """Count a node; raise :class:`SearchAborted` past the limit's node budget, and
        (every 1,024 nodes) once stopped or the limit expired."""
        stats = self.stats
        stats.nodes += 1
        budget = self.limit.nodes
        if budget is not None and stats.nodes > budget:
            raise SearchAborted
        if stats.nodes & 1023 == 0 and (self.halted or self.limit.expired()):
            raise SearchAborted

    def leaf(self) -> float:
        """A leaf's value: the heuristic's, or a mate score (0 for a draw) once the game is over."""
        self.stats.leaves += 1
        game = self.game
        if not game.is_over():
            return self.heuristic.evaluate(game, self.root)
        winner = game.winner()
        return 0 if winner is None else mate_score(game.ply, winner == self.root)

    def probe(
        self, key: int, depth: int, alpha: float, beta: float, moves: list[int], ply: int
    ) -> tuple[float | None, float, float]:
        """The transposition table's word on this node: its stored value when that decides
        the node (the stored best move becomes the principal variation), else ``None`` and
        the window the entry narrows; the stored best move is tried first."""
        assert self.tt is not None
        entry = self.tt.get(key % TT_SLOTS)
        if entry is None or entry[0] != key:
            return None, alpha, beta
        _, entry_depth, flag, stored, best_move = entry
        if entry_depth == depth:
            self.stats.tt_hits += 1
            hit, alpha, beta = use_entry(flag, stored, alpha, beta)
            if hit or alpha >= beta:
                self.pv[ply] = [best_move] if best_move >= 0 else []
                return stored, alpha, beta
        if best_move >= 0 and best_move in moves and moves[0] != best_move:
            moves.remove(best_move)
            moves.insert(0, best_move)
        return None, alpha, beta

    def node(self, depth: int, alpha: float, beta: float, ply: int) -> float:
        """Minimax (or alpha-beta) value of the game's position, searched ``depth`` plies."""
        self.tick()
        game = self.game
        pv = self.pv
        pv[ply] = []
        rec = self.recorder
        handle = rec.enter(game, ply, alpha, beta, self.prune) if rec is not None else -1
        if depth == 0 or game.is_over():
            value = self.leaf()
            if rec is not None:
                rec.leave(handle, value, value)
            return value
        maximizing = game.to_move == self.root
        moves = sorted(game.legal_moves()) if self.sorted_moves else game.legal_moves()
        alpha0, beta0 = alpha, beta
        key = self.key() if self.tt is not None else 0
        if self.tt is not None:
            stored, alpha, beta = self.probe(key, depth, alpha, beta, moves, ply)
            if stored is not None:
                if rec is not None:
                    rec.leave(handle, stored, None, note="tt")
                return stored
        best = -math.inf if maximizing else math.inf
        best_move = -1
        for index, move in enumerate(moves):
            game.play(move)
            try:
                value = self.node(depth - 1, alpha, beta, ply + 1)
            finally:
                game.undo()
            improved, best, alpha, beta = back_up(maximizing, self.prune, value, best, alpha, beta)
            if improved:
                best_move = move
                pv[ply] = [move, *pv[ply + 1]]
            if self.prune and alpha >= beta:
                if index + 1 < len(moves):
                    self.stats.cutoffs += 1
                    if rec is not None:
                        rec.pruned(handle, game, moves[index + 1 :])
                break
        if self.tt is not None:
            flag = entry_flag(self.prune, best, alpha0, beta0)
            self.tt[key % TT_SLOTS] = (key, depth, flag, best, best_move)
        if rec is not None:
            rec.leave(handle, best, None)
        return best


def _engine(
    game: Game,
    engine: str,
    algorithm: Algorithm,
    heuristic: Heuristic,
    ordering: Ordering,
    tt: bool,
    tree_cap: int | None,
) -> Engine:
    """The engine that runs this search: the compiled backend when asked for (or, with
    ``auto``, when it can), else the readable one."""
    if engine not in ENGINES:
        raise ValueError(unknown_choice("engine", engine, ENGINES))
    if engine != "python" and tree_cap is None:
        from connect4.classic import fastsearch

        words = fastsearch.words_of(game)
        if fastsearch.supports(game, heuristic, words, tt):
            return fastsearch.CompiledEngine(game, algorithm, heuristic, ordering, tt, words)
        if engine == "numba":
            if game.kind == "connect4":
                check_word_board(game.width, game.height, "the numba engine", MAX_BOARD_BITS)
            raise ValueError(f"the numba engine does not support {heuristic.name} on this game")
        if game.kind == "connect4" and words == 2 and heuristic.code is not None:
            note_python_engine(game, "the compiled alpha-beta", MAX_BOARD_BITS)
    return PythonEngine(game, algorithm, heuristic, ordering, tt, tree_cap)


def search(
    game: Game,
    *,
    limits: Limits | None = None,
    algorithm: Algorithm = "alphabeta",
    heuristic: str | Heuristic = "windows",
    ordering: Ordering = "center",
    tt: bool = False,
    record_tree: bool = False,
    tree_cap: int = 5000,
    engine: str = "auto",
    limit: Limit | None = None,
) -> SearchResult:
    """Search ``game`` (left unchanged) and return a :class:`SearchResult`.

    ``limit`` is the caller's: its deadline makes the search deepen iteratively (up to
    the depth ``limits`` sets, else to the board's end), so a move is ready when it
    hits; its node budget and its stop flag end the search; ``result.stopped`` then
    says why.

    ``engine`` is ``"python"`` (the readable engine), ``"numba"`` (the compiled
    backend, same semantics and node counts) or ``"auto"`` (compiled when it
    supports the request).

    >>> from connect4 import TicTacToe
    >>> r = search(TicTacToe.from_moves("1"), limits=Limits(depth=8), algorithm="minimax")
    >>> r.value, r.stats.nodes, r.engine
    (0, 59705, 'numba')
    """
    limits = limits or Limits()
    check_options(algorithm, ordering)
    if isinstance(heuristic, str):
        heuristic = get_heuristic(heuristic, game.kind)
    if game.is_over():
        raise ValueError(f"the game is over ({game.result_text()}): there is nothing to search")
    start = clock()
    backend = _engine(
        game, engine, algorithm, heuristic, ordering, tt, tree_cap if record_tree else None
    )
    result = SearchResult(
        None, None, [], SearchStats(), algorithm, heuristic.name, complete=False,
        engine=backend.name,
    )  # fmt: skip
    if limit is None:
        _iterate(game, backend, limits, Limit(), result)
    else:
        guard = limit.tighter()
        with guard.watch(backend.stop):
            _iterate(game, backend, limits, guard, result)
    result.stats.seconds = clock() - start
    return result


def _depths(game: Game, limits: Limits, deepening: bool) -> list[int]:
    """The depths searched: the fixed one, or 1, 2, ... up to it (or to the board's
    end) when a clock may stop the search."""
    if not deepening:
        return [limits.depth_for(game)]
    remaining = game.size - game.ply
    if limits.depth is not None or limits.schedule is not None:
        top = min(limits.depth_for(game), remaining)
    else:
        top = remaining
    return list(range(1, max(top, 1) + 1))


def _iterate(
    game: Game,
    backend: Engine,
    limits: Limits,
    guard: Limit,
    result: SearchResult,
) -> None:
    """Run ``backend`` depth by depth into ``result`` under the search's ``guard``:
    iterative deepening when it has a deadline, else the one fixed depth. Each
    iteration gets what is left of the node budget; the first runs under
    :meth:`~connect4.core.limits.Limit.untimed` (the guard's flag, no deadline), so
    the compiled engine does not turn the deadline into a node budget from a speed
    it has not measured yet; the deadline still ends it through the flag, which
    the limits' watcher sets once the guard expires."""
    total = result.stats
    depths = _depths(game, limits, guard.timed())
    for number, depth in enumerate(depths):
        node_limit = None if guard.nodes is None else max(guard.nodes - total.nodes, 1)
        timed = guard if number > 0 else guard.untimed()
        outcome = backend.run(depth, timed.capped(node_limit))
        total.add(outcome.stats)
        result.iterations.append(Iteration(depth, outcome.stats.nodes, outcome.complete))
        if not outcome.complete:
            if node_limit is not None and outcome.stats.nodes > node_limit:
                result.stopped = "node budget"
            elif guard.stopped() and not guard.overdue():
                result.stopped = "stopped"
            else:
                result.stopped = "time limit"
            break
        total.depth = depth
        result.move = outcome.pv[0] if outcome.pv else None
        result.value = _clean(outcome.value)
        result.pv = outcome.pv
        result.complete = True
        result.tree = outcome.tree
        if is_mate(outcome.value) and guard.timed():
            break
        if guard.overdue():
            result.stopped = "time limit" if number + 1 < len(depths) else None
            break


def _clean(value: float) -> float:
    """Integral floats as ints (values print as ``12``, not ``12.0``)."""
    if math.isfinite(value) and value == int(value):
        return int(value)
    return value


class SearchOptions(TypedDict, total=False):
    """The other keyword arguments of :func:`search`, for :func:`minimax` and :func:`alphabeta`."""

    ordering: Ordering
    tt: bool
    record_tree: bool
    tree_cap: int
    engine: str


def minimax(
    game: Game, depth: int, heuristic: str | Heuristic = "windows", **options: Unpack[SearchOptions]
) -> SearchResult:
    """Plain minimax to ``depth`` (no pruning).

    >>> from connect4 import TicTacToe
    >>> minimax(TicTacToe.from_moves("51"), 7, engine="python").stats.nodes
    6812
    """
    return search(
        game, limits=Limits(depth=depth), algorithm="minimax", heuristic=heuristic, **options
    )


def alphabeta(
    game: Game, depth: int, heuristic: str | Heuristic = "windows", **options: Unpack[SearchOptions]
) -> SearchResult:
    """Alpha-beta to ``depth``.

    >>> from connect4 import Position
    >>> alphabeta(Position.from_moves("445566"), 2).move  # red completes 3-4-5-6
    2
    """
    return search(
        game, limits=Limits(depth=depth), algorithm="alphabeta", heuristic=heuristic, **options
    )


__all__ = [
    "MATE",
    "Limits",
    "SearchResult",
    "SearchStats",
    "alphabeta",
    "describe_value",
    "minimax",
    "search",
]
