"""Glicko-2 (Glickman's worked example) and the player's puzzle record kept locally."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect4.learn.ratings import (
    Glicko,
    PlayerRecord,
    RatingError,
    attempt,
    glicko2,
    load_record,
    reset_record,
    save_record,
)


def test_glickmans_worked_example() -> None:
    """'Example of the Glicko-2 system': 1464.06, 151.52, 0.05999 in the paper."""
    results = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
    new = glicko2(Glicko(1500, 200, 0.06), results)
    assert new.rating == pytest.approx(1464.06, abs=0.02)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_no_result_only_widens_the_deviation() -> None:
    idle = glicko2(Glicko(1700, 100), [])
    assert idle.rating == 1700 and idle.deviation > 100


def test_an_attempt_moves_both_ratings_against_each_other() -> None:
    player, puzzle = attempt(Glicko(1500, 100), Glicko(1500, 100), solved=False)
    assert player.rating < 1500 < puzzle.rating
    easy = attempt(Glicko(1500, 100), Glicko(900, 100), solved=True)[0]
    hard = attempt(Glicko(1500, 100), Glicko(2100, 100), solved=True)[0]
    assert hard.rating - 1500 > easy.rating - 1500 > 0


def test_the_record_is_kept_and_reset(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "record.json"
    record = load_record(path)
    assert record == PlayerRecord()
    record.record("abc", 1200, solved=True)
    record.record("abc", 1200, solved=True)
    record.record("def", 800, solved=False)
    save_record(record, path)
    again = load_record(path)
    assert (again.attempts, again.solved, again.streak, again.best_streak) == (3, 2, 0, 2)
    assert again.player == record.player and again.puzzles["abc"].rating < 1200
    assert reset_record(path) and not path.exists() and not reset_record(path)


def test_a_damaged_record_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text('{"version": 1, "player": [1500]')
    with pytest.raises(RatingError, match=r"damaged.*remove it"):
        load_record(path)
