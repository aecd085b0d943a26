"""Generated kernel modules are remade when what they are given moves.

numba's on-disk cache of a generated module keeps references to the globals it
was given by their modules; when a helper moved (the 128-bit type and the
intrinsics went from the solver to the core), an unchanged module text let numba
load code naming a module that no longer exists (``ModuleNotFoundError`` on every
solve with an old cache). The module's stamp now names where each given global
comes from.
"""

from __future__ import annotations

import types
from pathlib import Path

from numba import njit

from connect4.core.generated import Copy, generate


def _double(x: int) -> int:
    return helper(x) * 2  # type: ignore[name-defined,no-any-return]  # noqa: F821 - given by the namespace


def _helper_from(module: str) -> object:
    def helper(x: int) -> int:
        return x + 1

    helper.__module__ = module
    return njit(helper)


def _load(folder: Path, module: str) -> tuple[str, dict[str, object]]:
    namespace = {"helper": _helper_from(module), "np": types}
    scope = generate("gen_moves", folder, namespace, {"K": 3}, {"double": Copy(_double)}, ["v1"])
    return (folder / "gen_moves.py").read_text(), scope


def test_a_given_global_that_moves_remakes_the_module(tmp_path: Path) -> None:
    before, scope = _load(tmp_path, "connect4.solver.compiler")
    again, _ = _load(tmp_path, "connect4.solver.compiler")
    moved, moved_scope = _load(tmp_path, "connect4.core.compiler")
    assert before == again  # nothing moved: the same text, numba's cache kept
    assert moved != before  # the helper moved: a new stamp, the module remade
    assert scope["double"](4) == moved_scope["double"](4) == 10  # type: ignore[operator]
