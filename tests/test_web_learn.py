"""The learning tools on the web: ``GET /api/practice`` through the real server (the
exercises are the library's, every answer graded by it), and in Chromium at 1280x800
and 390x844 the threat map drawn on the board and "Practise your mistakes" after a
review."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from connect4.core.games import Board
from connect4.learn.practice import Practice, exercises, parse_sides
from connect4.review import review
from tests.browser_helpers import open_page, tab_at
from tests.test_web_browser import DESKTOP, PHONE, shoot
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


# ---------------------------------------------------------------- the page
SCREEN = {"desktop": DESKTOP, "phone": PHONE}
DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture(params=["desktop", "phone"])
def screen(request: pytest.FixtureRequest, browser: Any, web_url: str) -> Iterator[Any]:
    """A tab at 1280x800 and at 390x844."""
    yield from tab_at(browser, web_url, SCREEN[request.param])


def marks(page: Any) -> dict[str, tuple[str, str, str]]:
    """The threat marks on the board: cell (0-based column, row) -> side, state, parity."""
    found = page.eval_on_selector_all(
        "#board .threat",
        "(all) => all.map((m) => [m.parentElement.dataset.cell, m.dataset.threat,"
        " m.dataset.state, m.querySelector('small').textContent])",
    )
    return {cell: (side, state, parity) for cell, side, state, parity in found}


def api_marks(client: httpx.Client, pos: str) -> dict[str, tuple[str, str, str]]:
    """What the marks must be: GET /api/threats's cells, a cell of both sides' once."""
    body = client.get("/api/threats", params={"pos": pos}).json()
    expected: dict[str, tuple[str, str, str]] = {}
    for side in ("red", "yellow"):
        for t in body[side]:
            state = "playable" if t["playable"] else "later" if t["live"] else "dead"
            key = f"{t['column'] - 1},{t['row'] - 1}"
            parity = "odd" if t["odd"] else "even"
            seen = expected.get(key)
            expected[key] = ("both", seen[1], parity) if seen else (side, state, parity)
    return expected


def wait_marks(page: Any, client: httpx.Client, pos: str) -> None:
    """Wait until the board shows ``pos`` with the API's marks, then check them."""
    page.wait_for_function(f"() => document.getElementById('pos-text').textContent === {pos!r}")
    page.wait_for_selector("#threats .threat-why")
    page.wait_for_function(
        "(n) => document.querySelectorAll('#board .threat').length === n",
        arg=len(api_marks(client, pos)),
    )
    assert marks(page) == api_marks(client, pos)


# 44556: red's double threat; 42754275344314: yellow's claimeven (a threat on row 4);
# 553635335475464111: threats playable now, later and dead; 4453: no simple rule.
@pytest.mark.browser
def test_the_threat_map_marks_the_apis_cells_and_follows_the_board(
    screen: Any, client: httpx.Client
) -> None:
    states = set()
    for pos in ("44556", "42754275344314", "553635335475464111", "4453"):
        open_page(screen, f"?pos={pos}&p1=human&p2=human")
        screen.check("#show-threats")
        wait_marks(screen, client, pos)
        states |= {state for _, state, _ in marks(screen).values()}
        why = client.get("/api/threats", params={"pos": pos}).json()["explanation"]
        text = str(screen.text_content("#threats .threat-why"))
        assert text == (
            f"Why: {why}" if why else "Why: no simple rule explains this. Show the solver's line"
        )
    assert states == {"playable", "later", "dead"}
    line = client.get("/api/explore", params={"pos": "4453"}).json()
    screen.click("#threat-line")  # no rule: the solver's line on request
    screen.wait_for_selector(f"#threats .threat-solver-line:has-text('{line['line']}')")
    screen.click("[data-col='2']")  # a move: the marks follow it
    wait_marks(screen, client, "44533")
    screen.click("#undo")  # and an undo
    wait_marks(screen, client, "4453")
    assert screen.is_visible("#threats .threat-legend li")
    assert screen.evaluate("document.documentElement.scrollWidth") <= screen.viewport_size["width"]
    screen.uncheck("#show-threats")
    assert screen.locator("#board .threat").count() == 0 and screen.is_hidden("#threats")


@pytest.mark.browser
def test_keys_still_play_after_ticking_the_threat_map(page: Any, client: httpx.Client) -> None:
    """A ticked box keeps the focus: the digit keys went to it and played nothing."""
    open_page(page, "?pos=4453&p1=human&p2=human")
    page.check("#show-threats")
    wait_marks(page, client, "4453")
    assert page.evaluate("document.activeElement.id") == "show-threats"
    page.keyboard.press("3")
    wait_marks(page, client, "44533")


