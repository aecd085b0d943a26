"""Opening books: our file format, mirror lookup, the bitbully databases' translation."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from connect4.core.bits import mirror_key
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import score_bounds
from connect4.solver.bench import pons_path
from connect4.solver.book.format import BookError
from connect4.solver.book.keys import canonical_key, key_plies
from connect4.solver.book.reader import data_book_path, load_book, read_bitbully, wdl_lookup
from connect4.solver.book.table import Book


def random_position(rng: random.Random, plies: int, width: int = 7, height: int = 6) -> Position:
    """A random game of ``plies`` moves that is not over (retried until one is found)."""
    while True:
        position = Position(width, height)
        while position.ply < plies and not position.is_over():
            position.play(rng.choice(position.legal_moves()))
        if position.ply == plies and not position.is_over():
            return position


def small_book() -> Book:
    scores = {Position.from_moves(m, 6, 5): s for m, s in [("", 0), ("1", 3), ("34", -2), ("3", 1)]}
    return Book.from_scores(6, 5, 2, scores, meta={"source": "test"})


def test_round_trip(tmp_path: Path) -> None:
    book = small_book()
    path = tmp_path / "small.c4book"
    book.save(path)
    again = Book.load(path)
    assert (again.width, again.height, again.plies, again.wdl) == (6, 5, 2, False)
    assert again.meta == {"source": "test"}
    assert np.array_equal(again.keys, book.keys)
    assert np.array_equal(again.values, book.values)
    assert again.lookup(Position.from_moves("34", 6, 5)) == -2
    assert again.lookup(Position.from_moves("", 6, 5)) == 0
    assert again.info().entries_per_ply == {0: 1, 1: 2, 2: 1}


def test_round_trip_large_keys(tmp_path: Path) -> None:
    rng = random.Random(5)
    positions: dict[Position, int] = {}
    for _ in range(500):
        position = random_position(rng, rng.randrange(0, 30))
        low, high = score_bounds(42, position.ply)
        positions[position] = rng.randrange(low, high + 1)
    positions = {p: s for p, s in positions.items() if canonical_key(p) == p.key()}
    book = Book.from_scores(7, 6, 30, positions)
    path = tmp_path / "big.c4book"
    book.save(path)
    again = Book.load(path)
    for position, score in positions.items():
        assert again.lookup(position) == score
        assert again.lookup(position.mirrored()) == score


def test_checksum_failure_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.c4book"
    small_book().save(path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(BookError, match=r"bad.c4book is corrupted: checksum mismatch"):
        Book.load(path)


def test_other_file_errors(tmp_path: Path) -> None:
    with pytest.raises(BookError, match=r"book .*missing\.c4book does not exist"):
        Book.load(tmp_path / "missing.c4book")
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a book at all, really")
    with pytest.raises(BookError, match="not a connect4 book file"):
        Book.load(text)
    path = tmp_path / "cut.c4book"
    path.write_bytes(small_book().to_bytes()[:-5])
    with pytest.raises(BookError, match="truncated"):
        Book.load(path)


def test_files_that_are_not_books_are_refused_before_reading(tmp_path: Path) -> None:
    with pytest.raises(BookError, match="is a device, not a file"):
        Book.load("/dev/zero")  # endless: reading it would never stop
    with pytest.raises(BookError, match="is a folder, not a file"):
        Book.load(tmp_path)
    fifo = tmp_path / "pipe.c4book"
    os.mkfifo(fifo)
    with pytest.raises(BookError, match=r"is a FIFO \(named pipe\), not a file"):
        Book.load(fifo)  # would block forever waiting for a writer
    sparse = tmp_path / "sparse.c4book"
    with sparse.open("wb") as file:
        file.truncate(4 << 30)  # 4 GB of holes: refused by its size, never read
    with pytest.raises(BookError, match="too large"):
        Book.load(sparse)
    padded = tmp_path / "padded.c4book"
    padded.write_bytes(small_book().to_bytes() + bytes(1 << 20))
    with pytest.raises(BookError, match=r"truncated or padded: .* the header says"):
        Book.load(padded)  # the header's size is checked before the payload is read


def test_saving_over_a_symlink_replaces_the_link_and_not_its_file(tmp_path: Path) -> None:
    real = tmp_path / "real.c4book"
    real.write_bytes(b"precious")
    link = tmp_path / "link.c4book"
    link.symlink_to(real)
    small_book().save(link)
    assert not link.is_symlink() and real.read_bytes() == b"precious"
    assert Book.load(link).keys.tolist() == small_book().keys.tolist()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.c4book", "real.c4book"]


def test_mirror_lookup() -> None:
    position = Position.from_moves("1123")
    assert mirror_key(position.key(), 7, 7) == position.mirrored().key()
    book = Book.from_scores(7, 6, 4, {position: 5})
    assert len(book) == 1
    assert book.lookup(Position.from_moves("7765")) == 5
    assert book.lookup(Position.from_moves("1123")) == 5
    assert book.lookup(Position.from_moves("1124")) is None
    assert Position.from_moves("7765") in book
    with pytest.raises(BookError, match="this book is for 7x6 boards, not 6x5"):
        book.lookup(Position(6, 5))


def test_conflicting_mirror_scores_rejected() -> None:
    with pytest.raises(BookError, match="conflicting scores"):
        Book.from_scores(7, 6, 1, {Position.from_moves("1"): 2, Position.from_moves("7"): 3})


def test_key_plies_counts_stones() -> None:
    rng = random.Random(1)
    positions = [random_position(rng, n) for n in range(0, 25)]
    keys = np.array([p.key() for p in positions], dtype=np.uint64)
    assert key_plies(keys, 7, 6).tolist() == list(range(0, 25))


# ---------------------------------------------------------------- bitbully
def bitbully_rows(position: Position) -> list[str]:
    """The board as bitbully's documentation draws it: top row first, 1 = first player."""
    return ["".join(str(position.cell(c, r)) for c in range(7)) for r in reversed(range(6))]


