"""The ``net`` player kind: the learned policy/value network, alone or guiding PUCT.

Specs (keys may be combined; explicit keys override the level's settings)::

    net                          one forward pass: the policy's best legal column
    net:temperature=0.5,seed=3   a column drawn from the policy sharpened by 1/0.5
    net:playouts=800             PUCT search guided by the network (c=1.5)
    net:time=0.5                 PUCT for half a second
    net:level=easy               easy / medium / hard (see LEVELS)
    net:playouts=100,book=12     the opening book's moves for the first 12 plies
    net:load=my.npz              a network of your own (``connect4 train`` writes it)

Without ``load`` the player uses the network that ships with the package for
its board (7x6). Playing needs NumPy only. PUCT keeps its tree between moves; a
player built for one-off questions (``PlayerContext.one_off``: hints, the web app)
starts each search and its temperature draw afresh. A search stops when its tree
is full (``stats["tree_full"]``).

>>> from connect4 import Position
>>> from connect4.players import make_player
>>> player = make_player("net:playouts=100")
>>> choice = player.choose(Position.from_moves("112233"))  # column 4 wins
>>> choice.move, choice.stats["playouts"]
(3, 100)
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.net.model import (
    Network,
    NetworkError,
    load_network,
    shipped_network,
    shipped_path,
)
from connect4.net.search import DEFAULT_C, Puct
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
    parse_float,
    parse_int,
    seed_option,
    time_option,
    with_level,
)
from connect4.players.registry import PlayerKind, PlayerSpecError

LEVELS: dict[str, dict[str, object]] = {
    "easy": {"temperature": 2.0},
    "medium": {"temperature": 0.5},
    "hard": {"playouts": 25, "book": 6},
}
"""Preset strengths, tuned with the shipped network to the ladder's outcome-error targets
(easy 30 %, medium 10 %, hard 3 %): the raw policy sampled loosely, then sharply (the raw
network alone is past medium: 7.6 %), and a short PUCT search behind the opening book's
first 6 plies (100 or 200 playouts alone: 4.6-4.9 %)."""
MAX_PATH = 4096

KEPT_NETWORKS = 8  # weights files kept loaded at once (the least recently used one goes)
_LOADED: OrderedDict[tuple[str, int, int], Network] = OrderedDict()
_LOCK = threading.Lock()


def network_file(path: str) -> Network:
    """The network in the weights file ``path`` (read once per file version);
    :class:`PlayerSpecError` saying what is wrong with it."""
    try:
        stat = os.stat(path)
        key = (os.path.realpath(path), stat.st_mtime_ns, stat.st_size)
    except OSError:
        key = (path, 0, 0)  # load_network names the problem
    with _LOCK:
        if key not in _LOADED:
            try:
                _LOADED[key] = load_network(path)
            except NetworkError as error:
                raise PlayerSpecError(f"net: load={path}: {error}") from None
            while len(_LOADED) > KEPT_NETWORKS:  # a file rewritten again and again: bounded
                _LOADED.popitem(last=False)
        _LOADED.move_to_end(key)
        return _LOADED[key]


def _parse_path(text: str) -> object:
    if not text or len(text) > MAX_PATH or "\0" in text:
        raise ValueError(f"must be a file path of 1-{MAX_PATH} characters")
    return text


class NetPlayer(PlayerBase):
    """Plays the network's choice: its policy's best legal column (or one drawn with a
    ``temperature``), or the most visited column of a PUCT search."""

    is_human = False

    def __init__(
        self,
        spec: str,
        network: Network,
        *,
        temperature: float = 0.0,
        playouts: int | None = None,
        seconds: float | None = None,
        c: float = DEFAULT_C,
        seed: int | None = None,
        one_off: bool = False,
        opening: OpeningBook | None = None,
    ) -> None:
        self.spec = spec
        self.opening = opening  # the book's moves first (``book=N``), None: none
        self.network = network
        self.temperature = temperature
        self.playouts = playouts
        self.seconds = seconds
        self.search = Puct(network, c=c)
        self.seed = seed
        self.rng = random.Random(seed)
        self.one_off = one_off  # each choice starts afresh: no tree kept, the draw reseeded

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """The network's move in ``game`` (left unchanged); a search cut short by the
        caller's ``limit`` answers its most visited column so far (``complete=False``).
        Within its ``book`` plies the opening book answers where it can."""
        position = Position.of(game)
        if position.is_over():
            raise ValueError("no legal move: the game is over")
        if self.opening is not None and (known := self.opening.choose(position, limit)) is not None:
            return known
        if self.one_off:
            self.search.forget()
            self.rng = random.Random(self.seed)
        if self.playouts is None and self.seconds is None:
            return self._raw(position)
        own = within_caller(limit, self.seconds)  # its own time per move
        result = self.search.search(position, playouts=self.playouts, limit=own)
        complete = complete_within(result.complete, limit)
        stats = MoveStats(
            playouts=result.playouts,
            playouts_per_second=round(result.playouts_per_second),
            tree_size=result.tree_size,
            depth=result.depth,
            seconds=round(result.seconds, 4),
            engine="puct",
            columns=[
                ColumnStats(
                    move=position.move_label(col.move),
                    visits=col.visits,
                    value=round(col.value, 4),
                    proven=None,
                )
                for col in result.columns
            ],
        )
        if result.tree_full:
            stats["tree_full"] = True
        if self.one_off:
            self.search.forget()  # nothing to keep: free the tree now
        return MoveChoice(
            move=result.move, value=round(result.value, 4), stats=stats, complete=complete
        )

    def warm_up(self) -> None:
        """Load its opening book, if it has one (the network is loaded with the player)."""
        if self.opening is not None:
            self.opening.warm_up()

    def _raw(self, position: Position) -> MoveChoice:
        started = time.perf_counter()
        out = self.network.evaluate_positions([position])
        policy = out.policy[0].astype(np.float64)
        legal = position.legal_moves()
        if self.temperature > 0:
            weights = [math.exp(math.log(max(policy[c], 1e-30)) / self.temperature) for c in legal]
            move = self.rng.choices(legal, weights=weights)[0]
        else:
            move = max(legal, key=lambda c: (policy[c], -abs(2 * c - position.width + 1)))
        stats = MoveStats(seconds=round(time.perf_counter() - started, 5), engine="policy")
        return MoveChoice(move=move, value=round(float(out.value[0]), 4), stats=stats)


def policy_of(network: Network, game: Game) -> tuple[list[float], float]:
    """The network's policy over the columns (0 for a full one) and its value (-1..1)."""
    out = network.evaluate_positions([Position.of(game)])
    return [round(float(p), 4) for p in out.policy[0]], round(float(out.value[0]), 4)


