"""Players and player specs: one string names a player everywhere.

A spec is ``kind`` or ``kind:key=value,key=value``: ``human``,
``random``, ``alphabeta:depth=7,heuristic=windows/mollerhoj``, ``perfect``,
``cmd:python3 my_bot.py``. Each kind registers a :class:`PlayerKind`
that lists its keys and their allowed values, so a bad spec gets an error
listing the valid ones.

>>> from connect4 import Position
>>> player = make_player("random", seed=1)
>>> player.choose(Position.from_moves("4444")).move in range(7)
True
>>> make_player("random:speed=3")
Traceback (most recent call last):
...
connect4.players.registry.PlayerSpecError: random: unknown key 'speed' (random takes: seed)
"""

from __future__ import annotations

import contextlib
import random
import re
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Protocol, TypedDict

from connect4.classic.results import SearchTree
from connect4.core.errors import Connect4Error
from connect4.core.game import Game
from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.limits import Limit

SEED_MAX = 2**32 - 1
"""The largest seed a player spec takes (``seed=0`` .. ``seed=4294967295``): NumPy's and
the compiled searches' generators take 32-bit seeds."""


class PlayerSpecError(Connect4Error):
    """A player spec that names no known player or has bad options."""


class ColumnStats(TypedDict):
    """One move of a Monte Carlo tree search's root: its label, visits, mean value
    (-1 loss .. 1 win for the mover) and proven result (1, 0, -1; ``None`` if unproven)."""

    move: str
    visits: int
    value: float
    proven: int | None


class MoveStats(TypedDict, total=False):
    """What a player reports about one move, JSON-ready; each player fills what it knows.

    ``seconds`` the time taken; ``nodes``, ``leaves``, ``cutoffs``, ``tt_hits`` and
    ``depth`` the search's figures; ``source`` where a perfect player's answer came
    from (``book``, ``solver``, ``search``) and ``level`` its level; ``engine`` and
    ``heuristic`` which classic search ran; ``playouts``, ``playouts_per_second`` and
    ``tree_size`` a Monte Carlo tree search's figures (``depth``: its deepest path)
    and ``columns`` its root's moves.
    """

    seconds: float
    nodes: int
    leaves: int
    cutoffs: int
    tt_hits: int
    depth: int
    source: str
    level: str
    engine: str
    heuristic: str
    playouts: int
    playouts_per_second: int
    tree_size: int
    columns: list[ColumnStats]


@dataclass
class MoveChoice:
    """What a player answers for one position.

    ``value`` is the player's own evaluation from the mover's point of view
    (``None`` if it has none); ``proven`` is True for a move backed by an exact
    solve, False when a search ran out of time, ``None`` when not applicable.
    ``stats`` holds figures such as nodes, seconds and depth; ``tree`` a
    recorded search tree as JSON-ready dict when one was asked for.
    ``complete`` is False when the caller's limit (its deadline or stop flag)
    cut the thinking short: the move is the best found so far, ``stats`` say
    how far it got (``depth`` reached, ``playouts`` run).
    """

    move: int
    value: float | None = None
    stats: MoveStats = field(default_factory=lambda: MoveStats())
    proven: bool | None = None
    tree: SearchTree | None = None
    column_scores: list[int | None] | None = None
    complete: bool = True


class Player(Protocol):
    """Anything that picks moves. ``is_human`` players are driven by the interface.

    Every player honours the caller's ``limit``: when its deadline passes or its
    flag is set, :meth:`choose` answers the best move found so far (marked
    ``complete=False``) or, with none at all, raises
    :class:`~connect4.core.errors.BudgetExceeded`.
    """

    spec: str
    is_human: bool

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """Pick a move for the side to move in ``game`` (left unchanged) within ``limit``."""
        ...

    def close(self) -> None:
        """Release resources (processes, pools)."""
        ...

    def warm_up(self) -> None:
        """Do the set-up a first move would pay for (compiling, loading tables)."""
        ...

    def record_trees(self, on: bool) -> bool:
        """Attach (or stop attaching) the explored search tree to each choice; False
        when this player records no tree."""
        ...


