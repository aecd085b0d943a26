"""Position: perft golden counts, agreement with a naive board, notation, errors, fuzz."""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from connect4 import IllegalMoveError, InvalidMoveError, Position
from connect4.core.game import Rules
from connect4.core.position import check_board_size
from tests.naive import NaiveBoard

PERFT = [1, 7, 49, 238, 1120, 4263, 16422, 54859]


def distinct_positions(position: Position, plies: int, seen: set[int]) -> None:
    if plies == 0:
        seen.add(position.key())
        return
    for column in position.legal_moves():
        position.play(column)
        distinct_positions(position, plies - 1, seen)
        position.undo()


@pytest.mark.parametrize("plies", range(7))
def test_perft_distinct_positions(plies: int) -> None:
    seen: set[int] = set()
    distinct_positions(Position(), plies, seen)
    assert len(seen) == PERFT[plies]


def test_perft_seven_plies() -> None:
    seen: set[int] = set()
    distinct_positions(Position(), 7, seen)
    assert len(seen) == 54859


SIZES = [(4, 4), (5, 4), (6, 5), (7, 6), (8, 7), (9, 6)]


@settings(max_examples=150, deadline=None)
@given(
    size=st.sampled_from(SIZES),
    rules=st.sampled_from(["standard", "count-fours"]),
    choices=st.lists(st.integers(min_value=0, max_value=10**6), max_size=70),
)
def test_agrees_with_naive_board(size: tuple[int, int], rules: str, choices: list[int]) -> None:
    width, height = size
    position = Position(width, height, "standard" if rules == "standard" else "count-fours")
    naive = NaiveBoard(width, height, count_fours=rules == "count-fours")
    for choice in choices:
        assert sorted(position.legal_moves()) == naive.legal()
        assert position.winner() == naive.winner()
        assert position.is_over() == naive.over()
        assert position.is_draw() == (naive.over() and naive.winner() is None)
        if naive.over():
            break
        column = naive.legal()[choice % len(naive.legal())]
        assert position.can_play(column)
        before = position.key()
        will_win = position.is_winning_move(column)
        player = position.to_move
        lines_before = naive.lines(player)
        naive.play(column)
        position.play(column)
        assert will_win == (naive.lines(player) > lines_before)
        assert position.ply == naive.ply
        assert position.to_move == 1 + naive.ply % 2
        assert position.key() != before
        for c in range(width):
            for r in range(height):
                assert position.cell(c, r) == naive.grid[c][r]
    # notation round-trips, and undo restores every earlier state
    again = Position.from_moves(position.moves, width, height, position.rules)
    assert again == position
    assert again.moves == position.moves
    keys = []
    replay = Position(width, height, position.rules)
    for column in position.history:
        keys.append(replay.key())
        replay.play(column)
    while position.ply:
        position.undo()
        assert position.key() == keys[position.ply]


def test_from_moves_and_moves_round_trip() -> None:
    position = Position.from_moves("4453")
    assert position.moves == "4453"
    assert position.history == [3, 3, 4, 2]
    assert position.ply == 4
    assert position.to_move == 1
    assert repr(position) == "Position.from_moves('4453')"
    assert eval(repr(position), {"Position": Position}) == position


def test_repr_of_other_sizes_and_rules_is_evaluable() -> None:
    position = Position.from_moves("123", width=5, height=4, rules="count-fours")
    assert repr(position) == "Position.from_moves('123', width=5, height=4, rules='count-fours')"
    assert eval(repr(position), {"Position": Position}) == position


def test_str_draws_the_board() -> None:
    assert str(Position.from_moves("4453")) == "\n".join(
        [
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . . . . .",
            ". . . O . . .",
            ". . O X X . .",
            "1 2 3 4 5 6 7",
        ]
    )


def test_mirror_and_copy() -> None:
    position = Position.from_moves("4453")
    mirror = position.mirrored()
    assert mirror.moves == "4435"
    assert mirror.mirrored() == position
    twin = position.copy()
    twin.play(0)
    assert position.moves == "4453" and twin.moves == "44531"


def test_key_is_unique_per_position() -> None:
    # "4453" and "5443" reach the same position through transposition.
    assert Position.from_moves("4453").key() == Position.from_moves("5344").key()
    assert Position.from_moves("4453").key() != Position.from_moves("4435").key()


def test_wins_in_every_direction() -> None:
    assert Position.from_moves("4455667").winner() == 1  # horizontal
    assert Position.from_moves("1212121").winner() == 1  # vertical
    rising = Position.from_moves("1223343447")
    assert rising.winner() is None and rising.is_winning_move(3)
    rising.play(3)
    assert rising.winner() == 1  # rising diagonal (1,1)-(4,4)
    falling = Position.from_moves("7665545441")
    assert falling.winner() is None
    falling.play(3)
    assert falling.winner() == 1  # falling diagonal (4,4)-(7,1)
    assert bin(falling.winning_line()).count("1") == 4
    assert Position.from_moves("12121232").winner() == 2  # yellow, vertical


