"""Monte Carlo tree search (UCT), with the MCTS-Solver option and tree reuse.

Each iteration walks down the tree from the root, picking in every node the
first untried move (in the game's move order) or else the child with the highest
UCT score ``mean + c * sqrt(ln N / n)``; it expands the node it stops at, plays
the game out (random moves, or with ``playout="heuristic"``: a move that completes
a line, else one that blocks the opponent's, else a random one), and adds the
result (win 1, draw 1/2, loss 0 for the player who moved into each node) to every
node of its path. Count-fours games play out to a full board and count fours.

With ``solver=True`` (MCTS-Solver) finished games are proven results, a node
with a child won for its player to move is lost, and a node whose children are
all proven takes the best of them; proven results move up the tree, lost
children are no longer tried, and the search stops once the root is proven.

Two engines run the same algorithm with the same random stream (xorshift64,
:mod:`connect4.classic.mctsboard`), so with one seed they give the same visit
counts: ``"numba"`` (:mod:`connect4.classic.fastmcts`, on bitboards) and
``"python"``, the readable :class:`ReferenceTree` below over the game protocol.
``"auto"`` picks numba when the board fits it.

A :class:`Mcts` keeps its tree between searches: when the next position follows
from the last one, the subtree of the moves played becomes the new tree.

A tree holds at most ``max_tree_nodes`` nodes (:data:`~connect4.classic.mctsboard.MAX_NODES`,
4,194,304, by default: 112 MB in the compiled engine). When an iteration would have to
expand a node past that, the search stops and its result says ``tree_full``: a budget
larger than what fills the tree answers what the full tree found, never a move that
frozen leaves' playouts would have drifted to.

>>> from connect4 import Position
>>> result = Mcts(seed=1).search(Position.from_moves("445566"), playouts=2000)
>>> result.move, result.children[0]
(2, MoveStatistics(move=3, visits=74, value=0.35..., proven=None))
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, Protocol

from connect4.classic.mctsboard import (
    DRAW,
    F_COUNT,
    F_END,
    F_FIRST,
    F_MOVE,
    F_PROVEN,
    F_REWARD,
    F_VISITS,
    LOSS,
    MASK64,
    MAX_NODES,
    UNKNOWN,
    WIN,
    board_setup,
    draw,
    makes_line,
    next_state,
    seed_state,
)
from connect4.classic.results import note_python_engine
from connect4.core.bits import MAX_BOARD_BITS, check_word_board
from connect4.core.errors import BudgetExceeded, unknown_choice
from connect4.core.game import Game
from connect4.core.limits import Limit

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

PlayoutPolicy = Literal["random", "heuristic"]
Engine = Literal["auto", "numba", "python"]
PLAYOUT_POLICIES: tuple[PlayoutPolicy, ...] = ("random", "heuristic")
ENGINES: tuple[Engine, ...] = ("auto", "numba", "python")
DEFAULT_C = 1.41  # about sqrt(2), UCT's textbook exploration constant
DEFAULT_PLAYOUTS = 10_000
_SIGN = {WIN: 1, DRAW: 0, LOSS: -1}


@dataclass(frozen=True)
class MoveStatistics:
    """One move of the root: its visits, its mean value (-1 loss .. 1 win, for the side
    to move) and, with the solver, its proven result (1 win, 0 draw, -1 loss)."""

    move: int
    visits: int
    value: float
    proven: int | None


@dataclass(frozen=True)
class MctsResult:
    """What one search found.

    ``playouts`` iterations ran in ``seconds``; ``reused`` visits came with the
    subtree kept from the previous search; ``tree_size`` nodes, the deepest
    selection path ``max_depth`` plies; ``children`` per move in move order;
    ``proven`` the root's result for the side to move when the solver proved it;
    ``complete`` is False when the caller's limit stopped it before its own budget;
    ``tree_full`` is True when the search stopped because the tree was full.
    """

    move: int
    value: float
    playouts: int
    seconds: float
    playouts_per_second: float
    tree_size: int
    max_depth: int
    reused: int
    proven: int | None
    children: tuple[MoveStatistics, ...]
    engine: str
    complete: bool = True
    tree_full: bool = False


class Tree(Protocol):
    """What both engines' trees offer :class:`Mcts`."""

    name: str

    def reset(self, game: Game) -> None: ...
    def run(self, count: int, c: float, stop: NDArray[np.uint8] | None = None) -> int: ...
    def descend(self, moves: list[int]) -> bool: ...
    def children(self) -> list[tuple[int, int, int, int]]: ...
    def root_visits(self) -> int: ...
    def root_proven(self) -> int: ...
    def size(self) -> int: ...
    def max_depth(self) -> int: ...
    def full(self) -> bool: ...