class PlayerBase:
    """The capabilities a player without them answers: nothing to warm up, no tree,
    nothing to close."""

    def warm_up(self) -> None:
        """Nothing to prepare."""

    def record_trees(self, on: bool) -> bool:
        """No search tree to record."""
        return False

    def close(self) -> None:
        """Nothing to release."""


@dataclass(frozen=True)
class Option:
    """One key of a player kind: a description, a parser and the choices to list."""

    description: str
    parse: Callable[[str], object]
    choices: tuple[str, ...] = ()
    default: str | None = None
    reads_file: bool = False  # its value names a file to read: never from a web client


@dataclass(frozen=True)
class PlayerKind:
    """A registered kind of player: how to build it from parsed options."""

    name: str
    description: str
    options: dict[str, Option]
    build: Callable[[str, dict[str, object], PlayerContext], Player]
    games: tuple[str, ...] = ("connect4", "tictactoe")
    free_argument: bool = False  # cmd:PROGRAM ARGS takes the rest verbatim
    rehearse: bool = True  # False: its start-up is never timed (see :func:`rehearse`)


@dataclass(frozen=True)
class PlayerContext:
    """Where a player will play: the board (game, size, rules) and the RNG seed."""

    board: Board = DEFAULT_BOARD
    seed: int | None = None
    max_move_seconds: float = 60.0  # a bot silent this long on a move without a clock forfeits


KINDS: dict[str, PlayerKind] = {}


def register(kind: PlayerKind) -> None:
    """Add a player kind to the registry (later registrations replace earlier ones)."""
    KINDS[kind.name] = kind


NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
"""A decimal number in ASCII: ``2``, ``0.5``, ``.5``, ``1e-3`` (no ``inf``, ``nan``, ``1_0``)."""


@dataclass(frozen=True)
class NumberRange:
    """A parser for a number in ``[low, high]`` written in ASCII (an integer when
    ``integer``); menus read the bounds (the web page clamps a link's values to them).

    >>> NumberRange(1, 9, integer=True)("3"), NumberRange(0, 10)("2.5")
    (3, 2.5)
    """

    low: float  # an int when ``integer``
    high: float
    integer: bool = False

    def __call__(self, text: str) -> object:
        if self.integer:
            digits = text.removeprefix("-")
            if (
                not (digits.isascii() and digits.isdigit())
                or not self.low <= int(text) <= self.high
            ):
                raise ValueError(f"must be an integer {self.low}-{self.high}")
            return int(text)
        if not NUMBER.fullmatch(text) or not self.low <= float(text) <= self.high:
            raise ValueError(f"must be a number {self.low:g}-{self.high:g}")
        return float(text)


def parse_int(low: int, high: int) -> NumberRange:
    """A parser for an integer in ``[low, high]``, written in ASCII digits
    (``int()`` alone would take ``"٣"`` or ``"1_000"``).

    >>> parse_int(1, 9)("3"), parse_int(-5, 5)("-2")
    (3, -2)
    >>> parse_int(1, 9)("٣")
    Traceback (most recent call last):
    ...
    ValueError: must be an integer 1-9
    """
    return NumberRange(low, high, integer=True)


def parse_float(low: float, high: float) -> NumberRange:
    """A parser for a decimal number in ``[low, high]``, written in ASCII.

    >>> parse_float(0, 10)("2.5"), parse_float(0, 10)("1e-3")
    (2.5, 0.001)
    >>> parse_float(0, 10)("nan")
    Traceback (most recent call last):
    ...
    ValueError: must be a number 0-10
    """
    return NumberRange(low, high)


parse_seed = parse_int(0, SEED_MAX)
"""The parser of every player's ``seed`` key."""


def parse_choice(*choices: str) -> Callable[[str], object]:
    """A parser accepting one of ``choices``."""

    def parse(text: str) -> object:
        if text not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return text

    return parse


