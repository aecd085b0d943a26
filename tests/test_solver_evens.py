"""The follow-up ("claimeven") bound's shadow rule: a four of the side to move's cells
that a lower four of the opponent's, over the same columns, shadows leaves the bound
in place (the opponent's four is complete first)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from connect4.core.position import Position, board_mask, bottom_mask
from connect4.solver import kernel
from tests.test_solver import bounds_checked, evens_bound


def fours(width: int, height: int) -> list[tuple[int, list[int]]]:
    """Every four-cell line of a board as ``(direction, bit indexes)``: 0 vertical,
    1 horizontal, 2 and 3 the diagonals (up-right, down-right)."""
    lines = []
    for c in range(width):
        for r in range(height):
            for direction, (dc, dr) in enumerate(((0, 1), (1, 0), (1, 1), (1, -1))):
                cells = [(c + k * dc, r + k * dr) for k in range(4)]
                if all(0 <= x < width and 0 <= y < height for x, y in cells):
                    lines.append((direction, [x * (height + 1) + y for x, y in cells]))
    return lines


def unshadowed(mine: int, theirs: int, width: int, height: int) -> bool:
    """The rule written out: some four of ``mine`` is vertical, or has no four of
    ``theirs`` in its direction over its columns some rows lower."""
    owned = {
        (d, tuple(cells))
        for d, cells in fours(width, height)
        if all(theirs >> b & 1 for b in cells)
    }
    for direction, cells in fours(width, height):
        if not all(mine >> b & 1 for b in cells):
            continue
        if direction == 0:
            return True
        lowest = min(b % (height + 1) for b in cells)
        lower = (tuple(b - d for b in cells) for d in range(1, lowest + 1))
        if not any((direction, shifted) in owned for shifted in lower):
            return True
    return False


@pytest.mark.parametrize(("width", "height"), [(7, 6), (4, 4), (6, 8), (9, 6)])
def test_a_four_is_shadowed_by_a_lower_four_over_the_same_columns(width: int, height: int) -> None:
    """The kernel's marks-and-borrow test against the rule written out, on random
    cells of both sides (dense enough that both hold fours most of the time)."""
    rng = random.Random(width * 100 + height)
    board = board_mask(width, height)
    outcomes = set()
    for _ in range(1500):
        mine = theirs = 0
        for bit in range(width * (height + 1)):
            if board >> bit & 1:
                x = rng.random()
                if x < 0.4:
                    theirs |= 1 << bit
                elif x < 0.8:
                    mine |= 1 << bit
        got = kernel._unshadowed(
            np.uint64(mine),
            np.uint64(theirs),
            np.uint64(height),
            True,
            np.uint64(bottom_mask(width, height)),
        )
        assert got == unshadowed(mine, theirs, width, height), (hex(mine), hex(theirs))
        outcomes.add(got)
    assert outcomes == {True, False}


def shadowed_bound(position: Position) -> int | None:
    """The bound when the side to move's cells hold a four (every one shadowed): the
    cases the shadow rule adds, ``None`` elsewhere."""
    bound = evens_bound(position)
    if bound is None:
        return None
    height = position.height
    board = board_mask(position.width, height)
    playable = (position.mask + bottom_mask(position.width, height)) & board
    odd = bottom_mask(position.width, height) * (((1 << height) - 1) // 3)
    theirs = (position.current ^ position.mask) | ((odd << 1) & board & ~position.mask & ~playable)
    rest = board & ~theirs
    holds_four = any(
        all(rest >> b & 1 for b in cells) for _, cells in fours(position.width, height)
    )
    return bound if holds_four else None


@pytest.mark.parametrize(
    ("width", "height", "min_ply"), [(4, 4, 2), (5, 4, 4), (6, 4, 8), (4, 6, 6), (5, 6, 14)]
)
def test_a_bound_behind_a_shadowed_four_is_never_below_the_exact_score(
    width: int, height: int, min_ply: int
) -> None:
    """Random positions whose side to move holds a four in the cells the follow-up
    leaves it, all shadowed: the bound is at least the exhaustive minimax score."""
    bounds = bounds_checked(shadowed_bound, width, height, min_ply, width * 7 + height, 12, 20000)
    assert len(bounds) == 12  # the rule fires: a real check


def test_the_shadow_rule_bounds_pons_positions_the_plain_rule_did_not() -> None:
    """Pons' six sets (every score known): 22 positions are bounded only through a
    shadowed four, none above its score."""
    from tests.test_solver import pons_cases

    found = []
    for name in ("L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3"):
        for moves, score in pons_cases(f"Test_{name}"):
            position = Position.from_moves(moves)
            if position.ply % 2 == 0 and (bound := shadowed_bound(position)) is not None:
                assert score <= bound, moves
                found.append(bound)
    assert len(found) == 22 and min(found) < 0