def make_solver() -> Any:
    return make_solver_for(7, 6)


def make_solver_for(width: int, height: int) -> Any:
    from connect4.solver import Solver

    return Solver(width, height, tt_megabytes=8)


def test_bitbully_dist_book_contents() -> None:
    book = load_book("bitbully:12-ply-dist")
    assert (book.width, book.height, book.plies, len(book)) == (7, 6, 12, 4200899)
    assert set(key_plies(book.keys[::1000], 7, 6).tolist()) == {12}
    # The package's documented examples: "player 1 wins in 29 moves" (stored 71) at
    # 12 stones ends with the first player's 21st stone, score 1; "loses in 12
    # moves" (stored -88) ends with the second player's 12th stone, score -10.
    won = Position.from_moves("422446622446")
    assert bitbully_rows(won) == ["0000000", "0001000", "0102000", "0201020", "0102010", "0201020"]
    lost = Position.from_moves("344323344627")
    assert bitbully_rows(lost) == ["0000000", "0000000", "0011000", "0022000", "0121000", "0112022"]
    assert book.lookup(won) == 1
    assert book.lookup(lost) == -10
    assert book.lookup(won.mirrored()) == 1


def translation_check(count: int, min_abs: int, max_nodes: int, seed: int) -> tuple[int, int]:
    """Random 12-stone positions in the distance database: (checked, agreeing with the solver)."""
    solver = make_solver()
    book = load_book("bitbully:12-ply-dist")
    rng = random.Random(seed)
    checked = agreed = 0
    while checked < count:
        position = random_position(rng, 12)
        value = book.lookup(position)
        if value is None or abs(value) < min_abs:
            continue
        result = solver.run(position, limit=Limit(nodes=max_nodes))
        if result.complete:
            checked += 1
            agreed += result.score == value
    return checked, agreed


def test_bitbully_translation_matches_the_solver() -> None:
    # quick wins and losses: every distance the translation maps, cheap to solve
    assert translation_check(20, 10, 100_000, 2024) == (20, 20)


@pytest.mark.slow
def test_bitbully_translation_on_hundreds_of_positions() -> None:
    assert translation_check(300, 0, 20_000_000, 7) == (300, 300)


def test_wdl_books_agree_with_the_distance_book() -> None:
    exact = load_book("bitbully:12-ply-dist")
    wdl = read_bitbully("12-ply")
    rng = random.Random(7)
    for _ in range(300):
        position = random_position(rng, 12)
        value = exact.lookup(position)
        if value is None:  # not in the database: the side to move wins at once
            assert any(position.is_winning_move(c) for c in position.legal_moves())
            continue
        assert wdl_lookup(wdl, position) == int(np.sign(value))


