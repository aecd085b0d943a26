"""``connect4 arena``: options in, a tournament run (or resumed), tables or JSON out.

The tournament itself is :func:`connect4.arena.run_tournament` on an
:class:`~connect4.arena.ArenaConfig`; this module turns the flags into that
config, shows the progress bar, prints the tables and maps bad input to
``error: ...`` (exit 2) and Ctrl-C to one ``interrupted`` line (exit 130).
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, BinaryIO

import typer

from connect4.cli.common import (
    Force,
    Game,
    Height,
    Json,
    Resume,
    Rules,
    Scheduler,
    Seed,
    Width,
    Workers,
    board_option,
    fail,
    keeping,
    kept_in,
)

if TYPE_CHECKING:
    from connect4.arena import ArenaConfig, TournamentRun


def arena(
    players: Annotated[
        list[str] | None,
        typer.Option("--players", "-p", help="player specs (quote specs with spaces)"),
    ] = None,
    more: Annotated[
        list[str] | None,
        typer.Argument(help="more player specs", show_default=False, metavar="SPEC"),
    ] = None,
    gauntlet: Annotated[
        str | None, typer.Option(help="play this spec against each of --players only")
    ] = None,
    games_per_pair: Annotated[
        int, typer.Option(help="games per pair (both colours of each opening)", min=1)
    ] = 2,
    openings: Annotated[
        str, typer.Option(help="plies=K (every position after K plies) or a file of move strings")
    ] = "plies=2",
    time_per_move: Annotated[
        float | None, typer.Option(help="seconds per move; slower players forfeit")
    ] = None,
    max_move_seconds: Annotated[
        float,
        typer.Option(help="without --time-per-move: a bot silent this long on a move forfeits"),
    ] = 60.0,
    results: Annotated[
        Path | None, typer.Option(help="append each finished game to this JSONL file")
    ] = None,
    resume: Resume = False,
    force: Force = False,
    workers: Workers = 1,
    scheduler: Scheduler = None,
    seed: Seed = 0,
    json_output: Json = False,
    csv: Annotated[Path | None, typer.Option(help="write the standings as CSV")] = None,
    game: Game = "connect4",
    width: Width = 7,
    height: Height = 6,
    rules: Rules = "standard",
    review: Annotated[
        bool,
        typer.Option(
            "--review", help="review every game: accuracy, mistakes and blunders per game"
        ),
    ] = False,
    accuracy_nodes: Annotated[
        int, typer.Option(help="with --review: solver node budget per position", min=0)
    ] = 200_000,
) -> None:
    """AI-vs-AI tournament: round robin (or gauntlet), ratings, review, resumable results.

    With ``--review`` every finished game is graded by the game review (as
    ``connect4 review``); review one game with ``connect4 review --results FILE --game N``.
    An existing ``--results`` or ``--csv`` file is refused unless ``--force`` (replace
    it) or, for the results, ``--resume`` (continue it: it must be a results file).
    """
    from connect4.arena import ArenaConfig
    from connect4.core.errors import Connect4Error

    if resume and results is None:
        raise fail("--resume needs --results FILE")
    check_outputs(results, csv, resume=resume, force=force)
    if review and accuracy_nodes <= 0:
        raise fail("--review needs a positive --accuracy-nodes (the solver's budget)")
    base = ArenaConfig(
        players=(*(players or []), *(more or [])),
        gauntlet=gauntlet,
        games_per_pair=games_per_pair,
        time_per_move=time_per_move,
        max_move_seconds=max_move_seconds,
        board=board_option(game, width, height, rules),
        seed=seed,
        accuracy_nodes=accuracy_nodes if review else 0,
    )
    try:
        config = with_openings(base, openings)
        run = play_tournament(config, results, resume, force, workers, scheduler)
    except (Connect4Error, OSError) as error:  # the arena's, a Dask scheduler's
        raise fail(error) from None
    print_run(run, results, json_output, csv)


def check_outputs(
    results: Path | None, csv: Path | None, *, resume: bool = False, force: bool = False
) -> None:
    """Before any game: a results file or CSV that cannot be written, or that exists
    without ``--force`` (or, for the results, ``--resume`` onto a results file), fails now."""
    from connect4.arena.store import check_results_file
    from connect4.core.files import FileError, check_output

    try:
        if csv is not None:  # a resumed run rewrites its own standings
            ours = is_standings_csv if resume else None
            check_output(csv, what="standings CSV", force=force, resume=resume, ours=ours)
        if results is not None:
            check_results_file(results, resume=resume, force=force)
    except FileError as error:
        raise fail(error) from None


def is_standings_csv(file: BinaryIO) -> str | None:
    """``None`` when the file starts with the header of the arena's standings CSV."""
    from connect4.arena.report import CSV_FIELDS

    header = ",".join(CSV_FIELDS).encode()
    if file.readline(len(header) + 2).rstrip(b"\r\n") == header:
        return None
    return "its first line is not the header of the arena's standings"


def with_openings(base: ArenaConfig, openings: str) -> ArenaConfig:
    """``base`` with the openings ``--openings`` names, once its board is known good."""
    from connect4.arena import ArenaError, load_openings
    from connect4.arena.schedule import start_position

    try:
        start_position(base)
    except ValueError as error:
        raise ArenaError(str(error)) from None
    return replace(base, openings=load_openings(openings, base))


def play_tournament(
    config: ArenaConfig,
    results: Path | None,
    resume: bool,
    force: bool,
    workers: int,
    scheduler: str | None,
) -> TournamentRun:
    """Run the tournament under a progress bar; Ctrl-C exits 130 with one line (the
    finished games stay in ``results``, each line whole, for ``--resume``)."""
    from rich.console import Console

    from connect4.arena import run_tournament
    from connect4.core.progress import progress_callback

    err = Console(stderr=True, highlight=False)
    kept = kept_in(results, "finished games are")
    with keeping(kept), progress_callback(err, "games", "games") as progress:
        return run_tournament(
            config,
            results,
            resume=resume,
            force=force,
            workers=workers,
            scheduler=scheduler,
            progress=progress,
        )


def print_run(
    run: TournamentRun, results: Path | None, json_output: bool, csv: Path | None
) -> None:
    """The notes on a repaired results file, then the standings (tables, JSON, CSV)."""
    from rich.console import Console

    from connect4.arena import render_summary, summarize, write_csv

    err = Console(stderr=True, highlight=False)
    if run.repaired:
        err.print(
            f"note: cut a torn last line ({run.repaired} bytes) from {results}", soft_wrap=True
        )
    if run.skipped:
        err.print(f"note: ignored {run.skipped} unreadable line(s) in {results}", soft_wrap=True)
    if run.damaged:
        err.print(
            f"note: {run.damaged} damaged journal record(s) dropped, their games played again",
            soft_wrap=True,
        )
    summary = summarize(run.config, run.records)
    if csv is not None:
        try:
            write_csv(summary, csv)
        except OSError as error:
            raise fail(f"cannot write {csv}: {error.strerror or error}") from None
    if json_output:
        sys.stdout.write(json.dumps(summary.to_json(), indent=2) + "\n")
        return
    out = Console(highlight=False)  # COLUMNS, else the terminal's width, else 80
    for table in render_summary(summary, width=out.width, full="--json"):
        out.print(table)
