"""Minimax and alpha-beta over the :class:`~connect4.core.game.Game` protocol, instrumented.

One search runs unchanged on Connect Four of any size, the count-fours variant and
tic-tac-toe. It is the textbook max/min form: the side to move at the root is the
maximiser, the heuristic scores positions for that player, values are from its
point of view. Options (all keyword arguments of :func:`search`):

* ``algorithm``: ``"minimax"`` (no pruning, kept for teaching and comparison) or
  ``"alphabeta"`` (fail-soft alpha-beta; same value, fewer nodes);
* ``limits``: a :class:`Limits` — fixed ``depth``, a ``schedule`` of depths by game
  phase (the contest seed's 4/5/6), a ``time`` limit (iterative deepening) and a
  ``nodes`` budget;
* ``ordering``: ``"center"`` (the game's own order: centre columns first, or
  tic-tac-toe's centre, corners, edges) or ``"none"`` (ascending moves);
* ``tt``: a transposition table (its best move is tried first);
* ``record_tree``: record the explored tree (see :mod:`connect4.classic.tree`).

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
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from connect4.classic.heuristics import Heuristic, get_heuristic
from connect4.classic.tree import TreeRecorder
from connect4.core.game import Game
from connect4.core.tictactoe import TicTacToe

Algorithm = Literal["minimax", "alphabeta"]
Ordering = Literal["center", "none"]
ALGORITHMS: tuple[Algorithm, ...] = ("minimax", "alphabeta")
ORDERINGS: tuple[Ordering, ...] = ("center", "none")
MATE = 1_000_000_000
TT_SLOTS = 1_048_573  # a prime: the table is direct-mapped, key % TT_SLOTS
EXACT, LOWER, UPPER = 0, 1, 2
PHASE_DEPTHS = (4, 5, 6)  # seed 000: depth 4-6 as the game advances


def is_mate(value: float) -> bool:
    """True for a value that scores a finished game (a forced win or loss)."""
    return abs(value) > MATE - 1000


def describe_value(value: float | None) -> str:
    """A value in words: mate scores become 'win at ply n' / 'loss at ply n'.

    >>> describe_value(MATE - 7), describe_value(-(MATE - 12)), describe_value(35)
    ('win at ply 7', 'loss at ply 12', '35')
    """
    if value is None:
        return "-"
    if is_mate(value):
        ply = MATE - abs(int(value))
        return f"{'win' if value > 0 else 'loss'} at ply {ply}"
    return f"{value:g}"


@dataclass(frozen=True)
class Limits:
    """How far to search: a fixed ``depth``, a ``schedule`` of depths by game phase,
    a ``time`` limit in seconds (iterative deepening, up to ``depth`` if given) and a
    ``nodes`` budget (the search stops there and says so).

    >>> from connect4 import Position
    >>> Limits(schedule=(4, 5, 6)).depth_for(Position.from_moves("4" * 5 + "3" * 6))
    4
    """

    depth: int | None = None
    time: float | None = None
    nodes: int | None = None
    schedule: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.depth is not None and self.depth < 0:
            raise ValueError(f"depth must be >= 0, not {self.depth}")
        if self.time is not None and self.time <= 0:
            raise ValueError(f"time must be > 0, not {self.time}")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"nodes must be >= 1, not {self.nodes}")
        if self.schedule is not None and (not self.schedule or any(d < 1 for d in self.schedule)):
            raise ValueError("a depth schedule needs depths >= 1")

    def depth_for(self, game: Game) -> int:
        """The depth cut-off for ``game``: the schedule's entry for its phase (the
        board split into equal parts by stones played), else ``depth``, else 4."""
        if self.schedule is not None:
            size = board_cells(game)
            phase = min(len(self.schedule) - 1, game.ply * len(self.schedule) // size)
            return self.schedule[phase]
        return 4 if self.depth is None else self.depth


def board_cells(game: Game) -> int:
    """The number of cells of a game's board (9 for tic-tac-toe)."""
    width, height = getattr(game, "width", 3), getattr(game, "height", 3)
    return int(width) * int(height)


@dataclass
class SearchStats:
    """What a search did: positions visited (root included), leaves evaluated (heuristic
    or game end), cut-offs (nodes whose remaining moves were pruned), transposition
    hits (usable entries), the depth completed and the time taken."""

    nodes: int = 0
    leaves: int = 0
    cutoffs: int = 0
    tt_hits: int = 0
    depth: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        """The figures as a plain dict (for ``MoveChoice.stats`` and JSON)."""
        return asdict(self)


@dataclass
class SearchResult:
    """The answer of one search: best move, value (root player's view), principal
    variation, stats; ``complete`` is False when a node budget or time limit stopped
    the (last) iteration; ``tree`` is the recorded tree as JSON-ready dict."""

    move: int | None
    value: float | None
    pv: list[int]
    stats: SearchStats
    algorithm: Algorithm
    heuristic: str
    complete: bool = True
    stopped: str | None = None
    engine: str = "python"
    tree: dict[str, Any] | None = None
    iterations: list[dict[str, Any]] = field(default_factory=list)


