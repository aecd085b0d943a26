"""Request and response shapes of the HTTP API (they also make the OpenAPI docs at /docs).

Pydantic models are what clients send and get; the TypedDicts are JSON the
server builds itself (counters, search trees), typed without a second copy.

Moves are numbered as in move strings, from 1 (a column; a tic-tac-toe numpad
cell): ``best_moves`` of an analysis, ``move_number`` and ``best_move_numbers``
of an AI move and a review. The 0-based ``move`` of those two and a review's
0-based ``best_moves`` are deprecated (:data:`DEPRECATED`), kept for a release.

>>> MoveRequest(pos="4453", player="perfect").game
'connect4'
"""

from __future__ import annotations

from typing import Annotated, Literal

import pydantic
from pydantic import BaseModel, Field, JsonValue
from typing_extensions import TypedDict  # pydantic reads these on Python 3.11 too

from connect4.core.games import Board
from connect4.review.grading import PlayerSummary, PlyReview

MAX_POS_CHARS = 1024  # hard cap before any parsing; the board size gives the real limit
MAX_SPEC_LENGTH = 200  # a player spec's characters, at most

DEPRECATED = {"deprecated": True}
"""How a field kept for old clients is marked in the OpenAPI schema."""

JsonObject = dict[str, JsonValue]
"""A JSON object of any shape (a search tree as the classic search records it)."""


class ErrorResponse(BaseModel):
    """What every 4xx/5xx answer carries: the problem in one sentence."""

    error: str = Field(examples=["move 7 ('4'): column 4 is full"])


class SolveResponse(BaseModel):
    """The shape of connect4.gamesolver.org's endpoint: one score per column, 100 = full."""

    pos: str = Field(examples=["4453"])
    score: list[int] = Field(examples=[[-2, -1, 0, 1, 0, -1, -2]])


class AnalyzeResponse(BaseModel):
    """A solved position, every move's score (``null`` = full column or taken cell) and the
    effort. Tic-tac-toe moves are the cells 1-9 in numpad order."""

    pos: str
    game: str = Field(examples=["connect4"])
    width: int
    height: int
    ply: int
    to_move: int = Field(description="1 = red (first player), 2 = yellow")
    score: int | None = Field(description="Pons' score for the side to move")
    score_text: str = Field(examples=["win in 3"], description="the score in words")
    column_scores: list[int | None]
    column_texts: list[str | None]
    best_moves: list[int] = Field(description="best moves, 1-based as in move strings")
    nodes: int
    seconds: float
    complete: bool


class PolicyResponse(BaseModel):
    """The shipped network's view of a Connect Four position (the ``net`` player's): its
    policy over the columns (0 for a full one) and the outcome it expects."""

    pos: str
    policy: list[float] = Field(description="each column's probability (0: full)")
    value: float = Field(description="expected outcome for the side to move, -1 loss .. 1 win")
    wdl: list[float] = Field(description="probabilities of a loss, a draw and a win")


@pydantic.dataclasses.dataclass(frozen=True)
class ReviewPly(PlyReview):
    """One graded move (the review's own row): ``ply`` counts from 1, ``player`` is 1
    (red / X) or 2, ``move_number`` the move numbered from 1 as in move strings and
    ``label`` as written there. ``scores`` are every move's exact score before it
    (mover's view, index 0 the first column or cell; ``null``: not playable or not
    settled), ``best_move_numbers`` from 1, ``loss`` the best score minus the move's
    score, ``verdict`` best, good, mistake or blunder (``null``: the position was not
    proven).

    >>> row = ReviewPly(1, 1, "", 3, "4", (0,) * 7, True, 1, (3, 4), 0, 1, "good")
    >>> row.move_number, row.best_move_numbers
    (4, [4, 5])
    """

    move: Annotated[
        int,
        Field(
            description="deprecated: the move 0-based; use move_number",
            json_schema_extra=DEPRECATED,
        ),
    ]
    best_moves: Annotated[
        tuple[int, ...],
        Field(
            description="deprecated: the best moves 0-based; use best_move_numbers",
            json_schema_extra=DEPRECATED,
        ),
    ]

    @pydantic.computed_field(  # type: ignore[prop-decorator]
        description="the move, numbered from 1 as in move strings"
    )
    @property
    def move_number(self) -> int:
        return self.move + 1

    @pydantic.computed_field(  # type: ignore[prop-decorator]
        description="the best moves, numbered from 1 as in move strings"
    )
    @property
    def best_move_numbers(self) -> list[int]:
        return [move + 1 for move in self.best_moves]


