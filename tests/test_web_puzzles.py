"""Puzzles on the web: ``GET /api/puzzle`` through the real server (by id, near a
rating, with a theme; bad input a 400, nothing that matches a 404), the server's
``--puzzles`` setting, the right moves of a solution's last step, ``POST
/api/puzzle/attempt`` (the ratings after an attempt) and the page's puzzles panel
with the player's rating kept in the browser."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx
import pytest

from connect4 import Position
from connect4.core.games import Board
from connect4.learn.puzzlefile import write_puzzles
from connect4.learn.puzzleindex import PuzzleIndex, right_moves
from connect4.learn.puzzles import Puzzle, find_puzzle, puzzle_id
from connect4.learn.ratings import Glicko, PlayerRecord, attempt
from tests.browser_helpers import open_page, tab_at
from tests.cli_helpers import run_cli
from tests.test_web_browser import DESKTOP, PHONE, shoot
from tests.web_helpers import error_of, live_client

# Puzzles from self-play games: a trivial four, a claimeven win, only drawing moves, a
# zugzwang win; ratings 400 to 2100.
POSITIONS = [
    "36777454272212734247",
    "473232235613533564656654415627772217",
    "463236634423264334646772227",
    "434",
    "245544",
    "53111633135334241142442666557",
]


@pytest.fixture(scope="module")
def puzzles_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("puzzles") / "puzzles.jsonl"
    found = [find_puzzle(Position.from_moves(pos), source="test") for pos in POSITIONS]
    write_puzzles(path, [p for p in found if p is not None])
    return path


@pytest.fixture(scope="module")
def http(puzzles_file: Path) -> Iterator[httpx.Client]:
    with live_client(threads=1, warm_up=False, puzzles=str(puzzles_file)) as client:
        yield client


def test_a_puzzle_by_id_is_the_files_line(http: httpx.Client, puzzles_file: Path) -> None:
    index = PuzzleIndex.load(puzzles_file)
    assert len(index) == len(POSITIONS)
    for puzzle in index.puzzles:
        answer = http.get("/api/puzzle", params={"id": puzzle.id})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert (body["id"], body["position"], body["solution"]) == (
            puzzle.id, puzzle.position, puzzle.solution,
        )  # fmt: skip
        assert (body["rating"], body["themes"], body["outcome"]) == (
            puzzle.rating, list(puzzle.themes), puzzle.outcome,
        )  # fmt: skip
        assert body["to_move"] == Position.from_moves(puzzle.position).to_move
        assert body["right"][0] == [int(puzzle.solution[0])]
        assert len(body["right"]) == (len(puzzle.solution) + 1) // 2
        assert body["collection"] == len(POSITIONS)


def test_a_rating_gives_one_of_the_closest(http: httpx.Client, puzzles_file: Path) -> None:
    ratings = sorted(p.rating for p in PuzzleIndex.load(puzzles_file).puzzles)
    for asked in (0, 400, 1000, 1500, 2100, 2800):
        nearest = min(abs(r - asked) for r in ratings)
        for _ in range(5):
            got = http.get("/api/puzzle", params={"rating": asked}).json()["rating"]
            assert abs(got - asked) <= max(100, 2 * nearest), (asked, got)
    median = sorted(ratings)[(len(ratings) - 1) // 2]
    got = http.get("/api/puzzle").json()["rating"]
    assert abs(got - median) <= 100


def test_a_theme_gives_a_puzzle_with_it(http: httpx.Client, puzzles_file: Path) -> None:
    themes = PuzzleIndex.load(puzzles_file).themes()
    assert {"claimeven", "only-drawing-move", "zugzwang"} <= set(themes)
    for theme in themes:
        for rating in (400, 2800):
            body = http.get("/api/puzzle", params={"theme": theme, "rating": rating}).json()
            assert theme in body["themes"], (theme, body)


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        ({"rating": 3000}, 400, "a rating is from 0 to 2800, not 3000"),
        ({"rating": -1}, 400, "not -1"),
        ({"rating": "high"}, 422, "query parameter rating"),
        ({"theme": "fork"}, 400, "unknown theme 'fork'"),
        ({"theme": "win-in-x"}, 400, "unknown theme"),
        ({"id": "not-an-id"}, 400, "is no puzzle id"),
        ({"id": "0" * 12}, 404, "no puzzle 000000000000"),
        ({"theme": "win-in-99"}, 404, "no puzzle of the server's has the theme win-in-99"),
    ],
)
def test_bad_input_and_no_match(
    http: httpx.Client, params: dict[str, object], status: int, words: str
) -> None:
    assert words in error_of(http.get("/api/puzzle", params=params), status)


ATTEMPT = "/api/puzzle/attempt"


def _rated(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    answer = http.post(ATTEMPT, json=body)
    assert answer.status_code == 200, answer.text
    rated: dict[str, Any] = answer.json()
    return rated


def _glicko(body: dict[str, float]) -> Glicko:
    return Glicko(body["rating"], body["deviation"], body["volatility"])


def test_an_attempt_moves_both_ratings_the_right_way(
    http: httpx.Client, puzzles_file: Path
) -> None:
    puzzles = PuzzleIndex.load(puzzles_file).puzzles
    hardest = max(puzzles, key=lambda p: p.rating)
    first = PlayerRecord().puzzle_rating(hardest.id, hardest.rating)
    assert first.deviation == 200 and first.rating == hardest.rating
    won = _rated(http, {"id": hardest.id, "solved": True})  # a new player
    player, puzzle = attempt(Glicko(), first, solved=True)
    assert (won["id"], won["solved"]) == (hardest.id, True)
    assert _glicko(won["player"]) == player and _glicko(won["puzzle"]) == puzzle
    assert won["player"]["rating"] > 1500 and won["player"]["deviation"] < 350
    assert won["puzzle"]["rating"] < hardest.rating
    assert won["change"] == round(player.rating) - 1500 > 0
    assert won["puzzle_change"] == round(puzzle.rating) - hardest.rating < 0
    # the rating answered is the next attempt's: a miss lowers it, the puzzle gains
    lost = _rated(http, {"id": hardest.id, "solved": False, "player": won["player"]})
    player, puzzle = attempt(player, first, solved=False)
    assert _glicko(lost["player"]) == player and _glicko(lost["puzzle"]) == puzzle
    assert lost["change"] < 0 < lost["puzzle_change"]
    assert lost["player"]["rating"] < won["player"]["rating"]
    # stateless: the same attempt again gives the same answer (the server kept nothing)
    assert _rated(http, {"id": hardest.id, "solved": False, "player": won["player"]}) == lost


def test_an_attempt_at_the_ends_of_the_ranges_stays_in_them(
    http: httpx.Client, puzzles_file: Path
) -> None:
    easiest = min(PuzzleIndex.load(puzzles_file).puzzles, key=lambda p: p.rating)
    top = {"rating": 4000, "deviation": 500, "volatility": 0.5}
    high = _rated(http, {"id": easiest.id, "solved": True, "player": top})
    assert high["player"]["rating"] == 4000 and high["player"]["deviation"] <= 500
    bottom = {"rating": 0, "deviation": 30, "volatility": 0.01}
    low = _rated(http, {"id": easiest.id, "solved": False, "player": bottom})
    assert low["player"]["rating"] == 0 and low["player"]["deviation"] >= 30
    again = _rated(http, {"id": easiest.id, "solved": False, "player": low["player"]})
    assert again["player"]["rating"] == 0 and 30 <= again["player"]["deviation"] <= 500
    assert 0.01 <= again["player"]["volatility"] <= 0.5


GOOD_PLAYER = {"rating": 1500, "deviation": 200, "volatility": 0.06}


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"id": "0" * 12, "solved": True}, 404, "no puzzle 000000000000 in the server's"),
        ({"id": "not-an-id", "solved": True}, 400, "'not-an-id' is no puzzle id"),
        ({"id": "a" * 65, "solved": True}, 422, "body field id: String should have at most 64"),
        ({"solved": True}, 422, "body field id: Field required"),
        ({"id": "{id}"}, 422, "body field solved: Field required"),
        ({"id": "{id}", "solved": "yes"}, 422, "body field solved: Input should be a valid bool"),
        ({"id": "{id}", "solved": 1}, 422, "body field solved: Input should be a valid boolean"),
        (
            {"id": "{id}", "solved": True, "player": {**GOOD_PLAYER, "rating": 4001}},
            422, "body field player.rating: Input should be less than or equal to 4000",
        ),
        (
            {"id": "{id}", "solved": True, "player": {**GOOD_PLAYER, "rating": -1}},
            422, "body field player.rating: Input should be greater than or equal to 0",
        ),
        (
            {"id": "{id}", "solved": True, "player": {**GOOD_PLAYER, "rating": "1500"}},
            422, "body field player.rating: Input should be a valid number",
        ),
        (
            {"id": "{id}", "solved": True, "player": {**GOOD_PLAYER, "deviation": 0}},
            422, "body field player.deviation: Input should be greater than or equal to 30",
        ),
        (
            {"id": "{id}", "solved": True, "player": {**GOOD_PLAYER, "deviation": 501}},
            422, "body field player.deviation: Input should be less than or equal to 500",
        ),
        (
            {"id": "{id}", "solved": True, "player": {**GOOD_PLAYER, "volatility": 0}},
            422, "body field player.volatility: Input should be greater than or equal to 0.01",
        ),
        (
            {"id": "{id}", "solved": True, "player": {"rating": 1500, "deviation": 200}},
            422, "body field player.volatility: Field required",
        ),
        (
            {"id": "{id}", "solved": True, "player": {**GOOD_PLAYER, "streak": 3}},
            422, "body field player.streak: Extra inputs are not permitted",
        ),
        ({"id": "{id}", "solved": True, "player": 1500}, 422, "body field player: Input should"),
        ([1, 2], 422, "request body: Input should be a valid dictionary"),
    ],
)  # fmt: skip
def test_a_bad_attempt_is_refused_with_what_is_wrong(
    http: httpx.Client, puzzles_file: Path, body: Any, status: int, words: str
) -> None:
    known = PuzzleIndex.load(puzzles_file).puzzles[0].id
    if isinstance(body, dict) and body.get("id") == "{id}":
        body = {**body, "id": known}
    assert words in error_of(http.post(ATTEMPT, json=body), status)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ('{"id": "ID", "solved": true, "player": {"rating": NaN, "deviation": 200, '
         '"volatility": 0.06}}', "body field player.rating: Input should be a finite number"),
        ('{"id": "ID", "solved": true, "player": {"rating": 1500, "deviation": Infinity, '
         '"volatility": 0.06}}', "body field player.deviation: Input should be a finite number"),
        ('{"id": "ID", "solved": tru', "request body: JSON decode error"),
        ("", "request body: Field required"),
    ],
)  # fmt: skip
def test_an_attempt_that_is_no_json_or_no_number_is_refused(
    http: httpx.Client, puzzles_file: Path, raw: str, words: str
) -> None:
    known = PuzzleIndex.load(puzzles_file).puzzles[0].id
    content = raw.replace("ID", known).encode()
    sent = http.post(ATTEMPT, content=content, headers={"Content-Type": "application/json"})
    assert words in error_of(sent, 422)


def test_random_attempts_never_get_a_500(http: httpx.Client, puzzles_file: Path) -> None:
    """Seeded random bodies: every answer is a rating or a 400/404/422 with a message."""
    rng = random.Random(7)
    known = PuzzleIndex.load(puzzles_file).puzzles[0].id
    values: list[Any] = [None, True, False, 0, -1, 1e308, -1e308, 0.5, 1500, 4000.5, "", "x",
                         known, [], {}, [1500, 200, 0.06], {"rating": 1500}, 10**40]  # fmt: skip
    keys = ["id", "solved", "player", "rating", "deviation", "volatility"]
    statuses = set()
    for _ in range(300):
        player = {k: rng.choice([*values, 200.0, 0.06]) for k in rng.sample(keys[3:], 3)}
        body = {k: rng.choice([*values, player]) for k in rng.sample(keys, rng.randint(0, 4))}
        if rng.random() < 0.5:
            body.update(id=known, solved=rng.random() < 0.5)
        answer = http.post(ATTEMPT, json=body)
        assert answer.status_code in (200, 400, 404, 422), (body, answer.text)
        assert answer.status_code == 200 or answer.json()["error"], body
        statuses.add(answer.status_code)
    assert {200, 422} <= statuses  # both kinds of answer were met


def test_an_oversize_attempt_is_refused_as_every_post_is(http: httpx.Client) -> None:
    padding = "x" * 70_000
    sent = http.post(ATTEMPT, json={"id": padding, "solved": True})
    assert "request body too large" in error_of(sent, 413)


def test_the_attempt_is_in_the_api_docs(http: httpx.Client) -> None:
    schema = http.get("/openapi.json").json()
    post = schema["paths"]["/api/puzzle/attempt"]["post"]
    assert "Glicko-2" in post["description"] and "keeps nothing" in post["description"]
    assert {"200", "400", "404", "422"} <= set(post["responses"])
    fields = schema["components"]["schemas"]["AttemptRequest"]["properties"]
    assert {"id", "solved", "player"} == set(fields)


def test_a_server_without_puzzles_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("connect4.web.api.puzzles.shipped_puzzles", lambda: None)
    with live_client(threads=1, warm_up=False) as client:
        message = error_of(client.get("/api/puzzle"), 404)
    assert "no puzzles" in message and "--puzzles FILE" in message


def test_at_the_last_step_every_four_is_right() -> None:
    position = Position.from_moves("223344")  # red wins in column 1 or 5
    puzzle = Puzzle(puzzle_id(Board(), position), Board(), "223344", "5", "win")
    assert right_moves(puzzle) == [[0, 4]]
    longer = find_puzzle(Position.from_moves(POSITIONS[2]))
    assert longer is not None and len(longer.solution) > 1
    right = right_moves(longer)
    assert [moves[0] for moves in right] == [int(c) - 1 for c in longer.solution[::2]]
    assert all(len(moves) == 1 for moves in right[:-1])


def test_serve_refuses_a_puzzles_file_it_cannot_read(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    for path, words in ((bad, "line 1: not a puzzle"), (tmp_path / "none.jsonl", "none.jsonl")):
        done = run_cli("serve", "--port", "1", "--puzzles", str(path))
        assert done.returncode == 2, done.stderr
        assert done.stdout == "" and "Traceback" not in done.stderr
        assert done.stderr.startswith("error: ") and words in done.stderr, done.stderr


# ---------------------------------------------------------------- the page, in Chromium
SCREEN = {"desktop": DESKTOP, "phone": PHONE}
CLAIMEVEN = POSITIONS[2]  # yellow's 7, 1, 1 (red's 1, 1 between): a win by claimeven


@pytest.fixture(params=list(SCREEN))
def tab(request: pytest.FixtureRequest, browser: Any, http: httpx.Client) -> Iterator[Any]:
    """A tab of the puzzles server at 1280x800 and at 390x844."""
    yield from tab_at(browser, str(http.base_url), SCREEN[request.param])


def _puzzle(http: httpx.Client, position: str) -> dict[str, Any]:
    found = find_puzzle(Position.from_moves(position))
    assert found is not None
    body: dict[str, Any] = http.get("/api/puzzle", params={"id": found.id}).json()
    return body


def _shown(page: Any, moves: str) -> None:
    page.wait_for_function(
        "(moves) => document.getElementById('pos-text').textContent === moves", arg=moves
    )


def _attempts(page: Any) -> list[dict[str, Any]]:
    """The bodies the page posts to the attempt endpoint, kept over reloads."""
    sent: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: sent.append(r.post_data_json) if r.url.endswith(ATTEMPT) else None,
    )
    return sent


def _player_line(page: Any, words: str) -> str:
    """Wait until the panel's rating line holds ``words``; its text."""
    page.wait_for_function(
        "(words) => document.querySelector('#puzzle .puzzle-player')?.textContent.includes(words)",
        arg=words,
    )
    return str(page.text_content("#puzzle .puzzle-player"))


