"""The perfect player: book first, then the exact solver, within a time budget per move.

Specs::

    perfect                      full strength: the best exact score (fastest win,
                                 slowest loss); ties centre-first, or at random
                                 when a seed is given (``--seed`` or ``seed=``)
    perfect:level=hard           beatable levels: easy, medium, hard (see LEVELS)
    perfect:temperature=1,blunder=0.05   a beatable player of your own (these keys
                                 override the level's)
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

import contextlib
import math
import random
import threading
import time
from dataclasses import asdict, dataclass

from connect4.core.errors import unknown_choice
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import loss_score, pick_best, win_score
from connect4.players.base import MoveChoice, MoveStats, PlayerBase, PlayerContext, within_caller
from connect4.players.options import (
    Option,
    level_option,
    parse_float,
    seed_option,
    time_option,
)
from connect4.players.registry import PlayerKind, PlayerSpecError
from connect4.solver import DEFAULT_BOOK, Solver, SolverError, warm_up
from connect4.solver.book import BookError, BookSpec, load_book
from connect4.solver.checks import check_solver_board


def elapsed(start: float) -> float:
    """Seconds since ``start`` (a :func:`time.perf_counter` time) as the move's stats give
    them: to the microsecond, as the game record's move times are."""
    return round(time.perf_counter() - start, 6)


@dataclass(frozen=True)
class Level:
    """How a level picks among exact column scores."""

    temperature: float  # softmax temperature over Pons scores (0 = always the best)
    blunder: float  # chance of a uniformly random legal column instead


# tuned to the ladder's outcome-error targets (easy 30 %, medium 10 %, hard 3 %)
LEVELS: dict[str, Level] = {
    "easy": Level(temperature=3.0, blunder=0.1),
    "medium": Level(temperature=1.0, blunder=0.05),
    "hard": Level(temperature=0.7, blunder=0.0),
    "perfect": Level(temperature=0.0, blunder=0.0),
}
SOLVER_SHARE = 0.75  # of the time budget; the rest is for the fallback search
FALLBACK_END = 0.95  # of the time budget: where the fallback search ends
LEAST_SEARCH_SECONDS = 0.01  # the fallback search's time when the solver overran its share
TABLE_MEGABYTES = 32  # transposition table per player
QUICK_NODES = 30_000  # full strength: every column's score if this many nodes suffice


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
            out.append(win_score(size, ply))
        elif ply + 1 == size:
            out.append(0)
        else:
            out.append(False)
    return out


