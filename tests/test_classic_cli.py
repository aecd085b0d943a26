"""``connect4 tree``, ``connect4 analyze`` and search players in ``connect4 play``,
through the real command in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import run_cli


def test_tree_minimax_depth_2_json_has_57_nodes() -> None:
    done = run_cli("tree", "", "--depth", "2", "--algorithm", "minimax", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["node_count"] == 57 and not data["truncated"]

    def count(node: dict[str, object]) -> int:
        children = node["children"]
        assert isinstance(children, list)
        return 1 + sum(count(child) for child in children)

    assert count(data["tree"]) == 57


def test_tree_text_and_dot() -> None:
    text = run_cli("tree", "44", "--depth", "2", "--algorithm", "alphabeta", "--format", "text")
    assert text.returncode == 0, text.stderr
    assert "pruned" in text.stdout and text.stdout.startswith("root")
    dot = run_cli("tree", "5", "--game", "tictactoe", "--depth", "1", "--format", "dot")
    assert dot.returncode == 0 and dot.stdout.startswith("digraph search {")
    heur = run_cli("tree", "", "--depth", "1", "--heuristic", "threats", "--format", "json")
    assert json.loads(heur.stdout)["heuristic"] == "threats"


def test_tree_bad_input_is_a_clean_error() -> None:
    for args, message in (
        (("tree", "48", "--depth", "2"), "error: move 2 ('8'): column 8 is out of range 1-7"),
        (("tree", "", "--format", "xml"), "error: unknown format 'xml'"),
        (("tree", "", "--algorithm", "negamax"), "error: unknown algorithm 'negamax'"),
        (("tree", "", "--heuristic", "magic"), "error: unknown heuristic 'magic'"),
        (("tree", "4455667", "--depth", "1"), "error: the game is over"),
        (
            ("tree", "", "--depth", "5", "--algorithm", "minimax", "--budget", "1000"),
            "error: --budget: the search stopped at 1,000 nodes",
        ),
    ):
        done = run_cli(*args)
        assert done.returncode == 2 and done.stderr.startswith(message), done.stderr
        assert "Traceback" not in done.stderr


def test_analyze_json_and_table(tmp_path: Path) -> None:
    plot = tmp_path / "nodes.png"
    done = run_cli(
        "analyze", "--game", "tictactoe", "--max-depth", "all", "--json", "--plot", str(plot)
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [(r["algorithm"], r["nodes"], r["value"]) for r in rows] == [
        ("minimax", 549_946, 0),
        ("alphabeta", 7_865, 0),
    ]
    assert plot.read_bytes()[:4] == b"\x89PNG"
    table = run_cli("analyze", "44", "--max-depth", "5", "--budget", "2000")
    assert table.returncode == 0, table.stderr
    assert "stopped" in table.stdout and "budget of 2,000 nodes" in table.stdout
    bad = run_cli("analyze", "--max-depth", "all")
    assert bad.returncode == 2 and "all is for tictactoe" in bad.stderr


def test_play_against_search_players() -> None:
    done = run_cli("play", "--red", "alphabeta:level=easy", "--yellow", "minimax:depth=1", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["moves"]
    human = run_cli("play", "--red", "human", "--yellow", "alphabeta:level=hard", stdin="4\nq\n")
    assert human.returncode == 0, human.stderr
    assert "quit after 2 moves" in human.stdout
    ttt = run_cli(
        "play",
        "--game",
        "tictactoe",
        "--red",
        "alphabeta:depth=9",
        "--yellow",
        "alphabeta:level=hard",
        "--json",
    )
    assert ttt.returncode == 0, ttt.stderr
    result = json.loads(ttt.stdout)
    assert result["finished"] and result["winner"] is None  # perfect play draws
    bad = run_cli("play", "--red", "alphabeta:depth=99", "--yellow", "random")
    assert bad.returncode == 2 and "depth='99' must be an integer 1-42" in bad.stderr
