"""Puzzles on the web: ``GET /api/puzzle`` through the real server (by id, near a
rating, with a theme; bad input a 400, nothing that matches a 404), the server's
``--puzzles`` setting, and the right moves of a solution's last step."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from connect4 import Position
from connect4.core.games import Board
from connect4.learn.puzzlefile import write_puzzles
from connect4.learn.puzzleindex import PuzzleIndex, right_moves
from connect4.learn.puzzles import Puzzle, find_puzzle, puzzle_id
from tests.cli_helpers import run_cli
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