def _signed(change: int) -> str:
    return f"+{change}" if change > 0 else f"\u2212{-change}" if change < 0 else "\u00b10"


def _expected(before: Glicko, puzzle: dict[str, Any], solved: bool) -> tuple[Glicko, str, str]:
    """The player's rating after the attempt, the panel's line for it and the puzzle's
    rating as the panel shows it (learn.ratings' Glicko-2, within the ranges kept)."""
    first = PlayerRecord().puzzle_rating(puzzle["id"], puzzle["rating"])
    player, rated = attempt(before, first, solved=solved)
    change = round(player.rating) - round(before.rating)
    line = f"Your rating {round(player.rating)} ({_signed(change)})"
    shown = f"{round(rated.rating)} ({_signed(round(rated.rating) - puzzle['rating'])})"
    return player, line, shown


@pytest.mark.browser
def test_a_puzzle_solved_by_clicks_and_keys(tab: Any, http: httpx.Client) -> None:
    puzzle = _puzzle(http, CLAIMEVEN)
    solution = puzzle["solution"]
    assert len(puzzle["right"]) == 3
    sent = _attempts(tab)
    open_page(tab, f"?puzzle={puzzle['id']}")
    _shown(tab, CLAIMEVEN)
    assert f"puzzle={puzzle['id']}" in tab.url
    assert puzzle["to_move"] == 2  # yellow to move
    assert "Find the best move for yellow" in str(tab.text_content("#puzzle .puzzle-head"))
    assert "Find the best move for Yellow" in str(tab.text_content("#status"))
    assert tab.is_hidden("#solution") and tab.is_hidden("#explorer")  # nothing gives it away
    tab.click("#board [data-col='4']")  # a wrong move: said, nothing played
    tab.wait_for_selector("#puzzle .puzzle-grade.grade-wrong")
    assert tab.text_content("#puzzle .puzzle-grade") == "5 is not the move: try again."
    assert tab.text_content("#pos-text") == CLAIMEVEN
    _player_line(tab, "(\u2212")  # the attempt failed at its first miss
    assert sent == [{"id": puzzle["id"], "solved": False, "player": dict(asdict(Glicko()))}]
    tab.click(f"#board [data-col='{int(solution[0]) - 1}']")  # right: the reply comes after it
    _shown(tab, CLAIMEVEN + solution[:2])
    assert f"The reply is {solution[1]}" in str(tab.text_content("#puzzle .puzzle-grade"))
    tab.locator("#board").focus()
    tab.keyboard.press(solution[2])  # a digit key plays its column
    _shown(tab, CLAIMEVEN + solution[:4])
    tab.reload()  # the URL names the puzzle: the same one, from its start
    tab.wait_for_selector("body[data-ready='1']")
    _shown(tab, CLAIMEVEN)
    assert puzzle["id"] in str(tab.text_content("#puzzle .puzzle-head"))
    for step in range(3):
        tab.keyboard.press(solution[2 * step])
        _shown(tab, CLAIMEVEN + solution[: 2 * step + 1 + (step < 2)])
    assert tab.text_content("#puzzle .puzzle-grade") == "Right! Solved."
    facts = str(tab.text_content("#puzzle .puzzle-facts"))
    assert facts == f"Rating {puzzle['rating']} · themes: {', '.join(puzzle['themes'])}"
    assert "Streak: 1" in str(tab.text_content("#puzzle .puzzle-streak"))
    assert "(tried before: not rated again)" in _player_line(tab, "tried before")
    assert len(sent) == 1  # the reload and the solve after it are not rated again
    assert tab.evaluate("document.documentElement.scrollWidth") <= tab.viewport_size["width"]