class PerfectEngine:
    """Exact column scores of Connect Four positions: book lookups, then the solver.

    ``book`` names its book of exact scores as
    :func:`~connect4.solver.book.load_book` reads one: ``"default"`` (the board
    size's shipped book, if one ships and can be read), ``None`` (the solver
    alone), a file or a loaded :class:`~connect4.solver.book.Book`. The engine
    owns its solver, whichever thread asks (a game asks each move on a new
    thread, see :func:`connect4.players.match.play_move`; the solver's lock
    keeps one search at a time): its table, taken from the pool of free tables
    (:data:`connect4.solver.backend.TABLES`) on the first search, keeps its
    entries from move to move (their bounds hold whatever the root), so
    consecutive moves reuse earlier work and no move pages in a new table.
    :meth:`release` gives the table back to the pool; an engine dropped without
    it frees its table.
    """

    def __init__(self, width: int = 7, height: int = 6, book: BookSpec = DEFAULT_BOOK):
        self.width = width
        self.height = height
        try:
            check_solver_board(width, height)  # its solver is made with the player
            self.book = load_book(book, width, height, exact=True)
        except (SolverError, BookError) as error:
            raise PlayerSpecError(f"the perfect player: {error}") from None
        self._solver: Solver | None = None
        self._solver_lock = threading.Lock()

    @property
    def solver(self) -> Solver:
        """This engine's solver (made on first use: checking the book's order takes a
        few milliseconds, better paid before a clock runs; see :meth:`prepare`)."""
        with self._solver_lock:
            if self._solver is None:
                self._solver = Solver(
                    self.width,
                    self.height,
                    TABLE_MEGABYTES,
                    book=self.book,
                    reuse_table=True,
                    keep_entries=True,
                    etc=False,
                )
            return self._solver

    def prepare(self) -> None:
        """Load the kernel, make the solver and have its table ready before the first
        search (a fresh table is paged in now: a page fault costs ~10 us here,
        better paid before the clock runs than during a move)."""
        self.solver.warm_up()

    def release(self) -> None:
        """Give the solver's table back to the pool, entries and all: the next search
        (this engine's or another's, on any thread) takes it from there instead of
        paging in a new one (20 ms on a quiet 2-core machine, over 100 on a busy one)."""
        with self._solver_lock:
            if self._solver is not None:
                self._solver.close()

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
                scores.append(-win_score(child.size, child.ply))
                continue
            value = None if self.book is None else self.book.lookup(child)
            if value is None:
                return None
            scores.append(-value)
        return scores

    def solve_columns(
        self, position: Position, limit: Limit | None = None
    ) -> tuple[list[int | None] | None, list[int | None], int]:
        """``(scores or None if stopped, partial scores, nodes)`` by the solver.

        The caller's ``limit`` (its deadline, node budget or stop flag) can stop it;
        a stopped column is ``None`` in the partial list (so is a full column).
        """
        result = self.solver.run(position, analyze=True, limit=limit)
        partial = list(result.column_scores or [None] * position.width)
        return (partial if result.complete else None), partial, result.nodes

    def best_move(
        self,
        position: Position,
        order: list[int] | None = None,
        guess: int | None = None,
        limit: Limit | None = None,
    ) -> tuple[int | None, int | None, int]:
        """``(a best column, score, nodes)`` by null-window tests.

        The position's score comes from the book, or from null-window searches
        that start at ``guess`` (a likely score, e.g. the player's previous one:
        right at once, it costs one search instead of about five); then each
        column, in ``order`` (default centre first), is tested with one
        null-window search "does it keep the score?" until one does: much
        cheaper than every column's exact score. A uniformly shuffled ``order``
        gives a uniformly random best column. ``(None, None, nodes)`` once the
        caller's ``limit`` stops it (its deadline or stop flag).
        """
        nodes = 0
        size, ply = position.size, position.ply
        for column in position.legal_moves():
            if position.is_winning_move(column):
                return column, win_score(size, ply), 0
        score = self.book.lookup(position) if self.book is not None else None
        if score is None:
            result = self.solver.run(position, guess=guess, limit=limit)
            nodes += result.nodes
            if result.score is None:
                return None, None, nodes
            score = result.score
        target = score
        for column in order if order is not None else position.legal_moves():
            if position.is_winning_move(column):
                value = win_score(size, ply)
            elif ply + 1 == size:
                value = 0
            else:
                child = position.copy()
                child.play(column)
                if any(child.is_winning_move(c) for c in child.legal_moves()):
                    value = loss_score(size, ply)
                else:
                    known = self.book.lookup(child) if self.book is not None else None
                    if known is not None:
                        value = -known
                    else:
                        probe = self.solver.probe(child, -target, limit=limit)
                        nodes += probe.nodes
                        if probe.value is None:
                            return None, None, nodes
                        value = target if probe.value <= -target else target - 1
            if value >= target:
                return column, target, nodes
        raise AssertionError(f"no column keeps the score {target} of {position!r}")

    def column_scores(
        self,
        position: Position,
        use_book: bool = True,
        limit: Limit | None = None,
    ) -> tuple[list[int | None] | None, list[int | None], int, str]:
        """``(exact scores or None, partial scores, nodes, source)``; source book/solver;
        the solver within ``limit``."""
        if position.is_over():
            raise ValueError(f"the game is over ({position.result_text()}): no move to choose")
        if use_book:
            scores = self.book_scores(position)
            if scores is not None:
                return scores, scores, 0, "book"
        exact, partial, nodes = self.solve_columns(position, limit)
        return exact, partial, nodes, "solver"


