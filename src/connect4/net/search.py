"""PUCT: the AlphaZero tree search, guided by the network's priors and values.

Each playout walks down from the root choosing, at every node, the column
that maximises ``Q + c * P * sqrt(N) / (1 + n)``: ``Q`` the mean value of
the column so far (from the mover's view), ``P`` the network's prior for it,
``n`` its visits and ``N`` the node's. An unvisited column counts as the
node's own value less a small reduction (first-play urgency). A playout ends
at a position the network has not seen (evaluated, then expanded with its
priors) or at a game end (a win, a full board: exact values). Values go back
up the path, negated at each ply.

Leaves are evaluated in batches: a playout's path carries a virtual loss so
the next playouts of the batch spread out, and one forward pass evaluates
them all. The search stops after its playouts, its seconds or when the
caller's :class:`~connect4.core.limits.Limit` expires, and answers the most
visited column.

A :class:`Puct` keeps its tree between searches: when the next position
follows from the last one (the moves played since are in the tree), that
subtree is the new root and its visits count with the new playouts.

Each playout adds at most one node, about 0.8 KB of Python objects, so a tree
holds at most ``max_tree_nodes`` (:data:`MAX_NODES`, 524,288, about 450 MB, by
default): the search stops when a playout would add a node past it, and its
result says ``tree_full``.

>>> from connect4 import Position
>>> from connect4.net.model import Network
>>> net = Network.random(7, 6, channels=8, blocks=1, seed=1)
>>> result = Puct(net).search(Position.from_moves("112233"), playouts=200)
>>> result.move, result.playouts  # column 4 wins at once
(3, 200)
>>> search = Puct(net)
>>> first = search.search(Position.from_moves("4455"), playouts=300)
>>> later = search.search(Position.from_moves("445566"), playouts=10)
>>> later.reused > 0, sum(c.visits for c in later.columns) == later.reused + 10
(True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from connect4.core.errors import BudgetExceeded
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.net.model import Network, game_planes

DEFAULT_C = 1.5
"""The exploration constant ``c``."""
FPU_REDUCTION = 0.2  # an unvisited column's value: the node's less this
DEFAULT_BATCH = 8  # leaves evaluated per forward pass
MAX_NODES = 1 << 19
"""The most nodes a tree holds (about 450 MB); a full tree stops the search."""


class Node:
    """A position in the tree: the network's priors and value, and per-column visit
    counts and value sums (from the side to move's view)."""

    __slots__ = ("children", "legal", "prior", "terminal", "value", "visits", "wins")

    def __init__(self) -> None:
        self.prior: list[float] = []
        self.legal: list[int] = []
        self.visits: list[int] = []
        self.wins: list[float] = []  # value sums
        self.children: list[Node | None] = []
        self.value = 0.0  # the network's value, or the exact one of a game end
        self.terminal = False

    def expand(self, prior: np.ndarray, value: float, legal: list[int]) -> None:
        """Fill in the network's answer for this position."""
        self.legal = legal
        self.prior = [float(prior[c]) for c in legal]
        self.visits = [0] * len(legal)
        self.wins = [0.0] * len(legal)
        self.children = [None] * len(legal)
        self.value = value

    @property
    def expanded(self) -> bool:
        return bool(self.legal) or self.terminal

    def select(self, c: float) -> int:
        """The index (into :attr:`legal`) of the column to follow."""
        total = sum(self.visits)
        scale = c * math.sqrt(total + 1)
        fpu = self.value - FPU_REDUCTION
        best, best_score = 0, -math.inf
        for i, prior in enumerate(self.prior):
            n = self.visits[i]
            q = self.wins[i] / n if n else fpu
            score = q + scale * prior / (1 + n)
            if score > best_score:
                best, best_score = i, score
        return best

    def size(self) -> int:
        """Nodes in this subtree."""
        return 1 + sum(child.size() for child in self.children if child is not None)


@dataclass(frozen=True)
class ColumnResult:
    """One root column: its visits, mean value (mover's view, -1..1) and prior."""

    move: int
    visits: int
    value: float
    prior: float


@dataclass(frozen=True)
class PuctResult:
    """A search's answer: the most visited ``move``, the root's mean ``value``, every
    column's figures, the playouts run, forward passes, seconds, and ``complete`` False
    when the caller's limit cut it short; ``reused``: the visits the root already had
    from the last search (its tree kept); ``tree_full``: the search stopped because the
    tree reached its node cap."""

    move: int
    value: float
    columns: list[ColumnResult]
    playouts: int
    evaluations: int
    seconds: float
    tree_size: int
    depth: int
    complete: bool
    reused: int = 0
    tree_full: bool = False

    @property
    def playouts_per_second(self) -> float:
        return self.playouts / self.seconds if self.seconds > 0 else 0.0


Path = list[tuple["Node", int]]
"""The edges a walk took: each node and the index of the column chosen there."""


@dataclass
class _Batch:
    """What one round of walks gathered: leaves waiting for the network (their path,
    node and position), game ends backed up at once, nodes added, the deepest walk,
    and whether the tree filled up."""

    leaves: list[tuple[Path, Node, Position]] = field(default_factory=list)
    finished: int = 0
    added: int = 0
    deepest: int = 0
    full: bool = False


class Puct:
    """A PUCT search over one network that keeps its tree across moves."""

    def __init__(
        self,
        network: Network,
        c: float = DEFAULT_C,
        batch: int = DEFAULT_BATCH,
        max_tree_nodes: int = MAX_NODES,
    ) -> None:
        self.network = network
        self.c = c
        self.batch = batch
        self.max_tree_nodes = max(max_tree_nodes, 1)
        self.root: Node | None = None  # the last search's root ...
        self.history: list[int] = []  # ... and the moves that reach it
        self.shape: tuple[int, int, str] | None = None

    def forget(self) -> None:
        """Drop the kept tree: the next search starts from the root alone."""
        self.root, self.history, self.shape = None, [], None

    def _root_for(self, position: Position) -> Node | None:
        """The kept subtree of ``position`` (evaluated), ``None`` when it has none."""
        node = self.root
        history = position.history
        kept = len(self.history)
        shape = (position.width, position.height, position.rules)
        if node is None or shape != self.shape or history[:kept] != self.history:
            return None
        for move in history[kept:]:
            if node.terminal or move not in node.legal:
                return None
            child = node.children[node.legal.index(move)]
            if child is None:
                return None
            node = child
        return node if node.legal and not node.terminal else None

    def _evaluate(self, positions: list[Position], nodes: list[Node]) -> None:
        planes, ply = game_planes(positions)
        legal_mask = planes.sum(axis=3)[:, 0, :] == 0
        out = self.network.evaluate(self.network.encode(planes, ply), legal_mask)
        values = out.value
        for i, node in enumerate(nodes):
            node.expand(out.policy[i], float(values[i]), positions[i].legal_moves())

    def search(
        self,
        game: Position,
        *,
        playouts: int | None = 800,
        limit: Limit | None = None,
    ) -> PuctResult:
        """Search ``game`` (left unchanged) for ``playouts`` playouts within ``limit``
        (its deadline and stop flag: whichever ends first; at least one of the
        playouts and a deadline); ``complete`` is False when the limit stopped it.

        Raises ``ValueError`` when the game is over and
        :class:`~connect4.core.errors.BudgetExceeded` when the limit expired before
        the root was evaluated.
        """
        if game.is_over():
            raise ValueError("no legal move: the game is over")
        if playouts is None and (limit is None or not limit.timed()):
            raise ValueError("a search needs playouts or a limit with a deadline")
        started = time.perf_counter()
        budget = limit.tighter() if limit is not None else Limit()
        if budget.expired():
            raise BudgetExceeded("the search's time ran out before the network answered")
        position = game.copy()
        kept = self._root_for(position)
        root = kept if kept is not None else Node()
        self.root, self.history = None, []  # a search cut short below leaves no tree
        evaluations = 0
        if kept is None:
            self._evaluate([position], [root])
            evaluations = 1
        reused = sum(root.visits)
        nodes = root.size() if kept is not None else 1
        full = False
        done = 0
        deepest = 0
        target = playouts if playouts is not None else 1 << 62
        complete = True
        while done < target and not full:
            if budget.expired():
                complete = False
                break
            batch = self._gather(root, position, min(self.batch, target - done), nodes)
            nodes += batch.added
            done += batch.finished
            deepest = max(deepest, batch.deepest)
            full = batch.full
            if batch.leaves:
                leaves = batch.leaves
                self._evaluate([leaf for _, _, leaf in leaves], [node for _, node, _ in leaves])
                evaluations += 1
                for path, node, _ in leaves:
                    self._backup(path, node.value)
                    done += 1
        columns = [
            ColumnResult(
                move=root.legal[i],
                visits=root.visits[i],
                value=root.wins[i] / root.visits[i] if root.visits[i] else 0.0,
                prior=root.prior[i],
            )
            for i in range(len(root.legal))
        ]
        best = max(columns, key=lambda col: (col.visits, col.prior))
        visited = sum(col.visits for col in columns)
        value = sum(root.wins) / visited if visited else root.value
        self.root, self.history = root, position.history
        self.shape = (position.width, position.height, position.rules)
        return PuctResult(
            move=best.move,
            value=value,
            columns=sorted(columns, key=lambda col: col.move),
            playouts=done,
            evaluations=evaluations,
            seconds=time.perf_counter() - started,
            tree_size=nodes,
            depth=deepest,
            complete=complete,
            reused=reused,
            tree_full=full,
        )

    def _descend(self, root: Node, position: Position) -> tuple[Path, Node, int]:
        """Walk from ``root`` by the PUCT rule to a leaf, playing its moves on ``position``
        and putting a virtual loss on each edge; return the path, the leaf and how many
        nodes the walk added (a new child, marked terminal when its game is over)."""
        path: Path = []
        node = root
        added = 0
        while node.expanded and not node.terminal:
            i = node.select(self.c)
            column = node.legal[i]
            path.append((node, i))
            node.visits[i] += 1  # a virtual loss while the leaf waits
            node.wins[i] -= 1.0
            winning = position.is_winning_move(column)
            position.play(column)
            child = node.children[i]
            if child is None:
                child = node.children[i] = Node()
                added += 1
                if winning or position.is_over():
                    child.terminal = True
                    child.value = -1.0 if winning else 0.0
            node = child
        return path, node, added

    def _gather(self, root: Node, position: Position, size: int, nodes: int) -> _Batch:
        """Up to ``size`` walks (``position`` restored after each): game ends are backed
        up at once, new leaves wait for one network call; stops early when the tree
        (``nodes`` now) is full."""
        batch = _Batch()
        pending: set[int] = set()
        for _ in range(size):
            if nodes + batch.added >= self.max_tree_nodes:  # a walk may add a node: none fits
                batch.full = True
                break
            path, node, added = self._descend(root, position)
            batch.added += added
            batch.deepest = max(batch.deepest, len(path))
            if node.terminal:
                self._backup(path, node.value)
                batch.finished += 1
            elif id(node) in pending:  # already waiting in this batch: undo the walk
                for parent, i in path:
                    parent.visits[i] -= 1
                    parent.wins[i] += 1.0
            else:
                pending.add(id(node))
                batch.leaves.append((path, node, position.copy()))
            for _ in path:
                position.undo()
        return batch

    @staticmethod
    def _backup(path: list[tuple[Node, int]], leaf_value: float) -> None:
        """Send a leaf's value (its side to move's view) up the path, removing the
        virtual losses."""
        value = -leaf_value  # the view of the player who moved into the leaf
        for node, i in reversed(path):
            node.wins[i] += value + 1.0  # +1 takes the virtual loss back
            value = -value
