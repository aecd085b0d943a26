"""Player specs: parsing, errors listing the valid choices, reproducible random play."""

from __future__ import annotations

import pytest

from connect4 import Position, TicTacToe
from connect4.players import (
    KINDS,
    PlayerSpecError,
    describe_players,
    find_kind,
    make_player,
)
from connect4.players.options import SEED_MAX


def test_unknown_kind_lists_the_known_ones() -> None:
    with pytest.raises(PlayerSpecError) as raised:
        make_player("genius")
    message = str(raised.value)
    assert message.startswith("unknown player 'genius': choose one of ")
    for kind in ("human", "random"):
        assert kind in message


def test_unknown_key_lists_valid_keys() -> None:
    expected = r"random: unknown key 'speed' \(random takes: seed\)"
    with pytest.raises(PlayerSpecError, match=expected):
        make_player("random:speed=3")


def test_bad_value_says_what_is_allowed() -> None:
    with pytest.raises(PlayerSpecError, match="random: seed='x' must be an integer"):
        make_player("random:seed=x")
    with pytest.raises(PlayerSpecError, match="seed needs a value"):
        make_player("random:seed")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("alphabeta:depth=\u0663", r"alphabeta: depth='\u0663' must be an integer 1-"),  # Arabic 3
        ("alphabeta:depth=\uff13", r"must be an integer"),  # a full-width 3
        ("alphabeta:depth=+3", r"must be an integer"),
        ("alphabeta:depth=1_0", r"must be an integer"),
        ("alphabeta:schedule=4/\u0665/6", r"must be depths 1-42"),  # an Arabic 5 in a schedule
        ("mcts:c=\u0661.5", r"mcts: c='\u0661.5' must be a number"),
        ("mcts:c=inf", r"must be a number"),
        ("mcts:c=1_0", r"must be a number"),
        ("alphabeta:depth=4,depth=5", r"alphabeta: depth given twice"),
        ("alphabeta:depth=4,DEPTH=4", r"alphabeta: depth given twice"),
        ("random:seed=-1", r"random: seed='-1' must be an integer 0-4294967295"),
        ("random:seed=4294967296", r"must be an integer 0-4294967295"),
        ("mcts:seed=9223372036854775807", r"must be an integer 0-4294967295"),
        ("perfect:seed=4294967296", r"must be an integer 0-4294967295"),
    ],
)
def test_option_values_are_ascii_given_once_and_in_range(spec: str, message: str) -> None:
    with pytest.raises(PlayerSpecError, match=message):
        make_player(spec)


def test_the_documented_seed_range_and_decimals_are_accepted() -> None:
    player = make_player(f"random:seed={SEED_MAX}")
    assert player.choose(Position()).move in range(7)
    assert make_player("mcts:c=.5,playouts=10,seed=0").choose(Position()).move in range(7)
    assert make_player("alphabeta:depth=2").choose(Position()).move == 3


def test_find_kind_lists_only_the_allowed_kinds() -> None:
    assert find_kind("random", ["random"]).name == "random"
    with pytest.raises(PlayerSpecError, match=r"unknown player 'cmd': choose one of perfect, ran"):
        find_kind("cmd", ["random", "perfect", "nonexistent"])


def test_random_player_is_reproducible() -> None:
    def game_with(seed: int) -> str:
        position = Position()
        red, yellow = make_player("random", seed=seed), make_player("random", seed=seed + 1)
        while not position.is_over():
            mover = red if position.to_move == 1 else yellow
            position.play(mover.choose(position).move)
        return position.moves

    assert game_with(5) == game_with(5)
    assert game_with(5) != game_with(6)


def test_make_player_takes_a_context_or_the_keywords_not_both() -> None:
    from connect4.core.games import Board
    from connect4.players import PlayerContext

    built = make_player("random", PlayerContext(Board("tictactoe"), seed=4))
    assert (
        built.choose(TicTacToe()).move
        == make_player("random", game="tictactoe", seed=4).choose(TicTacToe()).move
    )
    with pytest.raises(TypeError, match="a context or the board's keywords, not both"):
        make_player("random", PlayerContext(), seed=4)  # the seed would be ignored


def test_random_player_plays_tictactoe() -> None:
    game = TicTacToe()
    player = make_player("random:seed=2", game="tictactoe")
    while not game.is_over():
        game.play(player.choose(game).move)
    assert game.ply >= 5


def test_human_player_is_driven_by_the_interface() -> None:
    human = make_player("human")
    assert human.is_human
    with pytest.raises(PlayerSpecError):
        human.choose(Position())


def test_describe_players_lists_every_kind() -> None:
    described = {entry["kind"]: entry for entry in describe_players()}
    assert set(described) == set(KINDS)
    assert "seed" in described["random"]["options"]


def test_rehearse_warms_a_spec_up_once_per_process_and_skips_untimed_kinds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from connect4.players import MoveChoice, PlayerContext, PlayerKind, rehearse

    events: list[str] = []

    class Counting:
        spec = "counting"
        is_human = False

        def warm_up(self) -> None:
            events.append("warm_up")

        def choose(self, game: object, limit: object = None) -> MoveChoice:
            events.append("choose")
            return MoveChoice(move=0)

        def close(self) -> None:
            events.append("close")

    def build(spec: str, options: dict[str, object], context: PlayerContext) -> Counting:
        events.append("build")
        return Counting()

    for name, timed in (("counting", True), ("untimed", False)):
        kind = PlayerKind(name, "test kind", {}, build, rehearse=timed)
        monkeypatch.setitem(KINDS, name, kind)
    board = Position.from_moves("44")
    context = PlayerContext()
    rehearse("counting", board, context)
    rehearse("counting", board, context)  # once per process and spec
    rehearse("untimed", board, context)
    rehearse("no-such-kind", board, context)  # left for make_player to report
    assert events == ["build", "warm_up", "choose", "close"]
    assert board.moves == "44"  # the rehearsal played on a copy


def test_prepare_compiles_once_and_says_so() -> None:
    from tests.cli_helpers import run_cli

    result = run_cli("prepare")
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "compiling" not in line]
    assert [line.split(" (")[0] for line in lines] == [
        "preparing the perfect solver's kernel...",
        "the perfect solver's kernel: ready",
        "preparing the solver's kernel for boards other than 7x6...",
        "the solver's kernel for boards other than 7x6: ready",
        "preparing the compiled classic search...",
        "the compiled classic search: ready",
        "preparing the compiled Monte Carlo tree search...",
        "the compiled Monte Carlo tree search: ready",
        "preparing the vectorised environment's compiled loop...",
        "the vectorised environment's compiled loop: ready",
        *[
            line
            for size in ("8x8", "9x7", "10x6")  # the browser app's boards over 64 bits
            for line in (
                f"preparing the solver's kernel for {size} boards...",
                f"the solver's kernel for {size} boards: ready",
            )
        ],
    ]
    from connect4.solver import wide

    assert all(wide.is_cached(w, h) for w, h in ((8, 8), (9, 7), (10, 6)))
