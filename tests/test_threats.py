"""The threat map and its explanations: the map equals a naive scan of the board, each
rule on a hand-made position, every claim held against the solver's exact scores, the
CLI through a real process and the API through a real server."""

from __future__ import annotations

import json
import random

import httpx
import pytest

from connect4 import Position, TicTacToe
from connect4.core.score import loss_score
from connect4.learn.threats import ThreatError, explain, threat_map
from connect4.review import exact_scores
from connect4.solver.bench import PONS_SETS, pons_path
from tests.cli_helpers import run_cli
from tests.web_helpers import error_of

LINES = ((1, 0), (0, 1), (1, 1), (1, -1))


def naive_threats(position: Position, player: int) -> set[tuple[int, int]]:
    """Empty cells where a stone of ``player`` would make four in a row through it,
    found by walking the grid."""
    width, height = position.width, position.height
    found = set()
    for column in range(width):
        for row in range(height):
            if position.cell(column, row):
                continue
            for dc, dr in LINES:
                for start in range(-3, 1):
                    cells = [(column + (start + k) * dc, row + (start + k) * dr) for k in range(4)]
                    if all(
                        0 <= c < width
                        and 0 <= r < height
                        and ((c, r) == (column, row) or position.cell(c, r) == player)
                        for c, r in cells
                    ):
                        found.add((column, row))
    return found


def naive_dead(position: Position, column: int, row: int, red: set, yellow: set) -> bool:
    """The module's definition of a dead threat, read off the cells one by one."""
    for k in range(position.heights[column], row):
        if (column, k) in red and (column, k) in yellow:
            return True
        if k + 1 < row and any({(column, k), (column, k + 1)} <= side for side in (red, yellow)):
            return True
    return False


def random_position(rng: random.Random, width: int, height: int, rules: str) -> Position:
    position = Position(width, height, rules)
    for _ in range(rng.randrange(width * height)):
        if position.is_over():
            position.undo()
            break
        position.play(rng.choice(position.legal_moves()))
    return position


@pytest.mark.parametrize("rules", ["standard", "count-fours"])
def test_map_equals_a_naive_scan(rules: str) -> None:
    rng = random.Random(33)
    boards = [(7, 6), (4, 4), (5, 4), (8, 7), (9, 7), (10, 10), (3, 6), (6, 3), (11, 9)]
    for _ in range(400):
        width, height = rng.choice(boards)
        position = random_position(rng, width, height, rules)
        if position.is_over():
            continue
        found = threat_map(position)
        red, yellow = naive_threats(position, 1), naive_threats(position, 2)
        assert {(t.column, t.row) for t in found.red} == red, position
        assert {(t.column, t.row) for t in found.yellow} == yellow, position
        for threat in (*found.red, *found.yellow):
            assert threat.odd == (threat.row % 2 == 0)
            assert threat.playable == (threat.row == position.heights[threat.column])
            dead = rules == "standard" and naive_dead(
                position, threat.column, threat.row, red, yellow
            )
            assert threat.live == (not dead), (position, threat)


def test_a_dead_threat_is_never_played() -> None:
    """Players who complete a four whenever they can never fill a dead threat's cell."""
    rng = random.Random(7)
    checked = 0
    for _ in range(3000):
        position = random_position(rng, rng.choice([4, 5, 7]), rng.choice([4, 6]), "standard")
        if position.is_over():
            continue
        dead = {(t.column, t.row) for t in (*threat_map(position).red, *threat_map(position).yellow)
                if not t.live}  # fmt: skip
        if not dead:
            continue
        checked += 1
        for _ in range(5):
            game = position.copy()
            while not game.is_over():
                wins = [c for c in game.legal_moves() if game.is_winning_move(c)]
                game.play(wins[0] if wins else rng.choice(game.legal_moves()))
                assert game.last_cell() not in dead, (position, game.moves)
    assert checked > 20


