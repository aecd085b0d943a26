"""What a player is: anything that picks moves (:class:`Player`), with what it answers
for a position (:class:`MoveChoice`, its :class:`MoveStats`) and where it plays
(:class:`PlayerContext`).

>>> MoveChoice(3).complete
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, TypedDict, overload

from connect4.classic.results import SearchTree
from connect4.core.game import Game
from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.limits import Limit

__all__ = [
    "ColumnStats",
    "MoveChoice",
    "MoveStats",
    "Player",
    "PlayerBase",
    "PlayerContext",
    "complete_within",
    "within_caller",
]


class ColumnStats(TypedDict):
    """One move of a Monte Carlo tree search's root: its label, visits, mean value
    (-1 loss .. 1 win for the mover) and proven result (1, 0, -1; ``None`` if unproven)."""

    move: str
    visits: int
    value: float
    proven: int | None


class MoveStats(TypedDict, total=False):
    """What a player reports about one move, JSON-ready; each player fills what it knows.

    ``seconds`` the time taken; ``nodes``, ``leaves``, ``cutoffs``, ``tt_hits`` and
    ``depth`` the search's figures; ``source`` where a perfect player's answer came
    from (``book``, ``solver``, ``search``) and ``level`` its level; ``engine`` and
    ``heuristic`` which classic search ran; ``playouts``, ``playouts_per_second`` and
    ``tree_size`` a Monte Carlo tree search's figures (``depth``: its deepest path)
    and ``columns`` its root's moves; ``tree_full`` (present, True, only then) that
    the search stopped because its tree reached its node cap.
    """

    seconds: float
    nodes: int
    leaves: int
    cutoffs: int
    tt_hits: int
    depth: int
    source: str
    level: str
    engine: str
    heuristic: str
    playouts: int
    playouts_per_second: int
    tree_size: int
    tree_full: bool
    columns: list[ColumnStats]


@dataclass
class MoveChoice:
    """What a player answers for one position.

    ``value`` is the player's own evaluation from the mover's point of view
    (``None`` if it has none); ``proven`` is True for a move backed by an exact
    solve, False when a search ran out of time, ``None`` when not applicable.
    ``stats`` holds figures such as nodes, seconds and depth; ``tree`` a
    recorded search tree as JSON-ready dict when one was asked for.
    ``complete`` is False when the caller's limit (its deadline or stop flag)
    cut the thinking short: the move is the best found so far, ``stats`` say
    how far it got (``depth`` reached, ``playouts`` run).
    """

    move: int
    value: float | None = None
    stats: MoveStats = field(default_factory=lambda: MoveStats())
    proven: bool | None = None
    tree: SearchTree | None = None
    column_scores: list[int | None] | None = None
    complete: bool = True


class Player(Protocol):
    """Anything that picks moves. ``is_human`` players are driven by the interface.

    Every player honours the caller's ``limit``: when its deadline passes or its
    flag is set, :meth:`choose` answers the best move found so far (marked
    ``complete=False``) or, with none at all, raises
    :class:`~connect4.core.errors.BudgetExceeded`.
    """

    spec: str
    is_human: bool

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """Pick a move for the side to move in ``game`` (left unchanged) within ``limit``."""
        ...

    def close(self) -> None:
        """Release resources (processes, pools)."""
        ...

    def warm_up(self) -> None:
        """Do the set-up a first move would pay for (compiling, loading tables)."""
        ...

    def record_trees(self, on: bool) -> bool:
        """Attach (or stop attaching) the explored search tree to each choice; False
        when this player records no tree."""
        ...


@overload
def within_caller(limit: Limit | None, seconds: float) -> Limit: ...
@overload
def within_caller(limit: Limit | None, seconds: float | None) -> Limit | None: ...
def within_caller(limit: Limit | None, seconds: float | None) -> Limit | None:
    """A player's own time, ``seconds`` from now, within the caller's ``limit``
    (stopped with it); ``seconds`` ``None``: the caller's limit as it is."""
    if seconds is None:
        return limit
    return (Limit() if limit is None else limit).tighter(seconds)


def complete_within(complete: bool, limit: Limit | None) -> bool:
    """A move's ``complete``: a search that the player's own time ended is complete;
    one that the caller's ``limit`` cut short (it expired) is not."""
    return complete or limit is None or not limit.expired()


class PlayerBase:
    """The capabilities a player without them answers: nothing to warm up, no tree,
    nothing to close."""

    def warm_up(self) -> None:
        """Nothing to prepare."""

    def record_trees(self, on: bool) -> bool:
        """No search tree to record."""
        return False

    def close(self) -> None:
        """Nothing to release."""


@dataclass(frozen=True)
class PlayerContext:
    """Where a player will play: the board (game, size, rules) and the RNG seed.

    ``one_off``: each choice is a question of its own (a hint, a web request), not a
    move of one game: a player that would carry a search tree or a random stream from
    one choice to the next starts each afresh, so the same question, asked twice, gets
    the same answer.
    """

    board: Board = DEFAULT_BOARD
    seed: int | None = None
    max_move_seconds: float = 60.0  # a bot silent this long on a move without a clock forfeits
    one_off: bool = False
