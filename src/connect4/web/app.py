"""The FastAPI app: the routers over one :class:`~connect4.web.api.Api`, errors as JSON,
one log line per request, the page and the API docs.

>>> app = create_app(Settings(threads=1))
>>> paths = sorted(path for path in app.openapi()["paths"] if path.startswith("/api"))
>>> paths  # doctest: +NORMALIZE_WHITESPACE
['/api/analyze', '/api/explore', '/api/health', '/api/info', '/api/move', '/api/players',
 '/api/policy', '/api/practice', '/api/puzzle', '/api/puzzle/attempt', '/api/review',
 '/api/threats']
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import FrameType

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from connect4.core.version import __version__
from connect4.web import errors
from connect4.web.api import Api
from connect4.web.middleware import JsonErrors, RequestLog
from connect4.web.routes import ROUTERS
from connect4.web.routes.page import mount_files
from connect4.web.settings import Settings


def create_app(settings: Settings | None = None, *, halt_on_signals: bool = False) -> FastAPI:
    """The web app working by ``settings`` (the defaults if none); ``halt_on_signals``:
    a worker process of a multi-process server, where the first SIGINT or SIGTERM
    cancels the work in flight (:func:`halt_on_exit_signals`)."""
    api = Api(settings or Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await api.start()
        if halt_on_signals:
            halt_on_exit_signals(api)
        yield
        api.stop()

    app = FastAPI(
        lifespan=lifespan,
        docs_url=None,  # served by the page router from local files, not a CDN
        redoc_url=None,
        title="connect4",
        version=__version__,
        description="Connect Four and tic-tac-toe: perfect solver, classic AIs, play in the "
        "browser. Positions are move strings: `4453` = columns 4, 4, 5, 3 (1-based).",
    )
    app.state.api = api
    # Pages on other sites may read the solver (GET), like gamesolver.org's endpoint.
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET"])
    app.add_middleware(JsonErrors)  # outside CORS: its refusals are plain text
    app.add_middleware(RequestLog)
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    mount_files(app)
    return app


def halt_on_exit_signals(api: Api) -> None:
    """Make SIGINT and SIGTERM cancel every request's work (:meth:`Api.halt`: their
    clients get 503 at once) before the handler already installed (uvicorn's, which
    closes the connections and waits for the answers) runs. Called while the server
    runs, on the main thread, in each worker process of a multi-process server (one
    process serves through :class:`connect4.web.server.Server`, which does this too)."""
    for number in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(number)

        def handler(sig: int, frame: FrameType | None, previous: object = previous) -> None:
            api.halt()
            if callable(previous):
                previous(sig, frame)

        signal.signal(number, handler)
