"""What a classic search is asked and what it answers: depths, statistics, results.

Both engines of :func:`connect4.classic.search.search` (the readable one and the
compiled backend) answer each depth with an :class:`Outcome`; the search turns
those into one :class:`SearchResult`. A recorded search tree is JSON (the browser
app and ``connect4 tree --format json`` show it): :class:`SearchTree` and
:class:`TreeNode` give its shape, :mod:`connect4.classic.tree` its meaning.

>>> Limits(depth=3).depth_for(__import__("connect4").Position())
3
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import Literal, NotRequired, Protocol, TypedDict

from connect4.core.bits import SIGNED_WORD_BITS, board_bits
from connect4.core.errors import unknown_choice
from connect4.core.game import Game, GameKind
from connect4.core.limits import Limit
from connect4.core.score import MATE, is_mate as is_mate

Algorithm = Literal["minimax", "alphabeta"]
Ordering = Literal["center", "none"]
ALGORITHMS: tuple[Algorithm, ...] = ("minimax", "alphabeta")
ORDERINGS: tuple[Ordering, ...] = ("center", "none")


_told: set[tuple[str, int, int]] = set()
_told_lock = threading.Lock()


def note_python_engine(game: Game, engine: str, bits: int = SIGNED_WORD_BITS) -> None:
    """Say once per process and board size, on stderr, that a Connect Four board too
    big for ``engine`` (which keeps a board in ``bits`` bits: one signed word, or two
    words) runs on the readable Python engine: the same
    moves, about a hundredth of the speed (each move's stats also say
    ``engine: python``)."""
    key = (engine, game.width, game.height)
    with _told_lock:
        if key in _told:
            return
        _told.add(key)
    needed = board_bits(game.width, game.height)
    print(
        f"connect4: {game.width}x{game.height} boards need {needed} bits and {engine} keeps "
        f"a board in {bits}: the Python engine plays them (about 100x slower)",
        file=sys.stderr,
        flush=True,
    )


def check_options(algorithm: str, ordering: str) -> None:
    """Raise a ``ValueError`` naming the valid choices for an unknown option."""
    if algorithm not in ALGORITHMS:
        raise ValueError(unknown_choice("algorithm", algorithm, ALGORITHMS))
    if ordering not in ORDERINGS:
        raise ValueError(unknown_choice("ordering", ordering, ORDERINGS))


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
    """How deep to search (settings; time and node budgets are the caller's
    :class:`~connect4.core.limits.Limit`): a fixed ``depth`` or a ``schedule`` of
    depths by game phase.

    >>> from connect4 import Position
    >>> Limits(schedule=(4, 5, 6)).depth_for(Position.from_moves("4" * 5 + "3" * 6))
    4
    """

    depth: int | None = None
    schedule: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.depth is not None and self.depth < 0:
            raise ValueError(f"depth must be >= 0, not {self.depth}")
        if self.schedule is not None and (not self.schedule or any(d < 1 for d in self.schedule)):
            raise ValueError("a depth schedule needs depths >= 1")

    def depth_for(self, game: Game) -> int:
        """The depth cut-off for ``game``: the schedule's entry for its phase (the
        board split into equal parts by stones played), else ``depth``, else 4."""
        if self.schedule is not None:
            phase = min(len(self.schedule) - 1, game.ply * len(self.schedule) // game.size)
            return self.schedule[phase]
        return 4 if self.depth is None else self.depth


class StatsJson(TypedDict):
    """:class:`SearchStats` as JSON."""

    nodes: int
    leaves: int
    cutoffs: int
    tt_hits: int
    depth: int
    seconds: float


class TreeNode(TypedDict):
    """One node of a recorded search tree (a Monte Carlo tree search's nodes add
    ``visits``, ``uct``, ``proven`` and ``best``; see :mod:`connect4.classic.tree`)."""

    id: int
    path: str
    move: str | None
    depth: int
    alpha: float | None
    beta: float | None
    value: float | None
    eval: float | None
    pruned: bool
    tt_hit: bool
    children: list[TreeNode]
    visits: NotRequired[int]
    uct: NotRequired[float | None]
    proven: NotRequired[int | None]
    best: NotRequired[bool]


class SearchTree(TypedDict):
    """A recorded search tree with what the search found (the last keys are set by
    whoever ran the search: :func:`connect4.classic.tree.search_tree`, a player)."""

    root: str
    game: GameKind
    width: int
    height: int
    node_count: int
    pruned_count: int
    truncated: bool
    cap: int
    tree: TreeNode | None
    algorithm: NotRequired[str]
    heuristic: NotRequired[str]
    depth: NotRequired[int]
    value: NotRequired[float | None]
    move: NotRequired[str | None]
    nodes: NotRequired[int]
    stats: NotRequired[StatsJson]
    playouts: NotRequired[int]
    min_visits: NotRequired[int]


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

    def add(self, other: SearchStats) -> None:
        """Add the counts of ``other`` (one iteration) to these."""
        self.nodes += other.nodes
        self.leaves += other.leaves
        self.cutoffs += other.cutoffs
        self.tt_hits += other.tt_hits

    def as_dict(self) -> StatsJson:
        """The figures as JSON."""
        return StatsJson(
            nodes=self.nodes, leaves=self.leaves, cutoffs=self.cutoffs, tt_hits=self.tt_hits,
            depth=self.depth, seconds=self.seconds,
        )  # fmt: skip


@dataclass(frozen=True)
class Iteration:
    """One depth of an (iteratively deepened) search: nodes it took, and whether it
    finished before its limit ran out."""

    depth: int
    nodes: int
    complete: bool


@dataclass
class SearchResult:
    """The answer of one search: best move, value (root player's view), principal
    variation, stats; ``complete`` is False when a node budget or time limit stopped
    the (last) iteration; ``tree`` is the recorded tree, ready for JSON."""

    move: int | None
    value: float | None
    pv: list[int]
    stats: SearchStats
    algorithm: Algorithm
    heuristic: str
    complete: bool = True
    stopped: str | None = None
    engine: str = "python"
    tree: SearchTree | None = None
    iterations: list[Iteration] = field(default_factory=list)


@dataclass(frozen=True)
class Outcome:
    """One engine's answer for one depth: value and principal variation (NaN and
    empty when it stopped), its statistics, and the recorded tree if asked."""

    value: float
    pv: list[int]
    stats: SearchStats
    complete: bool
    tree: SearchTree | None = None


class Engine(Protocol):
    """A search engine: searches the root it was made for to one depth at a time."""

    name: str

    def run(self, depth: int, limit: Limit) -> Outcome:
        """Search to ``depth``; stop past ``limit``'s node budget, at its deadline, or
        once it is stopped."""
        ...

    def stop(self) -> None:
        """End the running search (and any later one) soon; safe from another thread."""
        ...
