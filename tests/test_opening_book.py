"""The ``book=N`` key: the searching kinds play the opening book's best column for a
game's first N plies, checked against the solver searching without any book."""

from __future__ import annotations

import pytest

from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import best_columns
from connect4.core.tictactoe import TicTacToe
from connect4.players import PlayerSpecError, make_player
from connect4.players.base import PlayerContext
from connect4.players.opening import GAP_NODES, OpeningBook, _engine
from connect4.solver import Solver
from connect4.solver.bench import pons_path

SEARCHERS = ("minimax:depth=1", "alphabeta:depth=1", "mcts:playouts=50", "net:temperature=0")


def opening_positions(count: int) -> list[Position]:
    """Positions of Pons' Begin-Medium set of 7-11 stones: their children in the book
    (of up to 8 stones, or of 12) or between its stored plies (9-11 stones)."""
    lines = pons_path("Begin-Medium").read_text().split("\n")
    moves = [line.split()[0] for line in lines if line and 7 <= len(line.split()[0]) < 12]
    return [Position.from_moves(m) for m in moves[:count]]


@pytest.mark.parametrize("spec", SEARCHERS)
def test_the_book_plays_a_best_scored_column_by_the_bookless_solver(spec: str) -> None:
    solver = Solver(7, 6, 16, book=None)
    player = make_player(f"{spec},book=12")
    for position in opening_positions(6):
        exact = solver.analyze(position)
        choice = player.choose(position)
        assert choice.stats["source"] == "book", position.moves
        assert choice.column_scores == exact, position.moves
        assert choice.move in best_columns(exact) and choice.proven is True


@pytest.mark.parametrize("spec", SEARCHERS)
def test_past_its_plies_the_player_searches_as_without_a_book(spec: str) -> None:
    position = Position.from_moves("4453")
    with_book = make_player(f"{spec},book=4").choose(position)
    without = make_player(spec).choose(position)
    assert "source" not in with_book.stats
    assert (with_book.move, with_book.stats["engine"]) == (without.move, without.stats["engine"])
    assert make_player(f"{spec},book=5").choose(position).stats["source"] == "book"


def test_no_book_where_none_ships_or_the_rules_differ() -> None:
    wide = Board("connect4", 8, 7)
    player = make_player("alphabeta:depth=2,book=12", PlayerContext(wide))
    assert "source" not in player.choose(wide.new("44")).stats  # no 8x7 book ships
    counting = Board("connect4", 7, 6, "count-fours")
    player = make_player("alphabeta:depth=2,book=12", PlayerContext(counting))
    assert "source" not in player.choose(counting.new("44")).stats
    player = make_player("alphabeta:level=hard", game="tictactoe")
    assert player.choose(TicTacToe()).stats["depth"] == 9  # the tic-tac-toe level: no book
    small = Board("connect4", 6, 5)
    player = make_player("alphabeta:depth=2,book=12", PlayerContext(small))
    assert player.choose(small.new("33")).stats["source"] == "book"  # 6x5's own 8-ply book
    assert "source" not in player.choose(small.new("33221166")).stats  # past its depth


def test_a_game_mixes_book_and_search_moves() -> None:
    """MCTS keeps its tree across the moves the book played in between."""
    players = [make_player("mcts:level=hard"), make_player("mcts:playouts=200,seed=3")]
    game = Position()
    sources = []
    while not game.is_over():
        choice = players[game.ply % 2].choose(game)
        if game.ply % 2 == 0:
            sources.append(choice.stats.get("source", "search"))
        game.play(choice.move)
    assert sources[:7] == ["book"] * 6 + ["search"]  # plies 0-10 from the book, 12 not
    assert game.winner() != 2  # the hard player, red, never loses from the book's opening


def test_between_the_stored_plies_the_solver_searches_within_the_callers_limit() -> None:
    book = OpeningBook(12, Board())
    position = Position.from_moves("2416615552")  # 10 stones: the book stores 8 and 12
    choice = book.choose(position)
    assert choice is not None and 0 < choice.stats["nodes"] <= GAP_NODES
    assert choice.column_scores == [-4, -3, -3, -2, -4, 4, 3]  # the bookless solver's, above
    fresh = Position.from_moves("2416615553")  # not in the solver's table yet
    assert book.choose(fresh, Limit(nodes=5)) is None  # stopped: the player's search decides


def test_the_book_key_is_checked() -> None:
    for spec in ("alphabeta:book=43", "mcts:book=-1", "net:book=x"):
        with pytest.raises(PlayerSpecError, match="book"):
            make_player(spec)
    with pytest.raises(PlayerSpecError, match="tic-tac-toe has no opening book"):
        make_player("mcts:book=4", game="tictactoe")


def test_warm_up_loads_the_book_and_makes_its_solver() -> None:
    player = make_player("alphabeta:depth=2,book=12")
    opening = player.opening  # type: ignore[attr-defined]
    assert isinstance(opening, OpeningBook) and opening.plies == 12
    _engine.cache_clear()  # as in a fresh process: nothing loaded
    player.warm_up()
    assert _engine.cache_info().currsize == 1  # the 7x6 book, loaded once
    engine = _engine(7, 6)
    assert engine is not None and engine._solver is not None  # made before any move
