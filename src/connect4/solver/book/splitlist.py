"""The positions a whole-board solve splits into: every position with ``split_ply``
stones reachable from the root, and those between (the graph the search above the
split walks).

Mirror images and transpositions are merged, centre columns first. Only the
positions the solver's search can reach are listed, with its own rules (the
kernel's static rules): a position whose side to move wins at once, must block two
threats or has no move that does not lose is settled without a task (solved by the
search above in a few nodes), and is not expanded; from the others only the moves
that do not lose at once are played.

>>> split = split_positions(Position(4, 4), 2)
>>> len(split.tasks), len(split.inner)
(8, 3)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from connect4.core import bits
from connect4.core.errors import BudgetExceeded
from connect4.core.limits import Limit
from connect4.core.position import Position, board_mask, bottom_mask
from connect4.solver.book.format import BookError
from connect4.solver.book.splitroot import SplitGraph

__all__ = [
    "AUTO_WORKERS",
    "MAX_SPLIT_TASKS",
    "SplitPositions",
    "auto_split_ply",
    "check_split_ply",
    "chosen_split_ply",
    "split_positions",
]

MAX_SPLIT_TASKS = 4_000_000
"""The most positions a split may list (their listing alone then takes minutes)."""

AUTO_TASKS_PER_WORKER = 32  # ``split_ply=None``: the first ply with this many tasks a worker
AUTO_WORKERS = 8  # ... counting this many workers on a Dask cluster (its size is not known)
CHECK_EVERY = 4096  # positions listed between looks at the caller's limit


# ---------------------------------------------------------------- the positions
@dataclass
class SplitPositions:
    """The positions of a split: ``tasks`` (``{canonical key: move string}``, centre
    first), how many positions above or at the split were ``settled`` by the rules
    alone (``settled_moves``), and the positions above the split (``inner``) with
    their ``children`` (keys, centre first)."""

    width: int
    height: int
    root: str
    split_ply: int
    tasks: dict[int, str]
    settled: int = 0
    inner: dict[int, str] = field(default_factory=dict)
    children: dict[int, list[int]] = field(default_factory=dict)
    settled_moves: dict[int, str] = field(default_factory=dict)

    def graph(self) -> SplitGraph:
        """The positions above the split, for the search that reads the tasks."""
        return SplitGraph(self.width, self.height, self.inner, self.children, self.tasks,
                          self.settled_moves)  # fmt: skip


def _levels(root: Position, last: int, limit: Limit | None = None) -> Iterator[SplitPositions]:
    """The split positions at every ply from the root's next one to ``last``, in turn;
    ``limit`` (its deadline or stop flag, looked at every ``CHECK_EVERY`` positions)
    stops the listing with :class:`~connect4.core.errors.BudgetExceeded`."""
    width, height = root.width, root.height
    h1, size = height + 1, width * height
    bottom, board = bottom_mask(width, height), board_mask(width, height)
    order = bits.centre_order(width)
    frontier = {
        bits.canonical_key(root.key(), width, height): (root.current, root.mask, root.moves)
    }
    settled = 0
    inner: dict[int, str] = {}
    edges: dict[int, list[int]] = {}
    settled_moves: dict[int, str] = {}
    for ply in range(root.ply, last + 1):
        tasks: dict[int, str] = {}
        children: dict[int, tuple[int, int, str]] = {}
        canonical: dict[int, int] = {}  # a child's key (transpositions reach it often)
        for index, (own, (current, mask, moves)) in enumerate(frontier.items()):
            if limit is not None and index % CHECK_EVERY == 0 and limit.expired():
                raise BudgetExceeded("stopped while listing the split positions")
            possible = (mask + bottom) & board
            opp_win = bits.threat_cells(current ^ mask, mask, height, board)
            forced = possible & opp_win
            if forced:
                possible = forced
            playable = possible & ~(opp_win >> 1)
            if (
                bits.threat_cells(current, mask, height, board) & ((mask + bottom) & board)
                or forced & (forced - 1)
                or not playable
                or ply >= size - 2
            ):
                settled += 1  # a win at once, two threats or no safe move, a draw
                settled_moves[own] = moves
                continue
            if ply > root.ply:
                tasks[own] = moves
            if ply == last:
                continue
            inner[own] = moves
            kids = edges[own] = []
            for column in order:
                move = playable & (((1 << height) - 1) << (column * h1))
                if move:
                    child = (current ^ mask, mask | move)
                    raw = child[0] + child[1]
                    key = canonical.get(raw)
                    if key is None:
                        key = canonical[raw] = bits.canonical_key(raw, width, height)
                    children.setdefault(key, (*child, moves + str(column + 1)))
                    if key not in kids:
                        kids.append(key)
        if ply > root.ply:
            yield SplitPositions(width, height, root.moves, ply, tasks, settled, inner, edges,
                                 settled_moves)  # fmt: skip
        if len(children) > MAX_SPLIT_TASKS:
            raise BookError(
                f"a split at ply {ply + 1} of this {width}x{height} position lists over "
                f"{MAX_SPLIT_TASKS:,} positions: split nearer the root",
                setting="split_ply",
            )
        frontier = children


def check_split_ply(root: Position, split_ply: int) -> None:
    """Refuse a split ply that is not after the root and before the board's last cells."""
    last = root.width * root.height - 3
    if not root.ply < split_ply <= last:
        raise BookError(
            f"must be after the position's {root.ply} stones and at most {last} on a "
            f"{root.width}x{root.height} board, not {split_ply}",
            setting="split_ply",
        )


def split_positions(root: Position, split_ply: int, limit: Limit | None = None) -> SplitPositions:
    """The positions with ``split_ply`` stones a solve of ``root`` splits into.

    >>> split = split_positions(Position(4, 4), 2)
    >>> list(split.tasks.values())  # mirror images once, centre columns first
    ['22', '23', '21', '24', '12', '13', '11', '14']
    >>> split.settled
    0
    """
    check_split_ply(root, split_ply)
    *_, level = _levels(root, split_ply, limit)
    return level


def auto_split_ply(root: Position, workers: int, limit: Limit | None = None) -> int:
    """The first ply after ``root`` with at least ``AUTO_TASKS_PER_WORKER`` tasks for
    each of ``workers`` (the board's last ply but two when none has).

    >>> auto_split_ply(Position(7, 6), 2)
    3
    """
    last = root.width * root.height - 3
    if root.ply >= last:
        check_split_ply(root, root.ply + 1)  # refused: nothing to split
    wanted = AUTO_TASKS_PER_WORKER * workers
    for level in _levels(root, last, limit):
        if len(level.tasks) >= wanted:
            return level.split_ply
    return last


def chosen_split_ply(
    root: Position, split_ply: int | None, workers: int | None, scheduler: str | None
) -> int:
    """``split_ply``, or when ``None`` the one :func:`auto_split_ply` chooses for the
    workers (``None``: every core; a Dask cluster counts as ``AUTO_WORKERS``)."""
    if split_ply is not None:
        return split_ply
    return auto_split_ply(root, AUTO_WORKERS if scheduler else workers or os.cpu_count() or 2)
