"""``connect4 explore``: the opening explorer -- every move from a position with its
exact score, the games of a collection that played it, and the best line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from connect4.cli.common import (
    Game,
    Height,
    Json,
    Moves,
    Rules,
    Width,
    board_option,
    fail,
    interruptible,
)

if TYPE_CHECKING:
    from connect4.learn.collection import CollectedFile
    from connect4.learn.explorer import Exploration


def explore(
    moves: Moves = "",
    games: Annotated[
        list[Path] | None,
        typer.Option(
            "--games",
            help="a game collection: arena or lab results (JSONL, or a lab's folder) or a "
            "file of move strings, one a line; repeat for more",
        ),
    ] = None,
    game: Game = "connect4",
    width: Width = 7,
    height: Height = 6,
    rules: Rules = "standard",
    time_limit: Annotated[
        float,
        typer.Option(
            help="seconds for the scores and the line (0 = no limit); a position past the "
            "opening book is searched within them",
            min=0,
        ),
    ] = 60.0,
    json_output: Json = False,
) -> None:
    """Every legal move of a position with its exact score, how often it was played, and
    the best line: an opening explorer that knows the answers.

    Scores are Pons' (positive: the mover wins, larger sooner; 0 a draw; negative a
    loss), from the side to move's point of view. With ``--games`` each move shows
    how many games of the collection played it from this position (reached by any
    order of moves), its share, and how those games ended for the mover (won, drawn,
    lost; a game that stopped early, a forfeit, has no result on the board).
    Without it nothing is counted.
    """
    import json
    from dataclasses import asdict

    from connect4.core.limits import Limit
    from connect4.learn.collection import count_games_files
    from connect4.learn.explorer import explore as explore_position

    board = board_option(game, width, height, rules)
    try:
        position = board.new(moves)
        index, files = count_games_files(games or [], board)
        limit = Limit.within(time_limit if time_limit > 0 else None)
        found = interruptible(
            lambda limit: explore_position(position, index=index, limit=limit), limit
        )
    except ValueError as error:  # a stop (the time limit) is the command line's one policy
        raise fail(error) from None
    if json_output:
        typer.echo(json.dumps({**found.as_dict(), "collection": [asdict(f) for f in files]}))
        return
    for line in _text(found, files):
        typer.echo(line)


def _text(found: Exploration, files: list[CollectedFile]) -> list[str]:
    """The table and the lines around it, for people."""
    from connect4.core.score import score_label

    size = found.board.width * found.board.height
    name = "cell" if found.board.kind == "tictactoe" else "column"
    side = ("red", "yellow")[found.to_move - 1]
    lines = [
        f"position {found.position or '(empty board)'}: {side} to move, "
        f"{score_label(found.score, found.ply, size)} (score {found.score})"
    ]
    for collected in files:
        other = f", {collected.other_boards} of other boards passed over"
        lines.append(
            f"games: {collected.path} ({collected.format}): {collected.games} counted"
            + (other if collected.other_boards else "")
        )
    best = set(found.best())
    header = f"{name:>6}  {'score':<18} {'games':>6} {'share':>6}  won/drawn/lost"
    lines.append(header)
    for move in found.moves:
        number = f"{move.score:+d}" if move.score else "0"
        label = f"{score_label(move.score, found.ply, size)} ({number})"
        share = f"{100 * move.games / found.games:5.1f}%" if found.games else "     -"
        results = f"{move.wins}/{move.draws}/{move.losses}" if move.games else "-"
        mark = "*" if move.move in best else " "
        lines.append(f"{move.move + 1:>5}{mark}  {label:<18} {move.games:>6} {share:>6}  {results}")
    ending = "" if found.line_complete else " (cut short by the time limit)"
    lines.append(f"best line: {found.line_text() or '-'}{ending}  (* best moves)")
    return lines
