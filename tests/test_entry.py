"""The console entry point: `connect4 solve` loads its own command only, so it starts fast."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


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


def test_solve_loads_its_own_command_only() -> None:
    result = run_entry("solve", stdin="44455554221\n")
    assert result.returncode == 0
    assert result.stdout == "44455554221 -15\n"
    modules = imported(result.stderr)
    assert "connect4.solver.native" in modules  # the solver ran (numba or native kernel)
    # a plain line skips the other commands and typer's value checks (pydantic)
    assert "connect4.cli.app" not in modules and "pydantic" not in modules


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
