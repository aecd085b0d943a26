"""``connect4 threats``: the threat map of a position -- each side's threats drawn on
the board, and why the position stands as it does.
"""

from __future__ import annotations

from typing import Annotated

import typer

from connect4.cli.common import Height, Json, Moves, Rules, Width, board_option, fail, interruptible


def threats(
    moves: Moves = "",
    width: Width = 7,
    height: Height = 6,
    rules: Rules = "standard",
    time_limit: Annotated[
        float,
        typer.Option(
            help="seconds for the solver's line where no simple rule explains the position "
            "(0 = no limit)",
            min=0,
        ),
    ] = 10.0,
    json_output: Json = False,
) -> None:
    """Each side's threats -- empty cells that would complete a four -- drawn on the
    board, with their row's parity (red wants odd rows, yellow even ones, counted from
    1 at the bottom), whether they are playable now, and whether they are dead (the
    game must end below them); then the simple rule that explains the verdict (a four
    now, a double threat, zugzwang, a forced block, red's odd threat, yellow's
    claimeven), or the solver's line where none does.

    ``--json`` prints the map and the explanation (``null`` where no rule applies)
    without asking the solver.
    """
    import json

    from connect4.core.limits import Limit
    from connect4.learn.threats import explain, threat_map

    board = board_option("connect4", width, height, rules)
    try:
        position = board.new(moves)
        found = threat_map(position)
        if json_output:
            why = explain(position)
            typer.echo(
                json.dumps(
                    {
                        **found.as_dict(),
                        "explanation": None if why is None else why.sentence,
                        "rule": None if why is None else why.as_dict(),
                    }
                )
            )
            return
        from rich.console import Console

        from connect4.terminal.threats import threat_report

        limit = Limit.within(time_limit if time_limit > 0 else None)
        report = interruptible(lambda limit: threat_report(position, limit), limit)
    except ValueError as error:
        raise fail(error) from None
    Console(highlight=False).print(report, end="")
