"""``connect4 solve``: Pons' stdin protocol, one move string per line, or positions
as arguments (``connect4 solve 4455 44``).

Each line is a move string (an empty line is the empty board); the answer is
``moves score``, or with ``analyze`` the moves followed by every column's score
(``-`` for a full column). A bad line prints ``line N: reason`` on stderr (a bad
argument ``argument N: reason``) and the run goes on; the exit status is 1 if
any line was bad, 2 if any argument was (a usage error). Surrounding whitespace
is no part of a move string. A line longer than any game
(:data:`~connect4.core.files.MAX_INPUT_LINE`) is refused as soon as that much
of it is read, and the rest of the input with it (exit status 1).

A search uses every core by default (``--threads``). One that runs for more than
a second shows its progress (window, bounds, nodes, speed, time) on stderr: one
refreshing line when stderr is a terminal, nothing otherwise unless
``--progress`` asks for a line every few seconds; ``--quiet`` turns it off.

>>> import io
>>> out, err = io.StringIO(), io.StringIO()
>>> solve_command(io.StringIO("4455\\n48\\n"), out=out, err=err)
1
>>> out.getvalue()
'4455 18\\n'
>>> err.getvalue()
"line 2: move 2 ('8'): column 8 is out of range 1-7\\n"
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from connect4.cli.common import (
    AllCoresWorkers,
    Height,
    Scheduler,
    Width,
    fail,
    interrupted,
    keeping,
)
from connect4.core.errors import clip
from connect4.core.files import LineTooLongError, read_input_line
from connect4.core.position import Position
from connect4.core.progress import Advance
from connect4.core.score import format_scores

if TYPE_CHECKING:
    from connect4.solver import SolveProgress
    from connect4.solver.book.split import SplitReport

SHOW_AFTER = 1.0  # seconds a search runs before its progress shows
LOG_EVERY = 5.0  # seconds between progress lines when stderr is not a terminal


class ProgressLine:
    """Shows a long search's progress on ``err`` through the one progress bar
    (:mod:`connect4.core.progress`): on a terminal (``live``) the bar's one line,
    rewritten in place and erased when the search ends; otherwise a line every
    ``LOG_EVERY`` seconds. Nothing for the first ``SHOW_AFTER`` seconds.

    >>> import io
    >>> from connect4.solver import SolveProgress
    >>> err = io.StringIO()
    >>> line = ProgressLine(err, live=False)
    >>> line.start("4455")
    >>> line(SolveProgress(12_000_000, 1.5, 2, 3, -1, 8, 2, None))
    >>> err.getvalue()
    '4455: window [2, 3], score in [-1, 8], 12,000,000 nodes, 8.0 M/s, 2 threads, 1.5 s\\n'
    """

    def __init__(self, err: TextIO, *, live: bool) -> None:
        self.err = err
        self.live = live
        self.moves = ""
        self.bar: Advance | None = None

    def start(self, moves: str) -> None:
        """A new line of input is being solved."""
        self.clear()
        self.moves = moves
        self.bar = Advance(
            True, None, lines=not self.live, stream=self.err, transient=True, every=LOG_EVERY
        )

    def __call__(self, progress: SolveProgress) -> None:
        if progress.seconds < SHOW_AFTER or self.bar is None:
            return
        what = self.moves or "(empty board)"
        if progress.column is not None:
            what += f" column {progress.column + 1}"
        threads = "thread" if progress.threads == 1 else "threads"
        self.bar.note(
            f"{what}: window [{progress.alpha}, {progress.beta}], "
            f"score in [{progress.lower}, {progress.upper}], {progress.nodes:,} nodes, "
            f"{progress.nodes_per_second / 1e6:.1f} M/s, {progress.threads} {threads}, "
            f"{progress.seconds:.1f} s"
        )

    def clear(self) -> None:
        """Erase the live line (before the answer is printed)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def solve_command(
    lines: Iterable[str],
    *,
    analyze: bool = False,
    weak: bool = False,
    width: int = 7,
    height: int = 6,
    out: TextIO | None = None,
    err: TextIO | None = None,
    book: bool = True,
    threads: int = 1,
    progress: str = "auto",
    label: str = "line",
    bad_status: int = 1,
) -> int:
    """Answer each line of ``lines``; return the exit status (``bad_status`` if a line
    was bad; a line too long to read, :class:`LineTooLongError`, ends the reading).

    With ``book`` (the default) the board size's opening book is probed inside the
    search (:func:`connect4.solver.solver_for`; one that cannot be read is an error).
    ``threads`` search each position; ``progress`` is ``auto`` (shown when ``err``
    is a terminal), ``always`` or ``never``. An error names its input as ``label N``.
    """
    from connect4.core.limits import Limit
    from connect4.solver import DEFAULT_BOOK, SolverError, solver_for

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        solver = solver_for(width, height, book=DEFAULT_BOOK if book else None, threads=threads)
    except SolverError as exc:
        print(f"error: {exc}", file=err)
        return 1
    live = _is_terminal(err)
    line = None
    limit = None  # no limit to watch: nothing to report to
    if progress == "always" or (progress == "auto" and live):
        line = ProgressLine(err, live=live)
        limit = Limit(progress=line)
    status = 0
    numbered = enumerate(lines, start=1)
    while True:
        try:
            number, raw = next(numbered)
        except StopIteration:
            return status
        except LineTooLongError as exc:
            print(f"{exc}: the rest of the input is not read", file=err, flush=True)
            return bad_status
        moves = raw.strip()
        if line is not None:
            line.start(moves)
        try:
            position = Position.from_moves(moves, width, height)
            result = solver.run(position, weak=weak, analyze=analyze, limit=limit)
        except ValueError as exc:  # bad move string, game over (SolverError)
            print(f"{label} {number}: {exc}", file=err, flush=True)
            status = bad_status
            continue
        finally:
            if line is not None:
                line.clear()
        if analyze:
            assert result.column_scores is not None
            answer = format_scores(result.column_scores)
        else:
            answer = str(result.score)
        print(f"{moves} {answer}", file=out, flush=True)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity on this platform
        return os.cpu_count() or 1


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def thread_count(text: str) -> int:
    """``--threads``: a whole number of threads >= 1.

    >>> thread_count("2")
    2
    >>> thread_count("0")
    Traceback (most recent call last):
    ...
    typer._click.exceptions.BadParameter: must be a whole number of threads from 1 to 256, not '0'
    """
    from connect4.solver.checks import MAX_THREADS

    try:
        threads = int(text)
    except ValueError:
        threads = 0
    if not 1 <= threads <= MAX_THREADS:
        raise typer.BadParameter(
            f"must be a whole number of threads from 1 to {MAX_THREADS}, not {clip(text)!r}"
        )
    return threads


