"""The resumable results store: finished games appended to a JSONL file, flushed and fsynced.

A run that is killed (even with SIGKILL) loses only the games in flight:
``open(resume=True)`` reads back what finished, cuts a torn last line and
refuses lines of another tournament, so the run plays only what is missing.

>>> store = ResultsStore(None, "t").open(resume=False)  # no file: records in memory
>>> store.records, store.repaired, store.skipped
({}, 0, 0)
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from connect4.arena.record import ResultLine, from_json, to_line
from connect4.arena.schedule import ArenaError
from connect4.core.files import (
    FileError,
    atomic_write,
    check_output,
    file_errors,
    open_input,
    raw_lines,
)

MAX_RESULTS_BYTES = 1 << 30  # the largest results file read
MAX_RECORD_LINE = 1 << 20  # the longest line (one game's record) read


class ResultsStore:
    """Finished games, one JSON object per line, appended with flush + fsync.

    ``open`` with ``resume=True`` reads what a previous run wrote: a torn last
    line (the run was killed mid-write) is cut off, and lines of another
    tournament are refused; a file whose first line is not a game record is
    refused before anything is written to it. Without ``resume`` an existing
    non-empty file is refused so results are never mixed by accident, unless
    ``force`` replaces it. A game stored twice (its review added on a resumed
    run) counts once, as its last line says.
    """

    def __init__(self, path: Path | None, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.records: dict[int, ResultLine] = {}
        self.repaired = 0  # bytes of a torn line cut off
        self.skipped = 0  # unreadable complete lines ignored

    def open(self, resume: bool, force: bool = False) -> ResultsStore:
        """Load earlier results (``resume``), or start the file (new, empty, or
        replaced with ``force``); returns self.

        The file is checked first (:func:`check_results_file`): its folder must
        exist, it must be a file, not a folder or a device, and an existing one
        needs ``resume`` (and must be a results file) or ``force``.
        """
        path = self.path
        if path is None:
            return self
        check_results_file(path, resume=resume, force=force)
        with _file_problems():
            if resume and path.exists():
                self._load(path)
            if force or not path.exists():
                atomic_write(path, b"", what="results file")
        return self

    def _load(self, path: Path) -> None:
        """Read the records back; cut a torn last line (not JSON, no newline)."""
        end = 0  # bytes of complete lines
        tail = b""
        with open_input(path, what="results file", max_bytes=MAX_RESULTS_BYTES) as file:
            for number, raw in raw_lines(
                file, name=path, what="results file", max_line_bytes=MAX_RECORD_LINE
            ):
                if not raw.endswith(b"\n"):
                    tail = raw
                    try:
                        json.loads(raw)
                    except ValueError:
                        break  # torn by a kill: cut below
                    with file_errors(path, "results file"), path.open("ab") as out:
                        out.write(b"\n")  # complete but unterminated: keep it
                    tail = b""
                end += len(raw)
                self._keep(path, number, raw)
        if tail:
            with file_errors(path, "results file"), path.open("r+b") as out:
                out.truncate(end)
                out.flush()
                os.fsync(out.fileno())
            self.repaired = len(tail)

    def _keep(self, path: Path, number: int, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            record = from_json(json.loads(raw))
        except ValueError:
            record = None
        if record is None:
            self.skipped += 1
            return
        if record["tournament"] != self.fingerprint:
            raise ArenaError(
                f"{path} line {number} belongs to another tournament (different players, "
                "openings or options); rerun with the same options or use another file"
            )
        self.records[record["game"]] = record  # a later line supersedes (a review added)

    def append(self, record: ResultLine) -> None:
        """Keep a finished game; with a file, write it durably before returning."""
        self.records[record["game"]] = record
        if self.path is None:
            return
        with file_errors(self.path, "results file"), self.path.open("a", encoding="utf-8") as out:
            out.write(to_line(record))
            out.flush()
            os.fsync(out.fileno())


def check_results_file(path: Path, *, resume: bool = False, force: bool = False) -> Path:
    """:func:`connect4.core.files.check_output` for a results file: one that exists is
    replaced with ``force``, continued with ``resume`` once :func:`is_results_file`."""
    return check_output(path, what="results file", force=force, resume=resume, ours=is_results_file)


def is_results_file(file: BinaryIO) -> str | None:
    """``None`` when the file's first line is a game record of ``connect4 arena`` (or the
    start of one, torn by a kill), else why not; reads that line only.

    >>> import io
    >>> is_results_file(io.BytesIO(b'{"game":0,"tour'))  # the first write, torn
    >>> is_results_file(io.BytesIO(b"root:x:0:0:root:/root:/bin/bash\\n"))
    'its first line is not a game record of connect4 arena'
    """
    for _ in range(1000):  # blank lines before the first record (a file of them: not ours)
        raw = file.readline(MAX_RECORD_LINE + 1)
        if not raw:
            return None  # blank lines only: no game to lose
        if raw.strip():
            break
    if len(raw) > MAX_RECORD_LINE or not raw.strip():
        return "its first line is not a game record of connect4 arena"
    if not raw.endswith(b"\n") and raw.startswith(b'{"game":'):
        return None  # the only line, torn by a kill: cut when the file is loaded
    try:
        record = from_json(json.loads(raw))
    except ValueError:
        record = None
    return None if record is not None else "its first line is not a game record of connect4 arena"


def read_game(path: Path, number: int) -> ResultLine:
    """Game ``number`` (its ``game`` field) of a results file, for a reader such as
    ``connect4 review --results FILE --game N``.

    ``ArenaError`` names what is wrong: a file that cannot be read, a complete
    line that is not a game record, or a number the file does not hold (with
    the numbers it does). An unterminated last line that is not JSON is a
    write in progress or torn by a kill, and is passed over as ``--resume``
    would cut it. Reading stops at the game's first line: the lines after it
    are not read (a game stored again only gained its review; its moves are
    the same).
    """
    numbers: list[int] = []
    with (
        _file_problems(),
        open_input(path, what="results file", max_bytes=MAX_RESULTS_BYTES) as file,
    ):
        for index, raw in raw_lines(
            file, name=path, what="results file", max_line_bytes=MAX_RECORD_LINE
        ):
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except ValueError as error:
                if not raw.endswith(b"\n"):  # no newline after it: torn, or being written
                    continue
                raise ArenaError(f"{path} line {index}: not JSON ({error})") from None
            record = from_json(value)
            if record is None:
                raise ArenaError(f"{path} line {index}: not a game record of connect4 arena")
            if record["game"] == number:
                return record
            numbers.append(record["game"])
    held = _ranges(sorted(set(numbers)))
    raise ArenaError(
        f"{path} has no game {number} "
        + (f"(it holds games {held})" if held else "(it holds no games)")
    )


@contextlib.contextmanager
def _file_problems() -> Iterator[None]:
    """A :class:`FileError` (missing, a device, too large, a line too long) as an ArenaError."""
    try:
        yield
    except FileError as error:
        raise ArenaError(str(error)) from None


def _ranges(numbers: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    parts: list[str] = []
    start = previous = None
    for n in [*numbers, None]:
        if previous is not None and n == previous + 1:
            previous = n
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = n
    return ", ".join(parts)
