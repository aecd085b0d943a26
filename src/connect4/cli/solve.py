"""``connect4 solve``: Pons' stdin protocol, one move string per line, or positions
as arguments (``connect4 solve 4455 44``).

Each line is a move string (an empty line is the empty board); the answer is
``moves score``, or with ``analyze`` the moves followed by every column's score
(``-`` for a full column). A bad line prints ``line N: reason`` on stderr (a bad
argument ``argument N: reason``) and the run goes on; the exit status is 1 if
any was bad.

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

import argparse
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from connect4.core.position import Position

if TYPE_CHECKING:
    from connect4.solver import SolveProgress

SHOW_AFTER = 1.0  # seconds a search runs before its progress shows
LOG_EVERY = 5.0  # seconds between progress lines when stderr is not a terminal


def format_scores(scores: list[int | None]) -> str:
    """Column scores as Pons prints them, ``-`` for a full column.

    >>> format_scores([1, None, -2])
    '1 - -2'
    """
    return " ".join("-" if s is None else str(s) for s in scores)


class ProgressLine:
    """Shows a long search's progress on ``err``: on a terminal one line rewritten in
    place (``live``), erased when the search ends; otherwise a line every
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
        self.shown = False
        self.last = 0.0

    def start(self, moves: str) -> None:
        """A new line of input is being solved."""
        self.moves = moves
        self.last = 0.0

    def __call__(self, progress: SolveProgress) -> None:
        if progress.seconds < SHOW_AFTER:
            return
        if not self.live and progress.seconds - self.last < LOG_EVERY and self.last:
            return
        self.last = progress.seconds
        what = self.moves or "(empty board)"
        if progress.column is not None:
            what += f" column {progress.column + 1}"
        threads = "thread" if progress.threads == 1 else "threads"
        text = (
            f"{what}: window [{progress.alpha}, {progress.beta}], "
            f"score in [{progress.lower}, {progress.upper}], {progress.nodes:,} nodes, "
            f"{progress.nodes_per_second / 1e6:.1f} M/s, {progress.threads} {threads}, "
            f"{progress.seconds:.1f} s"
        )
        if self.live:
            self.err.write(f"\r{text}\x1b[K")
            self.shown = True
        else:
            self.err.write(text + "\n")
        self.err.flush()

    def clear(self) -> None:
        """Erase the live line (before the answer is printed)."""
        if self.shown:
            self.err.write("\r\x1b[K")
            self.err.flush()
            self.shown = False


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
) -> int:
    """Answer each line of ``lines``; return the exit status (1 if a line was bad).

    With ``book`` (the default) the board size's opening book is probed inside the
    search (:func:`connect4.solver.solver_for`; one that cannot be read is an error).
    ``threads`` search each position; ``progress`` is ``auto`` (shown when ``err``
    is a terminal), ``always`` or ``never``. An error names its input as ``label N``.
    """
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
    if progress == "always" or (progress == "auto" and live):
        line = ProgressLine(err, live=live)
    status = 0
    for number, raw in enumerate(lines, start=1):
        moves = raw.strip()
        if line is not None:
            line.start(moves)
        try:
            position = Position.from_moves(moves, width, height)
            result = solver.run(position, weak=weak, analyze=analyze, progress=line)
        except ValueError as exc:  # bad move string, game over (SolverError)
            print(f"{label} {number}: {exc}", file=err, flush=True)
            status = 1
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
    return status


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
    argparse.ArgumentTypeError: must be a whole number of threads from 1 to 256, not '0'
    """
    from connect4.solver import MAX_THREADS

    try:
        threads = int(text)
    except ValueError:
        threads = 0
    if not 1 <= threads <= MAX_THREADS:
        raise argparse.ArgumentTypeError(
            f"must be a whole number of threads from 1 to {MAX_THREADS}, not {text!r}"
        )
    return threads


def solve_parser() -> argparse.ArgumentParser:
    """The options of ``connect4 solve`` (plain argparse: the command must start fast).

    >>> solve_parser().parse_args(["-a", "--width", "6"]).width
    6
    """
    parser = argparse.ArgumentParser(
        prog="connect4 solve",
        description="Pons' protocol: read move strings on stdin (an empty line is the empty "
        "board), or take them as arguments, and print 'moves score' for each; a bad one is "
        "reported on stderr with its line (or argument) number and the run goes on (exit "
        "status 1).",
    )
    parser.add_argument(
        "positions",
        nargs="*",
        metavar="MOVES",
        help='positions to solve, e.g. 4455 ("" is the empty board); none: read stdin',
    )
    parser.add_argument(
        "-a", "--analyze", action="store_true", help="print every column's score ('-' = full)"
    )
    parser.add_argument("-w", "--weak", action="store_true", help="win/draw/loss only (1/0/-1)")
    parser.add_argument("--width", type=int, default=7, help="board width (default 7)")
    parser.add_argument("--height", type=int, default=6, help="board height (default 6)")
    parser.add_argument("--no-book", action="store_true", help="search without the opening book")
    parser.add_argument(
        "-t",
        "--threads",
        type=thread_count,
        default=usable_cores(),
        help="search threads (default: every core, here %(default)s)",
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "-q", "--quiet", action="store_true", help="never show a long search's progress"
    )
    shown.add_argument(
        "--progress",
        action="store_true",
        help="show progress even when stderr is not a terminal (a line every 5 s)",
    )
    return parser


def solve_main(argv: list[str]) -> int:
    """Run ``connect4 solve ARGV`` (on its positions, else on stdin); return the exit status.

    >>> solve_main(["--no-book", "-t", "1", "4455", "44455554221"])
    4455 18
    44455554221 -15
    0
    """
    options = solve_parser().parse_args(argv)
    try:
        return _solve_stdin(options)
    except KeyboardInterrupt:  # the search threads have stopped: no traceback
        print("\ninterrupted", file=sys.stderr)
        return 130


def _solve_stdin(options: argparse.Namespace) -> int:
    arguments = options.positions
    return solve_command(
        arguments if arguments else sys.stdin,
        label="argument" if arguments else "line",
        analyze=options.analyze,
        weak=options.weak,
        width=options.width,
        height=options.height,
        book=not options.no_book,
        threads=options.threads,
        progress="never" if options.quiet else "always" if options.progress else "auto",
    )
