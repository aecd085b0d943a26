"""c4's published 8x7 book: its hashes decoded, its rows checked against our solver.

The rows below are copied from ChristopheSteininger/c4's ``data/book-8x7.csv``
(the file itself is not shipped): its first 30 rows, and rows our solver
settles in well under a second (line numbers of that file in the comments).
"""

from __future__ import annotations

import random
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from connect4.core.position import Position
from connect4.core.score import win_score
from connect4.solver import Solver
from connect4.solver.book import BookError
from connect4.solver.book.c4csv import (
    C4Row,
    c4_hash,
    dead_stones,
    decode_hash,
    decode_row,
    mirror_bits,
    read_c4_book,
)
from connect4.solver.book.split import split_solve
from tests.cli_helpers import run_benchmark

HEADER = "hash,move,score - This file contains all positions with 4 to 6 moves on a 8x7 board."
EMPTY = 0x0101010101010101  # a top marker at the bottom of each of the 8 columns

FIRST_ROWS = """\
72340181428011306,3,8 72340172838338837,3,3 72340177133044501,3,4 72621647814918421,3,6
72340177166598421,4,5 72903127086465301,3,0 72903122808275221,3,0 72340172871631146,4,8
72340172838207786,3,5 72340177133175061,4,2 72340172905185557,3,0 72340181444788501,3,2
72342376156299541,4,2 72340172854984981,3,2 72621647848341781,2,6 72341272349704981,3,3
72621656404721941,3,5 72342371861332501,4,5 72340181428011541,3,5 216455365208899861,3,-1
72340172871631381,3,6 72341272383258901,3,4 72340177133044011,3,3 72903122791563541,4,3
72340172838077717,3,3 144397775465939221,3,7 144399965899260181,3,6 72621647814787371,3,5
72340172838077225,3,6 72340172854853931,3,0"""

FAST_ROWS = [  # (line, hash, move, score)
    (2070, 72340181428017666, 3, 20),
    (1927, 72341272450368260, 4, 19),
    (1932, 144397766976668420, 4, 19),
    (179, 72340198607880468, 4, 18),
    (94, 72340172871958794, 3, 17),
    (530, 144397792645808645, 4, 16),
    (181, 72340198607880714, 4, 15),
]
SLOW_ROWS = [(1707, 288519552021627141, 5, 14), (2862, 72622747359971074, 4, 12)]
SPLIT_ROWS = FAST_ROWS[1:3]  # through the split at ply 8: 43 positions, about 10 searched
WON_ROW = (373, 72340172838339845, 3, 25)  # the side to move wins at once


def first_rows() -> list[C4Row]:
    fields = [text.split(",") for text in FIRST_ROWS.split()]
    return [C4Row(line, int(h), int(m), int(s)) for line, (h, m, s) in enumerate(fields, start=2)]


def write_csv(path: Path, rows: list[tuple[int, int, int]], header: str = HEADER) -> Path:
    path.write_text(header + "\n" + "".join(f"{h},{m},{s}\n" for h, m, s in rows))
    return path


# ---------------------------------------------------------------- the hash layout
def test_hand_made_hashes_decode_to_their_positions() -> None:
    # 8 bits a column, bottom first; a 1 on the side to move's stones and on each top marker.
    assert decode_hash(EMPTY).ply == 0
    one = decode_hash(EMPTY - 1 + 0b10)  # red in column 1; yellow to move, no stone of hers
    assert one.moves == "1" and one.to_move == 2
    two = decode_hash(EMPTY - 1 + 0b101)  # red (to move: 1) under yellow (0) in column 1
    assert two.moves == "11" and two.to_move == 1
    side = decode_hash(EMPTY - 0x0101 + 0x0203)  # red in column 1, yellow in column 2
    assert (side.stones(1), side.stones(2)) == (1, 1 << 8)


def test_hashes_are_the_smaller_of_a_position_and_its_mirror() -> None:
    assert c4_hash(Position.from_moves("8", 8, 7)) == (EMPTY - 1 + 0b10, True)
    assert c4_hash(Position.from_moves("1", 8, 7)) == (EMPTY - 1 + 0b10, False)
    with pytest.raises(BookError, match="not the canonical"):
        decode_hash(mirror_bits(EMPTY - 1 + 0b10, 8, 7))


