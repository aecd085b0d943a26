"""Heuristics: their authors' exact numbers on hand-made positions, a plain reference
implementation for the bit-parallel code, any board size."""

from __future__ import annotations

import random

import pytest

from connect4 import Position, TicTacToe
from connect4.classic.heuristics import (
    HEURISTICS,
    WINDOW_PRESETS,
    adjacency,
    cell_weight_table,
    cell_weights,
    evaluate,
    geometry,
    get_heuristic,
    heuristic_names,
    recent_lines,
    threats,
)
from connect4.classic.node import threat_cells

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def windows_of(width: int, height: int) -> list[list[tuple[int, int]]]:
    out = []
    for c in range(width):
        for r in range(height):
            for dc, dr in DIRECTIONS:
                cells = [(c + k * dc, r + k * dr) for k in range(4)]
                if all(0 <= x < width and 0 <= y < height for x, y in cells):
                    out.append(cells)
    return out


def plain_windows(p: Position, player: int, preset: str) -> int:
    mine, theirs = WINDOW_PRESETS[preset]
    total = 0
    for cells in windows_of(p.width, p.height):
        values = [p.cell(x, y) for x, y in cells]
        a, b = values.count(player), values.count(3 - player)
        if a and not b:
            total += mine[a - 1]
        elif b and not a:
            total += theirs[b - 1]
    return total


def plain_adjacency(p: Position, player: int) -> int:
    total = 0
    for c in range(p.width):
        for r in range(p.height):
            v = p.cell(c, r)
            if not v:
                continue
            sign = 1 if v == player else -1
            for dc in (-1, 0, 1):
                for dr in (-1, 0, 1):
                    x, y = c + dc, r + dr
                    if (dc, dr) == (0, 0) or not (0 <= x < p.width and 0 <= y < p.height):
                        continue
                    n = p.cell(x, y)
                    if n == v:
                        total += 15 * sign
                    elif n == 0:
                        total += (10 if p.heights[x] == y else 5) * sign
    return total + 642 * (p.score_of(player) - p.score_of(3 - player))


