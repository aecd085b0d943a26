"""The ``minimax`` and ``alphabeta`` player kinds (registered in :mod:`connect4.players.registry`).

Specs (keys may be combined; explicit keys override the level's settings)::

    minimax:depth=4,heuristic=windows
    alphabeta:depth=7,heuristic=windows/mollerhoj,ordering=center,tt=on
    alphabeta:time=1.0                  iterative deepening for one second
    alphabeta:schedule=4/5/6            depth by game phase (the Power-4 contest AI's schedule)
    alphabeta:level=hard                easy / medium / hard (see LEVELS)
    alphabeta:depth=8,book=12           the opening book's moves for the first 12 plies

Call ``player.record_trees(True)`` (the web app does) to get the explored tree
as JSON in ``MoveChoice.tree`` (this runs the generic search, capped at
``player.tree_cap`` nodes).

>>> from connect4 import Position
>>> from connect4.players import make_player
>>> choice = make_player("alphabeta:depth=2").choose(Position.from_moves("445566"))
>>> choice.move, choice.value, sorted(choice.stats)[:4]
(2, 999999993, ['cutoffs', 'depth', 'engine', 'heuristic'])
"""

from __future__ import annotations

from collections.abc import Callable

from connect4.classic.heuristics import get_heuristic, heuristic_names
from connect4.classic.search import Limits, is_mate, search
from connect4.core.errors import BudgetExceeded
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.tictactoe import TicTacToe
from connect4.players.base import (
    MoveChoice,
    MoveStats,
    Player,
    PlayerBase,
    PlayerContext,
    within_caller,
)
from connect4.players.opening import BOOK_OPTION, OpeningBook, opening_book
from connect4.players.options import (
    Option,
    level_option,
    parse_choice,
    parse_int,
    parse_switch,
    time_option,
    with_level,
)
from connect4.players.registry import PlayerKind, PlayerSpecError

# level -> settings, per game; documented in docs/classic-ai.md. Connect Four's are tuned
# to the outcome-error targets of the ladder (easy 30 %, medium 10 %, hard 3 % on its
# decisive positions). No search depth reaches hard's alone (alpha-beta levels off near
# 11 %: the early positions' outcomes lie 25 and more plies ahead), so hard plays the
# opening book's moves for the first 12 plies and searches past them
LEVELS: dict[str, dict[str, dict[str, object]]] = {
    "connect4": {
        "easy": {"depth": 2, "heuristic": "cell-weights"},
        "medium": {"depth": 10, "heuristic": "threats", "tt": True},
        "hard": {"depth": 8, "heuristic": "threats", "tt": True, "book": 12},
    },
    "tictactoe": {
        "easy": {"depth": 1, "heuristic": "windows"},
        "medium": {"depth": 3, "heuristic": "windows"},
        "hard": {"depth": 9, "heuristic": "windows", "tt": True},
    },
}
# minimax has no pruning: its searches stay shallow, and the book's first plies make up
# the rest (6 plies for medium, 12 for hard)
MINIMAX_LEVELS: dict[str, dict[str, object]] = {
    "easy": {"depth": 2, "heuristic": "cell-weights"},
    "medium": {"depth": 5, "heuristic": "threats", "book": 6},
    "hard": {"depth": 6, "heuristic": "threats", "book": 12},
}


def parse_schedule(text: str) -> object:
    """``"4/5/6"`` -> ``(4, 5, 6)``: depths for the opening, middle and end of the game."""
    parts = text.split("/")
    if not all(p.isascii() and p.isdigit() and 1 <= int(p) <= 42 for p in parts):
        raise ValueError("must be depths 1-42 separated by '/', e.g. 4/5/6")
    return tuple(int(p) for p in parts)


def options() -> dict[str, Option]:
    """The keys both kinds take."""
    names = tuple(heuristic_names())
    return {
        "depth": Option("search depth in plies (default 4, or the level's)", parse_int(1, 42)),
        "time": time_option("seconds per move (iterative deepening)"),
        "schedule": Option("depths by game phase, e.g. 4/5/6", parse_schedule),
        "heuristic": Option("evaluation function (default windows)", parse_choice(*names), names),
        "ordering": Option(
            "move order: centre first (default) or ascending",
            parse_choice("center", "none"),
            ("center", "none"),
        ),
        "tt": Option("transposition table (default off)", parse_switch, ("on", "off")),
        "book": BOOK_OPTION,
        "level": level_option(LEVELS["connect4"]),
    }