# ---------------------------------------------------------------- the readable engine
class Node:
    """A node: the move into it, its children (once expanded), visits, the sum of
    doubled rewards (win 2, draw 1, loss 0) for the player who moved into it, its
    result if the game is over there, and its proven result (the same codes)."""

    __slots__ = ("children", "end", "move", "proven", "reward", "visits")

    def __init__(self, move: int, end: int, proven: int) -> None:
        self.move = move
        self.children: list[Node] = []
        self.visits = 0
        self.reward = 0
        self.end = end
        self.proven = proven


class ReferenceTree:
    """UCT over the game protocol, written to be read; the compiled engine's twin.

    >>> from connect4 import TicTacToe
    >>> game = TicTacToe.from_moves("51")
    >>> tree = ReferenceTree(game, solver=True, heuristic=False, state=seed_state(3))
    >>> tree.run(5000, 1.41), tree.root_proven() == DRAW  # stops once the draw is proven
    (2933, True)
    """

    name = "python"

    def __init__(
        self, game: Game, solver: bool, heuristic: bool, state: int, max_tree_nodes: int = MAX_NODES
    ) -> None:
        self.params, order, _, self.lines = board_setup(game, solver, heuristic)
        self.width = len(order)  # room an expansion needs, as the compiled engine counts it
        self.max_tree_nodes = max(max_tree_nodes, 1 + self.width)
        self.solver = solver
        self.heuristic = heuristic
        self.state = state
        self.reset(game)

    def reset(self, game: Game) -> None:
        self.game = game.copy()
        self.root = Node(-1, UNKNOWN, UNKNOWN)
        self.nodes = 1
        self.depth = 0
        self.is_full = False

    def run(self, count: int, c: float, stop: NDArray[np.uint8] | None = None) -> int:
        done = 0
        while done < count and not (self.solver and self.root.proven):
            if done & 63 == 0 and stop is not None and stop[0]:
                break
            if not self.iterate(c):
                break
            done += 1
        return done

    def iterate(self, c: float) -> bool:
        """Select down to a new or finished node, play out, back the result up; False,
        with nothing changed, when the node reached needs expanding and the tree is full."""
        game, node, path = self.game, self.root, [self.root]
        while True:
            if node.end:
                reward = node.end - 1
                break
            if self.solver and node.proven:
                reward = node.proven - 1
                break
            if len(path) > 1 and node.visits == 0:
                reward = self.playout(game)
                break
            if not node.children:
                if self.nodes + self.width > self.max_tree_nodes:
                    for _ in path[1:]:
                        game.undo()
                    self.is_full = True
                    return False
                self.expand(node, game)
            node = self.select(node, c)
            game.play(node.move)
            path.append(node)
        for _ in path[1:]:
            game.undo()
        self.depth = max(self.depth, len(path) - 1)
        for step in reversed(path):
            step.visits += 1
            step.reward += reward
            reward = 2 - reward  # the player above moved the other colour
        if self.solver:
            for parent, child in zip(reversed(path[:-1]), reversed(path[1:]), strict=True):
                if not child.proven or not self.prove(parent):
                    break
        return True

    def expand(self, node: Node, game: Game) -> None:
        mover = game.to_move
        for move in game.legal_moves():
            game.play(move)
            end = UNKNOWN
            if game.is_over():
                winner = game.winner()
                end = DRAW if winner is None else WIN if winner == mover else LOSS
            game.undo()
            node.children.append(Node(move, end, end if self.solver else UNKNOWN))
        self.nodes += len(node.children)

    def select(self, node: Node, c: float) -> Node:
        children = [ch for ch in node.children if not (self.solver and ch.proven == LOSS)]
        for child in children:
            if child.visits == 0:
                return child
        log_n = math.log(node.visits)
        best, best_score = children[0], -1.0
        for child in children:
            score = child.reward / (2.0 * child.visits) + c * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        return best

    def prove(self, node: Node) -> bool:
        codes = [child.proven for child in node.children]
        if WIN in codes:
            node.proven = LOSS
        elif UNKNOWN not in codes:
            node.proven = WIN + LOSS - max(codes)
        return node.proven != UNKNOWN

    def playout(self, game: Game) -> int:
        """Play to the end; the doubled reward of the player who moved last before."""
        mover, played = 3 - game.to_move, 0
        while not game.is_over():
            game.play(self.playout_move(game))
            played += 1
        winner = game.winner()
        for _ in range(played):
            game.undo()
        return 1 if winner is None else 2 if winner == mover else 0

    def playout_move(self, game: Game) -> int:
        moves = game.legal_moves()
        if self.heuristic:  # complete a line, else block the opponent's
            for player in (game.to_move, 3 - game.to_move):
                for move in moves:
                    if makes_line(
                        game.stones(player), cell_of(game, move), self.params, self.lines
                    ):
                        return move
        self.state = next_state(self.state, MASK64)
        return moves[draw(self.state, len(moves))]

    def descend(self, moves: list[int]) -> bool:
        node = self.root
        for move in moves:
            found = [child for child in node.children if child.move == move]
            if not found:
                return False
            node = found[0]
        for move in moves:
            self.game.play(move)
        if moves:
            self.is_full = False
        self.root, self.depth = node, 0
        stack, self.nodes = [node], 1
        while stack:
            children = stack.pop().children
            self.nodes += len(children)
            stack.extend(children)
        return True

    def children(self) -> list[tuple[int, int, int, int]]:
        return [(ch.move, ch.visits, ch.reward, ch.proven) for ch in self.root.children]

    def root_visits(self) -> int:
        return self.root.visits

    def root_proven(self) -> int:
        return self.root.proven

    def size(self) -> int:
        return self.nodes

    def max_depth(self) -> int:
        return self.depth

    def full(self) -> bool:
        return self.is_full


