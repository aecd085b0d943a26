"""What the import contract cannot see: no layer imports the root package; and no module
or function too long to read, nor a function with too many paths through it.

``connect4/__init__.py`` re-exports every layer (some lazily), so a module that
imported ``connect4`` itself could reach any layer around the contract.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from radon.complexity import cc_visit
from radon.visitors import Class

import connect4

PACKAGE = Path(connect4.__file__).resolve().parent


def test_no_module_of_a_layer_imports_the_root_package() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent == PACKAGE:  # the root's own modules: __init__, __main__
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "connect4" and node.level == 0:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if isinstance(node, ast.Import) and any(a.name == "connect4" for a in node.names):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert offenders == []


def test_the_version_is_one_constant() -> None:
    from connect4.core.version import __version__

    assert connect4.__version__ == __version__
    pyproject = (PACKAGE.parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{__version__}"' in pyproject


MOST_MODULE_LINES = 700
MOST_FUNCTION_LINES = 110
# The solver's kernel: one flat namespace of numba functions calling each other by name,
# which a board's generated kernel copies whole (its static rules, table and search are
# sections of it): the module may be longer, each of its functions may not.
FLAT_KERNELS = {"solver/kernel.py"}


def test_no_module_or_function_is_too_long_to_read() -> None:
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MOST_MODULE_LINES and name not in FLAT_KERNELS:
            too_long.append(f"{name}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MOST_FUNCTION_LINES:
                    too_long.append(f"{name}:{node.lineno} {node.name}: {lines} lines")
    assert too_long == []


MOST_COMPLEXITY = 30
"""The most cyclomatic complexity (radon's measure: one plus each branch, loop, boolean
operator, except clause and comprehension condition) a function may have."""


def functions_of(blocks: list[Any]) -> Iterator[Any]:
    """Every function and method among radon's ``blocks`` (which list a module's classes
    with their methods beside them), closures and the methods of inner classes included;
    a class's own figure sums its methods: left out."""
    for block in blocks:
        if isinstance(block, Class):
            for inner in block.inner_classes:
                yield from functions_of([*inner.methods, inner])
        else:
            yield block
            yield from functions_of(block.closures)


def test_no_function_is_too_complex_to_follow() -> None:
    too_complex = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        for function in functions_of(cc_visit(path.read_text(encoding="utf-8"))):
            if function.complexity > MOST_COMPLEXITY:
                where = f"{name}:{function.lineno} {function.fullname}"
                too_complex.append(f"{where}: complexity {function.complexity}")
    assert too_complex == []
