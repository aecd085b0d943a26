"""Check a book against the solver: re-solve its entries and list every disagreement.

:func:`verify_book` solves a fixed random sample of a book's entries, or all
of them, without any book and reports each entry whose stored score differs
from the solver's (``connect4 book verify``). A valid checksum only proves
the bytes were not damaged after they were written; this proves the scores
themselves.

>>> from connect4 import Position
>>> from connect4.solver.book.table import Book
>>> book = Book.from_scores(4, 4, 2, {Position.from_moves("11", 4, 4): 0,
...                                   Position.from_moves("12", 4, 4): 5})
>>> report = verify_book(book)
>>> report.checked, [(d.moves, d.stored, d.solved) for d in report.disagreements]
(2, [('12', 5, 0)])
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from connect4.core.limits import Limit
from connect4.solver import Solver
from connect4.solver.book.format import BookError
from connect4.solver.book.table import Book, position_from_key

__all__ = ["DEFAULT_SAMPLE", "Disagreement", "VerifyReport", "chosen_count", "verify_book"]

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
    """How many entries were re-solved of those chosen, and every disagreement found.

    ``checked`` is less than ``chosen`` when a limit stopped the work (Ctrl-C).
    """

    entries: int
    chosen: int
    checked: int
    disagreements: list[Disagreement]
    seconds: float

    @property
    def ok(self) -> bool:
        """True when every checked entry agrees with the solver."""
        return not self.disagreements

    @property
    def complete(self) -> bool:
        """True when every chosen entry was re-solved."""
        return self.checked == self.chosen

    def summary(self, name: str) -> str:
        """One line: what was re-solved of the book ``name``, and the verdict.

        >>> VerifyReport(37, 37, 37, [], 0.25).summary("b.c4book")
        'b.c4book: 37 of 37 entries re-solved, all agree (0.2 s)'
        >>> VerifyReport(900, 100, 12, [], 1.0).summary("b.c4book")
        'b.c4book: 12 of the 100 entries chosen (of 900) re-solved, all agree so far (1.0 s)'
        """
        verdict = "all agree" if self.ok else f"{len(self.disagreements)} disagree"
        if not self.complete:
            done = f"{self.checked:,} of the {self.chosen:,} entries chosen (of {self.entries:,})"
            verdict += " so far"
        else:
            done = f"{self.checked:,} of {self.entries:,} entries"
        return f"{name}: {done} re-solved, {verdict} ({self.seconds:.1f} s)"

    def as_dict(self, name: str) -> dict[str, object]:
        """The report as JSON-ready values (``connect4 book verify --json``)."""
        return {
            "book": name,
            "entries": self.entries,
            "chosen": self.chosen,
            "checked": self.checked,
            "complete": self.complete,
            "disagreements": [asdict(d) for d in self.disagreements],
            "seconds": round(self.seconds, 3),
        }


def chosen_count(book: Book, sample: int | None) -> int:
    """How many entries :func:`verify_book` re-solves for ``sample`` (``None``: all)."""
    return len(book) if sample is None else min(sample, len(book))


def verify_book(
    book: Book,
    sample: int | None = None,
    *,
    advance: Callable[[int], None] | None = None,
    limit: Limit | None = None,
) -> VerifyReport:
    """Re-solve ``sample`` entries of ``book`` (a fixed random choice; ``None``: all).

    A win/draw/loss book is compared by sign (a weak solve). ``advance(1)`` is called after
    each entry (a progress bar). When ``limit`` stops (Ctrl-C) the report covers the
    entries re-solved so far.
    """
    count = len(book)
    if sample is None or sample >= count:
        indices = np.arange(count)
    else:
        rng = np.random.default_rng(_SAMPLE_SEED)
        indices = np.sort(rng.choice(count, size=sample, replace=False))
    found: list[Disagreement] = []
    checked = 0
    started = time.perf_counter()
    with Solver(book.width, book.height, TABLE_MEGABYTES) as solver:
        for index in indices.tolist():
            key, stored = book.key_at(index), int(book.values[index])
            try:
                position = position_from_key(key, book.width, book.height)
            except BookError:
                found.append(Disagreement(index, key, None, stored, None))
            else:
                result = solver.run(position, weak=book.wdl, limit=limit)  # weak: the sign
                if result.score is None:  # stopped
                    break
                if result.score != stored:
                    found.append(Disagreement(index, key, position.moves, stored, result.score))
            checked += 1
            if advance is not None:
                advance(1)
    return VerifyReport(count, int(indices.size), checked, found, time.perf_counter() - started)
