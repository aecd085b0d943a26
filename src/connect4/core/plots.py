"""Plots written as files: the formats matplotlib writes, the check of a plot's name
before the work, how a plot is recognised, and the figure written atomically.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO, Protocol

from connect4.core.errors import require
from connect4.core.fileerror import StrPath
from connect4.core.outputs import Recognise, atomic_write, check_output


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
