"""Minimax and alpha-beta: same values, exact node counts, TT and ordering safety,
the compiled path agreeing exactly with the generic one."""

from __future__ import annotations

import functools
import inspect
import random

import pytest
from hypothesis import given, settings, strategies as st

from connect4 import Position, TicTacToe
from connect4.classic.fastsearch import supports
from connect4.classic.heuristics import heuristic_names
from connect4.classic.search import (
    MATE,
    Limits,
    SearchResult,
    alphabeta,
    describe_value,
    minimax,
    search,
)
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.players import PlayerSpecError, make_player
from connect4.terminal import strongest_ai


def random_position(rng: random.Random, make: type[Game] | None, width: int, height: int) -> Game:
    """A random position that is not over (random length of random play)."""
    while True:
        game: Game = TicTacToe() if make is TicTacToe else Position(width, height)
        for _ in range(rng.randrange(0, (width * height) - 1)):
            if game.is_over():
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over():
            return game


def exact_value(game: Game, root: int) -> float:
    """The value of a finished game for ``root`` (distance-scored)."""
    winner = game.winner()
    if winner is None:
        return 0
    return MATE - game.ply if winner == root else -(MATE - game.ply)


BOARDS = [
    pytest.param(Position, 7, 6, 170, (1, 1, 2, 2, 2, 3, 3), id="7x6"),
    pytest.param(Position, 5, 4, 170, (1, 2, 2, 3, 3, 4, 5), id="5x4"),
    pytest.param(TicTacToe, 3, 3, 170, (1, 2, 3, 3, 4, 5), id="tictactoe"),
]


@pytest.mark.parametrize(("make", "width", "height", "count", "depths"), BOARDS)
def test_alphabeta_equals_minimax_on_random_positions(
    make: type[Game], width: int, height: int, count: int, depths: tuple[int, ...]
) -> None:
    """>= 500 positions over the three boards, every heuristic, depths 1-5 (generic path):
    alpha-beta (with and without ordering and table) gives minimax's value, and its
    move has that value."""
    rng = random.Random(f"ab-{width}x{height}")
    names = heuristic_names("tictactoe" if make is TicTacToe else "connect4")
    checked = 0
    for index in range(count):
        game = random_position(rng, make, width, height)
        heuristic = names[index % len(names)]
        depth = rng.choice(depths)
        before = game.moves
        run = functools.partial(
            search, game, limits=Limits(depth=depth), heuristic=heuristic, engine="python"
        )
        mm = run(algorithm="minimax")
        assert game.moves == before
        for ordering in ("center", "none"):
            for tt in (False, True):
                ab = run(algorithm="alphabeta", ordering=ordering, tt=tt)
                assert ab.value == mm.value, (game, heuristic, depth, ordering, tt)
                assert ab.move in game.legal_moves()
                assert ab.stats.nodes <= mm.stats.nodes or tt
                # the chosen move has the value: minimax with only that root move
                child = game.copy()
                assert ab.move is not None
                child.play(ab.move)
                if child.is_over():
                    assert exact_value(child, game.to_move) == ab.value
                elif depth > 1:
                    sub = _minimax_from_root_view(child, depth - 1, heuristic, game.to_move)
                    assert sub == ab.value
        mm_tt = run(algorithm="minimax", tt=True)
        assert mm_tt.value == mm.value
        checked += 1
    assert checked == count


def _minimax_from_root_view(game: Game, depth: int, heuristic: str, root: int) -> float:
    """Plain recursive minimax, written independently, values for ``root``."""
    from connect4.classic.heuristics import HEURISTICS

    h = HEURISTICS[heuristic]

    def value(d: int) -> float:
        if game.is_over():
            return exact_value(game, root)
        if d == 0:
            return h(game, root)
        values = []
        for move in game.legal_moves():
            game.play(move)
            values.append(value(d - 1))
            game.undo()
        return max(values) if game.to_move == root else min(values)

    return value(depth)


def test_independent_minimax_agrees() -> None:
    rng = random.Random(5)
    for _ in range(30):
        game = random_position(rng, Position, 7, 6)
        for heuristic in ("windows/zer0lose", "recent-lines", "threats", "adjacency"):
            depth = rng.choice((1, 2))
            r = minimax(game, depth, heuristic, engine="python")
            assert r.value == _minimax_from_root_view(game, depth, heuristic, game.to_move)


def test_full_tictactoe_minimax_generic() -> None:
    r = minimax(TicTacToe(), 9, engine="python")
    assert (r.value, r.stats.nodes, r.stats.leaves) == (0, 549_946, 255_168)
    assert r.stats.depth == 9 and r.engine == "python"


def test_full_tictactoe_both_engines() -> None:
    for engine in ("python", "numba"):
        r = alphabeta(TicTacToe(), 9, engine=engine)
        assert (r.value, r.stats.nodes, r.move) == (0, 7865, 4)
    r = minimax(TicTacToe(), 9, engine="numba")
    assert (r.value, r.stats.nodes, r.stats.leaves) == (0, 549_946, 255_168)