@pydantic.dataclasses.dataclass(frozen=True)
class ReviewPlayer(PlayerSummary):
    """One player's figures (the review's own), with the accuracy: the share of best
    moves among the proven ones (``null`` when none was proven)."""

    accuracy: float | None = None  # the summary's property, as data


class ReviewResponse(BaseModel):
    """Every move of a game graded by exact scores, the players' figures and the ply where
    the result was decided (the last move that changed the proven outcome)."""

    game: str = Field(examples=["connect4"])
    width: int
    height: int
    rules: str
    moves: str = Field(examples=["4455"])
    result: str = Field(examples=["red to move"])
    opening: int = Field(
        default=0, description="plies imposed at the start (graded, counted for neither player)"
    )
    names: list[str] | None = Field(default=None, description="who played first and second")
    decisive_ply: int | None
    outcomes: list[int | None] = Field(
        description="proven result after each ply, first player's view (1, 0, -1)"
    )
    evaluation: list[int | None] = Field(
        description="exact score after each ply, first player's view"
    )
    players: list[ReviewPlayer]
    plies: list[ReviewPly]


class ExploreMove(BaseModel):
    """One legal move of an explored position: its exact score and the games that played it."""

    column: int = Field(examples=[4], description="the move, 1-based as in move strings")
    score: int = Field(description="Pons' score of playing it, for the side to move")
    score_text: str = Field(examples=["win in 20"], description="the score in words")
    games: int = Field(description="games of the server's collection that played it here")
    wins: int = Field(description="of those games, won by the side that played it")
    draws: int
    losses: int


class ExploreResponse(BaseModel):
    """The opening explorer: every legal move's exact score and how often the server's
    game collection played it from this position (by any order of moves), and the
    best line."""

    pos: str = Field(examples=["4453"])
    game: str = Field(examples=["connect4"])
    width: int
    height: int
    ply: int
    to_move: int = Field(description="1 = red (first player), 2 = yellow")
    score: int = Field(description="Pons' score of the position for the side to move")
    score_text: str = Field(examples=["loss in 19"])
    games: int = Field(description="games of the collection that went on from this position")
    moves: list[ExploreMove] = Field(description="one per legal move, in board order")
    line: str = Field(
        examples=["344446655755522122226666171111777733"],
        description="the best line from the position, a move string",
    )
    line_complete: bool = Field(
        description="the line reaches the game's end (false: the time limit cut it short)"
    )


class ThreatCell(BaseModel):
    """One threat: an empty cell that would complete a four for its side."""

    column: int = Field(examples=[3], description="1-based, as in move strings")
    row: int = Field(examples=[1], description="1-based, row 1 at the bottom")
    odd: bool = Field(description="an odd row (1, 3, 5): red's parity; even rows are yellow's")
    playable: bool = Field(description="the lowest empty cell of its column: playable now")
    live: bool = Field(
        description="false where the game must end below it: a cell both sides threaten, or "
        "two cells of one side one above the other, lies below it in its column"
    )


class ThreatRule(BaseModel):
    """The simple rule that proves the verdict, with the bounds it proves."""

    rule: str = Field(examples=["double threat"])
    sentence: str
    low: int = Field(description="the lowest exact score (Pons', side to move) the rule allows")
    high: int = Field(description="the highest exact score the rule allows")
    move: int | None = Field(description="the column the rule plays, 1-based (null: none)")
    only_move: bool = Field(description="every other move loses at once (a forced block)")


