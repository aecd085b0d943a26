"""Run the web app on uvicorn (what ``connect4 serve`` calls).

``run_server(port=8000)`` serves http://127.0.0.1:8000/ until interrupted and
logs one line per request on stderr::

    2026-11-22 01:02:03 127.0.0.1 "GET /solve?pos=4453" 200 1.4 ms
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import sys
import threading
import time

import uvicorn
from fastapi import FastAPI
from starlette.types import ASGIApp
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from connect4.web.app import create_app


class NoDelayHTTPProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol (the httptools C parser: several times less CPU
    per request than the pure-Python h11) with Nagle's algorithm off on every
    connection and JSON answers to requests the parser rejects. uvicorn runs it on
    uvloop where that is installed (``loop="auto"``).

    asyncio only turns ``TCP_NODELAY`` on for sockets created with an explicit
    TCP protocol number; uvicorn's own sockets for ``workers > 1`` (and sockets
    handed over by callers) have none, and then a keep-alive client waits for the
    delayed-ACK timer (about 40 ms) on many answers.
    """

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)  # type: ignore[arg-type]

    def send_400_response(self, msg: str) -> None:
        """A request the HTTP parser rejects gets ``{"error": ...}`` like every other error
        (uvicorn's own answer is plain text); the connection is closed."""
        content = json.dumps({"error": msg}).encode()
        head = [b"HTTP/1.1 400 Bad Request"]
        head += [name + b": " + value for name, value in self.server_state.default_headers]
        head += [
            b"content-type: application/json",
            b"content-length: " + str(len(content)).encode(),
            b"connection: close",
        ]
        self.transport.write(b"\r\n".join(head) + b"\r\n\r\n" + content)
        self.transport.close()


def configure_logging(level: int = logging.INFO) -> None:
    """Request lines of ``connect4.web`` on stderr with a timestamp."""
    logger = logging.getLogger("connect4.web")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S"))
        logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False


OPTIONS_VARIABLE = "CONNECT4_WEB_OPTIONS"


def check_address(host: str, port: int) -> None:
    """Raise ``OSError`` with a plain message when ``host:port`` cannot be listened on."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise OSError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise OSError(f"cannot listen on {host}:{port}: {error.strerror}") from None


def app_from_environment() -> FastAPI:
    """The app built from the JSON options in ``$CONNECT4_WEB_OPTIONS`` (one per worker process)."""
    configure_logging()
    options = json.loads(os.environ.get(OPTIONS_VARIABLE, "{}"))
    return create_app(**options)


def run_server(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    threads: int = 2,
    queue: int = 128,
    time_limit: float = 10.0,
    cache: int = 20_000,
) -> None:
    """Serve the app until interrupted: ``workers`` processes, each with ``threads`` solver
    threads per lane (uvicorn's own access log is replaced by ours)."""
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is out of range 0-65535")
    check_address(host, port)
    configure_logging()
    options = {"threads": threads, "queue": queue, "time_limit": time_limit, "cache_size": cache}
    print(
        f"connect4 web app on http://{host}:{port}/ (API docs at /docs); {workers} process(es), "
        f"{threads} solver threads per lane",
        file=sys.stderr,
    )
    if workers == 1:
        app = create_app(threads=threads, queue=queue, time_limit=time_limit, cache_size=cache)
        uvicorn.run(
            app,
            host=host,
            port=port,
            http=NoDelayHTTPProtocol,
            access_log=False,
            log_level="warning",
        )
        return
    os.environ[OPTIONS_VARIABLE] = json.dumps(options)
    uvicorn.run(
        "connect4.web.server:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=NoDelayHTTPProtocol,
        access_log=False,
        log_level="warning",
    )


class BackgroundServer:
    """The app served by uvicorn in a daemon thread on a free 127.0.0.1 port (tests, benchmarks).

    >>> with BackgroundServer(create_app(threads=1)) as server:  # doctest: +SKIP
    ...     httpx.get(server.url + "/api/health").status_code
    200
    """

    START_SECONDS = 120  # its warm-up on a fresh, busy machine (a test run) takes tens of seconds

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))
        self.host, self.port = self.socket.getsockname()[:2]
        self.url = f"http://{self.host}:{self.port}"
        config = uvicorn.Config(
            app, http=NoDelayHTTPProtocol, access_log=False, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + self.START_SECONDS
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web server did not start in {self.START_SECONDS} s")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()
