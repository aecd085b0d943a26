"""The cmd: player: the line protocol, forfeits of misbehaving bots, no orphan processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from connect4 import Position, TicTacToe
from connect4.core.games import Board
from connect4.core.limits import Limit, Worker
from connect4.players import PlayerContext, PlayerSpecError, make_player
from connect4.players.external import BotFault, ExternalPlayer, make_external, parse_command

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "fake_bots"
PYTHON = sys.executable
FAILURE_WAIT = 300.0  # seconds a failing test waits before it says so (a pass never waits)


def bot(name: str, *args: str, time_limit: float | None = 5.0) -> ExternalPlayer:
    argument = " ".join([PYTHON, str(BOTS / f"{name}.py"), *args])
    return make_external(argument, time_limit=time_limit)


def fault_of(player: ExternalPlayer, moves: str = "") -> BotFault:
    try:
        with pytest.raises(BotFault) as caught:
            player.choose(Position.from_moves(moves))
    finally:
        player.close()
    return caught.value


def test_make_player_builds_a_cmd_player_with_the_whole_argument() -> None:
    player = make_player(f"cmd:{PYTHON} examples/bot.py --unused 'two words'")
    assert isinstance(player, ExternalPlayer)
    assert player.argv == [PYTHON, "examples/bot.py", "--unused", "two words"]
    assert player.spec == f"cmd:{PYTHON} examples/bot.py --unused 'two words'"
    player.close()


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("", "cmd: needs a program to run"),
        ("no-such-program-xyz --x", "cmd: program 'no-such-program-xyz' not found"),
        ("python3 'unclosed", "cmd: cannot parse command"),
    ],
)
def test_bad_cmd_specs_are_precise_errors(argument: str, message: str) -> None:
    with pytest.raises(PlayerSpecError, match=message):
        make_player(f"cmd:{argument}")
    with pytest.raises(PlayerSpecError):
        parse_command(argument)


def test_example_bot_wins_blocks_and_prefers_the_centre() -> None:
    player = make_external(f"{PYTHON} {ROOT / 'examples' / 'bot.py'}", time_limit=10.0)
    try:
        assert player.choose(Position()).move == 3
        assert player.choose(Position.from_moves("445566")).move == 2  # wins in column 3
        assert player.choose(Position.from_moves("4455661")).move == 2  # blocks column 3
    finally:
        player.close()
    assert player.process is None


def test_protocol_transcript_is_exact(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    context = PlayerContext(Board("connect4", 7, 6, "standard"))
    player = ExternalPlayer(
        "cmd:recorder", [PYTHON, str(BOTS / "recorder.py"), str(log)], context, time_limit=2.0
    )
    assert player.choose(Position.from_moves("4")).move == 0
    assert player.choose(Position.from_moves("415")).move == 0
    player.time_limit = None
    assert player.choose(Position.from_moves("41516")).move == 0
    player.close()
    assert log.read_text().splitlines() == [
        "init connect4 7 6 yellow standard",
        "move 4 2.000",
        "move 415 2.000",
        "move 41516 -",
        "quit",
    ]


def test_protocol_for_red_on_an_empty_tictactoe_board(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    player = make_player(f"cmd:{PYTHON} {BOTS / 'recorder.py'} {log}", game="tictactoe")
    assert player.choose(TicTacToe()).move == 0
    player.close()
    assert log.read_text().splitlines() == [
        "init tictactoe 3 3 red standard",
        "move - -",
        "quit",
    ]


def test_crashing_bot_forfeits_with_crash_and_its_last_stderr_line() -> None:
    fault = fault_of(bot("crash"))
    assert fault.reason == "crash"
    assert fault.detail == "exit status 1: RuntimeError: fake bot crashed"


def test_hanging_bot_forfeits_with_timeout() -> None:
    fault = fault_of(bot("hang", time_limit=0.3))
    assert (fault.reason, fault.detail) == ("timeout", "")


def test_hanging_bot_without_a_time_limit_forfeits_after_the_silence_limit() -> None:
    player = bot("hang", time_limit=None)
    player.max_move_seconds = 0.3
    fault = fault_of(player)
    assert (fault.reason, fault.detail) == ("timeout", "no reply in 0.3 s (no time limit was set)")


def test_the_callers_stop_ends_the_wait_for_a_bot_that_never_gets_ready() -> None:
    # The bot's start-up is not timed by the caller's clock, but its stop ends it: the
    # wait reads a child of the caller's limit (before, only the start-up's own hour).
    player = make_external(f"{PYTHON} -c 'import time; time.sleep(3600)'", time_limit=None)
    player.startup_seconds = 3600.0
    limit = Limit()
    thinking = Worker(lambda own: player.choose(Position(), own), limit)
    try:
        while player.process is None and not thinking.done.is_set():
            time.sleep(0.01)  # until the bot runs
        limit.stop()
        assert thinking.wait(Limit.within(FAILURE_WAIT)), "the stop did not end the wait"
        assert isinstance(thinking.error, BotFault) and thinking.error.reason == "timeout"
    finally:
        player.close()


def test_a_silent_bot_gets_one_warning_on_stderr_before_it_forfeits(
    capfd: pytest.CaptureFixture[str],
) -> None:
    player = bot("hang", time_limit=None)
    player.warn_seconds, player.max_move_seconds = 0.2, 1.0
    fault = fault_of(player, "44")
    assert fault.reason == "timeout"
    warnings = [line for line in capfd.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [
        f"warning: {player.spec} has been silent for 0.2 s on move 3 (44); "
        "it forfeits after 1 s (its limit on a move without a clock)"
    ]


def test_illegal_column_forfeits_with_the_column_number() -> None:
    assert fault_of(bot("illegal")).reason == "illegal move 9"


def test_full_column_is_an_illegal_move() -> None:
    player = bot("recorder", os.devnull)  # always plays column 1
    assert fault_of(player, "1111112").reason == "illegal move 1"


def test_garbage_forfeits_with_the_output_quoted() -> None:
    assert fault_of(bot("garbage")).reason == "bad output 'hello'"


def test_a_bot_flooding_one_line_forfeits_with_bad_output() -> None:
    """A reply longer than any line the protocol has is a bot error as soon as that much
    has come, however long the bot goes on writing (its memory stays bounded)."""
    from connect4.core.files import MAX_INPUT_LINE

    player = bot("flood")
    fault = fault_of(player)
    assert fault.reason == "bad output '4444444444444444444444444444444444444444…'"
    assert len(player._buffer) <= MAX_INPUT_LINE + 65536


def test_bot_exiting_mid_game_forfeits_with_exited() -> None:
    player = bot("exits")
    assert player.choose(Position()).move == 0
    assert player.choose(Position.from_moves("12")).move == 0
    fault = fault_of(player, "1212")
    assert (fault.reason, fault.detail) == ("exited", "exit status 0")


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_close_kills_the_bot_and_its_children(tmp_path: Path) -> None:
    pids = tmp_path / "pids.txt"
    player = bot("spawner", str(pids))
    assert player.choose(Position()).move == 0
    assert player.process is not None
    bot_pid = player.process.pid
    assert int(pids.read_text().split()[0]) == bot_pid
    child_pid = int(pids.read_text().split()[1])
    assert alive(bot_pid) and alive(child_pid)
    player.close()
    for _ in range(100):  # the orphaned grandchild is reaped by init a moment later
        if not alive(child_pid):
            break
        time.sleep(0.05)
    assert not alive(bot_pid)
    assert not alive(child_pid)


def test_a_new_colour_restarts_the_bot(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    player = bot("recorder", str(log))
    player.choose(Position())
    player.choose(Position.from_moves("4"))
    player.close()
    lines = log.read_text().splitlines()
    assert lines == [
        "init connect4 7 6 red standard",
        "move - 5.000",
        "quit",
        "init connect4 7 6 yellow standard",
        "move 4 5.000",
        "quit",
    ]


def test_the_kaggle_runner_refuses_a_flood_from_the_arena() -> None:
    """The runner reads the protocol a bounded line at a time, as every reader does."""
    agent = BOTS / "kaggle_good.py"
    flood = "move " + "4" * 10_000_000 + " -\n"
    done = subprocess.run(
        [sys.executable, "-m", "connect4.players.kaggle_runner", str(agent)],
        input=f"init connect4 7 6 red standard\n{flood}",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == "ready\n"
    assert done.stderr == (
        "kaggle agent: from the arena: line 2 is longer than 1,024 characters "
        "(more than any game's moves)\n"
    )
