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
solver's own root does (:func:`~connect4.solver.windows.next_window`); for one
question it walks the graph in order (a node's children by their interval, then
centre first: likely-best lines first) down the nodes the question does not yet
decide, and hands the first undecided split positions it meets to the workers, as
many as there are free workers. A node is decided as soon as one child refutes
the question or every child confirms it, so most split positions are never
searched, and those that are, only with the window their parent needs. Bounds
proven are kept (the caller journals them); an exact score answers any window.

With several workers the walk follows the young brothers wait rule of parallel
alpha-beta: a node's other children are handed out only once one of its children
has been answered without deciding it (so it needs them all), never while its
first child is still open (it is likely to decide the node alone). Local workers
search one table in shared memory (:func:`shared_table`), so a task finds what
every earlier task proved, as one worker's would; a task the question no longer
needs (its position decided, or cut off from the question by decided positions)
is stopped by its flag, and the workers get their next tasks before the answers
are journaled. A worker the rule leaves idle **helps** a task under way (the oldest
without a helper): it searches the same windows on the shared table with its own
move order near the root, each search leaving to the other the moves the other is
on (Lazy SMP across processes); the first answer stops the other search, and a
helper makes way as soon as a task of its own is ready.

A task on the shared table that spends :data:`SPLIT_AGAIN_NODES` nodes on its window
without an answer is too large to wait for as one piece: its position is **split
again**, its children (listed by the split's own rules) becoming tasks below it in
the graph, which keeps the bounds it had. The table keeps what the stopped search
proved, the graph keeps every child's bounds across the questions (a table may lose
them), and under the young brothers rule both workers then search inside the
position, not one inside and one beside it.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from connect4.core import bits
from connect4.core.errors import Stopped
from connect4.core.limits import WAIT_SLICE, Limit
from connect4.core.position import Position
from connect4.core.score import score_bounds
from connect4.solver import BookArrays, Solver, solver_for
from connect4.solver.book.jobs import worker_book
from connect4.solver.book.keys import canonical_key
from connect4.solver.layout import new_table, shared_zeros
from connect4.solver.windows import next_window

__all__ = ["Probe", "ProbeResult", "RootSearch", "SplitGraph", "probe_chunk"]

TABLE_MEGABYTES = 16  # each worker's table (kept between its tasks: their bounds hold)
SHARED_MEGABYTES = 64  # the table local workers search together
LOCAL_MEGABYTES = 16  # the table of the positions settled by the rules, solved here
SPLIT_AGAIN_NODES = 1 << 20  # a task's nodes (on a shared table) before its position is split

Expand = Callable[[str], tuple[list[int], dict[int, str]]]
"""A split position's moves to its children's keys (centre first) and their moves."""
Probe = tuple[str, int, "int | None"]
"""A task: a position's moves and the window ``(alpha, beta)`` (``beta`` ``None``: exact)."""
ProbeResult = tuple[int, int, int, int]
"""A task's answer: the position's canonical key, ``lo``, ``hi`` and the nodes searched."""


_shared: dict[int, tuple[NDArray[np.uint64], NDArray[np.uint8]]] = {}  # inherited when forked
_shared_solvers: dict[int, Solver] = {}  # a worker's solver on each shared table
_tokens = itertools.count(1)


@contextlib.contextmanager
def shared_table(width: int, height: int, slots: int) -> Iterator[int]:
    """A table the local worker processes forked while the block runs search together
    (an anonymous shared mapping: what one task proves, every later task finds), and
    two stop flags for each of ``slots`` workers, one a task under way (the search
    above stops a task whose answer it no longer needs, or a helper to make way for
    a task); yields the token :func:`probe_chunk` takes."""
    token = next(_tokens)
    table = new_table(width, height, SHARED_MEGABYTES << 20, shared=True)
    _shared[token] = table, shared_zeros(2 * slots, np.uint8)
    try:
        yield token
    finally:
        del _shared[token]
        solver = _shared_solvers.pop(token, None)  # this process's, when it searched too
        if solver is not None:
            solver.close()


