"""What a book build's and a dataset's workers run.

The book builder (``connect4 book build``) and the labelled-positions writer
(``connect4 dataset``) hand chunks of positions to worker processes
(:mod:`connect4.core.processes`: the pool, the parent-death policy,
:func:`~connect4.core.processes.run_chunks`) under the one progress bar
(:mod:`connect4.core.progress`). This module holds what is theirs:

* :func:`worker_book` and :func:`analyze_chunk`: what runs in a worker (a book
  named by its spec is loaded once per worker process).

Their finished records go to the one journal of resumable jobs
(:mod:`connect4.core.journal`).

>>> [scores for key, scores, nodes in analyze_chunk(5, 4, ["3", "1111"], None)]
[(0, 0, 0, 0, 0), (-128, 0, 0, 0, -1)]
"""

from __future__ import annotations

from collections.abc import Sequence

from connect4.core.position import Position
from connect4.solver import DEFAULT_TT_MEGABYTES, solver_for
from connect4.solver.book.reader import load_book
from connect4.solver.book.table import Book

__all__ = [
    "DEFAULT_CHUNK",
    "analyze_chunk",
    "worker_book",
]

DEFAULT_CHUNK = 64  # positions per task


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
