"""Every error as JSON ``{"error": message}``: 400 bad input, 422 a malformed request,
503 busy or over the time limit (with ``Retry-After``), 500 anything unexpected.

One handler each: bad input is a :class:`~connect4.core.errors.Connect4Error`
(400), work stopped before any answer (a limit, a cancelled request, a busy
server) a :class:`~connect4.core.errors.Stopped` (503, and a stopping server's
own message: :class:`ServerStopping`); the two never overlap, so no route
wraps errors itself.

>>> from fastapi import FastAPI
>>> app = FastAPI()
>>> install(app)
>>> names = sorted(getattr(k, "__name__", k) for k in app.exception_handlers)
>>> names[:6]  # doctest: +NORMALIZE_WHITESPACE
['Connect4Error', 'Exception', 'HTTPException', 'RequestValidationError',
 'ServerStopping', 'Stopped']
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from connect4.core.errors import BudgetExceeded, Connect4Error, Stopped
from connect4.web.models import ErrorResponse

log = logging.getLogger("connect4.web")


class BadRequest(Connect4Error):
    """Input the client got wrong that only the web refuses (a board not served, a
    player kind it never runs); the message says what (HTTP 400)."""


class Unavailable(BudgetExceeded):
    """The server cannot answer now: busy or over the time limit (HTTP 503)."""


class TimeLimitExceeded(Unavailable):
    """The work did not finish within the request's time limit (HTTP 503)."""


class ServerStopping(Unavailable):
    """The server is stopping: a request's work was cancelled (HTTP 503; the app's
    ``state.cancelled`` counts them)."""


RESPONSES: dict[int | str, dict[str, object]] = {
    400: {"model": ErrorResponse, "description": "bad input (the error names it)"},
    422: {"model": ErrorResponse, "description": "a parameter of the wrong type or size"},
    503: {"model": ErrorResponse, "description": "busy or over the time limit"},
}
"""The error answers every API route documents."""


def validation_message(error: RequestValidationError) -> str:
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


async def bad_request(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"error": str(error)}, 400)


async def invalid(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    return JSONResponse({"error": validation_message(error)}, 422)


async def http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, StarletteHTTPException)
    return JSONResponse({"error": str(error.detail)}, error.status_code, headers=error.headers)


async def busy(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"error": str(error)}, 503, headers={"Retry-After": "1"})


async def stopping(request: Request, error: Exception) -> JSONResponse:
    request.app.state.cancelled = getattr(request.app.state, "cancelled", 0) + 1
    return await busy(request, error)


async def internal(request: Request, error: Exception) -> JSONResponse:
    log.exception("internal error on %s", request.url.path)
    return JSONResponse({"error": f"internal error ({type(error).__name__})"}, 500)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into a JSON answer."""
    app.add_exception_handler(Connect4Error, bad_request)
    app.add_exception_handler(Stopped, busy)
    app.add_exception_handler(ServerStopping, stopping)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, internal)
