"""The HTTP routes, one router per concern; each handler hands its input to the
:class:`~connect4.web.api.Api` service object.

>>> [router.tags for router in ROUTERS]
[['solver'], ['review'], ['explore'], ['players'], ['server'], []]
"""

from __future__ import annotations

from connect4.web.routes import explore, page, players, review, server, solver

ROUTERS = [
    solver.router,
    review.router,
    explore.router,
    players.router,
    server.router,
    page.router,
]

__all__ = ["ROUTERS"]
