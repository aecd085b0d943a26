"""The threat map over HTTP: ``/api/threats`` gives each side's threats and the simple
rule, if one, that proves the solver's verdict.

>>> sorted(route.path for route in router.routes)
['/api/threats']
"""

from __future__ import annotations

from fastapi import APIRouter

from connect4.web.api import ApiDep
from connect4.web.errors import RESPONSES
from connect4.web.models import ThreatsResponse
from connect4.web.routes.solver import QueryPosition

router = APIRouter(tags=["threats"], responses=RESPONSES)


@router.get("/api/threats", response_model=ThreatsResponse)
async def threats(api: ApiDep, query: QueryPosition) -> ThreatsResponse:
    """Each side's threats -- empty cells that would complete a four -- as 1-based cells
    (row 1 at the bottom) with their row's parity, whether they are playable now and
    whether they are live, and ``explanation``: the one-sentence rule that proves the
    solver's verdict (a four now, a double threat, zugzwang, a forced block, red's odd
    threat, yellow's claimeven), or null where no simple rule does.

    The same parameters as ``/api/analyze``, Connect Four only (both rule sets; under
    count-fours there is no explanation). A finished game, tic-tac-toe or a bad
    position is a 400.
    """
    return api.threats(query.pos, query.board)
