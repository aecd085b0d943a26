"""The game review over HTTP: ``/api/review`` grades every move of a game.

>>> sorted(route.path for route in router.routes)
['/api/review']
"""

from __future__ import annotations

from fastapi import APIRouter

from connect4.web.api import ApiDep, CallerDep
from connect4.web.errors import RESPONSES
from connect4.web.models import ReviewResponse
from connect4.web.routes.solver import QueryPosition

router = APIRouter(tags=["review"], responses=RESPONSES)


@router.get("/api/review", response_model=ReviewResponse)
async def review(api: ApiDep, caller: CallerDep, query: QueryPosition) -> ReviewResponse:
    """Every move of the game graded by exact scores: best, good, mistake or blunder.

    The same parameters as ``/api/analyze`` (a count-fours game is a 400: the solver
    plays the standard rules only); a finished game is fine. A game
    whose positions cannot all be solved within the server's time limit is a 503.
    """
    return await api.review(query.pos, query.board, caller)
