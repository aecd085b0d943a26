"""The perfect solver: Pons' benchmark sets, an exhaustive minimax on small boards,
analyze/solve agreement, weak mode, limits, the table, the book hook, errors."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from connect4.core.limits import Limit
from connect4.core.position import Position, board_mask, bottom_mask
from connect4.solver import (
    Solver,
    SolverError,
    SolveResult,
    analyze,
    best_move,
    pick_best,
    position_key,
    solve,
)
from connect4.solver.bench import pons_path
from connect4.solver.layout import table_format
from connect4.solver.solver import etc_min_empty


@dataclass(frozen=True)
class Arrays:
    """A book as the solver probes it, without the book file format's checks."""

    keys: np.ndarray
    values: np.ndarray
    plies: int


def pons_cases(name: str, every: int = 1) -> list[tuple[str, int]]:
    """``(moves, score)`` of a Pons set, every ``every``-th line (a fixed sample)."""
    lines = pons_path(name).read_text().splitlines()
    assert len(lines) == 1000
    cases = []
    for line in lines[::every]:
        moves, score = line.split()
        cases.append((moves, int(score)))
    return cases


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(7, 6, 64)


# ---------------------------------------------------------------- Pons' sets
@pytest.mark.parametrize(
    ("name", "every", "max_mean_nodes"),
    [
        ("Test_L3_R1", 1, 51),  # End-Easy in full; Pons' solver: 51 nodes
        ("Test_L2_R1", 1, 449),  # Middle-Easy in full; 449
        ("Test_L1_R1", 1, 3300),  # Begin-Easy in full; 3.3k
        ("Test_L2_R2", 25, None),  # Middle-Medium: a fixed sample of 40
        ("Test_L1_R2", 100, None),  # Begin-Medium: a fixed sample of 10
    ],
)
def test_pons_sets_exact(solver: Solver, name: str, every: int, max_mean_nodes: int | None) -> None:
    cases = pons_cases(name, every)
    wrong = []
    nodes = 0
    for moves, expected in cases:
        result = solver.run(Position.from_moves(moves))
        nodes += result.nodes
        if result.score != expected:
            wrong.append((moves, expected, result.score))
    assert wrong == []
    if max_mean_nodes is not None:  # the move ordering is at least as good as Pons'
        assert nodes / len(cases) <= max_mean_nodes


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Test_L2_R2", "Test_L1_R2"])
def test_pons_medium_sets_in_full(solver: Solver, name: str) -> None:
    for moves, expected in pons_cases(name):
        assert solver.solve(Position.from_moves(moves)) == expected, moves


@pytest.mark.slow
def test_pons_begin_hard_sample(solver: Solver) -> None:
    for moves, expected in pons_cases("Test_L1_R3", 100):
        assert solver.solve(Position.from_moves(moves)) == expected, moves


# ---------------------------------------------------------------- small boards
def reference_score(position: Position, memo: dict[tuple[int, int], int]) -> int:
    """Plain exhaustive negamax in Pons' convention (no pruning, memoised)."""
    key = (position.current, position.mask)
    if key in memo:
        return memo[key]
    moves = position.legal_moves()
    win = (position.size + 1 - position.ply) // 2
    if any(position.is_winning_move(c) for c in moves):
        value = win
    elif position.ply == position.size:
        value = 0
    else:
        value = -position.size
        for column in moves:
            position.play(column)
            value = max(value, -reference_score(position, memo))
            position.undo()
    memo[key] = value
    return value


def random_position(rng: random.Random, width: int, height: int, plies: int) -> Position | None:
    """A random game of ``plies`` moves that is not over (``None`` if it ended)."""
    position = Position(width, height)
    for _ in range(plies):
        moves = position.legal_moves()
        if not moves:
            return None
        position.play(rng.choice(moves))
    return None if position.is_over() else position


