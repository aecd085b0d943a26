"""What a split solve keeps: the split positions' exact scores and proven bounds.

Three files beside each other, named by the results book ``RESULTS``:

- ``RESULTS.partial``, the journal of exact scores found (the book builder's
  journal, :class:`~connect4.solver.book.build.Journal`, whose identity also names the
  root), merged into ``RESULTS`` at the end of each run and removed;
- ``RESULTS``, an opening book of the split positions whose exact score is known,
  its metadata naming the root, the split and the root's answer (a book any solver
  reads);
- ``RESULTS.bounds``, the journal of bounds proven by null-window tasks (a lower or
  an upper bound on a position's score, with the nodes it took), kept beside the book:
  a later run with another question (every column's score) starts from them.

A bound proven is never searched again, and an exact score answers any window.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from connect4.core.fileerror import FileError
from connect4.core.journal import Journal as JobJournal, JournalError
from connect4.solver.book.build import Journal, WideRecord
from connect4.solver.book.keys import key_array, key_ints
from connect4.solver.book.table import Book

__all__ = ["BoundsJournal", "SplitJournal", "bounds_path", "open_journal", "results_book", "stored"]

BOUNDS = WideRecord("bbxxxxxxq")  # key (two words), lo, hi, nodes


def bounds_path(results: Path) -> Path:
    """Where the proven bounds of the split solve whose results book is ``results`` go.

    >>> bounds_path(Path("r.c4book")).name
    'r.c4book.bounds'
    """
    return results.with_name(results.name + ".bounds")


def identity(
    width: int, height: int, root: str, split_ply: int, base_tag: int
) -> dict[str, object]:
    """A split solve's journals' identity: board, root, split and base book."""
    base = f"{base_tag:016x}" if base_tag else "none"
    return {"width": width, "height": height, "root": root, "split_ply": split_ply,
            "base_book": base}  # fmt: skip


@dataclass
class SplitJournal(Journal):
    """The split positions solved exactly by one split solve (the book builder's journal,
    whose identity also names the root), with each position's nodes."""

    root: str = ""
    task_nodes: dict[int, int] = field(default_factory=dict)

    def on_disk(self) -> JobJournal:
        ours = identity(self.width, self.height, self.root, self.plies, self.base_tag)
        return JobJournal(self.path, "split solve", ours)

    def open(self, resume: bool, force: bool = False) -> None:
        super().open(resume, force)
        assert self.file is not None
        record = self._record()
        for data in self.file.records():
            key, _, nodes = record.unpack(data)
            self.task_nodes[key] = nodes

    def append(self, results: list[tuple[int, int, int]]) -> None:  # type: ignore[override]
        super().append(results)
        for key, _, nodes in results:
            self.task_nodes[key] = self.task_nodes.get(key, 0) + nodes


@dataclass
class BoundsJournal:
    """The bounds proven on split positions: ``bounds`` (``{key: (lo, hi)}``, every
    record of a key intersected) and their ``nodes``."""

    path: Path
    ident: dict[str, object]
    bounds: dict[int, tuple[int, int]] = field(default_factory=dict)
    nodes: int = 0
    file: JobJournal | None = field(default=None, init=False, repr=False)

    def open(self, resume: bool, force: bool = False) -> None:
        """Continue the journal on disk (``resume``), or start it (``force``: over)."""
        self.file = JobJournal(self.path, "split solve bounds", self.ident)
        self.file.open(resume=resume, force=force)
        for data in self.file.records():
            self._note(*BOUNDS.unpack(data))

    def _note(self, key: int, lo: int, hi: int, nodes: int) -> None:
        old_lo, old_hi = self.bounds.get(key, (lo, hi))
        self.bounds[key] = (max(lo, old_lo), min(hi, old_hi))
        self.nodes += nodes

    def append(self, answers: list[tuple[int, int, int, int]]) -> None:
        """Record proven bounds durably (one transaction)."""
        assert self.file is not None, "open the journal first"
        self.file.append([BOUNDS.pack(*answer) for answer in answers])
        for answer in answers:
            self._note(*answer)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def open_journal(journal: SplitJournal | BoundsJournal, force: bool) -> None:
    """Continue a split solve's journal (or start it; ``force``: start over). A journal of
    another split is refused naming what differs, as a split solve words it (it has no
    resume option: the same solve always continues)."""
    try:
        journal.open(resume=not force, force=force)
    except JournalError as error:
        if "{resume}" not in error.template:
            raise
        text = error.template.replace(
            "resume with the same settings, or give {force} instead of {resume} to start over",
            "give {force} to start over, or another results file",
        )
        raise JournalError(text, options=("force",)) from None


def stored(path: Path, width: int, height: int, ours: dict[str, object]) -> Book | None:
    """The results book of this very split at ``path``, if one is there (``ours``: its
    root, split and base book); another split's book is refused (a results book is
    never silently replaced)."""
    if not path.exists():
        return None
    book = Book.load(path)
    theirs = {name: book.meta.get(name) for name in ours}
    if (book.width, book.height) != (width, height) or theirs != ours:
        raise FileError(
            f"{path} holds the results of another split solve ({book.width}x{book.height}, "
            f"{theirs}): give {{force}} to replace it, or another results file",
            options=("force",),
        )
    return book


def book_scores(book: Book | None) -> dict[int, int]:
    """A results book's exact scores, by key."""
    if book is None:
        return {}
    return dict(zip(key_ints(book.keys), (int(v) for v in book.values), strict=True))


def results_book(
    width: int, height: int, split_ply: int, exact: dict[int, int], meta: dict[str, object]
) -> Book:
    """The book of the split positions whose exact score is known, ``meta`` naming the
    split and the answer."""
    keys = list(exact)
    return Book.from_arrays(
        width,
        height,
        split_ply,
        key_array(keys, width, height),
        np.array([exact[key] for key in keys], dtype=np.int8),
        meta={
            "source": "connect4 solve --split-ply",
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "positions": "the split positions the search above needed exactly",
            "rules": "standard",
            **meta,
        },
    )
