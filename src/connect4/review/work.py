"""A Connect Four game's exact scores as independent solves, for one thread or many.

A review needs every move's exact score in every position of the game. Done
position by position (:func:`connect4.review.values.exact_scores`), the solver
spends nearly all its time in a few positions just past the opening book
(on 7x6: 12 to 15 stones), whose moves lead where the book does not reach.
:class:`GameScores` cuts that work three ways:

- **The move played is not solved.** Its score is minus the best score of the
  next position, which the review solves anyway (the last move of an
  unfinished game is the exception).
- **The book bounds the rest.** A move that leaves ``book plies + 1`` stones
  reaches a position whose every predecessor (that position with one of the
  mover's top stones lifted) is in the book; each predecessor's score caps
  the move's score, and the lowest cap usually is the score: one null-window
  search proves it (:meth:`connect4.solver.Solver.run` with ``lower``).
- **Each move is its own task** (:class:`MoveTask`), so several threads (the
  web server's worker lane) can share one review, the dearest tasks first.

Every score is still exact: nothing is guessed, a bound only skips searches
whose answer it already gives.

>>> from connect4 import Position
>>> from connect4.review.values import clear_cache
>>> clear_cache()  # nothing solved before
>>> work = GameScores(Position(), [3, 3, 4, 4])
>>> len(work.tasks), sum(1 for t in work.tasks if t.index == 0)  # 4 x 6 moves + the last one
(25, 6)
>>> results = {task.key: work.solve(task) for task in work.tasks}
>>> [s.scores for s in work.move_scores(results)][3]
(-18, -18, 2, -18, -18, 2, -18)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from connect4.core.bits import canonical_key
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import win_score
from connect4.review.values import MoveScores, cached_scores, remember_scores, review_solver

__all__ = ["GameScores", "MoveTask", "book_bound", "score_game"]

TaskKey = tuple[int, int]
"""``(index, column)``: a move of the position after ``index`` plies."""


@dataclass(frozen=True)
class MoveTask:
    """One move whose exact score a review needs: ``column`` (0-based) in the
    position after ``index`` plies; ``at_most`` is a proven upper bound on its
    score (mover's view) from the opening book, or ``None``."""

    index: int
    column: int
    at_most: int | None

    @property
    def key(self) -> TaskKey:
        return (self.index, self.column)


def book_bound(child: Position, book: object | None) -> int | None:
    """The lowest score the book allows for ``child``'s side to move, or ``None``.

    Each predecessor of ``child`` (a top stone of the player who just moved
    lifted off) that the book holds scores at least minus ``child``'s score,
    since moving back onto that cell is one of its moves. ``book`` is a
    :class:`connect4.solver.book.Book` (``lookup_key``; anything else: no bound).

    >>> from connect4.solver.book import load_book
    >>> from connect4.solver import Solver
    >>> child = Position.from_moves("7457567716322")  # 13 stones: past the 7x6 book
    >>> book_bound(child, load_book("default", 7, 6)), Solver().solve(child)
    (-3, -3)
    """
    lookup = getattr(book, "lookup_key", None)
    if lookup is None:
        return None
    width, height = child.width, child.height
    h1 = height + 1
    mover = child.mask ^ child.current  # the stones of the player who just moved
    column_bits = (1 << h1) - 1
    bound: int | None = None
    for column in range(width):
        stones = (child.mask >> (column * h1)) & column_bits
        if not stones:
            continue
        top = 1 << (column * h1 + stones.bit_length() - 1)
        if not mover & top:
            continue
        before_mask = child.mask ^ top
        before_current = mover ^ top  # that player was to move
        score = lookup(canonical_key(before_current + before_mask, width, height))
        if score is not None and (bound is None or -score > bound):
            bound = -int(score)
    return bound


class GameScores:
    """The exact scores a review of ``history`` (0-based columns, played from
    ``start``) needs, as :class:`MoveTask` solves.

    ``tasks`` are ordered from the last position back to the first (one thread
    solving them in turn reuses its table best, and a limit that runs out leaves
    the earliest positions unsolved, not scattered ones); :meth:`dearest_first`
    orders them for several threads. :meth:`solve` runs one task in the
    calling thread; :meth:`move_scores` assembles the results. Positions whose
    scores were cached earlier need no task. ``nodes`` is each solve's node budget
    (a review's limit's; ``None``: none).
    """

    def __init__(self, start: Position, history: list[int], *, nodes: int | None = None):
        self.history = list(history)
        self.nodes = nodes
        board = start.copy()
        self.positions: list[Position] = []
        for move in self.history:
            self.positions.append(board.copy())
            board.play(move)
        self.end = board
        self.cached: dict[int, MoveScores] = {}
        for index, position in enumerate(self.positions):
            found = cached_scores(position, nodes)
            if found is not None:
                self.cached[index] = found
        from connect4.solver import DEFAULT_BOOK
        from connect4.solver.book import load_book

        self.book = load_book(DEFAULT_BOOK, start.width, start.height, exact=True)  # the solver's
        self.book_plies = int(getattr(self.book, "plies", 0))
        self.tasks: list[MoveTask] = []
        last = len(self.positions) - 1
        for index in range(last, -1, -1):
            if index in self.cached:
                continue
            position = self.positions[index]
            for column in position.legal_moves():
                if column == self.history[index] and index < last and self._derivable(index):
                    continue  # minus the next position's value
                self.tasks.append(MoveTask(index, column, self._cap(position, column)))

    def _derivable(self, index: int) -> bool:
        """True when the move played at ``index`` gets its score from the next position."""
        return not self.positions[index].is_winning_move(self.history[index])

    def _cap(self, position: Position, column: int) -> int | None:
        if position.ply + 1 != self.book_plies + 1 or position.is_winning_move(column):
            return None
        child = position.copy()
        child.play(column)
        bound = book_bound(child, self.book)
        return None if bound is None else -bound

    def dearest_first(self) -> list[MoveTask]:
        """The tasks, those likely to cost most first (moves leading just past the
        book, then fewer stones before more), so threads finish close together."""

        def cost_rank(task: MoveTask) -> tuple[int, int]:
            stones = self.positions[task.index].ply + 1
            return (stones <= self.book_plies, stones)

        return sorted(self.tasks, key=cost_rank)

    def solve(self, task: MoveTask, limit: Limit | None = None) -> int | None:
        """The exact score of one task's move, mover's view (``None``: not settled within
        the node budget or before ``limit`` expired, or no solver installed)."""
        position = self.positions[task.index]
        if position.is_winning_move(task.column):
            return win_score(position.size, position.ply)
        child = position.copy()
        child.play(task.column)
        if child.is_over():  # the board is full: a draw
            return 0
        solver = review_solver(position.width, position.height, reuse_table=True)
        lower = None if task.at_most is None else -task.at_most
        budget = Limit(nodes=self.nodes) if limit is None else limit.capped(self.nodes)
        result = solver.run(child, lower=lower, limit=budget)
        return None if result.score is None else -result.score

    def drain(
        self,
        queue: deque[MoveTask],
        results: dict[TaskKey, int | None],
        limit: Limit | None = None,
    ) -> None:
        """Solve tasks taken from the left of ``queue`` into ``results`` until it is
        empty: several threads may drain one queue, each with its own table. Once
        ``limit`` has expired (its deadline, its stop flag or a parent's), the task in
        hand goes back to the queue (for another drainer to take) and this one
        returns: a task without a result counts as not settled."""
        while True:
            try:
                task = queue.popleft()
            except IndexError:
                return
            if limit is not None and limit.expired():
                queue.appendleft(task)
                return
            score = self.solve(task, limit)
            if score is None and limit is not None and limit.expired():
                queue.appendleft(task)
                return
            results[task.key] = score

    def drainer(
        self, queue: deque[MoveTask], results: dict[TaskKey, int | None]
    ) -> Callable[[Limit], None]:
        """:meth:`drain` of ``queue`` under a caller's limit, as one call (a lane's job)."""
        return lambda limit: self.drain(queue, results, limit)

    def move_scores(self, results: Mapping[TaskKey, int | None]) -> list[MoveScores]:
        """Every position's :class:`MoveScores` from the tasks' ``results`` (a task
        missing from them counts as not settled); complete ones are cached."""
        out: list[MoveScores] = [MoveScores((), False)] * len(self.positions)
        for index in range(len(self.positions) - 1, -1, -1):
            if index in self.cached:
                out[index] = self.cached[index]
                continue
            position = self.positions[index]
            scores: list[int | None] = [None] * position.width
            for column in position.legal_moves():
                if (index, column) in results:
                    scores[column] = results[(index, column)]
                elif column == self.history[index] and index + 1 < len(out):
                    scores[column] = _minus_best(out[index + 1])
            legal = position.legal_moves()
            judged = MoveScores(tuple(scores), all(scores[c] is not None for c in legal))
            if judged.complete:
                remember_scores(position, self.nodes, judged)
            out[index] = judged
        return out

    def missing(self, results: Mapping[TaskKey, int | None]) -> list[MoveTask]:
        """Played moves whose score could not come from the next position (not
        settled there): solved directly when there is time left."""
        scores = self.move_scores(results)
        tasks = []
        for index in range(len(self.positions) - 1):
            column = self.history[index]
            unsettled = scores[index].scores[column] is None
            if unsettled and (index, column) not in results and index not in self.cached:
                tasks.append(MoveTask(index, column, None))
        return tasks


def _minus_best(scores: MoveScores) -> int | None:
    known = [s for s in scores.scores if s is not None]
    return -max(known) if scores.complete and known else None


def score_game(
    start: Position,
    history: list[int],
    *,
    limit: Limit | None = None,
) -> list[MoveScores]:
    """Every position's move scores for a review, solved in this thread within
    ``limit``: its node budget caps each solve, its deadline and stop flag all of
    them (a task left when it expired stays unsettled).

    >>> [s.complete for s in score_game(Position(), [3, 3])]
    [True, True]
    """
    work = GameScores(start, history, nodes=None if limit is None else limit.nodes)
    if work.tasks:
        # One table for the whole game, cleared first: consecutive positions share most
        # of their trees, and the time a review takes does not depend on what the thread
        # solved before.
        review_solver(start.width, start.height, reuse_table=True).clear_table()
    results: dict[TaskKey, int | None] = {}
    work.drain(deque(work.tasks), results, limit)
    work.drain(deque(work.missing(results)), results, limit)
    return work.move_scores(results)