def parse_switch(text: str) -> object:
    """``on``/``off`` (also true/false, yes/no, 1/0) as a bool."""
    lowered = text.lower()
    if lowered in ("on", "true", "yes", "1"):
        return True
    if lowered in ("off", "false", "no", "0"):
        return False
    raise ValueError("must be on or off")


def split_spec(spec: str) -> tuple[str, str]:
    """``"alphabeta:depth=4"`` -> ``("alphabeta", "depth=4")``."""
    kind, _, rest = spec.strip().partition(":")
    return kind.strip().lower(), rest.strip()


def parse_options(kind: PlayerKind, text: str) -> dict[str, object]:
    """Parse ``key=value,key=value`` against a kind's options, defaults filled in."""
    values: dict[str, object] = {}
    valid = ", ".join(kind.options) or "no options"
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, raw = item.partition("=")
        key = key.strip().lower()
        if key not in kind.options:
            raise PlayerSpecError(f"{kind.name}: unknown key {key!r} ({kind.name} takes: {valid})")
        if key in values:
            raise PlayerSpecError(f"{kind.name}: {key} given twice")
        if not eq:
            raise PlayerSpecError(f"{kind.name}: {key} needs a value ({key}=...)")
        option = kind.options[key]
        try:
            values[key] = option.parse(raw.strip())
        except ValueError as error:
            raise PlayerSpecError(f"{kind.name}: {key}={raw.strip()!r} {error}") from None
    for key, option in kind.options.items():
        if key not in values and option.default is not None:
            values[key] = option.parse(option.default)
    return values


def find_kind(name: str, allowed: Collection[str] | None = None) -> PlayerKind:
    """The registered kind ``name`` (lower case), or :class:`PlayerSpecError` listing
    the kinds to choose from: every registered one, or those of ``allowed``.

    >>> find_kind("random").name
    'random'
    >>> find_kind("cmd", allowed=["random", "perfect"])
    Traceback (most recent call last):
    ...
    connect4.players.registry.PlayerSpecError: unknown player 'cmd': choose one of perfect, random
    """
    choices = sorted(KINDS if allowed is None else set(allowed) & set(KINDS))
    if name not in choices:
        raise PlayerSpecError(f"unknown player {name!r}: choose one of {', '.join(choices)}")
    return KINDS[name]


def make_player(
    spec: str,
    *,
    game: str = "connect4",
    width: int = 7,
    height: int = 6,
    rules: str = "standard",
    seed: int | None = None,
    max_move_seconds: float = 60.0,
) -> Player:
    """Build the player a spec names; raises :class:`PlayerSpecError` listing valid choices
    (a bad game, size or rule set: :class:`GameError`).

    ``max_move_seconds`` caps an external bot's silence on a move without a clock."""
    board = Board(game, width, height, rules)
    return build_player(spec, PlayerContext(board, seed, max_move_seconds))


def build_player(spec: str, context: PlayerContext) -> Player:
    """Build the player ``spec`` names to play in ``context`` (see :func:`make_player`).

    >>> build_player("random", PlayerContext(Board("tictactoe"), seed=1)).spec
    'random'
    """
    kind_name, rest = split_spec(spec)
    kind = find_kind(kind_name)
    game = context.board.kind
    if game not in kind.games:
        raise PlayerSpecError(f"{kind_name} cannot play {game} (it plays {', '.join(kind.games)})")
    if kind.free_argument:
        options: dict[str, object] = {"argument": rest}
    else:
        options = parse_options(kind, rest)
    return kind.build(spec.strip(), options, context)


class OptionDescription(TypedDict):
    """One key of a player kind, for help text and menus."""

    description: str
    choices: list[str]
    default: str | None
    low: float | None  # a number's bounds (None: not a number)
    high: float | None
    integer: bool


