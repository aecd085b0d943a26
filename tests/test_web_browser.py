"""End-to-end tests of the page in a real headless Chromium (Debian's, driven by Playwright).

The server is a real uvicorn on a free 127.0.0.1 port. The last test takes the
README's screenshot; ``CONNECT4_UPDATE_SCREENSHOT=1`` saves it as docs/screenshot.png.
"""

from __future__ import annotations

import io
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connect4 import Position
from tests.browser_helpers import answered, open_page, settled, tab_at, wait_answered
from tests.web_helpers import deep_busy, wait_for

pytestmark = pytest.mark.browser

SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "screenshot.png"
REVIEW_SCREENSHOT = SCREENSHOT.with_name("review.png")


DESKTOP = {"width": 1280, "height": 800}
TABLET = {"width": 1024, "height": 768}  # a tablet on its side
UPRIGHT = {"width": 768, "height": 1024}  # the same tablet held upright
PHONE = {"width": 390, "height": 844}


def idle(page: Any) -> None:
    """Wait until no AI is thinking."""
    page.wait_for_selector("#thinking", state="hidden")


def moves(page: Any) -> str:
    text = str(page.text_content("#pos-text"))
    return "" if text == "(empty)" else text


def owner(page: Any, column: int, row: int) -> int:
    """0 empty, 1 red, 2 yellow: what the page draws in a cell (0-based, row 0 at the bottom)."""
    cell = page.locator(f"[data-cell='{column},{row}'] .disc")
    if cell.count() == 0:
        return 0
    return 1 if "p1" in str(cell.get_attribute("class")) else 2


def test_page_loads_with_an_empty_board(page: Any) -> None:
    open_page(page, "?p1=human&p2=human")
    assert page.title().startswith("connect4")
    assert page.locator("#board .column").count() == 7
    assert page.locator("#board .cell").count() == 42
    assert page.text_content("#status") == "Red to move — click a column."
    kinds = page.locator("#p2-kind option").all_text_contents()
    assert {"human (click to move)", "perfect", "alphabeta", "minimax", "random"} <= set(kinds)


def test_full_game_against_the_perfect_ai_then_undo_and_redo(page: Any) -> None:
    open_page(page, "?p1=human&p2=perfect")
    for _ in range(22):
        idle(page)
        if page.get_attribute("#status", "data-over") == "1":
            break
        before = len(moves(page))
        page.locator("#board .column:enabled").first.click()  # always the leftmost column
        page.wait_for_function(f"document.getElementById('pos-text').textContent.length > {before}")
    idle(page)
    assert page.text_content("#status") == "Yellow wins!"
    assert page.locator(".disc.win").count() >= 4
    played = moves(page)
    assert len(played) % 2 == 0 and 8 <= len(played) <= 42
    assert f"pos={played}" in page.url
    assert page.is_disabled("#board .column >> nth=3")  # the game is over: no more moves

    page.click("#undo")  # back to the human's turn: the AI's move and ours
    assert moves(page) == played[:-2]
    assert page.text_content("#status") == "Red to move — click a column."
    assert f"pos={played[:-2]}&" in page.url
    assert page.locator(".disc.win").count() == 0
    page.click("#redo")
    page.click("#redo")
    assert moves(page) == played
    assert page.text_content("#status") == "Yellow wins!"
    assert page.is_disabled("#redo")


def test_solution_spells_out_every_column(page: Any) -> None:
    # "4455": red completes an open three with column 3 or 6 and wins with its 4th stone.
    open_page(page, "?pos=4455&p1=human&p2=human")
    page.check("#show-solution")
    page.wait_for_selector("#solution .score.best")
    scores = page.locator("#solution .score")
    assert scores.count() == 7
    texts = [text.strip() for text in scores.all_inner_texts()]
    for column in (2, 5):
        assert texts[column].split("\n") == ["+18", "win in 2", "★ best"]
    for column in (0, 1, 3, 4, 6):
        words = texts[column].split("\n")[1]
        assert re.fullmatch(r"(win|loss) in \d+|draw", words), words
    assert "win in 2 for Red (score 18)" in str(page.text_content("#solution-note"))
    page.uncheck("#show-solution")
    assert page.is_hidden("#solution")


def test_alphabeta_search_tree_explorer(page: Any) -> None:
    open_page(page, "?pos=4453&p1=human&p2=alphabeta:depth=3")
    page.click("[data-col='3']")
    page.wait_for_selector("#tree .tree-row")
    idle(page)
    assert page.text_content("#stats [data-stat='player'] td") == "Yellow: alphabeta:depth=3"
    assert int(str(page.text_content("#stats [data-stat='nodes'] td")).replace(",", "")) > 7
    root = page.locator("#tree .tree-root > li > .tree-row .tree-text")
    assert root.inner_text() == "root value 92 α −∞ β +∞"
    children = page.locator("#tree .tree-root > li > ul > li")
    assert children.count() == 7  # every column at the root
    second = children.nth(1)
    second.locator(".tree-toggle").first.click()  # expand
    grandchildren = second.locator(":scope > ul > li")
    assert grandchildren.count() >= 1
    assert "α" in grandchildren.first.inner_text() and "β" in grandchildren.first.inner_text()
    assert page.locator("#tree .tree-node.pruned").count() == 0  # deeper levels not built yet
    second.locator(".tree-row").first.hover()
    page.wait_for_selector("#mini", state="visible")
    caption = str(page.text_content("#mini .mini-caption"))
    assert caption.startswith("44534") and len(caption) == 6
    assert page.locator("#mini .mini-cell.p1").count() == 3
    second.locator(".tree-toggle").first.click()  # collapse
    assert grandchildren.first.is_hidden()
    page.click("#expand-all")
    pruned = page.locator("#tree .tree-node.pruned")
    summary = str(page.text_content("#tree .note"))
    count = int(re.search(r"(\d+) branches pruned", summary).group(1))  # type: ignore[union-attr]
    assert pruned.count() == count > 0  # greyed cut-off branches, as many as the search reports
    assert "pruned" in pruned.first.inner_text()
    page.click("#collapse-all")
    assert grandchildren.first.is_hidden() and children.first.is_visible()


