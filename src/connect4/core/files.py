"""Files in and out: every command reads and writes files through this module.

It is the one door; the work is done underneath it, one idea a module: the error
naming a file (:mod:`~connect4.core.fileerror`), inputs and bounded lines
(:mod:`~connect4.core.inputs`), outputs and atomic replacement
(:mod:`~connect4.core.outputs`), plots (:mod:`~connect4.core.plots`).

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
  unless ``force``: then the link itself is replaced by the new file, and the
  file it pointed to is left as it was (an output never lands outside the
  name given). A run is never continued through a link: name the file itself.

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
connect4.core.fileerror.FileError: cannot write notes ...: it already exists (8 bytes); give \
force=True to replace it, or another name
>>> read_input_bytes(folder, what="notes", max_bytes=100)
Traceback (most recent call last):
...
connect4.core.fileerror.FileError: notes ... is a folder, not a file
"""

from __future__ import annotations

from connect4.core.fileerror import FileError, StrPath, file_errors
from connect4.core.inputs import (
    MAX_INPUT_LINE,
    MAX_LINE_BYTES,
    LineTooLongError,
    load_arrays,
    open_input,
    raw_lines,
    read_input_bytes,
    read_input_line,
    read_lines,
)
from connect4.core.outputs import (
    MAX_RECOGNISED_BYTES,
    Recognise,
    atomic_write,
    check_output,
    is_archive,
    output_folder,
)
from connect4.core.plots import (
    IMAGE_MAGIC,
    Figure,
    is_plot,
    plot_suffixes,
    plot_target,
    save_figure,
)

__all__ = [
    "IMAGE_MAGIC",
    "MAX_INPUT_LINE",
    "MAX_LINE_BYTES",
    "MAX_RECOGNISED_BYTES",
    "Figure",
    "FileError",
    "LineTooLongError",
    "Recognise",
    "StrPath",
    "atomic_write",
    "check_output",
    "file_errors",
    "is_archive",
    "is_plot",
    "load_arrays",
    "open_input",
    "output_folder",
    "plot_suffixes",
    "plot_target",
    "raw_lines",
    "read_input_bytes",
    "read_input_line",
    "read_lines",
    "save_figure",
]
