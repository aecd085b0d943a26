"""``connect4 arena``: options in, a tournament run (or resumed), tables or JSON out.

The command-line layer only parses options and maps :class:`ArenaError` to
``error: ...``; everything between is here, callable from Python::

    arena_main(players=["random", "random:seed=1"], game="tictactoe", json_output=True)
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from connect4.arena.play import run_tournament
from connect4.arena.report import lazy_progress_bar, render_summary, write_csv
from connect4.arena.schedule import ArenaConfig, ArenaError, load_openings, start_position
from connect4.arena.summary import summarize
from connect4.players.external import MAX_MOVE_SECONDS


def arena_main(
    *,
    players: list[str],
    gauntlet: str | None = None,
    games_per_pair: int = 2,
    openings: str = "plies=2",
    time_per_move: float | None = None,
    max_move_seconds: float = MAX_MOVE_SECONDS,
    results: Path | None = None,
    resume: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
    seed: int = 0,
    json_output: bool = False,
    csv_path: Path | None = None,
    game: str = "connect4",
    width: int = 7,
    height: int = 6,
    rules: str = "standard",
    review: bool = False,
    accuracy_nodes: int = 200_000,
) -> int:
    """``connect4 arena``: run (or resume) a tournament and print its tables; the exit code.

    With ``review`` every finished game is graded by the game review, within
    ``accuracy_nodes`` solver nodes per position: the standings gain each
    player's accuracy, mistakes and blunders per game.

    Raises :class:`ArenaError` for bad input (the CLI prints it as ``error: ...``).
    """
    from rich.console import Console

    if resume and results is None:
        raise ArenaError("--resume needs --results FILE")
    if review and accuracy_nodes <= 0:
        raise ArenaError("--review needs a positive --accuracy-nodes (the solver's budget)")
    base = ArenaConfig(
        players=tuple(players),
        gauntlet=gauntlet,
        games_per_pair=games_per_pair,
        time_per_move=time_per_move,
        max_move_seconds=max_move_seconds,
        game=game,
        width=width,
        height=height,
        rules=rules,
        seed=seed,
        accuracy_nodes=accuracy_nodes if review else 0,
    )
    try:
        start_position(base)
    except ValueError as error:
        raise ArenaError(str(error)) from None
    config = replace(base, openings=load_openings(openings, base))
    err = Console(stderr=True, highlight=False)
    out = Console(highlight=False)  # COLUMNS, else the terminal's width, else 80
    try:
        with lazy_progress_bar(err, "games") as progress:
            run = run_tournament(
                config,
                results,
                resume=resume,
                workers=workers,
                scheduler=scheduler,
                progress=progress,
            )
    except KeyboardInterrupt:
        where = f"; finished games are in {results}, continue with --resume" if results else ""
        err.print(f"interrupted{where}", soft_wrap=True)
        return 130
    if run.repaired:
        note = f"note: cut a torn last line ({run.repaired} bytes) from {results}"
        err.print(note, soft_wrap=True)
    if run.skipped:
        note = f"note: ignored {run.skipped} unreadable line(s) in {results}"
        err.print(note, soft_wrap=True)
    summary = summarize(config, run.records)
    if csv_path is not None:
        write_csv(summary, csv_path)
    if json_output:
        sys.stdout.write(json.dumps(summary.to_json(), indent=2) + "\n")
    else:
        for table in render_summary(summary, width=out.width):
            out.print(table)
    return 0