class SearchPlayer(PlayerBase):
    """A minimax or alpha-beta player.

    ``record_tree`` (default False, see :meth:`record_trees`): when True,
    :meth:`choose` records the search tree and returns it as JSON in
    ``MoveChoice.tree`` (``tree_cap`` nodes at most).
    """

    is_human = False

    def __init__(
        self,
        spec: str,
        algorithm: str,
        limits: Limits,
        heuristic: str,
        ordering: str,
        tt: bool,
        seconds: float | None = None,
        opening: OpeningBook | None = None,
    ) -> None:
        self.spec = spec
        self.opening = opening  # the book's moves first (``book=N``), None: none
        self.algorithm = "minimax" if algorithm == "minimax" else "alphabeta"
        self.limits = limits
        self.seconds = seconds  # its own time per move (iterative deepening), None: none
        self.heuristic = heuristic
        self.ordering = "none" if ordering == "none" else "center"
        self.tt = tt
        self.record_tree = False
        self.tree_cap = 2000

    def _caller_first(self, limit: Limit | None) -> bool:
        """True when the caller's deadline, not the player's own time, would end a
        search started now."""
        left = None if limit is None else limit.remaining()
        return left is not None and (self.seconds is None or left < self.seconds)

    def warm_up(self) -> None:
        """Load (or compile) the compiled search this player runs, on both games it
        plays, with its options: a depth-1 search each, so a first move under a clock
        does not pay for it; and its opening book, if it has one."""
        if self.opening is not None:
            self.opening.warm_up()
        for game in (Position(), TicTacToe()):
            search(
                game,
                limits=Limits(depth=1),
                algorithm="minimax" if self.algorithm == "minimax" else "alphabeta",
                heuristic=self.heuristic,
                ordering="none" if self.ordering == "none" else "center",
                tt=self.tt,
            )

    def record_trees(self, on: bool) -> bool:
        """Record the explored tree of each search (capped at ``tree_cap`` nodes)."""
        self.record_tree = on
        return True

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """Search a copy of ``game`` and answer its best move with value and stats.

        Under a deadline (its own time per move, or the caller's ``limit``'s, whichever
        comes first) the search deepens iteratively: when the limit hits, the deepest
        finished iteration's move comes back with ``complete=False``; with no iteration
        finished the search raises :class:`~connect4.core.errors.BudgetExceeded`.
        Within its ``book`` plies the opening book answers where it can.
        """
        if self.opening is not None and (known := self.opening.choose(game, limit)) is not None:
            return known
        caller_first = self._caller_first(limit)
        own = within_caller(limit, self.seconds)
        result = search(
            game.copy(),
            limits=self.limits,
            algorithm="minimax" if self.algorithm == "minimax" else "alphabeta",
            heuristic=self.heuristic,
            ordering="none" if self.ordering == "none" else "center",
            tt=self.tt,
            record_tree=self.record_tree,
            tree_cap=self.tree_cap,
            limit=own,
        )
        if result.move is None:
            why = result.stopped or "no limit"
            raise BudgetExceeded(f"the search found no move before its {why} ended it")
        figures = result.stats
        stats = MoveStats(
            nodes=figures.nodes, leaves=figures.leaves, cutoffs=figures.cutoffs,
            tt_hits=figures.tt_hits, depth=figures.depth, seconds=figures.seconds,
            engine=result.engine, heuristic=result.heuristic,
        )  # fmt: skip
        tree = result.tree
        if tree is not None:
            tree["algorithm"] = self.algorithm
            tree["heuristic"] = result.heuristic
            tree["depth"] = result.stats.depth
            tree["value"] = result.value
            tree["move"] = game.move_label(result.move)
        value = result.value
        return MoveChoice(
            move=result.move,
            value=value,
            stats=stats,
            proven=True if value is not None and is_mate(value) else None,
            tree=tree,
            complete=result.stopped is None
            or not (caller_first or (limit is not None and limit.stopped())),
        )


def build(algorithm: str) -> Callable[[str, dict[str, object], PlayerContext], Player]:
    """The ``build`` function of a kind: options -> :class:`SearchPlayer`."""

    def make(spec: str, values: dict[str, object], context: PlayerContext) -> Player:
        presets = LEVELS[context.board.kind]
        if algorithm == "minimax" and context.board.kind == "connect4":
            presets = MINIMAX_LEVELS
        settings = with_level(values, presets, {"depth": 4, "heuristic": "windows"})
        heuristic = str(settings["heuristic"])
        try:
            get_heuristic(heuristic, context.board.kind)
        except ValueError as error:
            raise PlayerSpecError(f"{algorithm}: {error}") from None
        depth = settings.get("depth")
        cells = context.board.cells
        if isinstance(depth, int) and depth > cells:
            raise PlayerSpecError(
                f"{algorithm}: depth={depth} is deeper than the board's {cells} cells"
            )
        seconds = settings.get("time")
        schedule = settings.get("schedule")
        limits = Limits(
            depth=depth if isinstance(depth, int) and ("time" not in values or "depth" in values)
            else None,
            schedule=tuple(schedule) if isinstance(schedule, tuple) else None,
        )  # fmt: skip
        return SearchPlayer(
            spec,
            algorithm,
            limits,
            heuristic,
            str(settings.get("ordering", "center")),
            bool(settings.get("tt", False)),
            float(seconds) if isinstance(seconds, (int, float)) else None,
            opening_book(settings.get("book"), context.board),
        )

    return make


MINIMAX = PlayerKind(
    name="minimax",
    description="plain minimax to a depth cut-off (no pruning; for teaching)",
    options=options(),
    build=build("minimax"),
    fingerprint=lambda _: {"levels": LEVELS, "minimax": MINIMAX_LEVELS},
)
ALPHABETA = PlayerKind(
    name="alphabeta",
    description="alpha-beta search with a heuristic, move ordering and a transposition table",
    options=options(),
    build=build("alphabeta"),
    fingerprint=lambda _: LEVELS,
)