def _shared_solver(token: int, width: int, height: int, book: BookArrays | None) -> Solver:
    solver = _shared_solvers.get(token)
    if solver is None:
        if token not in _shared:
            raise ValueError(f"no shared table {token} in this process (not forked from its maker)")
        solver = Solver(width, height, SHARED_MEGABYTES, book=book, table=_shared[token][0])
        _shared_solvers[token] = solver
    return solver


def probe_chunk(
    width: int,
    height: int,
    probes: Sequence[Probe],
    book: BookArrays | str | None,
    seconds: float | None,
    table: int | None = None,
    slot: int = 0,
    helper: int = 0,
    budget: int | None = None,
) -> list[ProbeResult]:
    """Search each probe's window (in worker processes: a picklable module-level
    function); ``book`` is probed inside (a spec is loaded once per worker), on the
    shared table ``table`` (a token of :func:`shared_table`, whose flag ``slot`` stops
    the task; as ``helper`` k > 0 of a task searching the same windows there) or else
    on the worker's own; a null window stops after ``budget`` nodes (``None``: never).
    Each answer is the interval the search
    proved; a probe stopped (by ``seconds``, ``None``: no deadline, or its flag)
    answers the whole range of scores with the nodes it searched, and ends the task."""
    probed = worker_book(book, width, height) if isinstance(book, str) else book
    limit = Limit.within(seconds)
    if table is None:
        solver = solver_for(
            width, height, tt_megabytes=TABLE_MEGABYTES, book=probed, reuse_table=True
        )
    else:
        solver = _shared_solver(table, width, height, probed)
        limit = replace(limit, flag=_shared[table][1][slot : slot + 1])
    answers: list[ProbeResult] = []
    for moves, alpha, beta in probes:
        position = Position.from_moves(moves, width, height)
        low, high = score_bounds(position.size, position.ply)
        key = canonical_key(position)
        if beta is None:
            result = solver.run(position, limit=limit)
            value, nodes = result.score, result.nodes
            lo = hi = low if value is None else value
        else:
            within = limit if budget is None else limit.capped(budget)
            probe = solver.probe(position, alpha, beta, limit=within, helper=helper)
            value, nodes = probe.value, probe.nodes
            lo = value if value is not None and value > alpha else low  # fail low: upper bound
            hi = value if value is not None and value < beta else high  # fail high: lower bound
        if value is None:  # stopped: nothing proven
            answers.append((key, low, high, nodes))
            break
        answers.append((key, max(lo, low), min(hi, high), nodes))
    return answers


@dataclass
class SplitGraph:
    """The positions above a split: ``inner`` ones (``{key: moves}``) with their
    ``children`` (keys, centre first), the split positions (``tasks``) and those the
    rules settle (``settled``); ``grown``: the positions below the split that split
    positions too large for one task were split into (their children)."""

    width: int
    height: int
    inner: dict[int, str]
    children: dict[int, list[int]]
    tasks: dict[int, str]
    settled: dict[int, str]
    grown: dict[int, str] = field(default_factory=dict)

    def moves(self, key: int) -> str:
        """The moves of the position ``key`` (inner, split, settled or grown)."""
        for nodes in (self.inner, self.tasks, self.settled, self.grown):
            if key in nodes:
                return nodes[key]
        raise KeyError(key)


