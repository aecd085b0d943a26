"""What a tournament's records add up to: per-player totals, standings, crosstable.

Everything here is a frozen value computed from the records alone, so a
resumed run reports exactly what an uninterrupted one would. ``Summary.to_json()``
is the ``connect4 arena --json`` document.

>>> from connect4.arena.record import ResultLine
>>> from connect4.arena.schedule import ArenaConfig
>>> config = ArenaConfig(players=("a", "b"))
>>> game = ResultLine(game=0, tournament="t", red="a", yellow="b", opening="", moves="1212121",
...                   winner="red", reason="connect four", forfeit=None, detail="",
...                   move_seconds=[0.5] * 7, move_nodes=[None] * 7, seed=0)
>>> summary = summarize(config, [game])
>>> [(s.player, s.wins, s.losses, s.points, s.seconds_per_move) for s in summary.standings]
[('a', 1, 0, 1.0, 0.5), ('b', 0, 1, 0.0, 0.5)]
>>> summary.crosstable["a"]["b"]
CrossCell(points=1.0, games=1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field

from connect4.arena.ratings import Rating, fit_ratings
from connect4.arena.record import COLOURS, Colour, ResultLine
from connect4.arena.schedule import ArenaConfig


def points_of(record: ResultLine, colour: Colour) -> float:
    """What ``colour`` scored in the game: 1 for a win, 0.5 for a draw, 0 for a loss."""
    if record["winner"] is None:
        return 0.5
    return 1.0 if record["winner"] == colour else 0.0


def player_moves(record: ResultLine, colour: Colour) -> range:
    """Indexes into ``move_seconds``/``verdicts`` of the moves ``colour`` made."""
    first = len(record["opening"]) % 2  # 0: red made the first recorded move
    parity = first if colour == "red" else 1 - first
    return range(parity, len(record["move_seconds"]), 2)


@dataclass(frozen=True)
class PlayerStats:
    """One player's totals over a set of games (the raw figures behind a standings row).

    ``forfeits`` counts the games lost by forfeit, by reason; ``nodes_moves``
    the moves that reported a node (or playout) count. From the reviewed
    games (``reviewed``): ``proven`` moves got a verdict, ``unproven`` did
    not (budget); ``best``, ``mistakes`` and ``blunders`` count the verdicts.
    """

    player: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    forfeits: Mapping[str, int] = field(default_factory=dict)
    moves: int = 0
    seconds: float = 0.0
    nodes: int = 0
    nodes_moves: int = 0
    reviewed: int = 0
    proven: int = 0
    unproven: int = 0
    best: int = 0
    mistakes: int = 0
    blunders: int = 0


def player_stats(player: str, games: Iterable[tuple[ResultLine, Colour]]) -> PlayerStats:
    """Add up ``player``'s ``games``, each a record and the colour the player had."""
    count = wins = draws = losses = moves = nodes = nodes_moves = 0
    points = seconds = 0.0
    verdicts: list[str | None] = []
    reviewed = 0
    forfeits: dict[str, int] = {}
    for record, colour in games:
        scored = points_of(record, colour)
        count += 1
        points += scored
        wins += scored == 1
        losses += scored == 0
        draws += scored == 0.5
        if record["forfeit"] == colour:
            forfeits[record["reason"]] = forfeits.get(record["reason"], 0) + 1
        judged = record.get("verdicts")
        reviewed += judged is not None
        move_nodes = record["move_nodes"]
        for i in player_moves(record, colour):
            moves += 1
            seconds += record["move_seconds"][i]
            counted = move_nodes[i] if i < len(move_nodes) else None
            if counted is not None:
                nodes += counted
                nodes_moves += 1
            if judged is not None:
                verdicts.append(judged[i] if i < len(judged) else None)
    unproven = verdicts.count(None)
    return PlayerStats(
        player, count, wins, draws, losses, points, forfeits,
        moves, seconds, nodes, nodes_moves, reviewed, len(verdicts) - unproven, unproven,
        verdicts.count("best"), verdicts.count("mistake"), verdicts.count("blunder"),
    )  # fmt: skip


