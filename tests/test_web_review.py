"""``GET /api/review`` over real HTTP: the graded rows, bad input as 400 JSON, 503 past the
time limit."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from connect4.web import create_app
from connect4.web.server import BackgroundServer


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with (
        BackgroundServer(create_app(threads=1, time_limit=2.0)) as live,
        httpx.Client(base_url=live.url, timeout=60) as http,
    ):
        yield http


def error_of(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    return str(body["error"])


def test_review_grades_every_move(client: httpx.Client) -> None:
    body = client.get("/api/review", params={"pos": "4455"}).json()
    assert (body["moves"], body["result"], body["decisive_ply"]) == ("4455", "red to move", 4)
    assert [row["verdict"] for row in body["plies"]] == ["best", "best", "blunder", "blunder"]
    assert body["plies"][3]["scores"] == [-18, -18, 2, -18, -18, 2, -18]
    assert body["plies"][3]["best_moves"] == [2, 5]
    assert body["evaluation"] == [1, 1, 1, -2, 18]
    assert [p["accuracy"] for p in body["players"]] == [0.5, 0.5]


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
