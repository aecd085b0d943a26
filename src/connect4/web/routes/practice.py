"""Practise your mistakes over HTTP: ``/api/practice`` gives a reviewed game's
mistakes, blunders and missed wins as exercises, every answer graded.

>>> sorted(route.path for route in router.routes)
['/api/practice']
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from connect4.web.api import ApiDep, CallerDep
from connect4.web.errors import RESPONSES
from connect4.web.models import PracticeResponse
from connect4.web.routes.solver import QueryPosition

router = APIRouter(tags=["practice"], responses=RESPONSES)

Side = Annotated[
    str,
    Query(
        max_length=20,
        description="whose moves: red or yellow (X or O in tic-tac-toe), 1, 2, first, "
        "second or both",
    ),
]


@router.get("/api/practice", response_model=PracticeResponse)
async def practice(
    api: ApiDep, caller: CallerDep, query: QueryPosition, side: Side = "both"
) -> PracticeResponse:
    """The game ``pos`` reviewed, and each of ``side``'s mistakes, blunders and missed
    wins (after the game's imposed opening) as an exercise: the position before it, the
    game's move, every legal move's exact score with its grade and sentence -- ``best``
    (the best score), ``right`` (the best outcome), ``better`` (better than the game's
    move, still not the best outcome), ``wrong`` -- exactly as ``connect4 review
    --practice`` grades it, and the solver's move with its best line.

    The same parameters as ``/api/review``; a bad side is a 400, and a game whose
    positions cannot all be solved within the server's time limit is a 503 (a best
    line the limit cuts short has ``complete`` false).
    """
    return await api.practice(query.pos, query.board, side, caller)
