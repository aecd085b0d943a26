"""The terminal game's start: what ``make play`` installs, and players made ready on a thread
while the first prompt waits."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
from pathlib import Path
from typing import Any

import pytest

from connect4 import Position
from connect4.core.games import Board
from connect4.players import Player, PlayerSpecError, make_player
from connect4.terminal import BackgroundPlayer, ready_players, wait_until_ready

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ make play
def test_make_play_installs_the_browser_app_and_the_plots() -> None:
    """``make play`` is the README's first command: it installs the web and plots extras,
    so ``connect4 serve`` and the plots work after it (what make would run, not run)."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    done = subprocess.run(
        [make, "-n", "-W", "pyproject.toml", "play"],  # as if pyproject.toml had changed
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    installs = [line for line in done.stdout.splitlines() if "install" in line and " -e " in line]
    assert len(installs) == 1, done.stdout
    found = re.search(r" -e '?\.\[([\w,-]+)\]", installs[0])
    assert found, installs[0]
    extras = set(found.group(1).split(","))
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert {"web", "plots"} <= extras <= set(declared["optional-dependencies"])
    assert "--quiet" in installs[0] and "--no-compile" in installs[0]  # a quick first start


def test_a_named_spec_is_checked_before_the_game() -> None:
    with pytest.raises(PlayerSpecError, match="depth"):
        ready_players(["human", "alphabeta:depth=99"], [False, False], Board(), None, False)


def test_a_named_computer_player_is_built_at_once_and_rehearsed_on_a_thread() -> None:
    human, computer = ready_players(
        ["human", "alphabeta:depth=2"], [False, False], Board(), None, False
    )
    assert human.is_human and not isinstance(human, BackgroundPlayer)
    assert isinstance(computer, BackgroundPlayer) and computer.spec == "alphabeta:depth=2"
    assert computer.choose(Position.from_moves("112233")).move == 3
    computer.close()


def test_a_chosen_player_plays_as_the_same_player_built_directly() -> None:
    red, yellow = ready_players(["random", "random"], [True, True], Board(), 7, False)
    direct = [make_player("random", seed=7), make_player("random", seed=8)]
    game = Position()
    for player, twin in zip((red, yellow, red, yellow), direct * 2, strict=True):
        move = player.choose(game).move
        assert move == twin.choose(game).move
        game.play(move)


def test_a_failed_preparation_is_raised_where_the_player_is_used() -> None:
    (player,) = ready_players(["alphabeta:depth=99"], [True], Board(), None, False)
    wait_until_ready([player])  # leaves the error to the move
    with pytest.raises(PlayerSpecError, match="depth"):
        player.choose(Position())
    player.close()  # nothing was built: nothing to close


def test_the_player_is_used_only_after_its_preparation() -> None:
    release = threading.Event()
    closed: list[str] = []

    class Slow:
        spec, is_human = "slow", False

        def choose(self, game: Position, limit: object = None) -> object:
            raise AssertionError("not used here")

        def close(self) -> None:
            closed.append(self.spec)

    def prepare() -> Player:
        release.wait(5)
        return Slow()  # type: ignore[return-value]

    player = BackgroundPlayer("slow", prepare)
    waiter = threading.Thread(target=player.close)
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive() and not closed  # close waits for the preparation
    release.set()
    waiter.join(5)
    assert closed == ["slow"]


# ------------------------------------------------------------------ the command line
def test_play_options_still_complete() -> None:
    env = {
        **os.environ,
        "_CONNECT4_COMPLETE": "complete_bash",
        "COMP_WORDS": "connect4 play --yel",
        "COMP_CWORD": "2",
    }
    script = Path(sys.executable).parent / "connect4"  # the installed command
    done = subprocess.run(
        [str(script), "play", "--yel"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert "--yellow" in done.stdout.split()


# ------------------------------------------------------------------ the first move past the book
def test_moves_past_the_book_reuse_the_table_the_rehearsal_paged_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The perfect player is rehearsed on one thread and each of its moves runs on a new
    one (play_move's thinking thread): its moves past the book take the table the
    rehearsal made instead of making and paging in one each (tens of milliseconds a
    move, over 100 on a busy machine), and keep its entries from move to move."""
    from connect4.players.match import play_move
    from connect4.players.perfect import TABLE_MEGABYTES
    from connect4.solver import backend

    real = backend.new_table
    made: list[int] = []

    def counted(width: int, height: int, nbytes: int) -> Any:
        if nbytes == TABLE_MEGABYTES << 20:
            made.append(nbytes)
        return real(width, height, nbytes)

    monkeypatch.setattr(backend, "new_table", counted)
    backend.TABLES.clear()
    spec = "perfect:time=0.97"  # rehearsed once per process and spec: this test's own
    (player,) = ready_players([spec], [False], Board(), None, False)
    wait_until_ready([player])
    assert len(made) == 1  # the rehearsal's table
    for moves in ("45233643", "4523364357"):  # past the book, red to move
        turn = play_move(player, Position.from_moves(moves))
        assert turn.choice is not None and turn.choice.stats["source"] == "solver"
    assert len(made) == 1  # no table made for either move's thread
    player.close()


def test_a_board_the_solver_cannot_search_is_refused_before_the_game() -> None:
    """The perfect player makes its solver when it is built: a board the solver cannot
    search is a one-line error then, not a traceback (nor a forfeit at its first move)."""
    from tests.cli_helpers import run_cli

    done = run_cli("play", "--width", "33", "--height", "2", "--red", "perfect", "--no-review")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "perfect" in done.stderr and "up to 32 columns" in done.stderr


# ------------------------------------------------------------------ what the first prompt loads
HEAVY = ("numpy", "numba", "llvmlite", "torch")
"""The packages a first prompt must not wait for (the solver's, the network's)."""


def python_lines(code: str) -> list[str]:
    """What a fresh interpreter running ``code`` prints, line by line (it must succeed)."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def test_the_players_package_loads_a_kind_only_when_it_is_looked_up() -> None:
    """Naming the kinds and building a person and a random player import no kind's
    module beyond the registry, and none of numpy, numba, llvmlite or torch."""
    lines = python_lines(
        "import sys\n"
        "from connect4.players import BUILTIN_KINDS, KINDS, make_player\n"
        "from connect4.core.games import Board\n"
        "assert 'perfect' in KINDS and len(KINDS) == len(BUILTIN_KINDS)\n"
        "make_player('human'); make_player('random', seed=1).choose(Board().new())\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))\n"
        "print(sorted(m for m in sys.modules if m.startswith('connect4.players.')))\n"
        "print(KINDS['perfect'].name, 'connect4.players.perfect' in sys.modules)\n"
    )
    assert lines[0] == "[]"
    assert lines[1] == str(
        ["connect4.players.base", "connect4.players.options", "connect4.players.registry"]
    )
    assert lines[2] == "perfect True"  # looked up: loaded
