"""Outputs checked before any work, and written whole.

:func:`check_output` applies the one policy on what is already there, so no command
loses a user's file (see :mod:`connect4.core.files`); :func:`output_folder` does the
same for a folder of outputs; :func:`atomic_write` writes a temporary file in the
same folder, fsyncs it and renames it over the target, so a reader sees the old file
or the new one, never half of one. It is the mechanism, not the policy: it replaces
what :func:`check_output` allowed (and the command's own files, such as journals).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import BinaryIO

from connect4.core.fileerror import FileError, StrPath, describe_mode, file_errors, reason
from connect4.core.inputs import open_input

Recognise = Callable[[BinaryIO], str | None]
"""How a resumable command recognises its own file: given the file open at its start,
``None`` when it is the command's own, else why not (``its first line is not a game
record``); it reads only what it needs (a header, a first record)."""

MAX_RECOGNISED_BYTES = 1 << 40
"""The largest existing output a command is asked to recognise (it reads only its start)."""


def check_output(
    path: StrPath,
    *,
    what: str,
    suffixes: Collection[str] | None = None,
    force: bool = False,
    resume: bool = False,
    ours: Recognise | None = None,
) -> Path:
    """Check, before any work, that ``path`` can be written; return the file to write.

    Refused: a missing or unwritable folder, a target that is a folder, a
    device, a FIFO or a socket, and (with ``suffixes``) a name without one of
    them. Then the policy on what is there (see the module docstring): an
    existing file unless ``force`` (replace it) or ``resume`` (continue it: a
    command that can gives ``ours``, which must recognise the file, else it is
    refused untouched); a symbolic link unless ``force`` (then the link itself is
    replaced, never the file it points to). A command without ``ours`` cannot resume.

    >>> check_output("/nonexistent/x.jsonl", what="results")
    Traceback (most recent call last):
    ...
    connect4.core.fileerror.FileError: cannot write results /nonexistent/x.jsonl: the folder \
/nonexistent does not exist
    >>> check_output("/dev/full", what="book")
    Traceback (most recent call last):
    ...
    connect4.core.fileerror.FileError: cannot write book /dev/full: it is a device, not a file
    >>> import tempfile
    >>> notes = Path(tempfile.mkdtemp()) / "notes.txt"
    >>> _ = notes.write_text("mine")
    >>> check_output(notes, what="results", resume=True, ours=lambda file: "not JSON")
    Traceback (most recent call last):
    ...
    connect4.core.fileerror.FileError: cannot continue results ...notes.txt: not JSON; the file is \
