"""The game review: verdicts against an independent exhaustive search, known games, errors."""

from __future__ import annotations

import json
import random

import pytest

from connect4 import Position
from connect4.core.errors import GameError, IllegalMoveError, InvalidMoveError
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.players import make_player
from connect4.review import Review, ReviewError, exact_scores, grade, review
from tests.naive import NaiveSolver

RESULT = {1: "win", 0: "draw", -1: "loss"}
VERDICT_BY_RESULTS = {
    ("win", "win"): "good",
    ("loss", "loss"): "good",
    ("win", "draw"): "mistake",
    ("draw", "loss"): "mistake",
    ("win", "loss"): "blunder",
}


def reference_verdict(scores: list[int | None], move: int) -> str:
    best = max(s for s in scores if s is not None)
    played = scores[move]
    assert played is not None
    if played == best:
        return "best"
    sign = (best > 0) - (best < 0), (played > 0) - (played < 0)
    return VERDICT_BY_RESULTS[RESULT[sign[0]], RESULT[sign[1]]]


def random_game(rng: random.Random, naive: NaiveSolver) -> str:
    """A random game played to its end on plain column lists."""
    columns: list[list[int]] = [[] for _ in range(naive.width)]
    moves = ""
    while True:
        playable = [c for c in range(naive.width) if len(columns[c]) < naive.height]
        if not playable:
            return moves
        column = rng.choice(playable)
        won = naive.wins(columns, column)
        columns[column].append(1 + len(moves) % 2)
        moves += str(column + 1)
        if won:
            return moves


def check_against_reference(moves: str, naive: NaiveSolver, first_ply: int) -> int:
    """Compare every graded ply from ``first_ply`` on; return how many were compared."""
    result = review(moves, Board("connect4", naive.width, naive.height))
    columns: list[list[int]] = [[] for _ in range(naive.width)]
    compared = 0
    for row, token in zip(result.plies, moves, strict=True):
        column = int(token) - 1
        assert (row.move, row.label, row.player) == (column, token, 1 + (row.ply - 1) % 2)
        if row.ply >= first_ply:
            expected = naive.column_scores(columns)
            assert list(row.scores) == expected, (moves, row.ply)
            assert row.proven
            assert row.verdict == reference_verdict(expected, column), (moves, row.ply)
            best = max(s for s in expected if s is not None)
            assert row.best_score == best
            assert row.best_moves == tuple(c for c, s in enumerate(expected) if s == best)
            assert row.loss == best - expected[column]  # type: ignore[operator]
            compared += 1
        columns[column].append(1 + (row.ply - 1) % 2)
    return compared


def test_verdicts_match_an_exhaustive_search_on_4x4() -> None:
    rng = random.Random(44)
    naive = NaiveSolver(4, 4)
    compared = sum(check_against_reference(random_game(rng, naive), naive, 1) for _ in range(40))
    assert compared > 200


def test_verdicts_match_an_exhaustive_search_on_5x4_past_the_opening() -> None:
    rng = random.Random(54)
    naive = NaiveSolver(5, 4)
    compared = 0
    for _ in range(15):
        compared += check_against_reference(random_game(rng, naive), naive, 8)
    assert compared > 40


def test_scores_match_the_solver_on_7x6_random_games() -> None:
    from connect4.solver import Solver

    solver = Solver(7, 6, 16)
    rng = random.Random(76)
    for _ in range(3):
        position = Position()
        while not position.is_over():
            position.play(rng.choice(position.legal_moves()))
        result = review(position.moves)
        replay = Position.from_moves(position.moves[:15])
        for row in result.plies[15:]:
            assert list(row.scores) == solver.analyze(replay), (position.moves, row.ply)
            replay.play(row.move)


def test_perfect_against_perfect_is_all_best_moves() -> None:
    player = make_player("perfect", game="connect4")
    position = Position()
    while not position.is_over():
        position.play(player.choose(position).move)
    result = review(position.moves)
    assert [p.accuracy for p in result.players] == [1.0, 1.0]
    assert {row.verdict for row in result.plies} == {"best"}
    assert result.result == "red has won"  # the first player wins 7x6
    assert result.decisive_ply is None  # the game went as the empty board's value says
    assert set(result.outcomes) == {1}


