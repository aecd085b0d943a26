"""The HTTP routes, one router per concern; each handler hands its input to the
:class:`~connect4.web.api.Api` service object.

>>> [router.tags for router in ROUTERS]
[['solver'], ['review'], ['practice'], ['explore'], ['threats'], ['players'], ['server'], []]
"""

from __future__ import annotations

from connect4.web.routes import (
    explore,
    page,
    players,
    practice,
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
    players.router,
    server.router,
    page.router,
]

__all__ = ["ROUTERS"]
