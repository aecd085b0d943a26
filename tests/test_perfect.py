"""The perfect player: spec options, book/solver/search sources, levels, optimal play."""

from __future__ import annotations

import random
from typing import Any

import pytest

from connect4.core.position import Position
from connect4.core.score import best_columns
from connect4.players import PlayerSpecError, make_player
from connect4.players.perfect import LEVELS, PerfectPlayer, softmax_choice
from connect4.solver.book import load_book

SLOW = 600.0  # a budget no test position needs: results must not depend on the clock


class Referee:
    """Exact scores by the solver (book inside the search), a fresh table per call."""

    def __init__(self) -> None:
        from connect4.solver import Solver

        self.book = load_book("default", 7, 6)
        assert self.book is not None
        self.solver = Solver(7, 6, 16, book=self.book, etc=False)

    def score(self, position: Position) -> int:
        return self.solver.solve(position)

    def move_score(self, position: Position, column: int) -> int:
        if position.is_winning_move(column):
            return (position.size + 1 - position.ply) // 2
        child = position.copy()
        child.play(column)
        return 0 if child.is_over() else -self.score(child)


@pytest.fixture(scope="module")
def referee() -> Referee:
    return Referee()


def play_game(red: Any, yellow: Any, referee: Referee | None, perfect_colour: int) -> Position:
    """Play a full game; with a referee, assert every perfect move keeps the best score."""
    position = Position()
    while not position.is_over():
        player = red if position.to_move == 1 else yellow
        choice = player.choose(position)
        if referee is not None and position.to_move == perfect_colour:
            best = referee.score(position)
            assert referee.move_score(position, choice.move) == best, position.moves
            assert choice.value == best
            assert choice.proven is True
        position.play(choice.move)
    return position


def test_spec_options() -> None:
    player = make_player("perfect:level=hard,time=0.5,seed=3")
    assert isinstance(player, PerfectPlayer)
    assert (player.level, player.seconds, player.seed) == ("hard", 0.5, 3)
    default = make_player("perfect", seed=9)
    assert isinstance(default, PerfectPlayer)
    assert (default.level, default.seconds, default.seed) == ("perfect", 1.0, 9)
    with pytest.raises(PlayerSpecError, match=r"perfect: level='genius' must be one of easy"):
        make_player("perfect:level=genius")
    takes = r"unknown key 'depth' \(perfect takes: level, temperature, blunder, time"
    with pytest.raises(PlayerSpecError, match=takes):
        make_player("perfect:depth=3")
    with pytest.raises(PlayerSpecError, match="cannot play tictactoe"):
        make_player("perfect", game="tictactoe")


def test_empty_board_comes_from_the_book() -> None:
    choice = PerfectPlayer().choose(Position())
    assert choice.move == 3
    assert choice.value == 1
    assert choice.proven is True
    assert choice.column_scores == [-2, -1, 0, 1, 0, -1, -2]
    assert choice.stats["source"] == "book"
    assert choice.stats["nodes"] == 0


def test_full_column_and_immediate_win() -> None:
    position = Position.from_moves("444444")
    choice = PerfectPlayer().choose(position)
    assert choice.column_scores is not None and choice.column_scores[3] is None
    win = PerfectPlayer().choose(Position.from_moves("445566"))
    assert win.move == 2 and win.value == 18  # 3-4-5-6 or 2-3-4-5: centre-first is 3


def test_solver_source_beyond_the_book(referee: Referee) -> None:
    position = Position.from_moves("4444352133253")  # 13 stones: past every book
    choice = PerfectPlayer(seconds=SLOW).choose(position)
    assert choice.stats["source"] == "solver"
    assert choice.proven is True
    assert referee.move_score(position, choice.move) == referee.score(position) == choice.value


def test_out_of_time_falls_back_to_search() -> None:
    player = PerfectPlayer(seconds=0.01, book=None)
    choice = player.choose(Position.from_moves("44"))
    assert choice.proven is False
    assert choice.stats["source"] == "search"
    assert choice.column_scores is None
    assert choice.move in range(7)


def test_6x5_plays_from_its_shipped_book() -> None:
    player = make_player("perfect", width=6, height=5)
    choice = player.choose(Position(6, 5))
    assert choice.stats["source"] == "book"
    assert choice.value == 0
    assert choice.column_scores is not None
    assert max(s for s in choice.column_scores if s is not None) == 0


