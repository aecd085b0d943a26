"""What every test shares: a cache root of the test run's own, and the served web app.

No test writes into the user's caches. Unless the caller names one, the run's
cache root is ``.c4cache-test/`` in the checkout (``make test`` compiles into
it first with ``connect4 prepare``), and numba's caches sit in its ``numba/``
folder; a test that points ``CONNECT4_CACHE_DIR`` at a fresh folder still
finds numba's compiled functions of the package's modules there. Not those of a
board's generated kernel module (``kernels/`` under the cache root): made under
the fresh root, it is a new file to numba and compiles anew (30-40 s), unless
the process made it before the switch (a process makes each kernel once).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser_helpers import tab_at
from tests.web_helpers import WEB_SETTINGS, live_server

TEST_CACHE = Path(__file__).resolve().parents[1] / ".c4cache-test"

if not os.environ.get("CONNECT4_CACHE_DIR"):
    TEST_CACHE.mkdir(mode=0o700, exist_ok=True)
    os.environ["CONNECT4_CACHE_DIR"] = str(TEST_CACHE)
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.environ["CONNECT4_CACHE_DIR"], "numba"))
# Two test workers share two cores: PyTorch's OpenMP threads (two a process by default)
# spin at every operation's barrier while the other worker holds a core, which made a
# 3-second training test take 45 seconds. One thread a process, subprocesses included.
os.environ.setdefault("OMP_NUM_THREADS", "1")


# ------------------------------------------------------------------ the web app, served
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def web_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """One server for a test module: ``WEB_SETTINGS`` (the module's own, if it names any)."""
    settings = getattr(request.module, "WEB_SETTINGS", WEB_SETTINGS)
    with live_server(**settings) as url:
        yield url


@pytest.fixture(scope="module")
def client(web_url: str) -> Iterator[httpx.Client]:
    """An httpx client on the module's server."""
    with httpx.Client(base_url=web_url, timeout=60) as http:
        yield http


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium, driven by Playwright (skipped where it is not installed)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed: run `make chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, web_url: str) -> Iterator[Any]:
    """A tab of the module's server at 1280x900, with no JavaScript error allowed."""
    yield from tab_at(browser, web_url, {"width": 1280, "height": 900})