def random_positions(width: int, height: int, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        p = Position(width, height)
        for _ in range(rng.randrange(width * height)):
            if p.is_over():
                break
            p.play(rng.choice(p.legal_moves()))
        out.append(p)
    return out


# ---------------------------------------------------------------- windows
def test_window_counts_are_69_on_7x6_and_geometric_elsewhere() -> None:
    assert geometry(7, 6).windows == 69
    for w, h in ((5, 4), (4, 4), (8, 7), (9, 5), (3, 3)):
        assert geometry(w, h).windows == len(windows_of(w, h))


def test_windows_authors_numbers() -> None:
    one = Position.from_moves("4")  # one red disc: 7 windows of one disc
    assert evaluate("windows/mollerhoj", one, 1) == 7
    assert evaluate("windows/mollerhoj", one, 2) == -7
    assert evaluate("windows/zer0lose", one, 1) == 7
    assert evaluate("windows/report", one, 1) == 0  # one disc scores nothing in the report
    two = Position.from_moves("44")  # red 6 open windows of one, yellow 9
    assert evaluate("windows", two, 1) == -3
    # three red on the bottom row (cols 1-3), yellow stacked on column 7
    p = Position.from_moves("17273")
    # red: window 1-4 holds 3 (100), 2-5 holds 2 (10), 3-6 holds 1 (1); plus ones
    # in vertical and diagonal windows: the plain reference counts them all
    assert evaluate("windows/mollerhoj", p, 1) == plain_windows(p, 1, "mollerhoj")
    assert evaluate("windows/zer0lose", p, 1) == plain_windows(p, 1, "zer0lose")
    mine, theirs = WINDOW_PRESETS["zer0lose"]
    assert mine == (1, 10, 1000, 100000) and theirs[:3] == (-1, -10, -500)
    assert WINDOW_PRESETS["mollerhoj"] == ((1, 10, 100, 1000), (-1, -10, -100, -1000))
    assert WINDOW_PRESETS["report"] == ((0, 10, 100, 1000), (0, -10, -100, -1000))


def test_windows_exact_three_window() -> None:
    # red 1,2,3 bottom; yellow 7,7: window 1-4 has three red, worth exactly 100 vs 1000
    p = Position.from_moves("17273")
    moll = evaluate("windows/mollerhoj", p, 1)
    zero = evaluate("windows/zer0lose", p, 1)
    # one 3-window (100 vs 1000) and the rest identical except yellow's 2-window
    # in column 7 (-10 both) and yellow's ones (-1 both): the gap is exactly 900
    assert zero - moll == 900


def test_report_scores_a_won_position_infinite() -> None:
    won = Position.from_moves("4455667")
    assert evaluate("windows/report", won, 1) == float("inf")
    assert evaluate("windows/report", won, 2) == float("-inf")


@pytest.mark.parametrize(("width", "height"), [(7, 6), (5, 4), (4, 4), (8, 6), (6, 7)])
def test_bit_parallel_windows_and_adjacency_match_plain_code(width: int, height: int) -> None:
    for p in random_positions(width, height, 60, seed=width * 10 + height):
        for player in (1, 2):
            for preset in WINDOW_PRESETS:
                if preset == "report" and p.winner() is not None:
                    continue
                assert evaluate(f"windows/{preset}", p, player) == plain_windows(p, player, preset)
            assert adjacency(p, player) == plain_adjacency(p, player)


def test_tictactoe_lines() -> None:
    assert evaluate("windows", TicTacToe.from_moves("5"), 1) == 4  # 4 lines through the centre
    assert evaluate("windows", TicTacToe.from_moves("51"), 1) == 1  # 3 open lines vs 2
    # O (1, 3): line 1-2-3 two (+10), 3-6-9 one (+1); X (5, 7): three open lines of one
    assert evaluate("windows/zer0lose", TicTacToe.from_moves("5173"), 2) == 10 + 1 - 3
    assert evaluate("cell-weights", TicTacToe.from_moves("51"), 1) == 4 - 3


# ---------------------------------------------------------------- cell weights
def test_cell_weight_table_from_geometry() -> None:
    assert cell_weight_table() == [
        [3, 4, 5, 7, 5, 4, 3],
        [4, 6, 8, 10, 8, 6, 4],
        [5, 8, 11, 13, 11, 8, 5],
        [5, 8, 11, 13, 11, 8, 5],
        [4, 6, 8, 10, 8, 6, 4],
        [3, 4, 5, 7, 5, 4, 3],
    ]
    # any size: each cell's weight is the number of windows through it
    for w, h in ((5, 4), (8, 7)):
        table = cell_weight_table(w, h)
        for c in range(w):
            for r in range(h):
                through = sum((c, r) in cells for cells in windows_of(w, h))
                assert table[h - 1 - r][c] == through


def test_cell_weights_authors_numbers() -> None:
    # the contest AI's examples: a corner-ish cell in 3 lines, a central one in 7
    assert cell_weights(Position.from_moves("1"), 1) == 3
    assert cell_weights(Position.from_moves("4"), 1) == 7
    assert cell_weights(Position.from_moves("41"), 1) == 7 - 3
    assert cell_weights(Position.from_moves("4444"), 2) == (10 + 13) - (7 + 13)


# ---------------------------------------------------------------- recent lines
def test_recent_lines_authors_numbers() -> None:
    assert recent_lines(Position(), 1) == 0
    # the last two moves: red (4,0)... windows of 2 and 3 through them only
    assert recent_lines(Position.from_moves("4455"), 1) == 3 * 1 - 3 * 1
    assert recent_lines(Position.from_moves("44556"), 1) == (3 + 3) - 3
    # a four counts 1000 (count-fours rules keep the game going)
    p = Position.from_moves("1122334", rules="count-fours")
    assert recent_lines(p, 1) == (1000 + 3 + 1) - (3 + 1)
    # a disc far from the last two moves does not count
    far = Position.from_moves("7745")
    assert recent_lines(far, 1) == recent_lines(Position.from_moves("45"), 1)
    assert evaluate("cell-weights+recent-lines", p, 1) == cell_weights(p, 1) + recent_lines(p, 1)
    assert get_heuristic("recent-lines").path_dependent


# ---------------------------------------------------------------- adjacency
def test_adjacency_authors_numbers() -> None:
    assert adjacency(Position.from_moves("4"), 1) == 3 * 10 + 2 * 5
    assert adjacency(Position.from_moves("44"), 1) == (10 + 10 + 5 + 5) - (10 + 10 + 10 + 4 * 5)
    four = Position.from_moves("1122334", rules="count-fours")
    assert adjacency(four, 1) == plain_adjacency(four, 1)
    # the 642 term: one four ahead
    assert four.score_of(1) == 1
    assert adjacency(four, 1) == plain_adjacency(four, 1)


# ---------------------------------------------------------------- threats
def test_threat_cells() -> None:
    g = geometry(7, 6)
    p = Position.from_moves("445566")
    red = threat_cells(p.stones(1), p.mask, g.height, g.board)
    assert red == (1 << (2 * 7)) | (1 << (6 * 7))  # columns 3 and 7, bottom row


def test_threats_parity_and_reachability() -> None:
    p = Position.from_moves("445566")
    # red: two live threats on row 1 (odd, red's parity) 2 x 60, and the zugzwang +180;
    # yellow: two threats on row 2 above red's threats, dead: 2 x 4;
    # windows equal (two 3-windows and one 2-window each); cell weights 16 - 24
    assert threats(p, 1) == 2 * 60 + 180 - 2 * 4 + (16 - 24)
    assert threats(p, 2) == -threats(p, 1)
    for q in random_positions(7, 6, 40, seed=3):
        assert threats(q, 1) == -threats(q, 2)


@pytest.mark.parametrize("name", heuristic_names())
def test_every_heuristic_runs_on_any_size(name: str) -> None:
    for w, h in ((7, 6), (5, 4), (4, 4), (9, 6), (6, 8)):
        for p in random_positions(w, h, 5, seed=w + h):
            if name == "windows/report" and p.winner() is not None:
                continue
            value = HEURISTICS[name](p, p.to_move)
            if name != "windows/zer0lose":
                assert value == -HEURISTICS[name](p, 3 - p.to_move)


def test_lookup_errors_list_valid_names() -> None:
    with pytest.raises(ValueError, match="unknown heuristic 'x': choose one of windows"):
        get_heuristic("x")
    with pytest.raises(ValueError, match="plays connect4 only"):
        get_heuristic("adjacency", "tictactoe")
    assert heuristic_names("tictactoe") == [
        "windows",
        "windows/mollerhoj",
        "windows/zer0lose",
        "windows/report",
        "cell-weights",
    ]