def start_warm_up() -> None:
    """Load the solver (:func:`connect4.solver.warm_up`) in a background thread
    (returns at once), so the first move past the book does not pay for it."""

    def run() -> None:
        with contextlib.suppress(Exception):  # a warm-up must never break a game: the
            warm_up()  # real call will report

    threading.Thread(target=run, name="connect4-warm-up", daemon=True).start()


def softmax_choice(scores: list[int | None], temperature: float, rng: random.Random) -> int:
    """A column drawn with probability proportional to ``exp(score / temperature)``.

    >>> softmax_choice([None, 0, 5], 0.01, random.Random(1))
    2
    """
    columns = [c for c, s in enumerate(scores) if s is not None]
    top = max(scores[c] or 0 for c in columns)
    weights = [math.exp(((scores[c] or 0) - top) / temperature) for c in columns]
    return rng.choices(columns, weights)[0]


class PerfectPlayer(PlayerBase):
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
        book: BookSpec = DEFAULT_BOOK,
        one_off: bool = False,
        temperature: float | None = None,
        blunder: float | None = None,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(unknown_choice("level", level, LEVELS))
        self.spec = spec
        self.level = level
        preset = LEVELS[level]  # a temperature or blunder given overrides the level's
        self.pick = Level(
            temperature=preset.temperature if temperature is None else temperature,
            blunder=preset.blunder if blunder is None else blunder,
        )
        self.seconds = seconds
        self.seed = seed
        self.rng = random.Random(seed)
        self.one_off = one_off  # each choice its own question: seeded afresh, table given back
        start_warm_up()  # the kernel loads while the book does
        self.engine = PerfectEngine(width, height, book)
        self.engine.solver  # noqa: B018  made now, not during the first move past the book
        self._last: tuple[list[int], int | None] = ([], None)

    def warm_up(self) -> None:
        """Load the kernel and the solver's table before any clock runs."""
        self.engine.prepare()

    def close(self) -> None:
        """Give the solver's table back to the pool (see :meth:`PerfectEngine.release`):
        the next perfect player takes it (a rehearsal's table goes to the real
        player); a later move of this one takes a table again."""
        self.engine.release()

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """Pick a move for the side to move (``game`` is left unchanged); a caller's
        ``limit`` caps the player's own time (its stop flag ends the fallback search).

        A one-off player (a hint, a web request: ``PlayerContext.one_off``) draws from
        its seed afresh each time, so a seeded level repeats its answer, and gives its
        table back to the pool after the move, so players kept between requests hold
        no table while idle (the next move takes one back, entries and all)."""
        if not self.one_off:
            return self._choose(game, limit)
        self.rng = random.Random(self.seed)
        try:
            return self._choose(game, limit)
        finally:
            self.engine.release()

    def _choose(self, game: Game, limit: Limit | None) -> MoveChoice:
        if game.kind != "connect4":
            raise PlayerSpecError("the perfect player plays Connect Four only")
        if game.rules != "standard":
            raise PlayerSpecError("the perfect player plays standard rules only")
        start = time.perf_counter()
        left = None if limit is None else limit.remaining()
        seconds = self.seconds if left is None else min(self.seconds, left)
        # the move's time (all but a last 5% to answer in), under the caller's limit,
        # and the solver's share of it; the fallback search has what the solver left
        move_limit = within_caller(limit, FALLBACK_END * seconds)
        own = move_limit.tighter(SOLVER_SHARE * seconds)
        board = Position.of(game)  # left as it is; the searches work on a copy
        position = board.copy()
        if self.pick == LEVELS["perfect"]:
            # every column's exact score when cheap (book, or a small search) ...
            exact, partial, nodes, source = self.engine.column_scores(
                position, limit=own.capped(QUICK_NODES)
            )
            if exact is None:
                # ... else only the best move, by null-window tests
                order = position.legal_moves()
                if self.seed is not None:
                    order = self.rng.sample(sorted(order), len(order))
                guess = self._guess(position)
                move_or_none, score, more = self.engine.best_move(position, order, guess, own)
                nodes += more
                if move_or_none is None or score is None:
                    return self._fallback(board, partial, nodes, start, seconds, limit, move_limit)
                move = move_or_none
                stats = MoveStats(
                    nodes=nodes,
                    seconds=elapsed(start),
                    source="solver",
                    level=self.level,
                )
                self._remember(position, score)
                return MoveChoice(move=move, value=score, stats=stats, proven=True)
        else:
            exact, partial, nodes, source = self.engine.column_scores(position, limit=own)
        if exact is None:
            return self._fallback(board, partial, nodes, start, seconds, limit, move_limit)
        move = self._pick(board, exact)
        stats = MoveStats(
            nodes=nodes,
            seconds=elapsed(start),
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

    def _pick(self, game: Position, scores: list[int | None]) -> int:
        level = self.pick
        legal = [c for c, s in enumerate(scores) if s is not None]
        if level.blunder and self.rng.random() < level.blunder:
            return self.rng.choice(legal)
        if level.temperature > 0:
            return softmax_choice(scores, level.temperature, self.rng)
        return pick_best(scores, "center" if self.seed is None else "random", self.rng)

    def _fallback(
        self,
        game: Position,
        partial: list[int | None],
        nodes: int,
        start: float,
        seconds: float,
        limit: Limit | None,
        move_limit: Limit,
    ) -> MoveChoice:
        from connect4.classic.search import search

        known_wins = [c for c, s in enumerate(partial) if s is not None and s > 0]
        if known_wins:
            move = max(known_wins, key=lambda c: partial[c] or 0)
            value: float | None = partial[move]
            depth = 0
        else:
            # what the move's time has left, but at least a few milliseconds of search
            left = max(move_limit.remaining() or 0.0, LEAST_SEARCH_SECONDS)
            own = within_caller(limit, left)
            result = search(game.copy(), tt=True, limit=own)
            move = result.move if result.move is not None else game.legal_moves()[0]
            value = result.value
            nodes += result.stats.nodes
            depth = result.stats.depth
        stats = MoveStats(
            nodes=nodes,
            seconds=elapsed(start),
            source="search",
            level=self.level,
            depth=depth,
        )
        # the caller's limit, not the player's own time, cut it short: the best found
        capped = limit is not None and (limit.expired() or seconds < self.seconds)
        return MoveChoice(move, value, stats, proven=False, complete=not capped)


def _build_perfect(spec: str, options: dict[str, object], context: PlayerContext) -> PerfectPlayer:
    if context.board.rules != "standard":
        raise PlayerSpecError("perfect plays standard rules only (not count-fours)")
    seed = options.get("seed", context.seed)
    level = options.get("level", "perfect")
    seconds = options.get("time", 1.0)
    temperature = options.get("temperature")
    blunder = options.get("blunder")
    return PerfectPlayer(
        spec,
        level=str(level),
        seconds=float(seconds) if isinstance(seconds, (int, float)) else 1.0,
        seed=seed if isinstance(seed, int) else None,
        width=context.board.width,
        height=context.board.height,
        one_off=context.one_off,
        temperature=float(temperature) if isinstance(temperature, (int, float)) else None,
        blunder=float(blunder) if isinstance(blunder, (int, float)) else None,
    )


PERFECT = PlayerKind(
    name="perfect",
    description="plays the exact solver's best move (book first); beatable levels",
    options={
        "level": level_option(LEVELS, "easy, medium, hard (beatable) or perfect", "perfect"),
        "temperature": Option(
            "softmax temperature over the exact scores (0: the best; default the level's)",
            parse_float(0, 100),
        ),
        "blunder": Option(
            "chance of a random legal column instead (default the level's)", parse_float(0, 1)
        ),
        "time": time_option("seconds per move (book, then solver, then search)", 0.001, "1"),
        "seed": seed_option("random seed for ties and levels (defaults to the game's seed)"),
    },
    build=_build_perfect,
    games=("connect4",),
    fingerprint=lambda _: {name: asdict(level) for name, level in LEVELS.items()},
)
