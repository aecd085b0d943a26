"""The console entry point: every command line goes through the typer app, which loads the
one subcommand it names (the others when the help lists them), so it starts fast."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


def run_entry(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "connect4", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def imported(stderr: str) -> set[str]:
    """Module names from ``-X importtime`` output."""
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if "|" in line}


LOADED = (
    "import atexit, sys; sys.argv = ['connect4', *sys.argv[1:]]; "
    "atexit.register(lambda: print('cli:', *sorted(m for m in sys.modules "
    "if m.startswith('connect4.cli')), file=sys.stderr)); "
    "from connect4.cli import main; main()"
)
SHARED = ["connect4.cli", "connect4.cli.app", "connect4.cli.common"]


def cli_modules(*args: str, stdin: str = "") -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run ``connect4 ARGS``; return the run and the modules of :mod:`connect4.cli` it
    imported (``-X importtime`` does not see ``importlib.import_module``)."""
    result = subprocess.run(
        [sys.executable, "-c", LOADED, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("cli: "), result.stderr[-2000:]
    return result, last.split()[1:]


def test_solve_loads_its_own_command_only() -> None:
    result = run_entry("solve", stdin="44455554221\n")
    assert result.returncode == 0
    assert result.stdout == "44455554221 -15\n"
    modules = imported(result.stderr)
    assert "connect4.solver.native" in modules  # the solver ran (numba or native kernel)
    assert "typer" in modules  # typer reads the line: no parser of our own
    result, loaded = cli_modules("solve", "4455")
    assert result.stdout == "4455 18\n"
    assert loaded == sorted([*SHARED, "connect4.cli.solve"])


def test_play_loads_its_own_command_only() -> None:
    line = ["play", "--red", "human", "--yellow", "human", "--no-review"]
    result, loaded = cli_modules(*line, stdin="q\n")
    assert result.returncode == 0, result.stderr[-2000:]
    assert loaded == SHARED  # play is declared in the app itself
    bad = run_entry(*line, "--seed", "x", stdin="q\n")
    assert bad.returncode == 2 and "'--seed'" in bad.stderr  # typer's own words


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_solve_help(flag: str) -> None:
    result = subprocess.run(
        [Path(sys.executable).parent / "connect4", "solve", flag],  # the installed command
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Usage: connect4 solve [OPTIONS] [MOVES]..." in result.stdout
    assert "--threads" in result.stdout and "--analyze" in result.stdout


def test_the_usage_names_connect4_however_it_was_started() -> None:
    result = run_entry("arena", "-h")  # python -m connect4: click would say "python -m connect4"
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Usage: connect4 arena [OPTIONS]" in result.stdout


def test_the_help_lists_every_command() -> None:
    from connect4.cli.app import COMMANDS

    result = run_entry("-h")
    assert result.returncode == 0, result.stderr[-2000:]
    rows = (
        result.stdout.splitlines()
    )  # a command's row starts with its name, wrapped ones with space
    assert [row.split()[1] for row in rows if re.match(r"│ [a-z]", row)] == list(COMMANDS)


def test_a_mistyped_command_is_named_with_its_neighbours() -> None:
    result = run_entry("slove")
    assert result.returncode == 2
    assert "No such command 'slove'. Did you mean 'solve'" in result.stderr


def test_other_commands_go_through_the_typer_app() -> None:
    result = run_entry("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("connect4 ")
    assert "typer" in imported(result.stderr)


def test_solve_usage_errors_exit_2() -> None:
    result = run_entry("solve", "--bogus")
    assert result.returncode == 2
    assert "No such option: --bogus" in result.stderr


def test_shell_completion_prints_a_script() -> None:
    script = Path(sys.executable).parent / "connect4"  # the installed command
    # typer detects the shell running the command from the parent processes and takes
    # that over the one asked for: under make's /bin/sh it says "Shell sh not supported".
    # Its own tests turn the detection off with this variable, so "bash" is taken as said.
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    result = subprocess.run(
        [str(script), "--show-completion", "bash"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "_connect4_completion()" in result.stdout
    assert "complete " in result.stdout and " connect4" in result.stdout
