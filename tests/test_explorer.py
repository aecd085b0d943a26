"""The opening explorer: exact scores, the best line and games counted, through the library,
the command line and the HTTP API."""

from __future__ import annotations

import random

import pytest

from connect4 import Position, TicTacToe
from connect4.core.limits import Limit
from connect4.core.score import win_stone
from connect4.review import ReviewError, best_line, exact_scores


@pytest.mark.parametrize("start", ["", "4453", "44455554221", "3344", "1"])
def test_best_line_plays_best_moves_to_the_end_its_score_promises(start: str) -> None:
    position = Position.from_moves(start)
    score = max(s for s in exact_scores(position).scores if s is not None)
    line = best_line(position)
    assert line.complete
    board = position.copy()
    for move in line.moves:
        scores = exact_scores(board).scores
        assert scores[move] == max(s for s in scores if s is not None)
        board.play(move)
    assert board.is_over()
    if score == 0:
        assert board.winner() is None
    else:  # the winner's four is the stone the root's score names
        assert board.ply == win_stone(score, position.ply, position.size)
    assert position.moves == start  # left as it was


def test_best_line_on_six_by_five_and_tictactoe() -> None:
    rng = random.Random(8)
    for _ in range(5):
        position = Position(6, 5)
        for _ in range(rng.randrange(0, 8)):
            playable = [c for c in position.legal_moves() if not position.is_winning_move(c)]
            position.play(rng.choice(playable))
        line = best_line(position)
        assert line.complete and len(line.moves) >= 1
    assert best_line(TicTacToe.from_moves("5")).complete


def test_best_line_stops_under_its_limit_and_refuses_a_game_over() -> None:
    stopped = best_line(Position.from_moves("44"), limit=Limit(nodes=0))
    assert stopped.moves == () and not stopped.complete
    assert best_line(Position.from_moves("4453"), max_moves=3).moves == (2, 3, 3)
    with pytest.raises(ReviewError, match="already over"):
        best_line(Position.from_moves("4455667"))
