"""``connect4 solve``: Pons' stdin protocol, one move string per line.

Each line is a move string (an empty line is the empty board); the answer is
``moves score``, or with ``analyze`` the moves followed by every column's score
(``-`` for a full column). A bad line prints ``line N: reason`` on stderr and
the run goes on; the exit status is 1 if any line was bad.

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
import sys
from collections.abc import Iterable
from typing import TextIO

from connect4.core.position import Position


def format_scores(scores: list[int | None]) -> str:
    """Column scores as Pons prints them, ``-`` for a full column.

    >>> format_scores([1, None, -2])
    '1 - -2'
    """
    return " ".join("-" if s is None else str(s) for s in scores)


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
) -> int:
    """Answer each line of ``lines``; return the exit status (1 if a line was bad).

    With ``book`` (the default) the board size's opening book
    (:func:`connect4.solver.book.default_book`) is probed inside the search.
    """
    from connect4.solver import Solver, SolverError

    out = out or sys.stdout
    err = err or sys.stderr
    try:
        solver = Solver(width, height)
    except SolverError as exc:
        print(f"error: {exc}", file=err)
        return 1
    if book:
        from connect4.solver.book import BookError, default_book

        try:
            loaded = default_book(width, height)
        except BookError as exc:
            print(f"error: {exc}", file=err)
            return 1
        if loaded is not None:
            solver.set_book(loaded.keys, loaded.values, loaded.plies)
    status = 0
    for number, raw in enumerate(lines, start=1):
        moves = raw.strip()
        try:
            position = Position.from_moves(moves, width, height)
            if analyze:
                answer = format_scores(solver.analyze(position, weak=weak))
            else:
                answer = str(solver.solve(position, weak=weak))
        except ValueError as exc:  # bad move string, game over (SolverError)
            print(f"line {number}: {exc}", file=err, flush=True)
            status = 1
            continue
        print(f"{moves} {answer}", file=out, flush=True)
    return status


def solve_parser() -> argparse.ArgumentParser:
    """The options of ``connect4 solve`` (plain argparse: the command must start fast).

    >>> solve_parser().parse_args(["-a", "--width", "6"]).width
    6
    """
    parser = argparse.ArgumentParser(
        prog="connect4 solve",
        description="Pons' protocol: read move strings on stdin (an empty line is the empty "
        "board), print 'moves score' per line; a bad line is reported on stderr with its "
        "line number and the run goes on (exit status 1).",
    )
    parser.add_argument(
        "-a", "--analyze", action="store_true", help="print every column's score ('-' = full)"
    )
    parser.add_argument("-w", "--weak", action="store_true", help="win/draw/loss only (1/0/-1)")
    parser.add_argument("--width", type=int, default=7, help="board width (default 7)")
    parser.add_argument("--height", type=int, default=6, help="board height (default 6)")
    parser.add_argument("--no-book", action="store_true", help="search without the opening book")
    return parser


def solve_main(argv: list[str]) -> int:
    """Run ``connect4 solve ARGV`` on stdin; return the exit status."""
    options = solve_parser().parse_args(argv)
    return solve_command(
        sys.stdin,
        analyze=options.analyze,
        weak=options.weak,
        width=options.width,
        height=options.height,
        book=not options.no_book,
    )
