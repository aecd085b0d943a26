"""The solver on boards over 64 bits (the 128-bit kernel of connect4.solver.wide):
scores and column scores against a naive negamax near the end of random games, threads,
limits, the table's size, the CLI."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from numba.core import config as numba_config
from typer.testing import CliRunner

from connect4 import Position
from connect4.cli.app import app
from connect4.core.limits import Limit
from connect4.players import make_player
from connect4.solver import Solver, SolverError, backend, kernel_ready, wide
from connect4.solver.layout import (
    MAXW,
    MEM_WORDS,
    T_GBITS,
    T_GEN,
    new_memory,
    new_table,
    smallest_table,
)
from connect4.solver.wide import NO_BOOK, split, wide_backend
from tests.naive import NaiveSolver

runner = CliRunner()


def late_positions(
    width: int, height: int, left: int, count: int, seed: int, quiet: bool = False
) -> list[Position]:
    """Random positions with ``left`` empty cells, not over, no win at once for the side
    to move (the searches' own precondition is checked by the solver itself). With
    ``quiet`` neither side plays a winning move, or one that lets the other win at
    once, while it has another (random games of a board as big as 16x7 end long
    before its last cells otherwise)."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position(width, height)
        while position.ply < width * height - left and not position.is_over():
            moves = position.legal_moves()
            if quiet:
                moves = [c for c in moves if not position.is_winning_move(c)] or moves
                moves = [c for c in moves if not gives_a_win(position, c)] or moves
            position.play(rng.choice(moves))
        if position.is_over() or any(position.is_winning_move(c) for c in position.legal_moves()):
            continue
        found.append(position)
    return found


def gives_a_win(position: Position, column: int) -> bool:
    """True when playing ``column`` lets the opponent win at once."""
    after = position.copy()
    after.play(column)
    return any(after.is_winning_move(c) for c in after.legal_moves())


def columns_of(position: Position) -> list[list[int]]:
    return [
        [position.cell(c, r) for r in range(position.height) if position.cell(c, r)]
        for c in range(position.width)
    ]


# 8x8 and 10x6 (the top columns cross the 64-bit word), 13x4 (one column over it);
# 11x6 (77 bits), 8x9 (80) and 16x7 (128): residues of more than 64 bits. Each board
# compiles its own kernel (40-100 s cold), so the quick run checks the boards the other
# tests compile anyway and 8x9; the rest run with the slow tests.
@pytest.mark.parametrize(
    ("width", "height", "left"),
    [
        (8, 8, 13),
        (10, 6, 13),
        pytest.param(13, 4, 13, marks=pytest.mark.slow),
        pytest.param(11, 6, 13, marks=pytest.mark.slow),
        (8, 9, 13),
        pytest.param(16, 7, 13, marks=pytest.mark.slow),
    ],
)
def test_wide_kernel_agrees_with_a_naive_negamax(width: int, height: int, left: int) -> None:
    kernel = wide_backend(width, height)
    table = new_table(width, height, smallest_table(width, height) or 0)
    out = np.zeros(width, dtype=np.int64)
    quiet = width * height > 64
    # each search's memory is followed by a guard that must stay zero: on 8x9 (80 bits,
    # 72 cells; 6x11 first showed it) a search past ply 63 once wrote its move lists beyond
    # the thread's memory (the heap was corrupted; 16x7 crashed at exit)
    room = np.zeros(MEM_WORDS + 4 * MAXW, dtype=np.uint64)
    mem = room[:MEM_WORDS]
    for position in late_positions(width, height, left, 12, width * 100 + height, quiet):
        naive = NaiveSolver(width, height)
        mem[:] = new_memory(width, height)
        expected = naive.score(columns_of(position))
        assert kernel.solve(mem, table, *NO_BOOK, position.current, position.mask,
                            position.ply, False) == expected, position.moves  # fmt: skip
        kernel.analyze(mem, table, *NO_BOOK, position.current, position.mask, position.ply,
                       False, out)  # fmt: skip
        got = [None if v == -1000 else int(v) for v in out]
        assert got == naive.column_scores(columns_of(position)), position.moves
    assert not room[MEM_WORDS:].any()


def test_solver_on_8x8_scores_columns_threads_and_limits() -> None:
    positions = late_positions(8, 8, 15, 4, seed=88)
    one = Solver(8, 8, tt_megabytes=8)
    two = Solver(8, 8, tt_megabytes=8, threads=2)
    for position in positions:
        naive = NaiveSolver(8, 8)
        expected = naive.score(columns_of(position))
        assert one.solve(position) == expected
        assert two.solve(position) == expected
        assert one.analyze(position) == naive.column_scores(columns_of(position))
        assert one.solve(position, weak=True) == (expected > 0) - (expected < 0)
    stopped = Solver(8, 8, tt_megabytes=8).run(
        late_positions(8, 8, 30, 1, seed=5)[0], limit=Limit(nodes=50)
    )
    assert not stopped.complete
    one.close()
    two.close()


def test_a_table_too_small_for_exact_entries_is_a_clear_error() -> None:
    assert smallest_table(8, 8) == 4 << 10 and smallest_table(16, 7) == 1 << 20
    with pytest.raises(ValueError, match=r"a 512 KB table is too small for exact entries on a "
                       r"16x7 board \(128-bit keys\): it needs at least 1 MB"):  # fmt: skip
        new_table(16, 7, 512 << 10)


def test_the_solver_names_its_widest_board() -> None:
    with pytest.raises(SolverError, match="the solver handles boards of up to 32 columns, not 33"):
        Solver(33, 2)


def test_cli_solves_a_big_board() -> None:
    position = late_positions(10, 6, 12, 1, seed=106)[0]
    expected = NaiveSolver(10, 6).score(columns_of(position))
    result = runner.invoke(app, ["solve", "--width", "10", "--height", "6"],
                           input=position.moves + "\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == [position.moves, str(expected)]


def test_batches_and_the_bench_command_on_a_big_board(tmp_path: Path) -> None:
    positions = late_positions(10, 6, 13, 3, seed=61)
    expected = [NaiveSolver(10, 6).score(columns_of(p)) for p in positions]
    scores, nodes, seconds = Solver(10, 6, tt_megabytes=4).run_batch(positions)
    assert scores == expected and len(nodes) == len(seconds) == 3
    cases = tmp_path / "big.txt"
    cases.write_text("".join(f"{p.moves} {s}\n" for p, s in zip(positions, expected, strict=True)))
    result = runner.invoke(app, ["bench", "--width", "10", "--height", "6", str(cases)])
    assert result.exit_code == 0, result.output
    assert "n=3 correct=3" in result.stdout


def test_split_words() -> None:
    assert split((1 << 127) | 5) == (5, 1 << 63)


def test_players_choose_on_a_big_board() -> None:
    position = Position.from_moves("3135257121184355324158714516672177756854824773268822838", 8, 8)
    perfect = make_player("perfect", width=8, height=8).choose(position)
    assert perfect.proven and perfect.value == 2 and perfect.move in (2, 3)
    assert perfect.column_scores == [None, None, 2, 2, None, -3, None, None]
    for spec in ("alphabeta:depth=3", "mcts:playouts=200"):
        choice = make_player(spec, width=8, height=8, seed=1).choose(position)
        assert choice.move in position.legal_moves()


def test_terminal_play_between_humans_on_a_big_board() -> None:
    moves = "\n".join("1a2a3a4") + "\n"
    result = runner.invoke(
        app,
        ["play", "--width", "10", "--height", "6", "--red", "human", "--yellow", "human",
         "--no-review"],
        input=moves,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Red wins after 7 moves: 1a2a3a4" in result.output


def test_a_cleared_table_stays_cleared_past_the_generation_wrap() -> None:
    # before the fix, a search 2^g - 1 generations after another of the same position
    # found its entries (a 64 MB 8x8 table had 3 generation bits: 2 nodes instead of
    # 5,750); it has 32 now, so the test starts just before the wrap
    *others, first = late_positions(8, 8, 30, 4, seed=1)
    solver = Solver(8, 8, tt_megabytes=64)
    table = solver._table().table
    top = (1 << int(table[T_GBITS])) - 1
    table[T_GEN] = top - 1
    cold = solver.run(first).nodes  # on generation `top`
    for other in others:  # generations 1 (the wrap), 2, 3
        solver.run(other)
    table[T_GEN] = top - 1
    assert solver.run(first).nodes == cold > 1000  # on generation `top` again
    solver.close()


def test_a_loaded_big_kernel_is_used_without_making_its_compile_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # before the fix every solve on a big board made the compile lock (a path in the
    # cache, a folder made): about 40 µs a call, more than many late positions' search
    first, second = late_positions(8, 8, 10, 2, seed=3)
    solver = Solver(8, 8, tt_megabytes=16)
    assert solver.run(first).complete  # the kernel is loaded
    monkeypatch.setattr(backend, "compile_lock", lambda *a: pytest.fail("a lock per solve"))
    assert solver.run(second).score == NaiveSolver(8, 8).score(columns_of(second))
    solver.close()


def test_a_big_kernel_compiling_elsewhere_is_waited_for_not_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONNECT4_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(wide, "_backends", {})
    monkeypatch.setattr(backend, "_background", {})
    other = backend.compile_lock(13, 4)  # another process's compile (flock: per open file)
    assert other is not None and other.acquire(wait=False)
    try:
        assert backend.compile_pending(13, 4)
        assert kernel_ready(13, 4, wait=0.3) is False  # "being compiled", in time
        assert backend.background_compiles() == []  # no child of our own
    finally:
        other.release()
    assert not backend.compile_pending(13, 4)


@pytest.mark.slow
def test_a_big_kernel_compiles_in_a_child_into_the_cache_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first compile (about a minute) runs in a child process while the caller goes
    on; numba's cache of it lands in CONNECT4_CACHE_DIR, none in the source tree; this
    process then loads it from there without compiling."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CONNECT4_CACHE_DIR", str(cache))
    # numba's cache under the new root too, as route_numba_cache puts it in a new process
    # (here numba was configured when the test session began)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache / "numba"))
    monkeypatch.setattr(numba_config, "CACHE_DIR", str(cache / "numba"))
    monkeypatch.setattr(wide, "_backends", {})
    monkeypatch.setattr(wide, "_loading", {})
    monkeypatch.setattr(backend, "_background", {})
    monkeypatch.setattr(wide, "_compile_cold", lambda *a: pytest.fail("compiled in this process"))
    source = Path(wide.__file__).parents[1]

    def compiled_in_source() -> set[Path]:
        return {p for p in source.rglob("*.nb[ic]") if "13x4" in p.name}

    before = compiled_in_source()
    assert kernel_ready(13, 4) is False
    assert len(backend.background_compiles()) == 1
    assert kernel_ready(13, 4, wait=600)
    assert backend.background_compiles() == []
    assert (cache / "kernels" / "wide_13x4.py").is_file()  # the board's generated kernel
    indexes = sorted(p.name.split("-")[0] for p in cache.rglob("wide_13x4.*_entry-*.nbi"))
    assert indexes == [
        "wide_13x4._analyze_entry",
        "wide_13x4._probe_entry",
        "wide_13x4._solve_entry",
    ]
    assert compiled_in_source() == before
    position = late_positions(13, 4, 13, 1, seed=134)[0]
    expected = NaiveSolver(13, 4).score(columns_of(position))
    assert Solver(13, 4, tt_megabytes=8).solve(position) == expected
