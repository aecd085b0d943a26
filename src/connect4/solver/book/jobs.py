"""What a book build's and a dataset's workers run.

The book builder (``connect4 book build``) and the labelled-positions writer
(``connect4 dataset``) hand chunks of positions to worker processes
(:mod:`connect4.core.processes`: the pool, the parent-death policy,
:func:`~connect4.core.processes.run_chunks`) under the one progress bar
(:mod:`connect4.core.progress`). This module holds what is theirs:

* :func:`worker_book`, :func:`analyze_chunk` and :func:`target_chunk`: what runs in
  a worker (a book named by its spec is loaded once per worker process).

Their finished records go to the one journal of resumable jobs
(:mod:`connect4.core.journal`).

>>> [scores for key, scores, nodes in analyze_chunk(5, 4, ["3", "1111"], None)]
[(0, 0, 0, 0, 0), (-128, 0, 0, 0, -1)]
>>> [scores for key, scores, nodes in target_chunk(5, 4, ["3", "1111"], None)]
[(0, 0, 0, 0, 0), (-128, 0, 0, 0, -1)]
>>> analyze_chunk(7, 6, ["4455"], None)[0][1], target_chunk(7, 6, ["4455"], None)[0][1]
((-4, -3, 18, 2, 2, 18, -3), (-1, -1, 18, 1, 1, 18, -1))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from connect4.core.position import Position
from connect4.solver import DEFAULT_TT_MEGABYTES, Solver, solver_for
from connect4.solver.book.reader import load_book
from connect4.solver.book.table import Book

__all__ = [
    "DEFAULT_CHUNK",
    "analyze_chunk",
    "target_chunk",
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


def _chunk_solver(width: int, height: int, book: str | None, table_megabytes: int) -> Solver:
    """The solver a chunk's positions share: the book ``book`` probed, one table generation."""
    probed = None if book is None else worker_book(book, width, height)
    solver = solver_for(width, height, tt_megabytes=table_megabytes, book=probed, reuse_table=True)
    solver.clear_table()
    return solver


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
    solver = _chunk_solver(width, height, book, table_megabytes)
    results = []
    for line in moves:
        position = Position.from_moves(line, width, height)
        result = solver.run(position, analyze=True)
        assert result.column_scores is not None and result.complete
        scores = tuple(SCORE_NONE if s is None else s for s in result.column_scores)
        results.append((position.key(), scores, min(result.nodes, 2**32 - 1)))
    return results


def target_chunk(
    width: int,
    height: int,
    moves: Sequence[str],
    book: str | None,
    table_megabytes: int = DEFAULT_TT_MEGABYTES,
) -> list[tuple[int, tuple[int, ...], int]]:
    """What a network learns from each position, for fewer searches than every column's
    exact score: ``[(key, scores, nodes)]`` as :func:`analyze_chunk`'s, where a column
    holds its exact score when it is one of the best (it reaches the position's score)
    and otherwise a stand-in that keeps what is known of it: below the best, and its
    outcome (1 a win, 0 a draw, -1 a loss, or one below the best score when that is
    already a loss).

    The position's score takes one solve (from a lower bound when a column's score is
    known: a win at once, or the chunk's position after it, as a game's positions come
    from its last back); then a column costs one null-window search
    (does it reach the score?) and, when it does not and the position is won, one or
    two more (is it still a win, a draw?). The best columns, the position's score and
    outcome, and each column's outcome are exactly what :func:`analyze_chunk`'s labels
    give (checked by the tests), for about two thirds of the nodes.
    """
    solver = _chunk_solver(width, height, book, table_megabytes)
    results = []
    size = width * height
    known: dict[int, int] = {}  # the chunk's scores so far, by key
    for line in moves:
        position = Position.from_moves(line, width, height)
        exact: dict[int, int] = {}  # the columns whose score is known already
        children: dict[int, Position] = {}
        for column in range(width):
            if not position.can_play(column):
                continue
            if position.is_winning_move(column):
                exact[column] = (size + 1 - position.ply) // 2
                continue
            child = position.copy()
            child.play(column)
            if child.ply == size:
                exact[column] = 0
            elif child.key() in known:  # a game's next position, labelled just before
                exact[column] = -known[child.key()]
            else:
                children[column] = child
        result = solver.run(position, lower=max(exact.values(), default=None))
        assert result.score is not None and result.complete
        value, nodes = result.score, result.nodes
        known[position.key()] = value
        scores = [SCORE_NONE] * width
        for column, score in exact.items():
            scores[column] = score if score == value else _stand_in(score, value)
        for column, child in children.items():
            below, searched = _column_below(solver, child, value)
            nodes += searched
            scores[column] = value if below is None else below
        results.append((position.key(), tuple(scores), min(nodes, 2**32 - 1)))
    return results


def _stand_in(score: int, value: int) -> int:
    """What :func:`target_chunk` keeps of a column's ``score`` below the best ``value``."""
    return min(value - 1, int(np.sign(score))) if score < 0 else int(np.sign(score))


def _column_below(solver: Solver, child: Position, value: int) -> tuple[int | None, int]:
    """``(None, nodes)`` when the move to ``child`` reaches the position's score ``value``,
    else ``(stand-in, nodes)``: the column's outcome as a score below ``value``."""
    nodes = 0

    def reaches(score: int) -> bool:  # does the column score at least ``score``?
        nonlocal nodes
        probe = solver.probe(child, -score)
        assert probe.value is not None and probe.complete
        nodes += probe.nodes
        return probe.value <= -score

    if reaches(value):
        return None, nodes
    if value <= 0:  # below a draw or a loss: a loss
        return value - 1, nodes
    if value >= 2 and reaches(1):
        return 1, nodes
    return (0 if reaches(0) else -1), nodes
