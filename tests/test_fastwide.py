"""The compiled classic engines over two words (boards of 64 to 128 bits): alpha-beta,
minimax and MCTS give the readable engines' values, lines, node counts and moves on
8x8, 9x7, 10x6, 11x5 and 13x4; the players and ``auto`` choose them; limits and
stops end them; with the table on, boards over 84 bits (its keys' high words kept) too."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from connect4 import Position
from connect4.classic import fastmcts, fastsearch
from connect4.classic.heuristics import heuristic_names
from connect4.classic.mcts import Mcts, MctsResult
from connect4.classic.search import Limits, SearchResult, search
from connect4.core.errors import BudgetExceeded
from connect4.core.limits import Limit
from connect4.players import make_player
from tests.cli_helpers import interrupt_cli
from tests.test_interrupt_cli import working

BIG = [(8, 8), (9, 7), (10, 6), (11, 5), (13, 4)]
OVER_84 = [(12, 7), (13, 6), (11, 8)]  # 96, 91 and 99 bits


def random_game(rng: random.Random, width: int, height: int, rules: str = "standard") -> Position:
    """A position after a random number of random moves, not over."""
    while True:
        game = Position(width, height, rules)  # type: ignore[arg-type]
        for _ in range(rng.randrange(width * height // 2)):
            if game.is_over():
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over():
            return game


def key(r: SearchResult) -> tuple[object, ...]:
    s = r.stats
    return (r.value, r.move, r.pv, s.nodes, s.leaves, s.cutoffs, s.tt_hits, r.complete)


def both(game: Position, **options: object) -> tuple[SearchResult, SearchResult]:
    python, numba = (
        search(game, engine=engine, **options)  # type: ignore[arg-type]
        for engine in ("python", "numba")
    )
    assert numba.engine == "numba"
    return python, numba


@pytest.mark.parametrize(("width", "height"), BIG, ids=[f"{w}x{h}" for w, h in BIG])
def test_the_two_word_search_equals_the_readable_one(width: int, height: int) -> None:
    """Same value, move, PV and node/leaf/cut-off/hit counts, every heuristic with a
    bitboard code, both algorithms, both orders, table on and off."""
    rng = random.Random(f"wide-{width}x{height}")
    assert fastsearch.words_of(Position(width, height)) == 2
    names = [n for n in heuristic_names("connect4") if fastsearch.supports(Position(), n)]
    assert len(names) >= 5
    for index in range(len(names) + 2):
        game = random_game(rng, width, height)
        heuristic = names[index % len(names)]
        depth = rng.choice((1, 2, 3))
        for algorithm in ("minimax", "alphabeta"):
            for ordering, tt in (("center", True), ("none", False), ("center", False)):
                python, numba = both(
                    game, limits=Limits(depth=depth), algorithm=algorithm, heuristic=heuristic,
                    ordering=ordering, tt=tt,
                )  # fmt: skip
                assert key(python) == key(numba), (game.moves, heuristic, depth, algorithm)


def test_count_fours_and_a_deeper_search_over_two_words() -> None:
    rng = random.Random(5)
    for width, height, rules, depth in ((10, 6, "count-fours", 3), (8, 8, "standard", 5)):
        game = random_game(rng, width, height, rules)
        python, numba = both(game, limits=Limits(depth=depth), heuristic="threats", tt=True)
        assert key(python) == key(numba)


@settings(max_examples=12, deadline=None)
@given(
    board=st.sampled_from(BIG),
    seed=st.integers(0, 10_000),
    depth=st.integers(1, 3),
    tt=st.booleans(),
)
def test_property_the_engines_agree_on_big_boards(
    board: tuple[int, int], seed: int, depth: int, tt: bool
) -> None:
    game = random_game(random.Random(seed), *board)
    python, numba = both(game, limits=Limits(depth=depth), heuristic="windows", tt=tt)
    assert key(python) == key(numba)


def test_iterative_deepening_and_the_last_column_across_the_words() -> None:
    """10x6's last column takes bits 63 to 69: a win there is seen by both engines."""
    game = Position.from_moves("5a6a7a", width=10, height=6)  # a: the last column; 4 or 8 wins
    python, numba = both(game, limits=Limits(depth=4), tt=True, limit=Limit.within(1000.0))
    assert key(python) == key(numba) and numba.move in (3, 7)
    column = Position.from_moves("a1a1a2", width=10, height=6)  # three in the last column
    python, numba = both(column, limits=Limits(depth=3))
    assert key(python) == key(numba) and numba.move == 9  # the fourth on top


def test_auto_and_the_players_choose_the_two_word_engines() -> None:
    game = random_game(random.Random(3), 10, 6)
    assert search(game, limits=Limits(depth=2)).engine == "numba"
    for spec in (
        "alphabeta:depth=3",
        "alphabeta:level=easy",
        "minimax:depth=2",
        "mcts:playouts=200",
    ):
        choice = make_player(spec, width=10, height=6, seed=1).choose(game)
        assert choice.stats["engine"] == "numba" and choice.move in game.legal_moves()


@pytest.mark.parametrize(("width", "height"), OVER_84, ids=[f"{w}x{h}" for w, h in OVER_84])
def test_the_two_word_table_is_exact_over_84_bits(width: int, height: int) -> None:
    """Boards over 84 bits with the table on run compiled (the table keeps both words of
    a key) and give the readable engine's values, lines and node, cut-off and hit counts,
    both algorithms, seeded positions; with the table off too."""
    rng = random.Random(f"table-{width}x{height}")
    assert search(Position(width, height), limits=Limits(depth=1), tt=True).engine == "numba"
    for index in range(3):
        game = random_game(rng, width, height)
        depth = 3 + index % 2
        for algorithm, tt in (("alphabeta", True), ("minimax", True), ("alphabeta", False)):
            python, numba = both(
                game, limits=Limits(depth=depth), algorithm=algorithm, heuristic="threats", tt=tt
            )
            assert key(python) == key(numba), (game.moves, depth, algorithm, tt)


