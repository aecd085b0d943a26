"""Compiled code with other constants, as generated source: numba's documented way.

numba treats a function's global variables as compile-time constants. A module
written with a board's constants as literals at its top (width, height, masks,
centre order), then the source of the functions to compile, therefore compiles to
code with those constants built in: constant shifts, no header loads, column loops
that unroll. The solver makes one such module per board size, and the classic
search one per variant (the two-word one replaces a few helpers by name).

The module is an ordinary file in the cache root, compiled with numba's own
on-disk cache (``cache=True``), which recompiles when the file changes; the file
is rewritten only when its text would change (a stamp of every source it depends
on is part of the text), so an unchanged file keeps its compiled code. This
module only writes and loads text: it does not import numba (the generated
module does).

>>> def twice(x):
...     return x * K
>>> text = module_text("example", {"K": 2}, {"twice": Copy(twice, {"nogil": True})}, "s")
>>> print(text.split("from numba import njit")[1].strip())
K = 2
<BLANKLINE>
<BLANKLINE>
@njit(cache=True, nogil=True)
def twice(x):
    return x * K
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from connect4.core.cache import cache_root, make_private_dir, why_not_private


@dataclass(frozen=True)
class Copy:
    """A function to compile in a generated module: its Python function (whose
    source is copied) and numba's jit options for it (``cache=True`` is added)."""

    function: Callable[..., Any]
    options: Mapping[str, object] = field(default_factory=dict)


__all__ = ["Copy", "generate", "kernel_folder", "literal", "module_text", "source_stamp"]


def source_stamp(*parts: object) -> str:
    """A short hash of the source of each module or function of ``parts`` (numba
    functions by their Python function), and of the text of anything else: what a
    generated module was made from."""
    digest = hashlib.sha256()
    for part in parts:
        part = getattr(part, "py_func", part)  # a numba function: its Python function
        text = inspect.getsource(part) if isinstance(part, ModuleType) or callable(part) else part
        digest.update(str(text).encode())
    return digest.hexdigest()[:16]


def literal(value: object) -> str:
    """``value`` as Python source: an int, a bool, a NumPy integer or a
    one-dimensional integer array."""
    if isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, np.integer):
        return f"np.{type(value).__name__}({int(value)})"
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        return f"np.array({value.tolist()!r}, dtype=np.{value.dtype})"
    raise TypeError(f"no literal for a generated kernel's constant {value!r}")


def _function_source(name: str, copy: Copy) -> str:
    """A function's source under ``name``, decorated with its jit options and numba's
    on-disk cache (its own decorator lines dropped)."""
    python = copy.function
    lines = textwrap.dedent(inspect.getsource(python)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def "))
    header = lines[start].replace(f"def {python.__name__}(", f"def {name}(", 1)
    options = {**copy.options, "cache": True}
    decorator = ", ".join(f"{key}={value!r}" for key, value in sorted(options.items()))
    return "\n".join([f"@njit({decorator})", header, *lines[start + 1 :]])


def module_text(
    title: str, constants: Mapping[str, object], functions: Mapping[str, Copy], stamp: str
) -> str:
    """The source of a generated module: ``constants`` as literals, then each function
    of ``functions`` under its name."""
    parts = [
        f'"""{title}: generated, remade when its sources change; do not edit."""',
        f"# stamp: {stamp}",
        "# Its other globals (the kernel's helpers and layout) are given when it is loaded.",
        "from __future__ import annotations",
        "",
        "import numpy as np",
        "from numba import njit",
        "",
        *(f"{name} = {literal(value)}" for name, value in constants.items()),
        *("\n\n" + _function_source(name, function) for name, function in functions.items()),
    ]
    return "\n".join(parts) + "\n"


def kernel_folder() -> Path | None:
    """Where generated modules are written: ``kernels/`` under the cache root, or
    None when that folder (or the root) is not private to this user (code must not
    be loaded from a place others can write)."""
    root = cache_root()
    folder = root / "kernels"
    private = why_not_private(root) is None and why_not_private(folder) is None
    return folder if private else None


_scratch: Path | None = None


def _folder(folder: Path | None) -> Path:
    """``folder``, or (when there is no private cache folder) one for this process."""
    global _scratch
    if folder is not None:
        make_private_dir(folder)
        return folder
    if _scratch is None:
        _scratch = Path(tempfile.mkdtemp(prefix="connect4-kernels-"))
    return _scratch


def _write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (whole, by a rename) unless it already holds it: an
    unchanged file keeps numba's compiled code of it."""
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _origins(namespace: Mapping[str, Any]) -> list[str]:
    """Where each global a generated module is given comes from (``uint128
    connect4.core.compiler``): numba's cache of the module holds references to
    them by module, so a helper that moves to another module must remake it."""
    return sorted(f"{k} {getattr(v, '__module__', '')}" for k, v in namespace.items())


def generate(
    name: str,
    folder: Path | None,
    namespace: Mapping[str, Any],
    constants: Mapping[str, object],
    functions: Mapping[str, Copy],
    sources: Iterable[object],
) -> dict[str, Any]:
    """Write (if changed) and load the module ``name`` (``kernel_7x6``) in ``folder``
    (none private: a folder of this process's own, compiled each run): ``constants``
    and ``functions`` as :func:`module_text` writes them, over the globals
    ``namespace``; stamped with :func:`source_stamp` of ``sources`` (every source
    the compiled code depends on). Returns the module's globals: each function of
    ``functions`` there calls the others by name."""
    stamp = source_stamp(
        *sources,
        *constants.items(),
        *(c.function for c in functions.values()),
        *_origins(namespace),
    )
    path = _folder(folder) / f"{name}.py"
    text = module_text(
        f"{name}: the solver's kernel compiled for one board", constants, functions, stamp
    )
    _write_if_changed(path, text)
    module_name = f"connect4_generated_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the generated kernel {path}")
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update({k: v for k, v in namespace.items() if not k.startswith("__")})
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module.__dict__
