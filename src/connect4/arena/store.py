"""The resumable results store: each finished game kept in the tournament's journal and
appended to the results file.

The results file (``--results``, one JSON line per game, the format the lab and
``connect4 review --game`` read) is what users see; beside it, while a run is
under way, the tournament's journal (``RESULTS.partial``,
:mod:`connect4.core.journal`) holds the same games, each committed before its
line is appended, with the tournament's settings as its identity. A run that
is killed (even with SIGKILL) loses only the games in flight:
``open(resume=True)`` takes the games in the journal (a damaged record is
dropped and its game played again), then those of the results file the
journal lacks (the file of a finished run, whose journal is gone: a torn last
line is cut, an unreadable line skipped, a line of another tournament
refused), and rewrites the results file whole from them, so a line torn or
damaged by the kill is healed. Once every game is played the file is synced
and the journal removed.

>>> config = ArenaConfig(players=("random", "random:seed=1"))
>>> store = ResultsStore(None, config).open(resume=False)  # no file: records in memory
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
from connect4.arena.schedule import ArenaConfig, ArenaError
from connect4.core.files import (
    FileError,
    atomic_write,
    check_output,
    file_errors,
    open_input,
    raw_lines,
)
from connect4.core.journal import Closing, Journal, journal_path

MAX_RESULTS_BYTES = 1 << 30  # the largest results file read
MAX_RECORD_LINE = 1 << 20  # the longest line (one game's record) read


class ResultsStore(Closing):
    """Finished games: each committed to the journal, then appended to the results file.

    ``open`` with ``resume=True`` reads back what a previous run finished (see
    the module's docstring) and rewrites the results file from it; a file whose
    first line is not a game record is refused before anything is written to
    it. Without ``resume`` an existing non-empty file is refused so results
    are never mixed by accident, unless ``force`` replaces it. A game stored
    twice (its review added on a resumed run) counts once, as its last record
    says. :meth:`finish` (every game played) removes the journal; :meth:`close`
    keeps it for a resume.
    """

    def __init__(self, path: Path | None, config: ArenaConfig) -> None:
        self.path = path
        self.config = config
        self.fingerprint = config.fingerprint()
        self.records: dict[int, ResultLine] = {}
        self.repaired = 0  # bytes of a torn line cut off
        self.skipped = 0  # unreadable complete lines ignored
        self.damaged = 0  # damaged journal records dropped (their games played again)
        self.journal: Journal | None = None

    def open(self, resume: bool, force: bool = False) -> ResultsStore:
        """Load earlier results (``resume``), or start the file (new, empty, or
        replaced with ``force``); returns self.

        The file is checked first (:func:`check_results_file`): its folder must
        exist, it must be a file, not a folder or a device, and an existing one
        needs ``resume`` (and must be a results file) or ``force``; so is the
        journal (:meth:`connect4.core.journal.Journal.open`).
        """
        path = self.path
        if path is None:
            return self
        check_results_file(path, resume=resume, force=force)
        journal = Journal(journal_path(path), "tournament", self.config.identity())
        self.journal = journal.open(resume=resume, force=force)
        try:
            if resume:
                for data in journal.records():
                    record = from_json(json.loads(data))  # checked: written by this tournament
                    if record is not None:
                        self.records[record["game"]] = record
                self.damaged = journal.damaged
                with _file_problems():
                    lacking = self._load(path) if path.exists() else {}
                journal.append(to_line(record).encode() for record in lacking.values())
                self.records.update(lacking)
            lines = "".join(to_line(record) for record in self.records.values())
            with _file_problems():
                atomic_write(path, lines.encode(), what="results file")
        except BaseException:
            self.close()
            raise
        return self

    def _load(self, path: Path) -> dict[int, ResultLine]:
        """The games of the results file the journal lacks; a torn last line (not JSON, no
        newline) is counted in :attr:`repaired` and left out."""
        found: dict[int, ResultLine] = {}
        with open_input(path, what="results file", max_bytes=MAX_RESULTS_BYTES) as file:
            for number, raw in raw_lines(
                file, name=path, what="results file", max_line_bytes=MAX_RECORD_LINE
            ):
                if not raw.endswith(b"\n"):  # the last line: complete, or torn by a kill
                    try:
                        json.loads(raw)
                    except ValueError:
                        self.repaired = len(raw)
                        break
                self._keep(path, number, raw, found)
        return {game: record for game, record in found.items() if game not in self.records}

    def _keep(self, path: Path, number: int, raw: bytes, found: dict[int, ResultLine]) -> None:
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
        found[record["game"]] = record  # a later line supersedes (a review added)

    def append(self, record: ResultLine) -> None:
        """Keep a finished game; with a file, commit it to the journal before returning,
        then append its line to the results file."""
        self.records[record["game"]] = record
        if self.path is None:
            return
        line = to_line(record)
        assert self.journal is not None, "open the store first"
        self.journal.append([line.encode()])
        with file_errors(self.path, "results file"), self.path.open("a", encoding="utf-8") as out:
            out.write(line)

    def finish(self) -> None:
        """Every game is stored: sync the results file and remove the journal."""
        if self.path is None or self.journal is None:
            return
        with file_errors(self.path, "results file"), self.path.open("rb") as file:
            os.fsync(file.fileno())
        self.journal.remove()

    def close(self) -> None:
        """Close the journal, kept for a resume (removed when it holds no game)."""
        if self.journal is not None:
            if not self.records:
                self.journal.remove()
            self.journal.close()


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
