"""``connect4 dataset``: random positions labelled by the solver, written as .npz."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from connect4.cli.common import (
    MAX_POSITIONS,
    AllCoresWorkers,
    Height,
    Json,
    Scheduler,
    Seed,
    Width,
    damaged_note,
    fail,
    run_job,
)


def dataset(
    positions: Annotated[
        int, typer.Option(help="how many distinct positions", min=1, max=MAX_POSITIONS)
    ],
    out: Annotated[Path, typer.Option(help="the .npz file to write")],
    plies: Annotated[
        str | None,
        typer.Option(help="stones per position, a range such as 0-30 (default: every ply)"),
    ] = None,
    seed: Seed = 0,
    width: Width = 7,
    height: Height = 6,
    rules: Annotated[str, typer.Option(help="standard (the solver's only rules)")] = "standard",
    book: Annotated[
        str, typer.Option(help="book probed inside the searches: default, none, FILE")
    ] = "default",
    workers: AllCoresWorkers = None,
    scheduler: Scheduler = None,
    resume: Annotated[bool, typer.Option(help="continue an interrupted run (OUT.partial)")] = False,
    chunk: Annotated[
        int | None,
        typer.Option(help="positions per task (default: up to 64, 4+ tasks per worker)", min=1),
    ] = None,
    json_output: Json = False,
) -> None:
    """Random positions labelled by the solver: every column's exact score, for training."""
    import json

    try:
        from connect4.envs.dataset import dataset_command
    except ImportError as error:
        raise fail(str(error)) from None

    summary = run_job(
        lambda: dataset_command(
            positions,
            plies,
            out,
            width=width,
            height=height,
            rules=rules,
            seed=seed,
            book=book,
            workers=workers,
            scheduler=scheduler,
            resume=resume,
            chunk=chunk,
            json_output=json_output,
            say=None if json_output else typer.echo,
        )
    )
    if json_output:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(
            f"wrote {summary['out']}: {summary['positions']:,} positions "
            f"({summary['labelled']:,} labelled now, {summary['from_journal']:,} from the "
            f"journal), {summary['solver_nodes']:,} nodes, {summary['seconds']:.1f} s "
            f"({summary['positions_per_second']:,.1f} positions/s), {summary['bytes']:,} bytes"
            f"{damaged_note(summary['damaged_journal_records'])}"
        )