HAND_MADE = [
    # (moves, width, height, rule, what the rule proves for the side to move)
    ("445566", 7, 6, "immediate win", "win"),
    ("44556", 7, 6, "double threat", "loss"),
    ("737462", 7, 6, "double threat", "loss"),
    ("5144", 7, 6, "double threat", "win"),
    ("7615433736662", 7, 6, "double threat", "win"),  # two threats one above the other
    ("11352", 7, 6, "forced block", None),
    ("241411442221", 4, 4, "zugzwang", "loss"),
    ("2424221441", 4, 4, "odd threat", "win"),
    ("32661456543252361445432717415323661152", 7, 6, "odd threat", "win"),
    ("36361411142266512444", 7, 6, "claimeven", "not a win"),
    ("42754275344314", 7, 6, "claimeven", "loss"),
    ("14655315534433224", 7, 6, "claimeven", "not a loss"),
    ("34446456252121327", 7, 6, "claimeven", "win"),
]


@pytest.mark.parametrize(("moves", "width", "height", "rule", "proves"), HAND_MADE)
def test_each_rule_on_a_hand_made_position(
    moves: str, width: int, height: int, rule: str, proves: str | None
) -> None:
    position = Position.from_moves(moves, width, height)
    found = explain(position)
    assert found is not None and found.rule == rule
    scores = exact_scores(position).scores
    score = max(s for s in scores if s is not None)
    assert found.low <= score <= found.high
    bounds = {
        "win": found.low > 0,
        "loss": found.high < 0,
        "not a win": found.high == 0,
        "not a loss": found.low == 0,
        None: found.only_move,
    }
    assert bounds[proves]
    if found.only_move:
        others = [s for c, s in enumerate(scores) if s is not None and c != found.move]
        assert others and all(s == loss_score(position.size, position.ply) for s in others)
    assert "\n" not in found.sentence and found.sentence.endswith(".")


def test_no_rule_no_explanation() -> None:
    assert explain(Position()) is None
    assert explain(Position.from_moves("4453")) is None
    assert explain(Position.from_moves("445566", rules="count-fours")) is None


def test_refusals() -> None:
    with pytest.raises(ThreatError, match="for Connect Four, not tictactoe"):
        threat_map(TicTacToe())
    with pytest.raises(ThreatError, match=r"already over \(red has won\)"):
        threat_map(Position.from_moves("4455667"))
    with pytest.raises(ThreatError, match="already over"):
        explain(Position.from_moves("4455667"))


def pons_positions() -> list[tuple[str, int]]:
    positions = []
    for path in sorted(pons_path(name) for name in PONS_SETS):
        for line in path.read_text().splitlines():
            moves, score = line.split()
            positions.append((moves, int(score)))
    return positions


def check_claim(position: Position, score: int, scores: tuple[int | None, ...] | None) -> None:
    found = explain(position)
    if found is None:
        return
    assert found.low <= score <= found.high, (position.moves, found, score)
    if found.only_move and scores is not None:
        loss = loss_score(position.size, position.ply)
        assert all(s == loss for c, s in enumerate(scores) if s is not None and c != found.move)


def sweep(count: int, seed: int) -> None:
    """Every rule's claim against exact scores: Pons' positions (their scores given) and
    random positions of small boards (scored by the solver)."""
    rng = random.Random(seed)
    pons = pons_positions()
    for moves, score in rng.sample(pons, min(count, len(pons))):
        check_claim(Position.from_moves(moves), score, None)
    for _ in range(count):
        width, height = rng.choice([(4, 4), (5, 4), (6, 4), (4, 6), (5, 6)])
        position = random_position(rng, width, height, "standard")
        if position.is_over():
            continue
        scores = exact_scores(position).scores
        check_claim(position, max(s for s in scores if s is not None), scores)


def test_no_explanation_contradicts_the_solver() -> None:
    sweep(300, seed=1)


@pytest.mark.slow
def test_no_explanation_contradicts_the_solver_at_scale() -> None:
    sweep(8000, seed=2)


def test_cli_draws_the_map_and_explains() -> None:
    done = run_cli("threats", "445566")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert ["│", "·", "·", "R", "●", "●", "●", "R", "│"] in [line.split() for line in lines]
    red = "red threats: column 3 row 1 (odd, playable now); column 7 row 1 (odd, playable now)"
    assert red in done.stdout
    assert "why: Red wins now: column 3 completes a four." in done.stdout