def test_draw_on_full_board() -> None:
    rng = random.Random(7)
    draws = 0
    while draws < 3:
        position = Position()
        while not position.is_over():
            position.play(rng.choice(position.legal_moves()))
        if position.winner() is None:
            draws += 1
            assert position.ply == 42 and position.is_draw() and position.legal_moves() == []
            naive = NaiveBoard(7, 6)
            for column in position.history:
                naive.play(column)
            assert naive.winner() is None and naive.full()
            assert position.result_text() == "draw"


def test_small_board_draw() -> None:
    # On 4x1 nobody can make four: the game is a draw once the row is full.
    position = Position.from_moves("1234", width=4, height=1)
    assert position.is_over() and position.is_draw() and position.winner() is None
    assert position.result_text() == "draw"


def test_count_fours_game_goes_on_and_counts_lines() -> None:
    position = Position.from_moves("4455667", rules="count-fours")
    assert position.winner() is None and not position.is_over()
    assert position.score_of(1) == 1
    position.play(6)  # yellow on top of 7
    position.play(2)  # red 3: five in a row 3-7 -> two lines
    assert position.score_of(1) == 2
    assert position.legal_moves()


def test_count_fours_winner_by_line_count() -> None:
    width, height = 4, 4
    position = Position(width, height, "count-fours")
    naive = NaiveBoard(width, height, count_fours=True)
    for column in [0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3]:
        position.play(column)
        naive.play(column)
    assert position.is_over()
    assert (position.score_of(1), position.score_of(2)) == (naive.lines(1), naive.lines(2))
    assert position.winner() == naive.winner()


@pytest.mark.parametrize(
    ("moves", "error", "message"),
    [
        ("4444444", IllegalMoveError, "move 7 ('4'): column 4 is full"),
        ("448", InvalidMoveError, "move 3 ('8'): column 8 is out of range 1-7"),
        ("40", InvalidMoveError, "move 2 ('0'): column 0 is out of range 1-7"),
        ("4x", InvalidMoveError, "move 2 ('x'): not a column number 1-7"),
        ("4 4", InvalidMoveError, "move 2 (' '): not a column number 1-7"),
        ("44556677", IllegalMoveError, "move 8 ('7'): the game is already over (red has won)"),
    ],
)
def test_error_messages(moves: str, error: type[ValueError], message: str) -> None:
    with pytest.raises(error) as raised:
        Position.from_moves(moves)
    assert str(raised.value) == message
    assert isinstance(raised.value, ValueError)


def test_play_errors_use_the_same_messages() -> None:
    position = Position.from_moves("444444")
    with pytest.raises(IllegalMoveError, match=r"^move 7 \('4'\): column 4 is full$"):
        position.play(3)
    with pytest.raises(InvalidMoveError, match="column 8 is out of range 1-7"):
        position.play(7)
    with pytest.raises(InvalidMoveError):
        position.play(-1)
    assert position.moves == "444444"  # nothing changed
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        Position().undo()


def test_can_play_and_winning_move_never_raise() -> None:
    position = Position.from_moves("444444")
    assert not position.can_play(3)
    assert not position.can_play(7) and not position.can_play(-1)
    assert not position.is_winning_move(3)


@pytest.mark.parametrize(("width", "height"), [(11, 11), (0, 6), (7, 0), (26, 4)])
def test_oversize_and_empty_boards_are_rejected(width: int, height: int) -> None:
    with pytest.raises(ValueError, match=f"board {width}x{height}"):
        Position(width, height)


def test_largest_one_word_boards_fit() -> None:
    check_board_size(8, 7)
    check_board_size(9, 6)
    position = Position.from_moves("9" * 6 + "1", width=9, height=6)
    assert position.heights[8] == 6 and position.heights[0] == 1


@settings(max_examples=2000, deadline=None)
@given(
    moves=st.text(max_size=60),
    width=st.integers(min_value=1, max_value=20),
    height=st.integers(min_value=1, max_value=12),
)
def test_fuzz_from_moves_raises_only_move_errors(moves: str, width: int, height: int) -> None:
    if width * (height + 1) > 128:
        with pytest.raises(ValueError, match="too large"):
            Position.from_moves(moves, width, height)
        return
    try:
        position = Position.from_moves(moves, width, height)
    except (InvalidMoveError, IllegalMoveError) as error:
        assert str(error).startswith("move ")
    else:
        assert position.moves == moves.strip().lower()  # surrounding whitespace is no move


