"""The Monte Carlo tree search's tree through the real ``connect4 tree`` command."""

from __future__ import annotations

import json
from typing import Any

from connect4 import Position
from connect4.classic.mcts import Mcts
from connect4.classic.tree import iter_nodes, mcts_tree
from tests.cli_helpers import run_cli


def tree_json(*args: str) -> dict[str, Any]:
    done = run_cli("tree", *args, "--algorithm", "mcts", "--format", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    tree: dict[str, Any] = json.loads(done.stdout)
    return tree


def test_tictactoe_json_has_exact_visits_and_the_played_path() -> None:
    tree = tree_json("5", "--game", "tictactoe", "--playouts", "200", "--seed", "1", "--cap", "12")
    root = tree["tree"]
    assert (tree["algorithm"], tree["playouts"], tree["move"]) == ("mcts", 200, "3")
    assert (tree["node_count"], tree["nodes"], tree["truncated"]) == (12, 401, True)
    assert root["visits"] == 200
    children = [(c["move"], c["visits"], c["uct"], c["best"]) for c in root["children"]]
    assert children == [
        ("1", 26, 0.8865, False), ("3", 34, 0.8948, True), ("7", 20, 0.9007, False),
        ("9", 27, 0.8839, False), ("2", 21, 0.8987, False), ("4", 29, 0.9303, False),
        ("6", 24, 0.8917, False), ("8", 19, 0.9025, False),
    ]  # fmt: skip
    nodes = iter_nodes(root)
    assert len(nodes) == 12 and [n["id"] for n in nodes] == list(range(12))
    assert [n["path"] for n in nodes if n["best"]] == ["", "3", "39"]
    # the classic tree's keys are all there, so the tree explorer can read it
    assert all({"alpha", "beta", "value", "eval", "pruned", "tt_hit"} <= set(n) for n in nodes)


def test_connect4_json_matches_the_compiled_engine() -> None:
    tree = tree_json("44", "--playouts", "1000", "--seed", "1", "--cap", "20")
    visits = [c["visits"] for c in tree["tree"]["children"]]
    assert visits == [150, 237, 122, 164, 134, 93, 100]
    compiled = Mcts(seed=1).search(Position.from_moves("44"), playouts=1000)
    assert compiled.engine == "numba" and [c.visits for c in compiled.children] == visits
    assert tree["move"] == "3" and tree["node_count"] == 20


def test_min_visits_and_cap_limit_the_nodes_shown() -> None:
    tree = mcts_tree(Position.from_moves("44"), playouts=1000, seed=1, cap=500, min_visits=30)
    nodes = iter_nodes(tree["tree"])
    assert all(n["visits"] >= 30 for n in nodes) and tree["node_count"] == len(nodes) < 500


def test_solver_proofs_show_for_the_root_player() -> None:
    tree = tree_json("445566", "--playouts", "300", "--seed", "2", "--solver")
    root = tree["tree"]
    assert root["proven"] == 1 and tree["playouts"] == 2  # the win in one is proven at once
    assert [(c["move"], c["proven"], c["eval"]) for c in root["children"]] == [
        ("4", None, None),
        ("3", 1, 1),
    ]


def test_text_and_dot_mark_the_played_path() -> None:
    text = run_cli(
        "tree", "5", "--game", "tictactoe", "--algorithm", "mcts", "--playouts", "200",
        "--seed", "1", "--cap", "12",
    )  # fmt: skip
    assert text.returncode == 0, text.stderr[-2000:]
    lines = text.stdout.splitlines()
    assert lines[0] == "root  n 200  v -0.495  *"
    assert lines[2] == "├── 3  n 34  v -0.324  uct 0.895  *"
    assert lines[-1].startswith("12 of 401 nodes shown")
    dot = run_cli(
        "tree", "44", "--algorithm", "mcts", "--playouts", "1000", "--seed", "1",
        "--cap", "20", "--format", "dot",
    )  # fmt: skip
    assert dot.returncode == 0, dot.stderr[-2000:]
    assert dot.stdout.startswith("digraph mcts {")
    assert 'n0 [label="root\\nn 1000\\nv +0.255", color=red, penwidth=2];' in dot.stdout
    assert dot.stdout.count("-> ") == 19 and dot.stdout.count("[color=red, penwidth=2];") == 2


def test_bad_algorithm_names_mcts() -> None:
    done = run_cli("tree", "", "--algorithm", "uct")
    assert done.returncode != 0 and "minimax, alphabeta, mcts" in done.stdout + done.stderr


def test_both_engines_give_the_same_tree() -> None:
    from connect4.classic.tree import mcts_tree_of

    game = Position.from_moves("4453")
    trees = []
    for engine in ("numba", "python"):
        mcts = Mcts(seed=5, solver=True, engine=engine)
        result = mcts.search(game, playouts=1500)
        tree = mcts_tree_of(mcts, game, result, cap=200, min_visits=2)
        trees.append((tree["tree"], tree["move"], tree["node_count"], tree["nodes"]))
    assert trees[0] == trees[1] and trees[0][2] == 200
