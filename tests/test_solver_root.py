"""The root's null-window questions: from a guess, from a proven lower bound, and
without either (two of the halving's, then 0, then the walk), the same in the kernel
and in :func:`~connect4.solver.narrow.narrow`."""

from __future__ import annotations

import random

from connect4.core.position import Position
from connect4.core.score import score_bounds
from connect4.solver import Solver
from connect4.solver.narrow import narrow
from connect4.solver.solver import ETC_AFTER_NODES
from connect4.solver.windows import next_test
from tests.test_solver import pons_cases


def test_a_guess_changes_the_work_not_the_score() -> None:
    solver = Solver(7, 6, 16)
    position = Position.from_moves("32164625")
    plain = solver.run(position)
    assert (plain.score, plain.nodes) == (11, 9161)
    for guess in (-30, -3, 0, 10, 11, 12, 30):
        assert solver.run(position, guess=guess).score == 11, guess
    assert solver.run(position, guess=11).nodes == 997  # two null-window searches


def test_a_wrong_guess_is_followed_by_the_test_next_to_the_value_it_returned() -> None:
    """The guess's null window returns a bound (fail-soft) that the next test starts
    from: when that bound is the score, two searches in all, whichever side the guess
    missed it on (before: the halving went on from the bound). A window that returns
    the score itself shows it; the solver's own windows, whose bounds are looser, still
    give the score."""
    position = Position.from_moves("32164625")  # scores 11
    tests: list[tuple[int, int]] = []

    def window(alpha: int, beta: int, cap: int | None) -> tuple[int, bool, int]:
        tests.append((alpha, beta))
        return 11, True, 1  # fail-soft at its most telling: the score

    for guess, step in ((3, (11, 12)), (15, (10, 11))):
        tests.clear()
        assert narrow(position, guess, False, window, None) == (11, True, 2)
        assert tests == [(guess, guess + 1), step]
    solver = Solver(7, 6, 16)
    for guess in (3, 15):
        assert solver.run(position, guess=guess).score == 11


def test_the_first_stones_cost_the_walk_from_0_about_what_a_right_guess_costs() -> None:
    """Scores of the first stones lie near 0, where the root's walk starts after its two
    far tests: those cost little, so no guess is needed there (a guess of 0: within 2 %;
    the halving alone took 1,231,038, 375,623 and 101,293 nodes)."""
    for moves, width, height, score, nodes, guessed_nodes in (
        ("", 6, 5, 0, 916_551, 905_098),
        ("33", 6, 5, 0, 220_833, 217_280),
        ("", 6, 4, -1, 79_755, 81_975),
    ):
        position = Position.from_moves(moves, width, height)
        plain = Solver(width, height, 16).run(position)
        assert (plain.score, plain.nodes) == (score, nodes), moves
        guessed = Solver(width, height, 16).run(position, guess=0)
        assert (guessed.score, guessed.nodes) == (score, guessed_nodes), moves


def test_the_kernel_asks_the_windows_narrow_asks() -> None:
    """The kernel's solve and :func:`narrow` (over the solver's own windows) follow one
    rule, so on one table they search the same nodes (positions of fewer nodes than
    the cut-off's start, where a search's count does not matter); and the windows are
    those of the rule: two of the halving's, then 0, then each next to the last value."""
    solver = Solver(7, 6, 16, reuse_table=True)
    asked: list[tuple[int, int]] = []  # (alpha, value)

    def window(alpha: int, beta: int, cap: int | None) -> tuple[int, bool, int]:
        probe = solver.probe(position, alpha, beta)
        asked.append((alpha, probe.value))
        return probe.value, probe.complete, probe.nodes

    compared = 0
    for moves, score in pons_cases("Test_L2_R2", 5):
        position = Position.from_moves(moves)
        solver.clear_table()
        kernel = solver.run(position)
        if kernel.nodes >= ETC_AFTER_NODES:
            continue
        solver.clear_table()
        asked.clear()
        assert narrow(position, None, False, window, None) == (score, True, kernel.nodes), moves
        compared += 1
        lo, hi = score_bounds(position.size, position.ply)
        for k, (alpha, value) in enumerate(asked):
            if k < 2:
                assert alpha == next_test(lo, hi), moves
            elif k == 2 and lo <= 0 < hi:
                assert alpha == 0, moves
            elif k > 2 and asked[2][0] == 0:
                last, before = asked[k - 1]
                assert alpha == (before - 1 if before <= last else before), moves
            lo, hi = (lo, value) if value <= alpha else (value, hi)
    assert compared >= 20


def test_a_proven_lower_bound_saves_searches_not_the_score() -> None:
    solver = Solver(7, 6, 16)
    position = Position.from_moves("32164625")  # scores 11
    for lower in (-30, -3, 0, 10, 11):
        assert solver.run(position, lower=lower).score == 11, lower
        assert solver.run(position, lower=lower, guess=5).score == 11, lower
    exact = solver.run(position, lower=11)
    assert exact.nodes < solver.run(position, guess=11).nodes  # one search proves it
    rng = random.Random(7)
    for _ in range(20):
        game = Position()
        for _ in range(rng.randrange(10, 30)):
            moves = [c for c in game.legal_moves() if not game.is_winning_move(c)]
            if not moves:
                break
            game.play(rng.choice(moves))
        if game.is_over():
            continue
        score = solver.solve(game)
        for lower in (score - 3, score - 1, score):
            assert solver.run(game, lower=lower).score == score, (game.moves, lower)
