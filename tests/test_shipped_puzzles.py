"""The puzzle set shipped in the package: verified on a seeded sample, spread over
themes and ratings, no deep puzzle in it."""

from __future__ import annotations

import random
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from connect4.learn.puzzlefile import read_puzzles
from connect4.learn.puzzles import MAX_DEPTH, Puzzle, verify

SHIPPED = Path(str(resources.files("connect4").joinpath("data", "puzzles_7x6.jsonl")))
AT_LEAST = 5_000  # what the package promises (5,216 today)
TRIVIAL_SHARE = 0.2  # the generate run's --trivial-share


@pytest.fixture(scope="module")
def shipped() -> list[Puzzle]:
    assert SHIPPED.is_file(), f"{SHIPPED} is not in the package"
    return [puzzle for _, puzzle in read_puzzles(SHIPPED)]


def test_the_set_is_large_shallow_and_of_7x6(shipped: list[Puzzle]) -> None:
    assert len(shipped) >= AT_LEAST
    assert len({p.id for p in shipped}) == len(shipped)
    assert all((p.board.width, p.board.height) == (7, 6) for p in shipped)
    assert not [p.id for p in shipped if "deep" in p.themes]
    assert sum(p.trivial for p in shipped) <= TRIVIAL_SHARE * len(shipped)
    depths = [int(t[7:]) for p in shipped for t in p.themes if t.startswith("win-in-")]
    assert depths and max(depths) <= MAX_DEPTH


def test_the_set_spreads_over_themes_and_ratings(shipped: list[Puzzle]) -> None:
    themes = Counter(theme for p in shipped for theme in p.themes)
    for theme in (
        "only-drawing-move",
        "defence",
        "double-threat",
        "odd-even-threat",
        "zugzwang",
        "claimeven",
        *(f"win-in-{n}" for n in range(1, MAX_DEPTH + 1)),
    ):
        assert themes[theme] >= 100, (theme, themes)
    tiers = Counter(min(p.rating, 2000) // 400 * 400 for p in shipped)
    assert all(tiers[tier] >= 300 for tier in (400, 800, 1200, 1600, 2000)), tiers
    assert Counter(p.outcome for p in shipped)["draw"] >= 1000


def test_a_seeded_sample_verifies(shipped: list[Puzzle]) -> None:
    for puzzle in random.Random(33).sample(shipped, 50):
        verdict = verify(puzzle)
        assert verdict.ok, (puzzle.id, verdict.reason)
