"""The perfect player: book first, then the exact solver, within a time budget per move.

Specs::

    perfect                      full strength: the best exact score (fastest win,
                                 slowest loss); ties centre-first, or at random
                                 when a seed is given (``--seed`` or ``seed=``)
    perfect:level=hard           beatable levels: easy, medium, hard (see LEVELS)
    perfect:time=0.5             seconds per move (default 1)

Each move: every column's exact score comes from the opening book when the
position's children are all in it (``source = "book"``); otherwise the solver
searches, probing the book inside its search (``source = "solver"``). When it
cannot finish within about three quarters of the budget, an iterative-deepening
alpha-beta search (:mod:`connect4.classic.search`) picks the move with the time left
and the choice says so (``proven=False``, ``source = "search"``).

Below ``perfect`` the player samples a column from a softmax over the exact
column scores with the level's temperature, and with the level's blunder
chance plays a uniformly random column instead (both reproducible with a seed).

>>> from connect4 import Position
>>> player = PerfectPlayer(level="perfect")
>>> choice = player.choose(Position.from_moves("4455"))  # red completes 3-4-5-6
>>> choice.move in (2, 5), choice.value, choice.proven, choice.stats["source"]
(True, 18, True, 'book')
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from connect4.core.game import Game
from connect4.core.position import Position, centre_order
from connect4.players.registry import (
    MoveChoice,
    MoveStats,
    Option,
    Player,
    PlayerContext,
    PlayerKind,
    PlayerSpecError,
    parse_choice,
    parse_float,
    parse_int,
)
from connect4.solver.book import Book, default_book


@dataclass(frozen=True)
class Level:
    """How a level picks among exact column scores."""

    temperature: float  # softmax temperature over Pons scores (0 = always the best)
    blunder: float  # chance of a uniformly random legal column instead


LEVELS: dict[str, Level] = {
    "easy": Level(temperature=4.0, blunder=0.3),
    "medium": Level(temperature=2.0, blunder=0.1),
    "hard": Level(temperature=0.7, blunder=0.0),
    "perfect": Level(temperature=0.0, blunder=0.0),
}
SOLVER_SHARE = 0.75  # of the time budget; the rest is for the fallback search
TT_ENTRIES = 1 << 21  # 32 MB of transposition table per player
POOL_SIZE = 2  # free tables kept per board size
QUICK_NODES = 30_000  # full strength: every column's score if this many nodes suffice


_POOL_LOCK = threading.Lock()
_POOL: dict[tuple[int, int], list[Any]] = {}


def immediate_column_scores(position: Position) -> list[int | bool | None]:
    """Column scores known without search: ``None`` full, an int when known, ``False``
    when the child must be looked up or solved.

    >>> immediate_column_scores(Position.from_moves("445566"))[2]
    18
    """
    size = position.size
    ply = position.ply
    out: list[int | bool | None] = []
    for column in range(position.width):
        if not position.can_play(column):
            out.append(None)
        elif position.is_winning_move(column):
            out.append((size + 1 - ply) // 2)
        elif ply + 1 == size:
            out.append(0)
        else:
            out.append(False)
    return out


class PerfectEngine:
    """Exact column scores of Connect Four positions: book lookups, then the solver kernel.

    The transposition table is kept for the engine's lifetime (its bounds hold
    whatever the root), so consecutive moves of a game reuse earlier work.
    """

    def __init__(self, width: int = 7, height: int = 6, book: Book | str | None = "default"):
        self.width = width
        self.height = height
        if isinstance(book, str):
            book = default_book(width, height)
        if book is not None and (book.wdl or (book.width, book.height) != (width, height)):
            raise ValueError("the perfect player needs an exact-score book of its board size")
        self.book = book
        self._mem: Any = None
        self._mem_lock = threading.Lock()

    def _new_memory(self) -> Any:
        from connect4.solver import kernel

        return kernel.new_memory(self.width, self.height, TT_ENTRIES)

    def _memory(self) -> Any:
        """This engine's table: a free one from the process-wide pool (warm with the
        work of earlier games: bounds hold whatever the root and the book), or new."""
        from connect4.solver import kernel

        with self._mem_lock:
            if self._mem is None:
                with _POOL_LOCK:
                    free = _POOL.get((self.width, self.height))
                    self._mem = free.pop() if free else None
                if self._mem is None:
                    self._mem = self._new_memory()
            self._mem[kernel.BOOK_PLIES] = self.book.plies if self.book is not None else 0
            return self._mem

    def release(self) -> None:
        """Give the table back to the pool for the next engine of this board size."""
        with self._mem_lock:
            if self._mem is not None:
                with _POOL_LOCK:
                    free = _POOL.setdefault((self.width, self.height), [])
                    if len(free) < POOL_SIZE:
                        free.append(self._mem)
                self._mem = None

    def prepare(self) -> None:
        """Have a table ready before the first search: if the pool has none, allocate
        one and touch every page (a page fault costs ~10 us here: better paid in the
        background than during a move)."""
        with _POOL_LOCK:
            if self._mem is not None or _POOL.get((self.width, self.height)):
                return
        mem = self._new_memory()
        mem[64:] = 0
        with _POOL_LOCK:
            free = _POOL.setdefault((self.width, self.height), [])
            if len(free) < POOL_SIZE:
                free.append(mem)

    def book_scores(self, position: Position) -> list[int | None] | None:
        """Every column's exact score from the book, or ``None`` if one is missing."""
        scores: list[int | None] = []
        for column, known in enumerate(immediate_column_scores(position)):
            if known is None or not isinstance(known, bool):
                scores.append(known)
                continue
            child = position.copy()
            child.play(column)
            wins = [c for c in child.legal_moves() if child.is_winning_move(c)]
            if wins:  # the opponent wins at once
                scores.append(-((child.size + 1 - child.ply) // 2))
                continue
            value = None if self.book is None else self.book.lookup(child)
            if value is None:
                return None
            scores.append(-value)
        return scores

    def solve_columns(
        self, position: Position, deadline: float | None, node_limit: int | None = None
    ) -> tuple[list[int | None] | None, list[int | None], int]:
        """``(scores or None if stopped, partial scores, nodes)`` by the solver kernel.

        Runs in node slices so a wall-clock ``deadline`` can stop it; a stopped
        column is ``None`` in the partial list (so is a full column).
        """
        from connect4.solver import kernel

        mem = self._memory()
        keys = self.book.keys if self.book is not None else np.zeros(0, np.uint64)
        values = self.book.values if self.book is not None else np.zeros(0, np.int8)
        out = np.zeros(self.width, dtype=np.int64)
        total = 0
        step = 100_000
        while True:
            mem[kernel.NODES] = 0
            mem[kernel.ABORT] = 0
            limit = step if node_limit is None else min(step, max(node_limit - total, 1))
            mem[kernel.LIMIT] = limit
            kernel.analyze(
                mem,
                keys,
                values,
                np.uint64(position.current),
                np.uint64(position.mask),
                position.ply,
                False,
                out,
            )
            total += int(mem[kernel.NODES])
            aborted = bool(mem[kernel.ABORT])
            partial: list[int | None] = [
                None if v in (kernel.NONE_SCORE, kernel.UNKNOWN_SCORE) else int(v) for v in out
            ]
            if not aborted:
                mem[kernel.LIMIT] = np.uint64(1 << 63)
                return partial, partial, total
            out_of_nodes = node_limit is not None and total >= node_limit
            if out_of_nodes or (deadline is not None and time.perf_counter() >= deadline):
                mem[kernel.LIMIT] = np.uint64(1 << 63)
                mem[kernel.ABORT] = 0
                return None, partial, total
            step *= 2

    def _sliced(self, call: Any, deadline: float | None, nodes: list[int]) -> int | None:
        """Run ``call()`` (a kernel search) in growing node slices until it finishes
        (its result) or the deadline passes (``None``); the table keeps the work."""
        from connect4.solver import kernel

        mem = self._memory()
        step = 50_000
        try:
            while True:
                mem[kernel.NODES] = 0
                mem[kernel.ABORT] = 0
                mem[kernel.LIMIT] = step
                result = int(call())
                nodes[0] += int(mem[kernel.NODES])
                if not mem[kernel.ABORT]:
                    return result
                if deadline is not None and time.perf_counter() >= deadline:
                    return None
                step *= 2
        finally:
            mem[kernel.LIMIT] = np.uint64(1 << 63)
            mem[kernel.ABORT] = 0

    def _narrow(
        self,
        position: Position,
        guess: int | None,
        deadline: float | None,
        nodes: list[int],
        keys: Any,
        values: Any,
    ) -> int | None:
        """The exact score by null-window searches: first at ``guess``, then halving
        ``[lo, hi]`` (biased toward 0, as the solver does). ``None`` past the deadline."""
        size, ply = position.size, position.ply
        lo = -((size - ply) // 2)
        hi = (size + 1 - ply) // 2
        first = guess if guess is not None and lo <= guess < hi else None
        while lo < hi:
            if first is not None:
                med, first = first, None
            else:
                med = lo + (hi - lo) // 2
                if med <= 0 and int(lo / 2) < med:
                    med = int(lo / 2)
                elif med >= 0 and int(hi / 2) > med:
                    med = int(hi / 2)
            r = self._sliced(
                lambda med=med: self._probe(position, med, keys, values), deadline, nodes
            )
            if r is None:
                return None
            if r <= med:
                hi = r
            else:
                lo = r
        return lo

    def _probe(self, position: Position, alpha: int, keys: Any, values: Any) -> int:
        """One null-window search ``(alpha, alpha + 1)`` of a position whose side to
        move cannot win at once: ``<= alpha`` means its score is at most ``alpha``.

        """
        from connect4.solver import kernel

        mem = self._memory()
        cur, msk = np.uint64(position.current), np.uint64(position.mask)
        return int(kernel.probe(mem, keys, values, cur, msk, position.ply, alpha, alpha + 1))

    def best_move(
        self,
        position: Position,
        deadline: float | None,
        order: list[int] | None = None,
        guess: int | None = None,
    ) -> tuple[int | None, int | None, int]:
        """``(a best column, score, nodes)`` by null-window tests.

        The position's score comes from the book, or from null-window searches
        that start at ``guess`` (a likely score, e.g. the player's previous one:
        right at once, it costs one search instead of about five); then each
        column, in ``order`` (default centre first), is tested with one
        null-window search "does it keep the score?" until one does: much
        cheaper than every column's exact score. A uniformly shuffled ``order``
        gives a uniformly random best column. ``(None, None, nodes)`` past the
        deadline.
        """
        keys = self.book.keys if self.book is not None else np.zeros(0, np.uint64)
        values = self.book.values if self.book is not None else np.zeros(0, np.int8)
        nodes = [0]
        size, ply = position.size, position.ply
        for column in position.legal_moves():
            if position.is_winning_move(column):
                return column, (size + 1 - ply) // 2, 0
        score = self.book.lookup(position) if self.book is not None else None
        if score is None:
            score = self._narrow(position, guess, deadline, nodes, keys, values)
            if score is None:
                return None, None, nodes[0]
        target = score
        for column in order if order is not None else position.legal_moves():
            if position.is_winning_move(column):
                value = (size + 1 - ply) // 2
            elif ply + 1 == size:
                value = 0
            else:
                child = position.copy()
                child.play(column)
                if any(child.is_winning_move(c) for c in child.legal_moves()):
                    value = -((size - ply) // 2)
                else:
                    known = self.book.lookup(child) if self.book is not None else None
                    if known is not None:
                        value = -known
                    else:
                        r = self._sliced(
                            lambda child=child: self._probe(child, -target, keys, values),
                            deadline,
                            nodes,
                        )
                        if r is None:
                            return None, None, nodes[0]
                        value = target if r <= -target else target - 1
            if value >= target:
                return column, target, nodes[0]
        raise AssertionError(f"no column keeps the score {target} of {position!r}")

    def column_scores(
        self,
        position: Position,
        deadline: float | None = None,
        use_book: bool = True,
        node_limit: int | None = None,
    ) -> tuple[list[int | None] | None, list[int | None], int, str]:
        """``(exact scores or None, partial scores, nodes, source)``; source book/solver."""
        if position.is_over():
            raise ValueError(f"the game is over ({position.result_text()}): no move to choose")
        if use_book:
            scores = self.book_scores(position)
            if scores is not None:
                return scores, scores, 0, "book"
        exact, partial, nodes = self.solve_columns(position, deadline, node_limit)
        return exact, partial, nodes, "solver"


_WARM_LOCK = threading.Lock()
_WARMED = False


def warm_up() -> None:
    """Load (or on a first run compile) the solver kernel, its probe entry and the
    fallback search, so the first move past the book does not pay for it."""
    global _WARMED
    with _WARM_LOCK:
        if _WARMED:
            return
        try:
            import connect4.solver as solver_api
            from connect4.classic.search import Limits, search
            from connect4.solver import kernel

            solver_api.Solver(4, 4, 1).solve(Position.from_moves("12", 4, 4))
            tiny = Position.from_moves("1", 4, 4)
            kernel.probe(
                kernel.new_memory(4, 4, 4),
                np.zeros(0, np.uint64),
                np.zeros(0, np.int8),
                np.uint64(tiny.current),
                np.uint64(tiny.mask),
                tiny.ply,
                0,
                1,
            )
            search(Position.from_moves("44"), limits=Limits(depth=1))
        except Exception:  # a warm-up must never break a game: the real call will report
            pass
        _WARMED = True


def start_warm_up(engine: PerfectEngine | None = None) -> None:
    """:func:`warm_up` and ``engine.prepare()`` in a background thread (returns at once)."""

    def run() -> None:
        warm_up()
        if engine is not None:
            engine.prepare()

    threading.Thread(target=run, name="connect4-warm-up", daemon=True).start()


def best_columns(scores: list[int | None], width: int) -> list[int]:
    """The columns with the best score, centre first.

    >>> best_columns([None, 1, 3, 3, -2, 3, None], 7)
    [3, 2, 5]
    """
    best = max(s for s in scores if s is not None)
    return [c for c in centre_order(width) if scores[c] == best]


def softmax_choice(scores: list[int | None], temperature: float, rng: random.Random) -> int:
    """A column drawn with probability proportional to ``exp(score / temperature)``.

    >>> softmax_choice([None, 0, 5], 0.01, random.Random(1))
    2
    """
    columns = [c for c, s in enumerate(scores) if s is not None]
    top = max(scores[c] or 0 for c in columns)
    weights = [math.exp(((scores[c] or 0) - top) / temperature) for c in columns]
    return rng.choices(columns, weights)[0]


class PerfectPlayer:
    """The perfect player and its beatable levels (see the module docstring)."""

    is_human = False

    def __init__(
        self,
        spec: str = "perfect",
        *,
        level: str = "perfect",
        seconds: float = 1.0,
        seed: int | None = None,
        width: int = 7,
        height: int = 6,
        book: Book | str | None = "default",
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
        self.spec = spec
        self.level = level
        self.seconds = seconds
        self.seed = seed
        self.rng = random.Random(seed)
        self.engine = PerfectEngine(width, height, book)
        self._last: tuple[list[int], int | None] = ([], None)
        start_warm_up(self.engine)

    def choose(self, game: Game) -> MoveChoice:
        """Pick a move for the side to move (``game`` is left unchanged)."""
        if not isinstance(game, Position):
            raise PlayerSpecError("the perfect player plays Connect Four only")
        if game.rules != "standard":
            raise PlayerSpecError("the perfect player plays standard rules only")
        start = time.perf_counter()
        deadline = start + SOLVER_SHARE * self.seconds
        position = game.copy()
        if self.level == "perfect":
            # every column's exact score when cheap (book, or a small search) ...
            exact, partial, nodes, source = self.engine.column_scores(
                position, deadline, node_limit=QUICK_NODES
            )
            if exact is None:
                # ... else only the best move, by null-window tests
                order = position.legal_moves()
                if self.seed is not None:
                    order = self.rng.sample(sorted(order), len(order))
                guess = self._guess(position)
                try:
                    move_or_none, score, more = self.engine.best_move(
                        position, deadline, order, guess
                    )
                except Exception:  # the kernel's entry changed: fall back to exact scores
                    move_or_none, score, more = self._by_analysis(position, deadline)
                nodes += more
                if move_or_none is None or score is None:
                    return self._fallback(game, partial, nodes, start)
                move = move_or_none
                stats = MoveStats(
                    nodes=nodes,
                    seconds=time.perf_counter() - start,
                    source="solver",
                    level=self.level,
                )
                self._remember(position, score)
                return MoveChoice(move=move, value=score, stats=stats, proven=True)
        else:
            exact, partial, nodes, source = self.engine.column_scores(position, deadline)
        if exact is None:
            return self._fallback(game, partial, nodes, start)
        move = self._pick(game, exact)
        stats = MoveStats(
            nodes=nodes,
            seconds=time.perf_counter() - start,
            source=source,
            level=self.level,
        )
        self._remember(position, exact[move])
        return MoveChoice(
            move=move,
            value=exact[move],
            stats=stats,
            proven=True,
            column_scores=list(exact),
        )

    def _remember(self, position: Position, value: int | None) -> None:
        """Keep the score of the move just chosen: a likely score two plies on."""
        self._last = (position.history, value)

    def _guess(self, position: Position) -> int | None:
        """Our previous move's score when ``position`` follows it by one reply (the
        opponent can only keep it or, by a mistake, raise it)."""
        history, value = self._last
        if value is None or position.history[:-2] != history or position.ply != len(history) + 2:
            return None
        return value

    def _by_analysis(
        self, position: Position, deadline: float
    ) -> tuple[int | None, int | None, int]:
        exact, _, nodes, _ = self.engine.column_scores(position, deadline)
        if exact is None:
            return None, None, nodes
        move = self._pick(position, exact)
        return move, exact[move], nodes

    def _pick(self, game: Position, scores: list[int | None]) -> int:
        level = LEVELS[self.level]
        legal = [c for c, s in enumerate(scores) if s is not None]
        if level.blunder and self.rng.random() < level.blunder:
            return self.rng.choice(legal)
        if level.temperature > 0:
            return softmax_choice(scores, level.temperature, self.rng)
        best = best_columns(scores, game.width)
        if self.seed is None or len(best) == 1:
            return best[0]
        return self.rng.choice(sorted(best))

    def _fallback(
        self, game: Position, partial: list[int | None], nodes: int, start: float
    ) -> MoveChoice:
        from connect4.classic.search import Limits, search

        known_wins = [c for c, s in enumerate(partial) if s is not None and s > 0]
        if known_wins:
            move = max(known_wins, key=lambda c: partial[c] or 0)
            value: float | None = partial[move]
            depth = 0
        else:
            left = max(0.95 * self.seconds - (time.perf_counter() - start), 0.01)
            result = search(game.copy(), limits=Limits(time=left), tt=True)
            move = result.move if result.move is not None else game.legal_moves()[0]
            value = result.value
            nodes += result.stats.nodes
            depth = result.stats.depth
        stats = MoveStats(
            nodes=nodes,
            seconds=time.perf_counter() - start,
            source="search",
            level=self.level,
            depth=depth,
        )
        return MoveChoice(move=move, value=value, stats=stats, proven=False, column_scores=None)

    def close(self) -> None:
        """Return the solver table to the pool (the next player starts warm)."""
        self.engine.release()


def _build_perfect(spec: str, options: dict[str, object], context: PlayerContext) -> Player:
    if context.rules != "standard":
        raise PlayerSpecError("perfect plays standard rules only (not count-fours)")
    seed = options.get("seed", context.seed)
    level = options.get("level", "perfect")
    seconds = options.get("time", 1.0)
    return PerfectPlayer(
        spec,
        level=str(level),
        seconds=float(seconds) if isinstance(seconds, (int, float)) else 1.0,
        seed=seed if isinstance(seed, int) else None,
        width=context.width,
        height=context.height,
    )


PERFECT = PlayerKind(
    name="perfect",
    description="plays the exact solver's best move (book first); beatable levels",
    options={
        "level": Option(
            "easy, medium, hard (beatable) or perfect",
            parse_choice(*LEVELS),
            tuple(LEVELS),
            "perfect",
        ),
        "time": Option(
            "seconds per move (book, then solver, then search)",
            parse_float(0.001, 3600),
            (),
            "1",
        ),
        "seed": Option("random seed for ties and levels (defaults to --seed)", parse_int(0, 2**63)),
    },
    build=_build_perfect,
    games=("connect4",),
)