def cell_of(game: Game, move: int) -> int:
    """The bit of the cell ``move`` fills: play it and see which bit appeared."""
    before = game.stones(1) | game.stones(2)
    game.play(move)
    after = game.stones(1) | game.stones(2)
    game.undo()
    return after ^ before


def move_statistics(node: Node) -> MoveStatistics:
    """A node's figures for the player who moved into it."""
    return MoveStatistics(
        move=node.move,
        visits=node.visits,
        value=node.reward / node.visits - 1 if node.visits else 0.0,
        proven=_SIGN.get(node.proven),
    )


def pick_move(children: Sequence[MoveStatistics]) -> MoveStatistics:
    """The move to play: a proven win, else the most visited move not proven lost
    (the first in move order on ties).

    >>> pick_move([MoveStatistics(3, 60, 0.1, None), MoveStatistics(2, 5, 1.0, 1)]).move
    2
    """
    won = [ch for ch in children if ch.proven == 1]
    pool = won or [ch for ch in children if ch.proven != -1] or list(children)
    return max(pool, key=lambda ch: ch.visits)


def uct_score(child: MoveStatistics, parent_visits: int, c: float) -> float | None:
    """The score selection ranks ``child`` by: mean reward (0 .. 1) plus
    ``c * sqrt(ln N / n)``; ``None`` for an unvisited child (it is tried first).

    >>> round(uct_score(MoveStatistics(3, 10, 0.2, None), 100, 1.41), 4)
    1.5568
    """
    if child.visits == 0 or parent_visits == 0:
        return None
    return (child.value + 1) / 2 + c * math.sqrt(math.log(parent_visits) / child.visits)


