"""ASGI middleware: one log line per request, a 413 for bodies that are too large,
and every error answer as JSON.

>>> MAX_BODY_BYTES, MAX_DRAIN_BYTES
(65536, 16777216)
>>> error_text(416, b"")
'Requested Range Not Satisfiable'
>>> error_text(400, b"Disallowed CORS method")
'Disallowed CORS method'
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from http import HTTPStatus

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("connect4.web")
MAX_BODY_BYTES = 64 * 1024
# A body over the limit is read and thrown away (up to this much, for this long) before
# the 413 goes out: a client that sends its whole body before reading the answer then
# gets the answer instead of a connection reset.
MAX_DRAIN_BYTES = 16 * 1024 * 1024
DRAIN_SECONDS = 10.0
CLOSE = {"Connection": "close"}


async def drain(receive: Receive, limit: int = MAX_DRAIN_BYTES) -> bool:
    """Read and discard the rest of a request body (at most ``limit`` bytes, at most
    ``DRAIN_SECONDS``); True when the whole body was read."""
    seen = 0
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return False  # the client went away
                seen += len(message.get("body", b""))
                if not message.get("more_body", False):
                    return True
                if seen > limit:
                    return False
    except TimeoutError:
        return False


class HttpMiddleware:
    """ASGI middleware that acts on HTTP requests (:meth:`http`) and passes every
    other scope (lifespan, websockets) to the app unchanged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one HTTP request (this default: the app's answer)."""
        await self.app(scope, receive, send)


class RequestLog(HttpMiddleware):
    """ASGI middleware: one log line per request (method, path, status, milliseconds)
    and a 413 for bodies larger than ``MAX_BODY_BYTES``, declared or sent in chunks.

    The 413 closes the connection; the body is drained first (up to
    ``MAX_DRAIN_BYTES``) unless the client waits for ``100 Continue`` before sending it.
    """

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        status = 500
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"0")
        waits_to_send = headers.get(b"expect", b"").lower() == b"100-continue"

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
                    if message.get("more_body", False):
                        await drain(receive, MAX_DRAIN_BYTES - received)
                    raise StarletteHTTPException(413, too_large, headers=CLOSE)
            return message

        try:
            if not length.isdigit() or int(length) > MAX_BODY_BYTES:
                if length.isdigit() and int(length) <= MAX_DRAIN_BYTES and not waits_to_send:
                    await drain(receive)
                response = JSONResponse({"error": too_large}, 413, headers=CLOSE)
                await response(scope, receive, send_logged)
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


def error_text(status: int, body: bytes) -> str:
    """The sentence of a plain-text error answer, or the status's name when it has none."""
    text = body.decode("utf-8", "replace").strip()
    if text and len(text) <= 200 and text.isprintable():
        return text
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP error {status}"


class JsonErrors(HttpMiddleware):
    """ASGI middleware: an error answer (status >= 400) that is not JSON, such as the
    CORS middleware's refused preflight or a static file's bad ``Range``, is sent as
    ``{"error": its text}`` with the same status and other headers."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        held: Message | None = None
        body = bytearray()

        async def send_json(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                content_type = dict(message.get("headers", [])).get(b"content-type", b"")
                if message["status"] >= 400 and b"json" not in content_type:
                    held = message  # rewritten once its body is complete
                    return
            elif held is not None and message["type"] == "http.response.body":
                if len(body) <= 1024:
                    body.extend(message.get("body", b"")[:1025])
                if message.get("more_body", False):
                    return
                await send_error(send, held, bytes(body))
                return
            await send(message)

        await self.app(scope, receive, send_json)


async def send_error(send: Send, start: Message, body: bytes) -> None:
    """Send an error answer's start message again with ``{"error": text}`` as its body."""
    status = start["status"]
    content = json.dumps({"error": error_text(status, body)}).encode()
    kept = [
        (name, value)
        for name, value in start.get("headers", [])
        if name.lower() not in (b"content-type", b"content-length")
    ]
    headers = [
        *kept,
        (b"content-type", b"application/json"),
        (b"content-length", str(len(content)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})