class Intervals:
    """Every node's ``[lo, hi]``, kept consistent as the split positions' tighten."""

    def __init__(self, graph: SplitGraph, known: dict[int, tuple[int, int]]) -> None:
        self.graph = graph
        size = graph.width * graph.height
        self.lo: dict[int, int] = {}
        self.hi: dict[int, int] = {}
        self.parents: dict[int, list[int]] = defaultdict(list)
        self.known = known
        self.own: dict[int, tuple[int, int]] = {}  # a position split again: its bounds before
        for key, kids in graph.children.items():
            for kid in kids:
                self.parents[kid].append(key)
        at_ply = {ply: score_bounds(size, ply) for ply in range(size + 1)}
        lo, hi = self.lo, self.hi
        for nodes in (graph.tasks, graph.settled):
            for key, moves in nodes.items():
                lo[key], hi[key] = known.get(key) or at_ply[len(moves)]
        for key in sorted(graph.inner, key=lambda k: -len(graph.inner[k])):  # deepest first
            lo[key], hi[key] = self._derived(key)

    def _derived(self, key: int) -> tuple[int, int]:
        """Negamax over the children: ``lo = max(-hi(child))``, ``hi = max(-lo(child))``."""
        kids = self.graph.children[key]
        lo, hi = -min(map(self.hi.__getitem__, kids)), -min(map(self.lo.__getitem__, kids))
        own = self.own.get(key)
        return (lo, hi) if own is None else (max(lo, own[0]), min(hi, own[1]))

    def tighten(self, key: int, lo: int, hi: int) -> None:
        """Narrow ``key``'s interval to ``[lo, hi]`` and its ancestors' with it."""
        new_lo, new_hi = max(self.lo[key], lo), min(self.hi[key], hi)
        if new_lo > new_hi:
            raise AssertionError(f"contradicting bounds for position {key}: {lo}..{hi}")
        if (new_lo, new_hi) == (self.lo[key], self.hi[key]):
            return
        self.lo[key], self.hi[key] = new_lo, new_hi
        if key in self.own:
            self.own[key] = new_lo, new_hi
        stack = list(self.parents.get(key, ()))
        while stack:
            parent = stack.pop()
            derived = self._derived(parent)
            if derived != (self.lo[parent], self.hi[parent]):
                self.lo[parent], self.hi[parent] = derived
                stack.extend(self.parents.get(parent, ()))

    def grow(self, key: int, kids: list[int], moves: dict[int, str]) -> None:
        """Make the split position ``key`` an inner one over ``kids`` (their ``moves``),
        keeping the bounds it has; a child's bounds are those journaled, if any."""
        graph = self.graph
        size = graph.width * graph.height
        for kid in kids:
            if kid not in self.lo:
                graph.grown[kid] = moves[kid]
                self.lo[kid], self.hi[kid] = self.known.get(kid) or score_bounds(
                    size, len(moves[kid])
                )
            self.parents[kid].append(key)
        graph.inner[key] = graph.moves(key)
        graph.children[key] = kids
        self.own[key] = self.lo[key], self.hi[key]
        self.tighten(key, *self._derived(key))

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
    table: int | None = None
    local_nodes: int = 0
    busy: dict[Future[list[ProbeResult]], list[int]] = field(default_factory=dict)
    busy_keys: Counter[int] = field(default_factory=Counter)
    sent: dict[Future[list[ProbeResult]], list[tuple[int, Probe]]] = field(default_factory=dict)
    helpers: dict[Future[list[ProbeResult]], Future[list[ProbeResult]]] = field(
        default_factory=dict
    )  # a helper task's future: the future of the task it helps
    slot_of: dict[Future[list[ProbeResult]], int] = field(default_factory=dict)
    stopping: set[Future[list[ProbeResult]]] = field(default_factory=set)
    question: tuple[int, int] = (0, 0)
    expand: Expand | None = None  # split a position again when its task is too large
    budget_of: dict[Future[list[ProbeResult]], int | None] = field(default_factory=dict)
    whole: set[int] = field(default_factory=set)  # positions with no children to split into
    split_again: int = 0
    stopped: int = 0
    settles: int = 0  # positions settled by the rules, solved here
    _local: Solver | None = None

    def score(self, key: int) -> int:
        """The exact score of the node ``key``, by the questions the solver's root asks
        (:func:`~connect4.solver.windows.next_window`: two of the halving's, then 0, then
        each next to the bound the last answer left)."""
        iv = self.intervals
        tests, walking, alpha, bound = 0, False, 0, 0
        while iv.lo[key] < iv.hi[key]:
            alpha, walking = next_window(
                iv.lo[key], iv.hi[key], tests, 0, False, walking, alpha, bound
            )
            self.answer(key, alpha)
            tests += 1
            bound = iv.hi[key] if iv.hi[key] <= alpha else iv.lo[key]
        return iv.lo[key]

    def answer(self, key: int, alpha: int) -> None:
        """Search until ``key``'s interval answers "is the score above ``alpha``?"."""
        self.question = key, alpha
        again = True  # whether another hand-out may find work the last one did not
        while not self.intervals.decided(key, alpha):
            if again:
                again = self._dispatch()
                if self.intervals.decided(key, alpha):
                    break
            if not self.busy:
                raise AssertionError("an undecided question with nothing left to search")
            again = self._wait()

    def _dispatch(self) -> bool:
        """Stop the tasks the question no longer needs and hand its next undecided split
        positions to the free workers; True when positions settled by the rules on the
        way changed the intervals (another hand-out may then find more), False when a
        second one would hand out nothing new."""
        key, alpha = self.question
        settles = self.settles
        self._stop_unneeded()
        helping = [f for f in self.helpers if f not in self.stopping]
        free = self.slots - len(self.busy) + len(helping)
        if free > 0 and not self.intervals.decided(key, alpha):
            found: list[tuple[int, Probe]] = []
            self._collect(key, alpha, found, set(), free * self.chunk)
            for start in range(0, len(found), self.chunk):
                if len(self.busy) - len(self.stopping) >= self.slots and helping:
                    self._stop(helping.pop())  # a task of its own for the helper's worker
                self._submit(found[start : start + self.chunk])
        if self.table is not None:
            self._help()
        return self.settles != settles

    def _help(self) -> None:
        """Hand each idle worker a task under way that has no helper yet (the oldest
        first: likely the largest), to search with it on the shared table."""
        helped = set(self.helpers.values())
        for future in list(self.busy):
            if (
                len(self.busy) - len(self.stopping) >= self.slots
                or len(self.busy) >= 2 * self.slots
            ):
                return  # every worker busy, or every stop flag taken
            if future in self.helpers or future in helped or future in self.stopping:
                continue
            self.helpers[self._submit(self.sent[future], helper=1)] = future

    def _collect(
        self, key: int, alpha: int, found: list[tuple[int, Probe]], seen: set[int], want: int
    ) -> None:
        """The first undecided split positions under ``key`` for the question, in order
        (a node's younger children only once one child is answered)."""
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
                found.append((key, (graph.moves(key), alpha, alpha + 1)))
            return
        ordered = sorted(kids, key=lambda k: iv.lo[k] + iv.hi[k])  # stable: centre first
        answered = any(iv.decided(kid, -alpha - 1) for kid in ordered)
        for kid in ordered:
            if len(found) >= want or iv.decided(key, alpha):
                return
            if iv.decided(kid, -alpha - 1):
                continue
            self._collect(kid, -alpha - 1, found, seen, want)
            if not answered:
                return  # the younger children wait until one child is answered

    def _settle(self, key: int) -> None:
        """Solve a position the rules settle, here (a few nodes)."""
        graph = self.graph
        score = self._solved(Position.from_moves(graph.settled[key], graph.width, graph.height))
        self.intervals.tighten(key, score, score)
        self.settles += 1

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

    def _submit(
        self, probes: list[tuple[int, Probe]], helper: int = 0
    ) -> Future[list[ProbeResult]]:
        seconds = self.limit.remaining()
        windows = [probe for _, probe in probes]
        budget = None
        whole = any(key in self.whole for key, _ in probes)
        if self.expand is not None and self.table is not None and not helper and not whole:
            budget = SPLIT_AGAIN_NODES
        slot = 0
        if self.table is not None:  # a stop flag of its own, clear
            slot = min(set(range(2 * self.slots)) - set(self.slot_of.values()))
            _shared[self.table][1][slot] = 0
        future = self.pool.submit(
            probe_chunk, self.graph.width, self.graph.height, windows, self.book, seconds,
            self.table, slot, helper, budget,
        )  # fmt: skip
        self.budget_of[future] = budget
        self.slot_of[future] = slot
        self.sent[future] = probes
        self.busy[future] = [key for key, _ in probes]
        self.busy_keys.update(self.busy[future])
        return future

    def _stop(self, future: Future[list[ProbeResult]]) -> None:
        """Stop a task under way on the shared table (its answer is not wanted)."""
        assert self.table is not None
        _shared[self.table][1][self.slot_of[future]] = 1
        self.stopping.add(future)
        self.stopped += 1

    def _wait(self) -> bool:
        """Take in the tasks that finish in the next moment and hand out the next ones
        (True: as :meth:`_dispatch`, or nothing finished); a stop: :class:`StopSearch`."""
        if self.limit.expired():
            raise StopSearch
        done, _ = wait(list(self.busy), WAIT_SLICE, return_when=FIRST_COMPLETED)
        if not done:
            return True  # nothing new: the caller hands out as before
        arrived: list[list[ProbeResult]] = []
        complete = True
        again = True
        for future in done:
            keys = self.busy.pop(future)
            del self.slot_of[future], self.sent[future]
            budget = self.budget_of.pop(future)
            self.helpers.pop(future, None)
            stopped_here = future in self.stopping
            self.stopping.discard(future)
            self.busy_keys.subtract(keys)
            self.busy_keys = +self.busy_keys  # the keys no task searches any more go
            answers = future.result()
            for key, lo, hi, _ in answers:
                self.intervals.tighten(key, lo, hi)
            arrived.append(answers)
            finished = len(answers) == len(keys) and not any(map(self._unproven, answers))
            if not finished and not stopped_here and budget is not None and answers:
                key, _, _, nodes = answers[-1]
                if self._unproven(answers[-1]) and nodes >= budget:
                    self._split(key)
                    finished = True  # too large: its children are the tasks now
            complete = complete and (finished or stopped_here)
        if complete:
            again = self._dispatch()  # the next tasks first: the journal's writes wait
        for answers in arrived:
            if not self.record(answers):
                raise StopSearch  # a stop asked for
        if not complete:
            raise StopSearch  # the deadline ended a task
        return again

    def _split(self, key: int) -> None:
        """Split a position whose task spent its budget into its children (or, with none
        to split into, search it whole next time)."""
        assert self.expand is not None
        graph = self.graph
        if key in graph.children or (key not in graph.tasks and key not in graph.grown):
            return
        kids, below = self.expand(graph.moves(key))
        if not kids:
            self.whole.add(key)
            return
        self.intervals.grow(key, kids, below)
        self.split_again += 1

    def split_bounds(self) -> list[ProbeResult]:
        """What the positions split again are known to score, from their children's
        answers (no nodes of their own), to journal: a later run then knows them without
        a task."""
        iv = self.intervals
        answers = [(key, iv.lo[key], iv.hi[key], 0) for key in iv.own]
        return [answer for answer in answers if not self._unproven(answer)]

    def _unproven(self, answer: ProbeResult) -> bool:
        """Whether a task's answer is a stopped search's (the whole range of scores)."""
        key, lo, hi, _ = answer
        size = self.graph.width * self.graph.height
        return (lo, hi) == score_bounds(size, len(self.graph.moves(key)))

    def _stop_unneeded(self) -> None:
        """Stop the tasks under way (on a shared table) that the question no longer needs."""
        if self.table is None:
            return
        for future, keys in self.busy.items():
            if future not in self.stopping and not any(map(self._needed, keys)):
                self._stop(future)

    def _needed(self, key: int) -> bool:
        """Whether the question's answer may still depend on the position ``key``: a path
        of undecided positions leads from the question's position down to it."""
        top, alpha = self.question
        top_ply, iv = len(self.graph.moves(top)), self.intervals
        stack, seen = [key], set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            even = (len(self.graph.moves(node)) - top_ply) % 2 == 0
            if iv.decided(node, alpha if even else -alpha - 1):
                continue
            if node == top:
                return True
            stack.extend(iv.parents.get(node, ()))
        return False

    def cancel(self) -> None:
        """Cancel the tasks not started."""
        for future in self.busy:
            future.cancel()

    def close(self) -> None:
        """Stop the tasks still under way (on a shared table: their answers are not
        wanted any more) and free this search's own solver."""
        if self.table is not None:
            for future in self.busy:
                _shared[self.table][1][self.slot_of[future]] = 1
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
