"""The search above a split: null-window tests whose questions reach the split
positions as bounded tasks.

The positions between the root and the split form a graph (transpositions and
mirror images merged); every node keeps an interval ``[lo, hi]`` its score is
known to lie in. A split position's interval comes from its tasks (a null-window
task "is this position above ``alpha``?" answers with a bound, a full-window task
with the exact score), a position settled by the rules is solved here at once
(the solver's static rules settle it in a few nodes), and an inner node's interval
follows from its children's (negamax: ``lo = max(-hi(child))``, ``hi = max(-lo(child))``),
updated along the parents whenever a child's tightens.

To find a node's score, :class:`RootSearch` asks null-window questions as the
solver's own narrowing does (:func:`~connect4.solver.narrow.next_test`); for one
question it walks the graph in order (a node's children by their interval, then
centre first: likely-best lines first) down the nodes the question does not yet
decide, and hands the first undecided split positions it meets to the workers, as
many as there are free workers. A node is decided as soon as one child refutes
the question or every child confirms it, so most split positions are never
searched, and those that are, only with the window their parent needs. Bounds
proven are kept (the caller journals them); an exact score answers any window.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field

from connect4.core import bits
from connect4.core.errors import Stopped
from connect4.core.limits import WAIT_SLICE, Limit
from connect4.core.position import Position
from connect4.core.score import score_bounds
from connect4.solver import BookArrays, Solver, solver_for
from connect4.solver.book.jobs import worker_book
from connect4.solver.book.keys import canonical_key
from connect4.solver.narrow import next_test

__all__ = ["Probe", "ProbeResult", "RootSearch", "SplitGraph", "probe_chunk"]

TABLE_MEGABYTES = 16  # each worker's table (kept between its tasks: their bounds hold)
LOCAL_MEGABYTES = 16  # the table of the positions settled by the rules, solved here

Probe = tuple[str, int, "int | None"]
"""A task: a position's moves and the window ``(alpha, beta)`` (``beta`` ``None``: exact)."""
ProbeResult = tuple[int, int, int, int]
"""A task's answer: the position's canonical key, ``lo``, ``hi`` and the nodes searched."""


def probe_chunk(
    width: int,
    height: int,
    probes: Sequence[Probe],
    book: BookArrays | str | None,
    seconds: float | None,
) -> list[ProbeResult]:
    """Search each probe's window (in worker processes: a picklable module-level
    function); ``book`` is probed inside (a spec is loaded once per worker). Each
    answer is the interval the search proved; within ``seconds`` (``None``: no
    deadline), those not finished in time are left out."""
    probed = worker_book(book, width, height) if isinstance(book, str) else book
    solver = solver_for(
        width, height, tt_megabytes=TABLE_MEGABYTES, book=probed, reuse_table=True, etc=False
    )
    limit = Limit.within(seconds)
    answers: list[ProbeResult] = []
    for moves, alpha, beta in probes:
        position = Position.from_moves(moves, width, height)
        low, high = score_bounds(position.size, position.ply)
        if beta is None:
            result = solver.run(position, limit=limit)
            if result.score is None:
                break
            lo = hi = result.score
            nodes = result.nodes
        else:
            probe = solver.probe(position, alpha, beta, limit=limit)
            if probe.value is None:
                break
            value, nodes = probe.value, probe.nodes
            lo = value if value > alpha else low  # fail low: an upper bound
            hi = value if value < beta else high  # fail high: a lower bound
        answers.append((canonical_key(position), max(lo, low), min(hi, high), nodes))
    return answers


@dataclass
class SplitGraph:
    """The positions above a split: ``inner`` ones (``{key: moves}``) with their
    ``children`` (keys, centre first), the split positions (``tasks``) and those the
    rules settle (``settled``)."""

    width: int
    height: int
    inner: dict[int, str]
    children: dict[int, list[int]]
    tasks: dict[int, str]
    settled: dict[int, str]


class Intervals:
    """Every node's ``[lo, hi]``, kept consistent as the split positions' tighten."""

    def __init__(self, graph: SplitGraph, known: dict[int, tuple[int, int]]) -> None:
        self.graph = graph
        size = graph.width * graph.height
        self.lo: dict[int, int] = {}
        self.hi: dict[int, int] = {}
        self.parents: dict[int, list[int]] = defaultdict(list)
        for key, kids in graph.children.items():
            for kid in kids:
                self.parents[kid].append(key)
        for nodes in (graph.tasks, graph.settled):
            for key, moves in nodes.items():
                self.lo[key], self.hi[key] = known.get(key) or score_bounds(size, len(moves))
        for key in sorted(graph.inner, key=lambda k: -len(graph.inner[k])):  # deepest first
            self.lo[key], self.hi[key] = self._derived(key)

    def _derived(self, key: int) -> tuple[int, int]:
        kids = self.graph.children[key]
        return max(-self.hi[kid] for kid in kids), max(-self.lo[kid] for kid in kids)

    def tighten(self, key: int, lo: int, hi: int) -> None:
        """Narrow ``key``'s interval to ``[lo, hi]`` and its ancestors' with it."""
        new_lo, new_hi = max(self.lo[key], lo), min(self.hi[key], hi)
        if new_lo > new_hi:
            raise AssertionError(f"contradicting bounds for position {key}: {lo}..{hi}")
        if (new_lo, new_hi) == (self.lo[key], self.hi[key]):
            return
        self.lo[key], self.hi[key] = new_lo, new_hi
        stack = list(self.parents.get(key, ()))
        while stack:
            parent = stack.pop()
            derived = self._derived(parent)
            if derived != (self.lo[parent], self.hi[parent]):
                self.lo[parent], self.hi[parent] = derived
                stack.extend(self.parents.get(parent, ()))

    def decided(self, key: int, alpha: int) -> bool:
        """Whether ``key``'s interval answers "is the score above ``alpha``?"."""
        return self.lo[key] > alpha or self.hi[key] <= alpha


