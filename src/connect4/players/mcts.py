"""The ``mcts`` player kind: Monte Carlo tree search (:mod:`connect4.classic.mcts`).

Specs (keys may be combined; explicit keys override the level's settings)::

    mcts                                10,000 playouts per move
    mcts:playouts=50000,c=1.0,seed=7
    mcts:time=0.5                       playouts for half a second
    mcts:solver=on,playout=heuristic    MCTS-Solver, playouts that win and block
    mcts:level=hard                     easy / medium / hard (see LEVELS)
    mcts:book=12                        the opening book's moves for the first 12 plies

The player keeps its tree between moves: the subtree of the moves played since
its last search is searched on; a player built for one-off questions (hints, the
web app: ``PlayerContext.one_off``) searches each afresh, so a seeded spec answers
a position the same way each time. A search stops when its tree is full
(``stats["tree_full"]``). With :meth:`MctsPlayer.record_trees`, a choice carries the
tree's most visited nodes (:func:`connect4.classic.tree.mcts_tree_of`).

>>> from connect4 import Position
>>> from connect4.players import make_player
>>> choice = make_player("mcts:playouts=3000,seed=1").choose(Position.from_moves("445566"))
>>> choice.move in (2, 6), choice.stats["playouts"], len(choice.stats["columns"])
(True, 3000, 7)
>>> sorted(choice.stats)
['columns', 'depth', 'engine', 'playouts', 'playouts_per_second', 'seconds', 'tree_size']
"""

from __future__ import annotations

from connect4.classic.mcts import DEFAULT_C, DEFAULT_PLAYOUTS, PLAYOUT_POLICIES, Mcts
from connect4.classic.tree import mcts_tree_of
from connect4.core.bits import SIGNED_WORD_BITS, board_bits
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.players.base import (
    ColumnStats,
    MoveChoice,
    MoveStats,
    PlayerBase,
    PlayerContext,
    complete_within,
    within_caller,
)
from connect4.players.opening import BOOK_OPTION, OpeningBook, opening_book
from connect4.players.options import (
    Option,
    level_option,
    parse_choice,
    parse_float,
    parse_int,
    parse_switch,
    seed_option,
    time_option,
    with_level,
)
from connect4.players.registry import PlayerKind

TREE_CAP = 200  # nodes of a recorded tree: the most visited ones

# level -> settings; documented in docs/classic-ai.md. Tuned to the ladder's outcome-error
# targets (easy 30 %, medium 10 %, hard 3 %): no playout count a person waits for reaches
# medium's or hard's alone (50,000 playouts: 15 %), so they play the opening book's moves
# for the game's first 6 and 12 plies and search past them
LEVELS: dict[str, dict[str, object]] = {
    "easy": {"playouts": 300},
    "medium": {"playouts": 3_000, "solver": True, "playout": "heuristic", "book": 6},
    "hard": {"playouts": 10_000, "solver": True, "playout": "heuristic", "book": 12},
}


