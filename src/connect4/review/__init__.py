"""Game review: every move of a game graded by exact scores.

``values`` computes every move's exact score in a position (the solver with
the shipped books for Connect Four, full search for tic-tac-toe) and the best
line from it (the principal variation); ``grading``
turns a whole game into per-ply rows, verdicts and per-player figures;
``plot`` draws the evaluation graph.

>>> from connect4.core import Board
>>> r = review("5123", Board("tictactoe"))
>>> r.players[0].accuracy, r.players[1].mistakes
(1.0, 1)
"""

from connect4.review.grading import PlayerSummary, PlyReview, Review, Verdict, grade, review
from connect4.review.values import (
    BestLine,
    MoveScores,
    ReviewError,
    best_line,
    exact_scores,
    review_solver,
)

__all__ = [
    "BestLine",
    "MoveScores",
    "PlayerSummary",
    "PlyReview",
    "Review",
    "ReviewError",
    "Verdict",
    "best_line",
    "exact_scores",
    "grade",
    "review",
    "review_solver",
]
