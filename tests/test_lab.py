"""The heuristic lab: players, depth parsing, a tiny lab run with its report and plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from connect4.arena import ArenaError
from connect4.arena.lab import LabConfig, lab_player, lab_players, parse_lab_spec, run_lab
from connect4.arena.labreport import write_report
from connect4.cli.app import app
from connect4.cli.lab import parse_clocks, parse_depths, parse_playouts
from connect4.core.errors import BudgetExceeded
from connect4.solver.bench import pons_path
from tests.cli_helpers import check_existing_output_refused, run_cli

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
    config = LabConfig(
        depths=(1, 2),
        games=2,
        heuristics=("cell-weights", "windows/mollerhoj"),
        perfect=False,
        openings="plies=1",
        accuracy_nodes=0,
        seed=3,
    )
    result = write_report(tmp_path, run_lab(tmp_path, config))
    assert result.report == tmp_path / "report.md"
    text = result.report.read_text()
    for heading in ("## Headline", "## Standings", "## Rating (Elo) by heuristic and depth",
                    "## Nodes per move by heuristic and depth", "## Plots"):  # fmt: skip
        assert heading in text
    assert "| cell-weights | " in text and "| windows/mollerhoj | " in text
    assert [p.name for p in result.plots] == [  # no clocks: no plots against time
        "rating_vs_depth.png",
        "accuracy_vs_depth.png",
        "nodes_vs_depth.png",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["report.md", "results.jsonl", *(p.name for p in result.plots)]
    )  # no test sets: no test_sets.jsonl
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
    # the tournament's games_per_pair is the lab's --games (there is no --games-per-pair)
    args = ["lab", "--games", str(10**12), "--depths", "1-2", "--no-perfect", "--out"]
    result = CliRunner().invoke(app, [*args, str(tmp_path / "g")])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --games: ") and "--games-per-pair" not in result.stderr
    assert "more than the 1,000,000 games a tournament may hold" in result.stderr


def test_mcts_and_timed_specs_round_trip() -> None:
    specs = lab_players(
        [2], ["threats"], perfect=False, playouts=[1000, 100_000], solver=("off", "on"),
        clocks=[0.1],
    )  # fmt: skip
    assert specs == [
        "alphabeta:depth=2,heuristic=threats",
        "mcts:playouts=1000,solver=off",
        "mcts:playouts=100000,solver=off",
        "mcts:playouts=1000,solver=on",
        "mcts:playouts=100000,solver=on",
        "alphabeta:time=0.1,heuristic=threats",
        "mcts:time=0.1,solver=off",
        "mcts:time=0.1,solver=on",
    ]
    parsed = [lab_player(spec) for spec in specs]
    assert [(p.family, p.series, p.depth, p.playouts, p.clock) for p in parsed if p] == [
        ("alphabeta", "threats", 2, None, None),
        ("mcts", "MCTS", None, 1000, None),
        ("mcts", "MCTS", None, 100_000, None),
        ("mcts", "MCTS + solver", None, 1000, None),
        ("mcts", "MCTS + solver", None, 100_000, None),
        ("alphabeta", "threats", None, None, 0.1),
        ("mcts", "MCTS", None, None, 0.1),
        ("mcts", "MCTS + solver", None, None, 0.1),
    ]
    assert lab_player("random") is None and parse_lab_spec("mcts:playouts=1000,solver=on") is None
    from connect4.players import make_player

    for spec in specs:  # every lab spec is a valid player
        make_player(spec).close()


def test_playouts_and_clocks_parse_or_fail_precisely() -> None:
    assert parse_playouts("1k, 10K,100000") == [1000, 10_000, 100_000]
    assert parse_playouts("none") == [] and parse_clocks(None) == []
    assert parse_clocks("0.5,0.1,0.5") == [0.1, 0.5]
    for bad in ("1m", "0", "k", "-5"):
        with pytest.raises(ArenaError, match="like 1k,10k,100k"):
            parse_playouts(bad)
    for bad in ("fast", "0", "100"):
        with pytest.raises(ArenaError, match=r"give seconds 0\.01-60"):
            parse_clocks(bad)


def first_positions(name: str, folder: Path, count: int = 2) -> Path:
    """A test set in ``folder``: the first ``count`` positions of Pons' benchmark ``name``."""
    pons = pons_path(name)
    test_set = folder / name
    test_set.write_text("".join(pons.read_text().splitlines(keepends=True)[:count]))
    return test_set


