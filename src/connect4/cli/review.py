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
    from rich.console import Console

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
    practice: Annotated[
        bool,
        typer.Option(
            "--practice",
            help="then practise the mistakes, blunders and missed wins: answers one per "
            "line from stdin when it is not a terminal; with --json: the exercises as "
            "JSON, nothing asked",
        ),
    ] = False,
    side: Annotated[
        str | None,
        typer.Option(help="with --practice: whose moves, red, yellow (X, O) or both"),
    ] = None,
) -> None:
    """Grade every move of a game by exact scores: best, good, mistake or blunder.

    The table gives each ply's verdict, the score kept and the best moves; a
    position the solver cannot settle within the budget is "not proven".

    ``--practice`` then asks, for each of the reviewed side's mistakes, blunders
    and missed wins, a better move in the position before it: a column (a cell),
    ``h`` or ``?`` for the solver's answer and its line, ``s`` to skip, ``q`` to
    stop; any move that keeps the best outcome is right. A summary ends it.

    ``--results FILE --game N`` reviews game N of an arena results file (the
    ``game`` field of its line): the board and rules come from the record, the
    players' specs head the review, and the arena's opening counts for nobody.
    Without ``--results``, ``--game`` is the kind of game (connect4, tictactoe).
    """
    from connect4.core.files import plot_target
    from connect4.core.limits import Limit
    from connect4.review.report import plot as write_plot

    # 0: no limit, for either; the node budget caps each position's solve
    limit = Limit.within(time_limit if time_limit > 0 else None, nodes=max_nodes or None)
    try:
        _check_side(side, practice)  # a bad side fails before the review
        if plot is not None:
            # before the review: a plot that cannot be written (or exists) fails now
            plot_target(plot, force=force)
        result = _review_game(moves, results, game, (width, height, rules), limit)
    except ValueError as error:
        raise fail(error) from None
    if plot is not None:
        try:
            write_plot(result, plot)
        except ValueError as error:
            raise fail(error) from None
    _report(result, json_output=json_output, practice=practice, side=side, plot=plot)


def _report(
    result: Review, *, json_output: bool, practice: bool, side: str | None, plot: str | None
) -> None:
    """Print a finished review (the table and summary, or JSON), then its practice."""
    import json

    from connect4.review.report import render_table, summary_lines

    if json_output and practice:
        typer.echo(json.dumps(_exercises_json(result, side)))
        return
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
    if practice:
        _practise(result, side, console)


def _check_side(side: str | None, practice: bool) -> None:
    """``--side`` goes with ``--practice`` and names a side."""
    if side is None:
        return
    if not practice:
        raise fail("--side picks whose moves --practice asks about: add --practice")
    from connect4.learn.practice import parse_sides

    parse_sides(None, side)


def _review_game(
    moves: str | None,
    results: Path | None,
    game: str | None,
    board: tuple[int | None, int | None, str | None],
    limit: Limit,
) -> Review:
    """The review of the game the command line names: ``MOVES`` (on the board options'
    board) or ``--results FILE --game N`` (the record's board)."""
    width, height, rules = board
    if results is not None:
        if moves is not None:
            raise fail("give either MOVES or --results FILE --game N, not both")
        options = (("width", width), ("height", height), ("rules", rules))
        given = [f"--{name}" for name, value in options if value is not None]
        if given:
            raise fail(f"{', '.join(given)}: with --results the board comes from the record")
        return _review_result_file(results, game, limit)
    if moves is None:
        raise fail("give the game's MOVES, or --results FILE --game N")
    return _review_moves(
        moves,
        game=game,
        size=(7 if width is None else width, 6 if height is None else height),
        rules=rules or "standard",
        limit=limit,
    )


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


def _exercises_json(result: Review, side: str | None) -> dict[str, object]:
    """``--practice --json``: the exercises of the reviewed side(s), nothing asked."""
    from connect4.learn.practice import exercises

    sides = _sides(result, side)
    return {
        "game": result.board.kind,
        "width": result.board.width,
        "height": result.board.height,
        "moves": result.moves,
        "sides": list(sides),
        "exercises": [exercise.as_dict() for exercise in exercises(result, sides)],
    }


def _practise(result: Review, side: str | None, console: Console) -> None:
    """``--practice``: the exercises asked one by one, answers from stdin."""
    import sys

    from connect4.core.files import LineTooLongError
    from connect4.learn.practice import Practice
    from connect4.terminal.practice import practise
    from connect4.terminal.turns import LineReader

    sides = _sides(result, side)
    console.print()
    try:
        practise(Practice.of(result, sides), console, LineReader(sys.stdin, console))
    except LineTooLongError as error:  # a flood on stdin: refused before it fills memory
        raise fail(f"{error}: the rest of the input is not read", 1) from None


def _sides(result: Review, side: str | None) -> tuple[int, ...]:
    """The players ``--side`` names in the reviewed game (default both)."""
    from connect4.learn.practice import parse_sides

    try:
        return parse_sides(result.board.kind, side or "both")
    except ValueError as error:
        raise fail(error) from None