class SearchAborted(Exception):
    """Raised inside a search when its node budget or deadline is reached."""


class _Searcher:
    """One search of one root position (state shared by the recursive calls)."""

    def __init__(
        self,
        game: Game,
        algorithm: Algorithm,
        heuristic: Heuristic,
        ordering: Ordering,
        tt: dict[int, tuple[int, int, int, float, int]] | None,
        node_limit: int | None,
        deadline: float | None,
        recorder: TreeRecorder | None,
    ) -> None:
        self.game = game
        self.prune = algorithm == "alphabeta"
        self.heuristic = heuristic
        self.sorted_moves = ordering == "none"
        self.tt = tt
        self.path_key = heuristic.path_dependent
        self.node_limit = node_limit
        self.deadline = deadline
        self.recorder = recorder
        self.root = game.to_move
        self.root_ply = game.ply
        self.stats = SearchStats()
        self.pv: list[list[int]] = [[] for _ in range(board_cells(game) + 2)]

    def key(self) -> int:
        key = self.game.key()
        if self.path_key:
            for index, move in enumerate(self.game.history[-2:]):
                key += (move + 1) << (64 + 8 * index)
        return key

    def run(self, depth: int) -> float:
        return self.node(depth, -math.inf, math.inf, 0)

    def node(self, depth: int, alpha: float, beta: float, ply: int) -> float:
        stats = self.stats
        stats.nodes += 1
        if self.node_limit is not None and stats.nodes > self.node_limit:
            raise SearchAborted
        if (
            self.deadline is not None
            and stats.nodes & 1023 == 0
            and (time.perf_counter() > self.deadline)
        ):
            raise SearchAborted
        game = self.game
        pv = self.pv
        pv[ply] = []
        rec = self.recorder
        handle = rec.enter(game, ply, alpha, beta, self.prune) if rec is not None else -1
        if game.is_over():
            stats.leaves += 1
            winner = game.winner()
            if winner is None:
                value: float = 0
            else:
                value = MATE - game.ply if winner == self.root else -(MATE - game.ply)
            if rec is not None:
                rec.leave(handle, value, value)
            return value
        if depth == 0:
            stats.leaves += 1
            value = self.heuristic.evaluate(game, self.root)
            if rec is not None:
                rec.leave(handle, value, value)
            return value
        maximizing = game.to_move == self.root
        moves = sorted(game.legal_moves()) if self.sorted_moves else game.legal_moves()
        tt = self.tt
        alpha0, beta0 = alpha, beta
        key = slot = 0
        if tt is not None:
            key = self.key()
            slot = key % TT_SLOTS
            entry = tt.get(slot)
            if entry is not None and entry[0] == key:
                _, entry_depth, flag, stored, best_move = entry
                if entry_depth == depth:
                    hit = False
                    if flag == EXACT:
                        hit = True
                    elif flag == LOWER:
                        if stored >= beta:
                            hit = True
                        alpha = max(alpha, stored)
                    elif stored <= alpha:
                        hit = True
                    else:
                        beta = min(beta, stored)
                    stats.tt_hits += 1
                    if hit or alpha >= beta:
                        pv[ply] = [best_move] if best_move >= 0 else []
                        if rec is not None:
                            rec.leave(handle, stored, None, note="tt")
                        return stored
                if best_move >= 0 and best_move in moves and moves[0] != best_move:
                    moves.remove(best_move)
                    moves.insert(0, best_move)
        best = -math.inf if maximizing else math.inf
        best_move = -1
        count = len(moves)
        for index, move in enumerate(moves):
            game.play(move)
            try:
                value = self.node(depth - 1, alpha, beta, ply + 1)
            finally:
                game.undo()
            if maximizing:
                if value > best:
                    best, best_move = value, move
                    pv[ply] = [move, *pv[ply + 1]]
                    if self.prune and best > alpha:
                        alpha = best
            elif value < best:
                best, best_move = value, move
                pv[ply] = [move, *pv[ply + 1]]
                if self.prune and best < beta:
                    beta = best
            if self.prune and alpha >= beta:
                if index + 1 < count:
                    stats.cutoffs += 1
                    if rec is not None:
                        rec.pruned(handle, game, moves[index + 1 :])
                break
        if tt is not None:
            if best <= alpha0:
                flag = UPPER
            elif best >= beta0:
                flag = LOWER
            else:
                flag = EXACT
            if not self.prune:
                flag = EXACT
            tt[slot] = (key, depth, flag, best, best_move)
        if rec is not None:
            rec.leave(handle, best, None)
        return best


