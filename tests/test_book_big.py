"""Opening books of boards over 64 bits: two-word keys in memory, 16-byte keys on disk
(format version 2, older books still load), probed by the 128-bit kernel, built by
the builder with two-word journal records."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from connect4 import Position
from connect4.cli.app import app
from connect4.solver import Solver
from connect4.solver.book import Book, BookError
from connect4.solver.book.build import Journal, WideRecord
from connect4.solver.book.format import HEADER_SIZE
from connect4.solver.book.keys import key_array, key_ints, key_plies
from tests.naive import NaiveSolver
from tests.test_solver import Arrays
from tests.test_solver_wide import columns_of, late_positions

runner = CliRunner()


def late_book(width: int, height: int, seed: int) -> tuple[Position, Book]:
    """A late position with at least two children a book can hold, and a book of those
    children's exact scores (a naive negamax's)."""
    for position in late_positions(width, height, 13, 30, seed=seed):
        scores: dict[Position, int] = {}
        for column in position.legal_moves():
            child = position.copy()
            child.play(column)
            if child.is_over() or any(child.is_winning_move(c) for c in child.legal_moves()):
                continue
            scores[child] = NaiveSolver(width, height).score(columns_of(child))
        if len(scores) >= 2:
            return position, Book.from_scores(width, height, position.ply + 1, scores)
    raise AssertionError("no late position with two quiet children")


def test_keys_over_64_bits_round_trip_through_a_file(tmp_path: Path) -> None:
    position, book = late_book(8, 8, seed=1)
    assert book.keys.shape == (len(book), 2) and not book.narrow
    assert max(key_ints(book.keys)) >= 1 << 64  # the high word is used
    path = tmp_path / "big.c4book"
    book.save(path)
    data = path.read_bytes()
    version, flags = struct.unpack_from("<H", data, 8)[0], data[13]
    assert (version, flags) == (2, 2)  # 16-byte keys, exact scores
    loaded = Book.load(path)
    assert key_ints(loaded.keys) == key_ints(book.keys)
    assert loaded.values.tolist() == book.values.tolist()
    for column in position.legal_moves():
        child = position.copy()
        child.play(column)
        assert loaded.lookup(child) == book.lookup(child)
        mirror = Position.from_moves("".join("12345678"[7 - int(m) + 1] for m in child.moves), 8, 8)
        assert loaded.lookup(mirror) == book.lookup(child)
    assert loaded.lookup(Position.from_moves("1", 8, 8)) is None
    assert set(loaded.ply_counts()) == {position.ply + 1}
    assert key_plies(loaded.keys, 8, 8).tolist() == [position.ply + 1] * len(loaded)


def test_an_older_book_still_loads_and_a_header_naming_the_wrong_key_width_is_refused(
    tmp_path: Path,
) -> None:
    small = Book.from_scores(7, 6, 1, {Position.from_moves("4"): -2})
    data = small.to_bytes()
    assert struct.unpack_from("<H", data, 8)[0] == 1  # 8-byte keys: version 1, as before
    assert Book.from_bytes(data).lookup(Position.from_moves("4")) == -2
    _, big = late_book(10, 6, seed=2)
    wide = bytearray(big.to_bytes())
    wide[8:10] = struct.pack("<H", 1)
    wide[13] = 0  # a header claiming 8-byte keys for a 10x6 board
    import zlib

    crc = zlib.crc32(bytes(wide[HEADER_SIZE:]), zlib.crc32(bytes(wide[:32])))
    wide[32:36] = struct.pack("<I", crc)
    with pytest.raises(BookError, match=r"a 10x6 board needs 16-byte keys .* says 8-byte keys"):
        Book.from_bytes(bytes(wide))


def test_the_wide_kernel_probes_a_book_of_two_word_keys() -> None:
    position, book = late_book(8, 8, seed=3)
    expected = NaiveSolver(8, 8).score(columns_of(position))
    without = Solver(8, 8, tt_megabytes=4).run(position)
    with_book = Solver(8, 8, tt_megabytes=4, book=book).run(position)
    assert with_book.score == without.score == expected
    assert with_book.nodes < without.nodes  # the children come from the book


def test_book_arrays_of_the_wrong_shape_are_refused() -> None:
    keys = np.zeros(3, dtype=np.uint64)
    with pytest.raises(BookError, match=r"keys must have shape \(3, 2\) .* 8x8 board, not \(3,\)"):
        Book(8, 8, 4, keys, np.zeros(3, dtype=np.int8))
    unsorted = key_array([5 << 64, 3 << 64], 8, 8)
    with pytest.raises(ValueError, match="sorted and distinct"):
        Solver(8, 8, tt_megabytes=4).set_book(Arrays(unsorted, np.zeros(2, dtype=np.int8), 4))


def test_a_journal_of_two_word_records_resumes(tmp_path: Path) -> None:
    assert WideRecord().unpack(WideRecord().pack((3 << 64) | 7, -5, 11)) == ((3 << 64) | 7, -5, 11)
    journal = Journal(tmp_path / "j.partial", 8, 8, 4)
    journal.open(resume=False)
    journal.append([((1 << 70) + 1, 2, 100)])
    journal.close()
    again = Journal(tmp_path / "j.partial", 8, 8, 4)
    again.open(resume=True)
    assert again.scores == {(1 << 70) + 1: 2} and again.nodes == 100 and again.damaged == 0


def test_build_a_book_of_a_board_over_64_bits(tmp_path: Path) -> None:
    # a 2x32 board (66 bits) is a draw (a vertical four is always blocked) that solves at
    # once: the builder's whole path (levels, two-word journal records, level books
    # probed by the wide kernel, the file) runs fast
    out = tmp_path / "tall.c4book"
    build = ["--width", "2", "--height", "32", "--plies", "3", "--base-book", "none"]
    result = runner.invoke(app, ["book", "build", *build, "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    book = Book.load(out)
    assert not book.narrow and book.plies == 3
    assert book.ply_counts() == {0: 1, 1: 1, 2: 2, 3: 4}  # mirror images merged
    assert set(book.values.tolist()) == {0}
    info = runner.invoke(app, ["book", "info", str(out)])
    assert info.exit_code == 0 and "2x32" in info.output, info.output


def test_columns_too_tall_for_the_kernels_are_refused() -> None:
    with pytest.raises(ValueError, match="the solver handles columns of up to 62 cells, not 64"):
        Solver(1, 64)
