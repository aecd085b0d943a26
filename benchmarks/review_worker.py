"""One side of ``bench_review.py``: reviews the games it is sent and prints the seconds.

Reads lines ``KIND MOVES`` on stdin (``KIND``: ``library`` for :func:`connect4.review.review`,
``http`` for ``GET /api/review`` on a server this process runs, ``warm`` for both
untimed) and answers each with the wall seconds on one line. Every game is
solved afresh: the review's score cache is cleared first (the server runs in
this process). It imports whichever ``connect4`` is on ``PYTHONPATH``, so the
benchmark can time two checkouts side by side.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator


@contextlib.contextmanager
def server(http: bool) -> Iterator[object | None]:
    if not http:
        yield None
        return
    import httpx

    from connect4.web import Settings, create_app
    from connect4.web.server import BackgroundServer

    with (
        BackgroundServer(create_app(Settings(threads=2, time_limit=10.0))) as live,
        httpx.Client(base_url=live.url, timeout=60) as client,
    ):
        yield client


def main() -> None:
    from connect4.review import review
    from connect4.review.values import clear_cache

    with server("--http" in sys.argv) as client:
        for line in sys.stdin:
            kind, _, moves = line.strip().partition(" ")
            clear_cache()
            started = time.perf_counter()
            if kind in ("library", "warm"):
                result = review(moves)
                assert all(row.proven for row in result.plies), moves
            if kind in ("http", "warm") and client is not None:
                client.get("/api/review", params={"pos": moves}).raise_for_status()  # type: ignore[attr-defined]
            print(f"{time.perf_counter() - started:.6f}", flush=True)


if __name__ == "__main__":
    main()
