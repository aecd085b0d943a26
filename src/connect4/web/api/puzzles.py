"""Puzzles over HTTP: one puzzle of the server's collection, by id or near a rating with
a theme, answered on the event loop from an index read once (no solver); and an
attempt's ratings.

An attempt is rated statelessly: the client sends the player's Glicko-2 rating
and the result, and gets the player's and the puzzle's new ratings (the puzzle
from its first rating, as a record that never saw it; :mod:`connect4.learn.ratings`
computes both). The server keeps nothing of it. Ratings stay within the ranges an
attempt accepts (:data:`~connect4.web.models.RATINGS` and the others), so what
the server answers it takes back.

The collection is the puzzles file the server was started with
(:attr:`~connect4.web.settings.Settings.puzzles`), or the package's own where
none was named; it is read on the first request (on a thread) and kept. A server
without one answers 404 saying so.
"""

from __future__ import annotations

import asyncio

from starlette.exceptions import HTTPException

from connect4.learn.puzzleindex import PuzzleIndex, right_moves, shipped_puzzles
from connect4.learn.puzzles import Puzzle, PuzzleError
from connect4.learn.ratings import Glicko, PlayerRecord, attempt
from connect4.web.api.lanes import Lanes
from connect4.web.errors import BadRequest
from connect4.web.models import (
    DEVIATIONS,
    RATINGS,
    VOLATILITIES,
    AttemptRequest,
    AttemptResponse,
    GlickoModel,
    PuzzleResponse,
)
from connect4.web.settings import Settings

NO_PUZZLES = (
    "this server has no puzzles: start it with `connect4 serve --puzzles FILE` "
    "(a file that `connect4 puzzles generate` wrote)"
)


class PuzzleRequests(Lanes):
    """``/api/puzzle``: a puzzle by id, or near a rating with a theme."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.puzzle_index: PuzzleIndex | None = None
        self.reading_puzzles = asyncio.Lock()

    async def puzzles(self) -> PuzzleIndex:
        """The server's collection, read on first use and kept (404 where there is none)."""
        async with self.reading_puzzles:
            if self.puzzle_index is None:
                path = self.settings.puzzles or shipped_puzzles()
                if path is None:
                    raise HTTPException(404, NO_PUZZLES)
                self.puzzle_index = await asyncio.to_thread(PuzzleIndex.load, path)
        return self.puzzle_index

    async def puzzle(
        self, rating: int | None = None, theme: str | None = None, puzzle_id: str | None = None
    ) -> PuzzleResponse:
        """The puzzle ``puzzle_id`` names, else one near ``rating`` (by default the
        collection's median) with ``theme``: a bad rating, theme or id is a 400, and
        no puzzle that matches a 404.

        >>> import asyncio, tempfile
        >>> from pathlib import Path
        >>> from connect4 import Position
        >>> from connect4.learn.puzzlefile import write_puzzles
        >>> from connect4.learn.puzzles import find_puzzle
        >>> path = Path(tempfile.mkdtemp()) / "p.jsonl"
        >>> write_puzzles(path, [find_puzzle(Position.from_moves("36777454272212734247"))])
        >>> api = PuzzleRequests(Settings(threads=1, warm_up=False, puzzles=str(path)))
        >>> found = asyncio.run(api.puzzle(rating=400))
        >>> found.position, found.solution, found.right, found.trivial
        ('36777454272212734247', '3', [[3]], True)
        >>> api.stop()
        """
        index = await self.puzzles()
        try:
            if puzzle_id is not None:
                found = index.get(puzzle_id)
                if found is None:
                    raise HTTPException(404, f"no puzzle {puzzle_id} in the server's collection")
            else:
                found = index.pick(rating, theme)
                if found is None:
                    raise HTTPException(404, f"no puzzle of the server's has the theme {theme}")
            right = right_moves(found)
        except PuzzleError as error:
            raise BadRequest(str(error)) from None
        return puzzle_response(found, right, len(index))

    async def puzzle_attempt(self, request: AttemptRequest) -> AttemptResponse:
        """The ratings after one attempt at a puzzle of the collection (a 404 for an id
        it has not); nothing is kept.

        >>> import asyncio
        >>> api = PuzzleRequests(Settings(threads=1, warm_up=False))
        >>> first = asyncio.run(api.puzzles()).puzzles[0]
        >>> rated = asyncio.run(api.puzzle_attempt(AttemptRequest(id=first.id, solved=True)))
        >>> rated.change > 0 > rated.puzzle_change, rated.player.deviation < 350
        (True, True)
        >>> api.stop()
        """
        index = await self.puzzles()
        try:
            found = index.get(request.id)
        except PuzzleError as error:
            raise BadRequest(str(error)) from None
        if found is None:
            raise HTTPException(404, f"no puzzle {request.id} in the server's collection")
        before = Glicko(**request.player.model_dump()) if request.player else Glicko()
        puzzle = PlayerRecord().puzzle_rating(found.id, found.rating)
        player, rated = attempt(before, puzzle, solved=request.solved)
        return AttemptResponse(
            id=found.id,
            solved=request.solved,
            player=kept(player),
            puzzle=kept(rated),
            change=round(kept(player).rating) - round(before.rating),
            puzzle_change=round(kept(rated).rating) - round(puzzle.rating),
        )


def puzzle_response(puzzle: Puzzle, right: list[list[int]], collection: int) -> PuzzleResponse:
    """The response for ``puzzle`` (``right``: its right moves, 0-based)."""
    return PuzzleResponse(
        id=puzzle.id,
        position=puzzle.position,
        solution=puzzle.solution,
        right=[[move + 1 for move in moves] for moves in right],
        rating=puzzle.rating,
        themes=list(puzzle.themes),
        outcome=puzzle.outcome,
        to_move=1 + len(puzzle.position) % 2,
        width=puzzle.board.width,
        height=puzzle.board.height,
        trivial=puzzle.trivial,
        source=puzzle.source,
        collection=collection,
    )


def kept(rating: Glicko) -> GlickoModel:
    """``rating`` within the ranges an attempt accepts (its ends hold one beyond them).

    >>> kept(Glicko(4210.5, 20.0, 0.06))
    GlickoModel(rating=4000.0, deviation=30.0, volatility=0.06)
    """

    def within(value: float, ends: tuple[float, float]) -> float:
        return min(max(value, ends[0]), ends[1])

    return GlickoModel(
        rating=within(rating.rating, RATINGS),
        deviation=within(rating.deviation, DEVIATIONS),
        volatility=within(rating.volatility, VOLATILITIES),
    )
