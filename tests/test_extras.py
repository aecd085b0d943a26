"""A missing optional part (an extra) is one line naming the command that installs it
from the clone, never a traceback: the command runs with the part hidden."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

HIDE = (
    "import sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    sys.modules[name] = None  # as if not installed\n"
    "sys.argv = ['connect4', *sys.argv[2:]]\n"
    "from connect4.cli import main\n"
    "main()\n"
)


def run_without(modules: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "300", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-c", HIDE, modules, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("modules", "args", "line"),
    [
        (
            "fastapi",
            ("serve",),
            "fastapi is not installed (needed for the browser app (connect4 serve)): in the "
            "project's folder run .venv/bin/pip install -e '.[web]'",
        ),
        (
            "matplotlib",
            ("analyze", "44", "--max-depth", "2", "--plot", "out.png"),
            "matplotlib is not installed (needed for plots): in the project's folder run "
            ".venv/bin/pip install -e '.[plots]'",
        ),
        (
            "matplotlib",
            ("review", "4455", "--plot", "out.png"),
            "matplotlib is not installed (needed for plots): in the project's folder run "
            ".venv/bin/pip install -e '.[plots]'",
        ),
    ],
)
def test_a_missing_extra_is_one_line(modules: str, args: tuple[str, ...], line: str) -> None:
    result = run_without(modules, *args)
    assert (result.returncode, result.stderr) == (2, f"error: {line}\n")
    assert result.stdout == ""


def test_an_environment_without_the_rl_extra_names_the_install_command() -> None:
    code = (
        "import sys; sys.modules['pettingzoo'] = None; import connect4.envs\n"
        "from connect4.envs import pettingzoo_env"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stderr.splitlines()[-1] == (
        "ImportError: pettingzoo is not installed (needed for the RL environments "
        "(connect4.envs)): in the project's folder run .venv/bin/pip install -e '.[rl]'"
    )


def test_a_kaggle_agent_needs_no_rl_library() -> None:
    code = (
        "import sys; sys.modules['pettingzoo'] = sys.modules['gymnasium'] = None\n"
        "from connect4.envs import kaggle_agent\n"
        "agent = kaggle_agent('alphabeta:depth=2')\n"
        "print(agent({'board': [0] * 42, 'mark': 1}, {'columns': 7, 'rows': 6, 'inarow': 4}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (result.returncode, result.stdout) == (0, "3\n"), result.stderr


def test_the_dataset_command_needs_no_rl_library(tmp_path: object) -> None:
    # Labelled positions are the solver's work: before, `connect4 dataset` (and `train
    # --generate`) refused to run without gymnasium and pettingzoo.
    out = os.path.join(str(tmp_path), "data.npz")
    result = run_without(
        "pettingzoo,gymnasium", "dataset", "--positions", "12", "--plies", "30-34",
        "--out", out, "--workers", "1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout + result.stderr
    assert os.path.getsize(out) > 0


def test_the_lab_without_matplotlib_fails_before_its_games(tmp_path: object) -> None:
    # Its report always has plots: the missing library is named before the first game.
    out = os.path.join(str(tmp_path), "lab")
    result = run_without("matplotlib", "lab", "--depths", "1-8", "--games", "4", "--out", out)
    assert (result.returncode, result.stderr) == (
        2,
        "error: matplotlib is not installed (needed for plots): in the project's folder run "
        ".venv/bin/pip install -e '.[plots]'\n",
    )
    assert not os.path.exists(out)
