"""What every test shares: a cache root of the test run's own.

No test writes into the user's caches. Unless the caller names one, the run's
cache root is ``.c4cache-test/`` in the checkout (``make test`` compiles into
it first with ``connect4 prepare``), and numba's caches sit in its ``numba/``
folder; a test that points ``CONNECT4_CACHE_DIR`` at a fresh folder still
finds numba's compiled functions there, so only the files it tests are cold.
"""

from __future__ import annotations

import os
from pathlib import Path

TEST_CACHE = Path(__file__).resolve().parents[1] / ".c4cache-test"

if not os.environ.get("CONNECT4_CACHE_DIR"):
    TEST_CACHE.mkdir(mode=0o700, exist_ok=True)
    os.environ["CONNECT4_CACHE_DIR"] = str(TEST_CACHE)
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.environ["CONNECT4_CACHE_DIR"], "numba"))