def test_a_first_move_on_the_edge_is_a_blunder() -> None:
    result = review("1")
    (row,) = result.plies
    assert row.scores == (-2, -1, 0, 1, 0, -1, -2)
    assert (row.verdict, row.best_moves, row.played_score, row.loss) == ("blunder", (3,), -2, 3)
    assert review("3").plies[0].verdict == "mistake"
    assert result.decisive_ply == 1
    assert result.outcomes == (1, -1)
    assert result.evaluation == (1, -2)
    assert result.players[0].line() == (
        "red: accuracy 0.0 % (0 of 1 moves best), 0 good, 0 mistakes, 1 blunder"
    )


def test_a_game_lost_by_a_known_blunder_is_graded_so() -> None:
    """On 5x4 perfect play draws; red throws the draw away at ply 3, then both play
    perfectly and yellow wins: ply 3 is the mistake that decided the game."""
    perfect = make_player("perfect", game="connect4", width=5, height=4)
    position = Position.from_moves("33", 5, 4)
    scores = exact_scores(position).scores
    losing = next(c for c, s in enumerate(scores) if s is not None and s < 0)
    position.play(losing)
    while not position.is_over():
        position.play(perfect.choose(position).move)
    result = review(position.moves, Board("connect4", 5, 4))
    assert result.result == "yellow has won"
    assert result.plies[2].verdict == "mistake"
    assert result.decisive_ply == 3
    assert [row.verdict for row in result.plies[3:]] == ["best"] * (len(result.plies) - 3)
    assert (result.players[0].mistakes, result.players[1].accuracy) == (1, 1.0)
    assert result.outcomes[:4] == (0, 0, 0, -1)


def test_tictactoe_is_searched_in_full() -> None:
    result = review("5123", Board("tictactoe"))
    assert [row.verdict for row in result.plies] == ["best", "best", "best", "mistake"]
    assert result.plies[3].scores == (None, None, -3, -3, None, -3, -3, 0, -3)
    assert result.plies[3].best_moves == (7,)
    assert [row.name for row in result.plies] == ["X", "O", "X", "O"]
    assert result.decisive_ply == 4
    won = review("51238", Board("tictactoe"))  # X completes 2-5-8 at once
    assert won.result == "X has won"
    assert (won.plies[-1].verdict, won.plies[-1].played_score) == ("best", 3)
    assert won.evaluation == (0, 0, 0, 0, 3, 3)


def test_positions_out_of_budget_are_not_proven() -> None:
    result = review("3322", Board("connect4", 6, 4), limit=Limit(nodes=0))
    assert all(row.verdict is None and not row.proven for row in result.plies)
    assert all(row.best_score is None and row.best_moves == () for row in result.plies)
    assert result.decisive_ply is None
    assert [p.accuracy for p in result.players] == [None, None]
    assert result.players[0].line().endswith("2 not proven")


def test_the_json_form_round_trips() -> None:
    result = review("4455")
    data = json.loads(json.dumps(result.as_dict()))
    assert set(data) == {
        "game", "width", "height", "rules", "moves", "result", "opening", "names",
        "decisive_ply", "outcomes", "evaluation", "players", "plies",
    }  # fmt: skip
    assert (data["opening"], data["names"]) == (0, None)
    assert data["plies"][2] == {
        "ply": 3, "player": 1, "name": "red", "move": 4, "label": "5",
        "scores": [-3, -3, -2, 1, -2, -3, -3], "proven": True, "best_score": 1,
        "best_moves": [3], "played_score": -2, "loss": 3, "verdict": "blunder",
    }  # fmt: skip
    assert data["players"][1]["accuracy"] == 0.5
    assert isinstance(result, Review)


