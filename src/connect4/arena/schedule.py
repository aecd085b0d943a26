"""A tournament's configuration and schedule: who meets whom, from which openings.

A tournament is a round robin (or a gauntlet: one player against the rest)
where each pair plays each of a set of openings with both colours, so
deterministic players do not replay one game. Every game gets a schedule
index and a seed derived from the tournament seed and that index, so the
results are the same whichever executor plays them.

>>> config = ArenaConfig(players=("random", "random:seed=7"), board=Board("tictactoe"),
...                      openings=("5",), games_per_pair=2, seed=1)
>>> [(g.index, g.red, g.yellow, g.opening) for g in make_schedule(config)]
[(0, 'random', 'random:seed=7', '5'), (1, 'random:seed=7', 'random', '5')]
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from connect4.core.errors import Connect4Error, GameError
from connect4.core.files import FileError, read_lines
from connect4.core.game import Game
from connect4.core.games import DEFAULT_BOARD, Board
from connect4.players import PlayerContext, PlayerSpecError, make_player
from connect4.players.external import MAX_MOVE_SECONDS
from connect4.players.options import SEED_MAX

MAX_OPENING_PLIES = 6
MAX_OPENINGS = 4 << 20  # the largest openings file read (bytes)
MAX_GAMES = 1_000_000  # a tournament's games (its schedule: some 200 MB; days of play)


class ArenaError(Connect4Error):
    """Bad tournament input: specs, openings, a results file that does not fit."""


@dataclass(frozen=True)
class ArenaConfig:
    """Everything that decides a tournament's games (and so its fingerprint).

    ``openings`` are move strings (``""`` = the empty board); ``accuracy_nodes``
    is the solver's node budget per position for the accuracy figures (0 = off).
    ``max_move_seconds`` is the safety limit for an external bot's move when
    there is no ``time_per_move``; like the number of workers, it is left out of
    the fingerprint, so a tournament can be resumed with another limit.
    """

    players: tuple[str, ...]
    gauntlet: str | None = None
    games_per_pair: int = 2
    openings: tuple[str, ...] = ("",)
    time_per_move: float | None = None
    board: Board = DEFAULT_BOARD
    seed: int = 0
    accuracy_nodes: int = 0
    max_move_seconds: float = MAX_MOVE_SECONDS

    def identity(self) -> dict[str, object]:
        """The settings that decide the games, as JSON values: the tournament's journal
        holds them, and :meth:`fingerprint` is their hash."""
        fields = asdict(self)
        del fields["max_move_seconds"]
        board = fields.pop("board")  # the board's fields at the top, as they always were
        fields.update(game=board["kind"], width=board["width"], height=board["height"])
        fields["rules"] = board["rules"]
        return fields

    def fingerprint(self) -> str:
        """A short hash naming this tournament; stored with every result line."""
        text = json.dumps(self.identity(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def names(self) -> list[str]:
        """Every participant, the gauntlet player first."""
        return ([self.gauntlet] if self.gauntlet else []) + list(self.players)


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: its index, who plays which colour, from which opening."""

    index: int
    red: str
    yellow: str
    opening: str
    seed: int


