"""The AI players over HTTP: ``/api/move`` (an AI's move) and ``/api/players`` (the menus).

>>> sorted(route.path for route in router.routes)
['/api/move', '/api/players']
"""

from __future__ import annotations

from fastapi import APIRouter

from connect4.web.api import ApiDep, CallerDep
from connect4.web.errors import RESPONSES
from connect4.web.models import MoveRequest, MoveResponse, PlayersResponse

router = APIRouter(tags=["players"])


@router.post("/api/move", response_model=MoveResponse, responses=RESPONSES)
async def move(api: ApiDep, caller: CallerDep, request: MoveRequest) -> MoveResponse:
    """The AI's move in a position: move, value, stats and (classic AIs) the search tree.

    Within the server's time limit: a search it cuts short answers its best move
    found with ``complete: false`` (``reached`` says how far it got). One deep job
    (AI move, review, long solve) per client address at a time: another is a 503."""
    return await api.move(request, caller)


@router.get("/api/players", response_model=PlayersResponse)
async def players(api: ApiDep) -> PlayersResponse:
    """The player kinds, their options and choices (``human`` moves in the page)."""
    return api.players()
