"""A caller's limit (deadline and stop flag) stops every search; Ctrl-C stops the CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from connect4 import Position, TicTacToe
from connect4.classic.mcts import Mcts
from connect4.classic.search import Limits, search
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.players import MoveChoice, PlayerSpecError, make_player
from connect4.players.base import PlayerBase
from connect4.players.match import play_match, play_move
from tests.cli_helpers import run_cli, wait_for


def stop_later(limit: Limit, seconds: float) -> None:
    threading.Timer(seconds, limit.stop).start()


# The searches below would run for hours (minutes for the solver) unless stopped; the
# timeout only ends a run that ignored its limit. benchmarks/bench_stop.py times the stops.
STUCK = pytest.mark.timeout(300)


@STUCK
@pytest.mark.parametrize("engine", ["numba", "python"])
def test_a_stop_flag_set_from_another_thread_stops_the_search(engine: str) -> None:
    limit = Limit()
    stop_later(limit, 0.2)
    result = search(Position(), limits=Limits(depth=30), engine=engine, limit=limit)
    assert (result.move, result.stopped) == (None, "stopped")


@STUCK
def test_the_compiled_mcts_stops_on_the_flag() -> None:
    from connect4.classic import fastmcts
    from connect4.classic.mctsboard import seed_state

    tree = fastmcts.CompiledTree(Position(), solver=False, heuristic=False, state=seed_state(1))
    tree.run(10, 1.41)
    limit = Limit()
    stop_later(limit, 0.2)
    ran = tree.run(100_000_000, 1.41, limit.flag)
    assert 0 < ran < 100_000_000


def test_a_limit_that_never_fires_changes_no_count() -> None:
    for algorithm in ("minimax", "alphabeta"):
        alone = search(Position.from_moves("4453"), limits=Limits(depth=5), algorithm=algorithm)
        limited = search(
            Position.from_moves("4453"), limits=Limits(depth=5), algorithm=algorithm, limit=Limit()
        )
        assert (limited.stats.nodes, limited.value, limited.pv) == (
            alone.stats.nodes,
            alone.value,
            alone.pv,
        )
    a = Mcts(seed=3).search(Position.from_moves("44"), playouts=3000)
    b = Mcts(seed=3).search(Position.from_moves("44"), playouts=3000, limit=Limit())
    assert a.children == b.children


@STUCK
def test_a_callers_deadline_caps_the_players_own_time() -> None:
    player = make_player("alphabeta:time=3600")
    player.warm_up()  # a first compile inside the half second could end even depth 1
    choice = player.choose(Position(), Limit.within(0.5))  # not the hour it asked for
    assert choice.complete is False and choice.stats["depth"] >= 1
    assert choice.move in Position().legal_moves()


def test_a_fixed_depth_under_a_deadline_answers_the_deepest_finished_move() -> None:
    turn = play_move(make_player("alphabeta:depth=30"), Position(), clock=0.5)
    assert turn.forfeit is None and turn.choice is not None
    assert turn.choice.complete is False and 1 <= turn.choice.stats["depth"] < 30


def test_mcts_under_a_limit_answers_the_playouts_run() -> None:
    player = make_player("mcts:playouts=100000000")
    player.warm_up()
    limit = Limit()
    stop_later(limit, 0.3)
    choice = player.choose(Position(), limit)
    assert choice.complete is False and 0 < choice.stats["playouts"] < 100_000_000


def test_a_spent_limit_with_no_move_is_a_timeout_forfeit() -> None:
    turn = play_move(make_player("mcts:playouts=1000"), Position(), limit=Limit(deadline=0.0))
    assert turn.forfeit is not None and turn.forfeit.reason == "timeout"


class Failing(PlayerBase):
    """A player whose search breaks."""

    is_human = False
    spec = "failing"

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        raise ValueError("the search found no move")


def test_a_player_raising_is_a_crash_forfeit_in_terminal_play() -> None:
    from rich.console import Console

    from connect4.terminal import play_game

    console = Console(record=True, width=120)
    record = play_game(
        TicTacToe(), make_player("random", seed=1), Failing(), console=console, show_board=False
    )
    assert (record.forfeit, record.winner, record.reason) == (2, 1, "crash")
    assert "forfeits: crash (ValueError: the search found no move)" in console.export_text()
    record = play_match(TicTacToe(), (Failing(), make_player("random")))
    assert (record.forfeit, record.reason, record.moves) == (1, "crash", "")


def test_the_one_game_loop_takes_an_interfaces_turns() -> None:
    # An interface's turns: two moves, an undo (the position changed, no move: AGAIN),
    # a move again, then a stop (None); ``after`` sees each turn once played.
    from connect4.players.match import AGAIN, GameRecord, Turn

    script = iter(["5", "1", "undo", "3", "stop"])
    seen: list[str] = []

    def ask(mover: object, game: Game, record: GameRecord) -> Turn | None:
        step = next(script)
        if step == "stop":
            return None
        if step == "undo":
            game.undo()
            record.move_seconds.pop()
            record.move_stats.pop()
            return AGAIN
        return Turn(MoveChoice(move=game.parse_move(step)), 0.25)

    def after(game: Game, turn: Turn) -> None:
        seen.append(game.moves + ("!" if turn is AGAIN else ""))

    players = (make_player("human"), make_player("human"))
    record = play_match(TicTacToe(), players, ask=ask, after=after)
    assert seen == ["5", "51", "5!", "53"]
    assert (record.moves, record.finished, record.winner) == ("53", False, None)
    assert record.move_seconds == [0.25, 0.25] and record.move_stats == [None, None]


def test_a_search_deeper_than_the_board_is_refused() -> None:
    with pytest.raises(PlayerSpecError, match="deeper than the board's 9 cells"):
        make_player("alphabeta:depth=30", game="tictactoe")


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("tree", "44", "--algorithm", "mcts", "--playouts", "100000000000"), "100000000"),
        (("dataset", "--positions", str(10**12), "--out", "x.npz"), "at most 7,669,350 positions"),
        (("book", "build", "--plies", "20", "--out", "x.c4book"), "limit of 16,000,000"),
        (("arena", "random", "random", "--workers", "1000"), str(4 * (os.cpu_count() or 1))),
    ],
)
def test_values_that_cannot_finish_are_refused_naming_the_limit(
    args: tuple[str, ...], named: str
) -> None:
    done = run_cli(*args)
    assert done.returncode == 2, done.stderr
    assert named in done.stderr


@pytest.mark.parametrize(
    "spec", ["mcts:playouts=100000000", "alphabeta:depth=30", "minimax:depth=14"]
)
def test_ctrl_c_stops_a_thinking_ai_in_play(spec: str) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "connect4", "play", "--red", spec, "--yellow", "human"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
    )
    try:
        assert process.stdout is not None
        for _ in range(20):  # the empty board is printed once the players are ready
            if process.stdout.readline().strip().startswith("1"):
                break
        time.sleep(1.0)  # thinking now
        assert process.poll() is None
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)  # the search would think for hours (fuzz_cli times it)
        assert code == 130
        stderr = process.stderr.read()  # the CLI's one line, on stderr as for every command
        assert "Traceback" not in stderr and stderr.splitlines()[-1] == "interrupted", stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@STUCK
def test_the_solver_stops_at_its_callers_flag() -> None:
    # The empty 8x7 board (no book) takes minutes: the flag, set from another thread,
    # reaches the kernel through the table's stop slot (within a tenth of a second on an
    # idle machine).
    from connect4.solver import solver_for

    solver = solver_for(8, 7)
    for analyze in (True, False):
        limit = Limit()
        stop_later(limit, 0.3)
        result = solver.run(Position(8, 7), analyze=analyze, limit=limit)
        assert not result.complete and result.score is None
    # the table's stop slot is clear again: the next search runs to its own node budget
    assert solver.run(Position(8, 7), limit=Limit(nodes=200_000)).nodes >= 200_000


def test_watching_limits_starts_no_thread_per_watch_and_never_stops_late(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A quick search under a limit must not pay for a thread started and joined (a web
    # request's solve did, ~10 ms of GIL hand-offs under load): one watcher serves all.
    from connect4.core.limits import Limit

    with Limit().watch():
        pass
    started: list[str] = []
    start = threading.Thread.start

    def counting_start(thread: threading.Thread) -> None:
        started.append(thread.name)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counting_start)
    calls: list[int] = []
    for _ in range(200):
        with Limit.within(60.0).watch(lambda: calls.append(1)):
            pass
    assert started == []
    # an expired limit is stopped by the watcher within a few polls, and its on_stop
    # runs only while it is watched
    limit = Limit.within(0.01)
    with limit.watch(lambda: calls.append(2)) as flag:
        wait_for(lambda: flag[0] == 1, "the watcher never stopped the expired limit")
    late = Limit.within(0.05)
    with late.watch(lambda: calls.append(3)):
        pass
    time.sleep(0.2)
    assert calls == [2] and not late.stopped()


def test_a_watcher_that_is_looking_anyway_is_not_woken_by_each_new_limit() -> None:
    """A busy server watches one limit per request. While the watcher looks every
    POLL_SECONDS anyway, a new limit must not wake it: each wake was a thread switch
    per request (the web's easy requests took 0.1 ms longer for it)."""
    from connect4.core.limits import POLL_SECONDS, Watcher

    watcher = Watcher()
    held = watcher.add(Limit.within(60.0), None)  # starts its thread, which then looks
    time.sleep(0.05)
    looks = watcher.looks
    start = time.monotonic()
    for _ in range(1000):
        watcher.remove(watcher.add(Limit.within(60.0), None))
        time.sleep(0.0005)  # a request's own work: the watcher's thread may run
    elapsed = time.monotonic() - start
    assert watcher.looks - looks <= 2 * elapsed / POLL_SECONDS + 10
    watcher.remove(held)


def test_an_idle_watcher_wakes_for_a_new_limit_and_stops_it_on_time() -> None:
    from connect4.core.limits import IDLE_AFTER, Watcher

    watcher = Watcher()
    watcher.remove(watcher.add(Limit.within(60.0), None))
    time.sleep(IDLE_AFTER + 0.2)  # nothing watched: it sleeps until the next limit
    limit = Limit.within(0.05)
    stopped = threading.Event()
    key = watcher.add(limit, stopped.set)
    assert stopped.wait(60), "the watcher did not wake up for the new limit"  # asleep: never
    assert limit.stopped()
    watcher.remove(key)
