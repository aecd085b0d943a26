"""The AI players over HTTP: ``/api/move`` (an AI's move) and ``/api/players`` (the menus).

>>> sorted(route.path for route in router.routes)
['/api/move', '/api/players']
"""

from __future__ import annotations

from fastapi import APIRouter

from connect4.web.api import ApiDep
from connect4.web.errors import RESPONSES
from connect4.web.models import MoveRequest, MoveResponse, PlayersResponse

router = APIRouter(tags=["players"])


@router.post("/api/move", response_model=MoveResponse, responses=RESPONSES)
async def move(api: ApiDep, request: MoveRequest) -> MoveResponse:
    """The AI's move in a position: move, value, stats and (classic AIs) the search tree."""
    return await api.move(request)


@router.get("/api/players", response_model=PlayersResponse)
async def players(api: ApiDep) -> PlayersResponse:
    """The player kinds, their options and choices (``human`` moves in the page)."""
    return api.players()
