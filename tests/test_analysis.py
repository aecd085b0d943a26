"""Minimax vs alpha-beta tables: exact node counts, budget stops, JSON rows, the plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connect4 import Position, TicTacToe
from connect4.classic.analysis import (
    compare,
    parse_depth,
    plot,
    render_table,
    rows_json,
)


def test_full_tictactoe_comparison() -> None:
    rows = compare(TicTacToe(), parse_depth("all", TicTacToe()))
    assert [(r.depth, r.algorithm, r.nodes, r.value, r.move) for r in rows] == [
        (9, "minimax", 549_946, 0, "5"),
        (9, "alphabeta", 7_865, 0, "5"),
    ]


def test_connect4_rows_and_ratio() -> None:
    rows = compare(Position(), [1, 2, 3, 4])
    mm = [r.nodes for r in rows if r.algorithm == "minimax"]
    ab = [r.nodes for r in rows if r.algorithm == "alphabeta"]
    assert mm == [8, 57, 400, 2801]
    assert all(a <= m for a, m in zip(ab, mm, strict=True))
    values = [(r.value, r.move) for r in rows]
    assert values[0::2] == values[1::2]  # same value and move for both algorithms


def test_minimax_stops_at_the_budget() -> None:
    rows = compare(Position(), [3, 4, 5], budget=1000)
    mm = [r for r in rows if r.algorithm == "minimax"]
    assert mm[0].complete and mm[0].nodes == 400
    assert not mm[1].complete and mm[1].nodes == 1001 and mm[1].value is None
    assert not mm[2].complete and mm[2].nodes == 0  # not run once stopped
    assert all(r.complete for r in rows if r.algorithm == "alphabeta")
    table = render_table(rows, "t", budget=1000)
    assert table.row_count == 3


def test_json_rows_and_plot(tmp_path: Path) -> None:
    rows = compare(TicTacToe.from_moves("5"), [1, 2, 3])
    data = json.loads(rows_json(rows))
    assert {"depth", "algorithm", "nodes", "seconds", "value", "move"} <= set(data[0])
    out = tmp_path / "plot.png"
    plot(rows, str(out), "test")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="max depth: all is for tictactoe"):
        parse_depth("all", Position())
    for text in ("0", "\u0663", "\u00b3"):  # zero, an Arabic 3, a superscript 3
        with pytest.raises(ValueError, match="must be a number 1-42 or 'all'"):
            parse_depth(text, Position())
    with pytest.raises(ValueError, match="nothing to analyse"):
        compare(TicTacToe.from_moves("14253"), [1])


def test_ordering_changes_nodes_not_values() -> None:
    centre = compare(Position(), [4])
    plain = compare(Position(), [4], ordering="none")
    assert [r.nodes for r in centre] == [2801, 239]
    assert [r.nodes for r in plain] == [2801, 979]
    assert [r.value for r in centre] == [r.value for r in plain] == [-4, -4]