@pytest.mark.browser
def test_the_players_rating_moves_and_is_kept(tab: Any, http: httpx.Client) -> None:
    puzzle = _puzzle(http, CLAIMEVEN)
    solution = puzzle["solution"]
    sent = _attempts(tab)
    open_page(tab, f"?puzzle={puzzle['id']}")
    _shown(tab, CLAIMEVEN)
    assert _player_line(tab, "Your rating") == "Your rating 1500"  # a new player
    for step in range(3):  # solved without a miss: the rating goes up
        tab.keyboard.press(solution[2 * step])
        _shown(tab, CLAIMEVEN + solution[: 2 * step + 1 + (step < 2)])
    player, line, shown = _expected(Glicko(), puzzle, solved=True)
    assert _player_line(tab, "(+") == line
    assert round(player.rating) > 1500
    facts = str(tab.text_content("#puzzle .puzzle-facts"))
    assert facts.startswith(f"Rating {shown} · themes: ")
    assert "\u2212" in shown  # the puzzle lost: its rating went down
    tab.reload()  # the rating is kept in the browser; the same puzzle is not rated again
    tab.wait_for_selector("body[data-ready='1']")
    _shown(tab, CLAIMEVEN)
    kept = f"Your rating {round(player.rating)} (tried before: not rated again)"
    assert _player_line(tab, "tried before") == kept
    with tab.expect_request(lambda r: "/api/puzzle?" in r.url) as asked:
        tab.keyboard.press("n")  # the next puzzle near the player's rating
    assert f"rating={round(player.rating)}" in asked.value.url
    other = _puzzle(http, POSITIONS[4])  # a puzzle not tried yet: a wrong move lowers it
    open_page(tab, f"?puzzle={other['id']}")
    _shown(tab, POSITIONS[4])
    wrong = next(c for c in range(1, 8) if c not in other["right"][0])
    tab.keyboard.press(str(wrong))
    tab.wait_for_selector("#puzzle .puzzle-grade.grade-wrong")
    lower, line, _ = _expected(player, other, solved=False)
    assert _player_line(tab, "(\u2212") == line
    assert lower.rating < player.rating
    assert [body["solved"] for body in sent] == [True, False]
    assert sent[1]["player"]["rating"] == pytest.approx(player.rating)


