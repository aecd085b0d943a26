"""The FastAPI app: the JSON API, the static page, errors as JSON, one log line per request.

>>> app = create_app(threads=1)
>>> sorted(r.path for r in app.routes if r.path.startswith("/api"))
['/api/analyze', '/api/health', '/api/move', '/api/players']

Solves run in two bounded lanes (:class:`~connect4.web.pool.WorkerPool`):
every solve first gets a small node budget in the *quick* lane, and only a
position that needs more moves to the *deep* lane, whose threads run at a
lower OS priority (SCHED_IDLE on Linux). Quick positions (most positions with 20 or more stones)
therefore never wait behind a long solve. AI moves run in the deep lane.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connect4 import __version__
from connect4.core.game import RULES
from connect4.core.position import Position
from connect4.players import describe_players
from connect4.web import service
from connect4.web.models import (
    MAX_POS_CHARS,
    AnalyzeResponse,
    ErrorResponse,
    MoveRequest,
    MoveResponse,
    PlayersResponse,
    SolveResponse,
)
from connect4.web.pool import PoolSaturated, PoolTimeout, WorkerPool

log = logging.getLogger("connect4.web")
MAX_BODY_BYTES = 64 * 1024
QUICK_NODES = 400_000  # quick-lane node budget of a position with >= 20 stones on 7x6 (~40 ms)
QUICK_TABLE_MB = 8  # transposition table of a quick-lane solver (deep lane: 64 MB)
QUICK_AGE = 0.02  # seconds of queue precedence per empty cell fewer (quick lane)
DEEP_AGE = 0.1  # the same in the deep lane
QUICK_NICE = 3  # OS priority of the quick lane's threads below the event loop (deep: idle)

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "bad input (the error names it)"},
    422: {"model": ErrorResponse, "description": "a parameter of the wrong type or size"},
    503: {"model": ErrorResponse, "description": "busy or over the time limit"},
}
Pos = Annotated[
    str,
    Query(max_length=MAX_POS_CHARS, description="move string, e.g. 4453 (1-based columns)"),
]
Width = Annotated[int, Query(ge=1, le=64, description="board width")]
Height = Annotated[int, Query(ge=1, le=64, description="board height")]


def solver_available() -> bool:
    """True when the perfect solver package can be imported."""
    try:
        from connect4.solver import Solver  # noqa: F401
    except ImportError:
        return False
    return True


class RequestLog:
    """ASGI middleware: one log line per request (method, path, status, milliseconds)
    and a 413 for bodies larger than ``MAX_BODY_BYTES``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"0")

        async def send_logged(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        too_large = f"request body too large (at most {MAX_BODY_BYTES} bytes)"
        received = 0

        async def receive_limited() -> Message:
            # A body sent in chunks has no length to check up front: count it.
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise StarletteHTTPException(413, too_large)
            return message

        try:
            if not length.isdigit() or int(length) > MAX_BODY_BYTES:
                await JSONResponse({"error": too_large}, 413)(scope, receive, send_logged)
            else:
                await self.app(scope, receive_limited, send_logged)
        finally:
            query = scope.get("query_string", b"").decode("latin-1")
            path = scope["path"] + (f"?{query}" if query else "")
            client = scope.get("client") or ("-", 0)
            log.info(
                '%s "%s %s" %d %.1f ms',
                client[0],
                scope["method"],
                path,
                status,
                (time.perf_counter() - started) * 1000,
            )


def _validation_message(error: RequestValidationError) -> str:
    """One sentence from pydantic's error list: where and what."""
    parts = []
    for item in error.errors():
        loc = [str(p) for p in item.get("loc", ())]
        if loc and loc[0] in ("query", "body"):
            kind = "query parameter" if loc[0] == "query" else "body field"
            fields = [p for p in loc[1:] if not p.isdigit()]
            where = f"{kind} {'.'.join(fields)}" if fields else f"request {loc[0]}"
        else:
            where = "request"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def create_app(
    *,
    threads: int = 2,
    queue: int = 128,
    time_limit: float = 10.0,
    quick_nodes: int = QUICK_NODES,
    cache_size: int = 20_000,
    warm_up: bool = True,
    deep_threads: int | None = None,
    quick_threads: int | None = None,
    deep_nice: int = 10,
) -> FastAPI:
    """The web app: ``threads`` deep-lane threads (``3 * threads`` quick-lane ones unless
    given), ``queue`` waiting places per lane, ``time_limit`` seconds per request
    (HTTP 503 beyond) and an LRU cache of ``cache_size`` solved positions (0 =
    none). ``warm_up`` compiles the solver and loads the book before the server
    accepts requests."""
    cache = service.AnalysisCache(cache_size)
    # Quick jobs are short: more threads than cores let the OS time-share them, so a
    # cheap position starts at once instead of waiting for a 100k-node job to end.
    # They run one notch below the event loop, which every request goes through.
    quick = WorkerPool(
        "quick",
        workers=quick_threads or 3 * threads,
        queue=queue,
        time_limit=time_limit,
        nice=QUICK_NICE,
    )
    deep = WorkerPool(
        "deep",
        workers=deep_threads or threads,
        queue=queue,
        time_limit=time_limit,
        nice=deep_nice,
        idle=deep_nice > 0,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warm_up and solver_available():
            await asyncio.to_thread(service.warm_up)
        yield
        quick.shutdown()
        deep.shutdown()

    app = FastAPI(
        lifespan=lifespan,
        docs_url=None,  # served below from local files, not a CDN
        redoc_url=None,
        title="connect4",
        version=__version__,
        description="Connect Four and tic-tac-toe: perfect solver, classic AIs, play in the "
        "browser. Positions are move strings: `4453` = columns 4, 4, 5, 3 (1-based).",
    )
    app.state.pools = (quick, deep)
    # Pages on other sites may read the solver (GET), like gamesolver.org's endpoint.
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET"])
    app.add_middleware(RequestLog)

    # ------------------------------------------------------------ errors as JSON
    @app.exception_handler(service.BadRequest)
    async def bad_request(request: Request, error: service.BadRequest) -> JSONResponse:
        return JSONResponse({"error": str(error)}, 400)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _validation_message(error)}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(error.detail)}, error.status_code)

    async def busy(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": str(error)}, 503, headers={"Retry-After": "1"})

    app.add_exception_handler(PoolSaturated, busy)
    app.add_exception_handler(PoolTimeout, busy)
    app.add_exception_handler(service.Unavailable, busy)

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> JSONResponse:
        log.exception("internal error on %s", request.url.path)
        return JSONResponse({"error": f"internal error ({type(error).__name__})"}, 500)

    # ------------------------------------------------------------ solving
    async def solve_position(position: Position) -> service.Analysis:
        if position.rules != "standard":
            raise service.BadRequest("the solver handles the standard rules only, not count-fours")
        service.require_not_over(position)
        if not solver_available():
            raise service.Unavailable("the perfect solver is not installed on this server")
        cached = cache.get(position)
        if cached is not None:
            return cached
        started = time.monotonic()
        # Nearly full boards are cheap: each empty cell costs a waiting job QUICK_AGE
        # (DEEP_AGE) seconds of precedence, so cheap positions overtake expensive ones
        # while no job waits more than a bounded extra time.
        empty = position.size - position.ply
        # Positions at least 20/42 full fit the budget (every such position of Pons'
        # sets needs <= 300k nodes to analyse). A position with fewer stones that is
        # not done within a few milliseconds usually needs far more: it gets a
        # twentieth of the budget, less quick-lane time thrown away.
        budget = quick_nodes if 21 * position.ply >= 10 * position.size else quick_nodes // 20
        analysis = await quick.run_ranked(
            started + empty * QUICK_AGE,
            functools.partial(
                service.analyze_position,
                position,
                max_seconds=time_limit,
                max_nodes=budget,
                table_megabytes=QUICK_TABLE_MB,
            ),
        )
        if not analysis.complete:
            now = time.monotonic()
            left = time_limit - (now - started)
            if left <= 0:
                raise service.TimeLimitExceeded("time limit exceeded before the deep solve")
            analysis = await deep.run_ranked(
                now + empty * DEEP_AGE,
                functools.partial(service.analyze_position, position, max_seconds=left),
            )
            if not analysis.complete:
                raise service.TimeLimitExceeded(
                    f"time limit exceeded: the solver stopped after {time_limit:g} s "
                    f"({analysis.nodes} nodes) without an exact answer"
                )
        cache.put(position, analysis)
        return analysis

    def connect4_position(pos: str, width: int, height: int) -> Position:
        game = service.parse_position(pos, "connect4", width, height, "standard")
        assert isinstance(game, Position)
        return game

    @app.get("/solve", response_model=SolveResponse, responses=ERRORS, tags=["solver"])
    async def solve(pos: Pos = "", width: Width = 7, height: Height = 6) -> JSONResponse:
        """Every column's score, 100 for a full column: the shape of gamesolver.org's API."""
        analysis = await solve_position(connect4_position(pos, width, height))
        scores = [service.FULL_COLUMN if s is None else s for s in analysis.column_scores]
        # The hot path: a ready response skips re-validating what we just built.
        return JSONResponse({"pos": pos, "score": scores})

    @app.get("/api/analyze", response_model=AnalyzeResponse, responses=ERRORS, tags=["solver"])
    async def analyze(pos: Pos = "", width: Width = 7, height: Height = 6) -> AnalyzeResponse:
        """The position's score, every column's score, the best moves, nodes and seconds."""
        position = connect4_position(pos, width, height)
        analysis = await solve_position(position)
        ply = position.ply
        return AnalyzeResponse(
            pos=pos,
            width=width,
            height=height,
            ply=ply,
            to_move=position.to_move,
            score=analysis.score,
            score_text=service.score_label(analysis.score, ply, width, height),
            column_scores=analysis.column_scores,
            column_texts=[
                None if s is None else service.score_label(s, ply, width, height)
                for s in analysis.column_scores
            ],
            best_moves=[c + 1 for c in analysis.best_moves()],
            nodes=analysis.nodes,
            seconds=analysis.seconds,
            complete=analysis.complete,
        )

    # ------------------------------------------------------------ players
    @app.post("/api/move", response_model=MoveResponse, responses=ERRORS, tags=["players"])
    async def move(request: MoveRequest) -> MoveResponse:
        """The AI's move in a position: move, value, stats and (classic AIs) the search tree."""
        width, height = (3, 3) if request.game == "tictactoe" else (request.width, request.height)
        position = service.parse_position(request.pos, request.game, width, height, request.rules)
        service.require_not_over(position)
        service.check_spec(request.player)
        answer = await deep.run(
            service.choose_move,
            request.game,
            position,
            request.player,
            width=width,
            height=height,
            rules=request.rules,
            want_tree=request.tree,
            deadline=time.monotonic() + time_limit,
        )
        return MoveResponse(**answer)

    @app.get("/api/players", response_model=PlayersResponse, tags=["players"])
    async def players() -> PlayersResponse:
        """The player kinds, their options and choices (``human`` moves in the page)."""
        kinds = [kind for kind in describe_players() if kind["kind"] not in service.FORBIDDEN_KINDS]
        return PlayersResponse(
            games=list(service.GAMES),
            rules=list(RULES),
            players=kinds,
            solver=solver_available(),
        )

    @app.get("/api/health", tags=["server"])
    async def health() -> dict[str, Any]:
        """Liveness and the worker pools' counters."""
        return {
            "ok": True,
            "version": __version__,
            "pools": [quick.status(), deep.status()],
            "cache": cache.status(),
        }

    # ------------------------------------------------------------ the page
    static = resources.files("connect4.web") / "static"

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(str(static / "index.html"), media_type="text/html")

    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    mount_api_docs(app)
    return app


def mount_api_docs(app: FastAPI) -> None:
    """The OpenAPI docs at ``/docs`` (Swagger UI) and ``/redoc`` from the files of
    the ``fastapi-offline`` package, not a CDN: they work without the internet."""
    files = resources.files("fastapi_offline") / "static"
    app.mount("/docs-files", StaticFiles(directory=str(files)), name="docs-files")
    title = f"{app.title} API"

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title=title,
            swagger_js_url="/docs-files/swagger-ui-bundle.js",
            swagger_css_url="/docs-files/swagger-ui.css",
            swagger_favicon_url="/docs-files/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url="/openapi.json",
            title=title,
            redoc_js_url="/docs-files/redoc.standalone.js",
            redoc_favicon_url="/docs-files/favicon.png",
            with_google_fonts=False,
        )
