"""Inputs checked before they are read, and read in bounded lines.

A missing file, a folder, a FIFO (which would block forever), a device such as
``/dev/zero`` (endless) or a file larger than the reader's limit is refused with a
:class:`~connect4.core.fileerror.FileError` naming the file, and no read ever takes
more than the limit. Line-oriented files are read with :func:`read_lines`, which
refuses a line longer than its limit, naming the file and the line; a stream (stdin,
a bot's pipe) is read a line at a time by :func:`read_input_line`, bounded by
:data:`MAX_INPUT_LINE`. An input that is a symlink is read as the file it points to.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any, BinaryIO

from connect4.core.bits import MAX_BOARD_BITS
from connect4.core.errors import Connect4Error
from connect4.core.fileerror import FileError, StrPath, describe_mode, file_errors, reason

if TYPE_CHECKING:
    from numpy.typing import NDArray

MAX_LINE_BYTES = 1 << 20
"""The longest line :func:`read_lines` accepts by default (1 MiB)."""

MAX_INPUT_LINE = 8 * MAX_BOARD_BITS
"""The longest line of moves a command reads from a stream (``connect4 solve``'s stdin,
a piped game, a bot's protocol line): every game on the largest board (at most
:data:`~connect4.core.bits.MAX_BOARD_BITS` cells) fits with room for spaces, flags
and figures. A longer line is refused at once, so a flood costs no memory."""


class LineTooLongError(Connect4Error):
    """A line of input longer than :data:`MAX_INPUT_LINE` characters."""


def read_input_line(stream: IO[str] | IO[bytes], number: int, what: str = "line") -> str | None:
    """The next line of ``stream`` (text, or bytes read as UTF-8, a bad byte replaced)
    without its line ending, or ``None`` at its end; a line over :data:`MAX_INPUT_LINE`
    characters (bytes, from a byte stream) raises :class:`LineTooLongError` naming it
    (``what number``) after reading no more than the limit.

    >>> import io
    >>> stream = io.BytesIO(b"4455\\r\\n" + b"4" * 5000)
    >>> read_input_line(stream, 1)
    '4455'
    >>> read_input_line(stream, 2)
    Traceback (most recent call last):
    ...
    connect4.core.inputs.LineTooLongError: line 2 is longer than 1,024 bytes \
(more than any game's moves)
    """
    raw = stream.readline(MAX_INPUT_LINE + 1)
    if not raw:
        return None
    binary = isinstance(raw, bytes)
    length = len(raw.rstrip(b"\r\n") if isinstance(raw, bytes) else raw.rstrip("\r\n"))
    if length > MAX_INPUT_LINE:
        raise LineTooLongError(
            f"{what} {number} is longer than {MAX_INPUT_LINE:,} "
            f"{'bytes' if binary else 'characters'} (more than any game's moves)"
        )
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return text.rstrip("\r\n")


def open_input(path: StrPath, *, what: str, max_bytes: int) -> BinaryIO:
    """Open a regular file for reading, refusing anything else and anything over ``max_bytes``.

    The file is opened without blocking (a FIFO cannot hang the open) and its
    type and size are checked on the open descriptor, so a file swapped after
    a check is caught too.
    """
    name = os.fspath(path)
    if not name:
        raise FileError(f"no file name given for the {what}")
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno == errno.ENOENT:
            raise FileError(f"{what} {name} does not exist") from None
        if error.errno == errno.EISDIR:
            raise FileError(f"{what} {name} is a folder, not a file") from None
        raise FileError(f"cannot read {what} {name}: {reason(error)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileError(f"{what} {name} is {describe_mode(info.st_mode)}, not a file")
        if info.st_size > max_bytes:
            raise FileError(
                f"{what} {name} is too large: {info.st_size:,} bytes, at most {max_bytes:,}"
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def load_arrays(
    path: StrPath, *, what: str, contents: str, max_bytes: int
) -> dict[str, NDArray[Any]]:
    """The arrays of a NumPy ``.npz`` file (a ``what``, holding ``contents``), checked as
    :func:`open_input` checks any input and refused when they would inflate past
    ``max_bytes`` (the sizes are read from the archive's directory before any array
    is); never unpickles.

    >>> import numpy as np, tempfile
    >>> from pathlib import Path
    >>> out = Path(tempfile.mkdtemp()) / "a.npz"
    >>> np.savez(out, x=np.arange(3))
    >>> load_arrays(out, what="demo", contents="demo", max_bytes=1 << 20)["x"].tolist()
    [0, 1, 2]
    >>> np.savez_compressed(out, x=np.zeros(100_000))  # a small file of large arrays
    >>> load_arrays(out, what="demo", contents="demo", max_bytes=10_000)
    Traceback (most recent call last):
    ...
    connect4.core.fileerror.FileError: ... is too large: its arrays take 800,128 bytes, \
at most 10,000
    """
    import zipfile

    import numpy as np

    try:
        with open_input(path, what=what, max_bytes=max_bytes) as file:
            with zipfile.ZipFile(file) as archive:  # the arrays' sizes, before inflating any
                inflated = sum(member.file_size for member in archive.infolist())
            if inflated > max_bytes:
                raise FileError(
                    f"{os.fspath(path)} is too large: its arrays take {inflated:,} bytes, "
                    f"at most {max_bytes:,}"
                )
            file.seek(0)
            with np.load(file, allow_pickle=False) as data:
                return {name: data[name] for name in data.files}
    except FileError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise FileError(f"cannot read {os.fspath(path)} as {contents}: {error}") from None


def read_input_bytes(path: StrPath, *, what: str, max_bytes: int) -> bytes:
    """The whole of a regular file of at most ``max_bytes`` (checked before and while reading)."""
    with open_input(path, what=what, max_bytes=max_bytes) as file, file_errors(path, what, "read"):
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew after the check
        raise FileError(f"{what} {os.fspath(path)} is too large: more than {max_bytes:,} bytes")
    return data


def raw_lines(
    file: BinaryIO, *, name: StrPath, what: str, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` for each line of an open file, the newline kept (the
    last line may lack it); a line over ``max_line_bytes`` raises a :class:`FileError`."""
    number = 0
    while True:
        with file_errors(name, what, "read"):
            raw = file.readline(max_line_bytes + 1)
        if not raw:
            return
        number += 1
        if len(raw.rstrip(b"\r\n")) > max_line_bytes:
            raise FileError(
                f"{what} {os.fspath(name)} line {number} is longer than {max_line_bytes:,} bytes"
            )
        yield number, raw


def read_lines(
    path: StrPath,
    *,
    what: str,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_bytes: int = 1 << 30,
) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for each line of a UTF-8 text file, the newline stripped.

    A line over ``max_line_bytes`` or bytes that are not UTF-8 raise a
    :class:`FileError` naming the file and the line; memory stays within one line.
    """
    with open_input(path, what=what, max_bytes=max_bytes) as file:
        for number, raw in raw_lines(file, name=path, what=what, max_line_bytes=max_line_bytes):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise FileError(
                    f"{what} {os.fspath(path)} line {number} is not UTF-8 text"
                ) from None
            yield number, text.rstrip("\r\n")
