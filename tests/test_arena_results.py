"""The arena's typed results: the stored game record, the summary and its JSON, the CSV."""

from __future__ import annotations

import json
from pathlib import Path

from connect4.arena import (
    ArenaConfig,
    CrossCell,
    ResultLine,
    ResultsStore,
    Standing,
    summarize,
    write_csv,
)
from connect4.arena.record import Colour, from_json, to_line
from connect4.arena.schedule import start_position
from connect4.arena.summary import player_stats
from connect4.core.games import Board
from connect4.players.match import end_reason

CONFIG = ArenaConfig(players=("a", "b", "c"), seed=5)


def record(
    game: int,
    red: str,
    yellow: str,
    opening: str,
    moves: str,
    winner: Colour | None,
    reason: str,
    forfeit: Colour | None = None,
) -> ResultLine:
    played = len(moves) - len(opening)
    return ResultLine(
        game=game,
        tournament=CONFIG.fingerprint(),
        red=red,
        yellow=yellow,
        opening=opening,
        moves=moves,
        winner=winner,
        reason=reason,
        forfeit=forfeit,
        detail="" if forfeit is None else "boom",
        move_seconds=[0.25] * played,
        move_nodes=[None] * played,
        seed=game,
    )


def records() -> list[ResultLine]:
    """Four games: a normal win with node counts and judged moves, two forfeits, a draw."""
    first = record(0, "a", "b", "4", "4121212", "yellow", "connect four")
    first["move_nodes"] = [10, None, 30, None, 50, None]  # yellow (b) made moves 0, 2, 4
    first["verdicts"] = ["best", None, "blunder", "best", "best", "mistake"]
    return [
        first,
        record(1, "b", "a", "4", "4", "red", "crash", forfeit="yellow"),
        record(2, "a", "c", "", "", "yellow", "timeout", forfeit="red"),
        record(3, "c", "b", "", "1234567", None, "draw"),
    ]


def test_a_record_is_one_compact_json_line_with_its_keys_in_order() -> None:
    line = to_line(records()[1])
    assert line == (
        '{"game":1,"tournament":"21861fa6211bd1c8","red":"b","yellow":"a","opening":"4",'
        '"moves":"4","winner":"red","reason":"crash","forfeit":"yellow","detail":"boom",'
        '"move_seconds":[],"move_nodes":[],"seed":1}\n'
    )
    assert from_json(json.loads(line)) == records()[1]


def test_only_complete_records_are_read_back() -> None:
    good = json.loads(to_line(records()[0]))
    assert from_json(good) == records()[0]
    assert from_json([1, 2]) is None
    assert from_json({"game": 3, "tournament": CONFIG.fingerprint()}) is None
    assert from_json({**good, "game": "3"}) is None


