"""Puzzle files: one puzzle a line as JSON (JSONL), read, written whole and verified.

Each line is a JSON object with the fields of
:meth:`~connect4.learn.puzzles.Puzzle.as_dict`: ``id`` (a hash of the board and
the position), ``width`` and ``height`` (the board; standard rules), ``position``
(a move string from the empty board), ``solution`` (a move string from the
position, the solver's side's moves and the most resisting replies in turn,
starting and ending with a move of the side to move), ``outcome`` (``win`` or
``draw``: what the side to move keeps), ``themes`` (a list of words), ``rating``
(the first rating), ``trivial`` (the easiest tier: a four to complete or block at
once) and ``source`` (where the game came from). Blank lines are passed over.

>>> import tempfile
>>> from connect4 import Position
>>> from connect4.learn.puzzles import find_puzzle
>>> path = Path(tempfile.mkdtemp()) / "p.jsonl"
>>> write_puzzles(path, [find_puzzle(Position.from_moves("4444"))])
>>> [(line, p.solution) for line, p in read_puzzles(path)]
[(1, '4')]
>>> [report.problems for report in [verify_file(path, progress=False)]]
[()]
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from connect4.core.errors import BudgetExceeded
from connect4.core.files import (
    MAX_LINE_BYTES,
    FileError,
    atomic_write,
    open_input,
    raw_lines,
)
from connect4.core.limits import Limit, clock
from connect4.core.progress import progress_bar
from connect4.learn.puzzles import Puzzle, PuzzleError, verify

__all__ = [
    "MAX_PUZZLE_FILE_BYTES",
    "PuzzleFileError",
    "VerifyReport",
    "is_puzzle_file",
    "read_puzzles",
    "verify_file",
    "write_puzzles",
]

MAX_PUZZLE_FILE_BYTES = 1 << 30
WHAT = "puzzles file"


class PuzzleFileError(PuzzleError):
    """A puzzles file that cannot be read; the message names the file (and the line)."""


def write_puzzles(path: str | os.PathLike[str], puzzles: Iterable[Puzzle]) -> None:
    """Write ``puzzles`` to ``path``, one JSON line each, replacing the file only once the
    new one is complete."""
    text = "".join(json.dumps(p.as_dict(), separators=(", ", ": ")) + "\n" for p in puzzles)
    atomic_write(path, text.encode("utf-8"), what=WHAT)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        with open_input(path, what=WHAT, max_bytes=MAX_PUZZLE_FILE_BYTES) as file:
            for number, raw in raw_lines(file, name=path, what=WHAT, max_line_bytes=MAX_LINE_BYTES):
                if raw.strip():
                    try:
                        yield number, raw.decode("utf-8")
                    except UnicodeDecodeError:
                        raise PuzzleFileError(f"{path} line {number}: not UTF-8 text") from None
    except FileError as error:
        raise PuzzleFileError(str(error)) from None


def parse_line(text: str) -> Puzzle:
    """The puzzle of one line; :class:`PuzzleError` saying why it is none."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise PuzzleError(f"not JSON ({error})") from None
    return Puzzle.from_dict(value)


def read_puzzles(path: str | os.PathLike[str]) -> Iterator[tuple[int, Puzzle]]:
    """Each puzzle of the file with its line number; a line that is not a puzzle is a
    :class:`PuzzleFileError` naming the file and the line."""
    for number, text in _lines(Path(path)):
        try:
            yield number, parse_line(text)
        except PuzzleError as error:
            raise PuzzleFileError(f"{path} line {number}: not a puzzle: {error}") from None


def is_puzzle_file(file: BinaryIO) -> str | None:
    """``None`` when a file's first line that is not blank is a puzzle (an empty file is
    a puzzles file with none), else why it is not a puzzles file."""
    for raw in file:
        if raw.strip():
            try:
                parse_line(raw.decode("utf-8", "replace"))
            except PuzzleError as error:
                return f"it is not a puzzles file ({error})"
            return None
    return None


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify_file` found: the puzzles checked and each wrong one's line number
    and why (``problems``), and how long it took."""

    path: str
    puzzles: int
    problems: tuple[tuple[int, str], ...]
    seconds: float


def verify_file(
    path: str | os.PathLike[str],
    *,
    limit: Limit | None = None,
    progress: bool = True,
    each: Callable[[int, str], None] | None = None,
) -> VerifyReport:
    """Check every puzzle of the file with the solver (:func:`~connect4.learn.puzzles.verify`):
    a line that is not a puzzle or a puzzle that is wrong is a problem (its line number and
    why), given to ``each`` as it is found. ``limit`` (a deadline, the stop flag of
    Ctrl-C) bounds the whole check: once it expires the check stops with
    :class:`~connect4.core.errors.BudgetExceeded`."""
    file = Path(path)
    started = clock()
    lines = list(_lines(file))
    problems: list[tuple[int, str]] = []
    with progress_bar(progress, len(lines), 0, "verifying", "puzzles") as advance:
        for number, text in lines:
            if limit is not None and limit.expired():
                raise BudgetExceeded(
                    f"the check stopped after {len(problems)} problems in {path}'s first "
                    f"{number - 1} lines"
                )
            try:
                verdict = verify(parse_line(text), limit)
                reason = None if verdict.ok else verdict.reason
            except PuzzleError as error:
                reason = f"not a puzzle: {error}"
            if reason is not None:
                problems.append((number, reason))
                if each is not None:
                    each(number, reason)
            advance(1)
    return VerifyReport(os.fspath(file), len(lines), tuple(problems), clock() - started)
