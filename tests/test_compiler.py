"""The compiler boundary (connect4.core.compiler): numba's internals used nowhere else
in the package, and a cold compile that always says so, even when numba's cache
internals cannot tell whether the cache is warm."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from connect4.core import compiler
from connect4.solver import backend, wide

CORE = Path(compiler.__file__).parent

# what only the compiler boundary may use: numba's implementation, LLVM IR, copies of
# code objects, the private attributes of numba's dispatchers
PRIVATE = re.compile(
    r"numba\.core|numba\.cpython|from llvmlite import ir|llvmlite\.ir|@intrinsic"
    r"|FunctionType\(|\._cache\b|\.overloads\b|\.fndesc\b|get_llvm_str|targetoptions"
)


def test_numba_internals_are_used_in_the_compiler_boundary_only() -> None:
    package = CORE.parent
    found = [
        f"{path.relative_to(package)}:{number}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "compiler.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if PRIVATE.search(line)
    ]
    assert found == []


def numba_moved(function: object) -> dict[object, object]:
    raise AttributeError("'FunctionCache' object has no attribute '_cache_file'")


def test_a_cache_check_that_cannot_tell_says_cold(monkeypatch: pytest.MonkeyPatch) -> None:
    functions = backend.numba_kernel().board_kernel("7x6").functions.values()
    assert compiler.cache_is_warm(functions)  # compiled above: warm
    monkeypatch.setattr(compiler, "_index", numba_moved)
    assert not compiler.cache_is_warm(functions)


def test_a_cold_compile_is_told_when_the_cache_check_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """numba's cache internals raising (a numba release moved them): the solver says it
    compiles, rather than run a long compile without a word."""
    compiled: list[str] = []
    monkeypatch.setattr(compiler, "_index", numba_moved)
    monkeypatch.setattr(backend, "_compiled", set())
    monkeypatch.setattr(backend, "_exercise", lambda kernel: compiled.append(kernel.board))
    backend.numba_kernel("any")
    err = capsys.readouterr().err
    assert "compiling the solver for boards other than 7x6 (about 30 s" in err
    assert compiled == ["any"]


def test_a_big_boards_cold_compile_is_told_when_the_cache_check_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled: list[tuple[int, int]] = []
    notices: list[str] = []
    monkeypatch.setattr(compiler, "_index", numba_moved)
    monkeypatch.setattr(wide, "_backends", {})
    monkeypatch.setattr(
        wide.WideBackend, "compile", lambda self: compiled.append((self.width, self.height))
    )
    assert not wide.is_cached(9, 7)
    wide.wide_backend(9, 7, notices.append)
    assert notices == [
        "compiling the solver for 9x7 boards (about a minute, first run only; cached afterwards)..."
    ]
    assert compiled == [(9, 7)]


PROGRAM = """
import sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "boundary":
    import connect4.core.compiler  # noqa: F401
import cached_module
print(cached_module.f(1))
"""


@pytest.mark.parametrize(
    "damage",
    [b"cvanished_module\nThing\n.", b"\x80\x04truncated"],
    ids=["an index naming a module that moved", "a truncated index"],
)
def test_a_cache_numba_cannot_read_counts_as_empty(tmp_path: Path, damage: bytes) -> None:
    """An old cache whose index names a module that has moved (as ``uint128``'s did) or
    a damaged one: the function compiles again rather than every call failing; numba
    alone raises."""
    import os
    import pickle
    import subprocess
    import sys

    (tmp_path / "cached_module.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n"
    )
    run = [sys.executable, "-c", PROGRAM, str(tmp_path)]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    first = subprocess.run([*run, "boundary"], capture_output=True, text=True, timeout=300, env=env)
    assert first.stdout.strip() == "2", first.stderr
    (index,) = (tmp_path / "numba").rglob("cached_module.f-*.nbi")
    with index.open("rb") as source:
        version = pickle.load(source)
    index.write_bytes(pickle.dumps(version) + damage)
    plain = subprocess.run([*run, "numba"], capture_output=True, text=True, timeout=300, env=env)
    assert plain.returncode != 0  # numba alone fails on it
    again = subprocess.run([*run, "boundary"], capture_output=True, text=True, timeout=300, env=env)
    assert again.stdout.strip() == "2", again.stderr
    assert "Traceback" not in again.stderr
