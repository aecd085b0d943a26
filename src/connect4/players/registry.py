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
import importlib
import random
import threading
from collections.abc import Callable, Collection, Iterator, MutableMapping
from dataclasses import dataclass
from typing import TypedDict

from connect4.core.errors import Connect4Error, clip, unknown_choice
from connect4.core.game import Game
from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.limits import Limit
from connect4.players.base import MoveChoice, Player, PlayerBase, PlayerContext
from connect4.players.options import NumberRange, Option, seed_option


class PlayerSpecError(Connect4Error):
    """A player spec that names no known player or has bad options."""


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
    fingerprint: Callable[[dict[str, object]], object] | None = None
    """What its moves depend on besides its options (its levels' presets, its network
    file's digest), JSON-able: work resumed across a change in it would mix two players."""


@dataclass(frozen=True)
class KindRef:
    """Where a kind is defined, ``module:ATTRIBUTE`` (``where``), for a registry that
    imports the module only when the kind is first looked up: naming the kinds
    (menus, ``"perfect" in KINDS``) costs nothing, and a program that never builds
    a kind never imports what it needs (numpy, the solver, a network)."""

    name: str
    where: str

    def load(self) -> PlayerKind:
        """The kind itself, its module imported now."""
        module, _, attribute = self.where.partition(":")
        kind = getattr(importlib.import_module(module), attribute)
        if not isinstance(kind, PlayerKind) or kind.name != self.name:
            raise TypeError(f"{self.where} is not the player kind {self.name!r}")
        return kind


class KindRegistry(MutableMapping[str, PlayerKind]):
    """The registered kinds by name, in the order they were registered. A kind
    registered by its :class:`KindRef` is loaded on its first lookup; membership,
    iteration and ``len`` load nothing.

    >>> kinds = KindRegistry()
    >>> kinds["random"] = RANDOM
    >>> register(KindRef("perfect", "connect4.players.perfect:PERFECT"), kinds)
    >>> list(kinds), kinds.loaded("perfect")
    (['random', 'perfect'], False)
    >>> kinds["perfect"].games, kinds.loaded("perfect")
    (('connect4',), True)
    """

    def __init__(self) -> None:
        self._kinds: dict[str, PlayerKind | KindRef] = {}

    def __getitem__(self, name: str) -> PlayerKind:
        kind = self._kinds[name]
        if isinstance(kind, KindRef):
            ref, kind = kind, kind.load()
            if self._kinds.get(name) is ref:  # not replaced meanwhile
                self._kinds[name] = kind
        return kind

    def __setitem__(self, name: str, kind: PlayerKind) -> None:
        self._kinds[name] = kind

    def __delitem__(self, name: str) -> None:
        del self._kinds[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._kinds))

    def __len__(self) -> int:
        return len(self._kinds)

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def declare(self, ref: KindRef) -> None:
        """Register the kind ``ref`` names, to be loaded on its first lookup."""
        self._kinds[ref.name] = ref

    def loaded(self, name: str) -> bool:
        """True once the kind ``name`` is loaded (its module imported)."""
        return isinstance(self._kinds.get(name), PlayerKind)


KINDS = KindRegistry()
"""Every kind a spec can name (:mod:`connect4.players` registers the built-in ones)."""


def register(kind: PlayerKind | KindRef, kinds: KindRegistry = KINDS) -> None:
    """Add a player kind to the registry, or where it is defined (a :class:`KindRef`:
    loaded on first lookup). A later registration of a name replaces the earlier one."""
    if isinstance(kind, KindRef):
        kinds.declare(kind)
    else:
        kinds[kind.name] = kind


def _split(spec: str) -> tuple[str, str]:
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
            raise PlayerSpecError(
                f"{kind.name}: unknown key {clip(key)!r} ({kind.name} takes: {valid})"
            )
        if key in values:
            raise PlayerSpecError(f"{kind.name}: {key} given twice")
        if not eq:
            raise PlayerSpecError(f"{kind.name}: {clip(key)} needs a value ({clip(key)}=...)")
        option = kind.options[key]
        try:
            values[key] = option.parse(raw.strip())
        except ValueError as error:
            raise PlayerSpecError(f"{kind.name}: {key}={clip(raw.strip())!r} {error}") from None
    for key, option in kind.options.items():
        if key not in values and option.default is not None:
            values[key] = option.parse(option.default)
    return values