class KindDescription(TypedDict):
    """A player kind with its keys, JSON-ready (the web API's ``/api/players``)."""

    kind: str
    description: str
    games: list[str]
    options: dict[str, OptionDescription]


_REHEARSED: set[tuple[str, Board]] = set()
_REHEARSAL_LOCK = threading.Lock()  # games on threads wait for one rehearsal


def rehearse(spec: str, board: Game, context: PlayerContext) -> None:
    """Warm ``spec`` up off the clock: once per process, a throwaway copy plays one move.

    A player's first move pays for compiling its search (numba), loading
    tables and books; the rehearsal pays for them before any clock starts (or
    any prompt is shown), on a copy of ``board`` under a limit already spent
    (the search is loaded, then stops at once), and leaves the real players
    (and their seeds) untouched. A player whose set-up goes beyond its first
    move (a solver needed only past the opening book) may offer a
    :meth:`Player.warm_up`: the rehearsal calls it first, and waits for it.
    Kinds whose start-up is never timed (external bots: the clock starts once
    they answer ``ready``) are skipped. Anything that fails here is left for
    the real move to report.

    >>> from connect4 import Position
    >>> rehearse("random", Position(), PlayerContext())
    """
    kind = KINDS.get(split_spec(spec)[0])
    key = (spec, context.board)
    if kind is None or not kind.rehearse:
        return
    with _REHEARSAL_LOCK:
        if key in _REHEARSED:
            return
        _REHEARSED.add(key)
        try:
            player = build_player(spec, PlayerContext(context.board))
        except Exception:
            return
        try:
            with contextlib.suppress(Exception):
                player.warm_up()
                if not board.is_over():  # compiled and loaded, then stopped at once
                    player.choose(board.copy(), Limit(deadline=0.0))
        finally:
            with contextlib.suppress(Exception):
                player.close()


def describe_players() -> list[KindDescription]:
    """Every registered kind with its keys and choices (for help text and web menus)."""
    return [
        {
            "kind": kind.name,
            "description": kind.description,
            "games": list(kind.games),
            "options": {
                key: {
                    "description": option.description,
                    "choices": list(option.choices),
                    "default": option.default,
                    "low": option.parse.low if isinstance(option.parse, NumberRange) else None,
                    "high": option.parse.high if isinstance(option.parse, NumberRange) else None,
                    "integer": isinstance(option.parse, NumberRange) and option.parse.integer,
                }
                for key, option in kind.options.items()
            },
        }
        for kind in KINDS.values()
    ]


# ---------------------------------------------------------------- built-in kinds
class HumanPlayer(PlayerBase):
    """A person at the interface; the interface asks them for moves."""

    is_human = True

    def __init__(self, spec: str = "human") -> None:
        self.spec = spec

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        raise PlayerSpecError("a human player's moves come from the interface")


class RandomPlayer(PlayerBase):
    """Plays a uniformly random legal move; reproducible with a seed.

    >>> from connect4 import TicTacToe
    >>> RandomPlayer(seed=3).choose(TicTacToe()).move in range(9)
    True
    """

    is_human = False

    def __init__(self, spec: str = "random", seed: int | None = None) -> None:
        self.spec = spec
        self.rng = random.Random(seed)

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """A random legal move (instant: no limit can cut it short)."""
        moves = sorted(game.legal_moves())
        if not moves:
            raise ValueError("no legal move: the game is over")
        return MoveChoice(move=self.rng.choice(moves))


def _build_random(spec: str, options: dict[str, object], context: PlayerContext) -> Player:
    seed = options.get("seed", context.seed)
    return RandomPlayer(spec, seed if isinstance(seed, int) else None)


HUMAN = PlayerKind(
    name="human",
    description="a person at the keyboard or in the browser",
    options={},
    build=lambda spec, options, context: HumanPlayer(spec),
)
RANDOM = PlayerKind(
    name="random",
    description="plays a uniformly random legal move",
    options={"seed": Option("random seed (defaults to the game's seed)", parse_seed)},
    build=_build_random,
)