@pytest.mark.browser
def test_the_hint_is_the_threat_map_and_fails_the_attempt(tab: Any, http: httpx.Client) -> None:
    puzzle = _puzzle(http, CLAIMEVEN)
    solution = puzzle["solution"]
    sent = _attempts(tab)
    open_page(tab, f"?puzzle={puzzle['id']}")
    _shown(tab, CLAIMEVEN)
    tab.check("#show-threats")  # while the puzzle asks, the threat map is its hint only
    assert tab.is_hidden("#threats")
    tab.evaluate("document.activeElement.blur()")  # (keys typed in a form field are its own)
    tab.keyboard.press("h")
    tab.wait_for_selector("#threats .threat-list", state="visible")  # drawn: the answer came
    said = "Hint: the threat map (the attempt counts as failed)."
    assert tab.text_content("#puzzle .puzzle-grade") == said
    _, line, _ = _expected(Glicko(), puzzle, solved=False)
    assert _player_line(tab, "(\u2212") == line
    assert tab.is_hidden("#puzzle-hint") and "Streak: 0" in str(tab.text_content("#puzzle"))
    for step in range(3):  # solved after the hint: not rated again, no streak
        tab.keyboard.press(solution[2 * step])
        _shown(tab, CLAIMEVEN + solution[: 2 * step + 1 + (step < 2)])
        assert tab.is_visible("#threats")
    assert tab.text_content("#puzzle .puzzle-grade") == "Right, solved with a hint."
    assert _player_line(tab, "(\u2212") == line
    assert "Streak: 0" in str(tab.text_content("#puzzle .puzzle-streak"))
    assert [body["solved"] for body in sent] == [False]


