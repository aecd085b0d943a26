"""Kaggle ConnectX both ways: players as ConnectX agents in kaggle_environments, and
ConnectX agent files as ``kaggle:`` players in the arena (with forfeits)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from kaggle_environments import make

from connect4 import Position
from connect4.envs import kaggle_agent
from connect4.players import PlayerSpecError, make_player
from connect4.players.external import BotFault, ExternalPlayer
from connect4.players.kaggle import make_kaggle
from connect4.players.kaggle_runner import Struct, observe, reply_of
from tests.cli_helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "fake_bots"
EXAMPLE = ROOT / "examples" / "kaggle_agent.py"


def final_state(agents: list[Any], **configuration: int) -> list[Any]:
    """Play one full ConnectX game in kaggle_environments; the agents' final states."""
    env = make("connectx", configuration=configuration, debug=True)
    env.run(agents)
    assert env.done
    return list(env.steps[-1])


# ------------------------------------------------------------ our players as ConnectX agents
@pytest.mark.parametrize("seat", [0, 1])
def test_perfect_beats_kaggles_negamax_as_both_colours(seat: int) -> None:
    agents: list[Any] = ["negamax", "negamax"]
    agents[seat] = kaggle_agent("perfect")
    state = final_state(agents)
    assert [s.status for s in state] == ["DONE", "DONE"]
    assert state[seat].reward == 1
    assert state[1 - seat].reward == -1


def test_perfect_plays_other_connectx_boards_and_never_loses() -> None:
    for seat in (0, 1):
        agents: list[Any] = ["negamax", "negamax"]
        agents[seat] = kaggle_agent("perfect")
        state = final_state(agents, columns=5, rows=4)
        assert [s.status for s in state] == ["DONE", "DONE"]
        assert state[seat].reward >= 0  # 5x4 is a draw with best play


def test_any_spec_is_an_agent_and_the_board_is_read_without_history() -> None:
    agent = kaggle_agent("alphabeta:depth=2")
    # Red has three in column 4 (0-based 3); yellow, to move, must block it.
    rows = [[0] * 7] * 3 + [[0, 0, 0, 1, 0, 0, 0]] * 2 + [[2, 2, 0, 1, 0, 0, 0]]
    board = [cell for row in rows for cell in row]
    observation = Struct(board=board, mark=2, step=5, remainingOverageTime=60)
    assert agent(observation, Struct(columns=7, rows=6, inarow=4)) == 3
    assert agent({"board": board, "mark": 2}, {"columns": 7, "rows": 6, "inarow": 4}) == 3
    assert type(agent(observation, Struct(columns=7, rows=6, inarow=4))) is int