def test_other_board_sizes_play_without_a_7x6_book() -> None:
    player = make_player("perfect", width=5, height=4)
    choice = player.choose(Position.from_moves("3", 5, 4))
    assert choice.proven is True
    assert choice.move in range(5)


def test_never_loses_as_red_and_every_move_is_optimal(referee: Referee) -> None:
    for seed in range(4):
        perfect = PerfectPlayer(seed=seed, seconds=SLOW)
        final = play_game(perfect, make_player("random", seed=seed), referee, 1)
        assert final.winner() == 1
    for seed, spec in enumerate(("alphabeta:depth=4", "alphabeta:depth=2", "alphabeta:depth=6")):
        perfect = PerfectPlayer(seed=None if seed == 0 else seed, seconds=SLOW)
        final = play_game(perfect, make_player(spec, seed=seed), referee, 1)
        assert final.winner() == 1


def test_as_yellow_it_beats_random(referee: Referee) -> None:
    perfect = PerfectPlayer(seed=5, seconds=SLOW)
    final = play_game(make_player("random", seed=5), perfect, referee, 2)
    assert final.winner() == 2


def test_random_tie_breaks_are_seeded() -> None:
    position = Position.from_moves("4455")  # columns 3 and 6 both win at once
    moves = {PerfectPlayer(seed=s).choose(position).move for s in range(12)}
    assert moves == {2, 5}
    assert PerfectPlayer().choose(position).move == 2  # centre-first
    again = [PerfectPlayer(seed=4).choose(position).move for _ in range(3)]
    assert len(set(again)) == 1


def test_levels_are_reproducible_and_weaker() -> None:
    scores: list[int | None] = [-3, -1, 0, 1, 0, -1, None]
    assert best_columns(scores) == [3]
    picks = {}
    for level in LEVELS:
        player = PerfectPlayer(level=level, seed=11)
        picks[level] = [player._pick(Position(), scores) for _ in range(400)]
        again = PerfectPlayer(level=level, seed=11)
        assert picks[level] == [again._pick(Position(), scores) for _ in range(400)]
    best_rate = {level: picks[level].count(3) / 400 for level in LEVELS}
    assert best_rate["perfect"] == 1.0
    assert best_rate["perfect"] > best_rate["hard"] > best_rate["medium"] > best_rate["easy"]
    assert all(6 not in p for p in picks.values())  # never a full column


def test_softmax_choice_favours_higher_scores() -> None:
    rng = random.Random(0)
    draws = [softmax_choice([0, 2, None], 1.0, rng) for _ in range(2000)]
    assert 2 not in draws
    assert 0.8 < draws.count(1) / 2000 < 0.95  # e^2 / (1 + e^2) = 0.88


@pytest.mark.slow
def test_many_games_never_lost_and_always_optimal(referee: Referee) -> None:
    for seed in range(20):
        for opponent in ("random", "alphabeta:depth=4"):
            perfect = PerfectPlayer(seed=seed, seconds=SLOW)
            final = play_game(perfect, make_player(opponent, seed=seed), referee, 1)
            assert final.winner() == 1


def test_play_command_perfect_against_a_human() -> None:
    from tests.cli_helpers import run_cli

    result = run_cli("play", "--red", "perfect", "--yellow", "human", stdin="4\nq\n")
    assert result.returncode == 0, result.stderr
    assert "red (perfect) plays 4" in result.stdout
    assert result.stdout.count("red (perfect) plays") == 2  # answered the human at once


def test_a_one_off_perfect_player_repeats_its_seeded_answer_and_holds_no_table() -> None:
    """A hint or a web request is a question of its own: a seeded beatable level gives
    the same answer each time it is asked (its random stream carried over before), and
    the player gives its table back after each move (a web server keeps players between
    requests: each held a 32 MB table while idle)."""
    from connect4.core.games import Board
    from connect4.players import PlayerContext, make_player

    position = Position.from_moves("6515717116472751")  # past the book: a search runs
    context = PlayerContext(Board(), one_off=True)
    asked = make_player("perfect:level=easy,seed=3", context)
    fresh = [make_player("perfect:level=easy,seed=3", context) for _ in range(8)]
    answers = [asked.choose(position).move for _ in range(8)]
    assert answers == [player.choose(position).move for player in fresh]
    assert len(set(answers)) == 1
    assert asked.engine.solver._mem is None  # type: ignore[attr-defined]
    kept = make_player("perfect:level=easy,seed=3", PlayerContext(Board()))
    kept.choose(position)
    assert kept.engine.solver._mem is not None  # type: ignore[attr-defined]
