"""The HTTP API on boards over 64 bits (8x8, 9x7, 10x6): the size list, /solve,
/api/analyze, /api/move and /api/review, late positions checked against a naive negamax."""

from __future__ import annotations

import httpx
import pytest

from connect4.solver import kernel_ready
from connect4.web.api import lanes as web_lanes
from tests.naive import NaiveSolver
from tests.test_solver_wide import columns_of, late_positions
from tests.web_helpers import live_client


@pytest.fixture(scope="module", autouse=True)
def kernels_loaded(web_url: str) -> None:
    # A fresh machine compiles each big size's kernel once (under a minute each);
    # until then the server answers 503 "being compiled" (tested below).
    for width, height in ((8, 8), (9, 7), (10, 6)):
        assert kernel_ready(width, height, wait=600), f"{width}x{height} never loaded"


def test_the_big_boards_are_served(client: httpx.Client) -> None:
    info = client.get("/api/info").json()
    sizes = next(game["sizes"] for game in info["games"] if game["kind"] == "connect4")
    assert {"8x8", "9x7", "10x6"} <= set(sizes)


def test_solve_and_analyze_on_10x6(client: httpx.Client) -> None:
    position = late_positions(10, 6, 13, 1, seed=1006)[0]
    naive = NaiveSolver(10, 6)
    columns = naive.column_scores(columns_of(position))
    body = client.get("/solve", params={"pos": position.moves, "width": 10, "height": 6}).json()
    assert body["score"] == [100 if s is None else s for s in columns]
    query = {"pos": position.moves, "width": 10, "height": 6}
    analysis = client.get("/api/analyze", params=query).json()
    assert analysis["score"] == naive.score(columns_of(position))
    assert analysis["column_scores"] == columns
    best = max(s for s in columns if s is not None)
    assert analysis["best_moves"] == [c + 1 for c, s in enumerate(columns) if s == best]


def test_the_perfect_player_moves_on_8x8(client: httpx.Client) -> None:
    position = late_positions(8, 8, 13, 1, seed=808)[0]
    columns = NaiveSolver(8, 8).column_scores(columns_of(position))
    request = {"pos": position.moves, "player": "perfect", "width": 8, "height": 8}
    body = client.post("/api/move", json=request).json()
    assert body["value"] == max(s for s in columns if s is not None)
    assert columns[body["move"]] == body["value"]
    mcts = client.post("/api/move", json={**request, "player": "mcts:playouts=300,seed=1"})
    assert mcts.status_code == 200 and mcts.json()["move"] in position.legal_moves()


def test_a_kernel_still_compiling_is_a_503_saying_so(
    client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def ready(width: int, height: int, *, load: bool = True, wait: float = 0.0) -> bool:
        return (width, height) != (9, 7)

    monkeypatch.setattr(web_lanes, "kernel_ready", ready)
    response = client.get("/api/analyze", params={"pos": "1234", "width": 9, "height": 7})
    assert response.status_code == 503
    assert response.json()["error"] == (
        "the solver for 9x7 boards is being compiled (the first time this server solves "
        "that size; under a minute): try again shortly"
    )
    move = {"pos": "1234", "player": "perfect:level=easy", "width": 9, "height": 7}
    assert client.post("/api/move", json=move).status_code == 503
    move["player"] = "alphabeta:depth=2"  # no solver needed: it plays
    assert client.post("/api/move", json=move).status_code == 200


def test_a_big_review_past_the_time_limit_is_a_503() -> None:
    game = "1a2a3a4"  # red wins on 10x6: the early positions cannot be solved in 2 s
    with live_client(threads=1, time_limit=2.0) as http:
        response = http.get("/api/review", params={"pos": game, "width": 10, "height": 6})
    assert response.status_code == 503
    assert response.json()["error"].startswith("time limit exceeded: ")