def test_grade_refuses_a_move_better_than_the_best() -> None:
    with pytest.raises(ValueError, match="more than the best"):
        grade(1, 2)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"moves": "48"}, InvalidMoveError, r"move 2 \('8'\): column 8 is out of range 1-7"),
        ({"moves": "4x"}, InvalidMoveError, r"move 2 \('x'\)"),
        ({"moves": "4444444"}, IllegalMoveError, r"move 7 \('4'\): column 4 is full"),
        ({"moves": "44556677"}, IllegalMoveError, r"move 8 \('7'\)"),
        ({"moves": "11", "kind": "tictactoe"}, IllegalMoveError, r"move 2 \('1'\)"),
        ({"moves": "4", "rules": "count-fours"}, ReviewError, "count-fours"),
        ({"moves": "4", "kind": "chess"}, GameError, "unknown game 'chess'"),
        ({"moves": "4", "rules": "gomoku"}, GameError, "unknown rules 'gomoku'"),
        ({"moves": "4", "width": 11, "height": 11}, GameError, "board 11x11 is too large"),
    ],
)
def test_bad_input_gives_the_usual_errors(
    kwargs: dict[str, str], error: type[Exception], message: str
) -> None:
    moves = kwargs.pop("moves")
    with pytest.raises(error, match=message):
        review(moves, Board(**kwargs))  # type: ignore[arg-type]


def book_band_games() -> list[str]:
    """Random 7x6 games played on past the 12-stone book (where the work is)."""
    rng = random.Random(1312)
    games = []
    while len(games) < 4:
        position = Position()
        while not position.is_over() and position.ply < 17:
            position.play(rng.choice(position.legal_moves()))
        if position.ply >= 14:
            games.append(position.moves)
    return games


def test_the_book_bound_never_exceeds_the_score() -> None:
    from connect4.review.work import book_bound
    from connect4.solver import Solver
    from connect4.solver.book import load_book

    book = load_book("default", 7, 6, exact=True)
    solver = Solver(7, 6, 16, book=book)
    tight = 0
    for moves in book_band_games():
        position = Position.from_moves(moves[:12])
        for column in position.legal_moves():
            if position.is_winning_move(column):
                continue
            child = position.copy()
            child.play(column)
            bound, score = book_bound(child, book), solver.solve(child)
            assert bound is not None and bound <= score, (child.moves, bound, score)
            tight += bound == score
    assert tight > 0
    assert book_bound(Position.from_moves("4"), None) is None


def test_solves_shared_by_threads_give_the_one_thread_scores() -> None:
    """Several threads draining one queue (as the web server does), the dearest solves
    first, give each position exactly what the solver's own analysis gives."""
    import threading
    from collections import deque

    from connect4.review.values import clear_cache
    from connect4.review.work import GameScores
    from connect4.solver import Solver
    from connect4.solver.book import load_book

    solver = Solver(7, 6, 16, book=load_book("default", 7, 6, exact=True))
    for moves in book_band_games():
        clear_cache()
        work = GameScores(Position(), Position.from_moves(moves).history)
        queue = deque(work.dearest_first())
        results: dict[tuple[int, int], int | None] = {}
        threads = [threading.Thread(target=work.drain, args=(queue, results)) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not work.missing(results)
        for index, judged in enumerate(work.move_scores(results)):
            position = Position.from_moves(moves[:index])
            assert judged.complete
            assert list(judged.scores) == solver.analyze(position), (moves, index)


def test_a_deadline_leaves_positions_unproven_never_wrong() -> None:
    from connect4.review.values import clear_cache

    moves = book_band_games()[0]
    clear_cache()
    full = review(moves)
    clear_cache()
    cut = review(moves, limit=Limit.within(0.002))
    assert any(not row.proven for row in cut.plies)
    for row, right in zip(cut.plies, full.plies, strict=True):
        if row.proven:
            assert (row.scores, row.verdict) == (right.scores, right.verdict)
        else:
            assert row.verdict is None and row.best_moves == ()


def test_an_imposed_opening_is_graded_but_counts_for_nobody() -> None:
    whole = review("4455667")
    opened = review("4455667", opening=2, names=("alphabeta:depth=2", "perfect"))
    assert opened.plies == whole.plies and opened.decisive_ply == whole.decisive_ply
    red, yellow = opened.players
    assert (red.moves, red.best, red.blunders) == (3, 2, 1)  # plies 3 (blunder), 5, 7
    assert (whole.players[0].moves, whole.players[1].moves) == (4, 3)
    assert (red.moves, yellow.moves) == (3, 2)
    assert opened.as_dict()["names"] == ["alphabeta:depth=2", "perfect"]
    with pytest.raises(ReviewError, match="opening of 9 plies: the game has 7"):
        review("4455667", opening=9)
    cleared = review("4455667", reuse_table=False)
    assert cleared.plies == whole.plies