def _network_digest(load: object) -> str | None:
    """The SHA-256 of the weights a ``net`` spec plays (``load``'s file, else the
    shipped 7x6 one); ``None`` when it cannot be read (building the player says why)."""
    path = Path(load) if isinstance(load, str) else shipped_path()
    try:
        return None if path is None else hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _build(spec: str, values: dict[str, object], context: PlayerContext) -> NetPlayer:
    settings = with_level(values, LEVELS)
    board = context.board
    path = settings.get("load")
    try:
        network = (
            network_file(path)
            if isinstance(path, str)
            else shipped_network(board.width, board.height)
        )
    except NetworkError as error:
        raise PlayerSpecError(f"net: {error}") from None
    if (network.width, network.height) != (board.width, board.height):
        raise PlayerSpecError(
            f"net: the network plays {network.width}x{network.height}, "
            f"not {board.width}x{board.height}"
        )
    if board.rules != "standard":
        raise PlayerSpecError("net: the network was trained on the standard rules only")
    playouts = settings.get("playouts")
    seconds = settings.get("time")
    if "time" in values and "playouts" not in values:
        playouts = None
    seed = settings.get("seed", context.seed)
    temperature = settings.get("temperature", 0.0)
    c = settings.get("c", DEFAULT_C)
    return NetPlayer(
        spec,
        network,
        temperature=float(temperature) if isinstance(temperature, (int, float)) else 0.0,
        playouts=playouts if isinstance(playouts, int) else None,
        seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
        c=float(c) if isinstance(c, (int, float)) else DEFAULT_C,
        seed=seed if isinstance(seed, int) else None,
        one_off=context.one_off,
        opening=opening_book(settings.get("book"), board),
    )


NET = PlayerKind(
    name="net",
    description="a policy/value network trained from exact labels; alone or guiding PUCT",
    options={
        "playouts": Option(
            "PUCT playouts per move (default: none, the raw policy)", parse_int(1, 10_000_000)
        ),
        "time": time_option("PUCT seconds per move"),
        "temperature": Option(
            "draw the raw move from the policy sharpened by 1/T (0: its best)", parse_float(0, 100)
        ),
        "c": Option(f"PUCT exploration constant (default {DEFAULT_C})", parse_float(0, 100)),
        "seed": seed_option(),
        "load": Option(
            "a weights file of your own (.npz from connect4 train)", _parse_path, reads_file=True
        ),
        "book": BOOK_OPTION,
        "level": level_option(LEVELS),
    },
    build=_build,
    games=("connect4",),
    fingerprint=lambda values: {"levels": LEVELS, "network": _network_digest(values.get("load"))},
)