@settings(max_examples=1000, deadline=None)
@given(moves=st.text(alphabet="0123456789", max_size=45))
def test_fuzz_digit_strings(moves: str) -> None:
    try:
        Position.from_moves(moves)
    except (InvalidMoveError, IllegalMoveError) as error:
        index = int(str(error).split()[1])
        assert 1 <= index <= len(moves)
        # everything before the bad move is a legal game prefix
        Position.from_moves(moves[: index - 1])


def test_huge_digit_strings_are_invalid_moves_not_int_overflows() -> None:
    position = Position()
    for text in ("4" * 4301, "9" * 10_000, "0" * 50):
        with pytest.raises(InvalidMoveError, match="characters\\): column number out of range 1-7"):
            position.parse_move(text)


# ---------------------------------------------------------------- boards without a move order
def rows_of(position: Position) -> list[list[int]]:
    """The board as rows, top row first, as ``Position.from_rows`` reads it."""
    return [
        [position.cell(c, r) for c in range(position.width)]
        for r in reversed(range(position.height))
    ]


def reachable_boards(width: int, height: int, rules: Rules) -> set[tuple[tuple[int, ...], ...]]:
    """Every board some game reaches (the finished ones included), by walking all games."""
    seen: set[int] = set()
    boards: set[tuple[tuple[int, ...], ...]] = set()

    def walk(position: Position) -> None:
        if position.key() in seen:
            return
        seen.add(position.key())
        boards.add(tuple(map(tuple, rows_of(position))))
        for column in position.legal_moves():
            position.play(column)
            walk(position)
            position.undo()

    walk(Position(width, height, rules))
    return boards


def column_fillings(height: int) -> list[list[int]]:
    """Every way to stack 0..height stones of two colours in one column, bottom first."""
    return [list(stones) for h in range(height + 1) for stones in product((1, 2), repeat=h)]


@pytest.mark.parametrize(("width", "height", "rules"), [(4, 3, "standard"), (3, 4, "count-fours")])
def test_from_rows_accepts_exactly_the_reachable_boards(
    width: int, height: int, rules: Rules
) -> None:
    """Against a naive reference: all games walked, every stacking of stones tried."""
    reachable = reachable_boards(width, height, rules)
    accepted = 0
    for columns in product(column_fillings(height), repeat=width):
        board = tuple(
            tuple(stack[r] if r < len(stack) else 0 for stack in columns)
            for r in reversed(range(height))
        )
        try:
            position = Position.from_rows(board, rules)
        except ValueError:
            assert board not in reachable
            continue
        accepted += 1
        assert board in reachable
        assert tuple(map(tuple, rows_of(position))) == board
        assert Position.from_moves(position.moves, width, height, rules) == position
    assert accepted == len(reachable)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32), width=st.integers(4, 16), height=st.integers(4, 10))
def test_from_rows_finds_the_position_of_random_games(seed: int, width: int, height: int) -> None:
    if width * (height + 1) > 128:
        return
    rng = random.Random(seed)
    position = Position(width, height)
    for _ in range(rng.randrange(width * height + 1)):
        if position.is_over():
            break
        position.play(rng.choice(position.legal_moves()))
    rebuilt = Position.from_rows(rows_of(position))
    assert rebuilt == position
    assert (rebuilt.to_move, rebuilt.winner(), rebuilt.is_over()) == (
        position.to_move,
        position.winner(),
        position.is_over(),
    )


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([], "a board needs at least one row, and all rows the same length"),
        ([[0, 0], [0]], "a board needs at least one row, and all rows the same length"),
        ([[0, 3]], r"row 1 \(from the top\), column 2: 3 is not 0 \(empty\), 1 \(red\) or 2"),
        ([[True, 0]], "row 1 .*column 1: True is not 0"),
        ([["1", 0]], "row 1 .*column 1: '1' is not 0"),
        ([[1, 0], [0, 0]], r"column 1: a stone floats above the empty cell in row 2"),
        ([[0, 0], [2, 2]], "red has 0 stones and yellow 2: red moves first"),
        (
            [[0] * 12] * 10,
            "board 12x10 is too large: width\\*\\(height\\+1\\) = 132 must be <= 128",
        ),
        ([[1, 0], [1, 0], [1, 2], [1, 2]], "red has 4 stones and yellow 2"),
        ([[1, 2], [1, 2], [1, 2], [1, 2]], "both red and yellow have four in a row"),
        (
            [[2, 0, 0, 0, 0], [1, 0, 0, 0, 0], [1, 2, 0, 0, 0], [1, 2, 0, 0, 0], [1, 2, 0, 0, 0]],
            "no move order reaches this board: .* without a four in a row before the last stone",
        ),
    ],
)
def test_impossible_boards_are_precise_errors(rows: list[list[object]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Position.from_rows(rows)  # type: ignore[arg-type]
