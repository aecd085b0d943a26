"""Recorded search trees: node counts, pruned children, cap, renderers, JSON schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from connect4 import Position, TicTacToe
from connect4.classic.search import Limits, search
from connect4.classic.tree import iter_nodes, render, render_dot, render_text, search_tree

NODE_KEYS = {
    "id", "path", "move", "depth", "alpha", "beta", "value", "eval", "pruned", "tt_hit",
    "children",
}  # fmt: skip


def searched(tree: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in iter_nodes(tree["tree"]) if not n["pruned"]]


def test_minimax_depth_2_has_57_nodes() -> None:
    tree = search_tree(Position(), depth=2, algorithm="minimax")
    nodes = iter_nodes(tree["tree"])
    assert tree["node_count"] == len(nodes) == 57 and tree["pruned_count"] == 0
    assert [n["id"] for n in nodes] == list(range(57))
    assert all(set(n) == NODE_KEYS for n in nodes)
    leaves = [n for n in nodes if n["depth"] == 2]
    assert len(leaves) == 49 and all(n["eval"] == n["value"] for n in leaves)
    assert all(n["alpha"] is None and n["beta"] is None for n in nodes)
    assert nodes[1]["path"] == "4" and nodes[2]["path"] == "44" and nodes[2]["move"] == "4"


def test_values_back_up_by_max_and_min() -> None:
    tree = search_tree(Position.from_moves("44"), depth=3, algorithm="minimax")
    for node in searched(tree):
        kids = [c["value"] for c in node["children"]]
        if kids:
            assert node["value"] == (max(kids) if node["depth"] % 2 == 0 else min(kids))
    result = search(Position.from_moves("44"), limits=Limits(depth=3), algorithm="minimax")
    assert tree["value"] == result.value and tree["node_count"] == result.stats.nodes


def test_alphabeta_tree_marks_pruned_children() -> None:
    tree = search_tree(Position.from_moves("44"), depth=3, algorithm="alphabeta")
    result = search(Position.from_moves("44"), limits=Limits(depth=3))
    assert tree["node_count"] == result.stats.nodes
    pruned = [n for n in iter_nodes(tree["tree"]) if n["pruned"]]
    assert len(pruned) == tree["pruned_count"] > 0
    assert all(n["value"] is None and n["children"] == [] for n in pruned)
    # every node has all its legal moves as children (searched or pruned), leaves excepted
    for node in searched(tree):
        if node["depth"] < 3:
            assert len(node["children"]) == 7
    # a cut-off happens exactly where the window closed
    for node in searched(tree):
        kids = node["children"]
        if any(k["pruned"] for k in kids):
            last = [k for k in kids if not k["pruned"]][-1]
            alpha = node["alpha"] if node["alpha"] is not None else float("-inf")
            beta = node["beta"] if node["beta"] is not None else float("inf")
            if node["depth"] % 2 == 0:
                assert last["value"] >= beta
            else:
                assert last["value"] <= alpha
    assert tree["value"] == result.value


def test_cap_truncates_but_the_search_goes_on() -> None:
    tree = search_tree(Position(), depth=4, algorithm="minimax", cap=100)
    assert tree["truncated"] and tree["node_count"] == 100
    assert tree["nodes"] == 2801 and tree["value"] == -4


def test_tictactoe_tree_and_text() -> None:
    tree = search_tree(TicTacToe.from_moves("5192"), depth=1, algorithm="minimax")
    text = render_text(tree)
    assert text.splitlines()[1] == "├── 3  = 21  leaf"
    assert text.rstrip().endswith("6 nodes, 0 pruned")


def test_dot_and_json() -> None:
    tree = search_tree(TicTacToe.from_moves("5"), depth=2)
    dot = render_dot(tree)
    assert dot.startswith("digraph search {") and dot.rstrip().endswith("}")
    assert dot.count("->") == len(iter_nodes(tree["tree"])) - 1
    assert "style=dashed" in dot
    data = json.loads(render(tree, "json"))
    assert data["node_count"] == tree["node_count"] and data["game"] == "tictactoe"
    with pytest.raises(ValueError, match="unknown format 'svg'"):
        render(tree, "svg")


def test_tree_with_a_table_marks_hits() -> None:
    tree = search_tree(Position.from_moves("4453"), depth=4, algorithm="alphabeta", tt=True)
    hits = [n for n in iter_nodes(tree["tree"]) if n["tt_hit"]]
    assert hits and tree["stats"]["tt_hits"] >= len(hits)
    assert all(n["eval"] is None and n["children"] == [] for n in hits)
    assert tree["node_count"] == tree["stats"]["nodes"]
    plain = search(Position.from_moves("4453"), limits=Limits(depth=4))
    assert tree["value"] == plain.value
