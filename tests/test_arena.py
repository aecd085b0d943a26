"""The arena: schedule, forfeits, results store with resume after SIGKILL, executors, CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from connect4.arena import (
    COLOURS,
    ArenaConfig,
    ArenaError,
    CrossCell,
    ResultLine,
    ResultsStore,
    all_openings,
    game_verdicts,
    load_openings,
    make_schedule,
    play_scheduled,
    run_tournament,
    summarize,
)
from connect4.cli.app import app
from connect4.cli.common import flag
from connect4.core.files import FileError
from connect4.core.games import Board
from connect4.core.journal import JournalError
from tests.cli_helpers import (
    alive,
    damage_journal_records,
    interrupt_cli,
    journal_records,
    kill_when_working,
    run_cli,
)

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "fake_bots"
PYTHON = sys.executable


def cmd(name: str) -> str:
    return f"cmd:{PYTHON} {BOTS / name}.py"


def outcome(records: list[ResultLine]) -> list[tuple[object, ...]]:
    """What must not depend on the executor (times do)."""
    return [
        (r["game"], r["red"], r["yellow"], r["opening"], r["moves"], r["winner"], r["reason"])
        for r in sorted(records, key=lambda r: r["game"])
    ]


# ---------------------------------------------------------------- schedule
def test_round_robin_schedule_plays_both_colours_of_each_opening() -> None:
    config = ArenaConfig(
        players=("random:seed=1", "random:seed=2", "random:seed=3"),
        games_per_pair=4,
        openings=("44", "17"),
        seed=9,
    )
    games = make_schedule(config)
    assert len(games) == 12
    assert [g.index for g in games] == list(range(12))
    first = [(g.red[-1], g.yellow[-1], g.opening) for g in games[:6]]
    # Pair p starts at opening 2p (two openings per pair), cycling through the list.
    assert first == [
        ("1", "2", "44"),
        ("1", "3", "44"),
        ("2", "3", "44"),
        ("2", "1", "44"),
        ("3", "1", "44"),
        ("3", "2", "44"),
    ]
    assert [g.opening for g in games[6:]] == ["17"] * 6
    three = ArenaConfig(players=config.players, games_per_pair=2, openings=("a", "b", "c"))
    assert [g.opening for g in make_schedule(three)] == ["a", "b", "c", "a", "b", "c"]
    assert len({g.seed for g in games}) == 12
    assert make_schedule(config) == games  # deterministic


def test_gauntlet_plays_one_spec_against_each_other() -> None:
    config = ArenaConfig(players=("random:seed=1", "random:seed=2"), gauntlet="random")
    pairs = [(g.red, g.yellow) for g in make_schedule(config)]
    assert pairs == [
        ("random", "random:seed=1"),
        ("random", "random:seed=2"),
        ("random:seed=1", "random"),
        ("random:seed=2", "random"),
    ]


def test_openings_after_k_plies_are_distinct_live_positions() -> None:
    assert len(all_openings(ArenaConfig(players=()), 0)) == 1
    assert len(all_openings(ArenaConfig(players=()), 2)) == 49
    assert len(all_openings(ArenaConfig(players=()), 3)) == 238  # 7*7*7 minus transpositions
    tictactoe = ArenaConfig(players=(), board=Board("tictactoe"))
    assert len(all_openings(tictactoe, 2)) == 72
    assert len(all_openings(tictactoe, 4)) == 756
    shuffled = load_openings("plies=2", ArenaConfig(players=(), seed=4))
    assert sorted(shuffled) == all_openings(ArenaConfig(players=()), 2)
    assert load_openings("plies=2", ArenaConfig(players=(), seed=4)) == shuffled


def test_openings_file_is_validated_line_by_line(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("# my openings\n4453\n\n-\n17  # comment\n")
    assert load_openings(str(good), ArenaConfig(players=())) == ("4453", "", "17")
    bad = tmp_path / "bad.txt"
    bad.write_text("44\n4484\n")
    with pytest.raises(ArenaError, match=r"bad.txt line 2: move 3 \('8'\): column 8"):
        load_openings(str(bad), ArenaConfig(players=()))
    over = tmp_path / "over.txt"
    over.write_text("1212121\n")
    with pytest.raises(ArenaError, match="line 1: the game is already over"):
        load_openings(str(over), ArenaConfig(players=()))
    for plies in ("x", "\u0662", "\u00b2"):  # a letter, an Arabic 2, a superscript 2
        with pytest.raises(ArenaError, match="plies must be a number"):
            load_openings(f"plies={plies}", ArenaConfig(players=()))
    with pytest.raises(ArenaError, match=r"^openings: openings file .*missing.txt does not exist"):
        load_openings(str(tmp_path / "missing.txt"), ArenaConfig(players=()))
    with pytest.raises(ArenaError, match=r"^openings: openings file /dev/zero is a device"):
        load_openings("/dev/zero", ArenaConfig(players=()))


# ---------------------------------------------------------------- games and forfeits
def test_misbehaving_bots_forfeit_with_the_right_reason_and_the_tournament_completes() -> None:
    bad = {
        cmd("crash"): "crash",
        cmd("hang"): "timeout",
        cmd("illegal"): "illegal move 9",
        cmd("garbage"): "bad output 'hello'",
        cmd("exits"): "exited",
    }
    # A gauntlet of the sane player against each misbehaving bot, both colours.
    config = ArenaConfig(players=tuple(bad), gauntlet="random", time_per_move=1.0, seed=2)
    run = run_tournament(config)
    assert len(run.records) == 10
    for record in run.records:
        culprit = "yellow" if record["red"] == "random" else "red"
        assert record["forfeit"] == culprit
        assert record["winner"] == ("red" if culprit == "yellow" else "yellow")
        assert record["reason"] == bad[record[culprit]]
    summary = summarize(config, run.records)
    top = summary.standings[0]
    assert (top.player, top.wins, top.losses) == ("random", 10, 0)
    assert summary.crosstable["random"][cmd("hang")] == CrossCell(points=2.0, games=2)


def first_game_with(
    monkeypatch: pytest.MonkeyPatch, red: str | type[Any], yellow: str | type[Any], **config: Any
) -> ResultLine:
    """The first scheduled game of ``red`` against ``yellow`` (``ArenaConfig(**config)``);
    a player class in place of a spec is a kind of player of its own for this test only,
    ``<class>-test`` (its own name: a kind warms up once per process)."""
    from connect4.players import KINDS, PlayerKind

    specs = []
    for player in (red, yellow):
        if isinstance(player, str):
            specs.append(player)
            continue

        def build(spec: str, options: object, context: object, made: Any = player) -> Any:
            return made(spec)

        name = f"{player.__name__.lower()}-test"
        monkeypatch.setitem(KINDS, name, PlayerKind(name, "a test's", {}, build))
        specs.append(name)
    arena = ArenaConfig(players=tuple(specs), **config)
    return play_scheduled(make_schedule(arena)[0], arena)


def test_a_builtin_player_that_raises_forfeits_with_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    from connect4.players import RandomPlayer

    class Broken(RandomPlayer):
        def choose(self, game: Any, limit: Any = None) -> Any:
            raise RuntimeError("out of memory")

    record = first_game_with(monkeypatch, "random", Broken, games_per_pair=1, openings=("4",))
    assert record["reason"] == "crash"
    assert record["forfeit"] == "yellow"
    assert record["detail"] == "RuntimeError: out of memory"
    assert record["moves"] == "4"


def test_record_fields_and_a_normal_finish() -> None:
    config = ArenaConfig(players=("random:seed=1", cmd("slow")), games_per_pair=2, seed=5)
    run = run_tournament(config)
    red_random, red_bot = run.records
    assert set(red_random) >= {
        "game",
        "tournament",
        "red",
        "yellow",
        "opening",
        "moves",
        "winner",
        "reason",
        "move_seconds",
    }
    assert red_random["reason"] in ("connect four", "draw")
    assert len(red_random["move_seconds"]) == len(red_random["moves"]) - len(red_random["opening"])
    assert red_bot["red"] == cmd("slow")
    assert red_random["tournament"] == config.fingerprint()


def test_tictactoe_review_grades_each_move_against_exact_values() -> None:
    config = ArenaConfig(players=(), board=Board("tictactoe"), accuracy_nodes=1)
    assert game_verdicts(config, "5123", 0) == ["best", "best", "best", "mistake"]
    assert game_verdicts(config, "51", 1) == ["best"]
    assert game_verdicts(config, "52", 0) == ["best", "mistake"]  # an edge reply loses to 5
    players = ("random:seed=1", "random:seed=2")
    config = ArenaConfig(
        players=players, board=Board("tictactoe"), games_per_pair=4, accuracy_nodes=1, seed=3
    )
    run = run_tournament(config)
    summary = summarize(config, run.records)
    for row in summary.standings:
        moves = [
            flag
            for record in run.records
            for colour in COLOURS
            if record[colour] == row.player
            for flag in record["verdicts"][(len(record["opening"]) + (colour == "yellow")) % 2 :: 2]
        ]
        assert row.proven_moves == len(moves) and None not in moves
        assert row.accuracy == moves.count("best") / len(moves)


def test_builtin_time_control_forfeits_a_slow_builtin_player(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from connect4.players import RandomPlayer

    class Sleepy(RandomPlayer):
        def choose(self, game: Any, limit: Any = None) -> Any:
            time.sleep(0.2)
            return super().choose(game)

    record = first_game_with(monkeypatch, Sleepy, "random", games_per_pair=1, time_per_move=0.05)
    assert (record["forfeit"], record["reason"], record["moves"]) == ("red", "timeout", "")


def test_set_up_on_a_players_first_move_does_not_count_against_its_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from connect4.players import RandomPlayer

    compiled: list[bool] = []  # process-wide, like a numba cache or a loaded table

    class CompilesOnFirstUse(RandomPlayer):
        def choose(self, game: Any, limit: Any = None) -> Any:
            if not compiled:
                time.sleep(0.3)
                compiled.append(True)
            return super().choose(game)

    record = first_game_with(
        monkeypatch, CompilesOnFirstUse, "random", games_per_pair=1, time_per_move=0.1, seed=3
    )
    assert (record["forfeit"], record["detail"]) == (None, "")
    assert record["reason"] in ("connect four", "draw")


def test_a_players_own_warm_up_runs_off_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    from connect4.players import RandomPlayer

    loaded: list[bool] = []  # what a first move does not load (a solver past the book)

    class LoadsLater(RandomPlayer):
        def warm_up(self) -> None:
            time.sleep(0.3)
            loaded.append(True)

        def choose(self, game: Any, limit: Any = None) -> Any:
            if not loaded and game.ply >= 3:
                self.warm_up()
            return super().choose(game)

    record = first_game_with(
        monkeypatch, LoadsLater, "random", games_per_pair=1, time_per_move=0.1, seed=3
    )
    assert (record["forfeit"], record["detail"]) == (None, "")
    assert loaded == [True]


def test_cli_builtin_players_do_not_lose_on_time_on_their_first_move(tmp_path: Path) -> None:
    results = tmp_path / "x.jsonl"
    finished = run_cli(
        "arena", "--players", "random", "alphabeta:depth=2", "--time-per-move", "0.5",
        "--seed", "1", "--results", str(results),
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 2
    assert [(r["forfeit"], r["detail"]) for r in records] == [(None, ""), (None, "")]


def test_bad_tournaments_are_refused() -> None:
    with pytest.raises(ArenaError, match="a tournament needs at least two"):
        run_tournament(ArenaConfig(players=("random",)))
    with pytest.raises(ArenaError, match="appears twice"):
        run_tournament(ArenaConfig(players=("random", "random")))
    with pytest.raises(ArenaError, match="unknown player 'nobody'"):
        run_tournament(ArenaConfig(players=("random", "nobody")))
    with pytest.raises(ArenaError, match="humans cannot play"):
        run_tournament(ArenaConfig(players=("random", "human")))
    with pytest.raises(ArenaError) as caught:  # the library names the setting, not a flag
        run_tournament(ArenaConfig(players=("random", "random:seed=1"), games_per_pair=0))
    assert str(caught.value) == "games per pair: must be at least 1"
    assert caught.value.setting == "games_per_pair"
    assert caught.value.worded(flag) == "--games-per-pair: must be at least 1"


# ---------------------------------------------------------------- results store
def test_results_file_is_refused_without_resume_and_checked_with_it(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    config = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=2)
    run_tournament(config, results)
    assert len(results.read_text().splitlines()) == 2
    with pytest.raises(FileError, match=r"^cannot write results file .*: it already exists"):
        run_tournament(config, results)
    again = run_tournament(config, results, resume=True)
    assert again.resumed == 2 and len(again.records) == 2
    assert len(results.read_text().splitlines()) == 2
    other = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=2, seed=1)
    with pytest.raises(ArenaError, match="belongs to another tournament"):
        run_tournament(other, results, resume=True)


def test_a_torn_last_line_is_cut_and_its_game_replayed(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    config = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=4)
    full = run_tournament(config, results)
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:2]) + lines[2][:25])  # killed while writing game 2
    with ResultsStore(results, config).open(resume=True) as store:
        assert sorted(store.records) == [0, 1]
        assert store.repaired == 25
    resumed = run_tournament(config, results, resume=True)
    assert outcome(resumed.records) == outcome(full.records)
    assert [json.loads(line)["game"] for line in results.read_text().splitlines()] == [0, 1, 2, 3]


def test_an_unreadable_middle_line_is_skipped_and_its_game_replayed(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    config = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=3)
    full = run_tournament(config, results)
    lines = results.read_text().splitlines(keepends=True)
    results.write_text(lines[0] + "not json at all\n" + lines[2])
    resumed = run_tournament(config, results, resume=True)
    assert (resumed.resumed, resumed.skipped) == (2, 1)
    assert outcome(resumed.records) == outcome(full.records)


def _stop_after(games: int) -> Any:
    """A progress callback that stops the run, as Ctrl-C would, once ``games`` are played."""

    def progress(done: int, total: int) -> None:
        if done >= games:
            raise KeyboardInterrupt

    return progress


def test_an_interrupted_run_keeps_its_journal_and_resumes_to_the_uninterrupted_file(
    tmp_path: Path,
) -> None:
    config = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=4)
    full = run_tournament(config, tmp_path / "full.jsonl")
    assert not (tmp_path / "full.jsonl.partial").exists()  # finished: no journal left
    results, journal = tmp_path / "r.jsonl", tmp_path / "r.jsonl.partial"
    with pytest.raises(KeyboardInterrupt):
        run_tournament(config, results, progress=_stop_after(2))
    assert journal_records(journal) == 2 and len(results.read_text().splitlines()) == 2
    resumed = run_tournament(config, results, resume=True)
    assert (resumed.resumed, resumed.damaged) == (2, 0)
    assert outcome(resumed.records) == outcome(full.records)
    assert not journal.exists()


def test_a_damaged_journal_record_is_played_again_never_trusted(tmp_path: Path) -> None:
    """The kill tore game 1's line in the results file, and its journal record was damaged
    on disk: the checksum drops it and the game is played again, not read back wrong."""
    config = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=4)
    full = run_tournament(config, tmp_path / "full.jsonl")
    results, journal = tmp_path / "r.jsonl", tmp_path / "r.jsonl.partial"
    with pytest.raises(KeyboardInterrupt):
        run_tournament(config, results, progress=_stop_after(3))
    lines = results.read_text().splitlines(keepends=True)
    results.write_text(lines[0] + lines[1][:30])
    damage_journal_records(journal, [1], at=12)
    resumed = run_tournament(config, results, resume=True)
    assert (resumed.resumed, resumed.damaged, resumed.repaired) == (2, 1, 30)
    assert outcome(resumed.records) == outcome(full.records)
    games = [json.loads(line)["game"] for line in results.read_text().splitlines()]
    assert sorted(games) == [0, 1, 2, 3] and not journal.exists()


def test_a_journal_of_another_tournament_or_not_a_journal_is_refused(tmp_path: Path) -> None:
    config = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=4)
    results, journal = tmp_path / "r.jsonl", tmp_path / "r.jsonl.partial"
    with pytest.raises(KeyboardInterrupt):
        run_tournament(config, results, progress=_stop_after(1))
    before = results.read_bytes(), journal.read_bytes()
    other = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=4, seed=1)
    with pytest.raises(JournalError, match=r"another tournament \(seed 0 there, 1 here\)"):
        run_tournament(other, results, resume=True)
    assert (results.read_bytes(), journal.read_bytes()) == before
    journal.unlink()
    journal.write_text("my notes\n")
    args = ["arena", "--players", "random:seed=1", "random:seed=2", "--games-per-pair", "4",
            "--accuracy-nodes", "0", "--results", str(results), "--resume"]  # fmt: skip
    refused = run_cli(*args)
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: {journal} is not a journal of connect4 (not an SQLite database): give "
        "--force to replace it, or delete it\n"
    )
    assert results.read_bytes() == before[0] and journal.read_text() == "my notes\n"


def test_a_complete_but_unterminated_last_line_is_kept(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    config = ArenaConfig(players=("random:seed=1", "random:seed=2"), games_per_pair=2)
    run_tournament(config, results)
    results.write_text(results.read_text().rstrip("\n"))
    resumed = run_tournament(config, results, resume=True)
    assert resumed.resumed == 2
    assert len(results.read_text().splitlines()) == 2


def test_sigkill_then_resume_plays_every_scheduled_game_exactly_once(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    args = [
        "-m",
        "connect4",
        "arena",
        "--players",
        cmd("slow"),
        "random",
        "random:seed=3",
        "--games-per-pair",
        "6",
        "--results",
        str(results),
        "--seed",
        "7",
        "--accuracy-nodes",
        "0",
    ]
    env = {**os.environ, "SLOW_BOT_SECONDS": "0.02"}
    process = subprocess.Popen(
        [PYTHON, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(600):
            if results.exists() and len(results.read_bytes().splitlines()) >= 3:
                break
            if process.poll() is not None:
                break
            time.sleep(0.05)
        assert process.poll() is None, "the tournament ended before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    done_before = {json.loads(line)["game"] for line in results.read_text().splitlines() if line}
    assert 3 <= len(done_before) < 18
    journal = results.with_name(results.name + ".partial")
    assert journal_records(journal) >= len(done_before)  # each game committed before its line
    with results.open("a") as out:
        out.write('{"game": 17, "tournam')  # and a torn line, as a kill mid-write leaves
    resumed = subprocess.run(
        [PYTHON, *args, "--resume", "--json"], capture_output=True, text=True, check=False
    )
    assert resumed.returncode == 0, resumed.stderr
    games = [json.loads(line)["game"] for line in results.read_text().splitlines()]
    assert sorted(games) == list(range(18))
    assert set(games[: len(done_before)]) == done_before
    assert json.loads(resumed.stdout)["games_played"] == 18
    assert not journal.exists()


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_ctrl_c_stops_the_tournament_and_leaves_no_bot_running(tmp_path: Path) -> None:
    pids = tmp_path / "pids.txt"
    results = tmp_path / "r.jsonl"
    spawner = f"cmd:{PYTHON} {BOTS / 'spawner.py'} {pids}"
    done = interrupt_cli(
        ["arena", "--players", spawner, cmd("slow"), "--games-per-pair", "40", "--results",
         str(results), "--accuracy-nodes", "0"],
        lambda _: pids.exists() and len(pids.read_text().splitlines()) >= 2,
        env={"SLOW_BOT_SECONDS": "0.05"},
    )  # fmt: skip
    assert done.returncode == 130
    assert "(resume with --resume)" in done.stderr
    spawned = [int(pid) for pid in pids.read_text().split()]
    for _ in range(100):
        if not any(alive(pid) for pid in spawned):
            break
        time.sleep(0.05)
    assert [pid for pid in spawned if alive(pid)] == []


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal (Linux)")
def test_sigkill_of_the_arena_leaves_no_worker_bot_folder_or_semaphore(tmp_path: Path) -> None:
    """Its pool's workers and their bots exit; whatever multiprocessing made for it
    (a /tmp/pymp-* folder, semaphores) is cleaned up, by its resource tracker too."""
    results, stderr, temp = tmp_path / "r.jsonl", tmp_path / "stderr", tmp_path / "tmp"
    temp.mkdir()
    shm = Path("/dev/shm")
    before = set(shm.glob("sem.*"))
    with stderr.open("w") as err:
        process = subprocess.Popen(
            [PYTHON, "-m", "connect4", "arena", "--players", "random", cmd("slow"),
             "--games-per-pair", "400", "--workers", "2", "--results", str(results),
             "--accuracy-nodes", "0"],
            env={**os.environ, "SLOW_BOT_SECONDS": "0.05", "TMPDIR": str(temp)},
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )  # fmt: skip
    workers = kill_when_working(  # and checks that every one of them exits
        process,
        lambda: results.exists() and results.stat().st_size > 0,
        what="the tournament ended before it could be killed",
        least=3,  # two workers and a bot, at least
    )
    assert len(workers) >= 3
    assert list(temp.glob("pymp-*")) == []
    assert set(shm.glob("sem.*")) - before == set()
    assert "leaked" not in stderr.read_text()


# ---------------------------------------------------------------- executors
REPRO_PLAYERS = ("random", "random:seed=4", cmd("slow"))


def repro_config() -> ArenaConfig:
    return ArenaConfig(players=REPRO_PLAYERS, games_per_pair=2, openings=("", "44", "17"), seed=12)


def test_same_seed_same_results_with_one_and_two_workers() -> None:
    one = run_tournament(repro_config(), workers=1)
    two = run_tournament(repro_config(), workers=2)
    assert outcome(one.records) == outcome(two.records)
    other = run_tournament(ArenaConfig(**{**repro_config().__dict__, "seed": 13}))
    assert outcome(other.records) != outcome(one.records)


def test_same_seed_same_results_on_a_dask_local_cluster() -> None:
    distributed = pytest.importorskip("dask.distributed")
    one = run_tournament(repro_config(), workers=1)
    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as cluster:
        dask = run_tournament(repro_config(), scheduler=cluster.scheduler_address)
    assert outcome(dask.records) == outcome(one.records)


# ---------------------------------------------------------------- command line
def test_cli_arena_json_and_csv(tmp_path: Path) -> None:
    csv_path = tmp_path / "s.csv"
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "--players",
            "random:seed=1",
            "random:seed=2",
            "--game",
            "tictactoe",
            "--games-per-pair",
            "4",
            "--json",
            "--csv",
            str(csv_path),
            "--review",
            "--accuracy-nodes",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout[result.stdout.index("{") :])
    assert summary["games_played"] == 4
    assert {row["player"] for row in summary["standings"]} == {"random:seed=1", "random:seed=2"}
    rows = csv_path.read_text().splitlines()
    assert rows[0].startswith("rank,player,games,wins,draws,losses,points,score,elo")
    assert len(rows) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "random"], "at least two players"),
        (["--players", "random", "bogus"], "unknown player 'bogus'"),
        (["--players", "random", "random:seed=1", "--resume"], "--resume needs --results"),
        (["--players", "random", "random:seed=1", "--openings", "plies=9"], "must be 0-6"),
        (["--players", "random", "random:seed=1", "--game", "chess"], "unknown game 'chess'"),
        (["--players", "random", "random:seed=1", "--scheduler", "nonsense://x"],
         "--scheduler: cannot reach the Dask scheduler at nonsense://x: unknown address scheme"),
    ],
)  # fmt: skip
def test_cli_arena_bad_usage(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["arena", *args])
    assert result.exit_code == 2
    assert "error: " in result.stderr and message in result.stderr


def test_cli_tables_fit_80_columns_and_name_every_player_in_full() -> None:
    specs = ["alphabeta:depth=2,heuristic=windows", "random:seed=3", "random"]
    finished = run_cli(
        "arena", "--players", *specs, "--review", "--accuracy-nodes", "1000", env={"COLUMNS": "80"}
    )
    assert finished.returncode == 0, finished.stderr
    lines = finished.stdout.splitlines()
    assert "Standings (6 games)" in finished.stdout
    assert "Review (accuracy: best of proven moves)" in finished.stdout
    assert [line for line in lines if len(line) > 80] == []
    assert "…" not in finished.stdout.replace(" … ", "")  # only the intervals' dots
    for spec in specs:
        assert any(line.split("│")[2].strip() == spec for line in lines if line.count("│") > 2)


def test_cli_max_move_seconds_forfeits_a_hung_bot_without_a_time_limit(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    args = ["arena", "--players", "random", cmd("hang"), "--games-per-pair", "1",
            "--accuracy-nodes", "0", "--results", str(results),
            "--max-move-seconds", "2"]  # fmt: skip
    finished = run_cli(*args, timeout=60)
    assert finished.returncode == 0, finished.stderr
    (record,) = [json.loads(line) for line in results.read_text().splitlines()]
    assert (record["forfeit"], record["reason"], record["detail"]) == (
        "yellow",
        "timeout",
        "no reply in 2 s (no time limit was set)",
    )
    refused = run_cli(*args[:-1], "0", "--resume")
    assert refused.returncode == 2
    assert "error: --max-move-seconds: must be positive" in refused.stderr


def test_connect4_accuracy_uses_the_solver_scores() -> None:
    solver = pytest.importorskip("connect4.solver")
    if not hasattr(solver, "Solver"):
        pytest.skip("the solver has not landed")
    config = ArenaConfig(players=(), accuracy_nodes=100_000)
    # After 4455 red wins at once in column 3 or 6 (score 18); column 1 scores -4.
    assert game_verdicts(config, "44553", 4) == ["best"]
    assert game_verdicts(config, "44556", 4) == ["best"]
    assert game_verdicts(config, "44551", 4) == ["blunder"]  # the win thrown away
    assert game_verdicts(config, "4455", 2) == ["blunder", "blunder"]
    # Empty 6x7 (no book reaches it within 1 node): not proven.
    wide = ArenaConfig(players=(), board=Board("connect4", 6, 7), accuracy_nodes=1)
    assert game_verdicts(wide, "3", 0) == [None]


def test_the_arena_progress_bar_is_the_jobs_bar_with_resumed_games() -> None:
    """One progress bar for every long job: the arena's shows the games a resumed
    results file already holds as done, in its label, and the bar ends full."""
    import io
    import re

    from rich.console import Console

    from connect4.core.progress import progress_callback

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100)
    with progress_callback(console, "games", "games") as step:
        step(5, 20)
        for done in range(6, 21):
            step(done, 20)
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", buffer.getvalue()).replace("\r", "\n")
    lines = [line for line in text.splitlines() if "games/s" in line]
    assert "games (5 resumed)" in lines[0] and " 5/20 " in lines[0]
    assert "20/20" in lines[-1]