def test_store_skips_json_lines_that_are_not_records(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    lines = [to_line(r) for r in records()]
    path.write_text(lines[0] + "[1, 2]\n" + '{"game": 7}\n' + lines[3])
    with ResultsStore(path, CONFIG).open(resume=True) as store:
        assert (sorted(store.records), store.skipped, store.repaired) == ([0, 3], 2, 0)


def test_player_stats_add_up_only_the_players_own_moves() -> None:
    games = records()
    stats = player_stats("b", [(games[0], "yellow"), (games[1], "red"), (games[3], "yellow")])
    assert (stats.games, stats.wins, stats.draws, stats.losses, stats.points) == (3, 2, 1, 0, 2.5)
    assert (stats.moves, stats.seconds, stats.nodes, stats.nodes_moves) == (6, 1.5, 90, 3)
    assert (stats.reviewed, stats.proven, stats.unproven, stats.best) == (1, 3, 0, 2)
    assert (stats.mistakes, stats.blunders, dict(stats.forfeits)) == (0, 1, {})
    red = player_stats("a", [(games[0], "red")])
    assert (red.proven, red.unproven, red.best, red.mistakes, red.blunders) == (2, 1, 1, 1, 0)


def test_summary_standings_crosstable_and_json() -> None:
    summary = summarize(CONFIG, records())
    assert [row.player for row in summary.standings] == ["b", "c", "a"]
    assert summary.standing("a") == Standing(
        player="a",
        games=3,
        wins=0,
        draws=0,
        losses=3,
        points=0.0,
        score=0.0,
        elo=-246.3,
        elo_low=-609.5,
        elo_high=116.8,
        accuracy=0.5,
        proven_moves=2,
        unproven_moves=1,
        reviewed_games=1,
        mistakes_per_game=1.0,
        blunders_per_game=0.0,
        forfeits={"crash": 1, "timeout": 1},
        seconds_per_move=0.25,
        nodes_per_move=None,
    )
    assert summary.crosstable["b"] == {"a": CrossCell(2.0, 2), "c": CrossCell(0.5, 1)}
    document = summary.to_json()
    assert list(document) == ["tournament", "config", "games_played", "standings", "crosstable"]
    assert document["crosstable"] == {
        "a": {"b": {"points": 0.0, "games": 2}, "c": {"points": 0.0, "games": 1}},
        "b": {"a": {"points": 2.0, "games": 2}, "c": {"points": 0.5, "games": 1}},
        "c": {"a": {"points": 1.0, "games": 1}, "b": {"points": 0.5, "games": 1}},
    }
    text = json.dumps(document)
    assert '"player": "b", "games": 3, "wins": 2, "draws": 1, "losses": 0, "points": 2.5' in text
    assert summarize(CONFIG, []).crosstable == {"a": {}, "b": {}, "c": {}}


def test_csv_has_one_row_per_player_best_first(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    write_csv(summarize(CONFIG, records()), path)
    assert path.read_text().splitlines() == [
        "rank,player,games,wins,draws,losses,points,score,elo,elo_low,elo_high,accuracy,"
        "proven_moves,unproven_moves,reviewed_games,mistakes_per_game,blunders_per_game,"
        "forfeits,seconds_per_move,nodes_per_move",
        "1,b,3,2,1,0,2.5,0.8333333333333334,133.9,-168.8,436.5,0.6666666666666666,3,0,1,0.0,1.0,"
        ",0.25,30.0",
        "2,c,2,1,1,0,1.5,0.75,112.5,-218.8,443.8,,0,0,0,,,,0.25,",
        "3,a,3,0,0,3,0.0,0.0,-246.3,-609.5,116.8,0.5,2,1,1,1.0,0.0,crash=1;timeout=1,0.25,",
    ]


def test_end_reason_reads_the_game_through_its_protocol() -> None:
    fours = ArenaConfig(players=(), board=Board("connect4", 4, 4, "count-fours"))
    assert end_reason(start_position(fours, "1213141")) == "fours 1-0"  # the game goes on
    assert end_reason(start_position(fours, "1122334411223344")) == "fours 2-2"
    assert end_reason(start_position(ArenaConfig(players=()), "1212121")) == "connect four"
    tictactoe = ArenaConfig(players=(), board=Board("tictactoe"))
    assert end_reason(start_position(tictactoe, "14253")) == "three in a row"
    assert end_reason(start_position(tictactoe, "123546879")) == "draw"


def test_a_crosstable_too_wide_is_left_out_pointing_to_the_whole() -> None:
    from connect4.arena.report import render_summary

    summary = summarize(CONFIG, records())
    tables = render_summary(summary, width=30)
    assert tables[0].title == "Players" and "Crosstable" not in [t.title for t in tables]
    assert (
        tables[-1].caption == "(the crosstable is wider than 30 columns: see the summary as JSON)"
    )
    named = render_summary(summary, width=30, full="--json")  # the CLI names its flag
    assert named[-1].caption == "(the crosstable is wider than 30 columns: see --json)"


# ---------------------------------------------------------------- the output policy
ARENA = ("arena", "-p", "random", "-p", "random:seed=1", "--game", "tictactoe")


def test_arena_results_an_existing_file_needs_force_or_resume_onto_its_own(
    tmp_path: Path,
) -> None:
    from tests.cli_helpers import check_existing_output_refused, refused_untouched, run_cli

    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"root:x:0:0:root:/root:/bin/bash\n" * 25)
    args = (*ARENA, "--results", str(notes))
    foreign = (
        f"error: cannot continue results file {notes}: its first line is not a game record "
        "of connect4 arena; the file is left as it was (replace it with --force instead of "
        "--resume, or give another name)\n"
    )
    check_existing_output_refused(args, notes, "results file", foreign=foreign)
    assert "not both" in refused_untouched([*args, "--resume", "--force"], notes).stderr
    replaced = run_cli(*ARENA, "--results", str(notes), "--force", "--json")
    assert replaced.returncode == 0, replaced.stderr
    records = [json.loads(line) for line in notes.read_text().splitlines()]
    assert [r["game"] for r in records] == [0, 1]
    own = notes.read_bytes()
    resumed = run_cli(*ARENA, "--results", str(notes), "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert notes.read_bytes() == own  # both games were there: nothing to add


def test_arena_outputs_through_a_symlink_are_refused_unless_forced(tmp_path: Path) -> None:
    from tests.cli_helpers import run_cli

    target, link = tmp_path / "system.conf", tmp_path / "results.jsonl"
    target.write_bytes(b"keep me\n")
    link.symlink_to(target)
    for extra in ((), ("--resume",)):
        refused = run_cli(*ARENA, "--results", str(link), *extra)
        assert refused.returncode == 2, extra
        assert f"it is a symbolic link to {target}" in refused.stderr
        assert target.read_bytes() == b"keep me\n" and link.is_symlink()
    csv, table = tmp_path / "table.csv", b"my spreadsheet\n"
    csv.write_bytes(table)
    refused = run_cli(*ARENA, "--csv", str(csv))
    assert refused.returncode == 2 and "--force to replace it" in refused.stderr
    assert csv.read_bytes() == table
    forced = run_cli(*ARENA, "--results", str(link), "--csv", str(csv), "--force")
    assert forced.returncode == 0, forced.stderr
    assert not link.is_symlink() and json.loads(link.read_text().splitlines()[0])["game"] == 0
    assert target.read_bytes() == b"keep me\n"  # --force replaced the link, not its file
    assert csv.read_text().startswith("rank,player,")
    again = run_cli(*ARENA, "--results", str(link), "--csv", str(csv), "--resume")
    assert again.returncode == 0, again.stderr  # the run's own standings are rewritten