def review_4455(page: Any, side: str) -> None:
    """The hand-made 4455 reviewed, practice started for ``side`` (1, 2 or both)."""
    open_page(page, "?pos=4455&p1=human&p2=human&review=1")
    page.wait_for_selector("#review-panel", state="visible")
    page.wait_for_selector("#practice-start:enabled")
    page.select_option("#practice-side", side)
    page.click("#practice-start")
    page.wait_for_selector("#practice .practice-head, #practice .practice-summary")


def grade_text(page: Any) -> str:
    return str(page.text_content("#practice .practice-grade"))


@pytest.mark.browser
def test_practice_grades_answers_as_the_library_and_ends_with_a_summary(screen: Any) -> None:
    # 4455: red's 5 (ply 3) and yellow's 5 (ply 4) each threw a win away
    red, yellow = exercises(review("4455"))
    review_4455(screen, "both")
    assert screen.text_content("#pos-text") == "44"  # the position before red's 5
    assert "Exercise 1 of 2" in str(screen.text_content("#practice .practice-head"))
    assert screen.locator("#board .hint-best").count() == 0  # the answer is not given away
    screen.click("#board [data-col='0']")  # a wrong answer
    screen.wait_for_selector("#practice .practice-grade.grade-wrong")
    assert grade_text(screen) == red.grade(0).text
    screen.click("#board [data-col='3']")  # the right one
    screen.wait_for_selector("#practice .practice-grade.grade-best")
    assert grade_text(screen) == red.grade(3).text
    assert screen.get_attribute("#board .hint-best", "data-col") == "3"
    screen.click("#practice-next")
    screen.wait_for_function("() => document.getElementById('pos-text').textContent === '445'")
    screen.click("#practice-reveal")  # yellow's exercise: the answer revealed
    screen.wait_for_selector("#practice .practice-solution")
    assert screen.text_content("#practice .practice-solution") == yellow.solution().text
    screen.click("#practice-next")  # "Finish"
    screen.wait_for_selector("#practice .practice-summary")
    same = Practice.of(review("4455"))  # the same answers in the library
    same.answer(0), same.answer(3), same.reveal()
    summary = f"Practice over. {same.summary().line()}."
    assert summary.endswith("0 right first time, 1 right after retries, 1 revealed, 0 skipped.")
    assert screen.text_content("#practice .practice-summary") == summary
    assert screen.evaluate("document.documentElement.scrollWidth") <= screen.viewport_size["width"]
    screen.click("#practice-close")
    assert screen.is_hidden("#practice")


@pytest.mark.browser
def test_practice_of_one_side_and_a_step_away_ends_it(page: Any) -> None:
    open_page(page, "?pos=4455&p1=human&p2=alphabeta&review=1")
    page.wait_for_selector("#practice-start:enabled")
    assert page.input_value("#practice-side") == "1"  # the human against an AI, first
    page.check("#show-solution")
    review_4455(page, "1")
    assert "Exercise 1 of 1" in str(page.text_content("#practice .practice-head"))
    assert page.is_hidden("#solution")  # no score gives the answer away
    page.click("#board [data-col='3']")
    page.wait_for_selector("#practice .practice-grade.grade-best")
    page.wait_for_selector("#solution .score.best")  # answered: the scores are back
    page.click("#practice-next")
    page.wait_for_selector("#practice .practice-summary")
    assert "1 exercise: 1 right first time" in str(page.text_content("#practice"))
    review_4455(page, "1")
    page.keyboard.press("End")  # stepping away from the exercise leaves the practice
    page.wait_for_selector("#practice .practice-summary")
    left = Practice.of(review("4455"), (1,)).summary().line()  # nothing answered
    assert left.endswith("1 not reached") and left in str(page.text_content("#practice"))
    page.click("#board [data-col='0']")  # the board plays again
    page.wait_for_function("() => document.getElementById('pos-text').textContent === '44551'")


@pytest.mark.browser
def test_threats_and_practice_screenshots_for_the_docs(
    browser: Any, web_url: str, tmp_path: Path
) -> None:
    """docs/threats.png and docs/practice.png (to docs/ with CONNECT4_UPDATE_SCREENSHOT=1)."""
    for tab in tab_at(browser, web_url, DESKTOP):
        open_page(tab, "?pos=42754275344314&p1=human&p2=human")
        tab.check("#show-threats")
        tab.wait_for_selector("#threats .threat-why")
        assert shoot(tab, DOCS / "threats.png", tmp_path).stat().st_size > 10_000
        review_4455(tab, "both")
        tab.click("#board [data-col='2']")
        tab.wait_for_selector("#practice .practice-grade")
        assert shoot(tab, DOCS / "practice.png", tmp_path).stat().st_size > 10_000
