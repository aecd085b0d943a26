"""One exception root, and two kinds below it: bad input and a stop.

Every exception class the package defines derives from ``Connect4Exception``.
Bad input (and any failure named for the user) is a ``Connect4Error``, still a
``ValueError``; work that stopped before it finished is a ``Stopped``, never a
``ValueError``, so an ``except ValueError`` written for bad input cannot
swallow a time limit, a cancelled request or a Ctrl-C.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import os
import pkgutil
import re
from pathlib import Path

import pytest

import connect4
from connect4.core.errors import install_command
from tests.cli_helpers import run_cli

PACKAGE = Path(connect4.__file__).parent

STOP_WORDS = re.compile(
    r"Stop|Cancel|Timeout|Interrupt|Gone|Starved|Abort|Budget|Exceeded|Saturated"
)
"""Words in a class name that say the work stopped rather than the input was wrong."""

# Neither bad input nor a stop: the compiled kernel on disk belongs to another build.
OTHER = {"connect4.solver.native.StaleKernel"}
# Stops whose names do not say so: the server cannot answer now (HTTP 503).
QUIET_STOPS = {"connect4.web.clients.ClientBusy"}


def package_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class the package's modules define, by dotted name."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(connect4.__path__, prefix="connect4."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("connect4."):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def written_exceptions() -> set[str]:
    """Every ``class X(...)`` in the source that is an exception by its bases (a
    built-in exception, or another such class), read without importing anything,
    so a class the import walk would miss is still found."""
    builtin = {
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    classes: dict[str, tuple[str, list[str]]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases]
                classes[node.name] = (f"{module}.{node.name}", bases)
    exceptions: set[str] = set()
    grew = True
    while grew:
        grew = False
        for name, (_, bases) in classes.items():
            if name not in exceptions and any(b in builtin or b in exceptions for b in bases):
                exceptions.add(name)
                grew = True
    return {classes[name][0] for name in exceptions}


def test_every_exception_the_package_defines_has_the_one_root() -> None:
    from connect4.core.errors import Connect4Exception

    exceptions = package_exceptions()
    assert "connect4.players.external.BotFault" in exceptions  # the walk finds them
    stray = sorted(n for n, error in exceptions.items() if not issubclass(error, Connect4Exception))
    assert stray == []


def test_the_source_defines_no_exception_the_walk_misses() -> None:
    written = written_exceptions()
    assert "connect4.classic.search.SearchAborted" in written  # the scan finds them
    assert sorted(written - set(package_exceptions())) == []


def test_no_stop_is_a_value_error() -> None:
    exceptions = package_exceptions()
    stops = {n for n in exceptions if STOP_WORDS.search(n.rsplit(".", 1)[-1])}
    assert {"connect4.classic.search.SearchAborted", "connect4.web.pool.ClientGone"} <= stops
    assert sorted(n for n in stops if issubclass(exceptions[n], ValueError)) == []
    from connect4.core.errors import Stopped

    assert sorted(n for n in stops | QUIET_STOPS if not issubclass(exceptions[n], Stopped)) == []


def test_the_rest_is_bad_input_and_stays_a_value_error() -> None:
    from connect4.core.errors import Connect4Error, Stopped

    exceptions = package_exceptions()
    assert issubclass(Connect4Error, ValueError) and not issubclass(Stopped, ValueError)
    neither = sorted(
        n for n, e in exceptions.items() if not issubclass(e, (Connect4Error, Stopped))
    )
    assert neither == sorted(OTHER | {"connect4.core.errors.Connect4Exception"})
    both = sorted(
        n for n, e in exceptions.items() if issubclass(e, Connect4Error) and issubclass(e, Stopped)
    )
    assert both == []


def test_the_package_exports_the_root_and_the_stop() -> None:
    from connect4.core import errors

    assert connect4.Connect4Exception is errors.Connect4Exception
    assert connect4.Stopped is errors.Stopped
    assert issubclass(connect4.BudgetExceeded, connect4.Stopped)


def hide_pytorch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import torch`` fail in the commands this test runs."""
    hidden = tmp_path / "hidden" / "torch"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('PyTorch hidden for this test')\n")
    paths = [str(hidden.parent), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))


def test_train_without_pytorch_names_the_projects_own_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pip install 'connect4[train]'`` installs PyPI's unrelated connect4: the message
    gives the command every other missing extra gives."""
    hide_pytorch(tmp_path, monkeypatch)
    done = run_cli("train", "--generate", "10", "--out", str(tmp_path / "net.pt"))
    assert done.returncode == 2
    assert done.stderr == (
        "error: torch is not installed (needed for training): in the project's folder run "
        f"{install_command('train')}\n"
    )


def test_train_checks_its_files_before_importing_pytorch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bad --data file or a --resume of nothing is said at once: PyTorch's import, which
    takes seconds, comes after them (here it would fail, and is never reached)."""
    hide_pytorch(tmp_path, monkeypatch)
    (tmp_path / "junk.npz").write_text("no")
    out = str(tmp_path / "net.pt")
    junk = run_cli("train", "--data", str(tmp_path / "junk.npz"), "--out", out)
    assert junk.returncode == 2
    assert junk.stderr.startswith(f"error: cannot read {tmp_path / 'junk.npz'} as a dataset")
    resume = run_cli("train", "--data", str(tmp_path / "junk.npz"), "--out", out, "--resume")
    assert resume.returncode == 2 and "does not exist" in resume.stderr
    assert "torch" not in junk.stderr + resume.stderr