def _key(r: SearchResult) -> tuple[object, ...]:
    s = r.stats
    return (r.value, r.move, r.pv, s.nodes, s.leaves, s.cutoffs, s.tt_hits, r.complete)


FAST = [
    pytest.param(Position, 7, 6, "standard", id="7x6"),
    pytest.param(Position, 5, 4, "standard", id="5x4"),
    pytest.param(Position, 6, 5, "count-fours", id="6x5-count-fours"),
    pytest.param(TicTacToe, 3, 3, "standard", id="tictactoe"),
]


@pytest.mark.parametrize(("make", "width", "height", "rules"), FAST)
def test_numba_path_agrees_exactly(make: type[Game], width: int, height: int, rules: str) -> None:
    """Same value, move, PV and node/leaf/cut-off/hit counts on both engines."""
    rng = random.Random(f"fast-{width}{rules}")
    names = [
        n
        for n in heuristic_names()
        if supports(TicTacToe() if make is TicTacToe else Position(width, height), n)
    ]
    for index in range(24):
        if make is TicTacToe:
            game: Game = random_position(rng, TicTacToe, 3, 3)
        else:
            game = Position(width, height, "count-fours" if rules == "count-fours" else "standard")
            for _ in range(rng.randrange(width * height - 1)):
                if game.is_over():
                    break
                game.play(rng.choice(game.legal_moves()))
            if game.is_over():
                continue
        heuristic = names[index % len(names)]
        depth = rng.choice((1, 2, 3, 4))
        for algorithm in ("minimax", "alphabeta"):
            for ordering in ("center", "none"):
                for tt in (False, True):
                    results = [
                        search(
                            game,
                            limits=Limits(depth=depth),
                            algorithm=algorithm,
                            heuristic=heuristic,
                            ordering=ordering,
                            tt=tt,
                            engine=engine,
                        )
                        for engine in ("python", "numba")
                    ]
                    assert results[1].engine == "numba"
                    assert _key(results[0]) == _key(results[1]), (game, heuristic, depth)


def test_iterative_deepening_agrees_on_both_engines() -> None:
    game = Position.from_moves("4453")
    a, b = (
        search(game, limits=Limits(depth=6), tt=True, engine=e, limit=Limit.within(1000.0))
        for e in ("python", "numba")
    )
    assert _key(a) == _key(b)
    assert a.stats.depth == 6 and [i.depth for i in a.iterations] == [1, 2, 3, 4, 5, 6]


def test_node_budget_stops_and_says_so() -> None:
    for engine in ("python", "numba"):
        r = search(
            Position(), limits=Limits(depth=6), algorithm="minimax", engine=engine,
            limit=Limit(nodes=100),
        )  # fmt: skip
        assert not r.complete and r.move is None and r.value is None
        assert r.stopped == "node budget" and r.stats.nodes == 101


def test_time_limit_returns_a_complete_iteration() -> None:
    r = search(Position.from_moves("44"), heuristic="threats", limit=Limit.within(0.05))
    assert r.complete and r.move in range(7) and r.stats.depth >= 1


def test_distance_scoring_prefers_faster_wins_and_slower_losses() -> None:
    # red has 4-5-6 on the bottom row: winning now scores MATE - 7
    r = alphabeta(Position.from_moves("445566"), 4, "windows")
    assert r.value == MATE - 7 and r.move in (2, 6)
    assert describe_value(r.value) == "win at ply 7"
    # yellow to move cannot stop both ends: whatever it plays, red wins at ply 7
    r = alphabeta(Position.from_moves("44556"), 4, "threats")
    assert r.value == -(MATE - 7) and describe_value(r.value) == "loss at ply 7"
    # a win in 3 plies is preferred to the same win found later in the tree
    deep = alphabeta(Position.from_moves("445566"), 5, "cell-weights")
    assert deep.value == MATE - 7 and len(deep.pv) == 1


@pytest.mark.parametrize("heuristic", heuristic_names("connect4"))
def test_every_heuristic_takes_an_immediate_win(heuristic: str) -> None:
    for algorithm in ("minimax", "alphabeta"):
        r = search(
            Position.from_moves("445566"),
            limits=Limits(depth=3),
            algorithm=algorithm,
            heuristic=heuristic,
        )
        assert r.value == MATE - 7


def test_pv_is_legal_and_starts_with_the_move() -> None:
    rng = random.Random(9)
    for _ in range(20):
        game = random_position(rng, Position, 7, 6)
        r = alphabeta(game, 4, "windows", tt=False)
        assert r.pv and r.pv[0] == r.move and len(r.pv) <= 4
        replay = game.copy()
        for move in r.pv:
            replay.play(move)


def test_schedule_by_phase() -> None:
    limits = Limits(schedule=(4, 5, 6))
    phases = [limits.depth_for(TicTacToe.from_moves(m)) for m in ("", "12", "123", "123456")]
    assert phases == [4, 4, 5, 6]
    assert limits.depth_for(Position.from_moves("111111222222" + "33")) == 5  # 14 of 42
    r = search(Position.from_moves("4444"), limits=limits)
    assert r.stats.depth == 4


