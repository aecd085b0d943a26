"""A file named in an error: :class:`FileError`, an ``OSError`` turned into one
(:func:`file_errors`), and what kind of thing a path is, in words.

Every failure to read or write a file reaches the user as one line naming the file
(the CLI's ``error: ...``, the web's 400), never as a traceback.

>>> describe_mode(os.stat("/dev/null").st_mode)
'a device'
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Collection, Iterator

from connect4.core.errors import Connect4Error

StrPath = str | os.PathLike[str]
"""A file's name as the file functions take it: a string or a path."""


class FileError(Connect4Error):
    """A file that cannot be read or written: missing, not a regular file, too large,
    a target in a missing folder, a full disk, an output already there. The message
    names the file.

    A message may name the options that would let the command go on, as ``{force}``
    or ``{resume}`` among ``options``: said ``force=True`` (the library's keyword),
    and in an interface's own words by :meth:`worded` (the CLI: ``--force``).

    >>> error = FileError("x exists: give {force} to replace it", options=("force",))
    >>> str(error), error.worded(lambda option: "--" + option)
    ('x exists: give force=True to replace it', 'x exists: give --force to replace it')
    """

    def __init__(
        self, message: str = "", *, setting: str | None = None, options: Collection[str] = ()
    ) -> None:
        self.template = message
        self.options = tuple(options)
        super().__init__(self._fill(lambda option: f"{option}=True"), setting=setting)

    def _fill(self, name: Callable[[str], str]) -> str:
        text = self.template
        for option in self.options:
            text = text.replace("{" + option + "}", name(option))
        return text

    def worded(self, name: Callable[[str], str]) -> str:
        """The message with its setting and the options it names in an interface's words."""
        if not self.options:
            return super().worded(name)
        text = self._fill(name)
        return f"{name(self.setting)}: {text}" if self.setting else text


def describe_mode(mode: int) -> str:
    """What a path that is not a regular file is, in words (``a folder``, ``a device``)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def reason(error: OSError) -> str:
    """An ``OSError``'s reason in words (``No such file or directory``)."""
    return error.strerror or str(error)


@contextlib.contextmanager
def file_errors(path: StrPath, what: str, doing: str = "write") -> Iterator[None]:
    """Turn an ``OSError`` inside the block into a :class:`FileError` naming the file.

    >>> with file_errors("/nonexistent/x", "results", "read"):
    ...     open("/nonexistent/x").close()
    Traceback (most recent call last):
    ...
    connect4.core.fileerror.FileError: cannot read results /nonexistent/x: No such file or directory
    """
    try:
        yield
    except FileError:
        raise
    except OSError as error:
        raise FileError(f"cannot {doing} {what} {os.fspath(path)}: {reason(error)}") from None