class ThreatsResponse(BaseModel):
    """The threat map of a Connect Four position and, where a simple rule proves the
    solver's verdict, the rule in one sentence."""

    pos: str = Field(examples=["44556"])
    width: int
    height: int
    rules: str
    to_move: int = Field(description="1 = red (first player), 2 = yellow")
    red: list[ThreatCell] = Field(description="red's threats, by column then row")
    yellow: list[ThreatCell] = Field(description="yellow's threats, by column then row")
    explanation: str | None = Field(
        examples=["Red threatens to win in columns 3 and 7: Yellow can block only one."],
        description="the rule's sentence; null where no simple rule explains the verdict",
    )
    rule: ThreatRule | None = None


class PuzzleResponse(BaseModel):
    """A puzzle of the server's collection: the position, its solution and how it was
    rated and tagged."""

    id: str = Field(examples=["f56c982f9c7f"], description="the puzzle's id (?id= asks for it)")
    position: str = Field(examples=["434"], description="a move string from the empty board")
    solution: str = Field(
        examples=["4"],
        description="a move string from the position: the side to move's only move, then "
        "the most resisting reply and the only move again, in turn; it starts and ends "
        "with a move of the side to move",
    )
    right: list[list[int]] = Field(
        description="for each move of the side to move in the solution, the moves that are "
        "right (1-based): the solution's, and at the last one any that completes a four"
    )
    rating: int = Field(examples=[1400])
    themes: list[str] = Field(examples=[["only-drawing-move", "defence"]])
    outcome: str = Field(examples=["win"], description="what the only move keeps: win or draw")
    to_move: int = Field(description="1 = red (first player), 2 = yellow")
    width: int
    height: int
    trivial: bool = Field(description="the easiest tier: a four to complete or block at once")
    source: str = Field(description="the game it was found in")
    collection: int = Field(description="puzzles in the server's collection")


RATINGS = (0.0, 4000.0)  # the ratings an attempt takes and gives (the ends hold a rating)
DEVIATIONS = (30.0, 500.0)  # the deviations, likewise
VOLATILITIES = (0.01, 0.5)  # the volatilities, likewise


class GlickoModel(BaseModel):
    """A Glicko-2 rating: the rating, how unsure it is (its deviation) and its volatility."""

    model_config = pydantic.ConfigDict(extra="forbid", allow_inf_nan=False)

    rating: float = Field(ge=RATINGS[0], le=RATINGS[1], strict=True, examples=[1500.0])
    deviation: float = Field(
        ge=DEVIATIONS[0], le=DEVIATIONS[1], strict=True, examples=[350.0],
        description="how unsure the rating is: 350 a new player's, less after each attempt",
    )  # fmt: skip
    volatility: float = Field(
        ge=VOLATILITIES[0], le=VOLATILITIES[1], strict=True, examples=[0.06],
        description="how much the rating changes from period to period: 0.06 a new player's",
    )  # fmt: skip


class AttemptRequest(BaseModel):
    """One finished attempt at a puzzle: solved without a miss, or failed (a wrong move,
    a hint or the solution asked for)."""

    model_config = pydantic.ConfigDict(extra="forbid")

    id: str = Field(max_length=64, examples=["f56c982f9c7f"], description="the puzzle's id")
    solved: bool = Field(strict=True, description="true: solved; false: failed")
    player: GlickoModel | None = Field(
        default=None,
        description="the player's rating before the attempt (the client keeps it); "
        "left out: a new player (1500, deviation 350, volatility 0.06)",
    )


class AttemptResponse(BaseModel):
    """The player's and the puzzle's ratings after the attempt (a game between them)."""

    id: str = Field(examples=["f56c982f9c7f"])
    solved: bool
    player: GlickoModel = Field(description="the player's new rating: keep it for the next one")
    puzzle: GlickoModel = Field(
        description="the puzzle's rating after the attempt, from its first rating (deviation 200)"
    )
    change: int = Field(
        examples=[23], description="the player's rating change, rounded: new less old"
    )
    puzzle_change: int = Field(examples=[-9], description="the puzzle's rating change, rounded")