@dataclass
class RootSearch:
    """Scores of nodes above the split, by null-window questions whose split positions
    run as tasks on ``pool`` (at most ``slots`` chunks of ``chunk`` under way).

    ``record(answers)`` hears every task's answers as they arrive (to journal them)
    and returns False to stop; ``limit`` stops the search (its deadline is handed to
    the tasks as the seconds left). A stop raises :class:`StopSearch`."""

    graph: SplitGraph
    intervals: Intervals
    pool: Executor
    slots: int
    chunk: int
    book: str | None
    record: Callable[[list[ProbeResult]], bool]
    limit: Limit = field(default_factory=Limit)
    local_nodes: int = 0
    busy: dict[Future[list[ProbeResult]], list[int]] = field(default_factory=dict)
    busy_keys: set[int] = field(default_factory=set)
    _local: Solver | None = None

    def score(self, key: int) -> int:
        """The exact score of the node ``key``."""
        iv = self.intervals
        while iv.lo[key] < iv.hi[key]:
            self.answer(key, next_test(iv.lo[key], iv.hi[key]))
        return iv.lo[key]

    def answer(self, key: int, alpha: int) -> None:
        """Search until ``key``'s interval answers "is the score above ``alpha``?"."""
        while not self.intervals.decided(key, alpha):
            free = self.slots - len(self.busy)
            if free > 0:
                found: list[tuple[int, Probe]] = []
                self._collect(key, alpha, found, set(), free * self.chunk)
                for start in range(0, len(found), self.chunk):
                    self._submit(found[start : start + self.chunk])
            if self.intervals.decided(key, alpha):
                break
            if not self.busy:
                raise AssertionError("an undecided question with nothing left to search")
            self._wait()

    def _collect(
        self, key: int, alpha: int, found: list[tuple[int, Probe]], seen: set[int], want: int
    ) -> None:
        """The first undecided split positions under ``key`` for the question, in order."""
        if len(found) >= want or key in seen or self.intervals.decided(key, alpha):
            return
        seen.add(key)
        graph, iv = self.graph, self.intervals
        if key in graph.settled:
            self._settle(key)
            return
        kids = graph.children.get(key)
        if kids is None:
            if key not in self.busy_keys:
                found.append((key, (graph.tasks[key], alpha, alpha + 1)))
            return
        for kid in sorted(kids, key=lambda k: iv.lo[k] + iv.hi[k]):  # stable: centre first
            if len(found) >= want or iv.decided(key, alpha):
                return
            self._collect(kid, -alpha - 1, found, seen, want)

    def _settle(self, key: int) -> None:
        """Solve a position the rules settle, here (a few nodes)."""
        graph = self.graph
        score = self._solved(Position.from_moves(graph.settled[key], graph.width, graph.height))
        self.intervals.tighten(key, score, score)

    def solve_here(self, root: Position, column: int) -> int:
        """The score of playing ``column`` at ``root`` when the child is none of the
        graph's (it loses at once): solved here, a few nodes."""
        child = root.copy()
        child.play(column)
        return -self._solved(child)

    def _solved(self, position: Position) -> int:
        if self._local is None:
            self._local = Solver(self.graph.width, self.graph.height, LOCAL_MEGABYTES)
        result = self._local.run(position, limit=self.limit)
        if result.score is None:
            raise StopSearch
        self.local_nodes += result.nodes
        return result.score

    def _submit(self, probes: list[tuple[int, Probe]]) -> None:
        seconds = self.limit.remaining()
        windows = [probe for _, probe in probes]
        future = self.pool.submit(
            probe_chunk, self.graph.width, self.graph.height, windows, self.book, seconds
        )
        self.busy[future] = [key for key, _ in probes]
        self.busy_keys.update(self.busy[future])

    def _wait(self) -> None:
        """Take in the tasks that finish in the next moment (a stop: :class:`StopSearch`)."""
        if self.limit.expired():
            raise StopSearch
        done, _ = wait(list(self.busy), WAIT_SLICE, return_when=FIRST_COMPLETED)
        for future in done:
            keys = self.busy.pop(future)
            self.busy_keys.difference_update(keys)
            answers = future.result()
            for key, lo, hi, _ in answers:
                self.intervals.tighten(key, lo, hi)
            if not self.record(answers) or len(answers) < len(keys):
                raise StopSearch  # a stop asked for, or the deadline ended a task

    def cancel(self) -> None:
        """Cancel the tasks not started."""
        for future in self.busy:
            future.cancel()

    def close(self) -> None:
        if self._local is not None:
            self._local.close()
            self._local = None


class StopSearch(Stopped):
    """A limit, a stop asked for, or a deadline ended the search above the split."""


def column_key(root: Position, column: int) -> int:
    """The canonical key of ``root`` after ``column``."""
    child = root.copy()
    child.play(column)
    return bits.canonical_key(child.current + child.mask, root.width, root.height)