def _ratio(part: float, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True)
class Standing:
    """One row of the standings: results, rating with its 95 % interval, review, speed.

    ``score`` is points per game. From the reviewed games: ``accuracy`` is the
    review's (the share of ``best`` moves among the ``proven_moves``, pooled
    over the games), ``mistakes_per_game`` and ``blunders_per_game`` are
    averages over the ``reviewed_games``; ``unproven_moves`` got no verdict.
    ``nodes_per_move`` counts nodes searched (MCTS: playouts). ``None``
    wherever there is nothing to divide by.
    """

    player: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    score: float | None
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    accuracy: float | None
    proven_moves: int
    unproven_moves: int
    reviewed_games: int
    mistakes_per_game: float | None
    blunders_per_game: float | None
    forfeits: Mapping[str, int]
    seconds_per_move: float | None
    nodes_per_move: float | None

    @classmethod
    def of(cls, stats: PlayerStats, rating: Rating | None) -> Standing:
        """The row for a player's totals and fitted rating (``None``: no games rated)."""
        return cls(
            player=stats.player,
            games=stats.games,
            wins=stats.wins,
            draws=stats.draws,
            losses=stats.losses,
            points=stats.points,
            score=_ratio(stats.points, stats.games),
            elo=None if rating is None else round(rating.elo, 1),
            elo_low=None if rating is None else round(rating.low, 1),
            elo_high=None if rating is None else round(rating.high, 1),
            accuracy=_ratio(stats.best, stats.proven),
            proven_moves=stats.proven,
            unproven_moves=stats.unproven,
            reviewed_games=stats.reviewed,
            mistakes_per_game=_ratio(stats.mistakes, stats.reviewed),
            blunders_per_game=_ratio(stats.blunders, stats.reviewed),
            forfeits=stats.forfeits,
            seconds_per_move=_ratio(stats.seconds, stats.moves),
            nodes_per_move=_ratio(stats.nodes, stats.nodes_moves),
        )

    def as_dict(self) -> dict[str, object]:
        """The row as JSON-ready fields, in the order above."""
        return {**asdict(self), "forfeits": dict(self.forfeits)}


@dataclass(frozen=True)
class CrossCell:
    """What the row player scored against the column player, in how many games."""

    points: float
    games: int


@dataclass(frozen=True)
class Summary:
    """Standings (best first) and crosstable of a tournament's played games."""

    tournament: str
    config: ArenaConfig
    games_played: int
    standings: tuple[Standing, ...]
    crosstable: Mapping[str, Mapping[str, CrossCell]]

    @property
    def reviewed(self) -> bool:
        """Were any games reviewed (``--review``)?"""
        return any(row.reviewed_games for row in self.standings)

    def standing(self, player: str) -> Standing | None:
        """``player``'s row, if it is in the standings."""
        return next((row for row in self.standings if row.player == player), None)

    def to_json(self) -> dict[str, object]:
        """The summary as a JSON-ready dict (what ``connect4 arena --json`` prints)."""
        return {
            "tournament": self.tournament,
            "config": asdict(self.config),
            "games_played": self.games_played,
            "standings": [row.as_dict() for row in self.standings],
            "crosstable": {
                a: {b: asdict(cell) for b, cell in row.items()}
                for a, row in self.crosstable.items()
            },
        }


def summarize(config: ArenaConfig, records: list[ResultLine]) -> Summary:
    """Standings (points, ratings with 95 % intervals, review figures, speed), crosstable."""
    names = config.names
    played: dict[str, list[tuple[ResultLine, Colour]]] = {name: [] for name in names}
    cross: dict[str, dict[str, tuple[float, int]]] = {name: {} for name in names}
    games: list[tuple[str, str, float]] = []
    for record in records:
        games.append((record["red"], record["yellow"], points_of(record, "red")))
        for colour, other in zip(COLOURS, reversed(COLOURS), strict=True):
            name = record[colour]
            if name not in played:
                continue
            played[name].append((record, colour))
            points, count = cross[name].get(record[other], (0.0, 0))
            cross[name][record[other]] = (points + points_of(record, colour), count + 1)
    ratings = {r.name: r for r in fit_ratings(names, games)} if games else {}
    standings = [Standing.of(player_stats(name, played[name]), ratings.get(name)) for name in names]
    standings.sort(key=lambda row: (-(row.elo or 0.0), -row.points, row.player))
    return Summary(
        tournament=config.fingerprint(),
        config=config,
        games_played=len(records),
        standings=tuple(standings),
        crosstable={
            a: {b: CrossCell(*row[b]) for b in names if b in row} for a, row in cross.items()
        },
    )
