"""The Bradley–Terry (Elo) maximum-likelihood ratings and their intervals."""

from __future__ import annotations

import math
import random

import pytest

from connect4.arena.ratings import expected_score, fit_ratings


def synthetic_games(
    truth: dict[str, float], games_per_pair: int, seed: int
) -> list[tuple[str, str, float]]:
    """Games drawn from the model itself: win/draw/loss with the right expected score."""
    rng = random.Random(seed)
    names = list(truth)
    games = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = expected_score(truth[a], truth[b])
            draw = min(0.2, 2 * min(p, 1 - p))
            for _ in range(games_per_pair):
                u = rng.random()
                score = 1.0 if u < p - draw / 2 else 0.5 if u < p + draw / 2 else 0.0
                games.append((a, b, score) if rng.random() < 0.5 else (b, a, 1.0 - score))
    return games


def test_two_players_without_prior_recover_the_log_odds_exactly() -> None:
    games = [("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10
    a, b = fit_ratings(["a", "b"], games, prior_draws=0)
    assert a.elo - b.elo == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert a.elo == pytest.approx(-b.elo)
    assert (a.games, a.points, b.games, b.points) == (40, 30.0, 40, 10.0)
    # Observed information of the difference: 40 p (1 - p) with p = 3/4, in Elo units.
    sd_difference = 400 / math.log(10) / math.sqrt(40 * 0.75 * 0.25)
    assert a.margin == pytest.approx(1.959964 * sd_difference / 2, rel=1e-4)


def test_draws_count_as_half_points() -> None:
    with_draws = fit_ratings(["a", "b"], [("a", "b", 0.5)] * 10 + [("a", "b", 1.0)] * 5)
    halves = fit_ratings(["a", "b"], [("a", "b", 1.0)] * 10 + [("a", "b", 0.0)] * 5)
    assert with_draws[0].elo == pytest.approx(halves[0].elo)
    assert with_draws[0].points == 10.0


def test_synthetic_strengths_are_recovered_and_covered() -> None:
    truth = {"p1": -350.0, "p2": -120.0, "p3": 0.0, "p4": 150.0, "p5": 320.0}
    mean = sum(truth.values()) / len(truth)
    centred = {name: value - mean for name, value in truth.items()}
    ratings = fit_ratings(list(truth), synthetic_games(truth, 150, seed=11))
    fitted = {r.name: r for r in ratings}
    order = sorted(truth, key=lambda name: fitted[name].elo)
    assert order == ["p1", "p2", "p3", "p4", "p5"]
    for name, rating in fitted.items():
        assert rating.low <= centred[name] <= rating.high, (name, rating, centred[name])
        assert 20 < rating.margin < 80
    assert sum(r.elo for r in ratings) == pytest.approx(0.0, abs=1e-6)


def test_intervals_cover_the_truth_about_95_percent_of_the_time() -> None:
    truth = {"a": -200.0, "b": 0.0, "c": 200.0}
    covered = total = 0
    for seed in range(40):
        for rating in fit_ratings(list(truth), synthetic_games(truth, 40, seed)):
            covered += rating.low <= truth[rating.name] <= rating.high
            total += 1
    assert covered / total >= 0.88


def test_an_unbeaten_player_gets_a_finite_rating_thanks_to_the_prior() -> None:
    games = [("perfect", "weak", 1.0)] * 20 + [("weak", "random", 0.5)] * 20
    ratings = {r.name: r for r in fit_ratings(["perfect", "weak", "random"], games)}
    assert ratings["perfect"].elo > ratings["weak"].elo + 300
    assert math.isfinite(ratings["perfect"].high)
    with pytest.raises(ValueError, match="do not determine the ratings"):
        fit_ratings(["perfect", "weak"], [("perfect", "weak", 1.0)] * 5, prior_draws=0)


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown players"):
        fit_ratings(["a"], [("a", "z", 1.0)])
    with pytest.raises(ValueError, match="outside 0-1"):
        fit_ratings(["a", "b"], [("a", "b", 2.0)])
    assert fit_ratings([], []) == []
