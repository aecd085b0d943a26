"""The HTTP API over real HTTP: a uvicorn server on a free 127.0.0.1 port, driven by httpx.

Every endpoint, every kind of bad input (always a JSON ``{"error": ...}`` with
400/413/422, never a 500 or a traceback), and the 503 paths (time limit, full pool).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import doctest
import functools
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import connect4.web
from connect4 import Game, Position
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.score import score_label
from connect4.players import KINDS, MoveChoice, PlayerKind
from connect4.players.base import PlayerBase
from connect4.solver.backend import TABLES
from connect4.solver.bench import pons_path
from connect4.web import (
    api,
    app as web_app,
    errors,
    middleware,
    models,
    pool,
    routes,
    server,
    service,
)
from connect4.web.api import (
    lanes as api_lanes,
    players as api_players,
    review as api_review,
    server as api_server,
    solver as api_solver,
)
from connect4.web.routes import (
    page as page_routes,
    players,
    review as review_routes,
    server as server_routes,
    solver,
)
from tests.web_helpers import deep_busy, error_of, live_server, wait_for


def pons_lines(name: str, count: int) -> list[tuple[str, int]]:
    """The first ``count`` positions and scores of a Pons benchmark file."""
    lines = pons_path(name).read_text().splitlines()[:count]
    return [(moves, int(score)) for moves, score in (line.split() for line in lines)]


# ------------------------------------------------------------------ /solve
def test_solve_has_gamesolver_shape(client: httpx.Client) -> None:
    # "4455": red plays 3 or 6 for an open three and wins with its 4th stone: 22 - 4 = 18.
    body = client.get("/solve", params={"pos": "4455"}).json()
    assert body["pos"] == "4455"
    assert len(body["score"]) == 7
    assert body["score"][2] == body["score"][5] == 18
    assert max(body["score"][c] for c in (0, 1, 3, 4, 6)) < 18


def test_solve_is_readable_from_other_sites(client: httpx.Client) -> None:
    response = client.get("/solve?pos=4455", headers={"Origin": "https://example.org"})
    assert response.headers["access-control-allow-origin"] == "*"


def test_solve_marks_full_columns_with_100(client: httpx.Client) -> None:
    body = client.get("/solve?pos=444444").json()
    assert body["score"][3] == 100
    assert all(-18 <= s <= 18 for c, s in enumerate(body["score"]) if c != 3)


PONS_SAMPLE = pons_lines("Test_L3_R1", 4) + pons_lines("Test_L2_R1", 3)


@pytest.mark.parametrize(("moves", "score"), PONS_SAMPLE)
def test_solve_agrees_with_pons(client: httpx.Client, moves: str, score: int) -> None:
    body = client.get("/solve", params={"pos": moves}).json()
    assert max(s for s in body["score"] if s != 100) == score


# ------------------------------------------------------------------ /api/analyze
def test_analyze_reports_scores_best_moves_and_effort(client: httpx.Client) -> None:
    moves, score = pons_lines("Test_L3_R1", 1)[0]
    body = client.get("/api/analyze", params={"pos": moves}).json()
    assert body["pos"] == moves
    assert (body["width"], body["height"], body["ply"]) == (7, 6, len(moves))
    assert body["score"] == score
    assert body["complete"] is True
    assert body["nodes"] >= 1
    assert body["seconds"] >= 0
    columns = body["column_scores"]
    assert len(columns) == 7
    assert body["best_moves"] == [c + 1 for c, s in enumerate(columns) if s == score]
    assert body["score_text"] == score_label(score, len(moves), 42)
    for s, text in zip(columns, body["column_texts"], strict=True):
        assert (s is None) == (text is None)


def test_analyze_immediate_win_in_words(client: httpx.Client) -> None:
    body = client.get("/api/analyze?pos=4455").json()
    assert body["score"] == 18
    assert body["best_moves"] == [3, 6]
    assert body["column_texts"][2] == body["score_text"] == "win in 2"
    assert body["to_move"] == 1


def test_analyze_other_board_size(client: httpx.Client) -> None:
    # Red has 1-2-3 on the bottom row of a 5x4 board; 4 completes the four at once.
    body = client.get("/api/analyze", params={"pos": "112233", "width": 5, "height": 4}).json()
    assert (body["width"], body["height"]) == (5, 4)
    assert body["score"] == (5 * 4 + 1 - 6) // 2
    assert body["best_moves"] == [4]


def test_score_labels() -> None:
    # Red to move on the empty board wins with its last (21st) stone: score 1.
    assert score_label(1, 0, 42) == "win in 21"
    assert score_label(18, 4, 42) == "win in 2"
    assert score_label(-18, 5, 42) == "loss in 1"
    assert score_label(0, 10, 42) == "draw"
    assert score_label(None, 0, 42) == "unknown"


# ------------------------------------------------------------------ /api/move
def test_move_random_player(client: httpx.Client) -> None:
    body = client.post("/api/move", json={"pos": "4453", "player": "random:seed=3"}).json()
    assert 1 <= body["move_number"] <= 7
    assert body["move_label"] == str(body["move_number"]) == str(body["move"] + 1)
    assert body["pos_after"] == "4453" + body["move_label"]
    assert body["tree"] is None
    assert body["stats"]["seconds"] >= 0
    assert body["over"] is False


def test_a_seeded_random_player_answers_a_question_asked_again_the_same() -> None:
    # The web app keeps a player per thread between requests; each request is a
    # question of its own, so a seeded random player draws afresh from its seed (the
    # one thread serves every request here, so the kept player answers them all).
    with live_server(threads=1, warm_up=False) as url:
        for pos in ("", "4453"):
            request = {"pos": pos, "player": "random:seed=11"}
            moves = [httpx.post(url + "/api/move", json=request, timeout=60) for _ in range(6)]
            assert len({response.json()["move_number"] for response in moves}) == 1


def test_move_mcts_player_reports_its_columns(client: httpx.Client) -> None:
    body = client.post("/api/move", json={"pos": "44", "player": "mcts:playouts=1000,seed=1"})
    columns = body.json()["stats"]["columns"]
    assert [(c["move"], c["visits"]) for c in columns] == [
        ("1", 93), ("2", 164), ("3", 237), ("4", 150), ("5", 122), ("6", 134), ("7", 100),
    ]  # fmt: skip
    assert columns[2]["proven"] is None and isinstance(columns[2]["value"], float)


def test_move_perfect_player_wins_at_once(client: httpx.Client) -> None:
    body = client.post("/api/move", json={"pos": "445566", "player": "perfect"}).json()
    assert body["move"] in (2, 6)  # 3 or 7 completes the bottom row
    assert body["over"] is True
    assert body["result"] == "red has won"


def test_move_tictactoe_uses_numpad(client: httpx.Client) -> None:
    # X has 7 and 8 (top row): 9 wins; the AI must find it.
    body = client.post(
        "/api/move", json={"pos": "7182", "player": "alphabeta", "game": "tictactoe"}
    ).json()
    assert body["move_label"] == "9"
    assert body["pos_after"] == "71829"
    assert body["result"] == "X has won"


def test_move_alphabeta_returns_search_tree(client: httpx.Client) -> None:
    spec = "alphabeta:depth=3"
    body = client.post("/api/move", json={"pos": "4453", "player": spec, "tree": True}).json()
    tree = body["tree"]
    assert tree is not None and body["tree_available"] is True
    root = tree["tree"]
    assert root["path"] == "" and root["depth"] == 0
    assert root["children"], "the root was expanded"
    assert {"id", "path", "move", "depth", "alpha", "beta", "value", "pruned"} <= set(root)
    assert body["stats"]["nodes"] >= len(root["children"])
    assert any(node["pruned"] for node in walk(root))
    without = client.post("/api/move", json={"pos": "4453", "player": spec}).json()
    assert without["tree"] is None
    assert without["move"] == body["move"]


def test_move_minimax_tree_has_no_pruning(client: httpx.Client) -> None:
    body = client.post(
        "/api/move", json={"pos": "", "player": "minimax:depth=2", "tree": True}
    ).json()
    root = body["tree"]["tree"]
    assert len(root["children"]) == 7
    assert not any(node["pruned"] for node in walk(root))
    assert body["tree"]["node_count"] == 57  # 1 + 7 + 49


def walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = [node]
    for child in node.get("children") or []:
        nodes.extend(walk(child))
    return nodes


def test_cap_tree_keeps_the_top_of_the_tree() -> None:
    leaf = {"id": 9, "children": []}
    tree = {"id": 0, "children": [{"id": i, "children": [leaf, leaf]} for i in range(1, 4)]}
    capped = service.cap_tree(tree, 5)
    assert [child["id"] for child in capped["children"]] == [1, 2, 3]
    assert capped["node_count"] == 5
    assert capped["children"][0]["children"] == [{"id": 9, "children": []}]
    assert service.count_nodes(tree) == 10


# ------------------------------------------------------------------ /api/players
def test_players_lists_kinds_for_the_menus(client: httpx.Client) -> None:
    body = client.get("/api/players").json()
    kinds = {kind["kind"]: kind for kind in body["players"]}
    assert {"random", "minimax", "alphabeta", "perfect"} <= set(kinds)
    assert "cmd" not in kinds and "kaggle" not in kinds and "human" not in kinds
    assert body["games"] == ["connect4", "tictactoe"]
    assert body["rules"] == ["standard", "count-fours"]
    assert body["solver"] is True
    assert set(kinds["perfect"]["options"]["level"]["choices"]) >= {"easy", "medium", "hard"}
    # a number's bounds, which the page clamps a link's values to (the players' own)
    depth, time_ = kinds["alphabeta"]["options"]["depth"], kinds["mcts"]["options"]["time"]
    assert (depth["low"], depth["high"], depth["integer"]) == (1, 42, True)
    assert (time_["low"], time_["high"], time_["integer"]) == (0.01, 3600, False)
    level = kinds["perfect"]["options"]["level"]
    assert (level["low"], level["high"], level["integer"]) == (None, None, False)


def test_analyze_tictactoe_cells_in_numpad_order(client: httpx.Client) -> None:
    # X (7, 8) completes the top row with 9 at once; 3 blocks O's bottom row and wins
    # one move later on the 3-5-7 diagonal; anything else lets O complete 1-2-3.
    body = client.get("/api/analyze", params={"pos": "7182", "game": "tictactoe"}).json()
    assert (body["game"], body["width"], body["height"], body["ply"]) == ("tictactoe", 3, 3, 4)
    assert body["column_scores"] == [None, None, 2, -2, -2, -2, None, None, 3]
    assert body["column_texts"][8] == body["score_text"] == "win in 1"
    assert body["best_moves"] == [9]
    empty = client.get("/api/analyze", params={"game": "tictactoe"}).json()
    assert empty["column_scores"] == [0] * 9 and empty["score_text"] == "draw"


def test_info_has_what_the_page_draws_with(client: httpx.Client) -> None:
    body = client.get("/api/info").json()
    games = {game["kind"]: game for game in body["games"]}
    assert games["connect4"]["sides"] == ["Red", "Yellow"]
    assert (games["connect4"]["width"], games["connect4"]["height"]) == (7, 6)
    assert games["connect4"]["notation"].startswith("123456789abc")
    assert games["tictactoe"] == {
        "kind": "tictactoe",
        "title": "Tic-tac-toe",
        "sides": ["X", "O"],
        "width": 3,
        "height": 3,
        "notation": "123456789",
        "sizes": ["3x3"],
    }
    assert games["connect4"]["sizes"] == [
        "7x6", "6x5", "5x4", "4x4", "6x7", "8x7", "9x6", "8x8", "9x7", "10x6"
    ]  # fmt: skip
    assert body["rules"] == ["standard", "count-fours"]
    assert (body["mate"], body["mate_window"]) == (1_000_000_000, 1000)
    assert body["solver"] is True
    # the caps the page clamps a link's specs to (the fixture's server: 20 s per request)
    assert body["limits"] == {
        "move_seconds": 19.5,
        "request_seconds": 20.0,
        "deep_jobs_per_client": 1,
    }


# ------------------------------------------------------------------ the page and the docs
def test_page_and_static_files(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<div id="board"' in page.text
    assert '<script type="module" src="/static/js/main.js">' in page.text
    names = re.findall(r'from "\./(\w+\.js)"', client.get("/static/js/main.js").text)
    assert {"api.js", "board.js", "tree.js", "solution.js"} <= set(names)
    files = [f"js/{name}" for name in names] + ["js/main.js", "style.css"]
    for name in files:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200
        kind = "text/css" if name.endswith(".css") else "javascript"
        assert kind in response.headers["content-type"]


def test_openapi_docs(client: httpx.Client) -> None:
    assert client.get("/docs").status_code == 200
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    assert set(paths) == {
        "/solve",
        "/api/analyze",
        "/api/review",
        "/api/practice",
        "/api/explore",
        "/api/threats",
        "/api/puzzle",
        "/api/puzzle/attempt",
        "/api/policy",
        "/api/move",
        "/api/players",
        "/api/health",
        "/api/info",
    }
    routes = (("/solve", "get"), ("/api/analyze", "get"), ("/api/review", "get"),
              ("/api/practice", "get"), ("/api/explore", "get"),
              ("/api/move", "post"))  # fmt: skip
    for path, method in routes:
        assert {"200", "400", "422", "503"} <= set(paths[path][method]["responses"]), path
    for path in ("/api/analyze", "/api/review", "/api/explore", "/api/threats"):  # one query
        parameters = [p["name"] for p in paths[path]["get"]["parameters"]]
        assert parameters == ["pos", "width", "height", "game", "rules"], path


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_api_docs_load_nothing_from_the_internet(client: httpx.Client, page: str) -> None:
    html = client.get(page).text
    assert "http://" not in html and "https://" not in html, html
    scripts = re.findall(r'(?:src|href)="(/[^"]+)"', html)
    assert any(path.endswith(".js") for path in scripts), html
    for path in scripts:
        response = client.get(path)
        assert response.status_code == 200, path
        assert len(response.content) > 1000, path


def test_health(client: httpx.Client) -> None:
    body = client.get("/api/health").json()
    assert body["ok"] is True
    assert [p["name"] for p in body["pools"]] == ["quick", "deep"]


# ------------------------------------------------------------------ bad input
BAD_GETS = [
    ("/api/analyze?pos=4&rules=count-fours", 400, "the solver handles the standard rules only"),
    ("/api/analyze?pos=4&game=chess", 400, "unknown game 'chess': choose one of connect4"),
    ("/solve?pos=4x53", 400, "move 2 ('x'): not a column number 1-7"),
    ("/solve?pos=4444444", 400, "move 7 ('4'): column 4 is full"),
    ("/solve?pos=48", 400, "move 2 ('8'): column 8 is out of range 1-7"),
    ("/solve?pos=1212121", 400, "the game is over (red has won): there is no move to make"),
    (
        "/api/analyze?pos=1&width=11&height=11",
        400,
        "board 11x11 is too large: width*(height+1) = 132 must be <= 128",
    ),
    (
        "/api/analyze?pos=" + "1234567" * 7,
        400,
        "too many moves: 49 moves but the board has only 42 cells",
    ),
    ("/solve?pos=" + "1" * 2000, 422, "query parameter pos: String should have at most 1024"),
    ("/api/analyze?pos=1&width=x", 422, "query parameter width: Input should be a valid integer"),
    ("/api/analyze?pos=1&height=0", 422, "query parameter height: Input should be greater than"),
    ("/api/analyze?pos=1&width=100", 422, "query parameter width: Input should be less than"),
    ("/api/analyze?pos=1&game=chess", 400, "unknown game 'chess': choose one of connect4"),
    (
        "/solve?pos=1&width=5&height=5",
        400,
        "board 5x5 is not served here: choose one of 7x6, 6x5, 5x4, 4x4, 6x7, 8x7, 9x6, "
        "8x8, 9x7, 10x6",
    ),
    ("/api/analyze?pos=55&game=tictactoe", 400, "move 2 ('5'): cell 5 is taken"),
    ("/api/analyze?pos=14253&game=tictactoe", 400, "the game is over (X has won)"),
    ("/nowhere", 404, "Not Found"),
]


@pytest.mark.parametrize(("path", "status", "message"), BAD_GETS)
def test_bad_queries(client: httpx.Client, path: str, status: int, message: str) -> None:
    assert error_of(client.get(path), status).startswith(message)


BAD_MOVES: list[tuple[dict[str, Any], int, str]] = [
    ({"pos": "4444444"}, 400, "move 7 ('4'): column 4 is full"),
    ({"pos": "12121212"}, 400, "move 8 ('2'): the game is already over (red has won)"),
    ({"pos": "1212121"}, 400, "the game is over (red has won)"),
    ({"pos": "4", "player": "genius"}, 400, "unknown player 'genius': choose one of "),
    ({"pos": "4", "player": "random:speed=3"}, 400, "random: unknown key 'speed'"),
    ({"pos": "4", "player": "human"}, 400, "player 'human': a human player's moves come from"),
    ({"pos": "4", "player": "cmd:rm -rf /"}, 400, "player 'cmd:rm -rf /': cmd players cannot"),
    ({"pos": "4", "player": "kaggle:x.py"}, 400, "player 'kaggle:x.py': kaggle players cannot"),
    ({"pos": "4", "player": "x" * 300}, 422, "body field player: String should have at most"),
    ({"pos": "4", "game": "chess"}, 400, "unknown game 'chess': choose one of connect4"),
    ({"pos": "4", "rules": "gomoku"}, 400, "unknown rules 'gomoku': choose one of standard"),
    (
        {"pos": "5", "game": "tictactoe", "rules": "count-fours"},
        400,
        "tic-tac-toe has only the standard rules",
    ),
    ({"pos": "55", "game": "tictactoe"}, 400, "move 2 ('5'): cell 5 is taken"),
    ({"pos": "50", "game": "tictactoe"}, 400, "move 2 ('0'): not a cell number 1-9"),
    ({"pos": "1", "width": 11, "height": 11}, 400, "board 11x11 is too large"),
    ({"pos": "1", "width": 2, "height": 2}, 400, "board 2x2 is too small"),
    (
        {"pos": "1", "width": 10, "height": 4},
        400,
        "board 10x4 is not served here: choose one of 7x6",
    ),
    ({"pos": "4", "tree": "maybe"}, 422, "body field tree: Input should be a valid boolean"),
    ({"pos": 44}, 422, "body field pos: Input should be a valid string"),
]


@pytest.mark.parametrize(("body", "status", "message"), BAD_MOVES)
def test_bad_move_requests(
    client: httpx.Client, body: dict[str, Any], status: int, message: str
) -> None:
    assert error_of(client.post("/api/move", json=body), status).startswith(message)


def test_bad_json_and_big_bodies(client: httpx.Client) -> None:
    headers = {"content-type": "application/json"}
    message = error_of(client.post("/api/move", content=b"{not json", headers=headers), 422)
    assert message.startswith("request body: JSON decode error")
    big = b'{"pos": "' + b"1" * 70_000 + b'"}'
    assert "too large" in error_of(client.post("/api/move", content=big, headers=headers), 413)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the body arrives in pieces
        for _ in range(100):
            yield b"x" * 1000

    chunked = client.post("/api/move", content=chunks(), headers=headers)
    assert error_of(chunked, 413) == "request body too large (at most 65536 bytes)"
    assert error_of(client.get("/api/move"), 405) == "Method Not Allowed"


def test_count_fours_games_get_moves_but_no_solution(client: httpx.Client) -> None:
    body = client.post(
        "/api/move", json={"pos": "4", "player": "random:seed=1", "rules": "count-fours"}
    ).json()
    assert body["pos"] == "4" and not body["over"]
    server = api.Api(api.Settings(threads=1, warm_up=False))
    try:
        position = server.parse_connect4("44", Board("connect4", 7, 6, "count-fours"))
        assert position.rules == "count-fours"
        with pytest.raises(errors.BadRequest, match="standard rules only"):
            asyncio.run(server.solve_position(position))
    finally:
        server.stop()


SPEC_ERRORS = [
    ("alphabeta:depth=\u0663", "alphabeta: depth='\u0663' must be an integer 1-"),
    ("alphabeta:depth=4,depth=5", "alphabeta: depth given twice"),
    ("random:seed=4294967296", "random: seed='4294967296' must be an integer 0-4294967295"),
]


@pytest.mark.parametrize(("spec", "message"), SPEC_ERRORS)
def test_bad_player_options_are_400s(client: httpx.Client, spec: str, message: str) -> None:
    response = client.post("/api/move", json={"pos": "4", "player": spec})
    assert error_of(response, 400).startswith(message)


def test_an_unknown_player_lists_only_the_kinds_the_web_runs(client: httpx.Client) -> None:
    message = error_of(client.post("/api/move", json={"pos": "4", "player": "genius"}), 400)
    choices = message.split("choose one of ")[1].split(", ")
    assert "random" in choices and "alphabeta" in choices
    assert not {"cmd", "human", "kaggle"} & set(choices)


def test_a_search_cut_short_answers_its_best_move() -> None:
    # Its own hour is capped by the request's limit (5 s less 0.5 s to answer): a 200
    # with the deepest finished iteration's move, marked incomplete, never a 503. A short
    # search first loads the compiled engine, so loading it (slow on a busy machine) is
    # not part of the timed requests.
    with live_server(threads=1, time_limit=5.0, warm_up=False) as url:
        done = httpx.post(url + "/api/move", json={"pos": "", "player": "alphabeta:depth=2"})
        assert done.json()["complete"] is True and done.json()["reached"] is None
        for spec in ("alphabeta:time=3600", "alphabeta:depth=40"):
            response = httpx.post(url + "/api/move", json={"pos": "", "player": spec}, timeout=60)
            assert response.status_code == 200, response.text
            body = response.json()
            assert body["complete"] is False and body["move"] in range(7)
            assert body["reached"] == f"depth {body['stats']['depth']}"
            assert body["stats"]["depth"] >= 4


def test_a_deep_solve_is_answered_while_other_programs_keep_every_core_busy() -> None:
    # A 12-stone position that needs the deep lane (a few ms of CPU). When the lane ran
    # under SCHED_IDLE it got no CPU at all while a busy loop ran on each core: 503
    # after the limit. At nice +10 it gets its share.
    # The server is held to one core with a busy loop on it (its threads inherit this
    # thread's cores), so the test's other cores stay free for the rest of the run.
    cores = os.sched_getaffinity(0)
    core = {min(cores)}
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(busy.pid, core)
        os.sched_setaffinity(0, core)
        with live_server(threads=1, time_limit=10.0, warm_up=False) as url:
            response = httpx.get(url + "/solve", params={"pos": "351526512471"}, timeout=30)
            assert response.status_code == 200, response.text
            assert response.json()["score"] == [3, 5, 3, -12, 3, 1, -2]
            deep = httpx.get(url + "/api/health").json()["pools"][1]
            assert (deep["name"], deep["completed"], deep["timed_out"]) == ("deep", 1, 0)
    finally:
        os.sched_setaffinity(0, cores)
        busy.kill()
        busy.wait()


def test_a_job_stops_when_its_client_goes_away() -> None:
    # A search of hours under an hour's limit; the client gives up after 1 s: the job's
    # flag is set, the compiled search stops within ~0.1 s and its slot frees (no core
    # left burning for the hour the spec asked for). fuzz_web measures the latency.
    with live_server(threads=1, time_limit=3600.0, warm_up=False) as url:
        body = {"pos": "", "player": "alphabeta:depth=40"}
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(url + "/api/move", json=body, timeout=1.0)
        wait_for(lambda: deep_busy(url) == 0, "the job outlived its client", seconds=120)
        # Its worker is back on the queue: the search ended. (The process's CPU is not
        # measured here, other tests' background threads share it; fuzz_web's starvation
        # pass times the server's CPU going idle after its last answer.)


def test_one_deep_job_per_client_at_a_time() -> None:
    with live_server(threads=2, time_limit=5.0, warm_up=False) as url:
        first: list[httpx.Response] = []
        body = {"pos": "", "player": "mcts:time=3600"}
        hostile = threading.Thread(
            target=lambda: first.append(httpx.post(url + "/api/move", json=body, timeout=60))
        )
        hostile.start()
        wait_for(lambda: deep_busy(url) >= 1, "the first move never reached the deep lane")
        second = httpx.post(url + "/api/move", json=body, timeout=60)
        # refused at once (queued, it would have run and answered its move)
        assert error_of(second, 503).startswith("this client already has 1 deep job running")
        # Another address (all of 127/8 is this machine) gets the other deep worker.
        other = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(transport=other, timeout=10) as neighbour:
            answer = neighbour.post(url + "/api/move", json={"pos": "", "player": "random"})
        assert answer.status_code == 200
        hostile.join()
        answer = first[0].json()
        assert first[0].status_code == 200
        # the limit stopped it (how far it got in playouts), or (a fast machine) its tree
        # filled first, which ends the search as complete: nothing cut short to report
        if answer["complete"]:
            assert answer["stats"]["tree_full"] is True and answer["reached"] is None
        else:
            assert "playouts" in answer["reached"]


class ConfusedPlayer(PlayerBase):
    """A player whose search fails with a plain ValueError."""

    is_human = False
    spec = "confused"

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        raise ValueError("lost its place")


def test_a_players_plain_value_error_is_a_400(
    client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    confused = PlayerKind("confused", "fails", {}, lambda spec, options, context: ConfusedPlayer())
    monkeypatch.setitem(KINDS, "confused", confused)
    response = client.post("/api/move", json={"pos": "4", "player": "confused"})
    assert error_of(response, 400) == "player 'confused' found no move: lost its place"


# ------------------------------------------------------------------ 503
HARD = "/solve?pos=&width=8&height=7"


def test_time_limit_gives_503() -> None:
    # The empty 8x7 board (no opening book) needs far more than 0.3 s.
    with live_server(threads=1, time_limit=0.3, quick_nodes=1000) as url:
        response = httpx.get(url + HARD, timeout=30)
        message = error_of(response, 503)
        assert message.startswith("time limit exceeded")
        assert response.headers["retry-after"] == "1"
        # The server is still fine afterwards.
        assert httpx.get(url + "/solve?pos=4455", timeout=30).status_code == 200


def test_full_pool_gives_503() -> None:
    settings = {"threads": 1, "queue": 0, "time_limit": 3.0, "quick_nodes": 1000}
    with live_server(**settings, deep_per_client=0) as url:
        results: list[httpx.Response] = []
        first = threading.Thread(target=lambda: results.append(httpx.get(url + HARD, timeout=30)))
        first.start()
        wait_for(lambda: deep_busy(url) >= 1, "the first solve never reached the deep lane")
        message = error_of(httpx.get(url + HARD, timeout=30), 503)
        assert message.startswith("the server is busy: all 1 deep workers and 0 queue places")
        first.join()
        assert error_of(results[0], 503).startswith("time limit exceeded")
        health = httpx.get(url + "/api/health").json()["pools"][1]
        assert health["rejected"] == 1


def test_cheap_positions_pass_a_busy_deep_lane() -> None:
    settings = {"threads": 1, "queue": 4, "time_limit": 3.0, "quick_nodes": 1000}
    with live_server(**settings, cache_size=0) as url:
        results: list[httpx.Response] = []
        hard = threading.Thread(target=lambda: results.append(httpx.get(url + HARD, timeout=30)))
        hard.start()
        wait_for(lambda: deep_busy(url) >= 1, "the hard solve never reached the deep lane")
        moves, score = pons_lines("Test_L3_R1", 1)[0]
        cheap = httpx.get(url + "/api/analyze", params={"pos": moves}, timeout=30)
        assert cheap.status_code == 200 and cheap.json()["score"] == score
        assert not results, "the cheap position waited for the hard one"
        assert deep_busy(url) == 1
        hard.join()
        assert results[0].status_code == 503


def test_solved_positions_are_cached(client: httpx.Client) -> None:
    moves, _ = pons_lines("Test_L2_R1", 5)[4]
    before = client.get("/api/health").json()["cache"]
    first = client.get("/api/analyze", params={"pos": moves}).json()
    second = client.get("/api/analyze", params={"pos": moves}).json()
    after = client.get("/api/health").json()["cache"]
    assert first == second
    assert after["hits"] == before["hits"] + 1
    assert after["misses"] == before["misses"] + 1
    assert after["entries"] == before["entries"] + 1


def test_pool_rejects_and_times_out_directly() -> None:
    import asyncio

    gate = threading.Event()

    async def scenario() -> tuple[str, str]:
        workers = pool.WorkerPool("test", workers=1, queue=0)
        try:
            # The pool has no clock: the job's request limit ends its wait.
            slow = asyncio.ensure_future(workers.run(Limit.within(0.05), gate.wait, 5))
            await asyncio.sleep(0)
            with pytest.raises(pool.PoolSaturated) as busy:
                await workers.run(Limit(), sum, [1])
            with pytest.raises(pool.PoolTimeout) as late:
                await slow
            assert workers.busy == 1  # the job still runs: its slot stays taken
            gate.set()
            for _ in range(100):
                if workers.busy == 0:
                    break
                await asyncio.sleep(0.01)
            assert workers.busy == 0
            assert await workers.run(Limit(), sum, [1, 2]) == 3
            return str(busy.value), str(late.value)
        finally:
            workers.shutdown()

    busy, late = asyncio.run(scenario())
    assert busy.startswith("the server is busy")
    assert late == "time limit exceeded: the test work took longer than 0.05 s"


def test_pool_ends_a_job_at_its_request_limits_stop() -> None:
    """A request limit with no deadline, stopped from another thread: the pool's wait
    ends (503 "stopped") while the job still runs, and the job, working under a
    child of that limit, sees the stop at its next look; its slot is freed when it
    returns."""
    running, gate = threading.Event(), threading.Event()
    seen: list[bool] = []

    def search(limit: Limit) -> None:
        running.set()
        gate.wait(30)  # busy in compiled code, not looking at its limit
        seen.append(limit.expired())

    async def scenario() -> str:
        workers = pool.WorkerPool("test", workers=1, queue=0)
        request = Limit()
        try:
            job = asyncio.ensure_future(
                workers.run_ranked(0.0, functools.partial(search, request.tighter()), limit=request)
            )
            while not running.is_set():
                await asyncio.sleep(0.001)
            threading.Thread(target=request.stop).start()
            with pytest.raises(pool.PoolTimeout) as stopped:
                await job
            assert workers.busy == 1  # the job still runs: its slot stays taken
            gate.set()
            while workers.busy:
                await asyncio.sleep(0.001)
            assert seen == [True]
            assert workers.status()["timed_out"] == 1
            return str(stopped.value)
        finally:
            workers.shutdown()

    assert asyncio.run(scenario()) == "the test work was stopped before it finished"


def test_pool_starts_waiting_jobs_by_priority() -> None:
    import asyncio

    gate, running = threading.Event(), threading.Event()
    order: list[str] = []

    def block(seconds: float) -> None:
        running.set()
        gate.wait(seconds)

    async def scenario() -> None:
        workers = pool.WorkerPool("test", workers=1, queue=5)
        try:
            blocker = asyncio.ensure_future(workers.run(Limit.within(10.0), block, 5))
            while not running.is_set():  # the one thread is now busy
                await asyncio.sleep(0.001)
            ranks = (("late", 3.0), ("first", 1.0), ("second", 2.0))
            calls = [(rank, functools.partial(order.append, name)) for name, rank in ranks]
            jobs = [
                asyncio.ensure_future(workers.run_ranked(*call, limit=Limit.within(10.0)))
                for call in calls
            ]
            while workers.busy < 4:  # all three wait for it
                await asyncio.sleep(0.001)
            gate.set()
            await asyncio.gather(blocker, *jobs)
        finally:
            workers.shutdown()

    asyncio.run(scenario())
    assert order == ["first", "second", "late"]


# ------------------------------------------------------------------ the serve command
def test_serve_command_logs_one_line_per_request(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "server.log"
    command = [
        sys.executable,
        "-m",
        "connect4",
        "serve",
        "--port",
        str(port),
        "--threads",
        "1",
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                assert httpx.get(base + "/solve?pos=4455", timeout=30).status_code == 200
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        assert httpx.get(base + "/solve?pos=48").status_code == 400
    finally:
        process.terminate()
        process.wait(timeout=30)
    lines = log.read_text().splitlines()
    assert lines[0].startswith("connect4 web app: warming up")
    assert lines[1].startswith(f"connect4 web app on http://127.0.0.1:{port}/")
    assert sum('"GET /solve?pos=4455" 200' in line for line in lines) == 1
    assert sum('"GET /solve?pos=48" 400' in line for line in lines) == 1
    assert not any("Traceback" in line for line in lines)


def test_serve_command_rejects_a_busy_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "connect4", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 2
    assert result.stderr == f"error: cannot listen on 127.0.0.1:{port}: Address already in use\n"


# ------------------------------------------------------------------ hostile requests
def raw_exchange(url: str, request: bytes) -> bytes:
    """Send ``request`` whole over a fresh connection, then read the answer to its end."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def json_error_of(answer: bytes, status: int) -> str:
    """Check a raw JSON error answer and return its message."""
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode()), head
    assert b"content-type: application/json" in head.lower()
    message = json.loads(body)
    assert set(message) == {"error"}
    return str(message["error"])


