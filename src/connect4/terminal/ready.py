"""The computer players of a terminal game made ready while the first prompt waits.

A player the user named is built at once (a wrong spec is an error before the game);
its rehearsal (its book loaded, its search compiled) runs on a thread, so the person
can type the first move meanwhile. On a first run the solver compiles in the
background and the opening moves come from the book.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Sequence

from rich.console import Console

from connect4.core.game import Game
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.players import (
    KINDS,
    MoveChoice,
    Player,
    PlayerContext,
    PlayerSpecError,
    make_player,
    parse_spec,
    rehearse,
)


def strongest_ai(game: str, rules: str = "standard") -> str:
    """The spec of the strongest AI available for a game (used by ``make play`` and hints)."""
    if game == "connect4" and rules == "standard" and "perfect" in KINDS:
        return "perfect"
    if "alphabeta" in KINDS:
        return "alphabeta:depth=9" if game == "tictactoe" else "alphabeta:level=hard"
    return "random"


def uses_solver(spec: str) -> bool:
    """True for a player that searches with the exact solver once past the opening book.

    >>> uses_solver("perfect:level=hard"), uses_solver("alphabeta:depth=4")
    (True, False)
    """
    try:
        return parse_spec(spec).kind.name == "perfect"
    except PlayerSpecError:  # a player of no registered kind (built in code): no solver
        return False


def start_solver_compile(game: Game, console: Console) -> bool:
    """On a first run, compile the solver in the background for a Connect Four game
    (its opening moves come from the book meanwhile) and say so; True while it compiles."""
    from connect4.solver.backend import compile_in_background

    if game.kind != "connect4" or game.rules != "standard":
        return False
    if not compile_in_background(game.width, game.height):
        return False
    console.print(
        "[dim]compiling the solver in the background (first run only); "
        "the opening moves come from the book meanwhile[/]"
    )
    return True


def needs_solver(game: Game) -> bool:
    """True while the solver compiles in the background and the opening book does not
    hold the scores of all of ``game``'s moves."""
    from connect4.players.perfect import PerfectEngine
    from connect4.solver.backend import compile_pending

    if game.kind != "connect4" or not compile_pending(game.width, game.height):
        return False
    return PerfectEngine(game.width, game.height).book_scores(Position.of(game)) is None


def wait_for_solver(game: Game, console: Console, who: str) -> None:
    """Wait, with a line before and after, for the solver compiling in the background."""
    from connect4.solver.backend import wait_for_compile

    console.print(f"[dim]{who} needs the solver: still compiling (first run only)...[/]")
    waited = wait_for_compile(game.width, game.height)
    console.print(f"[dim]the solver is ready ({waited:.0f} s)[/]")


class BackgroundPlayer:
    """A computer player made ready on a thread while the first prompt waits for the
    human: ``prepare`` builds it (loads its book, rehearses its search) and returns it;
    any use of the player waits for that first.

    >>> from connect4.players import make_player
    >>> player = BackgroundPlayer("random", lambda: make_player("random", seed=1))
    >>> player.is_human, player.ready().spec
    (False, 'random')
    """

    is_human = False

    def __init__(self, spec: str, prepare: Callable[[], Player]) -> None:
        self.spec = spec
        self._player: Player | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._prepare, args=(prepare,), name=f"connect4-ready-{spec}", daemon=True
        )
        self._thread.start()

    def _prepare(self, prepare: Callable[[], Player]) -> None:
        try:
            self._player = prepare()
        except BaseException as error:  # raised again where the player is used
            self._error = error

    def ready(self) -> Player:
        """The player, once prepared (its preparation's error, raised again)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._player is not None
        return self._player

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """The prepared player's move."""
        return self.ready().choose(game, limit)

    def warm_up(self) -> None:
        """Prepared already: waits for the preparation."""
        self.ready()

    def record_trees(self, on: bool) -> bool:
        """The prepared player's answer."""
        return self.ready().record_trees(on)

    def close(self) -> None:
        """Close the prepared player (after its preparation ends; a failed one: nothing)."""
        self._thread.join()
        if self._player is not None:
            self._player.close()


def wait_until_ready(players: Sequence[Player]) -> None:
    """Wait for the players still being prepared on a thread (:class:`BackgroundPlayer`);
    a failed preparation is left for the move to report."""
    for player in players:
        if isinstance(player, BackgroundPlayer):
            with contextlib.suppress(Exception):
                player.ready()


def ready_players(
    specs: Sequence[str], chosen: Sequence[bool], board: Board, seed: int | None, compiling: bool
) -> list[Player]:
    """The game's players in order. A spec the user named is built at once (a wrong one
    is an error before the game starts); a computer player's rehearsal, and the whole
    build of one chosen for the user (``chosen``), run on a thread while the first prompt
    waits (:class:`BackgroundPlayer`). While the solver compiles, players that use it
    are not rehearsed. ``seed``: the first player's seed, the next one's ``seed + 1``.

    >>> red, yellow = ready_players(["human", "random"], [False, True], Board(), 1, False)
    >>> red.is_human, yellow.is_human, yellow.spec
    (True, False, 'random')
    """
    players: list[Player] = []
    for index, (spec, auto) in enumerate(zip(specs, chosen, strict=True)):
        context = PlayerContext(board, None if seed is None else seed + index)
        built = None if auto else make_player(spec, context)
        if built is not None and built.is_human:
            players.append(built)
            continue
        practise = not (compiling and uses_solver(spec))
        prepare = functools.partial(_prepare, spec, built, context, practise)
        players.append(BackgroundPlayer(spec, prepare))
    return players


def _prepare(spec: str, built: Player | None, context: PlayerContext, practise: bool) -> Player:
    """Build ``spec`` unless ``built``; with ``practise``, rehearse it (compiled and
    loaded now, not between the human's move and its answer)."""
    player = built if built is not None else make_player(spec, context)
    if practise:
        rehearse(spec, context.board.new(), PlayerContext(context.board))
    return player