def derive_seed(seed: int, index: int) -> int:
    """A game's seed from the tournament seed and its schedule index (stable everywhere).

    >>> derive_seed(0, 5) == derive_seed(0, 5) != derive_seed(1, 5)
    True
    """
    digest = hashlib.sha256(f"connect4-arena:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def pairings(config: ArenaConfig) -> list[tuple[str, str]]:
    """The pairs that meet: every pair (round robin), or the gauntlet player against each."""
    if config.gauntlet:
        return [(config.gauntlet, other) for other in config.players]
    players = config.players
    return [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]


def make_schedule(config: ArenaConfig) -> list[ScheduledGame]:
    """Every game in order: round ``k`` of all pairs, then round ``k + 1``.

    Pair ``p`` plays its openings ``p*R, p*R + 1, ...`` of the list (``R`` =
    ``ceil(games_per_pair / 2)``, cycling), each twice in a row with colours
    swapped (rounds ``2m`` and ``2m + 1``): pairs meet on different positions,
    and a tournament cut short is still colour-balanced.
    """
    games: list[ScheduledGame] = []
    pairs = pairings(config)
    rounds = (config.games_per_pair + 1) // 2
    for k in range(config.games_per_pair):
        for p, (a, b) in enumerate(pairs):
            opening = config.openings[(p * rounds + k // 2) % len(config.openings)]
            red, yellow = (a, b) if k % 2 == 0 else (b, a)
            index = len(games)
            seed = derive_seed(config.seed, index)
            games.append(ScheduledGame(index, red, yellow, opening, seed))
    return games


def start_position(config: ArenaConfig, moves: str = "") -> Game:
    """The board of ``config`` after ``moves``; raises :class:`GameError` (a bad game,
    board, rule set or move)."""
    return config.board.new(moves)


def all_openings(config: ArenaConfig, plies: int) -> list[str]:
    """Every distinct position after ``plies`` moves with the game still on, one move string each.

    >>> len(all_openings(ArenaConfig(players=()), 2))
    49
    """
    if not 0 <= plies <= MAX_OPENING_PLIES:
        raise ArenaError(f"openings plies={plies}: must be 0-{MAX_OPENING_PLIES}")
    found: dict[int, str] = {}

    def walk(game: Game, depth: int) -> None:
        if depth == 0:
            found.setdefault(game.key(), game.moves)
            return
        for move in sorted(game.legal_moves()):
            game.play(move)
            if not game.is_over():
                walk(game, depth - 1)
            game.undo()

    walk(start_position(config), plies)
    return sorted(found.values())


def load_openings(text: str, config: ArenaConfig) -> tuple[str, ...]:
    """Resolve the openings setting: ``plies=K`` or a file of move strings (``-`` = empty board).

    ``plies=K`` lists every position after K plies, shuffled with the
    tournament seed so the first ones used are varied.
    """
    if text.startswith("plies="):
        value = text.removeprefix("plies=")
        if not (value.isascii() and value.isdigit()):
            raise ArenaError(
                f"{text}: plies must be a number 0-{MAX_OPENING_PLIES}", setting="openings"
            )
        openings = all_openings(config, int(value))
        random.Random(config.seed).shuffle(openings)
        if not openings:
            raise ArenaError(f"{text}: no position with the game still on", setting="openings")
        return tuple(openings)
    path = Path(text)
    lines = read_lines(path, what="openings file", max_line_bytes=4096, max_bytes=MAX_OPENINGS)
    openings_list: list[str] = []
    for number, line in _file_lines(lines, text):
        moves = line.split("#", 1)[0].strip()
        if not moves:
            continue
        moves = "" if moves == "-" else moves
        try:
            position = start_position(config, moves)
        except GameError as error:
            raise ArenaError(f"{text} line {number}: {error}") from None
        if position.is_over():
            raise ArenaError(f"{text} line {number}: the game is already over after {moves}")
        openings_list.append(moves)
    if not openings_list:
        raise ArenaError(f"{text}: no openings in the file")
    return tuple(openings_list)


def _file_lines(lines: Iterator[tuple[int, str]], text: str) -> Iterator[tuple[int, str]]:
    """The lines of an openings file, a file problem as an :class:`ArenaError`."""
    try:
        yield from lines
    except FileError as error:
        raise ArenaError(f"{error}; give a file or plies=K", setting="openings") from None


def check_specs(config: ArenaConfig) -> None:
    """Build (and close) every player once so a bad spec fails before any game."""
    names = config.names
    if config.gauntlet is None and len(names) < 2:
        raise ArenaError(
            "a tournament needs at least two players (SPEC SPEC ...)", setting="players"
        )
    if config.gauntlet is not None and not names[1:]:
        raise ArenaError("needs opponents among the players (SPEC ...)", setting="gauntlet")
    twice = [name for i, name in enumerate(names) if name in names[:i]]
    if twice:
        raise ArenaError(
            f"player {twice[0]!r} appears twice; make the specs differ (e.g. random:seed=2)"
        )
    if config.games_per_pair < 1:
        raise ArenaError("must be at least 1", setting="games_per_pair")
    pairs = len(pairings(config))
    if pairs * config.games_per_pair > MAX_GAMES:
        raise ArenaError(
            f"{pairs} pair(s) x {config.games_per_pair:,} games per pair is more than the "
            f"{MAX_GAMES:,} games a tournament may hold: fewer games per pair or players",
            setting="games_per_pair",
        )
    if not 0 <= config.seed <= SEED_MAX:
        raise ArenaError(
            f"must be in 0..{SEED_MAX} (the players' seeds), not {config.seed}", setting="seed"
        )
    if config.time_per_move is not None and config.time_per_move <= 0:
        raise ArenaError("must be positive", setting="time_per_move")
    if config.max_move_seconds <= 0:
        raise ArenaError("must be positive", setting="max_move_seconds")
    for spec in names:
        try:
            player = make_player(spec, PlayerContext(config.board))
        except (PlayerSpecError, ValueError) as error:
            raise ArenaError(str(error)) from None
        if player.is_human:
            player.close()
            raise ArenaError(f"{spec}: humans cannot play in the arena")
        player.close()
