"""The perfect solver over HTTP: ``/solve`` (gamesolver.org's shape) and ``/api/analyze``;
beside it the learned network's view, ``/api/policy``.

>>> sorted(route.path for route in router.routes)
['/api/analyze', '/api/policy', '/solve']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse

from connect4.core.games import Board
from connect4.web.api import ApiDep, CallerDep
from connect4.web.errors import RESPONSES
from connect4.web.models import MAX_POS_CHARS, AnalyzeResponse, PolicyResponse, SolveResponse

router = APIRouter(tags=["solver"], responses=RESPONSES)

Pos = Annotated[
    str,
    Query(max_length=MAX_POS_CHARS, description="move string, e.g. 4453 (1-based columns)"),
]
Width = Annotated[int, Query(ge=1, le=64, description="board width")]
Height = Annotated[int, Query(ge=1, le=64, description="board height")]
GameName = Annotated[
    str, Query(max_length=20, description="connect4, or tictactoe (3x3, numpad cells)")
]
RulesName = Annotated[str, Query(max_length=20, description="standard or count-fours")]


@dataclass(frozen=True)
class PositionQuery:
    """The position a request's query names: its move string and its board."""

    pos: str
    board: Board


def position_query(
    pos: Pos = "",
    width: Width = 7,
    height: Height = 6,
    game: GameName = "connect4",
    rules: RulesName = "standard",
) -> PositionQuery:
    """The query's position (its board checked once: a bad one is a 400)."""
    return PositionQuery(pos, Board(game, width, height, rules))


QueryPosition = Annotated[PositionQuery, Depends(position_query)]


@router.get("/solve", response_model=SolveResponse)
async def solve(
    api: ApiDep, caller: CallerDep, pos: Pos = "", width: Width = 7, height: Height = 6
) -> JSONResponse:
    """Every column's score, 100 for a full column: the shape of gamesolver.org's API."""
    scores = await api.solve(pos, width, height, caller)
    # The hot path: a ready response skips re-validating what was just built.
    return JSONResponse({"pos": pos, "score": scores})


@router.get("/api/analyze", response_model=AnalyzeResponse)
async def analyze(api: ApiDep, caller: CallerDep, query: QueryPosition) -> AnalyzeResponse:
    """The position's score, every move's score, the best moves, nodes and seconds
    (Connect Four: the standard rules only; count-fours is a 400)."""
    return await api.analyze(query.pos, query.board, caller)


@router.get("/api/policy", response_model=PolicyResponse)
async def policy(api: ApiDep, query: QueryPosition) -> PolicyResponse:
    """The shipped network's policy over the columns and its value (Connect Four 7x6, the
    standard rules): what the ``net`` player sees, to set beside the solver's scores."""
    return api.policy(query.pos, query.board)
