"""Progress on screen: the one bar every long command draws (rich).

A book build, a dataset, the arena and the lab, training, ``connect4 bench``
and a long ``connect4 solve`` all draw through :func:`progress_bar`. The work
moves it through the :class:`Advance` it gets: ``advance(n)`` counts ``n``
more done (the rate and the time left follow), ``advance.note(text)`` shows
``text`` at the end of the line. Work that reports ``progress(done, total)``
draws through :func:`progress_callback`, whose bar appears at the first call,
so an input error found before any work is printed without a bar above it.

Two more shapes of the same bar: with no ``total`` (a solve, whose end is not
known) it is the note alone, one line rewritten in place and drawn at the first
note (a short solve never loads rich); with ``lines`` (the
output is a log, not a terminal) each note is printed as its own line, at most
one every ``every`` seconds, and nothing is redrawn.

>>> import io
>>> log = io.StringIO()
>>> with progress_bar(True, None, lines=True, stream=log) as advance:
...     advance.note("4455: 12,000 nodes")
>>> log.getvalue()
'4455: 12,000 nodes\\n'
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

__all__ = ["Advance", "progress_bar", "progress_callback"]


class Advance:
    """A progress bar with rate and ETA, and how work moves it: ``advance(n)`` counts
    ``n`` more done, ``advance.note(text)`` shows ``text``; a bar that is not
    ``show``n ignores both.

    ``done`` of ``total`` are done before it starts (a resumed job's) and do not
    count towards the rate. It draws on ``console`` (default: one on ``stream``,
    else rich's on stdout), and is erased at the end if ``transient``. ``total``
    ``None``: the note alone; ``lines``: notes printed as lines on ``stream``
    (default stderr), one per ``every`` seconds at most. Used as a context manager
    (:func:`progress_bar`) a bar with an end shows at once, and it stops drawing on
    the way out.

    >>> advance = Advance()
    >>> advance(3), advance.note("loss 0.5")
    (None, None)
    """

    def __init__(
        self,
        show: bool = False,
        total: int | None = None,
        done: int = 0,
        label: str = "solving",
        unit: str = "pos",
        console: Console | None = None,
        *,
        transient: bool = False,
        lines: bool = False,
        stream: TextIO | None = None,
        every: float = 0.0,
    ) -> None:
        self.show = show
        self.total, self.done, self.label, self.unit = total, done, label, unit
        self.console, self.transient = console, transient
        self.lines, self.stream, self.every = lines, stream, every
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.start = time.perf_counter()
        self.count = 0
        self.last_line: float | None = None

    def __enter__(self) -> Advance:
        if self.show and not self.lines and self.total is not None:
            self.draw()  # a bar with an end shows at once, the work done before included
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, n: int) -> None:
        if not self.show:
            return
        self.count += n
        if self.lines:
            return
        rate = self.count / max(time.perf_counter() - self.start, 1e-9)
        shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"  # slow work: 0.25 games/s
        bar, task = self.draw()
        bar.update(task, advance=n, rate=shown)

    def note(self, text: str) -> None:
        """Show ``text`` at the end of the bar (as a line of its own in ``lines`` mode)."""
        if not self.show:
            return
        if self.lines:
            now = time.perf_counter()
            if self.last_line is None or now - self.last_line >= self.every:
                self.last_line = now
                stream = self.stream or sys.stderr
                stream.write(text + "\n")
                stream.flush()
            return
        bar, task = self.draw()
        bar.update(task, note=text)

    def draw(self) -> tuple[Progress, TaskID]:
        """The rich bar, started now if it was not (a bar with no end: at its first note)."""
        if self.bar is None or self.task is None:
            console = self.console
            if console is None and self.stream is not None:
                from rich.console import Console

                console = Console(file=self.stream)
            self.bar = _new_bar(self.label, self.unit, self.total, console, self.transient)
            self.bar.start()
            self.task = self.bar.add_task(
                self.label, total=self.total, completed=self.done, rate="-", note=""
            )
            self.start = time.perf_counter()  # a resumed job's work before does not count
        return self.bar, self.task

    def close(self) -> None:
        """Stop drawing (a transient bar is erased)."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _new_bar(
    label: str, unit: str, total: int | None, console: Console | None, transient: bool
) -> Progress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Column

    note = TextColumn(
        "{task.fields[note]}",
        markup=False,
        table_column=Column(no_wrap=True, overflow="ellipsis"),
    )
    if total is None:  # no known end: the note is the whole line
        return Progress(note, console=console, transient=transient)
    columns = (
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} " + unit + "/s"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        note,
    )
    return Progress(*columns, console=console, transient=transient)


# ``with progress_bar(show, total, ...) as advance``: the bar, drawn for the block
progress_bar = Advance


@contextlib.contextmanager
def progress_callback(
    console: Console, label: str, unit: str
) -> Iterator[Callable[[int, int], None]]:
    """The bar for work that reports ``progress(done, total)`` (the arena, the lab): it
    yields that callback. The first call draws the bar; work done before it (a
    resumed results file's) shows in the label and counts as done, not towards the
    rate."""
    with contextlib.ExitStack() as stack:
        bar: list[Advance] = []
        shown = [0]

        def update(done: int, total: int) -> None:
            if not bar:
                resumed = f"{label} ({done} resumed)" if done else label
                advance = stack.enter_context(
                    progress_bar(True, total, done, resumed, unit, console)
                )
                bar.append(advance)
            else:
                bar[0](done - shown[0])
            shown[0] = done

        yield update