def test_tiny_lab_through_the_cli_has_mcts_rows_equal_clocks_test_sets_and_plots(
    tmp_path: Path,
) -> None:
    test_set = first_positions("Test_L2_R1", tmp_path)
    out = tmp_path / "lab"
    finished = run_cli(
        "lab", "--depths", "1", "--heuristics", "cell-weights", "--no-perfect",
        "--playouts", "30,100", "--mcts-solver", "both", "--time-per-move", "0.02",
        "--games", "2", "--openings", "plies=1", "--accuracy-nodes", "5000",
        "--test-set", str(test_set), "--test-positions", "2", "--out", str(out),
        timeout=600,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    report = (out / "report.md").read_text()
    for heading in ("## MCTS by playouts", "## Equal clock: 0.02 s per move",
                    "## Accuracy on test sets"):  # fmt: skip
        assert heading in report
    assert "| MCTS | 30 | " in report and "| MCTS + solver | 100 | " in report
    for spec in ("mcts:playouts=30,solver=off", "mcts:time=0.02,solver=on",
                 "alphabeta:time=0.02,heuristic=cell-weights"):  # fmt: skip
        assert f"`{spec}`" in report
    assert "| Middle-Easy % | ms/move |" in report
    names = ["rating_vs_depth.png", "accuracy_vs_depth.png", "nodes_vs_depth.png",
             "rating_vs_time.png", "accuracy_vs_time.png"]  # fmt: skip
    for name in names:
        assert (out / name).read_bytes().startswith(PNG_SIGNATURE)
        assert f"![{name[:-4]}]({name})" in report
    scores = [json.loads(line) for line in (out / "test_sets.jsonl").read_text().splitlines()]
    assert len(scores) == 8 and {s["positions"] for s in scores} == {2}  # 8 players x 1 set
    assert all(0 <= s["optimal"] <= 2 for s in scores)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 56 and all("verdicts" in r for r in records)  # 8 players: 28 pairs
    spec = "mcts:playouts=30,solver=off"
    mcts_nodes = [
        n for r in records for colour in ("red", "yellow") if r[colour] == spec
        for n in r["move_nodes"][(len(r["opening"]) + (colour == "yellow")) % 2 :: 2]
    ]  # fmt: skip
    assert mcts_nodes and max(mcts_nodes) == 30  # playouts recorded as the work per move
    bad = run_cli("lab", "--test-set", str(tmp_path / "missing"), "--out", str(out))
    assert bad.returncode == 2
    missing = tmp_path / "missing"
    assert bad.stderr == f"error: --test-set benchmark file {missing} does not exist\n"


def test_net_specs_round_trip() -> None:
    specs = lab_players(
        [], [], perfect=False, solver=(), clocks=[0.1, 0.5], net=True, net_playouts=[100, 800]
    )
    assert specs == ["net", "net:playouts=100", "net:playouts=800", "net:time=0.1", "net:time=0.5"]
    parsed = [lab_player(spec) for spec in specs]
    assert [(p.family, p.series, p.playouts, p.clock) for p in parsed if p] == [
        ("net", "network", None, None),
        ("net", "network", 100, None),
        ("net", "network", 800, None),
        ("net", "network", None, 0.1),
        ("net", "network", None, 0.5),
    ]
    # other net specs are not the lab's own shapes
    for other in ("net:temperature=1", "net:playouts=10,time=1", "net:level=hard"):
        assert lab_player(other) is None
    assert lab_players([], [], perfect=False, solver=(), clocks=[0.1], net_playouts=[100]) == []


def test_tiny_lab_with_the_network_places_it_at_equal_time(tmp_path: Path) -> None:
    test_set = first_positions("Test_L3_R1", tmp_path)
    out = tmp_path / "lab"
    finished = run_cli(
        "lab", "--depths", "1", "--heuristics", "cell-weights", "--no-perfect",
        "--playouts", "none", "--mcts-solver", "on", "--time-per-move", "0.02",
        "--net", "--net-playouts", "20", "--games", "2", "--openings", "plies=1",
        "--accuracy-nodes", "5000", "--test-set", str(test_set), "--test-positions", "2",
        "--out", str(out), timeout=600,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    assert "- network: raw (one forward pass) " in finished.stdout
    report = (out / "report.md").read_text()
    assert "## MCTS and the network by playouts" in report
    assert "| network | – | " in report and "| network | 20 | " in report
    clock = report.split("## Equal clock: 0.02 s per move")[1].split("\n## ")[0]
    for spec in ("net:time=0.02", "mcts:time=0.02,solver=on",
                 "alphabeta:time=0.02,heuristic=cell-weights"):  # fmt: skip
        assert f"| `{spec}` | " in clock
    assert "| `net` | raw (one forward pass) | " in report
    players = ["alphabeta:depth=1,heuristic=cell-weights", "net", "net:playouts=20",
               "alphabeta:time=0.02,heuristic=cell-weights", "mcts:time=0.02,solver=on",
               "net:time=0.02"]  # fmt: skip
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 30  # 6 players: 15 pairs x 2 games
    assert {r["red"] for r in records} | {r["yellow"] for r in records} == set(players)
    net_nodes = [
        n for r in records for colour in ("red", "yellow") if r[colour] == "net:playouts=20"
        for n in r["move_nodes"][(len(r["opening"]) + (colour == "yellow")) % 2 :: 2]
    ]  # fmt: skip
    assert net_nodes and set(net_nodes) == {20}  # PUCT's playouts are its work per move
    scores = [json.loads(line) for line in (out / "test_sets.jsonl").read_text().splitlines()]
    assert sorted(s["spec"] for s in scores) == sorted(players)
    assert (out / "rating_vs_time.png").read_bytes().startswith(PNG_SIGNATURE)
    bad = run_cli("lab", "--net", "--net-playouts", "lots", "--out", str(out))
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: --net-playouts 'lots': write playout counts")


def test_lab_files_in_the_folder_need_force_or_resume_onto_the_labs_own(tmp_path: Path) -> None:
    out = tmp_path / "lab"
    out.mkdir()
    report = out / "report.md"
    report.write_bytes(b"# My thesis\n")
    args = ("lab", "--depths", "1", "--heuristics", "cell-weights,windows/mollerhoj",
            "--no-perfect", "--playouts", "none", "--games", "1", "--openings", "plies=1",
            "--out", str(out))  # fmt: skip
    foreign = "it does not start with the title of a lab report"
    check_existing_output_refused(args, report, "lab report", foreign=foreign)
    assert sorted(p.name for p in out.iterdir()) == ["report.md"]  # no game was played
    forced = run_cli(*args, "--force", timeout=600)
    assert forced.returncode == 0, forced.stderr
    assert report.read_text().startswith("# Lab: ")
    resumed = run_cli(*args, "--resume", timeout=600)
    assert resumed.returncode == 0, resumed.stderr


@pytest.mark.parametrize(
    ("error", "reason", "timeouts"),
    [
        # its own time ended before its first playout (seen under load with mcts:time=0.02)
        (BudgetExceeded("the limit stopped the search before its first playout"), "timeout", 2),
        (RuntimeError("out of its mind"), "crash", 0),
    ],
)
def test_a_player_that_fails_on_a_test_set_is_counted_and_the_run_goes_on(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    reason: str,
    timeouts: int,
) -> None:
    """The lab judges moves as `connect4 rate` does: a failure on a position counts as
    not optimal, by its reason, and the run goes on."""
    import connect4.players as players
    from connect4.arena.lab import score_test_set

    class Fails:
        spec = "mcts:time=0.02"

        def choose(self, game: object, limit: object = None) -> object:
            raise error

        def close(self) -> None:
            pass

    monkeypatch.setattr(players, "make_player", lambda spec, seed: Fails())
    monkeypatch.setattr(players, "rehearse", lambda *args: None)
    test_set = first_positions("Test_L2_R1", tmp_path)
    score = score_test_set(("mcts:time=0.02", str(test_set), 2))
    assert (score.positions, score.optimal, score.timeouts) == (2, 0, timeouts)
    assert score.failures == {reason: 2}