class PracticeAnswer(BaseModel):
    """One legal move of an exercise graded as the solver scores it: ``best`` (the best
    score), ``right`` (the best outcome), ``better`` (better than the game's move, not
    the best outcome) or ``wrong``, with the sentence that says so."""

    move_number: int = Field(examples=[4], description="the move, 1-based as in move strings")
    label: str = Field(examples=["4"], description="the move as written in move strings")
    score: int = Field(description="Pons' score of the move, the mover's view")
    score_text: str = Field(examples=["win in 20"])
    grade: Literal["best", "right", "better", "wrong"]
    right: bool = Field(description="the move keeps the best outcome (best or right)")
    text: str = Field(examples=["right: 4 is the best move (win in 20)"])


class PracticeSolution(BaseModel):
    """An exercise's answer: the solver's move and the best line from the position."""

    move_number: int = Field(examples=[4], description="the solver's move, 1-based")
    label: str
    score: int
    score_text: str
    line: str = Field(examples=["4444"], description="the best line, a move string")
    complete: bool = Field(description="the line reaches the end (false: the time limit cut it)")
    text: str = Field(examples=["the answer: 4 (win in 20); the best line: 4 4 4 4 …"])


class PracticeExercise(BaseModel):
    """One of the reviewed side's mistakes, blunders or missed wins as a question: the
    position before the move, the game's move, every move's exact score and grade there,
    and the answer."""

    ply: int = Field(description="the ply of the game's move, from 1")
    player: int = Field(description="1 = red / X (first player), 2 = yellow / O")
    name: str = Field(examples=["red"])
    position: str = Field(examples=["44"], description="the position before it, a move string")
    move_number: int = Field(description="the game's move, 1-based")
    label: str
    kind: Literal["mistake", "blunder", "missed win"]
    verdict: Literal["mistake", "blunder"]
    missed_win: bool
    question: str
    scores: list[int | None] = Field(
        description="every move's exact score there, the mover's view (null: not playable)"
    )
    best_score: int
    played_score: int
    best_move_numbers: list[int] = Field(description="the moves that keep the best score")
    right_move_numbers: list[int] = Field(description="the moves that keep the best outcome")
    answers: list[PracticeAnswer] = Field(description="every legal move graded, in board order")
    solution: PracticeSolution


class PracticeResponse(BaseModel):
    """Practise your mistakes: the exercises of a reviewed game for the side(s) asked,
    in the order played."""

    pos: str = Field(examples=["4455"])
    game: str = Field(examples=["connect4"])
    width: int
    height: int
    rules: str
    sides: list[int] = Field(description="whose moves: 1 (red / X), 2 (yellow / O)")
    exercises: list[PracticeExercise]


class MoveRequest(BaseModel):
    """Ask an AI player for its move in a position."""

    pos: str = Field(default="", max_length=MAX_POS_CHARS, examples=["4453"])
    player: str = Field(
        default="perfect",
        max_length=MAX_SPEC_LENGTH,
        examples=["alphabeta:depth=5,heuristic=windows"],
    )
    game: str = Field(default="connect4", max_length=20, examples=["connect4"])
    rules: str = Field(default="standard", max_length=20, examples=["standard"])
    width: int = Field(default=7, ge=1, le=64)
    height: int = Field(default=6, ge=1, le=64)
    tree: bool = Field(default=False, description="return the search tree (classic AIs)")

    @property
    def board(self) -> Board:
        """The board the request names (checked: a bad one is a :class:`GameError`)."""
        return Board(self.game, self.width, self.height, self.rules)


Stat = bool | float | int | str | None  # a flag: tree_full
StatValue = Stat | list[dict[str, Stat]]  # a list: a Monte Carlo tree search's columns