@pytest.mark.parametrize(
    ("width", "height", "min_ply"),
    [(4, 4, 0), (5, 4, 7), (6, 4, 12), (4, 5, 6), (5, 5, 11), (6, 5, 17), (4, 6, 10)],
)
def test_small_boards_match_exhaustive_minimax(width: int, height: int, min_ply: int) -> None:
    rng = random.Random(width * 100 + height)
    small = Solver(width, height, 4)
    memo: dict[tuple[int, int], int] = {}
    checked = 0
    while checked < 200:
        position = random_position(rng, width, height, rng.randint(min_ply, width * height - 1))
        if position is None:
            continue
        expected = reference_score(position, memo)
        assert small.solve(position) == expected, position.moves
        scores = small.analyze(position)
        assert max(s for s in scores if s is not None) == expected
        for column, score in enumerate(scores):
            if not position.can_play(column):
                assert score is None
                continue
            child = position.copy()
            child.play(column)
            if position.is_winning_move(column):
                child_score = (position.size + 1 - position.ply) // 2
            elif child.is_over():
                child_score = 0
            else:
                child_score = -reference_score(child, memo)
            assert score == child_score, (position.moves, column)
        weak = small.solve(position, weak=True)
        assert weak == (expected > 0) - (expected < 0)
        checked += 1


# ---------------------------------------------------------------- static rules of the search
def evens_bound(position: Position) -> int | None:
    """The kernel's follow-up ("claimeven") bound for the side to move, or ``None``."""
    from connect4.solver import kernel

    width, height = position.width, position.height
    bound = kernel.evens_bound(
        np.uint64(position.current),
        np.uint64(position.mask),
        np.uint64(height),
        width >= 4,
        np.uint64(bottom_mask(width, height)),
        np.uint64(board_mask(width, height)),
    )
    return None if bound == kernel.NO_BOUND else int(bound)


def test_evens_bound_is_never_below_the_score_of_a_pons_position() -> None:
    bounded = negative = exact = 0
    for name in ("L3_R1", "L2_R1", "L2_R2", "L1_R1", "L1_R2", "L1_R3"):
        for moves, score in pons_cases(f"Test_{name}"):
            position = Position.from_moves(moves)
            bound = evens_bound(position) if position.ply % 2 == 0 else None
            if bound is None:
                continue
            assert score <= bound, moves
            bounded += 1
            negative += bound < 0
            exact += bound == score
    assert (bounded, negative, exact) == (214, 67, 166)  # the rule fires: a real check


@pytest.mark.parametrize(
    ("width", "height", "min_ply"), [(4, 4, 2), (5, 4, 6), (6, 4, 10), (4, 6, 8), (5, 6, 16)]
)
def test_evens_bound_is_never_below_the_exact_score(width: int, height: int, min_ply: int) -> None:
    """Random positions with an even number of stones on boards with an even number of
    rows: the bound (when there is one) is at least the exhaustive minimax score."""
    bounds = bounds_checked(evens_bound, width, height, min_ply, width * 10 + height, 40, 3000)
    assert len(bounds) == 40 and min(bounds) < 0


