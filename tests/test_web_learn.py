"""The learning tools on the web: ``GET /api/practice`` through the real server (the
exercises are the library's, every answer graded by it), and in Chromium at 1280x800
and 390x844 the threat map drawn on the board and "Practise your mistakes" after a
review."""

from __future__ import annotations

import random

import httpx
import pytest

from connect4.core.games import Board
from connect4.learn.practice import exercises, parse_sides
from connect4.review import review
from tests.web_helpers import error_of, live_client


def _random_game(board: Board, seed: int, length: int) -> str:
    rng = random.Random(seed)
    game = board.new()
    while game.ply < length and not game.is_over():
        game.play(rng.choice(game.legal_moves()))
    return game.moves


SMALL = Board("connect4", 6, 5)
TICTACTOE = Board("tictactoe")
GAMES = [
    ("4455", Board(), "both"),
    ("4455", Board(), "red"),
    ("1234567", Board(), "yellow"),
    (_random_game(Board(), 3, 16), Board(), "both"),
    (_random_game(SMALL, 5, 14), SMALL, "both"),
    ("5123", TICTACTOE, "o"),
    (_random_game(TICTACTOE, 2, 9), TICTACTOE, "both"),
]


def _params(pos: str, board: Board, side: str) -> dict[str, object]:
    return {
        "pos": pos,
        "side": side,
        "game": board.kind,
        "width": board.width,
        "height": board.height,
    }


@pytest.mark.parametrize(("pos", "board", "side"), GAMES)
def test_the_exercises_and_their_grades_are_the_librarys(
    client: httpx.Client, pos: str, board: Board, side: str
) -> None:
    answer = client.get("/api/practice", params=_params(pos, board, side))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    expected = exercises(review(pos, board), parse_sides(board.kind, side))
    assert body["sides"] == list(parse_sides(board.kind, side))
    got = body["exercises"]
    assert [(e["ply"], e["position"], e["move_number"] - 1, e["kind"]) for e in got] == [
        (x.ply, x.position, x.move, x.kind) for x in expected
    ]
    for exercise, library in zip(got, expected, strict=True):
        assert exercise["scores"] == list(library.scores)
        assert exercise["question"] == library.question()
        legal = [m for m, s in enumerate(library.scores) if s is not None]
        assert [(a["move_number"] - 1, a["grade"], a["text"]) for a in exercise["answers"]] == [
            (m, library.grade(m).grade, library.grade(m).text) for m in legal
        ]
        solution, line = exercise["solution"], library.solution()
        assert solution["move_number"] - 1 == line.move and solution["complete"]
        assert (solution["line"], solution["text"]) == ("".join(line.line), line.text)


def test_a_hand_made_blunder_is_the_one_exercise(client: httpx.Client) -> None:
    # 4455: red's 5 (ply 3) threw the win away; only 4 keeps it
    body = client.get("/api/practice", params={"pos": "4455", "side": "red"}).json()
    (exercise,) = body["exercises"]
    assert (exercise["ply"], exercise["position"], exercise["kind"]) == (3, "44", "missed win")
    grades = {a["move_number"]: a["grade"] for a in exercise["answers"]}
    assert grades == {c: "best" if c == 4 else "wrong" for c in range(1, 8)}
    assert exercise["right_move_numbers"] == [4] and exercise["solution"]["label"] == "4"
    nothing = client.get("/api/practice", params={"pos": "4453", "side": "yellow"}).json()
    assert nothing["exercises"] == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"pos": "4455", "side": "purple"}, "side 'purple': give red, yellow, 1, 2 or both"),
        (
            {"pos": "5123", "game": "tictactoe", "side": "red"},
            "side 'red': give x, o, 1, 2 or both",
        ),
        ({"pos": "448"}, "move 3 ('8'): column 8 is out of range 1-7"),
        ({"pos": "44", "rules": "count-fours"}, "the solver handles the standard rules only"),
        ({"pos": "1", "width": 5, "height": 5}, "board 5x5 is not served here"),
    ],
)
def test_bad_input_is_a_400(client: httpx.Client, params: dict[str, object], message: str) -> None:
    assert error_of(client.get("/api/practice", params=params), 400).startswith(message)


def test_a_game_not_settled_within_the_time_limit_is_a_503() -> None:
    with live_client(threads=1, time_limit=2.0, warm_up=False) as http:
        slow = http.get("/api/practice", params={"pos": "1", "width": 8, "height": 7})
        assert "not solved within 2 s" in error_of(slow, 503)