def _next_set(page: Any, key: str) -> None:
    """Press ``key`` (n: the next puzzle) and wait until the panel is drawn anew."""
    page.evaluate("document.querySelector('#puzzle .puzzle-head').dataset.old = '1'")
    page.keyboard.press(key)
    page.wait_for_function("() => !document.querySelector('#puzzle .puzzle-head')?.dataset.old")


@pytest.mark.browser
def test_a_puzzle_tried_before_is_asked_again(
    tab: Any, http: httpx.Client, puzzles_file: Path
) -> None:
    asked: list[str] = []
    tab.on("request", lambda r: asked.append(r.url) if "/api/puzzle?" in r.url else None)
    open_page(tab, "")
    ids = [p.id for p in PuzzleIndex.load(puzzles_file).puzzles]
    tab.evaluate("(ids) => localStorage.setItem('connect4.puzzlesTried', JSON.stringify(ids))", ids)
    tab.click("#puzzle-start")  # every puzzle tried: asked four times, the last one shown
    _player_line(tab, "tried before: not rated again")
    assert len(asked) == 4 and all("rating=1500" in url for url in asked)
    tab.evaluate("localStorage.removeItem('connect4.puzzlesTried')")
    _next_set(tab, "n")  # none tried: asked once
    assert len(asked) == 5
    assert _player_line(tab, "Your rating") == "Your rating 1500"


