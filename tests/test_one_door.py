"""Each part of the runtime has one door: one module starts worker processes (and holds
the one parent-death policy), one draws progress bars, one reads command lines (typer),
and numba's internals are reached from one module. A second door added anywhere in the
package fails here, naming the module."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import connect4

PACKAGE = Path(connect4.__file__).resolve().parent


def modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        yield name, ast.parse(path.read_text(encoding="utf-8"), filename=name)


def imported(tree: ast.Module) -> set[str]:
    """Every module and ``module.name`` a module imports (at any depth: lazy imports too)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def attributes(tree: ast.Module) -> set[str]:
    """Every ``a.b`` attribute chain's last two names a module uses (``os.fork``...)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            found.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            found.add(f"{node.value.attr}.{node.attr}")
    return found


def defined(tree: ast.Module) -> set[str]:
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def users(test: str) -> list[str]:
    """The modules where ``test(tree)`` holds."""
    checks = {
        "process pools": lambda tree: bool(
            imported(tree)
            & {
                "concurrent.futures.ProcessPoolExecutor",
                "concurrent.futures.process",
                "multiprocessing.get_context",
                "multiprocessing.Pool",
                "loky",
            }
            or attributes(tree)
            & {"futures.ProcessPoolExecutor", "multiprocessing.get_context", "multiprocessing.Pool"}
        ),
        "exit_with_parent": lambda tree: "exit_with_parent" in defined(tree),
        "progress bars": lambda tree: any(
            name == "rich.progress" or name.startswith("rich.progress.") for name in imported(tree)
        ),
        "argparse": lambda tree: any(
            name == "argparse" or name.startswith("argparse.") for name in imported(tree)
        ),
        "numba internals": lambda tree: any(
            name.startswith(("numba.core", "numba.cpython"))  # numba.extending is public
            for name in imported(tree)
        ),
    }
    return [name for name, tree in modules() if checks[test](tree)]


@pytest.mark.parametrize(
    ("door", "owners"),
    [
        ("process pools", ["core/processes.py"]),
        ("exit_with_parent", ["core/processes.py"]),
        ("progress bars", ["core/progress.py"]),
        ("argparse", []),
        ("numba internals", ["core/compiler.py"]),
    ],
)
def test_one_module_owns_each_door(door: str, owners: list[str]) -> None:
    assert users(door) == owners


def test_no_second_command_line_reader() -> None:
    assert not (PACKAGE / "cli" / "quick.py").exists()