def stdin_lines() -> Iterator[str]:
    """The lines of stdin (read as bytes where it can be: UTF-8, a bad byte replaced),
    each bounded by :data:`~connect4.core.files.MAX_INPUT_LINE`."""
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    for number in itertools.count(1):
        line = read_input_line(stream, number)
        if line is None:
            return
        yield line


SplitPly = Annotated[
    str | None,
    typer.Option(
        metavar="D|auto",
        help="solve the whole position split: every position at ply D solved as a task "
        "(on --workers or --scheduler), then the search above reads their results",
        show_default=False,
    ),
]
Results = Annotated[
    Path | None,
    typer.Option(
        help="the split solve's results book (default: under the cache root, named by "
        "board, position and split); rerunning the same solve finishes from it",
        show_default=False,
    ),
]

SplitLimit = Annotated[
    float | None,
    typer.Option(
        "--limit",
        metavar="SECONDS",
        help="stop a split solve after this long, the finished tasks kept (rerun to go on)",
        show_default=False,
    ),
]
StartOver = Annotated[
    bool,
    typer.Option(
        "--force",
        help="start a split solve over: its journal and results book are replaced "
        "(without it, the same solve finishes from them)",
    ),
]


def split_ply_value(text: str) -> int | None:
    """``--split-ply``: ``auto`` (``None``) or a whole number of stones.

    >>> split_ply_value("auto"), split_ply_value("8")
    (None, 8)
    >>> split_ply_value("x")
    Traceback (most recent call last):
    ...
    typer._click.exceptions.BadParameter: must be a whole number of stones or auto, not 'x'
    """
    if text == "auto":
        return None
    try:
        return int(text)
    except ValueError:
        raise typer.BadParameter(
            f"must be a whole number of stones or auto, not {clip(text)!r}"
        ) from None


def split_command(
    positions: list[str] | None,
    split_ply: str,
    *,
    width: int,
    height: int,
    analyze: bool,
    book: bool,
    workers: int | None,
    scheduler: str | None,
    results: Path | None,
    force: bool,
    progress: str,
    seconds: float | None = None,
) -> None:
    """``connect4 solve MOVES --split-ply D``: one position solved split, its answer
    printed as an unsplit solve prints it, a summary on stderr; Ctrl-C or a stop keeps
    the finished tasks (exit 130) and the same command finishes from them."""
    from connect4.core.journal import journal_path
    from connect4.core.limits import Limit
    from connect4.core.position import Position
    from connect4.solver.book.split import default_results, split_solve
    from connect4.solver.book.splitlist import chosen_split_ply

    if positions and len(positions) > 1:
        raise fail("--split-ply solves one position: give one MOVES argument")
    if seconds is not None and not seconds > 0:
        raise fail(f"--limit must be above 0 seconds, not {seconds:g}")
    moves = positions[0].strip() if positions else ""
    base = "default" if book else None
    try:
        root = Position.from_moves(moves, width, height)
        ply = chosen_split_ply(root, split_ply_value(split_ply), workers, scheduler)
        if results is None:
            results = default_results(root, ply, base)
            results.parent.mkdir(parents=True, exist_ok=True)
    except typer.BadParameter as error:
        raise fail(f"--split-ply {error.message}") from None
    except (ValueError, OSError) as error:
        raise fail(error) from None
    journal = journal_path(results)
    live = _is_terminal(sys.stderr)
    limit = Limit.within(seconds)
    try:
        with keeping(lambda: f"the finished tasks are in {journal}; rerun to finish"):
            report = split_solve(
                moves, width, height, split_ply=ply, workers=workers, scheduler=scheduler,
                results=results, base_book=base, analyze=analyze, force=force, limit=limit,
                progress=progress == "always" or (progress == "auto" and live),
                progress_lines=not live, stream=sys.stderr,
            )  # fmt: skip
    except (ValueError, OSError) as error:
        raise fail(error) from None
    except Exception as error:
        from connect4.core.errors import Stopped

        if isinstance(error, Stopped) and seconds is not None and limit.overdue():
            typer.echo(f"stopped at --limit {seconds:g}: {error}; rerun to go on", err=True)
            raise typer.Exit(1) from None
        if isinstance(error, Stopped):
            raise interrupted(f"{error}; rerun the same command to finish") from None
        raise
    columns = report.column_scores
    answer = format_scores(columns) if columns is not None else str(report.score)
    typer.echo(f"{moves} {answer}")
    typer.echo(split_summary(report), err=True)


