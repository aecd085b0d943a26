"""``connect4 book``: build an opening book for any board size, show what one holds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from connect4.cli.common import (
    AllCoresWorkers,
    Height,
    Json,
    Scheduler,
    Width,
    damaged_note,
    fail,
    interrupted,
    run_job,
)

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
    resume: Annotated[
        bool, typer.Option(help="continue an interrupted build (OUT.partial)")
    ] = False,
    base_book: Annotated[
        str, typer.Option(help="book used inside the deepest searches: default, none, FILE")
    ] = "default",
    chunk: Annotated[int, typer.Option(help="positions per task", min=1)] = 64,
    json_output: Json = False,
) -> None:
    """Solve every position up to --plies stones and write a book (resumable, parallel)."""
    import json

    from connect4.solver.book.build import build_command

    summary = run_job(
        lambda: build_command(
            width,
            height,
            plies,
            out,
            workers=workers,
            scheduler=scheduler,
            resume=resume,
            base_book=base_book,
            chunk=chunk,
            json_output=json_output,
            say=None if json_output else typer.echo,
        )
    )
    if json_output:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(
            f"wrote {summary['out']}: {summary['entries']:,} positions "
            f"({summary['solved']:,} solved now, {summary['from_journal']:,} from the journal), "
            f"{summary['solver_nodes']:,} nodes, {summary['seconds']:.1f} s, "
            f"{summary['bytes']:,} bytes{damaged_note(summary['damaged_journal_records'])}"
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
    """Re-solve a book's entries with the solver; list every disagreement (exit 1 if any)."""
    from connect4.solver.book.verify import verify_command

    if sample is not None and all_entries:
        raise fail("give --sample N or --all, not both")
    try:
        ok = verify_command(book, sample, all_entries, width, height, json_output, typer.echo)
    except (ValueError, OSError) as error:
        raise fail(str(error)) from None
    except KeyboardInterrupt:
        raise interrupted() from None
    if not ok:
        raise typer.Exit(1)


@book_app.command("info")
def book_info(
    book: Annotated[
        str, typer.Argument(help="a .c4book file, or bitbully:8-ply|12-ply|12-ply-dist")
    ],
    json_output: Json = False,
) -> None:
    """Show what a book holds: board, depth, entries per ply, results, metadata."""
    import json

    from connect4.solver.book import BookError, load_book
    from connect4.solver.book.build import format_info

    try:
        loaded = load_book(book)
    except (BookError, OSError) as error:
        raise fail(str(error)) from None
    if loaded is None:
        raise fail(f"no book: {book}")
    info = loaded.info()
    if not book.startswith("bitbully:") and book not in ("default", "none"):
        info["file_bytes"] = Path(book).stat().st_size
    typer.echo(json.dumps(info) if json_output else format_info(info))