class UnknownPlayer(PlayerSpecError):
    """A spec whose kind is not among those to choose from; ``name`` is the kind it named."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


def find_kind(name: str, allowed: Collection[str] | None = None) -> PlayerKind:
    """The registered kind ``name`` (lower case), or :class:`UnknownPlayer` listing
    the kinds to choose from: every registered one, or those of ``allowed``.

    >>> find_kind("random").name
    'random'
    >>> find_kind("cmd", allowed=["random", "perfect"])
    Traceback (most recent call last):
    ...
    connect4.players.registry.UnknownPlayer: unknown player 'cmd': choose one of perfect, random
    """
    choices = sorted(KINDS if allowed is None else set(allowed) & set(KINDS))
    if name not in choices:
        raise UnknownPlayer(unknown_choice("player", name, choices), name)
    return KINDS[name]


@dataclass(frozen=True, eq=False)
class PlayerSpec:
    """A player spec read once (:func:`parse_spec`): its kind and its options, parsed
    and checked, defaults filled in (a ``cmd:``-like kind's rest is its ``argument``).

    ``given`` names the keys the spec wrote itself (the defaults' are not among them).
    """

    text: str
    kind: PlayerKind
    options: dict[str, object]
    given: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.text


def parse_spec(spec: str | PlayerSpec, kinds: Collection[str] | None = None) -> PlayerSpec:
    """Read ``spec`` against the registry: the one parser of player specs. A kind not
    registered (or not among ``kinds``) is an :class:`UnknownPlayer`, a bad key or
    value a :class:`PlayerSpecError` listing the valid ones.

    >>> parsed = parse_spec(" Alphabeta:depth=4 ")
    >>> parsed.kind.name, parsed.options["depth"], parsed.given, parsed.text
    ('alphabeta', 4, ('depth',), 'Alphabeta:depth=4')
    >>> parse_spec("cmd:python3 bot.py --fast").options
    {'argument': 'python3 bot.py --fast'}
    >>> parse_spec("random:seed=1,seed=2")
    Traceback (most recent call last):
    ...
    connect4.players.registry.PlayerSpecError: random: seed given twice
    """
    if isinstance(spec, PlayerSpec):
        if kinds is not None:
            find_kind(spec.kind.name, kinds)
        return spec
    name, rest = _split(spec)
    kind = find_kind(name, kinds)
    if kind.free_argument:
        return PlayerSpec(spec.strip(), kind, {"argument": rest})
    options = parse_options(kind, rest)
    given = tuple(
        key for key in (item.partition("=")[0].strip().lower() for item in rest.split(",")) if key
    )
    return PlayerSpec(spec.strip(), kind, options, given)


def make_player(
    spec: str | PlayerSpec,
    context: PlayerContext | None = None,
    *,
    game: str | None = None,
    width: int | None = None,
    height: int | None = None,
    rules: str | None = None,
    seed: int | None = None,
    max_move_seconds: float | None = None,
) -> Player:
    """Build the player ``spec`` names, the one builder of players: a text spec is read
    by :func:`parse_spec` (:class:`PlayerSpecError` listing the valid choices), one the
    kind cannot play on the board is refused the same way.

    ``context`` says where it plays (board, seed, one-off questions); without one,
    the keywords name it (a bad game, size or rule set: :class:`GameError`; the
    standard 7x6 Connect Four board by default), and ``max_move_seconds`` caps an
    external bot's silence on a move without a clock. A context and keywords
    together are a :class:`TypeError` (the keywords would be ignored).

    >>> make_player("random", PlayerContext(Board("tictactoe"), seed=1)).spec
    'random'
    >>> make_player("perfect", game="tictactoe")
    Traceback (most recent call last):
    ...
    connect4.players.registry.PlayerSpecError: perfect cannot play tictactoe (it plays connect4)
    """
    if context is not None:
        if any(v is not None for v in (game, width, height, rules, seed, max_move_seconds)):
            raise TypeError("make_player takes a context or the board's keywords, not both")
    else:
        board = Board(
            game or "connect4",
            DEFAULT_BOARD.width if width is None else width,
            DEFAULT_BOARD.height if height is None else height,
            rules or "standard",
        )
        clock = PlayerContext().max_move_seconds if max_move_seconds is None else max_move_seconds
        context = PlayerContext(board, seed, clock)
    parsed = parse_spec(spec)
    kind = parsed.kind
    if context.board.kind not in kind.games:
        raise PlayerSpecError(
            f"{kind.name} cannot play {context.board.kind} (it plays {', '.join(kind.games)})"
        )
    return kind.build(parsed.text, dict(parsed.options), context)


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
    kind = KINDS.get(_split(spec)[0])
    key = (spec, context.board)
    if kind is None or not kind.rehearse:
        return
    with _REHEARSAL_LOCK:
        if key in _REHEARSED:
            return
        _REHEARSED.add(key)
        try:
            player = make_player(spec, PlayerContext(context.board))
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
    """Plays a uniformly random legal move; reproducible with a seed. Over a game its
    draws follow one stream; a ``one_off`` player (each choice a question of its own)
    draws each from the seed afresh, so a question asked again gets the same answer.

    >>> from connect4 import TicTacToe
    >>> RandomPlayer(seed=3).choose(TicTacToe()).move in range(9)
    True
    >>> asked = RandomPlayer(seed=3, one_off=True)
    >>> len({asked.choose(TicTacToe()).move for _ in range(5)})
    1
    """

    is_human = False

    def __init__(
        self, spec: str = "random", seed: int | None = None, one_off: bool = False
    ) -> None:
        self.spec = spec
        self.seed = seed
        self.one_off = one_off
        self.rng = random.Random(seed)

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """A random legal move (instant: no limit can cut it short)."""
        moves = sorted(game.legal_moves())
        if not moves:
            raise ValueError("no legal move: the game is over")
        rng = random.Random(self.seed) if self.one_off else self.rng
        return MoveChoice(move=rng.choice(moves))


def _build_random(spec: str, options: dict[str, object], context: PlayerContext) -> Player:
    seed = options.get("seed", context.seed)
    return RandomPlayer(spec, seed if isinstance(seed, int) else None, context.one_off)


HUMAN = PlayerKind(
    name="human",
    description="a person at the keyboard or in the browser",
    options={},
    build=lambda spec, options, context: HumanPlayer(spec),
)
RANDOM = PlayerKind(
    name="random",
    description="plays a uniformly random legal move",
    options={"seed": seed_option()},
    build=_build_random,
)