@pytest.mark.parametrize(
    ("observation", "configuration", "message"),
    [
        ({"board": [0] * 42, "mark": 1}, {"columns": 7, "rows": 6, "inarow": 5},
         r"inarow=5 is not supported: this package plays four in a row \(inarow=4\)"),
        ({"board": [0] * 40, "mark": 1}, {"columns": 7, "rows": 6, "inarow": 4},
         r"board has 40 cells, not columns\*rows = 42"),
        ({"board": [0] * 41 + [1], "mark": 1}, {"columns": 7, "rows": 6, "inarow": 4},
         "mark 1 is not the side to move: the board has 1 stones, so mark 2 moves"),
        ({"board": [0] * 120, "mark": 1}, {"columns": 12, "rows": 10, "inarow": 4},
         "board 12x10 is too large"),
        ({"board": [1] + [0] * 41, "mark": 2}, {"columns": 7, "rows": 6, "inarow": 4},
         "column 1: a stone floats above the empty cell in row 2"),
        ({"board": [0] * 42}, {"columns": 7, "rows": 6, "inarow": 4}, "no 'mark' field"),
        ({"board": 7, "mark": 1}, {"columns": 7, "rows": 6, "inarow": 4},
         "ConnectX board must be a list of cells, not 7"),
        ({"board": "0" * 42, "mark": 1}, {"columns": 7, "rows": 6, "inarow": 4},
         "ConnectX board must be a list of cells"),
    ],
)  # fmt: skip
def test_boards_the_agent_cannot_play_are_precise_errors(
    observation: dict[str, Any], configuration: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        kaggle_agent("random")(observation, configuration)


def test_a_bad_spec_is_refused_when_the_agent_is_built() -> None:
    with pytest.raises(PlayerSpecError, match="unknown player 'perfekt'"):
        kaggle_agent("perfekt")


# ------------------------------------------------------------ ConnectX agent files as players
def centre_first(board: list[int]) -> int:
    """The centremost free column of a 7-wide ConnectX board."""
    return next(c for c in (3, 2, 4, 1, 5, 0, 6) if board[c] == 0)


def test_the_runner_shows_agents_what_kaggle_shows_them() -> None:
    """Kaggle's own observations and configurations, replayed through :func:`observe`."""
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def spy(observation: Any, configuration: Any) -> int:
        seen.append((dict(observation), dict(configuration)))
        return centre_first(observation.board)

    final_state([spy, spy])
    assert len(seen) >= 7
    moves = ""
    for observation, configuration in seen:
        ours, our_configuration = observe(Position.from_moves(moves), observation["mark"], None)
        assert ours == observation
        assert our_configuration == configuration
        assert ours.board == observation["board"]  # attribute access, as Kaggle's Struct
        moves += str(centre_first(observation["board"]) + 1)


def test_the_runner_hands_over_only_plain_ints() -> None:
    import numpy as np

    assert reply_of(3) == "4"
    assert reply_of(np.int64(3)) == "np.int64(3)"
    assert reply_of(None) == "None"
    assert reply_of(3.0) == "3.0"
    assert reply_of(True) == "True"

    class Sneaky:
        def __repr__(self) -> str:
            return "4"

    assert reply_of(Sneaky()) == "Sneaky(4)"  # never read back as a column


def test_kaggle_spec_builds_an_external_player_running_the_agent_file() -> None:
    player = make_player(f"kaggle:{EXAMPLE}")
    assert isinstance(player, ExternalPlayer)
    assert player.argv[0] == sys.executable
    assert player.argv[1].endswith("kaggle_runner.py")
    assert player.argv[2] == str(EXAMPLE)
    player.time_limit = 20.0
    try:
        # The example wins at once when it can: red completes 4-5-6 with 3 or 7.
        assert player.choose(Position.from_moves("445566")).move in (2, 6)
        assert player.choose(Position.from_moves("12121")).move == 0  # yellow blocks column 1
    finally:
        player.close()


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("kaggle:", {}, "kaggle: needs an agent file"),
        ("kaggle:no/such/agent.py", {}, "kaggle: agent file 'no/such/agent.py' not found"),
        (f"kaggle:{EXAMPLE}", {"rules": "count-fours"}, "play standard rules only"),
        (f"kaggle:{EXAMPLE}", {"game": "tictactoe"}, "kaggle cannot play tictactoe"),
    ],
)
def test_bad_kaggle_specs_are_precise_errors(
    spec: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(PlayerSpecError, match=message):
        make_player(spec, **options)


def test_an_agent_file_that_does_not_compile_is_a_spec_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def agent(observation, configuration):\n    return (\n")
    with pytest.raises(PlayerSpecError, match=r"kaggle: .*broken.py line 2: '\(' was never closed"):
        make_player(f"kaggle:{broken}")


@pytest.mark.parametrize(
    ("source", "detail"),
    [
        ("x = 1\n", "defines no function"),
        ("import no_such_module_xyz\n", "No module named 'no_such_module_xyz'"),
    ],
)
def test_an_agent_file_that_fails_to_load_forfeits_with_crash(
    tmp_path: Path, source: str, detail: str
) -> None:
    agent = tmp_path / "agent.py"
    agent.write_text(source)
    player = make_kaggle(str(agent), time_limit=10.0)
    try:
        with pytest.raises(BotFault) as caught:
            player.choose(Position())
    finally:
        player.close()
    assert caught.value.reason == "crash"
    assert detail in caught.value.detail


def test_agent_files_play_arena_games_and_faulty_ones_forfeit(tmp_path: Path) -> None:
    """Through the real ``connect4 arena`` command: one game per agent and colour."""
    results = tmp_path / "r.jsonl"
    agents = ["kaggle_good", "kaggle_crash", "kaggle_slow", "kaggle_illegal", "kaggle_numpy"]
    specs = {f"kaggle:{BOTS / name}.py": name for name in agents}
    finished = run_cli(
        "arena", "--gauntlet", f"kaggle:{EXAMPLE}", "--players", *specs,
        "--games-per-pair", "2", "--openings", "plies=1", "--time-per-move", "3",
        "--accuracy-nodes", "0", "--seed", "4", "--results", str(results), "--json",
        timeout=300,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    records = [json.loads(line) for line in results.read_text().splitlines()]
    outcomes: dict[str, list[tuple[bool, str, str]]] = {name: [] for name in agents}
    for record in records:
        mine = "red" if record["red"] in specs else "yellow"
        assert record["forfeit"] in (None, mine)  # the example agent never forfeits
        forfeited = record["forfeit"] == mine
        outcomes[specs[record[mine]]].append((forfeited, record["reason"], record["detail"]))
    assert all(len(games) == 2 for games in outcomes.values()), outcomes
    for forfeited, reason, detail in outcomes["kaggle_good"]:
        assert (forfeited, detail) == (False, "")
        assert reason in ("connect four", "draw")
    crash = "exit status 1: ZeroDivisionError: integer division or modulo by zero"
    for name, fault in [
        ("kaggle_crash", (True, "crash", crash)),
        ("kaggle_slow", (True, "timeout", "")),
        ("kaggle_illegal", (True, "illegal move 8", "")),
        ("kaggle_numpy", (True, "bad output 'np.int64(0)'", "")),
    ]:
        assert outcomes[name] == [fault, fault], name
    report = json.loads(finished.stdout)
    assert report["games_played"] == 10


def test_the_faulty_agents_fault_in_kaggle_environments_too() -> None:
    """The same files in Kaggle's own runner: an error, an invalid action (twice)."""
    for name, status in [
        ("kaggle_crash", "ERROR"),
        ("kaggle_numpy", "INVALID"),
        ("kaggle_illegal", "INVALID"),
    ]:
        env = make("connectx", debug=False)
        env.run([str(BOTS / f"{name}.py"), "random"])
        assert env.steps[-1][0].status == status, name
    good = final_state([str(BOTS / "kaggle_good.py"), str(EXAMPLE)])
    assert [s.status for s in good] == ["DONE", "DONE"]
