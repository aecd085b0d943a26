"""The opening explorer over HTTP: ``/api/explore`` gives every move of a position with
its exact score, the games of the server's collection that played it, and the best line.

>>> sorted(route.path for route in router.routes)
['/api/explore']
"""

from __future__ import annotations

from fastapi import APIRouter

from connect4.web.api import ApiDep, CallerDep
from connect4.web.errors import RESPONSES
from connect4.web.models import ExploreResponse
from connect4.web.routes.solver import QueryPosition

router = APIRouter(tags=["explore"], responses=RESPONSES)


@router.get("/api/explore", response_model=ExploreResponse)
async def explore(api: ApiDep, caller: CallerDep, query: QueryPosition) -> ExploreResponse:
    """Every legal move of the position with its exact score (Pons' convention, the side
    to move's view) and how many games of the server's collection played it from here
    (``connect4 serve --games FILE``; 0 without one), with the best line.

    The same parameters as ``/api/analyze``. A finished game or a count-fours game is
    a 400; a position the solver cannot score within the server's time limit is a 503.
    """
    return await api.explore(query.pos, query.board, caller)
