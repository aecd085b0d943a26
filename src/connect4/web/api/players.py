"""The players' requests: an AI's move in a position, the player kinds the web app
runs, and the web's reading of a player spec (the registry's, then its own refusals)."""

from __future__ import annotations

import functools

from connect4.core.game import GAME_KINDS, RULES
from connect4.core.limits import clock
from connect4.players import KINDS, PlayerSpec, UnknownPlayer, describe_players, parse_spec
from connect4.players.perfect import PERFECT
from connect4.web import service
from connect4.web.api.lanes import Lanes, require_not_over
from connect4.web.clients import Caller
from connect4.web.errors import BadRequest
from connect4.web.models import (
    MAX_SPEC_LENGTH,
    KindInfo,
    MoveRequest,
    MoveResponse,
    PlayersResponse,
)

# Player kinds the web API never builds: humans move in the page, ``cmd`` would
# run a program and ``kaggle`` a Python file named by the client.
FORBIDDEN_KINDS = {"human": "a human player's moves come from the page", "cmd": "", "kaggle": ""}


def web_kinds() -> list[str]:
    """The player kinds the web app runs (every registered one but the forbidden).

    >>> "alphabeta" in web_kinds(), "cmd" in web_kinds()
    (True, False)
    """
    return sorted(kind for kind in KINDS if kind not in FORBIDDEN_KINDS)


def check_spec(spec: str) -> PlayerSpec:
    """The spec as the player registry reads it (bad keys and values refused there),
    or refused where the web API never runs it: too long, a forbidden kind (saying
    why), an unknown kind (listing only the kinds the web runs), a key that reads a
    file on the server (``net:load=PATH``).

    >>> check_spec("alphabeta:depth=3").options["depth"]
    3
    >>> check_spec("genius")
    Traceback (most recent call last):
    ...
    connect4.players.registry.UnknownPlayer: unknown player 'genius': choose one of alphabeta, ...
    """
    if len(spec) > MAX_SPEC_LENGTH:
        raise BadRequest(
            f"player spec is too long: {len(spec)} characters (at most {MAX_SPEC_LENGTH})"
        )
    try:
        parsed = parse_spec(spec, web_kinds())
    except UnknownPlayer as error:
        if error.name not in FORBIDDEN_KINDS:
            raise
        reason = FORBIDDEN_KINDS[error.name] or f"{error.name} players cannot run in the web app"
        raise BadRequest(f"player {spec!r}: {reason}") from None
    for key in parsed.given:
        if parsed.kind.options[key].reads_file:
            raise BadRequest(f"player {spec!r}: {key}= reads a file; the web app does not")
    return parsed


class PlayerRequests(Lanes):
    """``/api/move`` and ``/api/players``: the AI players the web app runs."""

    async def move(self, request: MoveRequest, caller: Caller | None = None) -> MoveResponse:
        """The AI's move in a position (deep lane, one of the ``caller``'s deep places),
        with its stats and search tree; the best found when the time limit cuts it short."""
        position = self.parse(request.pos, request.board)
        require_not_over(position)
        player = check_spec(request.player)
        whole = self.limit()
        limit = self.working(whole)
        if player.kind.name == PERFECT.name:  # the one kind that solves
            await self.require_kernel(request.board, limit)
        choose = functools.partial(service.choose_move, position, player, want_tree=request.tree)
        with self.clients.turn(caller):
            answer = await self.run_deep(
                clock(),
                lambda attempt: choose(limit=attempt),
                limit,
                whole,
                None if caller is None else caller.gone,
            )
        return answer

    def players(self) -> PlayersResponse:
        """The player kinds the web app runs, with their options (``human`` moves in the page)."""
        kinds = [
            KindInfo.model_validate(kind)
            for kind in describe_players()
            if kind["kind"] not in FORBIDDEN_KINDS
        ]
        return PlayersResponse(
            games=list(GAME_KINDS), rules=list(RULES), players=kinds, solver=True
        )
