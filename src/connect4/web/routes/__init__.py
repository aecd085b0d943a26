"""The HTTP routes, one router per concern; each handler hands its input to the
:class:`~connect4.web.api.Api` service object.

>>> [router.tags for router in ROUTERS]  # doctest: +NORMALIZE_WHITESPACE
[['solver'], ['review'], ['practice'], ['explore'], ['threats'], ['puzzles'], ['players'],
 ['server'], []]
"""

from __future__ import annotations

from connect4.web.routes import (
    explore,
    page,
    players,
    practice,
    puzzles,
    review,
    server,
    solver,
    threats,
)

ROUTERS = [
    solver.router,
    review.router,
    practice.router,
    explore.router,
    threats.router,
    puzzles.router,
    players.router,
    server.router,
    page.router,
]

__all__ = ["ROUTERS"]
