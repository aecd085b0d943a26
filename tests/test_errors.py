"""One error root: every exception class the package defines is a Connect4Error."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
from pathlib import Path

import pytest

import connect4
from connect4.core.errors import BudgetExceeded, Connect4Error, install_command
from tests.cli_helpers import run_cli

# Control flow inside one component, always caught there (each says why in a comment).
INTERNAL = {"connect4.classic.search.SearchAborted", "connect4.solver.native.StaleKernel"}
# A limit that ran out before any answer: the web answers these with 503, not 400.
LIMITS = {
    "connect4.solver.book.jobs.JobInterrupted",
    "connect4.solver.book.build.BuildInterrupted",
    "connect4.web.errors.Unavailable",
    "connect4.web.errors.TimeLimitExceeded",
    "connect4.web.pool.PoolSaturated",
    "connect4.web.pool.PoolTimeout",
}


def package_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(connect4.__path__, prefix="connect4."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("connect4."):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_exception_the_package_defines_has_the_one_root() -> None:
    exceptions = package_exceptions()
    assert "connect4.players.external.BotFault" in exceptions  # the walk finds them
    stray = sorted(
        name
        for name, error in exceptions.items()
        if name not in INTERNAL and not issubclass(error, Connect4Error)
    )
    assert stray == []
    assert set(exceptions) >= INTERNAL


def test_the_limits_that_ran_out_are_budget_exceeded() -> None:
    exceptions = package_exceptions()
    assert sorted(n for n in LIMITS if not issubclass(exceptions[n], BudgetExceeded)) == []


def test_train_without_pytorch_names_the_projects_own_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pip install 'connect4[train]'`` installs PyPI's unrelated connect4: the message
    gives the command every other missing extra gives."""
    hidden = tmp_path / "hidden" / "torch"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('PyTorch hidden for this test')\n")
    paths = [str(hidden.parent), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))
    done = run_cli("train", "--generate", "10", "--out", str(tmp_path / "net.pt"))
    assert done.returncode == 2
    assert done.stderr == (
        "error: torch is not installed (needed for training): in the project's folder run "
        f"{install_command('train')}\n"
    )
