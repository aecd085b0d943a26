"""The cache root: the one folder that holds every file the package keeps between runs.

Compiled code (the native solver kernel, the big-board kernels, numba's own
caches of every compiled function) and translated books all live under it;
nothing is written beside the sources. ``CONNECT4_CACHE_DIR`` names the root;
without it the platform's user cache folder is used (``platformdirs``:
``~/.cache/connect4`` on Linux). numba's caches go to ``numba/`` inside it
(:func:`route_numba_cache`, run when the package is imported) unless
``NUMBA_CACHE_DIR`` already names a place. Executable code is only loaded
from a *private* directory: owned by the current user and not writable by
group or others.

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
import sys
from pathlib import Path
from types import ModuleType

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # Windows: no locks between processes
    fcntl = None

CACHE_ENV = "CONNECT4_CACHE_DIR"


def chosen_dir() -> Path | None:
    """The directory ``CONNECT4_CACHE_DIR`` names, or ``None`` when it is not set."""
    chosen = os.environ.get(CACHE_ENV)
    return Path(chosen) if chosen else None


def cache_root() -> Path:
    """``CONNECT4_CACHE_DIR``, else the platform's user cache folder for the package."""
    chosen = chosen_dir()
    if chosen is not None:
        return chosen
    import platformdirs  # here, not at the top: only a start without the variable needs it

    return Path(platformdirs.user_cache_dir("connect4", appauthor=False))


NUMBA_ENV = "NUMBA_CACHE_DIR"


def route_numba_cache() -> None:
    """Send numba's caches of the package's compiled functions to ``numba/`` under the
    cache root, unless ``NUMBA_CACHE_DIR`` is set already (the user's choice wins).

    numba reads the variable when it is imported; when it was imported before the
    package, its configuration is set directly (a function's cache folder is fixed
    when the function is decorated, which happens when the package's modules load).
    """
    if os.environ.get(NUMBA_ENV):
        return
    folder = str(cache_root() / "numba")
    os.environ[NUMBA_ENV] = folder
    numba = sys.modules.get("numba")  # imported already: its public numba.config
    if numba is not None:
        numba.config.CACHE_DIR = folder


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


NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # where the system has it


class FileLock:
    """An exclusive lock between processes on the file ``path`` (``flock``), e.g. held
    while a kernel compiles so that other processes wait for its file instead of
    compiling it too. Without ``fcntl`` (Windows) every lock is granted at once.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "x.lock"
    >>> first, second = FileLock(path), FileLock(path)
    >>> first.acquire(wait=False), second.acquire(wait=False), second.held_elsewhere()
    (True, False, True)
    >>> first.release()
    >>> second.acquire(wait=False)
    True
    >>> second.release()
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, wait: bool) -> bool:
        """Take the lock (waiting for it with ``wait``); True when held. A lock file
        that cannot be opened counts as granted (there is nothing to share then)."""
        if fcntl is None or self._fd is not None:
            return True
        while True:
            try:  # never made or opened through a symbolic link
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)
            except OSError:
                return True
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except OSError:
                os.close(fd)
                return False
            try:
                current = os.stat(self.path).st_ino
            except OSError:
                current = -1
            if current == os.fstat(fd).st_ino:
                break
            os.close(fd)  # its holder removed the file meanwhile: lock the one there now
        self._fd = fd
        return True

    def fileno(self) -> int | None:
        """The open file that holds the lock (a child process given it holds it too)."""
        return self._fd

    def release(self, remove: bool = False) -> None:
        """Close this process's hold on the lock (a child given the file keeps it);
        ``remove`` deletes the lock's file first (a later holder makes it again), if it
        is the empty file a lock makes (a file of someone else's is never deleted)."""
        if self._fd is not None:
            if remove and os.fstat(self._fd).st_size == 0:
                with contextlib.suppress(OSError):
                    self.path.unlink()
            os.close(self._fd)
            self._fd = None

    def held_elsewhere(self) -> bool:
        """True while another holder has the lock (checked without waiting)."""
        if self._fd is not None:
            return False
        if not self.acquire(wait=False):
            return True
        self.release()
        return False