@pytest.mark.browser
def test_show_solution_and_next_puzzle(tab: Any, http: httpx.Client) -> None:
    puzzle = _puzzle(http, CLAIMEVEN)
    open_page(tab, f"?puzzle={puzzle['id']}")
    _shown(tab, CLAIMEVEN)
    tab.keyboard.press("s")  # the solution played out: not solved, the streak broken
    _shown(tab, CLAIMEVEN + puzzle["solution"])
    assert tab.text_content("#puzzle .puzzle-grade") == f"The solution: {puzzle['solution']}."
    assert "Streak: 0" in str(tab.text_content("#puzzle .puzzle-streak"))
    assert tab.is_hidden("#puzzle-reveal")
    player, line, _ = _expected(Glicko(), puzzle, solved=False)  # asking for it fails it
    assert _player_line(tab, "(\u2212") == line
    with tab.expect_request(lambda r: "/api/puzzle?" in r.url) as request:
        tab.click("#puzzle-next")  # another puzzle of the collection, near the player's rating
    assert f"rating={round(player.rating)}" in request.value.url
    tab.wait_for_selector("#puzzle-reveal")  # the next one is set (not over yet)
    shown = str(tab.text_content("#pos-text"))
    shown = "" if shown == "(empty)" else shown
    assert shown in POSITIONS
    head = str(tab.text_content("#puzzle .puzzle-head"))
    assert f"puzzle={head.split()[1].rstrip(':')}" in tab.url
    _next_set(tab, "n")
    tab.click("#puzzle-close")
    assert tab.is_hidden("#puzzle") and "puzzle=" not in tab.url


@pytest.mark.browser
def test_puzzle_screenshot_for_the_docs(browser: Any, http: httpx.Client, tmp_path: Path) -> None:
    """docs/puzzle.png (to docs/ with CONNECT4_UPDATE_SCREENSHOT=1)."""
    puzzle = _puzzle(http, CLAIMEVEN)
    for page in tab_at(browser, str(http.base_url), DESKTOP):
        open_page(page, f"?puzzle={puzzle['id']}")
        _shown(page, CLAIMEVEN)
        page.click("#board [data-col='0']")
        page.wait_for_selector("#puzzle .puzzle-grade.grade-wrong")
        _player_line(page, "(\u2212")  # the miss rated
        docs = Path(__file__).resolve().parents[1] / "docs" / "puzzle.png"
        assert shoot(page, docs, tmp_path).stat().st_size > 10_000
