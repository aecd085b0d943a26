"""Request and response models of the HTTP API (they also make the OpenAPI docs at /docs).

>>> MoveRequest(pos="4453", player="perfect").game
'connect4'
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

MAX_POS_CHARS = 1024  # hard cap before any parsing; the board size gives the real limit


class ErrorResponse(BaseModel):
    """What every 4xx/5xx answer carries: the problem in one sentence."""

    error: str = Field(examples=["move 7 ('4'): column 4 is full"])


class SolveResponse(BaseModel):
    """The shape of connect4.gamesolver.org's endpoint: one score per column, 100 = full."""

    pos: str = Field(examples=["4453"])
    score: list[int] = Field(examples=[[-2, -1, 0, 1, 0, -1, -2]])


class AnalyzeResponse(BaseModel):
    """A solved position, every column's score (``null`` = full column) and the effort."""

    pos: str
    width: int
    height: int
    ply: int
    to_move: int = Field(description="1 = red (first player), 2 = yellow")
    score: int | None = Field(description="Pons' score for the side to move")
    score_text: str = Field(examples=["win in 3"], description="the score in words")
    column_scores: list[int | None]
    column_texts: list[str | None]
    best_moves: list[int] = Field(description="best columns, 1-based as in move strings")
    nodes: int
    seconds: float
    complete: bool


class MoveRequest(BaseModel):
    """Ask an AI player for its move in a position."""

    pos: str = Field(default="", max_length=MAX_POS_CHARS, examples=["4453"])
    player: str = Field(
        default="perfect", max_length=200, examples=["alphabeta:depth=5,heuristic=windows"]
    )
    game: str = Field(default="connect4", max_length=20, examples=["connect4"])
    rules: str = Field(default="standard", max_length=20, examples=["standard"])
    width: int = Field(default=7, ge=1, le=64)
    height: int = Field(default=6, ge=1, le=64)
    tree: bool = Field(default=False, description="return the search tree (classic AIs)")


class MoveResponse(BaseModel):
    """The AI's move (0-based and as notation), its value, stats and optional search tree."""

    pos: str
    move: int
    move_label: str = Field(description="the move in the game's notation ('4', or a numpad cell)")
    pos_after: str
    value: float | int | str | None
    proven: bool | None
    column_scores: list[int | None] | None
    stats: dict[str, float | int | str | None]
    tree: dict[str, Any] | None
    tree_available: bool = Field(description="whether this player can record a search tree")
    result: str
    over: bool


class PlayersResponse(BaseModel):
    """The player kinds with their options and choices, for the page's menus."""

    games: list[str]
    rules: list[str]
    players: list[dict[str, Any]]
    solver: bool = Field(description="whether the perfect solver is installed")