class MoveResponse(TypedDict):
    """The AI's move (numbered from 1 and as notation), its value, stats and optional
    search tree, as the worker thread reports it."""

    pos: str
    move: Annotated[
        int,
        Field(
            description="deprecated: the move 0-based; use move_number",
            json_schema_extra=DEPRECATED,
        ),
    ]
    move_number: Annotated[
        int,
        Field(description="the move, numbered from 1 as in move strings (a column, or a cell)"),
    ]
    move_label: Annotated[
        str, Field(description="the move in the game's notation ('4', or a numpad cell)")
    ]
    pos_after: str
    value: Stat
    proven: bool | None
    column_scores: list[int | None] | None
    stats: dict[str, StatValue]
    tree: JsonObject | None
    tree_available: Annotated[
        bool, Field(description="whether this player can record a search tree")
    ]
    result: str
    over: bool
    complete: Annotated[
        bool,
        Field(
            description="false when the server's time limit (or the client leaving) cut the "
            "search short: the move is the best found in the time allowed"
        ),
    ]
    reached: Annotated[
        str | None,
        Field(
            description="how far a search cut short got ('depth 9', '120,000 playouts'); "
            "null for a complete one",
            examples=["depth 9"],
        ),
    ]


class OptionInfo(BaseModel):
    """One key of a player spec: what it does, its choices (empty = free), default, and
    a number's bounds (the page clamps a link's values to them)."""

    description: str
    choices: list[str]
    default: str | None
    low: float | None = Field(default=None, description="a number's least value")
    high: float | None = Field(default=None, description="a number's greatest value")
    integer: bool = Field(default=False, description="the number is a whole number")


class KindInfo(BaseModel):
    """A player kind for the page's menus: name, description, games, spec keys."""

    kind: str
    description: str
    games: list[str]
    options: dict[str, OptionInfo]


class PlayersResponse(BaseModel):
    """The player kinds with their options and choices, for the page's menus."""

    games: list[str]
    rules: list[str]
    players: list[KindInfo]
    solver: bool = Field(description="the perfect solver is served (always true: it ships)")


class GameInfo(BaseModel):
    """What the page needs to know about a game to draw it and name its sides."""

    kind: str = Field(examples=["connect4"])
    title: str = Field(examples=["Connect Four"])
    sides: list[str] = Field(examples=[["Red", "Yellow"]])
    width: int = Field(description="default board width")
    height: int = Field(description="default board height")
    notation: str = Field(
        description="the move symbols in order, move number 1 first", examples=["1234567"]
    )
    sizes: list[str] = Field(
        description="the board sizes the server plays, WIDTHxHEIGHT", examples=[["7x6", "6x5"]]
    )


class ServerLimits(BaseModel):
    """What one request may cost here: the page clamps specs from a link to these."""

    move_seconds: float = Field(
        description="the most time an AI move may think: a player's time= beyond it is cut "
        "to it, and any search (depth, playouts, nodes) stops by then with its best move"
    )
    request_seconds: float = Field(description="every request's time limit (503 beyond)")
    deep_jobs_per_client: int = Field(
        description="deep jobs (AI moves, reviews, long solves) one client address may have "
        "running at a time (0: no bound); one more is a 503 at once"
    )


class InfoResponse(BaseModel):
    """The facts the page shares with the server: games, rules, and how classic search
    values encode a finished game (``mate - ply`` for a win at ``ply`` stones)."""

    version: str
    games: list[GameInfo]
    rules: list[str]
    mate: int = Field(description="the classic search's value of a win on the empty board")
    mate_window: int = Field(description="values within this of +-mate score a finished game")
    solver: bool = Field(description="the perfect solver is served (always true: it ships)")
    limits: ServerLimits


class PoolStatus(TypedDict):
    """A worker pool's counters."""

    name: str
    workers: int
    capacity: int
    busy: int
    completed: int
    rejected: int
    timed_out: int


class CacheStatus(TypedDict):
    """The analysis cache's counters."""

    size: int
    entries: int
    hits: int
    misses: int


class HealthResponse(TypedDict):
    """Liveness and the worker pools' and the cache's counters."""

    ok: bool
    version: str
    pools: list[PoolStatus]
    cache: CacheStatus