def test_a_levels_book_move_says_where_it_came_from(page: Any) -> None:
    """alpha-beta's hard level plays the opening book's first 12 plies: 9 stones lie
    between the book's stored plies, so the solver searched down to them."""
    open_page(page, "?pos=24166155&p1=human&p2=alphabeta:level=hard")
    page.click("[data-col='4']")
    page.wait_for_selector("#stats [data-stat='source']")
    idle(page)
    assert page.text_content("#stats [data-stat='source'] td") == "book"
    assert page.text_content("#stats [data-stat='value'] td") == "-2 (proven)"
    assert "came from the opening book" in str(page.text_content("#tree"))
    assert page.input_value("[data-key='book']") == ""  # the level's book, not a key given


def test_minimax_when_pruning_is_off(page: Any) -> None:
    open_page(page, "?pos=44&p1=human&p2=alphabeta:depth=2")
    page.uncheck("fieldset[data-side='2'] .pruning")
    assert page.input_value("#p2-kind") == "minimax"
    assert "p2=minimax%3Adepth%3D2" in page.url
    page.click("[data-col='1']")
    page.wait_for_selector("#tree .tree-row")
    assert page.locator("#tree .tree-node.pruned").count() == 0
    assert "α" not in page.locator("#tree .tree-row").first.inner_text()


def test_mcts_columns_and_tree_show(page: Any) -> None:
    open_page(page, "?pos=44&p1=human&p2=mcts:playouts=1000")
    page.click("[data-col='3']")
    page.wait_for_selector("#stats [data-stat='columns'] table.columns")
    rows = page.locator("#stats table.columns tr").all_inner_texts()
    assert len(rows) == 8 and rows[0].split() == ["move", "visits", "value", "proven"]
    assert "[object Object]" not in str(page.text_content("#stats"))
    visits = [int(row.split()[1].replace(",", "")) for row in rows[1:]]
    assert sum(visits) == 1000
    page.wait_for_selector("#tree .tree-row")  # the tree explorer shows the MCTS tree
    assert "1,000 playouts" in str(page.text_content("#tree .note"))
    assert "visits 1,000" in page.locator("#tree .tree-row").first.inner_text()
    page.click("#expand-all")
    starred = [row for row in page.locator("#tree .tree-row").all_inner_texts() if "★" in row]
    assert len(starred) >= 3 and all("uct" in row for row in starred[1:])


def test_reload_from_a_position_url(page: Any) -> None:
    open_page(page, "?pos=4453&p1=human&p2=human")
    assert [owner(page, 3, 0), owner(page, 3, 1), owner(page, 4, 0), owner(page, 2, 0)] == [
        1,
        2,
        1,
        2,
    ]
    assert owner(page, 3, 2) == 0
    assert page.locator(".disc.last").count() == 1
    assert page.get_attribute(".disc.last >> xpath=..", "data-cell") == "2,0"
    page.click("[data-col='6']")
    assert moves(page) == "44537"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert moves(page) == "44537" and owner(page, 6, 0) == 1
    open_page(page, "?pos=4444444&p1=human&p2=human")
    assert "move 7 ('4'): column 4 is full" in str(page.text_content("#notice"))
    assert moves(page) == ""  # the link's position was ignored


@pytest.mark.parametrize(
    ("query", "error", "kept"),
    [
        ("?pos=4x<script>", "move 2 ('x'): not a column 1-7", ""),
        ("?pos=44&next=5%209", "move 4 (' '): not a column 1-7", "44"),
    ],
)
def test_a_link_whose_moves_are_no_game_is_ignored_never_listed(
    page: Any, query: str, error: str, kept: str
) -> None:
    open_page(page, query + "&p1=human&p2=human")
    notice = str(page.text_content("#notice"))
    assert "in the URL" in notice and error in notice and "ignored" in notice
    assert moves(page) == kept
    # no junk listed as moves: the list holds its Start and the moves kept
    assert page.locator("#move-list .ply:not(.start)").count() == len(kept)


def ai_thinking(page: Any) -> list[Any]:
    """Yellow's AI thinking after red's first move, its answer held: the list receives
    the held request."""
    held: list[Any] = []
    page.route("**/api/move", lambda route: held.append(route))  # hold the AI's answer
    open_page(page, "?pos=&p1=human&p2=alphabeta:depth=2")
    page.click("[data-col='3']")
    page.wait_for_selector("#thinking", state="visible")
    return held


