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
from pathlib import Path

from connect4.arena.record import ResultLine, from_json, to_line
from connect4.arena.schedule import ArenaError


class ResultsStore:
    """Finished games, one JSON object per line, appended with flush + fsync.

    ``open`` with ``resume=True`` reads what a previous run wrote: a torn last
    line (the run was killed mid-write) is cut off, and lines of another
    tournament are refused. Without ``resume`` an existing non-empty file is
    refused so results are never mixed by accident. A game stored twice (its
    review added on a resumed run) counts once, as its last line says.
    """

    def __init__(self, path: Path | None, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.records: dict[int, ResultLine] = {}
        self.repaired = 0  # bytes of a torn line cut off
        self.skipped = 0  # unreadable complete lines ignored

    def open(self, resume: bool) -> ResultsStore:
        """Load earlier results (``resume``) or check the file is new; returns self."""
        path = self.path
        if path is None:
            return self
        if path.exists() and path.stat().st_size > 0 and not resume:
            raise ArenaError(
                f"results file {path} already exists: pass --resume to continue that "
                "tournament, or choose another file"
            )
        if resume and path.exists():
            self._load(path)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
            with contextlib.suppress(OSError):  # make the new file's name durable too
                directory = os.open(path.parent, os.O_RDONLY)
                try:
                    os.fsync(directory)
                finally:
                    os.close(directory)
        return self

    def _load(self, path: Path) -> None:
        data = path.read_bytes()
        cut = data.rfind(b"\n") + 1
        tail = data[cut:]
        if tail.strip():
            try:
                json.loads(tail)
                with path.open("ab") as out:  # complete but unterminated: keep it
                    out.write(b"\n")
                cut = len(data) + 1
                data += b"\n"
            except ValueError:
                with path.open("r+b") as out:
                    out.truncate(cut)
                    out.flush()
                    os.fsync(out.fileno())
                self.repaired = len(tail)
        for number, raw in enumerate(data[:cut].splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                record = from_json(json.loads(raw))
            except ValueError:
                record = None
            if record is None:
                self.skipped += 1
                continue
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
        with self.path.open("a", encoding="utf-8") as out:
            out.write(to_line(record))
            out.flush()
            os.fsync(out.fileno())


def read_game(path: Path, number: int) -> ResultLine:
    """Game ``number`` (its ``game`` field) of a results file, for a reader such as
    ``connect4 review --results FILE --game N``.

    ``ArenaError`` names what is wrong: a file that cannot be read, a complete
    line that is not a game record, or a number the file does not hold (with
    the numbers it does). An unterminated last line that is not JSON is a
    write in progress or torn by a kill, and is passed over as ``--resume``
    would cut it. A game stored twice counts as its last line says.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ArenaError(f"cannot read {path}: {error.strerror}") from None
    lines = data.split(b"\n")
    found: ResultLine | None = None
    numbers: list[int] = []
    for index, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except ValueError as error:
            if index == len(lines):  # no newline after it: torn, or being written
                continue
            raise ArenaError(f"{path} line {index}: not JSON ({error})") from None
        record = from_json(value)
        if record is None:
            raise ArenaError(f"{path} line {index}: not a game record of connect4 arena")
        numbers.append(record["game"])
        if record["game"] == number:
            found = record
    if found is None:
        held = _ranges(sorted(set(numbers)))
        raise ArenaError(
            f"{path} has no game {number} "
            + (f"(it holds games {held})" if held else "(it holds no games)")
        )
    return found


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
