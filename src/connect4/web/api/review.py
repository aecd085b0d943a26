"""The game review's request: every move of a game graded by exact scores, a
Connect Four game's move solves shared out over every deep-lane thread."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING

from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.limits import Limit, clock
from connect4.core.position import Position
from connect4.web import service
from connect4.web.api.lanes import Lanes
from connect4.web.clients import Caller
from connect4.web.errors import BadRequest, TimeLimitExceeded
from connect4.web.models import ReviewResponse
from connect4.web.pool import Gone

if TYPE_CHECKING:
    from connect4.review import Review
    from connect4.review.work import TaskKey

REVIEW_SHARE = 0.9  # of the time limit a review may use before it stops (then: 503)


class ReviewRequests(Lanes):
    """``/api/review``: a game graded move by move, a 503 where it cannot be settled."""

    async def review(
        self, pos: str, board: Board = DEFAULT_BOARD, caller: Caller | None = None
    ) -> ReviewResponse:
        """Every move of the game ``pos`` graded by exact scores (deep lane).

        A game the solver cannot settle within the time limit is a 503, never a guess.
        """
        result = await self.reviewed(pos, board, self.limit(), caller)
        return ReviewResponse.model_validate(result.as_dict())

    async def reviewed(
        self, pos: str, board: Board, request: Limit, caller: Caller | None = None
    ) -> Review:
        """The review of the game ``pos`` within the ``request``'s limit, every move
        proven (a 503 where one is not: never a guess)."""
        position = self.parse(pos, board)
        if position.rules != "standard":
            raise BadRequest(
                "the solver handles the standard rules only: count-fours games cannot be reviewed"
            )
        time_limit = self.settings.time_limit
        # The review stops a little before the lane's own limit, so the answer says
        # how far it got rather than only that the time ran out.
        limit = request.tighter(REVIEW_SHARE * time_limit)
        await self.require_kernel(board, limit)
        gone = None if caller is None else caller.gone
        with self.clients.turn(caller):
            if isinstance(position, Position):
                result = await self.review_connect4(position, limit, request, gone)
            else:
                result = await self.run_deep(
                    clock(),
                    lambda attempt: service.review_game(position, limit=attempt),
                    limit,
                    request,
                    gone,
                )
        self.check_running()
        unproven = [row.ply for row in result.plies if not row.proven]
        if unproven:
            raise TimeLimitExceeded(
                f"time limit exceeded: {len(unproven)} of {len(result.plies)} positions "
                f"(from ply {unproven[0]}) were not solved within {time_limit:g} s"
            )
        return result

    async def review_connect4(
        self, position: Position, limit: Limit, request: Limit, gone: Gone | None = None
    ) -> Review:
        """A Connect Four review solved by every deep-lane thread at once: each job
        takes the game's move solves one by one (the dearest first) from a shared
        queue until none is left, so a lone review uses both cores and a busy
        server still serves other requests between reviews' jobs. The played moves
        the next position did not settle are solved after, the same way; a task
        left when ``limit`` (a child of the ``request``'s) runs out is unsettled."""
        work = await self.stoppable(self.deep.run(request, service.review_work, position))
        results: dict[TaskKey, int | None] = {}
        for stage in (work.dearest_first(), None):
            tasks = list(work.missing(results) if stage is None else stage)
            queue = deque(tasks)
            if queue and not limit.expired():
                jobs = min(self.deep.workers, len(queue))
                drain = work.drainer(queue, results)
                await asyncio.gather(
                    *(self.run_deep(clock(), drain, limit, request, gone) for _ in range(jobs))
                )
            results.update((task.key, None) for task in tasks if task.key not in results)
        return service.review_from_scores(position, work.move_scores(results))
