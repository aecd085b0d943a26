"""Check a book against the solver: re-solve its entries and list every disagreement.

``connect4 book verify FILE`` solves a fixed random sample of the entries
(``--sample N``) or all of them (``--all``) without any book and reports each
entry whose stored score differs from the solver's (exit status 1 if any). A
valid checksum only proves the bytes were not damaged after they were
written; this proves the scores themselves.

>>> from connect4 import Position
>>> from connect4.solver.book.format import Book
>>> book = Book.from_scores(4, 4, 2, {Position.from_moves("11", 4, 4): 0,
...                                   Position.from_moves("12", 4, 4): 5})
>>> report = verify_book(book)
>>> report.checked, [(d.moves, d.stored, d.solved) for d in report.disagreements]
(2, [('12', 5, 0)])
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from connect4.solver import Solver
from connect4.solver.book.format import Book, BookError, position_from_key
from connect4.solver.book.jobs import progress_bar
from connect4.solver.book.reader import load_book

__all__ = ["DEFAULT_SAMPLE", "Disagreement", "VerifyReport", "verify_book", "verify_command"]

DEFAULT_SAMPLE = 100
TABLE_MEGABYTES = 64
_SAMPLE_SEED = 20261125  # the same entries on every run


@dataclass(frozen=True)
class Disagreement:
    """An entry whose stored score is not the solver's (``solved`` None: no such position)."""

    index: int
    key: int
    moves: str | None
    stored: int
    solved: int | None

    def line(self) -> str:
        """One line naming the entry and both scores."""
        if self.moves is None:
            return f"entry {self.index}: key {self.key} is not a position of a game in progress"
        where = f'position "{self.moves}"' if self.moves else "empty board"
        return f"entry {self.index} ({where}): book {self.stored}, solver {self.solved}"


@dataclass(frozen=True)
class VerifyReport:
    """How many entries were re-solved, and every disagreement found."""

    entries: int
    checked: int
    disagreements: list[Disagreement]
    seconds: float

    @property
    def ok(self) -> bool:
        """True when every checked entry agrees with the solver."""
        return not self.disagreements


def verify_book(
    book: Book,
    sample: int | None = None,
    *,
    advance: Callable[[int], None] | None = None,
) -> VerifyReport:
    """Re-solve ``sample`` entries of ``book`` (a fixed random choice; ``None``: all).

    A win/draw/loss book is compared by sign (a weak solve). ``advance(1)`` is called after
    each entry (a progress bar).
    """
    count = len(book)
    if sample is None or sample >= count:
        indices = np.arange(count)
    else:
        rng = np.random.default_rng(_SAMPLE_SEED)
        indices = np.sort(rng.choice(count, size=sample, replace=False))
    found: list[Disagreement] = []
    started = time.perf_counter()
    with Solver(book.width, book.height, TABLE_MEGABYTES) as solver:
        for index in indices.tolist():
            key, stored = book.key_at(index), int(book.values[index])
            try:
                position = position_from_key(key, book.width, book.height)
            except BookError:
                found.append(Disagreement(index, key, None, stored, None))
                continue
            solved = solver.solve(position, weak=book.wdl)  # weak: the sign only
            if solved != stored:
                found.append(Disagreement(index, key, position.moves, stored, solved))
            if advance is not None:
                advance(1)
    return VerifyReport(count, int(indices.size), found, time.perf_counter() - started)


def verify_command(
    spec: str,
    sample: int | None,
    all_entries: bool,
    width: int,
    height: int,
    json_output: bool,
    say: Callable[[str], None],
) -> bool:
    """``connect4 book verify``: re-solve, ``say`` each disagreement and a summary line
    (or one JSON object); True when every entry checked agrees. Raises
    :class:`BookError` for a book that cannot be read."""
    book = load_book(spec, width, height)
    if book is None:
        raise BookError(f"no book: {spec}")
    count = len(book) if all_entries else min(sample or DEFAULT_SAMPLE, len(book))
    with progress_bar(not json_output, count, 0, "verifying", "entries") as advance:
        report = verify_book(book, None if all_entries else count, advance=advance)
    if json_output:
        found = [asdict(d) for d in report.disagreements]
        say(
            json.dumps(
                {
                    "book": spec,
                    "entries": report.entries,
                    "checked": report.checked,
                    "disagreements": found,
                    "seconds": round(report.seconds, 3),
                }
            )
        )
    else:
        for disagreement in report.disagreements:
            say(disagreement.line())
        verdict = "all agree" if report.ok else f"{len(report.disagreements)} disagree"
        say(
            f"{spec}: {report.checked:,} of {report.entries:,} entries re-solved, {verdict} "
            f"({report.seconds:.1f} s)"
        )
    return report.ok
