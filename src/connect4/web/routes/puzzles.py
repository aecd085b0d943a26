"""Puzzles over HTTP: ``/api/puzzle`` gives a puzzle of the server's collection, by id or
near a rating with a theme; ``/api/puzzle/attempt`` rates an attempt at one.

>>> sorted(route.path for route in router.routes)
['/api/puzzle', '/api/puzzle/attempt']
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from connect4.web.api import ApiDep
from connect4.web.errors import RESPONSES
from connect4.web.models import AttemptRequest, AttemptResponse, ErrorResponse, PuzzleResponse

router = APIRouter(
    tags=["puzzles"],
    responses={
        **RESPONSES,
        404: {"model": ErrorResponse, "description": "no puzzle matches, or no collection"},
    },
)

Rating = Annotated[
    int | None, Query(description="a rating (0 to 2800): a puzzle near it; default the median")
]
Theme = Annotated[
    str | None,
    Query(max_length=60, description="a theme, e.g. win-in-2, defence, double-threat, zugzwang"),
]
PuzzleId = Annotated[
    str | None,
    Query(alias="id", max_length=64, description="a puzzle's id: that puzzle exactly"),
]


@router.get("/api/puzzle", response_model=PuzzleResponse)
async def puzzle(
    api: ApiDep, rating: Rating = None, theme: Theme = None, puzzle_id: PuzzleId = None
) -> PuzzleResponse:
    """A puzzle: a position where the side to move has exactly one move that keeps its
    best outcome (a win or a draw), with the solution (that move, the most resisting
    reply, the only move again, ...), the right moves at each of its turns (at the last,
    any that completes a four), its rating and themes.

    With ``id``, that puzzle (a URL names a puzzle); otherwise one near ``rating`` (by
    default the collection's median) with ``theme`` if given, drawn among the closest,
    so asking again gives another. The collection is the server's (``connect4 serve
    --puzzles FILE``, by default the package's own). A bad rating, theme or id is a
    400; no puzzle that matches, or a server without puzzles, a 404.
    """
    return await api.puzzle(rating, theme, puzzle_id)


@router.post("/api/puzzle/attempt", response_model=AttemptResponse)
async def puzzle_attempt(api: ApiDep, request: AttemptRequest) -> AttemptResponse:
    """Rate one finished attempt at a puzzle: the player's and the puzzle's Glicko-2
    ratings after it, as one game between them (solved: the player's win; failed, by a
    wrong move or a hint or the solution asked for: the puzzle's).

    The server keeps nothing: the client sends the player's rating before the attempt
    (``player``; left out, a new player: 1500, deviation 350, volatility 0.06) and keeps
    the one answered. The puzzle's rating moves from its first rating (deviation 200).
    ``change`` is the player's change in rounded points. Ratings are from 0 to 4000,
    deviations from 30 to 500 and volatilities from 0.01 to 0.5, in requests and
    answers alike (an answer beyond them is held at the end). An id that is no puzzle's
    id is a 400, one the collection has not a 404, a bad or missing field (a number out
    of its range, ``solved`` not true or false, a field not listed) a 422.
    """
    return await api.puzzle_attempt(request)
