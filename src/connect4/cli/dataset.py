"""``connect4 dataset``: random positions labelled by the solver, written as .npz."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from connect4.cli.common import (
    AllCoresWorkers,
    Force,
    Height,
    Json,
    Resume,
    Scheduler,
    Seed,
    Width,
    damaged_note,
    echo_summary,
    fail,
    run_job,
)

if TYPE_CHECKING:
    from connect4.envs.dataset import DatasetReport


Sampler = Annotated[
    str,
    typer.Option(
        help="random (random playouts) or games (games the network plays: the middle "
        "plies' positions as games reach them, labelled game by game, faster)"
    ),
]
Labels = Annotated[
    str,
    typer.Option(
        help="exact (every column's exact score) or targets (the best columns' exact "
        "score, the others' outcome: every training target, two thirds of the nodes)"
    ),
]


Temperature = Annotated[
    float | None, typer.Option(help="games: the policy sharpened by 1/T (default 1.0)")
]
Opening = Annotated[
    int | None, typer.Option(help="games: uniformly random first moves (default 4)")
]
Network = Annotated[
    Path | None,
    typer.Option(help="games: the weights file that plays them (default: the shipped one)"),
]
Chunk = Annotated[
    int | None,
    typer.Option(help="positions per task (default: up to 64, 4+ tasks per worker)", min=1),
]


def dataset(
    positions: Annotated[
        int,
        typer.Option(help="how many distinct positions (at most what a dataset file holds)"),
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
    resume: Resume = False,
    force: Force = False,
    chunk: Chunk = None,
    json_output: Json = False,
    sampler: Sampler = "random",
    temperature: Temperature = None,
    opening: Opening = None,
    network: Network = None,
    labels: Labels = "exact",
) -> None:
    """Positions labelled by the solver: every column's exact score, for training.

    Drawn by random playouts, or with --sampler games from games the shipped
    network (or --network) plays, each game's positions labelled together.
    With --labels targets, a column that is not one of the best holds a stand-in
    below the best score with its outcome's sign (the file's `labels` says so).

    An existing --out file is refused unless --force (replace it) or --resume
    (continue the run: the file must be a dataset, replaced when the run ends).
    """

    try:
        from connect4.envs.dataset import DatasetError, GameSampling, make_dataset, parse_plies
    except ImportError as error:
        raise fail(str(error)) from None
    if sampler not in ("random", "games"):
        raise fail(f"--sampler: choose random or games, not {sampler!r}")
    if labels not in ("exact", "targets"):
        raise fail(f"--labels: choose exact or targets, not {labels!r}")
    games = (temperature, opening, network)
    if sampler == "random" and any(setting is not None for setting in games):
        raise fail("--temperature, --opening and --network set how games are played: "
                   "give them with --sampler games")  # fmt: skip
    try:
        sampling = None if sampler == "random" else GameSampling(
            1.0 if temperature is None else temperature, 4 if opening is None else opening,
            None if network is None else str(network))  # fmt: skip
    except DatasetError as error:
        raise fail(error) from None

    def label() -> DatasetReport:
        return make_dataset(
            positions, parse_plies(plies, width, height), out, width=width, height=height,
            rules=rules, seed=seed, book=book, workers=workers, scheduler=scheduler,
            resume=resume, force=force, chunk=chunk, progress=not json_output,
            say=None if json_output else typer.echo, sampling=sampling, labels=labels,
        )  # fmt: skip

    report = run_job(label, out)
    summary = DatasetSummary(
        out=str(out),
        positions=len(report.dataset),
        labelled=report.labelled,
        from_journal=report.resumed,
        damaged_journal_records=report.damaged,
        solver_nodes=report.nodes,
        seconds=round(report.seconds, 3),
        positions_per_second=round(report.labelled / max(report.seconds, 1e-9), 1),
        bytes=out.stat().st_size,
    )
    echo_summary(
        summary,
        json_output,
        f"wrote {out}: {summary.positions:,} positions ({summary.labelled:,} labelled now, "
        f"{summary.from_journal:,} from the journal), {summary.solver_nodes:,} nodes, "
        f"{summary.seconds:.1f} s ({summary.positions_per_second:,.1f} positions/s), "
        f"{summary.bytes:,} bytes{damaged_note(summary.damaged_journal_records)}",
    )


@dataclass(frozen=True)
class DatasetSummary:
    """``connect4 dataset --json``: what the run wrote and how fast."""

    out: str
    positions: int
    labelled: int
    from_journal: int
    damaged_journal_records: int
    solver_nodes: int
    seconds: float
    positions_per_second: float
    bytes: int