@pytest.mark.parametrize(("width", "height"), [(8, 7), (7, 6), (9, 7)])  # 9x7: 128-bit hashes
def test_random_positions_round_trip(width: int, height: int) -> None:
    rng = random.Random(width * 10 + height)
    for _ in range(150):
        position = Position(width, height)
        for _ in range(rng.randrange(0, 16)):
            moves = [c for c in position.legal_moves() if not position.is_winning_move(c)]
            if not moves:
                break
            position.play(rng.choice(moves))
        value, mirrored = c4_hash(position)
        expected = position.mirrored() if mirrored else position
        decoded = decode_hash(value, width, height)
        assert (decoded.current, decoded.mask) == (expected.current, expected.mask)
        assert c4_hash(decoded)[0] == value


def test_an_opponents_dead_stone_is_given_back() -> None:
    # The yellow stone on column 8's bottom, pinned by the edge and red's stones, is
    # dead: the hash counts it as red's (to move), and the decoder finds it was yellow's.
    position = Position.from_moves("6847688367", 8, 7)
    opponent = position.mask ^ position.current
    assert dead_stones(position.current, opponent, 8, 7) & opponent
    value, mirrored = c4_hash(position)
    row = decode_row(C4Row(2, value, 3, 0))
    assert row.dead == 1 and mirrored
    target = position.mirrored()
    assert (row.position.current, row.position.mask) == (target.current, target.mask)


def test_c4_scores_are_ours() -> None:
    # c4: a win with the n-th stone scores 1 + (cells - n) // 2; ours (Pons'):
    # (cells + 1 - stones) // 2 with stones = n - 1 before the winning one.
    for cells in (42, 56, 63):
        for n in range(7, cells + 1):
            assert 1 + (cells - n) // 2 == win_score(cells, n - 1)


# ---------------------------------------------------------------- c4's rows
def test_the_first_rows_of_c4s_book_decode_to_legal_positions() -> None:
    for row in first_rows():
        entry = decode_row(row)
        position = entry.position
        assert 4 <= position.ply <= 6 and not position.is_over()
        red, yellow = (position.stones(p).bit_count() for p in (1, 2))
        assert (red, yellow) == ((position.ply + 1) // 2, position.ply // 2)
        assert position.can_play(row.move)
        assert c4_hash(position)[0] == row.hash and entry.dead == 0


def test_the_csv_is_read_and_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    rows = read_c4_book(write_csv(tmp_path / "book.csv", [(EMPTY, 3, 1), (EMPTY + 1, 2, -1)]))
    assert rows == [C4Row(2, EMPTY, 3, 1), C4Row(3, EMPTY + 1, 2, -1)]
    wide = tmp_path / "wide.csv"
    wide.write_text(f"{HEADER}\n1,2,3,-4\n")
    assert read_c4_book(wide) == [C4Row(2, (1 << 64) | 2, 3, -4)]
    cases = {
        "not c4's book": "moves,score\n",
        "line 2: not numbers": f"{HEADER}\n12,x,3\n",
        "line 3: expected hash,move,score": f"{HEADER}\n1,2,3\n1,2\n",
    }
    for message, text in cases.items():
        bad = tmp_path / "bad.csv"
        bad.write_text(text)
        with pytest.raises(BookError, match=message):
            read_c4_book(bad)
    with pytest.raises(BookError, match="cannot read c4's book"):
        read_c4_book(tmp_path / "missing.csv")


def test_bad_rows_are_named() -> None:
    cases = {
        "no top marker": C4Row(5, EMPTY - 1, 0, 0),
        "outside": C4Row(5, 1 << 70, 0, 0),
        "not the canonical": C4Row(5, mirror_bits(EMPTY - 1 + 0b10, 8, 7), 0, 0),
        "fewer stones": C4Row(5, EMPTY - 0x0101 + 0x0202, 0, 0),
        "not a legal column": C4Row(5, EMPTY, 8, 0),
        "too many stones of the side to move": C4Row(5, (1 << 64) - 1, 0, 0),
    }
    for message, row in cases.items():
        with pytest.raises(BookError, match=f"line 5: .*{message}"):
            decode_row(row)


def check_against_our_solver(line: int, value: int, move: int, score: int) -> None:
    position = decode_row(C4Row(line, value, move, score)).position
    solver = Solver(8, 7, 64)
    assert solver.solve(position) == score, f"line {line}"
    if position.is_winning_move(move):
        assert win_score(56, position.ply) == score
        return
    position.play(move)
    assert -solver.solve(position) == score, f"line {line}: c4's move"


@pytest.mark.parametrize(("line", "value", "move", "score"), FAST_ROWS)
def test_rows_our_solver_settles_fast_agree(line: int, value: int, move: int, score: int) -> None:
    check_against_our_solver(line, value, move, score)


@pytest.mark.slow
@pytest.mark.parametrize(("line", "value", "move", "score"), SLOW_ROWS)
def test_rows_of_a_few_seconds_agree(line: int, value: int, move: int, score: int) -> None:
    check_against_our_solver(line, value, move, score)


@pytest.mark.parametrize(("line", "value", "move", "score"), SPLIT_ROWS)
def test_rows_through_the_split_agree(line: int, value: int, move: int, score: int) -> None:
    position = decode_row(C4Row(line, value, move, score)).position
    with ThreadPoolExecutor(1) as pool:
        report = split_solve(
            position.moves, 8, 7, split_ply=8, executor=pool, results=None, progress=False,
            direct_nodes=0,
        )  # fmt: skip
    assert not report.direct and 0 < report.searched < report.tasks
    assert report.score == score, f"line {line}"
    position.play(report.best_move)  # any move that keeps the score is right
    assert -Solver(8, 7, 64).solve(position) == score, f"line {line}: the split's best move"


# ---------------------------------------------------------------- the benchmark script
def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return run_benchmark("check_c4_book.py", *args, timeout=300)


def test_the_script_checks_rows_nearest_the_end_first(tmp_path: Path) -> None:
    rows = [(h, m, s) for _, h, m, s in FAST_ROWS] + [(h, m, s) for h, m, s in
            ((r.hash, r.move, r.score) for r in first_rows())]  # fmt: skip
    csv = write_csv(tmp_path / "book.csv", rows)
    done = run_script("--csv", str(csv), "--rows", "3", "--limit", "60")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert {line.split()[0] for line in lines[1:4]} == {"2", "3", "4"}  # scores 20, 19, 19
    assert "3 rows: 3 agree, 0 mismatch, 0 not solved" in done.stdout


def test_the_script_reports_a_mismatch_and_a_timeout(tmp_path: Path) -> None:
    _, value, move, score = FAST_ROWS[0]
    wrong = write_csv(tmp_path / "wrong.csv", [(value, move, score - 1)])
    done = run_script("--csv", str(wrong), "--rows", "1")
    assert done.returncode == 1 and "MISMATCH" in done.stdout
    hard = write_csv(tmp_path / "hard.csv", [(r.hash, r.move, r.score) for r in first_rows()[:1]])
    done = run_script("--csv", str(hard), "--rows", "1", "--limit", "0.5")
    assert done.returncode == 0 and "1 rows: 0 agree, 0 mismatch, 1 not solved" in done.stdout


def test_the_script_checks_the_rows_of_given_lines(tmp_path: Path) -> None:
    csv = write_csv(tmp_path / "book.csv", [(h, m, s) for _, h, m, s in FAST_ROWS])
    done = run_script("--csv", str(csv), "--lines", "8,4")
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()[1:3]] == ["8", "4"]
    assert "2 rows: 2 agree" in done.stdout


