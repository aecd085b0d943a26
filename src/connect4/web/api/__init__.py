"""The service object behind the routes: settings, the worker lanes, the analysis cache.

Every route is a few lines that hand its input to one :class:`Api` method
(FastAPI injects the app's instance through :data:`ApiDep`). The methods
validate each request once, on the event loop (the game, the board served, a game
not over, the player spec), and hand typed input to :mod:`connect4.web.service`.
Each family of requests is a module of its own over the shared lanes
(:mod:`~connect4.web.api.lanes`): the solver, the players, the review, the
server's facts, the opening explorer, the threat map,
practice and puzzles; :class:`Api` joins them.

The scheduling, in three sentences. Quick answers (a solve within a bounded
node count) run on a pool of threads one notch below the event loop (nice +3).
Deep work (a solve past that count, AI moves, reviews) runs on a second,
smaller pool of threads at nice +10, each job ended by its request's
:class:`~connect4.core.limits.Limit` (deadline, client gone, server stopping)
and capped per client address. Both pools are bounded
(:class:`~connect4.web.pool.WorkerPool`): a request beyond the bound gets a 503
at once. Every job runs once, in one pool: quick positions (most positions with
20 or more stones) never wait behind a long solve, and deep work gets its share
of a machine that other programs keep busy.

Every request has a :class:`~connect4.core.limits.Limit` of the time limit
(:meth:`Api.limit`): the pool waits for its job under it, and sets its flag
when the request times out or the client goes away. The job works under a
child of it (:meth:`Api.working`) whose deadline is the time limit less
:func:`answer_margin` (time to answer), so a job stops within a tenth of a
second and frees its slot, with its best found answered in time. A player's
own time, depth or playouts never outlast it: a move cut short is the best
found (``complete`` false).
Deep work is bounded per client address (:class:`ClientGate`), so one client
cannot hold every deep worker. Every request's limit is a child of the server's
own (:meth:`Api.halt`): a server that stops cancels all work in flight at once,
and those requests are answered 503 (:class:`ServerStopping`).

>>> import asyncio
>>> api = Api(Settings(threads=1, warm_up=False))
>>> asyncio.run(api.analyze("4455")).best_moves
[3, 6]
>>> from connect4.core.games import Board
>>> asyncio.run(api.analyze("7182", Board("tictactoe"))).score_text
'win in 1'
>>> api.stop()
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from connect4.web.api.explore import ExploreRequests
from connect4.web.api.lanes import DEEP_NICE, QUICK_NICE, Lanes
from connect4.web.api.players import PlayerRequests, check_spec
from connect4.web.api.practice import PracticeRequests
from connect4.web.api.puzzles import PuzzleRequests
from connect4.web.api.review import ReviewRequests
from connect4.web.api.server import ServerRequests
from connect4.web.api.solver import SolverRequests
from connect4.web.api.threats import ThreatRequests
from connect4.web.clients import Caller
from connect4.web.settings import Settings

__all__ = [
    "DEEP_NICE",
    "QUICK_NICE",
    "Api",
    "ApiDep",
    "CallerDep",
    "Lanes",
    "Settings",
    "check_spec",
]


class Api(
    SolverRequests,
    PlayerRequests,
    PracticeRequests,
    ReviewRequests,
    ServerRequests,
    ExploreRequests,
    ThreatRequests,
    PuzzleRequests,
):
    """The web API's work: one method per endpoint, over the worker lanes and a cache.
    Each family of requests is a :class:`~connect4.web.api.lanes.Lanes` of its own
    module; a new family is a new module and one more base here."""


async def get_api(request: Request) -> Api:
    """The app's :class:`Api` (a dependency: routes declare a parameter of type ``ApiDep``)."""
    api: Api = request.app.state.api
    return api


async def get_caller(request: Request) -> Caller:
    """Who sent ``request``: its client address and whether it went away."""
    return Caller(request.client.host if request.client else "", request.is_disconnected)


ApiDep = Annotated[Api, Depends(get_api)]
CallerDep = Annotated[Caller, Depends(get_caller)]