left as it was (replace it with force=True instead of resume=True, or give another name)
    >>> check_output(notes, what="results", force=True) == notes
    True
    """
    name = os.fspath(path)
    if force and resume:
        raise FileError(
            f"give {{force}} (replace {what} {name}) or {{resume}} (continue it), not both",
            options=("force", "resume"),
        )
    if resume and ours is None:
        raise FileError(f"{what} {name} cannot be continued: this command cannot resume")
    target, info = _check_target(name, what, suffixes)
    if os.path.islink(name) and not force:
        pointed = os.path.realpath(name)
        hint = (
            "name that file itself to continue it"
            if resume
            else f"give {{force}} to replace the link ({pointed} is left as it is), "
            "or name that file itself"
        )
        raise FileError(
            f"cannot write {what} {name}: it is a symbolic link to {pointed}; {hint}",
            options=("force",),
        )
    if info is None or info.st_size == 0 or force:
        return target
    if not resume:
        go_on = ", {resume} to continue it" if ours is not None else ""
        raise FileError(
            f"cannot write {what} {name}: it already exists ({info.st_size:,} bytes); "
            f"give {{force}} to replace it{go_on}, or another name",
            options=("force", "resume"),
        )
    assert ours is not None
    try:
        with open_input(target, what=what, max_bytes=MAX_RECOGNISED_BYTES) as file:
            why = ours(file)
    except (OSError, ValueError) as error:
        why = str(error)
    if why is not None:
        raise FileError(
            f"cannot continue {what} {name}: {why}; the file is left as it was (replace it "
            "with {force} instead of {resume}, or give another name)",
            options=("force", "resume"),
        )
    return target


def is_archive(file: BinaryIO) -> str | None:
    """A :data:`Recognise` for a file the command wrote as a zip archive (a NumPy
    ``.npz``, a PyTorch checkpoint): its first bytes are a zip's.

    >>> import io
    >>> is_archive(io.BytesIO(b"PK\\x03\\x04...")), is_archive(io.BytesIO(b"notes"))
    (None, 'it is not an archive of arrays (.npz) or a checkpoint')
    """
    if file.read(4) == b"PK\x03\x04":
        return None
    return "it is not an archive of arrays (.npz) or a checkpoint"


def _check_target(
    name: str, what: str, suffixes: Collection[str] | None
) -> tuple[Path, os.stat_result | None]:
    """The file ``name`` writes and its status (``None``: new, or a symbolic link, which
    is replaced as a whole: the file it points to is never written), once its name,
    type and folder allow writing it."""
    if not name:
        raise FileError(f"no file name given for the {what}")

    def refused(why: str) -> FileError:
        return FileError(f"cannot write {what} {name}: {why}")

    if suffixes is not None:
        suffix = Path(name).suffix.lower().lstrip(".")
        known = sorted(s.lower().lstrip(".") for s in suffixes)
        if suffix not in known:
            listed = ", ".join("." + s for s in known)
            given = f"the suffix .{suffix} is not" if suffix else "the name has no suffix naming"
            raise refused(f"{given} a known format (use one of {listed})")
    target = Path(name)
    try:
        info: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise refused(reason(error)) from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        info = None  # the link is replaced, whatever it points to
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise refused(f"it is {describe_mode(info.st_mode)}, not a file")
    folder = target.parent
    if not folder.is_dir():
        raise refused(f"the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise refused(f"the folder {folder} is not writable")
    if info is not None and not os.access(target, os.W_OK):
        raise refused("the file is not writable")
    return target, info


def output_folder(path: StrPath, *, what: str) -> Path:
    """Check, before any work, that the folder ``path`` can take a command's output
    files, and make it if it is missing; return it.

    Refused: a target that exists and is not a folder (a file, a device), a folder
    that is not writable, a missing parent (no chain of folders is made from a typo).

    >>> output_folder("/nonexistent/lab", what="lab folder")
    Traceback (most recent call last):
    ...
    connect4.core.fileerror.FileError: cannot write lab folder /nonexistent/lab: the folder \
/nonexistent does not exist
    >>> output_folder("/dev/full", what="lab folder")
    Traceback (most recent call last):
    ...
    connect4.core.fileerror.FileError: cannot write lab folder /dev/full: it is a device, \
not a folder
    """
    name = os.fspath(path)
    if not name:
        raise FileError(f"no folder name given for the {what}")

    def refused(why: str) -> FileError:
        return FileError(f"cannot write {what} {name}: {why}")

    folder = Path(name)
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise refused(reason(error)) from None
    if info is None:
        parent = folder.absolute().parent
        if not parent.is_dir():
            raise refused(f"the folder {parent} does not exist")
        with file_errors(folder, what):
            folder.mkdir()
    elif not stat.S_ISDIR(info.st_mode):
        kind = "a file" if stat.S_ISREG(info.st_mode) else describe_mode(info.st_mode)
        raise refused(f"it is {kind}, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise refused("the folder is not writable")
    return folder


def atomic_write(
    path: StrPath,
    data: bytes | Callable[[BinaryIO], object],
    *,
    what: str,
    suffixes: Collection[str] | None = None,
) -> None:
    """Replace ``path`` with ``data`` (bytes, or a function writing to a binary file).

    The bytes go to a temporary file in the same folder, fsynced, then renamed
    over the target: the old file stays whole until the new one is complete.
    Any ``OSError`` (a full disk) removes the temporary file and raises a
    :class:`FileError` naming ``path``. A symbolic link is replaced by the file (the
    file it pointed to is left as it was); whether an existing file or link may be
    replaced is :func:`check_output`'s question, asked before the work.
    """
    target, info = _check_target(os.fspath(path), what, suffixes)
    mode = info.st_mode & 0o7777 if info is not None else 0o666
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        with file_errors(path, what):
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            with os.fdopen(fd, "wb") as file:
                if isinstance(data, bytes):
                    file.write(data)
                else:
                    data(file)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, target)
            _sync_folder(target.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort: not every system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