def _check_options(algorithm: str, ordering: str) -> None:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}: choose one of {', '.join(ALGORITHMS)}")
    if ordering not in ORDERINGS:
        raise ValueError(f"unknown ordering {ordering!r}: choose one of {', '.join(ORDERINGS)}")


def game_kind(game: Game) -> str:
    """``"tictactoe"`` or ``"connect4"`` (for heuristic lookup)."""
    return "tictactoe" if isinstance(game, TicTacToe) else "connect4"


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
) -> SearchResult:
    """Search ``game`` (left unchanged) and return a :class:`SearchResult`.

    ``engine`` is ``"python"`` (the generic search), ``"numba"`` (the compiled
    Connect Four / tic-tac-toe kernels of :mod:`connect4.classic.fastsearch`, same
    semantics and node counts) or ``"auto"`` (numba when it supports the request).

    >>> from connect4 import TicTacToe
    >>> r = search(TicTacToe.from_moves("1"), limits=Limits(depth=8), algorithm="minimax")
    >>> r.value, r.stats.nodes, r.engine
    (0, 59705, 'numba')
    """
    limits = limits or Limits()
    _check_options(algorithm, ordering)
    if isinstance(heuristic, str):
        heuristic = get_heuristic(heuristic, game_kind(game))
    if game.is_over():
        raise ValueError(f"the game is over ({game.result_text()}): there is nothing to search")
    start = time.perf_counter()
    use_fast = False
    if engine not in ("auto", "python", "numba"):
        raise ValueError(f"unknown engine {engine!r}: choose auto, python or numba")
    if engine != "python" and not record_tree:
        from connect4.classic import fastsearch

        use_fast = fastsearch.supports(game, heuristic.name)
        if engine == "numba" and not use_fast:
            raise ValueError(f"the numba engine does not support {heuristic.name} on this game")
    table: dict[int, tuple[int, int, int, float, int]] | None = {} if tt else None
    max_depth = limits.depth_for(game)
    remaining = board_cells(game) - game.ply
    if limits.time is None:
        depths = [max_depth]
    else:
        top = remaining if limits.depth is None else min(limits.depth, remaining)
        depths = list(range(1, max(top, 1) + 1))
    deadline = None if limits.time is None else start + limits.time
    result: SearchResult | None = None
    iterations: list[dict[str, Any]] = []
    total = SearchStats()
    fast_state: dict[str, Any] = {}
    for number, depth in enumerate(depths):
        iteration_deadline = deadline if number > 0 else None
        node_limit = None
        if limits.nodes is not None:
            node_limit = max(limits.nodes - total.nodes, 1)
        recorder = TreeRecorder(game, tree_cap) if record_tree else None
        if use_fast:
            from connect4.classic import fastsearch

            outcome = fastsearch.run(
                game,
                depth=depth,
                algorithm=algorithm,
                heuristic=heuristic.name,
                ordering=ordering,
                tt=tt,
                node_limit=node_limit,
                deadline=iteration_deadline,
                state=fast_state,
            )
            value, pv, stats, complete = outcome
        else:
            searcher = _Searcher(
                game, algorithm, heuristic, ordering, table, node_limit, iteration_deadline,
                recorder,
            )  # fmt: skip
            try:
                value = searcher.run(depth)
                complete = True
            except SearchAborted:
                value, complete = math.nan, False
            pv, stats = list(searcher.pv[0]), searcher.stats
        total.nodes += stats.nodes
        total.leaves += stats.leaves
        total.cutoffs += stats.cutoffs
        total.tt_hits += stats.tt_hits
        iterations.append({"depth": depth, "nodes": stats.nodes, "complete": complete})
        if not complete:
            if result is None:
                result = SearchResult(
                    None, None, [], total, algorithm, heuristic.name, complete=False,
                    engine="numba" if use_fast else "python",
                )  # fmt: skip
            over_budget = node_limit is not None and stats.nodes > node_limit
            result.stopped = "node budget" if over_budget else "time limit"
            break
        total.depth = depth
        result = SearchResult(
            pv[0] if pv else None,
            _clean(value),
            pv,
            total,
            algorithm,
            heuristic.name,
            engine="numba" if use_fast else "python",
            tree=recorder.to_json() if recorder is not None else None,
        )
        if is_mate(value) and limits.time is not None:
            break
        if deadline is not None and time.perf_counter() > deadline:
            break
    assert result is not None
    result.stats.seconds = time.perf_counter() - start
    result.iterations = iterations
    return result


def _clean(value: float) -> float:
    """Integral floats as ints (values print as ``12``, not ``12.0``)."""
    if math.isfinite(value) and value == int(value):
        return int(value)
    return value


def minimax(
    game: Game, depth: int, heuristic: str | Heuristic = "windows", **options: Any
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
    game: Game, depth: int, heuristic: str | Heuristic = "windows", **options: Any
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
