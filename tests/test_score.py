"""The score module: Pons' scores from stones and back, words, best columns, mates."""

from __future__ import annotations

import random

import numpy as np
import pytest

from connect4.core.position import Position
from connect4.core.score import (
    MATE,
    ScoreError,
    best_columns,
    loss_score,
    mate_value,
    moves_to_end,
    pick_best,
    score_bounds,
    score_label,
    score_of_mate,
    win_score,
    win_stone,
)

SIZES = [9, 16, 20, 25, 30, 35, 42, 56]


def play_out(moves: str, width: int = 7, height: int = 6) -> Position:
    return Position.from_moves(moves, width, height)


@pytest.mark.parametrize("size", SIZES)
def test_the_stone_of_the_win_inverts_the_score(size: int) -> None:
    for ply in range(size):
        for stone in range(ply + 1, size + 1):
            mover_wins = (stone - ply) % 2 == 1  # the side to move plays stones ply+1, ply+3...
            score = win_score(size, stone - 1)
            if score == 0:
                continue  # the last stone of an even board: a win there scores like a draw
            signed = score if mover_wins else -score
            assert win_stone(signed, ply, size) == stone, (size, ply, stone)
            assert moves_to_end(signed, ply, size) == (stone - ply + 1) // 2
            assert score_of_mate(mate_value(signed, ply, size), size) == signed


def test_bounds_are_a_win_and_a_loss_with_the_next_stones() -> None:
    assert score_bounds(42, 0) == (-21, 21)
    assert loss_score(42, 4) == -win_score(42, 5)
    stones = np.arange(0, 42, dtype=np.int64)
    low, high = score_bounds(42, stones)
    assert list(high) == [win_score(42, int(s)) for s in stones]
    assert list(low) == [loss_score(42, int(s)) for s in stones]


def test_labels_count_the_winners_moves_on_odd_boards_too() -> None:
    # 5x5 (25 cells), the second player to move: a win or a loss with the next stones
    position = Position.from_moves("1122335", 5, 5)  # yellow to move, red threatens 4
    assert position.to_move == 2
    assert score_label(win_score(25, position.ply), position.ply, 25) == "win in 1"
    assert score_label(-win_score(25, position.ply + 1), position.ply, 25) == "loss in 1"
    assert score_label(2, 0, 42) == "win in 20"
    assert score_label(-1, 1, 42) == "loss in 20"
    assert (score_label(0, 4, 42), score_label(None, 4, 42)) == ("draw", "unknown")


@pytest.mark.parametrize(
    ("width", "height", "moves"),
    [(7, 6, "4455"), (7, 6, "44556"), (7, 6, "445566"), (7, 6, "44455554221"),
     (5, 5, "1122335"), (5, 5, "33224"), (5, 5, "332241"), (5, 4, "2233")],
)  # fmt: skip
def test_labels_count_the_moves_of_perfect_play(width: int, height: int, moves: str) -> None:
    from connect4.solver import Solver

    solver = Solver(width, height, 16)
    position = play_out(moves, width, height)
    score = solver.solve(position)
    label = score_label(score, position.ply, position.size)
    mover = position.to_move
    played = {1: 0, 2: 0}
    while not position.is_over():
        played[position.to_move] += 1
        position.play(solver.best_move(position))
    winner = position.winner()
    if winner is None:
        assert label == "draw"
    else:
        side = "win" if winner == mover else "loss"
        assert label == f"{side} in {played[winner]}"


def test_best_columns_and_tie_breaks() -> None:
    scores: list[int | None] = [None, 1, 3, 3, -2, 3, None]
    assert best_columns(scores) == [2, 3, 5]
    assert pick_best(scores) == 3
    picks = {pick_best(scores, "random", random.Random(seed)) for seed in range(30)}
    assert picks == {2, 3, 5}
    rng = random.Random(5)
    state = rng.getstate()
    assert pick_best([0, 4, 1], "random", rng) == 1
    assert rng.getstate() == state  # one best column: no draw
    with pytest.raises(ScoreError, match="no playable column"):
        pick_best([None, None])
    with pytest.raises(ScoreError, match="unknown tie_break 'left'"):
        pick_best(scores, "left")


def test_mates_of_the_classic_search_convert_to_pons_scores() -> None:
    from connect4.classic.search import Limits, search

    position = play_out("445566")  # red to move wins at once: stone 7
    result = search(position.copy(), limits=Limits(depth=3))
    assert result.value is not None
    assert result.value == MATE - 7
    assert score_of_mate(result.value, 42) == win_score(42, 6) == 18
    assert mate_value(18, 6, 42) == MATE - 7
    assert score_of_mate(0, 42) == 0 and score_of_mate(35, 42) is None