def test_bad_requests_are_value_errors() -> None:
    with pytest.raises(ValueError, match="the game is over"):
        search(Position.from_moves("4455667"))
    with pytest.raises(ValueError, match="unknown algorithm 'negamax'"):
        search(Position(), algorithm="negamax")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown heuristic 'foo'"):
        search(Position(), heuristic="foo")
    with pytest.raises(ValueError, match="depth must be >= 0"):
        Limits(depth=-1)


def test_player_specs() -> None:
    for spec in (
        "minimax:depth=4,heuristic=windows",
        "alphabeta:depth=7,heuristic=windows/mollerhoj,ordering=center,tt=on",
        "alphabeta:time=0.05",
        "alphabeta:level=easy",
        "alphabeta:level=medium",
        "alphabeta:schedule=2/3",
        "alphabeta:level=hard,book=0",  # what terminal.strongest_ai() names without a solver
    ):
        choice = make_player(spec).choose(Position.from_moves("4453"))
        assert choice.move in range(7)
        assert {"nodes", "leaves", "cutoffs", "tt_hits", "depth", "seconds"} <= set(choice.stats)
        assert isinstance(choice.value, (int, float))
    booked = make_player("alphabeta:level=hard").choose(Position.from_moves("4453"))
    assert booked.stats["source"] == "book" and booked.proven  # its first 12 plies
    ttt = make_player(strongest_ai("tictactoe"), game="tictactoe")
    choice = ttt.choose(TicTacToe())
    assert choice.value == 0 and choice.stats["depth"] == 9
    for spec, game, message in [
        ("alphabeta:depth=x", "connect4", r"depth='x' must be an integer 1-42"),
        ("minimax:speed=2", "connect4", "takes: depth, time, schedule"),
        ("alphabeta:heuristic=magic", "connect4", "must be one of windows, windows/mollerhoj"),
        ("alphabeta:heuristic=threats", "tictactoe", "plays connect4 only"),
    ]:
        with pytest.raises(PlayerSpecError, match=message):
            make_player(spec, game=game)


def test_player_records_the_tree_on_request() -> None:
    player = make_player("alphabeta:depth=3")
    assert player.choose(Position()).tree is None
    player.record_tree = True  # type: ignore[attr-defined]
    choice = player.choose(Position.from_moves("44"))
    assert choice.tree is not None
    assert choice.tree["node_count"] == choice.stats["nodes"]
    assert choice.tree["move"] == str(choice.move + 1)


@settings(max_examples=80, deadline=None)
@given(
    moves=st.lists(st.integers(0, 4), max_size=18),
    depth=st.integers(1, 4),
    heuristic=st.sampled_from(heuristic_names("connect4")),
    ordering=st.sampled_from(["center", "none"]),
)
def test_property_alphabeta_with_table_equals_minimax_5x4(
    moves: list[int], depth: int, heuristic: str, ordering: str
) -> None:
    game = Position(5, 4)
    for move in moves:
        if game.is_over():
            break
        if game.can_play(move):
            game.play(move)
    if game.is_over():
        return
    mm = minimax(game, depth, heuristic, engine="python")
    ab = search(
        game,
        limits=Limits(depth=depth),
        heuristic=heuristic,
        ordering=ordering,
        tt=True,
        engine="python",
    )
    assert ab.value == mm.value


def test_level_settings_and_overrides() -> None:
    hard = make_player("alphabeta:level=hard")
    assert (hard.limits.depth, hard.heuristic, hard.tt) == (8, "threats", True)  # type: ignore[attr-defined]
    mixed = make_player("alphabeta:level=hard,depth=3,tt=off")
    assert (mixed.limits.depth, mixed.heuristic, mixed.tt) == (3, "threats", False)  # type: ignore[attr-defined]
    timed = make_player("alphabeta:level=medium,time=0.2")
    assert timed.seconds == 0.2 and timed.limits.depth is None  # type: ignore[attr-defined]
    phase = make_player("alphabeta:schedule=4/5/6")
    assert phase.limits.schedule == (4, 5, 6)  # type: ignore[attr-defined]
    assert make_player("minimax:level=hard").limits.depth == 6  # type: ignore[attr-defined]
    ttt = make_player("alphabeta:level=easy", game="tictactoe")
    assert ttt.limits.depth == 1  # type: ignore[attr-defined]


def definition(function: object) -> list[str]:
    """A function's source from its ``def`` line on (its decorators left out)."""
    lines = inspect.getsource(function).splitlines()  # type: ignore[arg-type]
    return lines[next(i for i, line in enumerate(lines) if line.startswith("def ")) :]


def test_compiled_engine_runs_the_node_functions() -> None:
    """One source: the compiled backend compiles the very functions the readable engine
    and the heuristics call (their source, copied into its generated module), the
    search node included."""
    from connect4.classic import fastsearch, node

    for name in ("search_node", "windows_score", "threats_score", "adjacency_score", "back_up"):
        compiled = getattr(fastsearch.COMPILED, name)
        assert definition(compiled.py_func) == definition(getattr(node, name))
        assert compiled.py_func.__module__ == "connect4_generated_classic_node"