# ---------------------------------------------------------------- the front door
class Mcts:
    """A Monte Carlo tree search that keeps its tree (and random stream) across moves.

    >>> from connect4 import TicTacToe
    >>> mcts = Mcts(seed=3, solver=True, engine="python")
    >>> r = mcts.search(TicTacToe.from_moves("51"), playouts=5000)
    >>> r.proven, r.playouts, r.move
    (0, 2933, 8)
    >>> mcts.search(TicTacToe.from_moves("5193"), playouts=100).reused  # the subtree kept
    82
    """

    def __init__(
        self,
        *,
        c: float = DEFAULT_C,
        seed: int = 0,
        solver: bool = False,
        playout: PlayoutPolicy = "random",
        engine: Engine = "auto",
        max_tree_nodes: int = MAX_NODES,
    ) -> None:
        if playout not in PLAYOUT_POLICIES:
            raise ValueError(unknown_choice("playout", playout, PLAYOUT_POLICIES))
        if engine not in ENGINES:
            raise ValueError(unknown_choice("engine", engine, ENGINES))
        self.c = c
        self.solver = solver
        self.playout = playout
        self.engine = engine
        self.max_tree_nodes = max_tree_nodes
        self.state = seed_state(seed)
        self.tree: Tree | None = None
        self.shape: tuple[object, ...] = ()
        self.history: list[int] = []

    def forget(self) -> None:
        """Drop the tree: the next search runs as a new :class:`Mcts` with the same
        settings would (the random stream restarts from the seed)."""
        self.tree, self.shape, self.history = None, (), []

    def _tree_for(self, game: Game) -> tuple[Tree, int]:
        """The tree to search ``game`` with, and the visits it already holds."""
        shape = (game.kind, game.width, game.height, game.rules)
        history = game.history
        tree = self.tree
        if tree is not None and shape == self.shape:
            played = history[len(self.history) :]
            if history[: len(self.history)] == self.history and tree.descend(played):
                self.history = history
                return tree, tree.root_visits()
            tree.reset(game)
        else:
            tree = self.tree = self._new_tree(game)
        self.shape, self.history = shape, history
        return tree, 0

    def _new_tree(self, game: Game) -> Tree:
        heuristic = self.playout == "heuristic"
        if self.engine != "python":
            from connect4.classic import fastmcts

            if fastmcts.supports(game):
                return fastmcts.CompiledTree(
                    game, self.solver, heuristic, self.state, self.max_tree_nodes
                )
            bits = MAX_BOARD_BITS
            if self.engine == "numba":
                check_word_board(game.width, game.height, "the numba MCTS engine", bits)
                raise ValueError(f"the numba engine does not support {game.kind}")
            note_python_engine(game, "the compiled MCTS", bits)
        return ReferenceTree(game, self.solver, heuristic, self.state, self.max_tree_nodes)

    def root_node(self) -> Node:
        """The last search's tree as :class:`Node` objects (the compiled engine's
        visited nodes copied out of its array)."""
        tree = self.tree
        if isinstance(tree, ReferenceTree):
            return tree.root
        from connect4.classic import fastmcts

        if not isinstance(tree, fastmcts.CompiledTree):
            raise ValueError("no tree yet: search first")
        rows = tree.nodes

        def node(row: int, move: int) -> Node:
            out = Node(move, int(rows[row, F_END]), int(rows[row, F_PROVEN]))
            out.visits, out.reward = int(rows[row, F_VISITS]), int(rows[row, F_REWARD])
            return out

        root = node(0, -1)
        stack = [(0, root)]
        while stack:
            row, parent = stack.pop()
            first = int(rows[row, F_FIRST])
            for child_row in range(first, first + int(rows[row, F_COUNT])):
                if rows[child_row, F_VISITS] or rows[child_row, F_PROVEN]:
                    child = node(child_row, int(rows[child_row, F_MOVE]))
                    parent.children.append(child)
                    stack.append((child_row, child))
        return root

    def search(
        self,
        game: Game,
        *,
        playouts: int | None = None,
        limit: Limit | None = None,
    ) -> MctsResult:
        """Search ``game`` (left unchanged) for ``playouts`` iterations within ``limit``
        (its deadline and stop flag: whichever ends first; neither playouts nor a
        deadline: :data:`DEFAULT_PLAYOUTS`); raises
        :class:`~connect4.core.errors.BudgetExceeded` when the limit stops it before
        any playout. ``complete`` is False when the limit stopped it first."""
        if game.is_over():
            raise ValueError("no move to search: the game is over")
        if playouts is None and (limit is None or not limit.timed()):
            playouts = DEFAULT_PLAYOUTS
        tree, reused = self._tree_for(game)
        start = time.perf_counter()
        complete = True
        if limit is None:
            done = tree.run(playouts or 0, self.c)
        else:
            guard = limit.tighter()
            budget = playouts if playouts is not None else 1 << 62
            with guard.watch() as flag:
                done = tree.run(budget, self.c, flag)
            complete = done >= budget or tree.root_proven() != UNKNOWN or not limit.expired()
            if tree.root_visits() == 0:
                raise BudgetExceeded("the limit stopped the search before its first playout")
        elapsed = time.perf_counter() - start
        return replace(self._result(tree, done, reused, elapsed), complete=complete)

    def _result(self, tree: Tree, done: int, reused: int, elapsed: float) -> MctsResult:
        children = tuple(
            MoveStatistics(
                move=move,
                visits=visits,
                value=reward / visits - 1 if visits else 0.0,
                proven=_SIGN.get(proven),
            )
            for move, visits, reward, proven in tree.children()
        )
        best = pick_move(children)
        root = _SIGN.get(tree.root_proven())
        return MctsResult(
            move=best.move,
            value=best.value,
            playouts=done,
            seconds=elapsed,
            playouts_per_second=done / elapsed if elapsed > 0 else 0.0,
            tree_size=tree.size(),
            max_depth=tree.max_depth(),
            reused=reused,
            proven=None if root is None else -root,
            children=children,
            engine=tree.name,
            tree_full=tree.full(),
        )
