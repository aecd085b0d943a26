"""The heuristic lab: players, depth parsing, a tiny lab run with its report and plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from connect4.arena import ArenaError
from connect4.arena.lab import lab_players, parse_depths, parse_lab_spec, run_lab
from connect4.cli.app import app

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_parse_depths() -> None:
    assert parse_depths("1-8") == [1, 2, 3, 4, 5, 6, 7, 8]
    assert parse_depths("2,4, 6") == [2, 4, 6]
    assert parse_depths("1-2,2-3") == [1, 2, 3]
    for bad, message in (("0-3", "must be 1-20"), ("4-2", "low to high"), ("a", "like 1-8"),
                         ("", "at least one")):  # fmt: skip
        with pytest.raises(ArenaError, match=message):
            parse_depths(bad)


def test_lab_players_round_trip() -> None:
    specs = lab_players([1, 3], ["threats", "windows/report"])
    assert specs == [
        "alphabeta:depth=1,heuristic=threats",
        "alphabeta:depth=3,heuristic=threats",
        "alphabeta:depth=1,heuristic=windows/report",
        "alphabeta:depth=3,heuristic=windows/report",
        "perfect",
    ]
    assert [parse_lab_spec(s) for s in specs] == [
        ("threats", 1), ("threats", 3), ("windows/report", 1), ("windows/report", 3), None
    ]  # fmt: skip


def test_tiny_lab_writes_report_tables_and_plots(tmp_path: Path) -> None:
    result = run_lab(
        tmp_path,
        depths=[1, 2],
        games=2,
        heuristics=["cell-weights", "windows/mollerhoj"],
        perfect=False,
        openings="plies=1",
        accuracy_nodes=0,
        seed=3,
    )
    assert result.report == tmp_path / "report.md"
    text = result.report.read_text()
    for heading in ("## Headline", "## Standings", "## Rating (Elo) by heuristic and depth",
                    "## Nodes per move by heuristic and depth", "## Plots"):  # fmt: skip
        assert heading in text
    assert "| cell-weights | " in text and "| windows/mollerhoj | " in text
    assert [p.name for p in result.plots] == [
        "rating_vs_depth.png",
        "accuracy_vs_depth.png",
        "nodes_vs_depth.png",
    ]
    for plot in result.plots:
        assert plot.read_bytes().startswith(PNG_SIGNATURE)
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(lines) == 12  # 4 players: 6 pairs x 2 games
    assert {json.loads(line)["game"] for line in lines} == set(range(12))
    depth_one = [row for row in result.summary.standings if "depth=1," in row.player]
    assert all(row.nodes_per_move is not None for row in depth_one)


def test_lab_cli_errors_are_precise(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["lab", "--heuristics", "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "error: unknown heuristic 'nope'" in result.stderr
    result = CliRunner().invoke(app, ["lab", "--depths", "9-1", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "low to high" in result.stderr