def answer_late(page: Any, held: list[Any]) -> None:
    """Let the held answer through and wait until the page has handled it."""
    handled = answered(page, "/api/move")
    held[0].continue_()
    wait_answered(page, "/api/move", handled + 1)
    page.unroute("**/api/move")


def test_spinner_blocks_moves_while_the_ai_thinks(page: Any) -> None:
    held = ai_thinking(page)
    assert page.get_attribute("#board", "aria-busy") == "true"
    assert page.locator("#board .column:enabled").count() == 0
    assert "Yellow (alphabeta:depth=2) is thinking" in str(page.text_content("#thinking"))
    page.check("#show-solution")  # the page still answers while the AI thinks
    page.uncheck("#show-solution")
    assert len(held) == 1
    answer_late(page, held)
    idle(page)
    assert len(moves(page)) == 2
    assert page.locator("#board .column:enabled").count() == 7


def test_changing_players_while_the_ai_thinks(page: Any) -> None:
    held = ai_thinking(page)
    page.select_option("#p2-kind", "human")  # now nobody thinks: the board is free again
    assert page.is_hidden("#thinking")
    answer_late(page, held)  # read and dropped
    assert moves(page) == "4"
    assert page.text_content("#status") == "Yellow to move — click a column."
    page.click("[data-col='3']")
    assert moves(page) == "44"


def test_undo_while_the_ai_thinks_cancels_its_move(page: Any) -> None:
    held = ai_thinking(page)
    page.click("#undo")
    assert moves(page) == "" and page.is_hidden("#thinking")
    answer_late(page, held)
    assert moves(page) == ""  # the late answer is dropped


def test_tictactoe_and_count_fours(page: Any) -> None:
    open_page(page, "?game=tictactoe&p1=human&p2=alphabeta")
    assert page.locator("#board .ttt-cell").count() == 9
    page.click("[data-col='4']")  # the centre (numpad 5)
    page.wait_for_function("document.getElementById('pos-text').textContent.length === 2")
    assert moves(page)[0] == "5"
    assert page.text_content("[data-col='4']") == "X"
    page.check("#show-solution")  # the server's solver scores every cell
    page.wait_for_selector("#solution .score.best")
    assert page.locator("#solution .score").count() == 9
    assert page.locator("#solution .score.full").count() == 2
    assert "draw" in page.locator("#solution").inner_text()
    assert "draw for X (score 0)" in str(page.text_content("#solution-note"))

    open_page(page, "?rules=count-fours&p1=human&p2=human")
    assert page.input_value("#rules") == "count-fours"
    page.click("[data-col='0']")
    assert "Fours so far: 0–0" in str(page.text_content("#status"))


def test_the_page_draws_with_the_servers_facts(page: Any) -> None:
    # The page keeps no copy of the side names or the move symbols: it uses /api/info's.
    def renamed(route: Any) -> None:
        info = route.fetch().json()
        connect4 = next(game for game in info["games"] if game["kind"] == "connect4")
        connect4["sides"] = ["Rouge", "Jaune"]
        connect4["notation"] = "abcdefghijklmnopqrstuvwxyz0123456789"
        route.fulfill(json=info)

    page.route("**/api/info", renamed)
    open_page(page, "?pos=ab&p1=human&p2=human")
    assert page.text_content("#status") == "Rouge to move — click a column."
    assert [owner(page, 0, 0), owner(page, 1, 0)] == [1, 2]
    page.click("[data-col='2']")
    assert moves(page) == "abc"
    page.unroute("**/api/info")


@pytest.fixture
def phone(browser: Any, web_url: str) -> Iterator[Any]:
    """A page on a phone-sized screen (390 x 844 CSS pixels)."""
    yield from tab_at(browser, web_url, PHONE)


def late_position(width: int, height: int, empty: int = 12) -> tuple[str, int]:
    """A game of random moves (seeded) with ``empty`` cells left, red to move, quick to
    solve, and a column (0-based) red can play without ending the game."""
    rng = random.Random(width * 100 + height)
    while True:
        game = Position(width, height)
        while game.ply < width * height - empty and not game.is_over():
            game.play(rng.choice(game.legal_moves()))
        if game.is_over() or game.ply % 2:
            continue
        for column in game.legal_moves():
            after = game.copy()
            after.play(column)
            if not after.is_over():
                return game.moves, column


