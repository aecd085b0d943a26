"""Files in and out: every command reads and writes files through this module.

Inputs are checked before they are read: a missing file, a folder, a FIFO
(which would block forever), a device such as ``/dev/zero`` (endless) or a
file larger than the reader's limit is refused with a :class:`FileError`
naming the file, and no read ever takes more than the limit. Line-oriented
files are read with :func:`read_lines`, which refuses a line longer than its
limit, naming the file and the line.

Outputs are checked by :func:`check_output` before any work is done: the
folder must exist, the target must not be a folder, a device or a FIFO, and
a plot's suffix must name a format matplotlib writes. The same check applies
the one policy on what is already there, so no command loses a user's file:

- a new name, or an empty file, is written;
- an existing file is refused unless the user asks: ``force`` (the CLI's
  ``--force``) replaces it whole, ``resume`` (``--resume``, for a command that
  can continue its work) continues it, but only once the command recognises
  the file as its own (a header, a first record): a foreign file is refused
  and left exactly as it was. The two are not given together;
- a symbolic link is refused (the message names the file it points to)
  unless ``force``: then the file it points to is replaced and the link stays
  a link. A run is never continued through a link: name the file itself.

:func:`atomic_write` then writes a temporary file in the same folder, fsyncs
it and renames it over the target, so a reader sees the old file or the new
one, never half of one; a failure (disk full) names the file and leaves the
old one intact. It is the mechanism, not the policy: it replaces what
:func:`check_output` allowed (and the command's own files, such as journals).
An input that is a symlink is read as the file it points to.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "a.txt")
>>> atomic_write(path, b"one\\ntwo\\n", what="notes")
>>> [line for _, line in read_lines(path, what="notes")]
['one', 'two']
>>> check_output(path, what="notes")
Traceback (most recent call last):
...
connect4.core.files.FileError: cannot write notes ...: it already exists (8 bytes); give \
force=True to replace it, or another name
>>> read_input_bytes(folder, what="notes", max_bytes=100)
Traceback (most recent call last):
...
connect4.core.files.FileError: notes ... is a folder, not a file
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Protocol

from connect4.core.bits import MAX_BOARD_BITS
from connect4.core.errors import Connect4Error, require

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "MAX_INPUT_LINE",
    "MAX_LINE_BYTES",
    "FileError",
    "LineTooLongError",
    "atomic_write",
    "check_output",
    "file_errors",
    "is_archive",
    "is_plot",
    "open_input",
    "output_folder",
    "plot_target",
    "raw_lines",
    "read_input_bytes",
    "read_input_line",
    "read_lines",
    "save_figure",
]

MAX_LINE_BYTES = 1 << 20
"""The longest line :func:`read_lines` accepts by default (1 MiB)."""

StrPath = str | os.PathLike[str]

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
    connect4.core.files.LineTooLongError: line 2 is longer than 1,024 bytes \
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


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


@contextlib.contextmanager
def file_errors(path: StrPath, what: str, doing: str = "write") -> Iterator[None]:
    """Turn an ``OSError`` inside the block into a :class:`FileError` naming the file.

    >>> with file_errors("/nonexistent/x", "results", "read"):
    ...     open("/nonexistent/x").close()
    Traceback (most recent call last):
    ...
    connect4.core.files.FileError: cannot read results /nonexistent/x: No such file or directory
    """
    try:
        yield
    except FileError:
        raise
    except OSError as error:
        raise FileError(f"cannot {doing} {what} {os.fspath(path)}: {_reason(error)}") from None


# ---------------------------------------------------------------- inputs
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
        raise FileError(f"cannot read {what} {name}: {_reason(error)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileError(f"{what} {name} is {_describe(info.st_mode)}, not a file")
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
    >>> out = Path(tempfile.mkdtemp()) / "a.npz"
    >>> np.savez(out, x=np.arange(3))
    >>> load_arrays(out, what="demo", contents="demo", max_bytes=1 << 20)["x"].tolist()
    [0, 1, 2]
    >>> np.savez_compressed(out, x=np.zeros(100_000))  # a small file of large arrays
    >>> load_arrays(out, what="demo", contents="demo", max_bytes=10_000)
    Traceback (most recent call last):
    ...
    connect4.core.files.FileError: ... is too large: its arrays take 800,128 bytes, at most 10,000
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


# ---------------------------------------------------------------- outputs
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
    refused untouched); a symbolic link unless ``force`` (the returned path is
    then the file it points to). A command without ``ours`` cannot resume.

    >>> check_output("/nonexistent/x.jsonl", what="results")
    Traceback (most recent call last):
    ...
    connect4.core.files.FileError: cannot write results /nonexistent/x.jsonl: the folder \
/nonexistent does not exist
    >>> check_output("/dev/full", what="book")
    Traceback (most recent call last):
    ...
    connect4.core.files.FileError: cannot write book /dev/full: it is a device, not a file
    >>> import tempfile
    >>> notes = Path(tempfile.mkdtemp()) / "notes.txt"
    >>> _ = notes.write_text("mine")
    >>> check_output(notes, what="results", resume=True, ours=lambda file: "not JSON")
    Traceback (most recent call last):
    ...
    connect4.core.files.FileError: cannot continue results ...notes.txt: not JSON; the file is \
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
        hint = (
            "name that file itself to continue it"
            if resume
            else f"give {{force}} to replace {target}"
        )
        raise FileError(
            f"cannot write {what} {name}: it is a symbolic link to {target}; {hint}",
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
    """The file ``name`` writes (a symlink followed) and its status (``None``: new), once
    its name, type and folder allow writing it."""
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
    target = Path(os.path.realpath(name)) if os.path.islink(name) else Path(name)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise refused(_reason(error)) from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise refused(f"it is {_describe(info.st_mode)}, not a file")
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
    connect4.core.files.FileError: cannot write lab folder /nonexistent/lab: the folder \
/nonexistent does not exist
    >>> output_folder("/dev/full", what="lab folder")
    Traceback (most recent call last):
    ...
    connect4.core.files.FileError: cannot write lab folder /dev/full: it is a device, not a folder
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
        raise refused(_reason(error)) from None
    if info is None:
        parent = folder.absolute().parent
        if not parent.is_dir():
            raise refused(f"the folder {parent} does not exist")
        with file_errors(folder, what):
            folder.mkdir()
    elif not stat.S_ISDIR(info.st_mode):
        kind = "a file" if stat.S_ISREG(info.st_mode) else _describe(info.st_mode)
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
    :class:`FileError` naming ``path``. A symlink is written through (the file it
    points to is replaced, the link stays); whether an existing file may be
    replaced is :func:`check_output`'s question, asked before the work.
    """
    target, _ = _check_target(os.fspath(path), what, suffixes)
    mode = os.stat(target).st_mode & 0o7777 if target.exists() else 0o666
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


