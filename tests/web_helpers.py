"""The web app served for a test: a real uvicorn on a free 127.0.0.1 port, its answers read.

The shared fixtures (``web_url``, ``client``, ``browser``, ``page``) are in conftest.py and
use these; a test that needs a server of other settings opens its own with
:func:`live_server` or :func:`live_client`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from tests.cli_helpers import wait_for as wait_for  # (re-exported: the web tests poll with it)

# The settings of the shared server; a test module may name its own in ``WEB_SETTINGS``.
WEB_SETTINGS: dict[str, Any] = {"threads": 2, "time_limit": 20.0}


def web_app(**settings: Any) -> Any:
    """The web app working by ``Settings(**settings)``."""
    from connect4.web import Settings, create_app

    return create_app(Settings(**settings))


@contextmanager
def live_server(app: Any = None, **settings: Any) -> Iterator[str]:
    """The URL of ``app`` (else ``web_app(**settings)``) served until the block ends."""
    from connect4.web.server import BackgroundServer

    with BackgroundServer(app if app is not None else web_app(**settings)) as live:
        yield live.url


@contextmanager
def live_client(timeout: float = 60, **settings: Any) -> Iterator[httpx.Client]:
    """An httpx client on a server of ``web_app(**settings)``, for the block's length."""
    with live_server(**settings) as url, httpx.Client(base_url=url, timeout=timeout) as http:
        yield http


def error_of(response: httpx.Response, status: int | tuple[int, ...]) -> str:
    """Check a JSON error answer (status, JSON body, no traceback) and return its message."""
    allowed = status if isinstance(status, tuple) else (status,)
    assert response.status_code in allowed, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert "Traceback" not in body["error"]
    return str(body["error"])


def deep_busy(url: str) -> int:
    """How many jobs the server's deep lane is running now."""
    pools = httpx.get(url + "/api/health", timeout=10).json()["pools"]
    return int(next(pool["busy"] for pool in pools if pool["name"] == "deep"))
