"""Glicko-2 ratings for puzzles and the player, and the player's record kept locally.

A :class:`Glicko` rating is a rating, its deviation (how unsure it is) and its
volatility. :func:`glicko2` is Glickman's published algorithm ("Example of the
Glicko-2 system", 2013): one rating period's results against opponents turn a
rating into the next one. A puzzle attempt is one game between the player and the
puzzle (:func:`attempt`): solving it is the player's win, failing it the
puzzle's, and both ratings move.

The player's rating, attempts and streak, and the ratings the puzzles have
reached on this machine, are kept in one small JSON file under the cache root
(:func:`record_path`, written whole each time: :class:`PlayerRecord`);
:func:`reset_record` starts over.

>>> player, puzzle = attempt(Glicko(), Glicko(1500.0, 350.0), solved=True)
>>> round(player.rating) > 1500 > round(puzzle.rating)
True
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from connect4.core.cache import cache_root
from connect4.core.errors import Connect4Error
from connect4.core.outputs import atomic_write

__all__ = [
    "SCALE",
    "TAU",
    "Glicko",
    "PlayerRecord",
    "RatingError",
    "attempt",
    "glicko2",
    "load_record",
    "record_path",
    "reset_record",
    "save_record",
]

SCALE = 173.7178  # Glicko-2's scale: rating points per unit of its internal scale
TAU = 0.5  # the system constant: how much the volatility may change (Glickman: 0.3..1.2)
EPSILON = 1e-6  # the volatility iteration's tolerance
PUZZLE_DEVIATION = 200.0  # a puzzle's deviation before anyone on this machine tried it
RECORD = "puzzle-player.json"
VERSION = 1


class RatingError(Connect4Error):
    """A player record that cannot be read: not JSON, or not the record's fields."""


@dataclass(frozen=True)
class Glicko:
    """A Glicko-2 rating: ``rating`` and ``deviation`` in rating points, ``volatility``."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi**2)


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the algorithm: the new volatility (the Illinois algorithm)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        top = ex * (delta * delta - phi * phi - v - ex)
        return top / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(big_c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2.0
        big_b, fb = big_c, fc
    return math.exp(big_a / 2.0)


def glicko2(player: Glicko, results: Sequence[tuple[Glicko, float]], tau: float = TAU) -> Glicko:
    """The player's rating after one rating period's ``results`` (the opponent's rating
    and the player's score: 1 a win, 0.5 a draw, 0 a loss); without results only the
    deviation grows.

    >>> new = glicko2(Glicko(1500, 200), [(Glicko(1400, 30), 1), (Glicko(1550, 100), 0),
    ...                                   (Glicko(1700, 300), 0)])  # Glickman's example
    >>> round(new.rating, 2), round(new.deviation, 2), round(new.volatility, 6)
    (1464.05, 151.52, 0.059996)
    """
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    if not results:
        grown = math.sqrt(phi * phi + player.volatility**2)
        return replace(player, deviation=min(350.0, grown * SCALE))
    terms = []
    for opponent, score in results:
        g = _g(opponent.deviation / SCALE)
        expected = 1.0 / (1.0 + math.exp(-g * (mu - (opponent.rating - 1500.0) / SCALE)))
        terms.append((g, expected, score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in terms)
    gained = sum(g * (s - e) for g, e, s in terms)
    sigma = _volatility(player.volatility, phi, v, v * gained, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gained
    return Glicko(1500.0 + SCALE * new_mu, SCALE * new_phi, sigma)


def attempt(player: Glicko, puzzle: Glicko, *, solved: bool) -> tuple[Glicko, Glicko]:
    """The player's and the puzzle's ratings after one attempt (a game between them)."""
    score = 1.0 if solved else 0.0
    return glicko2(player, [(puzzle, score)]), glicko2(puzzle, [(player, 1.0 - score)])


@dataclass
class PlayerRecord:
    """What is kept of the player: the rating, the attempts and those solved, the streak
    and the best one, and each tried puzzle's rating here (by id)."""

    player: Glicko = field(default_factory=Glicko)
    attempts: int = 0
    solved: int = 0
    streak: int = 0
    best_streak: int = 0
    puzzles: dict[str, Glicko] = field(default_factory=dict)

    def puzzle_rating(self, puzzle_id: str, first: int) -> Glicko:
        """The puzzle's rating here, or its first rating with a puzzle's deviation."""
        return self.puzzles.get(puzzle_id, Glicko(float(first), PUZZLE_DEVIATION))

    def record(self, puzzle_id: str, first: int, *, solved: bool) -> None:
        """Count one attempt at the puzzle and move both ratings."""
        self.player, self.puzzles[puzzle_id] = attempt(
            self.player, self.puzzle_rating(puzzle_id, first), solved=solved
        )
        self.attempts += 1
        self.solved += solved
        self.streak = self.streak + 1 if solved else 0
        self.best_streak = max(self.best_streak, self.streak)


def record_path() -> Path:
    """Where the player's record is kept: a file under the cache root."""
    return cache_root() / RECORD


def load_record(path: str | os.PathLike[str] | None = None) -> PlayerRecord:
    """The record at ``path`` (default :func:`record_path`); a new one where there is
    none; :class:`RatingError` saying what is wrong with a damaged one."""
    where = Path(path) if path is not None else record_path()
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        return PlayerRecord()
    except OSError as error:
        raise RatingError(f"cannot read the puzzle record {where}: {error.strerror}") from None
    try:
        data = json.loads(text)
        if data.get("version") != VERSION:
            raise ValueError("not a puzzle record of this version")
        return PlayerRecord(
            Glicko(*map(float, data["player"])),
            int(data["attempts"]), int(data["solved"]), int(data["streak"]),
            int(data["best_streak"]),
            {str(k): Glicko(*map(float, v)) for k, v in data["puzzles"].items()},
        )  # fmt: skip
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise RatingError(
            f"the puzzle record {where} is damaged ({error}); remove it to start a new one"
        ) from None


def save_record(record: PlayerRecord, path: str | os.PathLike[str] | None = None) -> None:
    """Write the record whole (the old one stays until the new one is complete)."""
    where = Path(path) if path is not None else record_path()
    where.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "version": VERSION,
        "player": list(asdict(record.player).values()),
        "attempts": record.attempts,
        "solved": record.solved,
        "streak": record.streak,
        "best_streak": record.best_streak,
        "puzzles": {k: list(asdict(v).values()) for k, v in record.puzzles.items()},
    }
    atomic_write(where, json.dumps(data).encode(), what="puzzle record")


def reset_record(path: str | os.PathLike[str] | None = None) -> bool:
    """Remove the record (the next puzzle starts at the first rating); ``False`` where
    there was none."""
    where = Path(path) if path is not None else record_path()
    try:
        where.unlink()
    except FileNotFoundError:
        return False
    return True
