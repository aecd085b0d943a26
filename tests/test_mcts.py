"""Monte Carlo tree search: tactics, the solver option, reproducibility, the two
engines' agreement, the player kind and its specs."""

from __future__ import annotations

import json
import random
from typing import Any, cast

import pytest

from connect4 import Position, TicTacToe
from connect4.classic.mcts import Engine, Mcts, MctsResult
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.core.position import four_in_a_row
from connect4.players import PlayerSpecError, make_player
from connect4.solver import Solver
from connect4.solver.bench import pons_path
from tests.cli_helpers import run_cli


def random_positions(seed: int, count: int, wanted: str) -> list[Position]:
    """Positions of random 7x6 games where the side to move can win at once
    (``wanted="win"``) or must block the opponent's one threat (``"block"``)."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position()
        for _ in range(rng.randrange(6, 30)):
            moves = position.legal_moves()
            if not moves or any(position.is_winning_move(m) for m in moves):
                break
            position.play(rng.choice(moves))
        if position.is_over():
            continue
        moves = position.legal_moves()
        wins = [m for m in moves if position.is_winning_move(m)]
        if wanted == "win" and wins:
            found.append(position)
        elif wanted == "block" and not wins and len(threats(position)) == 1:
            block = threats(position)[0]
            position.play(block)
            safe = not any(position.is_winning_move(m) for m in position.legal_moves())
            position.undo()
            if safe:
                found.append(position)
    return found


def threats(position: Position) -> list[int]:
    """Columns where the opponent would win if it were to move (centre first)."""
    opponent = position.current ^ position.mask
    columns = []
    for column in position.legal_moves():
        bit = 1 << (column * (position.height + 1) + position.heights[column])
        if four_in_a_row(opponent | bit, position.height):
            columns.append(column)
    return columns


@pytest.mark.parametrize("solver", [False, True])
def test_takes_a_win_in_one(solver: bool) -> None:
    for index, position in enumerate(random_positions(1, 25, "win")):
        result = Mcts(seed=index, solver=solver).search(position, playouts=3000)
        assert position.is_winning_move(result.move), position.moves
        if solver:
            assert result.proven == 1


@pytest.mark.parametrize("playout", ["random", "heuristic"])
def test_blocks_a_loss_in_one(playout: str) -> None:
    policy = "heuristic" if playout == "heuristic" else "random"
    for index, position in enumerate(random_positions(2, 25, "block")):
        result = Mcts(seed=index, playout=policy).search(position, playouts=5000)
        assert result.move == threats(position)[0], position.moves


def test_solver_proves_end_easy_positions() -> None:
    lines = pons_path("Test_L3_R1").read_text().splitlines()[:30]
    solver = Solver()
    proven = 0
    for line in lines:
        moves, score = line.split()
        position = Position.from_moves(moves)
        result = Mcts(seed=1, solver=True).search(position, playouts=200_000)
        if result.proven is None:
            continue
        proven += 1
        assert result.proven == (int(score) > 0) - (int(score) < 0), moves
        best = solver.analyze(position)[result.move]
        assert best is not None and (best > 0) - (best < 0) == result.proven, moves
    assert proven == 29  # one draw needs more than 200,000 playouts to prove


def test_seeded_runs_are_reproducible_and_seeds_differ() -> None:
    position = Position.from_moves("4453")

    def run(seed: int) -> MctsResult:
        return Mcts(seed=seed, c=1.0).search(position, playouts=20_000)

    first, again, other = run(7), run(7), run(8)
    assert (first.move, first.children, first.tree_size) == (
        again.move,
        again.children,
        again.tree_size,
    )
    assert first.children != other.children
    assert sum(child.visits for child in first.children) == 20_000


GAMES: list[tuple[Game, list[int]]] = [
    (TicTacToe(), [4, 0]),
    (TicTacToe.from_moves("5"), [0, 8]),
    (Position(4, 4), [1, 2]),
    (Position(4, 4, "count-fours"), [1, 1]),
    (Position(5, 4), [2, 2]),
]


@pytest.mark.parametrize(("game", "then"), GAMES)
@pytest.mark.parametrize("solver", [False, True])
@pytest.mark.parametrize("playout", ["random", "heuristic"])
def test_compiled_and_reference_engines_agree(
    game: Game, then: list[int], solver: bool, playout: str
) -> None:
    policy = "heuristic" if playout == "heuristic" else "random"
    results = []
    for engine in ("numba", "python"):
        mcts = Mcts(seed=11, solver=solver, playout=policy, engine=engine)
        position = game.copy()
        first = mcts.search(position, playouts=1500)
        for move in then:  # the next search starts from the kept subtree
            position.play(move)
        second = mcts.search(position, playouts=1500)
        results.append(
            [
                (r.move, r.children, r.tree_size, r.max_depth, r.reused, r.proven)
                for r in (first, second)
            ]
        )
        assert first.engine == engine
    assert results[0] == results[1]


def test_tree_reuse_keeps_the_subtree() -> None:
    mcts = Mcts(seed=2)
    position = Position.from_moves("44")
    first = mcts.search(position, playouts=5000)
    reply = max((c for c in first.children), key=lambda c: c.visits).move
    position.play(first.move)
    position.play(reply)
    second = mcts.search(position, playouts=1000)
    assert second.reused > 0
    assert sum(c.visits for c in second.children) == second.reused - 1 + 1000
    fresh = Mcts(seed=2).search(Position.from_moves("4"), playouts=10)
    assert fresh.reused == 0


def capped_search(kind: str, cap: int | None) -> Any:
    """A tree search of ``kind`` (MCTS on either engine, or the network's PUCT) whose tree
    holds at most ``cap`` nodes (``None``: its default room)."""
    room = {} if cap is None else {"max_tree_nodes": cap}
    if kind == "puct":
        from connect4.net.model import Network
        from connect4.net.search import Puct

        return Puct(Network.random(7, 6, channels=8, blocks=1, seed=4), **room)
    return Mcts(seed=4, engine=cast(Engine, kind), **room)


def arms(result: Any) -> Any:
    """The root's moves and their visits: an MCTS result's children, a PUCT one's columns."""
    return result.columns if hasattr(result, "columns") else result.children


@pytest.mark.parametrize(
    ("kind", "moves", "cap", "playouts"),
    [("numba", "4453", 400, 20_000), ("python", "4453", 400, 20_000), ("puct", "44", 60, 2000)],
)
def test_a_full_tree_stops_the_search_so_more_playouts_change_nothing(
    kind: str, moves: str, cap: int, playouts: int
) -> None:
    """Once the tree is full, more playouts would all pile onto the most visited leaves
    (frozen, never expanded) and drift the choice; the search stops there instead."""
    position = Position.from_moves(moves)
    small = capped_search(kind, cap).search(position, playouts=playouts)
    assert small.tree_full and small.playouts < playouts and small.tree_size <= cap
    assert sum(arm.visits for arm in arms(small)) == small.playouts
    large = capped_search(kind, cap).search(position, playouts=10 * playouts)
    assert large.tree_full and large.playouts == small.playouts
    assert (large.move, arms(large)) == (small.move, arms(small))
    kept = capped_search(kind, cap)
    kept.search(position, playouts=playouts)
    again = kept.search(position, playouts=playouts // 20)  # still full: nothing more
    assert again.tree_full and again.playouts == 0 and again.tree_size == small.tree_size
    roomy = capped_search(kind, None).search(position, playouts=small.playouts)
    assert not roomy.tree_full and arms(roomy) == arms(small)  # the cap only stops


@pytest.mark.parametrize("engine", ["numba", "python"])
def test_a_search_of_as_many_playouts_as_fill_the_tree_is_not_cut(engine: str) -> None:
    position = Position.from_moves("4453")
    small = capped_search(engine, 400).search(position, playouts=20_000)
    exact = capped_search(engine, 400).search(position, playouts=small.playouts)
    assert (exact.move, exact.children, exact.tree_full) == (small.move, small.children, False)


def test_the_engines_stop_at_the_same_full_tree() -> None:
    engines: tuple[Engine, ...] = ("numba", "python")
    results = [
        Mcts(seed=7, engine=engine, max_tree_nodes=300, solver=True).search(
            Position.from_moves("44"), playouts=50_000
        )
        for engine in engines
    ]
    assert results[0].tree_full and results[1].tree_full
    assert results[0].children == results[1].children
    assert results[0].tree_size == results[1].tree_size <= 300


def test_a_full_tree_is_in_the_players_stats() -> None:
    from connect4.players.mcts import MctsPlayer

    player = MctsPlayer("mcts", Mcts(seed=1, max_tree_nodes=200), 100_000, None)
    choice = player.choose(Position())
    assert choice.stats["tree_full"] is True and choice.stats["tree_size"] <= 200
    assert choice.stats["playouts"] < 100_000
    roomy = make_player("mcts:playouts=500,seed=1").choose(Position())
    assert "tree_full" not in roomy.stats


def test_time_limit_and_bad_requests() -> None:
    Mcts(seed=1).search(Position(), playouts=10)  # the engine loaded outside the limit
    result = Mcts(seed=1).search(Position(), limit=Limit.within(0.05))
    assert result.playouts > 0 and result.move in range(7)
    with pytest.raises(ValueError, match="game is over"):
        Mcts().search(Position.from_moves("4455667"), playouts=10)
    with pytest.raises(ValueError, match=r"playout 'smart': choose one of random, heuristic"):
        Mcts(playout="smart")  # type: ignore[arg-type]
    assert Mcts(engine="numba").search(Position(8, 7), playouts=10).engine == "numba"
    assert Mcts(seed=1).search(Position(8, 7), playouts=50).engine == "numba"  # 64 bits
    big = Mcts(seed=1).search(Position.from_moves("5a6a7a", width=10, height=6), playouts=300)
    assert big.engine == "numba" and big.move in (3, 7)  # two words: a win at once


def test_player_kind_and_specs() -> None:
    player = make_player("mcts:playouts=2000,seed=3,solver=on,playout=heuristic")
    choice = player.choose(Position.from_moves("445566"))
    assert choice.move in (2, 6) and choice.proven is True
    assert choice.stats["playouts"] <= 2000
    assert set(choice.stats) >= {"playouts", "playouts_per_second", "tree_size", "depth"}
    json.dumps(choice.stats)
    ttt = make_player("mcts:level=easy", game="tictactoe", seed=1)
    assert ttt.choose(TicTacToe.from_moves("12")).move in range(9)
    for spec, message in [
        ("mcts:depth=3", r"unknown key 'depth' \(mcts takes: playouts, time"),
        ("mcts:playout=smart", "must be one of random, heuristic"),
        ("mcts:solver=maybe", "must be on or off"),
    ]:
        with pytest.raises(PlayerSpecError, match=message):
            make_player(spec)


def test_cli_game_finishes_with_a_winner() -> None:
    result = run_cli(
        "play", "--red", "mcts:playouts=2000,seed=1", "--yellow", "random", "--seed", "1", "--json"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    record = json.loads(result.stdout)
    assert record["finished"] and record["winner"] == 1
    red, yellow = record["move_stats"][:2]
    assert red["playouts"] == 2000 and red["tree_size"] > 0 and yellow is None


def test_json_records_carry_per_column_statistics() -> None:
    result = run_cli(
        "play", "--red", "mcts:playouts=500,seed=1", "--yellow", "random", "--seed", "1", "--json"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    first = json.loads(result.stdout)["move_stats"][0]
    columns = first["columns"]
    assert [column["move"] for column in columns] == list("1234567")
    assert [column["visits"] for column in columns] == [59, 71, 87, 111, 60, 55, 57]
    assert sum(column["visits"] for column in columns) == first["playouts"] == 500
    assert all(column["proven"] is None and -1 <= column["value"] <= 1 for column in columns)


def test_hint_prints_the_column_table() -> None:
    result = run_cli(
        "play", "--red", "human", "--yellow", "random", "--hint", "mcts:playouts=2000,seed=1",
        stdin="h\nq\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "hint (mcts:playouts=2000,seed=1): play 4" in result.stdout
    table = result.stdout.split("move  visits   value  proven\n")[1].splitlines()[:7]
    assert table[3] == "   4     691  +0.329"
    assert sum(int(line.split()[1]) for line in table) == 2000


def test_solver_marks_proven_columns() -> None:
    choice = make_player("mcts:playouts=3000,seed=1,solver=on").choose(
        Position.from_moves("445566")
    )
    proven = {column["move"]: column["proven"] for column in choice.stats["columns"]}
    assert proven["3"] == proven["7"] == 1 and choice.move in (2, 6)


@pytest.mark.parametrize(("hint", "playouts"), [("mcts:playouts=2000,seed=1", 2000),
                                               ("net:playouts=60", 60)])  # fmt: skip
def test_a_seeded_hint_asked_twice_gives_the_same_visits(hint: str, playouts: int) -> None:
    """A hint is a question of its own: no tree or random stream carries over (MCTS's,
    or the network's PUCT)."""
    result = run_cli(
        "play", "--red", "human", "--yellow", "random", "--hint", hint, "--no-review",
        stdin="h\nh\nq\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    tables = result.stdout.split("move  visits   value  proven\n")[1:]
    first, second = ([line.split() for line in table.splitlines()[:7]] for table in tables)
    assert first == second
    assert sum(int(row[1]) for row in first) == playouts


def test_a_seeded_mcts_move_over_http_gives_the_same_visits_each_time() -> None:
    from tests.web_helpers import live_client

    with live_client(threads=1, time_limit=20.0, warm_up=False) as http:

        def ask(pos: str) -> object:
            body = {"pos": pos, "player": "mcts:playouts=1500,seed=5"}
            answer = http.post("/api/move", json=body)
            assert answer.status_code == 200, answer.text
            return answer.json()["stats"]["columns"]

        first = ask("44")
        assert ask("44") == first
        ask("")  # an earlier position of the same game on the same worker thread
        assert ask("44") == first