@pytest.mark.parametrize(("width", "height"), [(7, 6), (8, 7), (9, 6), (8, 8), (10, 6)])
def test_boards_fit_a_phone_screen(phone: Any, width: int, height: int) -> None:
    pos, column = late_position(width, height)
    open_page(phone, f"?width={width}&height={height}&pos={pos}&p1=human&p2=alphabeta:depth=2")
    assert phone.locator("#board .column").count() == width
    phone.check("#show-solution")
    phone.wait_for_selector("#solution .score")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.locator(f"#board .column >> nth={column}").click()  # the AI answers: the panel fills
    phone.wait_for_selector("#stats [data-stat='move']")
    idle(phone)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    board = phone.locator("#board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= 390


def test_a_10x6_board_on_a_phone_is_chosen_from_the_menu_and_legible(phone: Any) -> None:
    open_page(phone, "?p1=human&p2=alphabeta")
    sizes = phone.locator("#size option").all_text_contents()
    assert {"8 × 8", "9 × 7", "10 × 6"} <= set(sizes)
    phone.click("#settings > summary")  # folded on a phone
    phone.select_option("#size", "10x6")
    phone.wait_for_function("document.querySelectorAll('#board .column').length === 10")
    assert phone.locator("#board .cell").count() == 60
    phone.locator("#board .column >> nth=9").click()  # the tenth column: move symbol "a"
    phone.wait_for_function("document.getElementById('pos-text').textContent.length === 2")
    idle(phone)  # yellow (the page's default AI) answered
    assert moves(phone)[0] == "a"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    board = phone.locator("#board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= 390
    column = phone.locator("#board .column").first.bounding_box()
    assert column["width"] >= 32  # legible, and a fingertip's target


BAD_LINKS = [
    ("?p2=genius", "Yellow: the link's player 'genius' was ignored (there is no player 'genius'"),
    (
        "?game=tictactoe&p2=perfect",
        "O: the link's player 'perfect' was ignored (perfect does not play Tic-tac-toe)",
    ),
    ("?p1=cmd:ls", "Red: the link's player 'cmd:ls' was ignored (cmd players run programs"),
    ("?p1=kaggle:a.py", "Red: the link's player 'kaggle:a.py' was ignored (kaggle players run"),
    ("?p2=perfect:level=godlike", "perfect's level is one of easy, medium, hard, perfect"),
    ("?width=10&height=4", "The link's board 10x4 is not one this server plays (7x6, 6x5"),
]


@pytest.mark.parametrize(("query", "notice"), BAD_LINKS)
def test_a_link_naming_what_the_page_cannot_play_says_so(
    page: Any, query: str, notice: str
) -> None:
    open_page(page, query)
    assert page.is_visible("#notice")
    assert notice in str(page.text_content("#notice"))
    page.click("#new-game")  # a new game keeps the settings: the notice stays
    assert page.is_visible("#notice")
    page.select_option("#p1-kind", "random")  # the user chose: the notice has served
    assert page.is_hidden("#notice")


def test_a_good_link_shows_no_notice(page: Any) -> None:
    open_page(page, "?p1=human&p2=alphabeta:depth=2&width=6&height=5")
    assert page.is_hidden("#notice")
    assert page.input_value("#p2-kind") == "alphabeta"
    assert page.input_value("#size") == "6x5"


# A link's numbers clamped to what the server allows: the time to /api/info's move time
# (the fixture's server answers within 20 s: a move may think 19.5 s), every other number
# to its option's bounds (/api/players); each change named in the notice.
CLAMPED_LINKS = [
    (
        "?p1=human&p2=mcts:time=3600",
        "Yellow's time clamped to 19.5 s, the server's limit (the link asked for 3600 s)",
        2,
        "mcts:time=19.5",
    ),
    (
        "?p1=perfect:time=100&p2=human",
        "Red's time clamped to 19.5 s, the server's limit (the link asked for 100 s)",
        1,
        "perfect:time=19.5",
    ),
    (
        "?p1=human&p2=alphabeta:depth=99,time=30",
        "Yellow's depth clamped to 42, the most alphabeta takes (the link asked for 99); "
        "time clamped to 19.5 s, the server's limit (the link asked for 30 s): "
        "Yellow is alphabeta:depth=42,time=19.5.",
        2,
        "alphabeta:depth=42,time=19.5",
    ),
    (
        "?p1=human&p2=mcts:playouts=1000000000000",
        "Yellow's playouts clamped to 100000000, the most mcts takes",
        2,
        "mcts:playouts=100000000",
    ),
    (
        "?p1=human&p2=mcts:playouts=0",
        "Yellow's playouts raised to 1, the least mcts takes (the link asked for 0)",
        2,
        "mcts:playouts=1",
    ),
]


@pytest.mark.parametrize(("query", "notice", "side", "spec"), CLAMPED_LINKS)
def test_a_link_asking_for_more_than_the_server_allows_is_clamped_and_says_so(
    page: Any, query: str, notice: str, side: int, spec: str
) -> None:
    open_page(page, query)
    assert within_view(page, "#notice")  # on screen, not below the settings
    assert notice in str(page.text_content("#notice"))
    kind, options = spec.split(":")
    assert page.input_value(f"#p{side}-kind") == kind
    for option in options.split(","):
        key, value = option.split("=")
        field = page.input_value(f"fieldset.player[data-side='{side}'] [data-key='{key}']")
        assert float(field) == float(value)
    assert f"p{side}={spec.replace(':', '%3A').replace('=', '%3D').replace(',', '%2C')}" in page.url


def test_a_link_with_a_word_for_a_number_is_refused(page: Any) -> None:
    open_page(page, "?p1=human&p2=mcts:playouts=lots")
    notice = str(page.text_content("#notice"))
    assert "Yellow: the link's player 'mcts:playouts=lots' was ignored" in notice
    assert "mcts's playouts is a whole number, not 'lots'" in notice
    assert page.input_value("#p2-kind") == "perfect"


def test_refused_players_fall_back_to_the_defaults(page: Any) -> None:
    open_page(page, "?p1=cmd:ls&p2=genius")
    assert page.input_value("#p1-kind") == "human"
    assert page.input_value("#p2-kind") == "perfect"
    assert "p1=human&p2=perfect" in page.url


def test_undo_and_redo_update_the_last_ai_move_panel(page: Any) -> None:
    open_page(page, "?p1=human&p2=alphabeta:depth=2")
    ai_moves = []
    for column in (0, 1):
        before = len(moves(page))
        page.locator(f"#board .column >> nth={column}").click()
        page.wait_for_function(
            f"document.getElementById('pos-text').textContent.length > {before + 1}"
        )
        idle(page)
        ai_moves.append(moves(page)[-1])
        assert page.text_content("#stats [data-stat='move'] td") == ai_moves[-1]
    page.click("#undo")  # the AI's second move is gone: the panel shows its first
    assert page.text_content("#stats [data-stat='move'] td") == ai_moves[0]
    assert page.locator("#tree .tree-node").count() > 0
    page.click("#undo")
    assert moves(page) == ""
    assert page.text_content("#stats") == "No AI move yet."
    assert page.text_content("#tree") == ""
    page.click("#redo")  # the human's first move: still no AI move on the board
    assert page.text_content("#stats") == "No AI move yet."
    page.click("#redo")  # the AI's first move is back, and so is its panel
    assert page.text_content("#stats [data-stat='move'] td") == ai_moves[0]


def test_swagger_ui_renders_the_api_offline(page: Any) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto("/docs")
    page.wait_for_selector(".opblock-summary-path")
    paths = page.locator(".opblock-summary-path").all_text_contents()
    assert {"/solve", "/api/analyze", "/api/move", "/api/players"} <= {p.strip() for p in paths}
    base = page.url.split("/docs")[0]
    assert requests and all(url.startswith(base) for url in requests), requests


# "4455362": red's 5 at move 3 throws the win away (best: 4), yellow's 5 gives it back,
# red completes 2-3-4-5 along the bottom.
BLUNDER_GAME = "4455362"


def list_item(page: Any, ply: int) -> Any:
    return page.locator(f"#move-list [data-ply='{ply}']")


def test_review_marks_the_blunder_and_shows_the_best_move(page: Any) -> None:
    open_page(page, "?p1=human&p2=human")
    assert page.is_disabled("#review")  # nothing to review yet
    for move in BLUNDER_GAME:
        page.click(f"#board [data-col='{int(move) - 1}']")
    assert page.text_content("#status") == "Red wins!"
    assert page.locator("#move-list .ply").count() == len(BLUNDER_GAME) + 1  # and the start
    assert "current" in str(list_item(page, 7).get_attribute("class"))
    assert list_item(page, 3).inner_text().split() == ["3.", "Red", "5"]
    page.click("#review")
    page.wait_for_selector("#review-panel", state="visible")
    verdicts = [list_item(page, ply).get_attribute("data-verdict") for ply in range(1, 8)]
    assert verdicts == ["best", "best", "blunder", "blunder", "best", "best", "best"]
    assert "?? blunder" in list_item(page, 3).inner_text()  # a symbol and a word, not colour only
    assert "blunder" in str(list_item(page, 3).get_attribute("aria-label"))
    assert page.locator("#review-legend li").count() == 5
    rows = page.locator("table.review-players tr").all_inner_texts()
    assert rows[1].split() == ["Red", "75", "%", "3", "0", "0", "1"]
    assert rows[2].split() == ["Yellow", "66.7", "%", "2", "0", "0", "1"]
    assert page.text_content("#decisive-move") == "4. Yellow 5 (?? blunder)"
    assert page.locator("#eval-graph circle.point").count() == 8  # the start and every ply
    assert page.locator("#eval-graph line.decisive").count() == 1
    assert "review=1" in page.url

    list_item(page, 3).click()  # the blunder: the position before it, the best move marked
    assert moves(page) == "44"
    assert page.locator("#board .ghost.best").count() == 1
    assert page.locator("#board [data-col='3'] .ghost.best").count() == 1  # column 4 was best
    assert page.locator("#board [data-col='4'] .ghost.played").count() == 1  # 5 was played
    assert page.locator("[data-cell='3,2'] .ghost.best").count() == 1  # where the stone would land
    assert page.get_attribute("#board [data-col='3']", "aria-label") == "column 4 (best move)"
    hint = str(page.text_content("#review-hint"))
    assert hint.startswith("Move 3: Red played column 5") and "blunder" in hint
    assert "best: column 4" in hint
    assert "examined" in str(list_item(page, 3).get_attribute("class"))
    assert "current" in str(list_item(page, 2).get_attribute("class"))
    assert "pos=44&next=55362" in page.url  # the shown position and the rest of the game

    page.keyboard.press("ArrowRight")
    assert moves(page) == "445"
    assert list_item(page, 3).get_attribute("aria-current") == "step"
    # yellow's blunder comes next: its alternatives are marked now
    assert str(page.text_content("#review-hint")).startswith("Move 4: Yellow played column 5")
    assert page.locator("#board .ghost.best").count() == 2  # 3 and 6 block the three
    assert owner(page, 4, 0) == 1  # the blunder's stone, back on the board
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert moves(page) == "4"
    page.keyboard.press("End")
    assert moves(page) == BLUNDER_GAME
    page.keyboard.press("Home")
    assert moves(page) == ""
    assert "current" in str(page.locator("#move-list .ply.start").get_attribute("class"))
    page.locator("#eval-graph circle.point[data-ply='5']").click()  # a point of the graph
    assert moves(page) == "44553"
    list_item(page, 6).click()  # a good move: the position after it
    assert moves(page) == "445536"
    page.click("#decisive-move")  # yellow's blunder: the position before it
    assert moves(page) == "445"
    assert page.locator("#board [data-col='2'] .ghost.best").count() == 1  # yellow had to block 3
    assert page.locator("#board [data-col='5'] .ghost.best").count() == 1  # ... or 6


def test_arrow_keys_leave_menus_alone_and_a_move_from_the_past_starts_a_new_line(
    page: Any,
) -> None:
    open_page(page, f"?pos={BLUNDER_GAME}&p1=human&p2=human")
    page.keyboard.press("ArrowLeft")
    assert moves(page) == BLUNDER_GAME[:-1]
    page.focus("#p2-kind")
    page.keyboard.press("ArrowLeft")  # the menu's, not the game's
    assert moves(page) == BLUNDER_GAME[:-1]
    page.click("#status")  # the focus leaves the menu
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert moves(page) == "44"
    page.click("#board [data-col='4']")  # the game's own next move: the rest is kept
    assert page.locator("#move-list .ply").count() == len(BLUNDER_GAME) + 1
    page.click("#board [data-col='0']")  # another move: the old continuation is dropped
    assert moves(page) == "4451"
    assert page.locator("#move-list .ply").count() == 5
    assert "next=" not in page.url


def test_a_review_link_opens_reviewed_at_its_position(page: Any) -> None:
    open_page(page, "?pos=44&next=55362&p1=human&p2=human&review=1")
    page.wait_for_selector("#review-panel", state="visible")
    assert moves(page) == "44"
    assert list_item(page, 3).get_attribute("data-verdict") == "blunder"
    assert page.locator("#board [data-col='3'] .ghost.best").count() == 1
    assert "examined" in str(list_item(page, 3).get_attribute("class"))


def test_a_review_mid_game_and_after_the_game_changed(page: Any) -> None:
    open_page(page, "?pos=445&p1=human&p2=human")
    page.click("#review")
    page.wait_for_selector("#review-panel", state="visible")
    assert list_item(page, 3).get_attribute("data-verdict") == "blunder"
    page.click("#board [data-col='5']")  # the game goes on: the review covers 3 moves of 4
    status = str(page.text_content("#review-status"))
    assert "covers 3 of its moves" in status and "Review again" in status
    assert list_item(page, 4).get_attribute("data-verdict") is None
    page.click("#review")
    page.wait_for_selector("#move-list [data-ply='4'][data-verdict]")
    assert page.is_hidden("#review-status")


def test_a_failed_review_shows_the_servers_message(page: Any) -> None:
    open_page(page, "?pos=4455&p1=human&p2=human&rules=count-fours")
    page.click("#review")
    page.wait_for_selector("#review-status.error")
    status = str(page.text_content("#review-status"))
    assert status == (
        "Review failed: the solver handles the standard rules only: "
        "count-fours games cannot be reviewed"
    )
    assert page.is_hidden("#review-panel")
    busy = {
        "error": "time limit exceeded: 3 of 9 positions (from ply 7) were not solved within 10 s"
    }
    page.route(
        "**/api/review*",
        lambda route: route.fulfill(status=503, json=busy, headers={"Retry-After": "1"}),
    )
    open_page(page, "?pos=445&p1=human&p2=human")
    page.click("#review")
    page.wait_for_selector("#review-status.error")
    assert page.text_content("#review-status") == f"Review failed: {busy['error']}"
    page.unroute("**/api/review*")


def test_tictactoe_review_marks_cells(page: Any) -> None:
    open_page(page, "?game=tictactoe&pos=5123&p1=human&p2=human&review=1")
    page.wait_for_selector("#review-panel", state="visible")
    assert list_item(page, 4).get_attribute("data-verdict") == "mistake"
    list_item(page, 4).click()
    assert moves(page) == "512"
    assert page.locator("#board .ttt-cell.hint-best").count() == 1
    assert page.get_attribute("#board .ttt-cell.hint-best", "data-col") == "7"  # cell 8
    assert page.get_attribute("#board .ttt-cell.hint-played", "data-col") == "2"  # cell 3


def shoot(page: Any, docs_file: Path, tmp_path: Path) -> Path:
    """A screenshot of the whole page in ``tmp_path``; with CONNECT4_UPDATE_SCREENSHOT=1
    saved as ``docs_file`` instead, in 256 colours (a modest file for the docs)."""
    if not os.environ.get("CONNECT4_UPDATE_SCREENSHOT"):
        target = tmp_path / docs_file.name
        page.screenshot(path=str(target), full_page=True)
        return target
    image = pytest.importorskip("PIL.Image")
    shot = image.open(io.BytesIO(page.screenshot(full_page=True)))
    shot.quantize(256).save(docs_file, optimize=True)
    return docs_file


def test_review_screenshot_for_the_docs(page: Any, tmp_path: Path) -> None:
    """docs/review.png; written to docs/ with CONNECT4_UPDATE_SCREENSHOT=1."""
    page.set_viewport_size(DESKTOP)
    open_page(page, "?pos=44&next=55362&p1=human&p2=perfect&review=1")
    page.wait_for_selector("#review-panel", state="visible")
    assert shoot(page, REVIEW_SCREENSHOT, tmp_path).stat().st_size > 10_000


def test_screenshot_for_the_readme(page: Any, tmp_path: Path) -> None:
    """The README's picture; written to docs/ with CONNECT4_UPDATE_SCREENSHOT=1."""
    page.set_viewport_size(DESKTOP)
    open_page(page, "?pos=4453&p1=human&p2=alphabeta:depth=4")
    page.click("[data-col='4']")
    page.wait_for_selector("#tree .tree-row")
    idle(page)
    page.check("#show-solution")
    page.wait_for_selector("#solution .score.best")
    page.locator("#tree .tree-root > li > ul > li").nth(0).locator(".tree-toggle").first.click()
    page.locator("#tree .tree-root > li > ul > li > ul > li .tree-row").nth(1).hover()
    page.wait_for_selector("#mini", state="visible")
    assert shoot(page, SCREENSHOT, tmp_path).stat().st_size > 10_000


def test_an_ai_moves_while_a_long_solution_is_still_solving(page: Any, web_url: str) -> None:
    # 8x7 has no book: the solution of 4455 runs to the time limit on the deep lane.
    # The server runs one deep job per client, so the AI's move must not be refused
    # (and the game stall) while the page's stale solve holds that place: the page
    # gives the solve up and asks for the move again when told its turn is taken.
    open_page(page, "?width=8&height=7&pos=4455&p1=human&p2=perfect:time=1")
    page.check("#show-solution")
    wait_for(lambda: deep_busy(web_url) >= 1, "the solve never reached the deep lane")
    page.locator("#board .column:enabled").first.click()
    page.wait_for_function(
        "document.getElementById('pos-text').textContent.length >= 6", timeout=15_000
    )
    idle(page)
    assert len(moves(page)) == 6
    assert page.text_content("#status") == "Red to move — click a column."


# ------------------------------------------------------------------ a page that fits and welcomes
@pytest.fixture(
    params=[DESKTOP, TABLET, UPRIGHT, PHONE], ids=["1280x800", "1024x768", "768x1024", "390x844"]
)
def screen(request: Any, browser: Any, web_url: str) -> Iterator[Any]:
    """A page at a laptop's, a tablet's (on its side and upright) and a phone's screen size."""
    yield from tab_at(browser, web_url, request.param)


def within_view(page: Any, selector: str) -> bool:
    """Whether ``selector``'s box lies wholly inside the viewport, unscrolled."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return bool(
        box
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def fit_modes() -> list[tuple[str, bool, bool]]:
    """Links to every mode of the page (player kinds with their options open, board
    sizes, games, rules, a review), whether the solution row is expected, and whether
    the text is the bigger size."""
    late8, _ = late_position(8, 7)
    late9, _ = late_position(9, 6)
    return [
        ("?pos=4453&p1=human&p2=alphabeta", True, False),
        ("?pos=4453&p1=minimax&p2=human", True, False),
        ("?pos=4453&p1=human&p2=mcts", True, False),
        ("?pos=4453&p1=human&p2=perfect", True, True),
        (f"?width=8&height=7&pos={late8}&p1=human&p2=alphabeta", True, False),
        (f"?width=8&height=7&pos={late8}&p1=human&p2=alphabeta", True, True),
        (f"?width=9&height=6&pos={late9}&p1=human&p2=mcts", True, False),
        ("?game=tictactoe&pos=5&p1=human&p2=mcts", True, False),
        ("?pos=4453&p1=human&p2=alphabeta&rules=count-fours", False, False),
        ("?pos=44&next=55362&p1=human&p2=perfect&review=1", True, False),
    ]


@pytest.mark.parametrize(("query", "solved", "big"), fit_modes())
def test_board_solution_and_move_list_fit_the_screen(
    screen: Any, query: str, solved: bool, big: bool
) -> None:
    # A laptop (1280x800) and a tablet (1024x768, 768x1024) see the board, its solution
    # row and the move list without scrolling; a phone (390x844) sees the board above the
    # fold, the settings folded.
    page = screen
    page.goto("/")  # the page's own storage: the text size kept from an earlier visit
    page.evaluate(f"localStorage.setItem('connect4.big-text', '{int(big)}')")
    open_page(page, query)
    page.check("#show-solution")
    page.wait_for_selector("#solution .score" if solved else "#solution-note:not([hidden])")
    if "review=1" in query:
        page.wait_for_selector("#review-panel", state="visible")
    settled(page)  # the solution row's final layout
    root = page.evaluate("getComputedStyle(document.documentElement).fontSize")
    assert root == ("18px" if big else "15px")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert within_view(page, "#board")
    if page.viewport_size == PHONE:
        assert page.evaluate("document.getElementById('settings').open") is False
        assert page.is_visible("#settings-summary")
        cell = page.locator("#board .column, #board .ttt-cell").first.bounding_box()
        assert cell["width"] >= 36  # legible: no cell smaller than a fingertip
        return
    assert within_view(page, "#solution" if solved else "#solution-note")
    assert within_view(page, "#move-list")
    assert page.evaluate("document.getElementById('settings').open") is True


def test_the_phones_settings_unfold(screen: Any) -> None:
    open_page(screen, "?p1=human&p2=alphabeta")
    if screen.viewport_size == PHONE:
        assert screen.is_hidden("#p2-kind")
        screen.click("#settings > summary")
    screen.select_option("#p2-kind", "mcts")
    assert "Yellow: mcts" in str(screen.text_content("#settings-summary"))


def test_keyboard_plays_moves(screen: Any) -> None:
    page = screen
    open_page(page, "?p1=human&p2=human")
    assert "1–7 drop a disc in that column" in str(page.text_content("#keys-help"))
    page.keyboard.press("4")  # a column's key
    page.keyboard.press("4")
    assert moves(page) == "44"
    page.keyboard.press("0")  # no such column: nothing happens
    page.keyboard.press("8")
    assert moves(page) == "44"
    page.focus("#board [data-col='0']")  # in the board: arrows choose, Enter plays
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    assert moves(page) == "443"
    page.keyboard.press("ArrowLeft")  # the focus stays in the board after the move
    page.keyboard.press(" ")
    assert moves(page) == "4432"
    assert page.evaluate("document.activeElement.dataset.col") == "1"

    open_page(page, "?p1=human&p2=alphabeta:depth=2")  # the AI answers a key's move
    page.keyboard.press("5")
    page.wait_for_function("document.getElementById('pos-text').textContent.length === 2")
    idle(page)
    assert moves(page)[0] == "5"

    open_page(page, "?game=tictactoe&p1=human&p2=human")  # cells as on a numeric keypad
    assert "1–9 mark a cell" in str(page.text_content("#keys-help"))
    page.keyboard.press("7")
    assert moves(page) == "7" and page.text_content("[data-col='6']") == "X"
    page.focus("#board [data-col='4']")
    page.keyboard.press("ArrowUp")  # the centre's upper neighbour: cell 8
    page.keyboard.press("Enter")
    assert moves(page) == "78"


def test_two_humans_with_hints_that_stay_on(screen: Any) -> None:
    page = screen
    open_page(page, "?p1=human&p2=perfect")
    assert not page.is_checked("#show-solution")
    page.click("#two-humans")
    assert page.input_value("#p1-kind") == page.input_value("#p2-kind") == "human"
    assert page.is_checked("#show-solution")
    assert "p1=human&p2=human" in page.url
    for played, (side, move) in enumerate([("Red", "4"), ("Yellow", "4"), ("Red", "5")]):
        # the solution of the position on the board, for the side to move, after each move
        page.wait_for_function(
            "side => document.getElementById('solution-note').textContent.includes('for ' + side)",
            arg=side,
        )
        assert page.locator("#solution .score").count() == 7
        assert len(moves(page)) == played
        page.keyboard.press(move)
    assert moves(page) == "445"
    page.wait_for_function(
        "document.getElementById('solution-note').textContent.includes('for Yellow')"
    )
    assert page.is_visible("#solution .score.best")
    page.click("#new-game")  # the hints stay on: a new game, a reload
    assert page.is_checked("#show-solution")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.is_checked("#show-solution")
    page.wait_for_selector("#solution .score")


def disc_look(page: Any, selector: str) -> tuple[str, str]:
    return page.eval_on_selector(  # type: ignore[no-any-return]
        selector,
        "el => [getComputedStyle(el).backgroundImage, getComputedStyle(el).backgroundColor]",
    )


def test_colour_blind_safe_discs_and_bigger_text_are_remembered(screen: Any) -> None:
    page = screen
    open_page(page, "?pos=44&p1=human&p2=human")
    if page.viewport_size == PHONE:
        page.click("#settings > summary")
    assert "gradient" not in disc_look(page, ".disc.p1")[0]  # colour only
    page.check("#patterns")
    red, yellow = disc_look(page, ".disc.p1"), disc_look(page, ".disc.p2")
    assert "repeating-linear-gradient" in red[0]  # stripes
    assert "radial-gradient" in yellow[0] and "repeating" not in yellow[0]  # rings
    assert red[1] != yellow[1]
    assert "repeating-linear-gradient" in disc_look(page, "#move-list .disc-icon.p1")[0]
    page.check("#big-text")
    assert page.evaluate("getComputedStyle(document.body).fontSize") == "18px"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.is_checked("#patterns") and page.is_checked("#big-text")
    assert "repeating-linear-gradient" in disc_look(page, ".disc.p1")[0]
    assert page.evaluate("getComputedStyle(document.body).fontSize") == "18px"


def test_the_review_table_keeps_each_name_beside_its_disc(screen: Any) -> None:
    open_page(screen, "?pos=4455362&p1=human&p2=human&review=1")
    screen.wait_for_selector("#review-panel", state="visible")
    for player in (1, 2):
        name = screen.locator(f"table.review-players tr[data-player='{player}'] th")
        disc = name.locator(".disc-icon").bounding_box()
        box = name.bounding_box()
        assert box["height"] < 2 * disc["height"] + 8  # one line: the name did not wrap
    table = screen.locator("table.review-players").bounding_box()
    panel = screen.locator("#moves-panel").bounding_box()
    assert table["x"] + table["width"] <= panel["x"] + panel["width"]  # and the table fits


def test_tictactoe_mcts_names_cells_and_the_tree_help_names_mcts(page: Any) -> None:
    open_page(page, "?game=tictactoe&p1=human&p2=mcts:playouts=300")
    assert "MCTS" in str(page.text_content("#tree-help"))
    page.click("[data-col='4']")
    page.wait_for_selector("#stats [data-stat='columns'] table.columns")
    assert page.text_content("#stats [data-stat='columns'] > th") == "cells"
    page.wait_for_selector("#tree .tree-row")  # the tree help's promise: MCTS's tree
