"""``connect4 review``: grade every move of a game (a move string, or a game of an
arena results file) by exact scores.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from connect4.cli.common import Force, Json, board_option, fail, interruptible
from connect4.core.errors import clip

if TYPE_CHECKING:
    from connect4.core.limits import Limit
    from connect4.review.grading import Review


def review(
    moves: Annotated[
        str | None,
        typer.Argument(help='the game as a move string, e.g. "4455" (or --results)'),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(help="connect4 or tictactoe; with --results: the game's number in the file"),
    ] = None,
    results: Annotated[
        Path | None,
        typer.Option(help="an arena results file (JSONL): review its game --game N"),
    ] = None,
    width: Annotated[int | None, typer.Option(help="board width (connect4; default 7)")] = None,
    height: Annotated[int | None, typer.Option(help="board height (connect4; default 6)")] = None,
    rules: Annotated[
        str | None, typer.Option(help="standard (count-fours cannot be solved)")
    ] = None,
    max_nodes: Annotated[
        int,
        typer.Option(
            help="solver nodes per position (0 = no limit); a position past it is not proven",
            min=0,
        ),
    ] = 0,
    time_limit: Annotated[
        float,
        typer.Option(
            help="seconds for the whole review (0 = no limit); later positions are not proven",
            min=0,
        ),
    ] = 120.0,
    json_output: Json = False,
    plot: Annotated[
        str | None, typer.Option(help="write the evaluation graph (PNG) to this file")
    ] = None,
    force: Force = False,
) -> None:
    """Grade every move of a game by exact scores: best, good, mistake or blunder.

    The table gives each ply's verdict, the score kept and the best moves; a
    position the solver cannot settle within the budget is "not proven".

    ``--results FILE --game N`` reviews game N of an arena results file (the
    ``game`` field of its line): the board and rules come from the record, the
    players' specs head the review, and the arena's opening counts for nobody.
    Without ``--results``, ``--game`` is the kind of game (connect4, tictactoe).
    """
    import json

    from connect4.core.files import plot_target
    from connect4.core.limits import Limit
    from connect4.review.report import plot as write_plot, render_table, summary_lines

    # 0: no limit, for either; the node budget caps each position's solve
    limit = Limit.within(time_limit if time_limit > 0 else None, nodes=max_nodes or None)
    try:
        if plot is not None:
            # before the review: a plot that cannot be written (or exists) fails now
            plot_target(plot, force=force)
        if results is not None:
            if moves is not None:
                raise fail("give either MOVES or --results FILE --game N, not both")
            board = (("width", width), ("height", height), ("rules", rules))
            given = [f"--{name}" for name, value in board if value is not None]
            if given:
                raise fail(f"{', '.join(given)}: with --results the board comes from the record")
            result = _review_result_file(results, game, limit)
        else:
            if moves is None:
                raise fail("give the game's MOVES, or --results FILE --game N")
            result = _review_moves(
                moves,
                game=game,
                size=(7 if width is None else width, 6 if height is None else height),
                rules=rules or "standard",
                limit=limit,
            )
    except ValueError as error:
        raise fail(error) from None
    if plot is not None:
        try:
            write_plot(result, plot)
        except ValueError as error:
            raise fail(error) from None
    if json_output:
        typer.echo(json.dumps(result.as_dict()))
        return
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 120)
    console.print(render_table(result))
    for line in summary_lines(result):
        console.print(line)
    if plot is not None:
        console.print(f"plot written to {plot}")


def _is_game_number(text: str | None) -> bool:
    """Whether ``--game`` names a game of a results file (ASCII digits) rather than a kind."""
    return text is not None and text.isascii() and text.isdigit()


def _review_result_file(results: Path, game: str | None, limit: Limit) -> Review:
    """Review game ``--game N`` of an arena results file (its board and rules from the record)."""
    from connect4.arena import ArenaError, review_record
    from connect4.arena.store import read_game

    if not _is_game_number(game):
        got = "" if game is None else f", not {clip(game)!r}"
        raise fail(
            f"--results needs --game N, the number of a game in the file (e.g. --game 0){got}"
        )
    assert game is not None
    try:
        record = read_game(results, int(game))
    except ArenaError as error:
        raise fail(error) from None
    return interruptible(lambda limit: review_record(record, limit=limit), limit)


def _review_moves(
    moves: str,
    *,
    game: str | None,
    size: tuple[int, int],
    rules: str,
    limit: Limit,
) -> Review:
    """Review a game given as a move string."""
    from connect4.review import review as review_game

    if _is_game_number(game):
        raise fail(
            f"--game {game} picks a game of an arena results file: add --results FILE "
            "(without it, --game is connect4 or tictactoe)"
        )
    board = board_option(game or "connect4", size[0], size[1], rules)
    return interruptible(lambda limit: review_game(moves, board, limit=limit), limit)
