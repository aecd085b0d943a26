"""The server itself: ``/api/health`` (counters) and ``/api/info`` (facts the page draws with).

>>> sorted(route.path for route in router.routes)
['/api/health', '/api/info']
"""

from __future__ import annotations

from fastapi import APIRouter

from connect4.web.api import ApiDep
from connect4.web.models import HealthResponse, InfoResponse

router = APIRouter(tags=["server"])


@router.get("/api/health")
async def health(api: ApiDep) -> HealthResponse:
    """Liveness and the worker pools' counters."""
    return api.health()


@router.get("/api/info", response_model=InfoResponse)
async def info(api: ApiDep) -> InfoResponse:
    """The games (board, side names, move symbols), rules and classic search's win values."""
    return api.info()