def bounds_checked(
    bound_of: Callable[[Position], int | None],
    width: int,
    height: int,
    min_ply: int,
    seed: int,
    wanted: int,
    tries: int,
) -> list[int]:
    """The first ``wanted`` bounds ``bound_of`` gives on random positions with an even
    number of stones (at least ``min_ply``) among ``tries``, each checked never below
    the exhaustive minimax score."""
    rng = random.Random(seed)
    memo: dict[tuple[int, int], int] = {}
    bounds: list[int] = []
    for _ in range(tries):
        if len(bounds) == wanted:
            break
        plies = 2 * rng.randint(min_ply // 2, (width * height - 2) // 2)
        position = random_position(rng, width, height, plies)
        if position is None or (bound := bound_of(position)) is None:
            continue
        assert reference_score(position, memo) <= bound, position.moves
        bounds.append(bound)
    return bounds


def test_every_forced_line_and_static_rule_keeps_the_score() -> None:
    """Positions full of forced moves and threats, near the end of the game: the
    search plays forced moves without nodes and ends on two-threat moves at once."""
    rng = random.Random(42)
    solver = Solver(7, 6, 4)
    memo: dict[tuple[int, int], int] = {}
    checked = 0
    while checked < 60:
        position = random_position(rng, 7, 6, rng.randint(28, 36))
        if position is None:
            continue
        assert solver.solve(position) == reference_score(position, memo), position.moves
        checked += 1


# ---------------------------------------------------------------- API on 7x6
def test_analyze_agrees_with_solve_of_every_child(solver: Solver) -> None:
    for moves, expected in pons_cases("Test_L2_R1", 50):
        position = Position.from_moves(moves)
        scores = solver.analyze(position)
        assert max(s for s in scores if s is not None) == expected
        for column, score in enumerate(scores):
            if not position.can_play(column):
                assert score is None
            elif position.is_winning_move(column):
                assert score == (position.size + 1 - position.ply) // 2
            else:
                child = position.copy()
                child.play(column)
                assert score == (0 if child.is_over() else -solver.solve(child))


def test_weak_mode_gives_the_sign(solver: Solver) -> None:
    for moves, expected in pons_cases("Test_L2_R2", 50):
        position = Position.from_moves(moves)
        assert solver.solve(position, weak=True) == (expected > 0) - (expected < 0)
        weak_scores = solver.analyze(position, weak=True)
        assert max(s for s in weak_scores if s is not None) == (expected > 0) - (expected < 0)


def test_mirror_positions_score_the_same(solver: Solver) -> None:
    for moves, expected in pons_cases("Test_L2_R1", 100):
        position = Position.from_moves(moves)
        assert solver.solve(position.mirrored()) == expected
        assert solver.analyze(position.mirrored()) == solver.analyze(position)[::-1]


def test_options_do_not_change_scores() -> None:
    variants = [
        Solver(7, 6, 8, symmetry=False),
        Solver(7, 6, 8, tt_move=False),
        Solver(7, 6, 8, etc=False),
        Solver(7, 6, 8, etc=1),  # at every node
        Solver(7, 6, 8, two_slots=False),
        Solver(7, 6, 1),  # a tiny table: many collisions
    ]
    for moves, expected in pons_cases("Test_L2_R2", 100):
        position = Position.from_moves(moves)
        for variant in variants:
            assert variant.solve(position) == expected


def test_the_cut_off_threshold_follows_the_entry_size() -> None:
    """On a packed table (one word an entry: 7x6) the enhanced transposition cut-off
    starts at 13 empty cells, on larger entries (8x7: two words) at 14."""
    positions = [Position.from_moves(moves) for moves, _ in pons_cases("Test_L1_R2")[:4]]

    def nodes(solver: Solver) -> list[int]:
        return [solver.run(position).nodes for position in positions]

    searched = nodes(Solver(7, 6, 64))
    assert searched == nodes(Solver(7, 6, 64, etc=13)) != nodes(Solver(7, 6, 64, etc=14))
    assert table_format(8, 7, 16 << 20).words == 2 and etc_min_empty(2) == 14
    late = Position.from_moves("57443142573632756541626617267", 8, 7)  # 27 cells empty
    wide = [Solver(8, 7, 16, etc=etc).run(late).nodes for etc in (True, 14, 13)]
    assert wide[0] == wide[1] != wide[2]  # 36,501 nodes at 14, 34,319 at 13


def test_blog_examples_and_module_helpers() -> None:
    assert solve(Position.from_moves("4455")) == 18
    assert solve(Position.from_moves("44455554221")) == -15
    late = Position.from_moves("2252576253462244111563365343671351441")
    assert analyze(late) == Solver().analyze(late)
    assert best_move(late) == Solver().best_move(late)
    assert solve(Position(4, 4)) == 0  # one shared solver per board size


def test_run_result_and_stats(solver: Solver) -> None:
    result = solver.run(Position.from_moves("2252576253462244111563365343671351441"), analyze=True)
    assert isinstance(result, SolveResult)
    assert result.complete and not result.weak
    assert result.column_scores is not None
    assert result.score == max(s for s in result.column_scores if s is not None)
    assert result.nodes == solver.last_nodes and result.seconds == solver.last_seconds
    assert solver.stats["nodes"] == result.nodes


def test_fresh_table_per_call_gives_repeatable_node_counts() -> None:
    position = Position.from_moves(pons_cases("Test_L2_R2")[0][0])
    fresh = Solver(7, 6, 16)
    first = fresh.run(position).nodes
    assert fresh.run(position).nodes == first
    warm = Solver(7, 6, 16, reuse_table=True)
    assert warm.run(position).nodes == first
    assert warm.run(position).nodes < first  # the table's bounds stay valid


def test_best_move_tie_breaks() -> None:
    position = Position.from_moves("445566")  # columns 3 and 7 both win at once
    assert analyze(position)[2] == analyze(position)[6] == 18
    assert best_move(position) == 2
    picks = {best_move(position, "random", random.Random(seed)) for seed in range(20)}
    assert picks == {2, 6}
    assert pick_best([None, 3, 3, None], "center") in (1, 2)
    with pytest.raises(SolverError, match="tie_break"):
        best_move(position, "left")


# ---------------------------------------------------------------- limits
def test_node_limit_stops_with_unknown() -> None:
    limited = Solver(7, 6, 16)
    position = Position.from_moves(pons_cases("Test_L1_R3")[0][0])
    result = limited.run(position, limit=Limit(nodes=10_000))
    assert not result.complete and result.score is None
    assert 10_000 <= result.nodes <= 10_001
    partial = limited.run(position, analyze=True, limit=Limit(nodes=5_000))
    assert partial.score is None and not partial.complete
    assert partial.column_scores is not None and None in partial.column_scores
    # the solver still answers exactly afterwards
    easy, expected = pons_cases("Test_L2_R1")[0]
    assert limited.solve(Position.from_moves(easy)) == expected


def test_time_limit_stops_cleanly() -> None:
    limited = Solver(7, 6, 16)
    result = limited.run(Position(), limit=Limit.within(0.05))
    assert not result.complete and result.score is None and result.nodes > 0
    done = limited.run(Position.from_moves("4455"), limit=Limit.within(10))
    assert done.complete and done.score == 18


# ---------------------------------------------------------------- book hook
def test_book_is_probed_inside_the_search() -> None:
    plain = Solver(7, 6, 16)
    root = Position.from_moves(pons_cases("Test_L2_R2")[3][0])
    expected = plain.solve(root)
    plain_nodes = plain.last_nodes
    # a book of every grandchild of the root, scored by the solver
    entries: dict[int, int] = {}
    for a in root.legal_moves():
        child = root.copy()
        child.play(a)
        if child.is_over():
            continue
        for b in child.legal_moves():
            grandchild = child.copy()
            grandchild.play(b)
            if not grandchild.is_over():
                entries[position_key(grandchild)] = plain.solve(grandchild)
    keys = np.array(sorted(entries), dtype=np.uint64)
    values = np.array([entries[int(k)] for k in keys], dtype=np.int8)
    booked = Solver(7, 6, 16, book=Arrays(keys, values, root.ply + 2))
    assert booked.solve(root) == expected
    assert booked.last_nodes < plain_nodes
    with pytest.raises(SolverError, match="sorted"):
        Solver(7, 6, 1, book=Arrays(keys[::-1].copy(), values, 3))


# ---------------------------------------------------------------- errors
def test_game_over_positions_are_errors(solver: Solver) -> None:
    won = Position.from_moves("4455667")
    with pytest.raises(SolverError, match="already over"):
        solver.solve(won)
    with pytest.raises(SolverError, match="already over"):
        solver.analyze(won)
    drawn = Position(2, 1)
    drawn.play(0)
    drawn.play(1)
    with pytest.raises(SolverError, match="already over"):
        Solver(2, 1).solve(drawn)


def test_board_size_errors() -> None:
    with pytest.raises(SolverError, match="board 11x11 is too large"):
        Solver(11, 11)
    with pytest.raises(SolverError, match="board 26x4 is too large"):
        Solver(26, 4)
    with pytest.raises(SolverError, match="7x6"):
        Solver(7, 6, 1).solve(Position(6, 7))
    assert isinstance(SolverError("x"), ValueError)


def test_other_rules_are_errors() -> None:
    position = Position(rules="count-fours")
    with pytest.raises(SolverError, match="standard rules only"):
        solve(position)
    with pytest.raises(SolverError, match="standard rules only"):
        Solver(7, 6, 1).run(position)


@pytest.mark.parametrize(("width", "height"), [(8, 7), (7, 8), (4, 15), (1, 1), (2, 2), (3, 20)])
def test_unusual_board_sizes(width: int, height: int) -> None:
    odd = Solver(width, height, 4)
    rng = random.Random(7)
    memo: dict[tuple[int, int], int] = {}
    for _ in range(10):
        position = random_position(rng, width, height, max(0, width * height - 9))
        if position is None:
            continue
        assert odd.solve(position) == reference_score(position, memo)


def test_run_batch_matches_single_runs() -> None:
    batch_solver = Solver(7, 6, 16)
    cases = pons_cases("Test_L2_R1", 40)
    positions = [Position.from_moves(moves) for moves, _ in cases]
    scores, nodes, seconds = batch_solver.run_batch(positions)
    assert scores == [score for _, score in cases]
    assert nodes == [batch_solver.run(p).nodes for p in positions]
    assert len(seconds) == len(cases) and all(s >= 0 for s in seconds)
    with pytest.raises(SolverError, match="already over"):
        batch_solver.run_batch([Position.from_moves("4455667")])


def test_a_batch_past_the_generation_wrap_starts_each_search_on_an_empty_table() -> None:
    # a 64 MB 7x6 table has 10 generation bits: before the fix, the batch's 1,024th
    # search ran on the 1st one's generation again and found its entries (fewer nodes)
    cases = pons_cases("Test_L2_R2")[:1] + pons_cases("Test_L2_R1")[:22] + pons_cases("Test_L3_R1")
    cases.append(cases[0])
    solver = Solver(7, 6, 64)
    assert table_format(7, 6, 64 << 20).gbits == 10 and len(cases) == 1024
    positions = [Position.from_moves(moves) for moves, _ in cases]
    scores, nodes, _ = solver.run_batch(positions)
    assert scores == [score for _, score in cases]
    assert nodes[-1] == nodes[0] == solver.run(positions[0]).nodes > 1000
    assert nodes[:23] == [solver.run(p).nodes for p in positions[:23]]


def test_7x6_copy_searches_like_the_generic_kernel() -> None:
    """The 7x6 copy of the search (board constants built in) visits the same nodes
    and returns the same bounds as the generic one reading them from the header."""
    from connect4.solver import kernel
    from connect4.solver.layout import next_generation

    mem, table = kernel.new_memory(7, 6), kernel.new_table(7, 6, 1 << 20)
    mem[kernel.OPT_ETC] = 16
    keys, values = np.zeros(0, np.uint64), np.zeros(0, np.int8)
    h1 = np.uint64(7)
    for moves, score in pons_cases("Test_L2_R1", 50):
        p = Position.from_moves(moves)
        cur, msk = np.uint64(p.current), np.uint64(p.mask)
        mcur = np.uint64(kernel.mirror_key(cur, 7, h1))
        mmask = np.uint64(kernel.mirror_key(msk, 7, h1))
        found = []
        for search in (kernel._search, kernel.board_kernel("7x6").search):
            next_generation(table)
            mem[kernel.NODES] = 0
            pointers = (mem.ctypes.data, table.ctypes.data, keys.ctypes.data, values.ctypes.data)
            args = (*pointers, 0, cur, msk)
            value = search(*args, mcur, mmask, p.ply, score - 1, score + 1)
            found.append((value, int(mem[kernel.NODES])))
        assert found[0] == found[1]
        assert found[0][0] == score


def test_probe_returns_the_score_as_a_bound_from_either_side() -> None:
    solver = Solver(7, 6, 16)
    lines = pons_path("Test_L2_R1").read_text().splitlines()[::50]
    for line in lines:
        moves, expected = line.split()
        position = Position.from_moves(moves)
        score = int(expected)
        above = solver.probe(position, score - 1)  # fails high: a lower bound
        below = solver.probe(position, score)  # fails low: an upper bound
        assert (above.value, below.value, above.complete) == (score, score, True), moves
    win = solver.probe(Position.from_moves("445566"), 0)  # the side to move wins at once
    assert (win.value, win.nodes) == (18, 0)


def test_an_expired_limit_stops_the_search_before_its_first_node() -> None:
    # the limit is watched from the start, and each slice of the search asks it first:
    # an expired one searches no node (before the one Limit, a past deadline searched
    # 65,536 nodes; before the slices asked, the kernel's first node saw the stop slot)
    solver = Solver(7, 6, 16)
    result = solver.run(Position(), limit=Limit(deadline=time.perf_counter() - 1))
    assert (result.score, result.complete, result.nodes) == (None, False, 0)
    probe = solver.probe(Position(), 0, limit=Limit(deadline=time.perf_counter() - 1))
    assert (probe.value, probe.complete, probe.nodes) == (None, False, 0)
    assert solver.solve(Position.from_moves("44455554221")) == -15  # still exact


def test_pooled_tables_start_empty_unless_asked_to_keep_entries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import connect4.solver.solver as solver_module
    from connect4.solver.backend import TablePool

    pool = TablePool()
    monkeypatch.setattr(solver_module, "TABLES", pool)
    position = Position.from_moves("1", 5, 4)
    first = Solver(5, 4, 1, reuse_table=True)
    cold = first.run(position).nodes
    table = first._table()
    first.close()
    second = Solver(5, 4, 1, reuse_table=True)
    assert second.run(position).nodes == cold  # the previous entries count as empty
    assert second._table() is table
    second.close()
    warm = Solver(5, 4, 1, reuse_table=True, keep_entries=True)
    assert warm.run(position).nodes < cold
    warm.close()


def test_solver_for_is_one_per_thread_and_book() -> None:
    import threading

    from connect4.solver import solver_for
    from connect4.solver.book import Book

    mine = solver_for(4, 4, tt_megabytes=1)
    assert solver_for(4, 4, tt_megabytes=1) is mine
    other: list[Solver] = []
    worker = threading.Thread(target=lambda: other.append(solver_for(4, 4, tt_megabytes=1)))
    worker.start()
    worker.join()
    assert other[0] is not mine
    book = Book.from_scores(4, 4, 1, {Position.from_moves("1", 4, 4): 0})
    with_book = solver_for(4, 4, tt_megabytes=1, book=book)
    assert with_book is not mine  # keyed by the book: no book is swapped under a caller
    assert solver_for(4, 4, tt_megabytes=1) is mine
    assert solver_for(4, 4, tt_megabytes=1, book=book) is with_book


def test_the_empty_board_is_answered_from_the_default_book() -> None:
    from connect4.solver import solver_for

    assert solve(Position()) == 1
    assert solver_for(7, 6).last_nodes < 100  # without the book: billions of nodes
    assert analyze(Position()) == [-2, -1, 0, 1, 0, -1, -2]
    assert best_move(Position()) == 3


def test_a_book_that_is_not_a_book_is_refused() -> None:
    """A solver takes a loaded book; a spec names one for load_book (solver_for and the
    perfect player load it), and a spec naming no readable book is an error naming it."""
    from connect4.players.perfect import PerfectPlayer
    from connect4.players.registry import PlayerSpecError
    from connect4.solver import solver_for
    from connect4.solver.book import BookError, load_book

    for bad in ("12-ply", "default", 3):
        with pytest.raises(SolverError, match="book must be an opening book"):
            Solver(7, 6, 1, book=bad)  # type: ignore[arg-type]
    with pytest.raises(SolverError, match="book must be an opening book"):
        solver_for(7, 6, book=3)  # type: ignore[arg-type]
    with pytest.raises(BookError, match="book 12-ply does not exist"):
        solver_for(7, 6, book="12-ply")
    with pytest.raises(PlayerSpecError, match="the perfect player: book 12-ply does not exist"):
        PerfectPlayer(book="12-ply")
    with pytest.raises(PlayerSpecError, match="the perfect player: a book is default, none"):
        PerfectPlayer(book=3)  # type: ignore[arg-type]
    six_by_five = load_book("default", 6, 5)
    with pytest.raises(SolverError, match="for 6x5 boards, not the 7x6 board"):
        solver_for(7, 6, book=six_by_five)
    with pytest.raises(PlayerSpecError, match="the book is for 6x5 boards, not the 7x6 board"):
        PerfectPlayer(book=six_by_five)


def test_solve_in_a_fresh_process_needs_the_book_only(tmp_path: Path) -> None:
    """The module shortcut in a new process: the empty board within a node budget
    that a search without the book would overrun many times over."""
    import os
    import subprocess
    import sys

    script = (
        "import connect4\n"
        "from connect4.solver import solver_for\n"
        "print(connect4.solve(connect4.Position()), solver_for(7, 6).last_nodes)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr
    score, nodes = done.stdout.split()
    assert int(score) == 1 and int(nodes) < 100


def test_the_table_pool_keeps_few_tables_whatever_the_board_sizes() -> None:
    from connect4.solver.backend import TablePool

    pool = TablePool(keep=2, keep_total=3)
    sizes = [(4, 4), (5, 4), (6, 5), (7, 6), (4, 5)]
    tables = [pool.take(w, h, 1 << 8) for w, h in sizes for _ in range(2)]
    for mem in tables:
        pool.give(mem)
    assert pool.free_tables() == 3  # not ten: the least recently returned were dropped
    kept_last = tables[-1]
    assert pool.take(4, 5, 1 << 8) is kept_last
    assert pool.take(4, 4, 1 << 8) is not tables[0]  # dropped long ago: a new table
    assert pool.free_tables() == 2
