"""Boards over 64 bits (up to ``width*(height+1) = 128``): the Position against a naive
2-D board, notation, keys and mirrors, ``from_rows``, winning cells; the parts that keep
a bitboard in one machine word refuse such boards with one clear message."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings, strategies as st

from connect4 import GameError, Position
from connect4.classic.heuristics import get_heuristic
from connect4.classic.search import Limits, search
from connect4.core.bits import canonical_key, check_word_board, mirror_key
from connect4.core.position import check_board_size
from tests.naive import NaiveBoard

# 72, 72, 70, 66, 65, 70, 66 bits, and two boards of exactly 128 bits
BIG = [(8, 8), (9, 7), (10, 6), (11, 5), (13, 4), (7, 9), (6, 10), (8, 15), (16, 7)]


def naive_winning_cells(naive: NaiveBoard, player: int) -> frozenset[tuple[int, int]]:
    """Every cell of a four-cell line ``player`` owns, by walking the grid."""
    cells: set[tuple[int, int]] = set()
    for c in range(naive.width):
        for r in range(naive.height):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                line = [(c + k * dc, r + k * dr) for k in range(4)]
                if all(
                    0 <= x < naive.width and 0 <= y < naive.height and naive.grid[x][y] == player
                    for x, y in line
                ):
                    cells.update(line)
    return frozenset(cells)


def rows_of(naive: NaiveBoard) -> list[list[int]]:
    return [[naive.grid[c][r] for c in range(naive.width)] for r in reversed(range(naive.height))]


@settings(max_examples=120, deadline=None)
@given(
    size=st.sampled_from(BIG),
    rules=st.sampled_from(["standard", "count-fours"]),
    choices=st.lists(st.integers(min_value=0, max_value=10**6), max_size=130),
)
def test_big_boards_agree_with_a_naive_board(
    size: tuple[int, int], rules: str, choices: list[int]
) -> None:
    width, height = size
    position = Position(width, height, "standard" if rules == "standard" else "count-fours")
    naive = NaiveBoard(width, height, count_fours=rules == "count-fours")
    keys = {position.key()}
    for choice in choices:
        assert sorted(position.legal_moves()) == naive.legal()
        assert position.winner() == naive.winner()
        assert position.is_over() == naive.over()
        if naive.over():
            break
        column = naive.legal()[choice % len(naive.legal())]
        player = position.to_move
        lines_before = naive.lines(player)
        will_win = position.is_winning_move(column)
        naive.play(column)
        position.play(column)
        assert will_win == (naive.lines(player) > lines_before)
        assert position.key() not in keys
        keys.add(position.key())
        assert position.key() < 1 << (width * (height + 1))
    for c in range(width):
        for r in range(height):
            assert position.cell(c, r) == naive.grid[c][r]
    who = naive.winner()
    expected = frozenset() if who is None else naive_winning_cells(naive, who)
    assert position.winning_cells() == expected
    if rules == "count-fours":
        assert (position.score_of(1), position.score_of(2)) == (naive.lines(1), naive.lines(2))
    # the notation round-trips (columns after 9 are letters), undo walks back
    again = Position.from_moves(position.moves, width, height, position.rules)
    assert again == position and again.moves == position.moves
    assert Position.from_moves(position.moves.upper(), width, height, position.rules) == position
    while position.ply:
        position.undo()
    assert position.key() == 0 and position.mask == 0


@settings(max_examples=80, deadline=None)
@given(size=st.sampled_from(BIG), seed=st.integers(0, 2**32))
def test_big_mirror_canonical_keys_and_from_rows(size: tuple[int, int], seed: int) -> None:
    width, height = size
    rng = random.Random(seed)
    position = Position(width, height)
    naive = NaiveBoard(width, height)
    for _ in range(rng.randrange(width * height + 1)):
        if position.is_over():
            break
        column = rng.choice(position.legal_moves())
        position.play(column)
        naive.play(column)
    mirror = position.mirrored()
    h1 = height + 1
    assert mirror.key() == mirror_key(position.key(), width, h1)
    assert mirror_key(mirror.key(), width, h1) == position.key()
    for c in range(width):
        for r in range(height):
            assert mirror.cell(width - 1 - c, r) == naive.grid[c][r]
    assert canonical_key(position.key(), width, height) == canonical_key(
        mirror.key(), width, height
    )
    assert canonical_key(position.key(), width, height) == min(position.key(), mirror.key())
    rebuilt = Position.from_rows(rows_of(naive))
    assert rebuilt == position
    assert (rebuilt.winner(), rebuilt.is_over()) == (position.winner(), position.is_over())


def test_notation_uses_letters_after_nine() -> None:
    position = Position.from_moves("abcd9", width=13, height=4)
    assert position.history == [9, 10, 11, 12, 8]
    assert position.moves == "abcd9"
    assert repr(position) == "Position.from_moves('abcd9', width=13, height=4)"
    assert position.parse_move("c") == 11 and position.parse_move("13") == 12
    with pytest.raises(GameError, match=r"move 1 \('e'\): column 14 is out of range 1-13"):
        Position.from_moves("e", width=13, height=4)


def test_the_largest_boards_fit_128_bits() -> None:
    for width, height in [(8, 15), (16, 7), (32, 3), (2, 63)]:
        check_board_size(width, height)
    position = Position.from_moves("g" * 7 + "1", width=16, height=7)  # the top-left bit is 127
    assert position.mask >> 127 == 0 and position.heights[15] == 7 and position.key() >> 127 == 1
    assert position.winning_cells() == frozenset()


@pytest.mark.parametrize(
    ("width", "height", "message"),
    [
        (11, 11, "board 11x11 is too large: width*(height+1) = 132 must be <= 128"),
        (9, 14, "board 9x14 is too large: width*(height+1) = 135 must be <= 128"),
        (33, 3, "board 33x3 is too large: width*(height+1) = 132 must be <= 128"),
    ],
)
def test_boards_over_128_bits_name_the_limit(width: int, height: int, message: str) -> None:
    with pytest.raises(GameError, match=re.escape(message)):
        Position(width, height)
    with pytest.raises(GameError, match=re.escape(message)):
        Position.from_rows([[0] * width] * height)


def test_one_word_parts_refuse_big_boards_with_one_message() -> None:
    check_word_board(8, 7, "the solver")
    with pytest.raises(GameError) as error:
        check_word_board(8, 8, "the solver")
    assert str(error.value) == (
        "the solver handles boards of up to 64 bits (width*(height+1) <= 64): board 8x8 needs 72"
    )
    with pytest.raises(GameError, match="up to 63 bits"):
        check_word_board(8, 7, "the vector env", 63)


def test_both_searches_play_big_boards() -> None:
    # red's open three 5-6-7 on a 10x6 board: yellow blocks one end, red wins at the other
    position = Position.from_moves("5a6a7", width=10, height=6)
    for engine in ("auto", "python", "numba"):
        result = search(position, limits=Limits(depth=3), engine=engine)
        assert result.engine == ("python" if engine == "python" else "numba")
        assert result.value is not None and result.value < -1e6  # a loss seen 3 plies ahead
        assert len(result.pv) == 2 and result.pv[1] in (3, 7)  # red wins at an open end
    result = search(Position.from_moves("5a6a7a", width=10, height=6), limits=Limits(depth=1))
    assert result.move in (3, 7)  # a win at once


@pytest.mark.parametrize("name", ["recent-lines", "windows", "threats", "adjacency"])
def test_heuristics_are_mirror_symmetric_on_big_boards(name: str) -> None:
    heuristic = get_heuristic(name)
    rng = random.Random(7)
    for width, height in [(10, 6), (8, 8), (16, 7)]:
        for _ in range(10):
            position = Position(width, height)
            for _ in range(rng.randrange(4, 30)):
                if position.is_over():
                    break
                position.play(rng.choice(position.legal_moves()))
            mirror = position.mirrored()
            for player in (1, 2):
                assert heuristic.evaluate(position, player) == heuristic.evaluate(mirror, player)