class MctsPlayer(PlayerBase):
    """A Monte Carlo tree search player; its :class:`~connect4.classic.mcts.Mcts` (tree
    and random stream) lives as long as the player."""

    is_human = False

    def __init__(
        self,
        spec: str,
        mcts: Mcts,
        playouts: int | None,
        seconds: float | None,
        one_off: bool = False,
        wide: bool = False,
        opening: OpeningBook | None = None,
    ) -> None:
        self.spec = spec
        self.opening = opening  # the book's moves first (``book=N``), None: none
        self.mcts = mcts
        self.wide = wide  # its board takes two words: the warm-up loads their kernels
        self.playouts = playouts
        self.seconds = seconds
        self.one_off = one_off  # each choice searches afresh (no tree kept)
        self.record_tree = False  # when set, each choice carries the tree's most visited nodes

    def record_trees(self, on: bool) -> bool:
        """Attach the tree's most visited nodes to each choice."""
        self.record_tree = on
        return True

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """Search ``game`` (left unchanged) and answer the most visited move; a
        caller's ``limit`` that hits first gives the move of the playouts run so far
        (``complete=False``). Within its ``book`` plies the opening book answers where
        it can."""
        if self.opening is not None and (known := self.opening.choose(game, limit)) is not None:
            return known
        if self.one_off:
            self.mcts.forget()
        own = within_caller(limit, self.seconds)  # its own time per move
        result = self.mcts.search(game, playouts=self.playouts, limit=own)
        complete = complete_within(result.complete, limit)
        stats = MoveStats(
            playouts=result.playouts,
            playouts_per_second=round(result.playouts_per_second),
            tree_size=result.tree_size,
            depth=result.max_depth,
            seconds=result.seconds,
            engine=result.engine,
            columns=[
                ColumnStats(
                    move=game.move_label(child.move),
                    visits=child.visits,
                    value=round(child.value, 4),
                    proven=child.proven,
                )
                for child in sorted(result.children, key=lambda child: child.move)
            ],
        )
        if result.tree_full:
            stats["tree_full"] = True
        chosen = next(child for child in result.children if child.move == result.move)
        choice = MoveChoice(
            move=result.move,
            value=round(result.value, 4),
            stats=stats,
            proven=True if chosen.proven is not None else None,
            tree=mcts_tree_of(self.mcts, game, result, cap=TREE_CAP) if self.record_tree else None,
            complete=complete,
        )
        if self.one_off:
            self.mcts.forget()  # nothing to keep: free the tree now
        return choice

    def warm_up(self) -> None:
        """Compile (or load) every kernel a game reaches, the tree reuse of later moves
        included: the arena's rehearsal plays only one move; and its opening book."""
        if self.opening is not None:
            self.opening.warm_up()
        from connect4.classic import fastmcts

        fastmcts.warm_up(wide=self.wide)


def _build(spec: str, values: dict[str, object], context: PlayerContext) -> MctsPlayer:
    settings = with_level(values, LEVELS)
    playouts = settings.get("playouts")
    seconds = settings.get("time")
    if "time" in values and "playouts" not in values:
        playouts = None
    seed = settings.get("seed", context.seed)
    c = settings.get("c", DEFAULT_C)
    mcts = Mcts(
        c=float(c) if isinstance(c, (int, float)) else DEFAULT_C,
        seed=seed if isinstance(seed, int) else 0,
        solver=bool(settings.get("solver", False)),
        playout="heuristic" if settings.get("playout") == "heuristic" else "random",
    )
    return MctsPlayer(
        spec,
        mcts,
        playouts if isinstance(playouts, int) else (None if seconds else DEFAULT_PLAYOUTS),
        float(seconds) if isinstance(seconds, (int, float)) else None,
        one_off=context.one_off,
        wide=board_bits(context.board.width, context.board.height) > SIGNED_WORD_BITS,
        opening=opening_book(settings.get("book"), context.board),
    )


MCTS = PlayerKind(
    name="mcts",
    description="Monte Carlo tree search (UCT) with random or heuristic playouts",
    options={
        "playouts": Option(
            f"playouts per move (default {DEFAULT_PLAYOUTS:,})", parse_int(1, 100_000_000)
        ),
        "time": time_option(),
        "c": Option(f"exploration constant (default {DEFAULT_C})", parse_float(0, 100)),
        "seed": seed_option("random seed (defaults to the game's seed, else 0)"),
        "solver": Option(
            "MCTS-Solver: prove wins and losses (default off)", parse_switch, ("on", "off")
        ),
        "playout": Option(
            "playout policy (default random)", parse_choice(*PLAYOUT_POLICIES), PLAYOUT_POLICIES
        ),
        "book": BOOK_OPTION,
        "level": level_option(LEVELS),
    },
    build=_build,
    fingerprint=lambda _: LEVELS,
)