def split_summary(report: SplitReport) -> str:
    """The line a split solve ends with on stderr."""
    best = f"best move {report.best_move + 1}"
    if report.direct:
        return (
            f"{best}; solved directly ({report.nodes:,} nodes, {report.seconds:.1f} s): "
            "the plain solver settles this position without a split"
        )
    where = f"; results in {report.results}" if report.results else ""
    return (
        f"{best}; split at ply {report.split_ply}: {report.tasks:,} positions, "
        f"{report.resumed:,} known from earlier runs, {report.searched:,} searched now "
        f"({report.probes:,} windows{_stopped(report.stopped, report.split_again)}), "
        f"{report.settled:,} settled by the rules, "
        f"{report.nodes:,} nodes, {report.seconds:.1f} s{where}"
    )


def _stopped(count: int, again: int = 0) -> str:
    """The windows stopped once no longer needed, and the positions split again (their
    task too large), when any were.

    >>> _stopped(0), _stopped(3), _stopped(3, 2)
    ('', ', 3 stopped as no longer needed', ', 3 stopped as no longer needed, 2 split again')
    """
    stopped = f", {count:,} stopped as no longer needed" if count else ""
    return stopped + (f", {again:,} split again" if again else "")


def solve(
    positions: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="MOVES",
            help='positions to solve, e.g. 4455 ("" is the empty board); none: read stdin',
            show_default=False,
        ),
    ] = None,
    analyze: Annotated[
        bool, typer.Option("-a", "--analyze", help="print every column's score ('-' = full)")
    ] = False,
    weak: Annotated[bool, typer.Option("-w", "--weak", help="win/draw/loss only (1/0/-1)")] = False,
    width: Width = 7,
    height: Height = 6,
    no_book: Annotated[
        bool, typer.Option("--no-book", help="search without the opening book")
    ] = False,
    threads: Annotated[
        int | None,
        typer.Option(
            "-t",
            "--threads",
            parser=thread_count,
            metavar="N",
            help=f"search threads (default: every core, here {usable_cores()})",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("-q", "--quiet", help="never show a long search's progress")
    ] = False,
    progress: Annotated[
        bool,
        typer.Option(
            "--progress",
            help="show progress even when stderr is not a terminal (a line every 5 s)",
        ),
    ] = False,
    split_ply: SplitPly = None,
    workers: AllCoresWorkers = None,
    scheduler: Scheduler = None,
    results: Results = None,
    force: StartOver = False,
    limit: SplitLimit = None,
) -> None:
    """Pons' protocol: read move strings on stdin (an empty line is the empty board), or
    take them as arguments (solve 4455 44), and print 'moves score' for each.

    A bad line is reported on stderr with its number and the run goes on (exit status
    1); a bad argument is a usage error (exit status 2). A line longer than any game
    stops the reading at once. With --split-ply the one position is solved split.
    """
    if quiet and progress:
        raise fail("give --quiet or --progress, not both")
    from connect4.solver.checks import check_solver_board

    try:
        check_solver_board(width, height)
    except ValueError as error:  # a usage error, as every command's bad board is
        raise fail(error) from None
    shown = "never" if quiet else "always" if progress else "auto"
    if split_ply is not None:
        if weak or threads is not None:
            raise fail("--split-ply finds exact scores with --workers: no --weak or --threads")
        split_command(positions, split_ply, width=width, height=height, analyze=analyze,
                      book=not no_book, workers=workers, scheduler=scheduler, results=results,
                      force=force, progress=shown, seconds=limit)  # fmt: skip
        return
    if workers is not None or scheduler or results or force or limit is not None:
        raise fail("--workers, --scheduler, --results, --limit and --force go with --split-ply")
    code = solve_command(  # a Ctrl-C: the search threads stop, the CLI's policy ends it
        positions if positions else stdin_lines(),
        label="argument" if positions else "line",
        bad_status=2 if positions else 1,
        analyze=analyze,
        weak=weak,
        width=width,
        height=height,
        book=not no_book,
        threads=usable_cores() if threads is None else threads,
        progress=shown,
    )
    raise typer.Exit(code)
