"""The opening explorer: exact scores, the best line and games counted, through the library,
the command line and the HTTP API."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from connect4 import Position, TicTacToe
from connect4.arena.record import ResultLine, set_board, to_line
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.score import score_label, win_stone
from connect4.learn.collection import CollectionError, count_games_file
from connect4.learn.explorer import ExplorerError, ExplorerLimit, GameCounter, explore
from connect4.review import ReviewError, best_line, exact_scores
from tests.browser_helpers import open_page, tab_at
from tests.cli_helpers import run_cli
from tests.test_web_browser import DESKTOP, shoot
from tests.test_web_server import served
from tests.web_helpers import error_of, live_client, live_server


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


# ---------------------------------------------------------------- the explorer in the library
@pytest.mark.parametrize(
    ("moves", "board"),
    [
        ("", Board()),
        ("4453", Board()),
        ("4444443", Board()),
        ("3", Board("connect4", 6, 5)),
        ("1526", Board("connect4", 6, 5)),
        ("5", Board("tictactoe")),
    ],
)
def test_explored_scores_are_the_exact_scores(moves: str, board: Board) -> None:
    game = board.new(moves)
    found = explore(game)
    scores = exact_scores(game).scores
    assert [m.move for m in found.moves] == sorted(game.legal_moves())
    assert [m.score for m in found.moves] == [scores[m.move] for m in found.moves]
    assert found.score == max(s for s in scores if s is not None)
    assert found.line == best_line(game).moves and found.line_complete
    assert found.line[0] in found.best()
    assert found.games == 0 and all(m.games == 0 for m in found.moves)


def test_games_are_counted_by_position_with_their_results() -> None:
    games = [
        "4455667",  # red wins: 4 then 5 from the empty board
        "5544776",  # yellow's stones ... red wins too
        "44",  # stops early: counted, no result
        "4453",
        "4543",  # reaches 4453's position by another order: counted with it
    ]
    index = GameCounter(Board()).add_all(games).index()
    assert index.games == 5
    root = explore(Position(), index=index)
    assert {m.move + 1: m.games for m in root.moves if m.games} == {4: 4, 5: 1}
    assert root.games == 5
    four = root.moves[3]
    assert (four.wins, four.draws, four.losses) == (1, 0, 0)  # one of the four games ended
    transposed = explore(Position.from_moves("4453"), index=index)
    assert transposed.games == 0  # both games stopped there
    after_45 = explore(Position.from_moves("45"), index=index)
    assert {m.move + 1: m.games for m in after_45.moves if m.games} == {4: 1}
    assert {m.move + 1: m.games for m in explore(Position.from_moves("44"), index=index).moves
            if m.games} == {5: 2}  # fmt: skip


def test_a_draw_counts_for_both_sides() -> None:
    draw = "159287364"  # tic-tac-toe: a full board, no line
    assert TicTacToe.from_moves(draw).is_draw()
    index = GameCounter(Board("tictactoe")).add_all([draw]).index()
    first = explore(TicTacToe(), index=index).moves[0]
    (second,) = [m for m in explore(TicTacToe.from_moves("1"), index=index).moves if m.move == 4]
    assert (first.games, first.draws, second.games, second.draws) == (1, 1, 1, 1)


def test_the_explorer_refuses_what_it_cannot_explore() -> None:
    with pytest.raises(ExplorerError, match="already over"):
        explore(Position.from_moves("4455667"))
    other = GameCounter(Board("connect4", 6, 5)).index()
    with pytest.raises(ExplorerError, match="6x5 Connect Four, not 7x6 Connect Four"):
        explore(Position(), index=other)
    with pytest.raises(ExplorerLimit, match="within the limit") as stopped:
        explore(Position(8, 7), limit=Limit(nodes=1000))
    assert not isinstance(stopped.value, ValueError)  # a stop, not bad input
    with pytest.raises(ReviewError, match="count-fours"):
        explore(Board("connect4", rules="count-fours").new("44"))


# ---------------------------------------------------------------- games files
def result_line(game: int, moves: str, **board: object) -> str:
    """One line of an arena results file, in its real format (arena.record)."""
    record = ResultLine(
        game=game, tournament="t", red="random", yellow="random:seed=1", opening=moves[:1],
        moves=moves, winner=None, reason="draw", forfeit=None, detail="",
        move_seconds=[0.001] * (len(moves) - 1), move_nodes=[None] * (len(moves) - 1), seed=7,
    )  # fmt: skip
    return to_line(set_board(record, Board(**board)) if board else record)  # type: ignore[arg-type]


def test_a_games_file_is_recognised_by_its_first_line(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(
        result_line(0, "4453")
        + result_line(1, "4455667", kind="connect4", width=7, height=6, rules="standard")
        + result_line(2, "33", kind="connect4", width=6, height=5, rules="standard")
        + "\n"
        + '{"game":3,"tournament":"t"'  # the last line, torn by a kill
    )
    counter = GameCounter(Board())
    collected = count_games_file(results, counter)
    assert (collected.format, collected.games, collected.other_boards) == ("results", 2, 1)
    assert count_games_file(tmp_path, counter).games == 2  # a lab's folder: its results.jsonl
    strings = tmp_path / "games.txt"
    strings.write_text("\n4453\r\n  44 \n")
    collected = count_games_file(strings, counter)
    assert (collected.format, collected.games) == ("move strings", 2)
    assert counter.index().games == 6


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4453\n4448\n", "line 2: move 4 ('8'): column 8 is out of range 1-7"),
        ("4453 -2\n", "line 1: move 5 (' '): not a column number 1-7"),
        ('{"game":0,"moves":"44"}\n{"game":1}\n', "line 2: not a game record of connect4 arena"),
        ('{"game":0,"moves":"44"}\n{"game":1,\n{"game":2,"moves":"4"}\n', "line 2: not JSON"),
        ('{"moves":"44","width":0}\n', "line 1: the record's board is no board"),
        ("44\n\xff\n", "line 2: not UTF-8 text"),
    ],
)
def test_a_bad_games_file_names_its_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad"
    path.write_bytes(text.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    with pytest.raises(CollectionError, match=re.escape(f"{path} {message}")):
        count_games_file(path, GameCounter(Board()))


def test_a_missing_games_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CollectionError, match=r"games file .*nothing does not exist"):
        count_games_file(tmp_path / "nothing", GameCounter(Board()))
    with pytest.raises(CollectionError, match="is a folder, not a file"):
        count_games_file(tmp_path, GameCounter(Board()))


# ---------------------------------------------------------------- the command line
def test_explore_counts_the_games_of_a_real_arena_run(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    arena = run_cli(
        "arena", "-p", "random:seed=1", "-p", "random:seed=2", "--games-per-pair", "4",
        "--openings", "plies=1", "--workers", "1", "--results", str(results),
    )  # fmt: skip
    assert arena.returncode == 0, arena.stderr
    played = [json.loads(line)["moves"] for line in results.read_text().splitlines()]
    expected = Counter(moves[0] for moves in played)
    out = run_cli("explore", "--games", str(results), "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert {m["column"]: m["games"] for m in found["moves"] if m["games"]} == {
        int(column): count for column, count in expected.items()
    }
    assert found["games"] == len(played) and found["collection"][0]["format"] == "results"
    assert [m["score"] for m in found["moves"]] == list(exact_scores(Position()).scores)
    text = run_cli("explore", "--games", str(results))
    assert text.returncode == 0, text.stderr
    assert "position (empty board): red to move, win in 21 (score 1)" in text.stdout
    assert f"{results} (results): {len(played)} counted" in text.stdout
    assert "    4*  win in 21 (+1)" in text.stdout
    assert f"best line: {best_line_text('')}" in text.stdout


def best_line_text(moves: str) -> str:
    return "".join(str(move + 1) for move in best_line(Position.from_moves(moves)).moves)


def test_explore_a_position_on_other_boards_and_games() -> None:
    out = run_cli("explore", "1526", "--width", "6", "--height", "5", "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert [m["score"] for m in found["moves"]] == list(
        exact_scores(Position.from_moves("1526", 6, 5)).scores
    )
    tictactoe = run_cli("explore", "5", "--game", "tictactoe")
    assert tictactoe.returncode == 0, tictactoe.stderr
    assert "yellow to move, draw (score 0)" in tictactoe.stdout
    assert "    1*  draw (0)" in tictactoe.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("449",), 2, "error: move 3 ('9'): column 9 is out of range 1-7"),
        (("4455667",), 2, "error: the game is already over (red has won): no move to explore"),
        (("--games", "/nonexistent/games"), 2, "error: games file /nonexistent/games does not"),
        (("--width", "2", "--height", "2"), 2, "error: board 2x2 is too small"),
        (("1", "--width", "8", "--height", "7", "--time-limit", "0.5"), 130,
         "stopped: the solver could not score every move of 1 within the limit (0.5 s)"),
    ],
)  # fmt: skip
def test_explore_refuses_bad_input_in_one_line(
    args: tuple[str, ...], code: int, message: str
) -> None:
    out = run_cli("explore", *args)
    assert out.returncode == code
    assert out.stderr.startswith(message) and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_explore_names_the_bad_line_of_a_games_file(tmp_path: Path) -> None:
    path = tmp_path / "games.txt"
    path.write_text("4453\n44x\n")
    out = run_cli("explore", "--games", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"error: {path} line 2: move 3 ('x'): not a column number 1-7\n"


# ---------------------------------------------------------------- the HTTP API
def test_the_api_explores_with_exact_scores_and_no_collection(client: httpx.Client) -> None:
    answer = client.get("/api/explore", params={"pos": "4453"})
    assert answer.status_code == 200, answer.text
    found = answer.json()
    scores = exact_scores(Position.from_moves("4453")).scores
    assert [(m["column"], m["score"]) for m in found["moves"]] == [
        (column + 1, score) for column, score in enumerate(scores)
    ]
    assert all(m["games"] == 0 for m in found["moves"]) and found["games"] == 0
    assert found["score"] == max(s for s in scores if s is not None)
    assert found["line"] == best_line_text("4453") and found["line_complete"]
    assert found["moves"][2]["score_text"] == score_label(scores[2], 4, 42) == "loss in 18"
    six = client.get("/api/explore", params={"pos": "1526", "width": 6, "height": 5}).json()
    assert [m["score"] for m in six["moves"]] == list(
        exact_scores(Position.from_moves("1526", 6, 5)).scores
    )
    cells = client.get("/api/explore", params={"pos": "5", "game": "tictactoe"}).json()
    assert [m["column"] for m in cells["moves"]] == [1, 2, 3, 4, 6, 7, 8, 9]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"pos": "448"}, "move 3 ('8'): column 8 is out of range 1-7"),
        ({"pos": "4444444"}, "move 7 ('4'): column 4 is full"),
        ({"pos": "4455667"}, "the game is over (red has won): there is no move to make"),
        ({"pos": "44", "rules": "count-fours"}, "the solver handles the standard rules only"),
        ({"pos": "1", "width": 5, "height": 5}, "board 5x5 is not served here"),
    ],
)
def test_the_api_refuses_a_bad_position_with_a_400(
    client: httpx.Client, params: dict[str, object], message: str
) -> None:
    assert error_of(client.get("/api/explore", params=params), 400).startswith(message)


def test_the_api_counts_the_collection_the_server_was_started_with(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(
        result_line(0, "4453")
        + result_line(1, "4455667", kind="connect4", width=7, height=6, rules="standard")
        + result_line(2, "3", kind="connect4", width=6, height=5, rules="standard")
    )
    strings = tmp_path / "games.txt"
    strings.write_text("4543\n")  # 7x6 games; 4453's position by another order
    games = (str(results), str(strings))
    with live_client(games=games, threads=1, time_limit=5.0, warm_up=False) as http:
        root = http.get("/api/explore").json()
        assert {m["column"]: m["games"] for m in root["moves"] if m["games"]} == {4: 3}
        assert root["moves"][3]["wins"] == 1 and root["games"] == 3
        assert http.get("/api/explore", params={"pos": "4453"}).json()["games"] == 0
        small = http.get("/api/explore", params={"width": 6, "height": 5}).json()
        assert {m["column"]: m["games"] for m in small["moves"] if m["games"]} == {3: 1}
        tictactoe = http.get("/api/explore", params={"game": "tictactoe"}).json()
        assert tictactoe["games"] == 0  # move strings are 7x6 games: not replayed here
        slow = http.get("/api/explore", params={"pos": "1", "width": 8, "height": 7})
        assert "could not score every move of 1 within the limit" in error_of(slow, 503)


# ---------------------------------------------------------------- the page
@pytest.mark.browser
def test_the_explorer_panel_follows_the_board(page: Any) -> None:
    open_page(page, "?pos=4453&p1=human&p2=human")
    page.check("#show-explorer")
    page.wait_for_selector("#explorer .explorer-table tbody tr")
    rows = page.locator("#explorer tbody tr")
    scores = exact_scores(Position.from_moves("4453")).scores
    assert rows.count() == 7
    for column, score in enumerate(scores):
        assert score is not None
        words = score_label(score, 4, 42)
        number = f"+{score}" if score > 0 else f"−{-score}" if score < 0 else "0"
        assert rows.nth(column).locator("td.words").inner_text() == f"{words} ({number})"
    best = max(s for s in scores if s is not None)
    assert page.locator("#explorer tr.best").count() == scores.count(best)
    line = best_line_text("4453")
    assert page.text_content("#explorer .explorer-line") == f"Best line: {line}"
    page.click("[data-col='2']")  # a move on the board: the panel follows it
    page.wait_for_function(
        "() => document.querySelector('#explorer .explorer-line')?.textContent"
        f" === 'Best line: {best_line_text('44533')}'"
    )
    page.click("#explorer tbody tr[data-col='3'] .explorer-play")  # a move picked in the table
    page.wait_for_function("() => document.getElementById('pos-text').textContent === '445334'")
    page.wait_for_function(
        "() => document.querySelector('#explorer .explorer-line')?.textContent"
        f" === 'Best line: {best_line_text('445334')}'"
    )
    page.uncheck("#show-explorer")
    assert page.is_hidden("#explorer")


@pytest.mark.browser
def test_the_explorer_panel_counts_the_servers_games_on_a_phone(
    browser: Any, tmp_path: Path
) -> None:
    strings = tmp_path / "games.txt"
    strings.write_text("4453\n4543\n4455667\n")
    with live_server(games=(str(strings),), threads=1, time_limit=20.0) as url:
        for tab in tab_at(browser, url, {"width": 390, "height": 844}):
            open_page(tab, "?p1=human&p2=human")
            tab.check("#show-explorer")
            tab.wait_for_selector("#explorer .explorer-table tbody tr")
            row = tab.locator("#explorer tbody tr").nth(3)
            assert [c.strip() for c in row.locator("td").all_inner_texts()] == [
                "4 ★", "win in 21 (+1)", "3", "100 %", "1 / 0 / 0",
            ]  # fmt: skip
            assert "3 games went on from here" in str(tab.text_content("#explorer"))
            width = tab.evaluate("document.documentElement.scrollWidth")
            assert width <= 390  # nothing wider than the phone


EXPLORER_SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "explorer.png"


@pytest.mark.browser
def test_explorer_screenshot_for_the_docs(browser: Any, tmp_path: Path) -> None:
    """docs/explorer.png; written to docs/ with CONNECT4_UPDATE_SCREENSHOT=1."""
    strings = tmp_path / "games.txt"
    strings.write_text("4453\n4543\n4455667\n4433\n445\n4452\n")
    with live_server(games=(str(strings),), threads=1, time_limit=20.0) as url:
        for tab in tab_at(browser, url, DESKTOP):
            open_page(tab, "?pos=44&p1=human&p2=human")
            tab.check("#show-solution")
            tab.check("#show-explorer")
            tab.wait_for_selector("#explorer .explorer-table tbody tr")
            tab.wait_for_selector("#solution .score.best")
            assert shoot(tab, EXPLORER_SCREENSHOT, tmp_path).stat().st_size > 10_000


def test_serve_refuses_a_games_file_it_cannot_count(tmp_path: Path) -> None:
    bad = tmp_path / "games.txt"
    bad.write_text("4453\n44x\n")
    out = run_cli("serve", "--games", str(bad), "--port", "1")
    assert out.returncode == 2
    assert out.stderr == f"error: {bad} line 2: move 3 ('x'): not a column number 1-7\n"


def test_serve_counts_its_games_for_the_explorer(tmp_path: Path) -> None:
    games = tmp_path / "games.txt"
    games.write_text("4453\n4543\n45\n")
    with served("--games", str(games), "--threads", "1") as server:
        server.line_with("connect4 web app on")
        found = httpx.get(server.url + "/api/explore", params={"pos": "4"}, timeout=60).json()
    assert {m["column"]: m["games"] for m in found["moves"] if m["games"]} == {4: 1, 5: 2}