@pytest.mark.parametrize("size", [200_000, 1_000_000, 10_000_000])
def test_big_bodies_sent_whole_get_413_not_a_reset(web_url: str, size: int) -> None:
    # The client sends everything before reading and asks to close afterwards: the
    # server must read the body away before it answers and closes, or the client's
    # unread data turns the close into a reset.
    body = b'{"pos": "' + b"4" * size + b'"}'
    request = (
        b"POST /api/move HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    ) + body
    answer = raw_exchange(web_url, request)
    assert json_error_of(answer, 413) == "request body too large (at most 65536 bytes)"


def test_big_body_awaiting_100_continue_gets_413_at_once(web_url: str) -> None:
    request = (
        b"POST /api/move HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n"
        b"Expect: 100-continue\r\n\r\n"
    )
    assert "too large" in json_error_of(raw_exchange(web_url, request), 413)


def test_cors_preflight_for_a_disallowed_method_gets_json(client: httpx.Client) -> None:
    headers = {"Origin": "http://elsewhere.example", "Access-Control-Request-Method": "POST"}
    response = client.options("/solve", headers=headers)
    assert error_of(response, 400) == "Disallowed CORS method"
    allowed = client.options("/solve", headers={**headers, "Access-Control-Request-Method": "GET"})
    assert allowed.status_code == 200


def test_bad_range_headers_on_static_files_get_json(client: httpx.Client) -> None:
    css = client.get("/static/style.css").content
    assert error_of(client.get("/static/style.css", headers={"Range": "bytes=abc"}), 400)
    unsatisfiable = client.get("/static/style.css", headers={"Range": "bytes=999999-"})
    assert error_of(unsatisfiable, 416) == "Requested Range Not Satisfiable"
    assert unsatisfiable.headers["content-range"] == f"bytes */{len(css)}"
    part = client.get("/static/style.css", headers={"Range": "bytes=0-9"})
    assert (part.status_code, part.content) == (206, css[:10])


def test_requests_the_http_parser_rejects_get_json(web_url: str) -> None:
    for garbage in (b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nBad Header\r\n\r\n"):
        answer = raw_exchange(web_url, garbage)
        assert json_error_of(answer, 400) == "Invalid HTTP request received."


def test_other_plain_text_errors_become_json(client: httpx.Client) -> None:
    assert error_of(client.request("FOO", "/"), (400, 405))
    assert error_of(client.post("/static/style.css"), 405) == "Method Not Allowed"
    head = client.head("/api/move")
    assert (head.status_code, head.headers["content-type"]) == (405, "application/json")


def test_kept_players_hold_no_table_between_requests() -> None:
    # The web app keeps players per thread (an LRU); a perfect player among them gives
    # its table back to the solver's bounded pool of free tables after each move, so
    # idle players hold none (each held 32 MB, up to four per thread).
    def ask() -> tuple[object, int]:
        player = service.cached_player("perfect", Board("connect4", 5, 4))
        player.choose(Position.from_moves("1122", 5, 4))  # no book on 5x4: a search
        return player.engine.solver._mem, TABLES.free_tables()  # type: ignore[attr-defined]

    with concurrent.futures.ThreadPoolExecutor(1) as thread:  # the cache is per thread
        held, free = thread.submit(ask).result()
    assert held is None
    assert 1 <= free <= TABLES.keep_total


# ------------------------------------------------------------------ docs of the modules
DOCUMENTED = [connect4.web, web_app, api, errors, middleware, models, pool, routes, server, service]
ROUTE_MODULES = [page_routes, players, review_routes, server_routes, solver]
API_MODULES = [api_lanes, api_players, api_review, api_server, api_solver]


@pytest.mark.parametrize("module", DOCUMENTED + ROUTE_MODULES + API_MODULES)
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_warm_up_loads_the_compiled_classic_searches_too() -> None:
    """The server's warm-up loads every compiled kernel a move request may run (alpha-beta
    and minimax share one, MCTS has its own), so no request loads one under its deadline."""
    import subprocess
    import sys

    script = (
        "from connect4.classic import fastmcts, fastsearch\n"
        "from connect4.web import service\n"
        "kernels = (fastsearch.COMPILED.search_node, fastmcts.COMPILED.run_playouts)\n"
        "print([len(k.signatures) for k in kernels])\n"
        "service.warm_up()\n"
        "print([len(k.signatures) for k in kernels])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()
    assert before == "[0, 0]"
    assert after == "[1, 1]"
