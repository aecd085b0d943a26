"""The solver's requests: a position's exact analysis (cached, else the quick lane,
else the deep lane), every column's score, a small game's full search, and the
learned network's view of a position."""

from __future__ import annotations

import functools

from connect4.core.game import Game
from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.limits import clock
from connect4.core.position import Position
from connect4.core.score import score_label
from connect4.web import service
from connect4.web.api.lanes import Lanes, require_not_over
from connect4.web.clients import Caller
from connect4.web.errors import BadRequest, TimeLimitExceeded
from connect4.web.models import AnalyzeResponse, PolicyResponse

QUICK_TABLE_MB = 8  # transposition table of a quick-lane solver (deep lane: 64 MB)
QUICK_AGE = 0.02  # seconds of queue precedence per empty cell fewer (quick lane)
DEEP_AGE = 0.1  # the same in the deep lane


class SolverRequests(Lanes):
    """``/solve``, ``/api/analyze`` and ``/api/policy``: the exact scores of a position."""

    async def solve_position(
        self, position: Position, caller: Caller | None = None
    ) -> service.Analysis:
        """The perfect solver's analysis: cached, else the quick lane, else the deep lane
        (one of the ``caller``'s deep places)."""
        if position.rules != "standard":
            raise BadRequest("the solver handles the standard rules only, not count-fours")
        require_not_over(position)
        cached = self.cache.get(position)
        if cached is not None:
            return cached
        time_limit = self.settings.time_limit
        request = self.limit()
        limit = self.working(request)
        await self.require_kernel(Board.of(position), limit)
        gone = None if caller is None else caller.gone
        started = clock()
        # Nearly full boards are cheap: each empty cell costs a waiting job QUICK_AGE
        # (DEEP_AGE) seconds of precedence, so cheap positions overtake expensive ones
        # while no job waits more than a bounded extra time.
        empty = position.size - position.ply
        # Positions at least 20/42 full fit the budget (every such position of Pons'
        # sets needs <= 300k nodes to analyse). A position with fewer stones that is
        # not done within a few milliseconds usually needs far more: it gets a
        # twentieth of the budget, less quick-lane time thrown away.
        quick_nodes = self.settings.quick_nodes
        budget = quick_nodes if 21 * position.ply >= 10 * position.size else quick_nodes // 20
        analysis = await self.stoppable(
            self.quick.run_ranked(
                started + empty * QUICK_AGE,
                functools.partial(
                    service.analyze_position,
                    position,
                    limit=limit.tighter(nodes=budget),
                    table_megabytes=QUICK_TABLE_MB,
                ),
                limit=request,
                gone=gone,
            )
        )
        if not analysis.complete:
            if limit.expired():
                raise TimeLimitExceeded("time limit exceeded before the deep solve")
            with self.clients.turn(caller):
                analysis = await self.run_deep(
                    clock() + empty * DEEP_AGE,
                    lambda attempt: service.analyze_position(position, limit=attempt),
                    limit,
                    request,
                    gone,
                )
            if not analysis.complete:
                raise TimeLimitExceeded(
                    f"time limit exceeded: the solver stopped after {time_limit:g} s "
                    f"({analysis.nodes} nodes) without an exact answer"
                )
        self.cache.put(position, analysis)
        return analysis

    async def search_position(self, game: Game) -> service.Analysis:
        """A small game's analysis by a full-depth classic search (deep lane, cached)."""
        require_not_over(game)
        cached = self.cache.get(game)
        if cached is None:
            cached = await self.stoppable(
                self.deep.run(self.limit(), service.analyze_by_search, game)
            )
            self.cache.put(game, cached)
        return cached

    async def solve(
        self, pos: str, width: int, height: int, caller: Caller | None = None
    ) -> list[int]:
        """Every column's score, ``FULL_COLUMN`` for a full one (gamesolver.org's shape)."""
        position = self.parse_connect4(pos, Board("connect4", width, height))
        analysis = await self.solve_position(position, caller)
        return [service.FULL_COLUMN if s is None else s for s in analysis.column_scores]

    def policy(self, pos: str, board: Board = DEFAULT_BOARD) -> PolicyResponse:
        """The shipped network's policy and value for a Connect Four position (one
        forward pass, about a millisecond: answered at once)."""
        from connect4.net import NetworkError, shipped_network

        if board.kind != "connect4":
            raise BadRequest(f"the network plays Connect Four, not {board.kind}")
        position = self.parse_connect4(pos, board)
        require_not_over(position)
        if position.rules != "standard":
            raise BadRequest("the network plays the standard rules only, not count-fours")
        try:
            network = shipped_network(board.width, board.height)
        except NetworkError as error:
            raise BadRequest(str(error)) from None
        out = network.evaluate_positions([position])
        return PolicyResponse(
            pos=pos,
            policy=[round(float(p), 4) for p in out.policy[0]],
            value=round(float(out.value[0]), 4),
            wdl=[round(float(p), 4) for p in out.wdl[0]],
        )

    async def analyze(
        self, pos: str, board: Board = DEFAULT_BOARD, caller: Caller | None = None
    ) -> AnalyzeResponse:
        """The position's score, every move's score in numbers and words, the best moves."""
        position: Game
        if board.kind == "connect4":
            position = self.parse_connect4(pos, board)
            analysis = await self.solve_position(position, caller)
        else:
            position = self.parse(pos, board)
            analysis = await self.search_position(position)
        ply, width, height, size = position.ply, position.width, position.height, position.size
        return AnalyzeResponse(
            pos=pos,
            game=position.kind,
            width=width,
            height=height,
            ply=ply,
            to_move=position.to_move,
            score=analysis.score,
            score_text=score_label(analysis.score, ply, size),
            column_scores=analysis.column_scores,
            column_texts=[
                None if s is None else score_label(s, ply, size) for s in analysis.column_scores
            ],
            best_moves=[c + 1 for c in analysis.best_moves()],
            nodes=analysis.nodes,
            seconds=analysis.seconds,
            complete=analysis.complete,
        )