def test_a_time_limit_and_a_stop_end_the_two_word_search() -> None:
    empty = Position(10, 6)
    search(empty, limits=Limits(depth=1))  # compiled outside the limits
    timed = search(empty, heuristic="windows", tt=True, limit=Limit.within(0.2))
    assert timed.engine == "numba" and timed.stopped == "time limit"
    assert timed.complete and timed.move in range(10) and timed.stats.depth < empty.size
    limit = Limit.within(None)
    found: list[SearchResult] = []
    deep = Limits(depth=20)  # minimax: hours on 10x6 unless stopped
    worker = threading.Thread(
        target=lambda: found.append(search(empty, limits=deep, algorithm="minimax", limit=limit))
    )
    worker.start()
    limit.stop()  # whenever it lands, before or during the search, the search ends
    worker.join(timeout=120)
    assert not worker.is_alive() and found[0].engine == "numba"
    assert not found[0].complete and found[0].stopped == "stopped"


def test_a_node_budget_stops_the_two_word_search() -> None:
    for engine in ("python", "numba"):
        r = search(
            Position(8, 8), limits=Limits(depth=6), algorithm="minimax", engine=engine,
            limit=Limit(nodes=100),
        )  # fmt: skip
        assert not r.complete and r.move is None and r.stopped == "node budget"
        assert r.stats.nodes == 101


# ---------------------------------------------------------------- MCTS
def mcts_line(engine: str, game: Position, solver: bool, playout: str) -> list[tuple[object, ...]]:
    """Two searches of one tree (the second after two more moves, from the kept
    subtree): what each found."""
    mcts = Mcts(seed=11, solver=solver, playout=playout, engine=engine)  # type: ignore[arg-type]
    position = game.copy()
    first = mcts.search(position, playouts=700)
    assert first.engine == engine
    position.play(first.move)
    position.play(position.legal_moves()[0])
    second = mcts.search(position, playouts=500)
    return [summary(r) for r in (first, second)]


def summary(r: MctsResult) -> tuple[object, ...]:
    return (r.move, r.children, r.tree_size, r.max_depth, r.reused, r.proven)


@pytest.mark.parametrize(("width", "height"), [(8, 8), (10, 6), (13, 4)], ids=str)
@pytest.mark.parametrize("solver", [False, True])
@pytest.mark.parametrize("playout", ["random", "heuristic"])
def test_the_two_word_mcts_equals_the_readable_one(
    width: int, height: int, solver: bool, playout: str
) -> None:
    """One algorithm, one random stream: the same visits, tree and move."""
    rng = random.Random(f"mcts-{width}")
    game = Position(width, height)
    for _ in range(6):  # an opening: no search ends the game at once
        game.play(rng.choice(game.legal_moves()))
    assert fastmcts.supports(game)
    assert mcts_line("numba", game, solver, playout) == mcts_line("python", game, solver, playout)


def test_the_two_word_mcts_finds_the_win_and_proves_it() -> None:
    game = Position.from_moves("5a6a7a", width=10, height=6)
    result = Mcts(seed=1, solver=True).search(game, playouts=2000)
    assert result.engine == "numba" and result.move in (3, 7) and result.proven


def test_a_time_limit_and_a_stop_end_the_two_word_mcts() -> None:
    empty = Position(10, 6)
    Mcts(seed=1).search(empty, playouts=10)  # compiled outside the limit
    timed = Mcts(seed=1).search(empty, limit=Limit.within(0.1))
    assert timed.engine == "numba" and timed.playouts > 0 and timed.move in range(10)
    limit = Limit.within(None)
    found: list[MctsResult | BudgetExceeded] = []

    def run() -> None:
        try:
            found.append(Mcts(seed=1).search(empty, playouts=10**9, limit=limit))
        except BudgetExceeded as error:  # the stop landed before the first playout
            found.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    limit.stop()  # whenever it lands, the search ends
    worker.join(timeout=120)
    assert not worker.is_alive() and found
    if isinstance(found[0], MctsResult):
        assert found[0].playouts < 10**9 and not found[0].complete


def test_warm_ups_load_the_two_word_kernels_where_a_board_needs_them() -> None:
    from connect4.players.mcts import MctsPlayer

    big, small = make_player("mcts:playouts=10", width=10, height=6), make_player("mcts")
    assert isinstance(big, MctsPlayer) and isinstance(small, MctsPlayer)
    assert big.wide and not small.wide  # a 7x6 game's rehearsal does not compile them
    big.warm_up()
    fastsearch.warm_up()  # everything: what `connect4 warm` and the web server run
    fastmcts.warm_up()
    assert big.choose(Position(10, 6)).stats["engine"] == "numba"


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_ctrl_c_stops_a_10x6_analysis_on_the_two_word_engine() -> None:
    """`connect4 analyze` on 10x6 runs minimax and alpha-beta compiled over two words,
    depth by depth for minutes; a SIGINT ends it with exit 130 and one line."""
    args = ["analyze", "--width", "10", "--height", "6", "--max-depth", "14", "--budget",
            "1000000000", "--heuristic", "windows"]  # fmt: skip
    done = interrupt_cli(args, working)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "interrupted\n"
