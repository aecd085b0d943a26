"""Run the web app on uvicorn (what ``connect4 serve`` calls).

``run_server(Settings(), port=8000)`` serves http://127.0.0.1:8000/ until interrupted and
logs one line per request on stderr::

    2026-11-22 01:02:03 127.0.0.1 "GET /solve?pos=4453" 200 1.4 ms

It says it is warming up, and that it is ready only once it accepts connections.
The first Ctrl-C (or SIGTERM) cancels the work in flight, whose clients get a
503, and the server ends within a moment; a second Ctrl-C ends it at once. The
children that compile the solver for big boards end with it, even on SIGKILL.
A client's address is the connection's peer: an ``X-Forwarded-For`` header is
believed only from the proxies named in ``forwarded_allow_ips``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

import uvicorn
from fastapi import FastAPI
from starlette.types import ASGIApp
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from connect4.core.limits import Limit
from connect4.solver.backend import tie_background_compiles
from connect4.web.api import Api
from connect4.web.app import create_app
from connect4.web.settings import Settings


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


SETTINGS_VARIABLE = "CONNECT4_WEB_SETTINGS"  # a worker process's settings, as their JSON


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
    """A worker process's app, by the settings its server wrote into
    ``$CONNECT4_WEB_SETTINGS`` (:meth:`Settings.to_json`)."""
    configure_logging()
    tie_background_compiles()
    settings = Settings.from_json(os.environ.get(SETTINGS_VARIABLE, "{}"))
    return create_app(settings, halt_on_signals=True)


def server_options(forwarded_allow_ips: str = "") -> dict[str, Any]:
    """uvicorn's settings for the app: our HTTP protocol and request log, and proxy
    headers (``X-Forwarded-For``, ``X-Forwarded-Proto``) believed only from the
    comma-separated addresses ``forwarded_allow_ips`` ("": none, where uvicorn would
    trust 127.0.0.1; ``*``: any), so a client cannot pose as another one (deep work
    is bounded per client address).

    >>> server_options()["proxy_headers"], server_options("10.0.0.1")["forwarded_allow_ips"]
    (False, '10.0.0.1')
    """
    trusted = forwarded_allow_ips.strip()
    return {
        "http": NoDelayHTTPProtocol,
        "access_log": False,
        "log_level": "warning",
        "proxy_headers": bool(trusted),
        "forwarded_allow_ips": trusted or None,
    }


class Server(uvicorn.Server):
    """uvicorn's server as ``connect4 serve`` runs it (one process).

    It prints its ready line once it accepts connections (the warm-up before can
    take a minute on a machine that has not compiled the searches yet). The first
    SIGINT or SIGTERM cancels every request's work (:meth:`Api.halt`: their
    clients get 503), lets uvicorn close the connections and prints one line (how
    many requests it cancelled); a second signal, or one during the warm-up, ends
    the process at once (:func:`os._exit`: compiled code is not waited for;
    nothing of ours is written to disk).
    """

    def __init__(self, config: uvicorn.Config, app: FastAPI, banner: str) -> None:
        super().__init__(config)
        self.api: Api = app.state.api
        self.state = app.state  # its ``cancelled``: the requests answered "stopping"
        self.state.cancelled = 0
        self.banner = banner  # the ready line, with {url}
        self.stopped_by = 0  # the signal that stopped the server (0: none yet)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.stopped_by or not self.started:
            # os.write: a signal handler must not print through a buffered stream.
            what = "stopped while warming up" if not self.started else "stopped at once"
            os.write(sys.stderr.fileno(), f"connect4 web app: {what}\n".encode())
            os._exit(128 + (self.stopped_by or sig))
        self.stopped_by = sig
        self.api.halt()  # thread-safe: it sets the stop flag the work reads
        self.should_exit = True

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """:meth:`handle_exit` on SIGINT and SIGTERM while the server runs (uvicorn's own
        raises the signal again afterwards: a traceback for a KeyboardInterrupt)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        signals = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            print(self.banner.format(url=self.url()), file=sys.stderr, flush=True)

    def url(self) -> str:
        """The address it listens on (the port the system chose for port 0)."""
        host, port = self.config.host, self.config.port
        for server in getattr(self, "servers", []):
            for sock in server.sockets or ():
                host, port = sock.getsockname()[:2]
                break
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/"

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's (it waits for the answers in flight), then the one line saying how
        many requests the stop cancelled."""
        await super().shutdown(sockets=sockets)
        if self.stopped_by:
            count = self.state.cancelled
            requests = "request" if count == 1 else "requests"
            print(f"stopping: {count} {requests} cancelled", file=sys.stderr, flush=True)


def run_server(
    settings: Settings,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    forwarded_allow_ips: str = "",
) -> None:
    """Serve the app working by ``settings`` until interrupted, in ``workers``
    processes (uvicorn's own access log is replaced by ours); proxy headers are
    believed from ``forwarded_allow_ips`` only (:func:`server_options`). With one
    process, a signal ends the process here (exit status 128 + its number)."""
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is out of range 0-65535")
    check_address(host, port)
    configure_logging()
    tie_background_compiles()  # a big board's compile ends with the server
    banner = (
        f"connect4 web app on {{url}} (API docs at /docs); {workers} process(es), "
        f"{settings.threads} solver threads per lane"
    )
    if workers == 1:
        print(
            "connect4 web app: warming up (loading the solver and the compiled searches; "
            "the first time on a machine they compile, up to a minute)...",
            file=sys.stderr,
            flush=True,
        )
        app = create_app(settings)
        config = uvicorn.Config(app, host=host, port=port, **server_options(forwarded_allow_ips))
        server = Server(config, app, banner)
        server.run()
        if server.stopped_by:  # no thread left behind (a kernel's load) holds the exit up
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(128 + server.stopped_by)
        return
    print(banner.format(url=f"http://{host}:{port}/"), file=sys.stderr, flush=True)
    os.environ[SETTINGS_VARIABLE] = settings.to_json()
    uvicorn.run(
        "connect4.web.server:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        **server_options(forwarded_allow_ips),
    )


class BackgroundServer:
    """The app served by uvicorn in a daemon thread on a free 127.0.0.1 port (tests, benchmarks).

    >>> with BackgroundServer(create_app(Settings(threads=1))) as server:  # doctest: +SKIP
    ...     httpx.get(server.url + "/api/health").status_code
    200
    """

    START_SECONDS = 120  # its warm-up on a fresh, busy machine (a test run) takes tens of seconds

    def __init__(
        self,
        app: ASGIApp,
        host: str = "127.0.0.1",
        port: int = 0,
        forwarded_allow_ips: str = "",
    ) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))
        self.host, self.port = self.socket.getsockname()[:2]
        self.url = f"http://{self.host}:{self.port}"
        config = uvicorn.Config(app, lifespan="on", **server_options(forwarded_allow_ips))
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        starting = Limit.within(self.START_SECONDS)
        while not self.server.started:
            if not self.thread.is_alive() or starting.expired():
                raise RuntimeError(f"the web server did not start in {self.START_SECONDS} s")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()
