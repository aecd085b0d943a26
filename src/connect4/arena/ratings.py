"""Ratings from game results: Bradley–Terry (Elo scale) maximum likelihood.

Each player ``i`` has a rating ``r_i`` in Elo points; ``i`` scores against
``j`` with expectation ``p_ij = 1 / (1 + 10 ** ((r_j - r_i) / 400))``. A game
contributes ``s log p + (1 - s) log (1 - p)`` to the log-likelihood, with
``s`` = 1, 0.5 (draw) or 0. Newton's method maximises it. A player who wins
(or loses) every game would drift to infinity, so each player also gets
``prior_draws`` virtual draws against a 0-rated reference (the BayesElo trick);
the default of 1 barely moves players with dozens of games. Ratings are shown
centred (mean 0); the 95 % intervals come from the inverse Hessian (observed
information) of the centred ratings.

>>> games = [("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10
>>> a, b = fit_ratings(["a", "b"], games)
>>> round(a.elo - b.elo), a.elo > 0 > b.elo, a.low < a.elo < a.high
(188, True, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

ELO_SCALE = 400.0 / math.log(10.0)  # p = sigmoid(diff / ELO_SCALE)
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Rating:
    """One player's fitted rating: Elo (centred), 95 % interval, games and points."""

    name: str
    elo: float
    low: float
    high: float
    games: int
    points: float

    @property
    def margin(self) -> float:
        """Half the width of the 95 % interval."""
        return (self.high - self.low) / 2


def expected_score(rating: float, opponent: float) -> float:
    """The expected score of a ``rating`` player against ``opponent``.

    >>> round(expected_score(400, 0), 4)
    0.9091
    """
    return float(1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0)))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    result: np.ndarray = 0.5 * (1.0 + np.tanh(0.5 * x))
    return result


def fit_ratings(
    players: Sequence[str],
    games: Iterable[tuple[str, str, float]],
    prior_draws: float = 1.0,
    max_iterations: int = 200,
) -> list[Rating]:
    """Fit ratings to ``games`` = ``(player, opponent, player's score)`` triples.

    Raises ``ValueError`` for an unknown player name, a score outside [0, 1],
    or (with ``prior_draws=0``) results that do not pin the ratings down.
    """
    index = {name: i for i, name in enumerate(players)}
    n = len(players)
    count = np.zeros((n, n))
    points = np.zeros((n, n))  # points[i, j]: what i scored against j
    for a, b, score in games:
        if a not in index or b not in index:
            raise ValueError(f"game between unknown players {a!r} and {b!r}")
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"score {score} of {a!r} against {b!r} is outside 0-1")
        i, j = index[a], index[b]
        if i == j:
            continue
        count[i, j] += 1
        count[j, i] += 1
        points[i, j] += score
        points[j, i] += 1.0 - score
    if n == 0:
        return []
    ratings = np.zeros(n)
    hessian = np.zeros((n, n))
    for _ in range(max_iterations):
        p = _sigmoid((ratings[:, None] - ratings[None, :]) / ELO_SCALE)
        q = _sigmoid(ratings / ELO_SCALE)  # expected score against the reference
        gradient = (points - count * p).sum(axis=1) + prior_draws * (0.5 - q)
        weights = count * p * (1.0 - p)
        hessian = weights.copy()
        np.fill_diagonal(hessian, 0.0)
        hessian[np.diag_indices(n)] = -weights.sum(axis=1) - prior_draws * q * (1.0 - q)
        gradient /= ELO_SCALE
        hessian /= ELO_SCALE**2
        if prior_draws == 0:
            # The likelihood alone ignores a common shift: pin the mean at 0.
            gradient -= ratings.sum() / ELO_SCALE**2
            hessian -= 1.0 / ELO_SCALE**2
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            raise ValueError(
                "the results do not determine the ratings (a player with no games, or "
                "only wins or only losses); use prior_draws > 0"
            ) from None
        step = np.clip(step, -400.0, 400.0)
        ratings -= step
        if float(np.max(np.abs(step))) < 1e-7:
            break
    else:
        raise ValueError(
            "the results do not determine the ratings (a player with no games, or "
            "only wins or only losses); use prior_draws > 0"
        )
    covariance = np.linalg.inv(-hessian)
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    centred = centre @ ratings
    centred_cov = centre @ covariance @ centre.T
    margins = Z95 * np.sqrt(np.clip(np.diag(centred_cov), 0.0, None))
    totals = count.sum(axis=1)
    scored = points.sum(axis=1)
    return [
        Rating(
            name=name,
            elo=float(centred[i]),
            low=float(centred[i] - margins[i]),
            high=float(centred[i] + margins[i]),
            games=int(totals[i]),
            points=float(scored[i]),
        )
        for i, name in enumerate(players)
    ]
