"""``connect4 book``: build an opening book for any board size, show what one holds."""

from __future__ import annotations

from dataclasses import dataclass, replace
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
    Width,
    damaged_note,
    echo_summary,
    fail,
    interrupted,
    run_job,
)

if TYPE_CHECKING:
    from connect4.solver.book.build import BaseBookCheck, BuildReport
    from connect4.solver.book.table import BookInfo

book_app = typer.Typer(
    help="Opening books: build one for any board size, show what one holds.",
    no_args_is_help=True,
)


@book_app.command("build")
def book_build(
    out: Annotated[Path, typer.Option(help="book file to write (.c4book)")],
    width: Width = 7,
    height: Height = 6,
    plies: Annotated[
        int, typer.Option(help="solve every position with up to this many stones", min=0)
    ] = 4,
    workers: AllCoresWorkers = None,
    scheduler: Scheduler = None,
    resume: Resume = False,
    force: Force = False,
    base_book: Annotated[
        str, typer.Option(help="book used inside the deepest searches: default, none, FILE")
    ] = "default",
    chunk: Annotated[int, typer.Option(help="positions per task", min=1)] = 64,
    json_output: Json = False,
) -> None:
    """Solve every position up to --plies stones and write a book (resumable, parallel).

    An existing --out file is refused unless --force (replace it) or --resume
    (continue the build: the file must be a book, replaced when the build ends).
    """

    from connect4.solver.book.build import BuildConfig, build_book

    def build() -> BuildReport:
        config = BuildConfig(
            width, height, plies, base_book=base_book, chunk=chunk, workers=workers,
            scheduler=scheduler,
        )  # fmt: skip
        return build_book(
            config, out, resume=resume, force=force, progress=not json_output,
            say=None if json_output else typer.echo,
        )  # fmt: skip

    report = run_job(build, out)
    echo_summary(
        build_summary(report, out),
        json_output,
        f"wrote {out}: {len(report.book):,} positions "
        f"({report.solved:,} solved now, {report.resumed:,} from the journal), "
        f"{report.nodes:,} nodes, {report.seconds:.1f} s, "
        f"{out.stat().st_size:,} bytes{damaged_note(report.damaged)}",
    )


@dataclass(frozen=True)
class BuildSummary:
    """``connect4 book build --json``: what the build wrote and how."""

    out: str
    entries: int
    solved: int
    from_journal: int
    damaged_journal_records: int
    solver_nodes: int
    seconds: float
    bytes: int
    base_book_check: BaseBookCheck | None


def build_summary(report: BuildReport, out: Path) -> BuildSummary:
    """The summary of a finished build written to ``out``."""
    return BuildSummary(
        out=str(out),
        entries=len(report.book),
        solved=report.solved,
        from_journal=report.resumed,
        damaged_journal_records=report.damaged,
        solver_nodes=report.nodes,
        seconds=round(report.seconds, 3),
        bytes=out.stat().st_size,
        base_book_check=report.base_check,
    )


@book_app.command("verify")
def book_verify(
    book: Annotated[str, typer.Argument(help="a .c4book file (or bitbully:NAME, default)")],
    sample: Annotated[
        int | None, typer.Option(help="re-solve this many entries, chosen at random", min=1)
    ] = None,
    all_entries: Annotated[bool, typer.Option("--all", help="re-solve every entry")] = False,
    width: Annotated[int, typer.Option(help="board width (for default)")] = 7,
    height: Annotated[int, typer.Option(help="board height (for default)")] = 6,
    json_output: Json = False,
) -> None:
    """Re-solve a book's entries with the solver; list every disagreement (exit 1 if any).

    A progress bar shows on a terminal; Ctrl-C stops at once and reports what was
    re-solved so far (exit 130).
    """
    import json
    import sys

    from connect4.core.limits import run_stoppable
    from connect4.core.progress import progress_bar
    from connect4.solver.book import load_book
    from connect4.solver.book.verify import DEFAULT_SAMPLE, chosen_count, verify_book

    if sample is not None and all_entries:
        raise fail("give --sample N or --all, not both")
    try:
        loaded = load_book(book, width, height)
    except (ValueError, OSError) as error:
        raise fail(error) from None
    if loaded is None:
        raise fail(f"no book: {book}")
    chosen = None if all_entries else (sample or DEFAULT_SAMPLE)
    show = not json_output and sys.stdout.isatty()
    try:
        with progress_bar(show, chosen_count(loaded, chosen), 0, "verifying", "entries") as step:
            report, stopped = run_stoppable(
                lambda limit: verify_book(loaded, chosen, advance=step, limit=limit)
            )
    except (ValueError, OSError) as error:
        raise fail(error) from None
    if json_output:
        typer.echo(json.dumps(report.as_dict(book)))
    else:
        for disagreement in report.disagreements:
            typer.echo(disagreement.line())
        typer.echo(report.summary(book))
    if stopped or not report.complete:
        raise interrupted()
    if not report.ok:
        raise typer.Exit(1)


@book_app.command("info")
def book_info(
    book: Annotated[
        str, typer.Argument(help="a .c4book file, or bitbully:8-ply|12-ply|12-ply-dist")
    ],
    json_output: Json = False,
) -> None:
    """Show what a book holds: board, depth, entries per ply, results, metadata."""

    from connect4.solver.book import BookError, load_book

    try:
        loaded = load_book(book)
    except (BookError, OSError) as error:
        raise fail(str(error)) from None
    if loaded is None:
        raise fail(f"no book: {book}")
    info = loaded.info()
    if not book.startswith("bitbully:") and book not in ("default", "none"):
        info = replace(info, file_bytes=Path(book).stat().st_size)
    typer.echo(info.to_json() if json_output else format_info(info))


def format_info(info: BookInfo) -> str:
    """``connect4 book info`` as text."""
    lines = [
        f"board        {info.board}",
        f"depth        {info.depth} plies",
        f"entries      {info.entries:,} ({info.kind}, mirror images merged)",
        f"results      {info.wins:,} wins, {info.draws:,} draws, "
        f"{info.losses:,} losses for the side to move",
        f"score range  {list(info.score_range) if info.score_range else None}",
        "per ply      " + ", ".join(f"{p}: {n:,}" for p, n in info.entries_per_ply.items()),
    ]
    if info.kind == "win/draw/loss":
        lines.append(
            "note         stores draws and losses only: a position of this depth "
            "that is not over and not stored is a win"
        )
    if info.file_bytes is not None:
        lines.append(f"file         {info.file_bytes:,} bytes, checksum and contents ok")
    for key, value in info.meta.items():
        lines.append(f"{key:<12} {value}")
    return "\n".join(lines)
