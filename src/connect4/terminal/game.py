"""One game in a terminal, from the first board to its closing lines: who won (or the
forfeit), and the game review's summary of a finished game."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from rich.console import Console

from connect4.core.game import Game
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.players import Player
from connect4.players.match import GameRecord, play_match
from connect4.terminal.show import moves_text, render_board, result_line
from connect4.terminal.turns import LineReader, TerminalTurns

if TYPE_CHECKING:
    from connect4.review import Review

PLAYER_NAMES = {"connect4": ("red", "yellow"), "tictactoe": ("X", "O")}


def play_game(
    game: Game,
    red: Player,
    yellow: Player,
    *,
    game_name: str = "connect4",
    console: Console | None = None,
    stdin: TextIO | None = None,
    hint_spec: str | None = None,
    show_board: bool = True,
) -> GameRecord:
    """Play one game to its end (or until the humans quit) and return its record: the
    one game loop with the terminal's turns (:class:`TerminalTurns`)."""
    console = console or Console()
    names = PLAYER_NAMES.get(game_name, ("red", "yellow"))
    turns = TerminalTurns(
        (red, yellow),
        names,
        console,
        LineReader(stdin or sys.stdin, console),
        game_name=game_name,
        hint_spec=hint_spec,
        show_board=show_board,
    )
    if show_board:
        console.print(render_board(game))
    record = play_match(game, (red, yellow), ask=turns.ask, after=turns.shown)
    if record.forfeit is not None:
        winner = names[3 - record.forfeit - 1].capitalize()
        console.print(
            f"[bold]{winner} wins by forfeit[/] after {moves_text(game.ply)}: {game.moves}"
        )
    elif record.finished:
        console.print(result_line(game, names))
    return record


REVIEW_SECONDS = 10.0  # the end-of-game review's time limit; later positions are not proven


def game_review(moves: str, board: Board, time_limit: float = REVIEW_SECONDS) -> Review | None:
    """The review of a finished game within ``time_limit`` seconds (later positions not
    proven); ``None`` for count-fours, which the solver cannot judge."""
    from connect4.review import ReviewError, review

    try:
        return review(moves, board, limit=Limit.within(time_limit))
    except ReviewError:
        return None


def review_summary(moves: str, board: Board, time_limit: float = REVIEW_SECONDS) -> list[str]:
    """The game review's summary of a finished game (``[]`` for count-fours: not solvable).

    >>> for line in review_summary("51238", Board("tictactoe")):
    ...     print(line)
    Game review:
    X: accuracy 100.0 % (3 of 3 moves best), 0 good, 0 mistakes, 0 blunders
    O: accuracy 50.0 % (1 of 2 moves best), 0 good, 1 mistake, 0 blunders
    decided at ply 4 (O plays 3, mistake)
    every move: connect4 review 51238 --game tictactoe
    """
    result = game_review(moves, board, time_limit)
    return [] if result is None else summary_of(result)


def summary_of(result: Review) -> list[str]:
    """What the end of a game says of its review: the summary lines and the command
    that shows every move."""
    from connect4.review.report import summary_lines

    board, moves = result.board, result.moves
    command = f"connect4 review {moves or chr(34) * 2}"
    if board.kind == "tictactoe":
        command += " --game tictactoe"
    elif (board.width, board.height) != (7, 6):
        command += f" --width {board.width} --height {board.height}"
    return ["Game review:", *summary_lines(result), f"every move: {command}"]
