"""The game review in the arena: ``arena --review`` standings and ``review --results --game N``,
through the real command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connect4.arena import ArenaConfig, ResultsStore, run_tournament
from connect4.core.games import Board
from connect4.review import review
from tests.cli_helpers import run_cli

SPECS = ("alphabeta:depth=1", "random:seed=4", "mcts:playouts=50")


def reviewed_arena(tmp_path: Path, *extra: str) -> tuple[Path, dict[str, object]]:
    """A small 5x4 tournament (every position solvable) with --review: results and --json."""
    results = tmp_path / "t.jsonl"
    finished = run_cli(
        "arena", "--players", *SPECS, "--width", "5", "--height", "4",
        "--games-per-pair", "2", "--openings", "plies=1", "--seed", "3",
        "--results", str(results), "--review", "--json", *extra,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    return results, json.loads(finished.stdout)


def test_review_standings_equal_a_direct_review_of_the_recorded_games(tmp_path: Path) -> None:
    results, summary = reviewed_arena(tmp_path)
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 6
    expected: dict[str, dict[str, int]] = {spec: {} for spec in SPECS}
    for record in records:
        assert (record["kind"], record["width"], record["height"], record["rules"]) == (
            "connect4", 5, 4, "standard",
        )  # fmt: skip
        direct = review(
            record["moves"], Board("connect4", 5, 4), opening=len(record["opening"]),
            names=(record["red"], record["yellow"]),
        )  # fmt: skip
        assert record["verdicts"] == [row.verdict for row in direct.plies[len(record["opening"]) :]]
        for figures, spec in zip(direct.players, (record["red"], record["yellow"]), strict=True):
            totals = expected[spec]
            for key in ("proven", "best", "mistakes", "blunders"):
                totals[key] = totals.get(key, 0) + getattr(figures, key)
            totals["unproven"] = totals.get("unproven", 0) + figures.moves - figures.proven
            totals["games"] = totals.get("games", 0) + 1
    standings = summary["standings"]
    assert isinstance(standings, list)
    for row in standings:
        totals = expected[row["player"]]
        assert row["reviewed_games"] == totals["games"] == 4
        assert row["proven_moves"] == totals["proven"] > 0
        assert row["unproven_moves"] == totals["unproven"] == 0
        assert row["accuracy"] == pytest.approx(totals["best"] / totals["proven"])
        assert row["mistakes_per_game"] == pytest.approx(totals["mistakes"] / 4)
        assert row["blunders_per_game"] == pytest.approx(totals["blunders"] / 4)
    assert sum(row["blunders_per_game"] for row in standings) > 0  # random blunders


def test_review_table_shows_the_columns(tmp_path: Path) -> None:
    finished = run_cli(
        "arena", "--players", *SPECS[:2], "--game", "tictactoe", "--games-per-pair", "2",
        "--review", "--seed", "1",
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    assert "Review (accuracy: best of proven moves)" in finished.stdout
    for header in ("accuracy", "mistakes/game", "blunders/game", "not proven"):
        assert header in finished.stdout
    plain = run_cli("arena", "--players", *SPECS[:2], "--game", "tictactoe", "--json")
    assert plain.returncode == 0, plain.stderr
    rows = json.loads(plain.stdout)["standings"]
    assert {(r["reviewed_games"], r["accuracy"], r["mistakes_per_game"]) for r in rows} == {
        (0, None, None)
    }


def test_review_of_an_arena_game_equals_the_review_of_its_moves(tmp_path: Path) -> None:
    results, _ = reviewed_arena(tmp_path)
    record = json.loads(results.read_text().splitlines()[3])
    assert record["game"] == 3
    from_file = run_cli("review", "--results", str(results), "--game", "3", "--json")
    assert from_file.returncode == 0, from_file.stderr
    data = json.loads(from_file.stdout)
    direct = review(record["moves"], Board("connect4", 5, 4), opening=len(record["opening"]),
                    names=(record["red"], record["yellow"]))  # fmt: skip
    assert data == json.loads(json.dumps(direct.as_dict()))
    assert data["names"] == [record["red"], record["yellow"]] and data["opening"] == 1
    by_moves = run_cli("review", record["moves"], "--width", "5", "--height", "4", "--json")
    plies = json.loads(by_moves.stdout)["plies"]
    assert plies == data["plies"]  # the same grades; only the figures skip the opening
    table = run_cli("review", "--results", str(results), "--game", "3")
    assert table.returncode == 0, table.stderr
    assert f"red ({record['red']}) vs yellow ({record['yellow']})" in table.stdout
    assert "best (opening)" in table.stdout or "(opening)" in table.stdout
    assert table.stdout.splitlines()[-3].startswith(f"red ({record['red']}): accuracy ")


def test_review_results_errors_are_precise(tmp_path: Path) -> None:
    results, _ = reviewed_arena(tmp_path)
    lines = results.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n{not json\n" + lines[1] + "\n")
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text(lines[0] + "\n" + '{"game": 1}\n')
    old = tmp_path / "old.jsonl"
    legacy = {k: v for k, v in json.loads(lines[0]).items() if k not in ("kind", "width")}
    old.write_text(json.dumps(legacy) + "\n")
    torn = tmp_path / "torn.jsonl"
    torn.write_text(lines[0] + "\n" + lines[1][:20])
    cases = [
        (["--results", str(results), "--game", "9"],
         f"error: {results} has no game 9 (it holds games 0-5)"),
        (["--results", str(tmp_path / "none.jsonl"), "--game", "0"],
         f"error: results file {tmp_path / 'none.jsonl'} does not exist"),
        (["--results", str(bad), "--game", "1"], f"error: {bad} line 2: not JSON ("),
        (["--results", str(foreign), "--game", "1"],
         f"error: {foreign} line 2: not a game record of connect4 arena"),
        (["--results", str(torn), "--game", "1"],
         f"error: {torn} has no game 1 (it holds games 0)"),
        (["--results", str(old), "--game", "0"],
         "error: game 0 does not record its board (written by an older connect4)"),
        (["--results", str(results)], "error: --results needs --game N"),
        (["--results", str(results), "--game", "\u0663"],  # an Arabic 3 is not game 3
         "error: --results needs --game N"),
        (["--results", str(results), "--game", "tictactoe"], "not 'tictactoe'"),
        (["--results", str(results), "--game", "1", "--width", "7"],
         "error: --width: with --results the board comes from the record"),
        (["44", "--results", str(results), "--game", "1"],
         "error: give either MOVES or --results FILE --game N, not both"),
        (["44", "--game", "2"], "error: --game 2 picks a game of an arena results file"),
        ([], "error: give the game's MOVES, or --results FILE --game N"),
    ]  # fmt: skip
    for args, message in cases:
        finished = run_cli("review", *args)
        assert finished.returncode == 2, (args, finished.stdout)
        assert finished.stderr.startswith("error: ") and message in finished.stderr, (
            args, finished.stderr,
        )  # fmt: skip
        assert len(finished.stderr.strip().splitlines()) == 1 and finished.stdout == ""


def test_review_needs_standard_rules_and_a_budget() -> None:
    fours = run_cli("arena", "--players", *SPECS[:2], "--rules", "count-fours", "--review")
    assert fours.returncode == 2
    assert "count-fours games cannot be reviewed" in fours.stderr
    zero = run_cli("arena", "--players", *SPECS[:2], "--review", "--accuracy-nodes", "0")
    assert zero.returncode == 2
    assert "--review needs a positive --accuracy-nodes" in zero.stderr


def test_resuming_with_review_reviews_the_games_stored_without_it(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    config = ArenaConfig(players=SPECS[:2], board=Board("tictactoe"), games_per_pair=4, seed=2)
    run_tournament(config, results)
    assert all("verdicts" not in json.loads(line) for line in results.read_text().splitlines())
    # The same tournament, now reviewed (a run whose lines predate the review).
    from dataclasses import replace

    reviewed = replace(config, accuracy_nodes=1)
    lines = results.read_text().replace(config.fingerprint(), reviewed.fingerprint())
    results.write_text(lines)
    run = run_tournament(reviewed, results, resume=True)
    assert run.resumed == 4 and all("verdicts" in record for record in run.records)
    assert len(results.read_text().splitlines()) == 8  # each game stored again, reviewed
    with ResultsStore(results, reviewed).open(resume=True) as again:
        assert [again.records[i] for i in range(4)] == run.records
    assert len(results.read_text().splitlines()) == 4  # rewritten on resume: each game once


def test_review_of_a_game_stops_reading_at_it(tmp_path: Path) -> None:
    """``review --results FILE --game N`` reads no further than game N: what follows
    it (here a line over the reader's line limit and a damaged line) is never read."""
    from connect4.arena.store import MAX_RECORD_LINE, read_game

    results = tmp_path / "r.jsonl"
    config = ArenaConfig(players=SPECS[:2], board=Board("tictactoe"), games_per_pair=2, seed=2)
    run_tournament(config, results)
    first, second = results.read_text().splitlines()
    big = tmp_path / "big.jsonl"
    big.write_text(first + "\n" + "x" * (MAX_RECORD_LINE + 10) + "\n{not json\n" + second + "\n")
    assert read_game(big, 0) == json.loads(first)
    finished = run_cli("review", "--results", str(big), "--game", "0", "--json")
    assert finished.returncode == 0, finished.stderr
    record = json.loads(first)
    assert json.loads(finished.stdout)["names"] == [record["red"], record["yellow"]]
    beyond = run_cli("review", "--results", str(big), "--game", "1")
    assert beyond.returncode == 2
    too_long = f"line 2 is longer than {MAX_RECORD_LINE:,} bytes"
    assert beyond.stderr == f"error: results file {big} {too_long}\n"