def test_the_script_names_a_bad_file_or_line_in_one_line(tmp_path: Path) -> None:
    csv = write_csv(tmp_path / "book.csv", [(h, m, s) for _, h, m, s in FAST_ROWS])
    for args in (["--csv", str(tmp_path / "missing.csv")], ["--csv", str(csv), "--lines", "9"]):
        done = run_script(*args)
        assert done.returncode == 2
        assert done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1
    assert "no row on line 9" in done.stderr
    done = run_script("--csv", str(csv), "--split-ply", "6")
    assert done.returncode == 2 and "--split-ply must be above" in done.stderr
    done = run_script("--csv", str(csv), "--split-ply", "8", "--direct-nodes", "-1")
    assert done.returncode == 2 and "--direct-nodes must be at least 0" in done.stderr


def test_the_script_checks_rows_through_the_split_beside_the_plain_solver(tmp_path: Path) -> None:
    rows = [(h, m, s) for _, h, m, s in (*SPLIT_ROWS, WON_ROW)]
    csv = write_csv(tmp_path / "book.csv", rows)
    done = run_script("--csv", str(csv), "--rows", "3", "--split-ply", "8",
                      "--direct-nodes", "0", "--limit", "120")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "3 rows: 3 agree, 0 mismatch, 0 not solved" in done.stdout
    assert "(0 not within the row's limit" in done.stdout
    table = {row[0]: row for row in (line.split() for line in done.stdout.splitlines()[1:4])}
    for row in table.values():
        assert row[12] == row[4]  # the plain solver's score is c4's
    # the two rows went through the split; the won one has nothing to split (it failed so)
    assert all("/" in table[line][-1] for line in ("2", "3"))
    assert table["4"][-1] == "direct"