# ---------------------------------------------------------------- plots
class Figure(Protocol):
    """What :func:`save_figure` needs of a matplotlib figure."""

    def savefig(self, fname: BinaryIO, *, format: str, dpi: int) -> None: ...


def plot_suffixes() -> list[str]:
    """The file suffixes matplotlib can write (png, svg, pdf, ...); without matplotlib,
    a :class:`~connect4.core.errors.MissingExtra` naming the command that installs it."""
    require("matplotlib")
    from matplotlib.backend_bases import FigureCanvasBase

    return sorted(FigureCanvasBase.get_supported_filetypes())


def plot_target(
    path: StrPath, what: str = "plot", *, force: bool = False, ours: Recognise | None = None
) -> Path:
    """:func:`check_output` for a plot: the suffix must name a format matplotlib writes.
    An existing plot is replaced with ``force``, or when ``ours`` (given by a command
    that is continuing its run) recognises it."""
    suffixes = plot_suffixes()
    if ours is not None:
        return check_output(path, what=what, suffixes=suffixes, resume=True, ours=ours)
    return check_output(path, what=what, suffixes=suffixes, force=force)


IMAGE_MAGIC = (
    b"\x89PNG\r\n\x1a\n",
    b"%PDF-",
    b"%!PS",
    b"\xff\xd8\xff",
    b"II*\x00",
    b"MM\x00*",
    b"RIFF",
)
"""How the image files matplotlib writes start (PNG, PDF, PostScript, JPEG, TIFF, WebP)."""


def is_plot(file: BinaryIO) -> str | None:
    """A :data:`Recognise` for the plots a command draws: an image file (SVG too).

    >>> import io
    >>> is_plot(io.BytesIO(b"\\x89PNG\\r\\n\\x1a\\n...")), is_plot(io.BytesIO(b"notes"))
    (None, 'it is not an image (PNG, SVG, PDF, ...)')
    """
    head = file.read(1024)
    if head.startswith(IMAGE_MAGIC) or b"<svg" in head:
        return None
    return "it is not an image (PNG, SVG, PDF, ...)"


def save_figure(figure: Figure, path: StrPath, *, what: str = "plot", dpi: int = 100) -> None:
    """Write a matplotlib figure atomically, in the format its suffix names (the file
    checked before the work with :func:`plot_target`)."""
    suffix = Path(os.fspath(path)).suffix.lower().lstrip(".")
    atomic_write(
        path,
        lambda file: figure.savefig(file, format=suffix, dpi=dpi),
        what=what,
        suffixes=plot_suffixes(),
    )