def test_cli_says_when_no_rule_applies_and_shows_the_solver_line() -> None:
    done = run_cli("threats", "4453", "--width", "5", "--height", "4")
    assert done.returncode == 0, done.stderr
    line = exact_scores(Position.from_moves("4453", 5, 4))
    assert explain(Position.from_moves("4453", 5, 4)) is None
    assert "why: no simple rule explains this; the solver's line: " in done.stdout
    score = max(s for s in line.scores if s is not None)
    assert f"score {score:+d}" in done.stdout


def test_cli_json() -> None:
    done = run_cli("threats", "44556", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["red"] == [
        {"column": 3, "row": 1, "odd": True, "playable": True, "live": True},
        {"column": 7, "row": 1, "odd": True, "playable": True, "live": True},
    ]
    assert found["yellow"] == [] and found["to_move"] == 2 and found["pos"] == "44556"
    assert found["explanation"].startswith("Red threatens to win in columns 3 and 7")
    assert found["rule"]["rule"] == "double threat"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["448"], "error: move 3 ('8'): column 8 is out of range 1-7"),
        (["4455667"], "error: the game is already over (red has won): no threat can be played"),
        (["44", "--rules", "nope"], "error: unknown rules 'nope'"),
    ],
)
def test_cli_bad_input_is_one_line(args: list[str], message: str) -> None:
    done = run_cli("threats", *args)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(message) and len(done.stderr.strip().splitlines()) == 1


def test_terminal_game_t_key_shows_the_map() -> None:
    done = run_cli(
        "play", "--red", "human", "--yellow", "human", "--no-review",
        stdin="4\n1\n4\n1\n4\nt\n1\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "yellow to move — column, u undo, h hint, t threats, q quit: t" in done.stdout
    assert "red threats: column 4 row 4 (even, playable now)" in done.stdout
    assert "why: Yellow must block column 4: Red would complete a four there." in done.stdout
    assert "Yellow wins" not in done.stdout and "yellow to move" in done.stdout


def test_terminal_tictactoe_offers_no_threat_key() -> None:
    done = run_cli("play", "--game", "tictactoe", "--red", "human", "--yellow", "human",
                   "--no-review", stdin="t\nq\n")  # fmt: skip
    assert "t threats" not in done.stdout
    assert "move 1 ('t'): not a cell number 1-9" in done.stdout  # a move, not a key


def test_api_threats(client: httpx.Client) -> None:
    found = client.get("/api/threats", params={"pos": "44556"}).json()
    assert [(t["column"], t["row"]) for t in found["red"]] == [(3, 1), (7, 1)]
    assert found["yellow"] == []
    assert (
        found["explanation"]
        == "Red threatens to win in columns 3 and 7: Yellow can block only one."
    )
    assert found["rule"]["rule"] == "double threat" and found["to_move"] == 2
    rng = random.Random(4)
    for _ in range(20):  # the API's cells are the naive scan's, 1-based
        position = random_position(rng, 7, 6, "standard")
        if position.is_over():
            continue
        answer = client.get("/api/threats", params={"pos": position.moves}).json()
        for player, side in ((1, "red"), (2, "yellow")):
            cells = {(t["column"] - 1, t["row"] - 1) for t in answer[side]}
            assert cells == naive_threats(position, player)
        why = explain(position)
        assert answer["explanation"] == (None if why is None else why.sentence)


def test_api_no_rule_is_null(client: httpx.Client) -> None:
    found = client.get("/api/threats", params={"pos": "4453"}).json()
    assert found["explanation"] is None and found["rule"] is None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"pos": "448"}, "move 3 ('8'): column 8 is out of range 1-7"),
        ({"pos": "4455667"}, "the game is over (red has won): no threat can be played"),
        ({"pos": "5", "game": "tictactoe"}, "the threat map is for Connect Four, not tictactoe"),
        ({"pos": "4x"}, "move 2 ('x'): not a column number 1-7"),
        ({"pos": "44", "rules": "nope"}, "unknown rules 'nope'"),
    ],
)
def test_api_bad_position_is_a_400(
    client: httpx.Client, params: dict[str, str], message: str
) -> None:
    assert message in error_of(client.get("/api/threats", params=params), 400)
