"""Where the solver keeps files between runs (the native kernel, translated books).

One environment variable, ``CONNECT4_CACHE_DIR``, names the directory; without
it the user's cache directory is used (``$XDG_CACHE_HOME/connect4`` or
``~/.cache/connect4``). Executable code is only loaded from a *private*
directory: owned by the current user and not writable by group or others.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> folder.chmod(0o700)
>>> why_not_private(folder) is None
True
>>> folder.chmod(0o777)
>>> why_not_private(folder)  # doctest: +ELLIPSIS
'...is writable by group or others'
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

CACHE_ENV = "CONNECT4_CACHE_DIR"


def chosen_dir() -> Path | None:
    """The directory ``CONNECT4_CACHE_DIR`` names, or ``None`` when it is not set."""
    chosen = os.environ.get(CACHE_ENV)
    return Path(chosen) if chosen else None


def user_cache_dir() -> Path:
    """``CONNECT4_CACHE_DIR``, else ``$XDG_CACHE_HOME/connect4`` or ``~/.cache/connect4``."""
    chosen = chosen_dir()
    if chosen is not None:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "connect4"


def why_not_private(path: Path) -> str | None:
    """Why ``path`` (a directory or file) must not hold code we load, or ``None``
    when it is fine: owned by the current user and not writable by group or others.
    A path that does not exist is fine (it is created private)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"{path} cannot be checked ({error.strerror})"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"{path} is owned by another user"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path} is writable by group or others"
    return None


def make_private_dir(path: Path) -> None:
    """Create ``path`` (and missing parents) readable and writable by the user only."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def pid_alive(pid: int) -> bool:
    """True when a process ``pid`` runs on this machine (or cannot be checked).

    >>> pid_alive(os.getpid())
    True
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process
    return True


def remove(path: Path) -> None:
    """Delete ``path`` if it still exists; another process may have deleted it first."""
    with contextlib.suppress(OSError):
        path.unlink()
