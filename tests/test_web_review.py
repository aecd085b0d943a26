"""``GET /api/review`` over real HTTP: the graded rows, bad input as 400 JSON, 503 past the
time limit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.web_helpers import error_of, live_client

WEB_SETTINGS = {"threads": 1, "time_limit": 2.0}  # the shared server's: 503 past 2 s


@pytest.fixture(scope="module")
def roomy() -> Iterator[httpx.Client]:
    """A server with two threads per lane and time to solve games past the 7x6 book."""
    with live_client(timeout=300, threads=2, time_limit=120.0) as http:
        yield http


def test_review_grades_every_move(client: httpx.Client) -> None:
    body = client.get("/api/review", params={"pos": "4455"}).json()
    assert (body["moves"], body["result"], body["decisive_ply"]) == ("4455", "red to move", 4)
    assert [row["verdict"] for row in body["plies"]] == ["best", "best", "blunder", "blunder"]
    assert body["plies"][3]["scores"] == [-18, -18, 2, -18, -18, 2, -18]
    assert body["plies"][3]["best_move_numbers"] == [3, 6]  # numbered as in move strings
    assert [row["move_number"] for row in body["plies"]] == [4, 4, 5, 5]
    assert body["evaluation"] == [1, 1, 1, -2, 18]
    assert [p["accuracy"] for p in body["players"]] == [0.5, 0.5]


def test_every_endpoint_numbers_moves_from_1_as_move_strings_do(client: httpx.Client) -> None:
    # After 445, yellow's best moves are columns 3 and 6: the analysis, the review of
    # the game's next move and the perfect player's move all say so with one numbering.
    analysis = client.get("/api/analyze", params={"pos": "445"}).json()
    row = client.get("/api/review", params={"pos": "4455"}).json()["plies"][3]
    move = client.post("/api/move", json={"pos": "445", "player": "perfect"}).json()
    assert analysis["best_moves"] == row["best_move_numbers"] == [3, 6]
    assert row["move_number"] == int(row["label"]) == 5
    assert move["move_number"] == int(move["move_label"]) and move["move_number"] in (3, 6)
    # The 0-based fields are kept for a release, marked deprecated in the schema.
    assert row["best_moves"] == [2, 5] and move["move"] == move["move_number"] - 1
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for model, field in (
        ("ReviewPly", "move"),
        ("ReviewPly", "best_moves"),
        ("MoveResponse", "move"),
    ):
        assert schemas[model]["properties"][field]["deprecated"] is True


def test_review_of_a_finished_tictactoe_game(client: httpx.Client) -> None:
    body = client.get("/api/review", params={"pos": "51238", "game": "tictactoe"}).json()
    assert body["result"] == "X has won"
    assert [row["label"] for row in body["plies"]] == list("51238")
    assert body["players"][1]["mistakes"] == 1


def test_review_on_another_board_size(client: httpx.Client) -> None:
    body = client.get("/api/review", params={"pos": "3322", "width": 5, "height": 4}).json()
    assert (body["width"], body["height"]) == (5, 4)
    assert all(row["proven"] for row in body["plies"])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"pos": "48"}, "move 2 ('8'): column 8 is out of range 1-7"),
        ({"pos": "4444444"}, "move 7 ('4'): column 4 is full"),
        ({"pos": "55", "game": "tictactoe"}, "move 2 ('5'): cell 5 is taken"),
        ({"pos": "1", "game": "chess"}, "unknown game 'chess'"),
        ({"pos": "1", "width": 5, "height": 5}, "board 5x5 is not served here"),
        (
            {"pos": "4455", "rules": "count-fours"},
            "the solver handles the standard rules only: count-fours games cannot be reviewed",
        ),
        ({"pos": "4455", "rules": "chess"}, "unknown rules 'chess'"),
        ({"pos": "5", "game": "tictactoe", "rules": "count-fours"}, "tic-tac-toe has only"),
        ({"pos": "4455x"}, "move 5 ('x'): not a column number 1-7"),
        ({"pos": "44444445"}, "move 7 ('4'): column 4 is full"),
        ({"pos": "1" * 43}, "too many moves: 43 moves"),
        ({"pos": "4455362" + "1"}, "the game is already over"),
        ({"pos": "1", "width": 12, "height": 10}, "too large"),
    ],
)
def test_bad_input_is_a_400_json_error(
    client: httpx.Client, params: dict[str, str | int], message: str
) -> None:
    assert message in error_of(client.get("/api/review", params=params), 400)


def test_a_review_past_the_time_limit_is_a_503(client: httpx.Client) -> None:
    """No book ships for 8x7 and its early positions take far more than 2 s."""
    response = client.get("/api/review", params={"pos": "44", "width": 8, "height": 7})
    assert "time limit exceeded" in error_of(response, 503)


def test_the_reviews_scores_are_the_librarys(roomy: httpx.Client) -> None:
    """The server solves a game's moves on its worker threads at once; the answer is
    the one review() gives in one thread (games past the 7x6 book, finished or not)."""
    from connect4.review import review
    from connect4.review.values import clear_cache

    for moves in ("4455362", "74575677163217743", "2323664631224316726631157244144175375"):
        clear_cache()
        body = roomy.get("/api/review", params={"pos": moves}).json()
        clear_cache()
        for row in body["plies"]:  # the API's numbering from 1, beside the review's own
            assert row.pop("move_number") == row["move"] + 1
            assert row.pop("best_move_numbers") == [move + 1 for move in row["best_moves"]]
        assert body == review(moves).as_dict(), moves


def test_reviews_at_once_each_get_their_own_answer(roomy: httpx.Client) -> None:
    import concurrent.futures

    games = ["4455", "445536", "7457567716321", "3322"]
    url = str(roomy.base_url)

    def review_from(index: int) -> Any:
        # one client address each (all of 127/8 is this machine): one deep job per client
        transport = httpx.HTTPTransport(local_address=f"127.0.0.{index + 2}")
        with httpx.Client(base_url=url, transport=transport, timeout=60) as client:
            return client.get("/api/review", params={"pos": games[index]}).json()

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        bodies = list(pool.map(review_from, range(len(games))))
    assert [body["moves"] for body in bodies] == games
    assert [len(body["plies"]) for body in bodies] == [len(m) for m in games]
    assert all(row["proven"] for body in bodies for row in body["plies"])


def test_a_wrongly_typed_parameter_is_a_422(client: httpx.Client) -> None:
    assert "width" in error_of(client.get("/api/review", params={"width": "wide"}), 422)


def test_the_empty_game_is_an_empty_review(client: httpx.Client) -> None:
    body = client.get("/api/review", params={"pos": ""}).json()
    assert (body["plies"], body["evaluation"], body["decisive_ply"]) == ([], [None], None)


def test_openapi_documents_the_review(client: httpx.Client) -> None:
    schema = client.get("/openapi.json").json()
    operation = schema["paths"]["/api/review"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {
        "pos", "game", "width", "height", "rules"
    }  # fmt: skip
    responses = operation["responses"]
    ok = responses["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ok.endswith("/ReviewResponse")
    for status in ("400", "503"):
        ref = responses[status]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/ErrorResponse")
    fields = schema["components"]["schemas"]["ReviewResponse"]["properties"]
    assert {"plies", "players", "evaluation", "outcomes", "decisive_ply"} <= set(fields)
