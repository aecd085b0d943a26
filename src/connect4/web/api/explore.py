"""The opening explorer's request: every move of a position with its exact score, the
games of the server's collection that played it, and the best line.

The collection is the games files the server was started with
(:attr:`~connect4.web.settings.Settings.games`), counted once per board on the
first request for that board (on a thread, not the event loop) and kept. Arena
and lab results name their board; a file of move strings holds games of the
default board, 7x6 Connect Four.
"""

from __future__ import annotations

import asyncio
import functools

from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.limits import clock
from connect4.core.score import score_label
from connect4.learn.collection import count_games_files
from connect4.learn.explorer import Exploration, GameIndex, explore
from connect4.web.api.lanes import Lanes, require_not_over
from connect4.web.clients import Caller
from connect4.web.errors import BadRequest
from connect4.web.models import ExploreMove, ExploreResponse
from connect4.web.settings import Settings


class ExploreRequests(Lanes):
    """``/api/explore``: the opening explorer over the server's game collection."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.indexes: dict[Board, GameIndex] = {}
        self.counting = asyncio.Lock()

    async def game_index(self, board: Board) -> GameIndex:
        """The server's collection counted for ``board`` (counted on first use, then kept)."""
        async with self.counting:
            if board not in self.indexes:
                games = self.settings.games
                count = functools.partial(count_games_files, strings_board=DEFAULT_BOARD)
                counted = await asyncio.to_thread(count, games, board)
                self.indexes[board] = counted[0]
        return self.indexes[board]

    async def explore(
        self, pos: str, board: Board = DEFAULT_BOARD, caller: Caller | None = None
    ) -> ExploreResponse:
        """Every legal move's exact score and games, and the best line (deep lane). A
        position the solver cannot score within the time limit is a 503, never a guess."""
        game = self.parse(pos, board)
        require_not_over(game)
        if game.rules != "standard":
            raise BadRequest("the solver handles the standard rules only, not count-fours")
        index = await self.game_index(board)
        request = self.limit()
        limit = self.working(request)
        await self.require_kernel(board, limit)
        gone = None if caller is None else caller.gone
        with self.clients.turn(caller):
            found = await self.run_deep(
                clock(),
                lambda attempt: explore(game, index=index, limit=attempt),
                limit,
                request,
                gone,
            )
        return explore_response(pos, found)


def explore_response(pos: str, found: Exploration) -> ExploreResponse:
    """The response for an exploration of ``pos``."""
    size = found.board.width * found.board.height
    return ExploreResponse(
        pos=pos,
        game=found.board.kind,
        width=found.board.width,
        height=found.board.height,
        ply=found.ply,
        to_move=found.to_move,
        score=found.score,
        score_text=score_label(found.score, found.ply, size),
        games=found.games,
        moves=[
            ExploreMove(
                column=m.move + 1,
                score=m.score,
                score_text=score_label(m.score, found.ply, size),
                games=m.games,
                wins=m.wins,
                draws=m.draws,
                losses=m.losses,
            )
            for m in found.moves
        ],
        line=found.line_text(),
        line_complete=found.line_complete,
    )
