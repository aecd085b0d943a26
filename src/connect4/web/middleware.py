"""ASGI middleware: one log line per request and a 413 for bodies that are too large.

>>> MAX_BODY_BYTES
65536
"""

from __future__ import annotations

import logging
import time

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("connect4.web")
MAX_BODY_BYTES = 64 * 1024


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
