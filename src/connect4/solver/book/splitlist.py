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

import numpy as np
from numpy.typing import NDArray

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

Words = NDArray[np.uint64]
"""Boards a level at a time (an object array of Python ints on boards over a word:
the same bit operations hold)."""

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
        """The positions above the split, for the search that reads the tasks (its own
        inner positions and edges: the search may split a position again)."""
        return SplitGraph(self.width, self.height, dict(self.inner), dict(self.children),
                          self.tasks, self.settled_moves)  # fmt: skip


def _levels(root: Position, last: int, limit: Limit | None = None) -> Iterator[SplitPositions]:
    """The split positions at every ply from the root's next one to ``last``, in turn;
    ``limit`` (its deadline or stop flag, looked at every ``CHECK_EVERY`` positions)
    stops the listing with :class:`~connect4.core.errors.BudgetExceeded`.

    A level at a time, as arrays: ``uint64`` where the board fits a word, Python ints
    (an object array) on wider boards; the rules are the bit formulas of
    :mod:`connect4.core.bits`, which hold on both."""
    width, height = root.width, root.height
    h1, size = height + 1, width * height
    dtype: type = np.uint64 if bits.fits_word(width, height) else object
    bottom, board = bottom_mask(width, height), board_mask(width, height)
    order = bits.centre_order(width)
    columns: Words = np.array(
        [((1 << height) - 1) << (column * h1) for column in order], dtype=dtype
    )
    digits = [str(column + 1) for column in order]
    keys = [bits.canonical_key(root.key(), width, height)]
    current: Words = np.array([root.current], dtype=dtype)
    mask: Words = np.array([root.mask], dtype=dtype)
    moves = [root.moves]
    settled = 0
    inner: dict[int, str] = {}
    edges: dict[int, list[int]] = {}
    settled_moves: dict[int, str] = {}
    for ply in range(root.ply, last + 1):
        tasks: dict[int, str] = {}
        found: list[tuple[Words, Words, Words, NDArray[np.intp]]] = []
        for start in range(0, len(keys), CHECK_EVERY):
            _check(limit)
            part = slice(start, start + CHECK_EVERY)
            own, stones = current[part], mask[part]
            playable, open_ = _playable(own, stones, height, bottom, board)
            if ply >= size - 2:
                open_[:] = False  # a draw: every cell but two filled
            for index, (key, keep) in enumerate(zip(keys[part], open_.tolist(), strict=True)):
                line = moves[start + index]
                if not keep:
                    settled += 1  # a win at once, two threats or no safe move, a draw
                    settled_moves[key] = line
                    continue
                if ply > root.ply:
                    tasks[key] = line
                if ply < last:
                    inner[key] = line
            if ply < last:
                rows = np.flatnonzero(open_)
                chosen = own[rows], stones[rows], playable[rows]
                found.append(_children(*chosen, columns, rows + start, width, height))
        if ply > root.ply:
            yield SplitPositions(width, height, root.moves, ply, tasks, settled, inner, edges,
                                 settled_moves)  # fmt: skip
        if ply == last:
            return
        keys, current, mask, moves = _next_level(found, keys, moves, digits, edges, width, limit)
        if len(keys) > MAX_SPLIT_TASKS:
            raise BookError(
                f"a split at ply {ply + 1} of this {width}x{height} position lists over "
                f"{MAX_SPLIT_TASKS:,} positions: split nearer the root",
                setting="split_ply",
            )


def _playable(
    current: Words, mask: Words, height: int, bottom: int, board: int
) -> tuple[Words, NDArray[np.bool_]]:
    """The moves that do not lose at once of each position (a forced block only, when
    the opponent threatens to win), and whether each is left open by the rules (no win
    at once, no two threats to block, a safe move)."""
    possible = (mask + bottom) & board
    opp_win = bits.threat_cells(current ^ mask, mask, height, board)
    forced = possible & opp_win
    possible = np.where(forced != 0, forced, possible)
    playable: Words = possible & ~(opp_win >> 1)  # type: ignore[assignment]  # uint64 kept
    wins = bits.threat_cells(current, mask, height, board) & ((mask + bottom) & board)
    open_ = (wins == 0) & ((forced & (forced - 1)) == 0) & (playable != 0)
    return playable, open_


def _children(
    current: Words,
    mask: Words,
    playable: Words,
    columns: Words,
    rows: NDArray[np.intp],
    width: int,
    height: int,
) -> tuple[Words, Words, Words, NDArray[np.intp]]:
    """Every position's children, one row a position and one column a move (centre
    first): their canonical keys (0 where the move is not played), boards and rows."""
    moved = playable[:, None] & columns[None, :]
    child_current = np.repeat((current ^ mask)[:, None], len(columns), axis=1)
    child_mask = mask[:, None] | moved
    raw = child_current + child_mask
    child_keys = bits.canonical_keys(raw.ravel(), width, height).reshape(raw.shape)
    child_keys = np.where(moved != 0, child_keys, 0)
    return child_keys, child_current, child_mask, rows


def _next_level(
    found: list[tuple[Words, Words, Words, NDArray[np.intp]]],
    keys: list[int],
    moves: list[str],
    digits: list[str],
    edges: dict[int, list[int]],
    width: int,
    limit: Limit | None,
) -> tuple[list[int], Words, Words, list[str]]:
    """The next level's positions (transpositions and mirror images once, in the order
    their first parent and move reach them) and each parent's children in ``edges``;
    ``limit`` looked at every ``CHECK_EVERY`` positions, as in :func:`_levels`."""
    if not found:
        return [], np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64), []
    child_keys = np.concatenate([part[0] for part in found])
    child_current = np.concatenate([part[1] for part in found]).ravel()
    child_mask = np.concatenate([part[2] for part in found]).ravel()
    rows = np.concatenate([part[3] for part in found])
    for start in range(0, len(rows), CHECK_EVERY):
        _check(limit)
        part = slice(start, start + CHECK_EVERY)
        for row, kids in zip(rows[part].tolist(), child_keys[part].tolist(), strict=True):
            edges[keys[row]] = list(dict.fromkeys(kid for kid in kids if kid))
    flat = child_keys.ravel()
    played = np.flatnonzero(flat != 0)
    _, first = np.unique(flat[played], return_index=True)
    chosen = played[np.sort(first)]  # the first time each position is reached
    parents = rows[chosen // width].tolist()
    columns = (chosen % width).tolist()
    line: list[str] = []
    for start in range(0, len(parents), CHECK_EVERY):
        _check(limit)
        part = slice(start, start + CHECK_EVERY)
        line += [moves[parent] + digits[column] for parent, column in
                 zip(parents[part], columns[part], strict=True)]  # fmt: skip
    return flat[chosen].tolist(), child_current[chosen], child_mask[chosen], line


def _check(limit: Limit | None) -> None:
    """Stop the listing (:class:`~connect4.core.errors.BudgetExceeded`) once ``limit``
    has expired."""
    if limit is not None and limit.expired():
        raise BudgetExceeded("stopped while listing the split positions")


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