def test_8ply_wdl_book_matches_the_solver() -> None:
    solver = make_solver()
    exact = load_book("bitbully:12-ply-dist")  # inside the search: 8-ply solves take milliseconds
    solver.set_book(exact)
    book = read_bitbully("8-ply")
    rng = random.Random(3)
    checked = 0
    for _ in range(40):
        position = random_position(rng, 8)
        result = solver.run(position, weak=True, limit=Limit(nodes=2_000_000))
        assert result.complete
        assert wdl_lookup(book, position) == result.score, position.moves
        checked += 1
    assert checked == 40


def test_a_forced_move_is_not_played_past_the_book() -> None:
    """At a ply the book covers, the search probes the book before it plays a forced move
    in place; playing past the book searched 2 M nodes here instead of a few hundred."""
    solver = make_solver()
    exact = load_book("bitbully:12-ply-dist")
    solver.set_book(exact)
    result = solver.run(Position.from_moves("57776375"))
    assert result.score == -2
    assert result.nodes < 5_000


# ---------------------------------------------------------------- shipped books
def test_shipped_7x6_book_matches_pons_benchmarks() -> None:
    book = Book.load(data_book_path(7, 6) or "missing")
    assert (book.plies, len(book)) == (8, 113934)
    checked = 0
    for name in ("Test_L1_R1", "Test_L1_R2", "Test_L1_R3"):
        path = pons_path(name)
        if not path.exists():
            pytest.fail(f"missing benchmark file {path}")
        for line in path.read_text().splitlines():
            moves, score = line.split()
            if len(moves) <= 8:
                assert book.lookup(Position.from_moves(moves)) == int(score), moves
                checked += 1
    assert checked == 1120


def test_shipped_6x5_book_matches_the_solver() -> None:
    book = Book.load(data_book_path(6, 5) or "missing")
    assert (book.width, book.height, book.plies, len(book)) == (6, 5, 8, 46918)
    assert book.lookup(Position(6, 5)) == 0
    solver = make_solver_for(6, 5)
    rng = random.Random(11)
    for _ in range(12):
        position = random_position(rng, 8, 6, 5)
        value = book.lookup(position)
        if value is not None:
            assert solver.solve(position) == value, position.moves


def test_default_books() -> None:
    seven = load_book("default", 7, 6)
    assert seven is not None and seven.plies == 12
    assert seven.lookup(Position()) == 1
    assert seven.lookup(Position.from_moves("44")) == 1
    six = load_book("default", 6, 5, exact=True)
    assert six is not None and six.plies == 8
    assert load_book("default", 5, 4) is None


def test_solve_command_uses_the_book() -> None:
    from tests.cli_helpers import run_cli

    # the empty board's columns without a book would take minutes; with it, lookups
    result = run_cli("solve", "-a", stdin="\n4\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [" -2 -1 0 1 0 -1 -2", "4 -4 -2 -2 -1 -2 -2 -4"]
    late = "44455554221\n4455\n"
    with_book = run_cli("solve", stdin=late)
    without = run_cli("solve", "--no-book", stdin=late)
    assert with_book.stdout == without.stdout == "44455554221 -15\n4455 18\n"


def test_one_variable_names_the_cache_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from connect4.solver import native
    from connect4.solver.book.reader import cache_dir

    monkeypatch.setenv("CONNECT4_CACHE", str(tmp_path / "old-name"))  # no longer read
    monkeypatch.setenv("CONNECT4_CACHE_DIR", str(tmp_path / "cache"))
    assert cache_dir() == tmp_path / "cache"
    assert native.cache_dirs() == [tmp_path / "cache"]


def test_metadata_over_what_a_book_holds_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    scores = {Position.from_moves(m, 6, 5): s for m, s in [("", 0), ("1", 3)]}
    big = Book.from_scores(6, 5, 1, scores, meta={"notes": "x" * 70_000})
    path = tmp_path / "big.c4book"
    with pytest.raises(BookError, match=r"metadata is 70,\d{3} bytes of JSON, over the 65,535"):
        big.save(path)
    assert list(tmp_path.iterdir()) == []
    small_book().save(path)
    before = path.read_bytes()
    with pytest.raises(BookError, match="nothing was written"):
        big.save(path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [
        "big.c4book"
    ]
