"""What a book build's and a dataset's workers run, and the journal of their records.

The book builder (``connect4 book build``) and the labelled-positions writer
(``connect4 dataset``) hand chunks of positions to worker processes
(:mod:`connect4.core.processes`: the pool, the parent-death policy,
:func:`~connect4.core.processes.run_chunks`) under the one progress bar
(:mod:`connect4.core.progress`). This module holds what is theirs:

* :func:`worker_book` and :func:`analyze_chunk`: what runs in a worker (a book
  named by its spec is loaded once per worker process);
* :class:`RecordJournal`: an append-only file of fixed-size records behind a
  header naming the job's parameters, flushed and fsynced after each chunk, so
  an interrupted job loses at most the chunks in flight and a resumed one
  reads back the rest (a record torn by the interruption is cut off).

>>> [scores for key, scores, nodes in analyze_chunk(5, 4, ["3", "1111"], None)]
[(0, 0, 0, 0, 0), (-128, 0, 0, 0, -1)]
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from connect4.core.files import atomic_write, file_errors, open_input, read_input_bytes
from connect4.core.position import Position
from connect4.solver import DEFAULT_TT_MEGABYTES, solver_for
from connect4.solver.book.format import Book
from connect4.solver.book.reader import load_book

__all__ = [
    "DEFAULT_CHUNK",
    "RecordJournal",
    "analyze_chunk",
    "worker_book",
]

DEFAULT_CHUNK = 64  # positions per task
MAX_JOURNAL_BYTES = 1 << 30  # 16-byte records: some 50 million positions


# ---------------------------------------------------------------- workers
_WORKER_BOOKS: dict[tuple[str, int, int], Book | None] = {}


def worker_book(spec: str, width: int, height: int) -> Book | None:
    """The book ``spec`` names, as a solver of the board probes it
    (:func:`connect4.solver.book.load_book` with ``exact``), loaded once per process."""
    key = (spec, width, height)
    if key not in _WORKER_BOOKS:
        _WORKER_BOOKS[key] = load_book(spec, width, height, exact=True)
    return _WORKER_BOOKS[key]


SCORE_NONE = -128
"""What :func:`analyze_chunk` gives a full column (below every score: ``argmax`` skips it)."""


def analyze_chunk(
    width: int,
    height: int,
    moves: Sequence[str],
    book: str | None,
    table_megabytes: int = DEFAULT_TT_MEGABYTES,
) -> list[tuple[int, tuple[int, ...], int]]:
    """Every column's exact score in each position: ``[(key, scores, nodes)]``.

    ``key`` is the position's own key (``Position.key()``, not mirror-merged),
    ``scores`` has :data:`SCORE_NONE` for a full column. ``book`` is a book
    spec probed inside the searches. The positions of a chunk share one table
    generation (their trees overlap); the scores do not depend on it. Runs in
    worker processes: a picklable module-level function.
    """
    probed = None if book is None else worker_book(book, width, height)
    solver = solver_for(width, height, tt_megabytes=table_megabytes, book=probed, reuse_table=True)
    solver.clear_table()
    results = []
    for line in moves:
        position = Position.from_moves(line, width, height)
        result = solver.run(position, analyze=True)
        assert result.column_scores is not None and result.complete
        scores = tuple(SCORE_NONE if s is None else s for s in result.column_scores)
        results.append((position.key(), scores, min(result.nodes, 2**32 - 1)))
    return results


# ---------------------------------------------------------------- journal
_CRC = struct.Struct("<I")
Record = tuple[int, ...]
"""A journal record: the integers its ``struct`` format packs."""


@dataclass
class RecordJournal:
    """An append-only file: ``header`` (the job's parameters), then fixed-size records.

    Each record on disk is followed by the CRC-32 of its bytes, and the header
    by its own, so a damaged record is recognised: :meth:`read` drops it (and
    a record torn by an interruption), counts it in :attr:`damaged` and
    rewrites the file without it, so the job computes it again.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "job.partial"
    >>> journal = RecordJournal(path, b"JOB1", struct.Struct("<Qb"))
    >>> journal.start()
    >>> journal.append([(7, -1), (9, 2)])
    >>> journal.matches(), journal.read(), journal.damaged
    (True, [(7, -1), (9, 2)], 0)
    >>> data = bytearray(path.read_bytes()); data[10] ^= 0xFF; _ = path.write_bytes(data)
    >>> journal.read(), journal.damaged
    ([(9, 2)], 1)
    """

    path: Path
    header: bytes
    record: struct.Struct
    damaged: int = field(default=0, init=False)  # records dropped by the last :meth:`read`

    @property
    def _head(self) -> bytes:
        return self.header + _CRC.pack(zlib.crc32(self.header))

    @property
    def _size(self) -> int:
        return self.record.size + _CRC.size

    def exists(self) -> bool:
        """Whether the journal file is there."""
        return self.path.exists()

    def has_records(self) -> bool:
        """Whether the file holds at least one whole record."""
        try:
            return self.path.stat().st_size >= len(self._head) + self._size
        except OSError:
            return False

    def matches(self) -> bool:
        """Whether the file on disk starts with this job's header (intact)."""
        head = self._head
        with open_input(self.path, what="journal", max_bytes=MAX_JOURNAL_BYTES) as file:
            return file.read(len(head)) == head

    def start(self) -> None:
        """Begin a new journal (replacing any file there)."""
        atomic_write(self.path, self._head, what="journal")

    def read(self) -> list[Record]:
        """The intact records on disk (of a journal that :meth:`matches`).

        Damaged records and a torn last record are dropped and counted in
        :attr:`damaged`; the file is then rewritten without them.
        """
        head = self._head
        data = read_input_bytes(self.path, what="journal", max_bytes=MAX_JOURNAL_BYTES)
        body = memoryview(data)[len(head) :]
        size, plain = self._size, self.record.size
        records: list[Record] = []
        kept: list[bytes] = []
        damaged = 1 if len(body) % size else 0  # a record torn by the interruption
        for start in range(0, len(body) - len(body) % size, size):
            raw = bytes(body[start : start + plain])
            (crc,) = _CRC.unpack_from(body, start + plain)
            if zlib.crc32(raw) != crc:
                damaged += 1
                continue
            records.append(self.record.unpack(raw))
            kept.append(bytes(body[start : start + size]))
        self.damaged = damaged
        if damaged:
            atomic_write(self.path, head + b"".join(kept), what="journal")
        return records

    def append(self, records: Sequence[Record]) -> None:
        """Record finished work durably (flushed and fsynced)."""
        packed = [self.record.pack(*record) for record in records]
        data = b"".join(raw + _CRC.pack(zlib.crc32(raw)) for raw in packed)
        with file_errors(self.path, "journal"), self.path.open("ab") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())

    def remove(self) -> None:
        """Delete the file (the job's result is written)."""
        self.path.unlink(missing_ok=True)
