"""``connect4 puzzle``: solve puzzles in the terminal, one after another near the
player's rating, with a streak, hints and the rating kept under the cache root
(``connect4 puzzles`` makes and checks the collections)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from connect4.cli.common import OptionalSeed, fail, keeping

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from connect4.learn.puzzleindex import PuzzleIndex
    from connect4.learn.puzzles import Puzzle
    from connect4.learn.ratings import PlayerRecord
    from connect4.terminal.puzzle import Session, TrainingSummary


def puzzle(
    rating: Annotated[
        int | None,
        typer.Option(help="pick puzzles near this rating (default: your own rating)"),
    ] = None,
    theme: Annotated[
        str | None,
        typer.Option(help="only puzzles with this theme: win-in-N, defence, zugzwang, ..."),
    ] = None,
    puzzle_id: Annotated[str | None, typer.Option("--id", help="this one puzzle")] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            help="the puzzles file (JSONL, as `connect4 puzzles generate` writes); "
            "by default the package's own"
        ),
    ] = None,
    count: Annotated[
        int | None,
        typer.Option(help="puzzles in a row, then the summary (default: until you quit)", min=1),
    ] = None,
    reset: Annotated[
        bool, typer.Option("--reset", help="forget your rating and streak first, start over")
    ] = False,
    no_record: Annotated[
        bool,
        typer.Option("--no-record", help="neither read nor write your rating (a demo, a test)"),
    ] = False,
    seed: OptionalSeed = None,
) -> None:
    """Solve puzzles: find the only move that keeps the win (or the draw), then the next
    one after the opponent's reply, until the solution ends. A wrong move fails the
    puzzle and shows the solution.

    At the prompt: a column, h a hint (the threats, then where the move is; a hinted
    puzzle counts as failed), s the solution (failed), q to stop. Answers are read one
    per line from stdin when it is not a terminal. After each puzzle: its rating and
    themes, your rating (Glicko-2, kept under the cache root unless --no-record) and
    its change, your streak; a summary at the end.
    """
    from connect4.core.errors import Connect4Error
    from connect4.core.files import LineTooLongError
    from connect4.terminal.puzzle import Session

    if reset and no_record:
        raise fail("--reset forgets the record that --no-record leaves alone: give one of them")
    if puzzle_id is not None and (
        rating is not None or theme is not None or count not in (None, 1)
    ):
        raise fail("--id names one puzzle: --rating, --theme and --count pick others")
    try:
        index, source = _index(file, seed)
        pick, one = _picker(index, source, rating, theme, puzzle_id)
        record = _record(reset, no_record)
    except (Connect4Error, OSError) as error:
        raise fail(error) from None
    session = Session(record)
    kept = "nothing recorded" if no_record else "your rating is kept"
    try:
        with keeping(lambda: f"{session.summary('interrupted').line()}; {kept}"):
            _train(index, source, session, pick, count=1 if one else count, save=not no_record)
    except LineTooLongError as error:  # a flood on stdin: refused before it fills memory
        raise fail(f"{error}: the rest of the input is not read", 1) from None
    except (Connect4Error, OSError) as error:  # a record that cannot be written
        raise fail(error) from None


def _index(file: Path | None, seed: int | None) -> tuple[PuzzleIndex, str]:
    """The collection to pick from (``--file`` or the shipped one) and its name."""
    import random

    from connect4.learn.puzzleindex import PuzzleIndex, shipped_puzzles

    path = file if file is not None else shipped_puzzles()
    if path is None:
        raise fail("this install has no puzzle collection: give --file FILE")
    index = PuzzleIndex.load(path)
    if not len(index):
        raise fail(f"{path} holds no puzzle")
    index.random = random.Random(seed)
    return index, (str(file) if file is not None else "the shipped set")


def _picker(
    index: PuzzleIndex, source: str, rating: int | None, theme: str | None, puzzle_id: str | None
) -> tuple[Callable[[PlayerRecord, Collection[str]], Puzzle | None], bool]:
    """How the next puzzle is picked, checked now (a bad rating, theme or id is an
    error before anything is asked), and whether it is one puzzle only (``--id``)."""
    from connect4.learn.puzzleindex import check_theme
    from connect4.learn.puzzles import MAX_RATING
    from connect4.terminal.puzzle import picker

    if puzzle_id is not None:
        found = index.get(puzzle_id)
        if found is None:
            raise fail(f"no puzzle {puzzle_id} in {source}")
        return (lambda record, played: found), True
    if rating is not None and not 0 <= rating <= MAX_RATING:
        raise fail(f"--rating is from 0 to {MAX_RATING}, not {rating}")
    if theme is not None and check_theme(theme) not in index.themes():
        raise fail(f"no puzzle of {source} has the theme {theme}")
    return picker(index, rating, theme), False


def _record(reset: bool, no_record: bool) -> PlayerRecord:
    """The player's record: a new one with ``--no-record``; forgotten first with
    ``--reset`` (said); else read (a damaged one is an error, left as it is)."""
    from connect4.learn.ratings import PlayerRecord, load_record, record_path, reset_record

    if no_record:
        return PlayerRecord()
    if reset:
        where = record_path()
        said = f"forgot your puzzle record ({where})" if reset_record() else "no record to forget"
        typer.echo(f"{said}: your rating starts again from {round(PlayerRecord().player.rating)}")
    return load_record()


def _train(
    index: PuzzleIndex,
    source: str,
    session: Session,
    pick: Callable[[PlayerRecord, Collection[str]], Puzzle | None],
    *,
    count: int | None,
    save: bool,
) -> TrainingSummary:
    """The session on the terminal, answers from stdin."""
    import sys

    from rich.console import Console

    from connect4.learn.ratings import save_record
    from connect4.terminal.puzzle import train
    from connect4.terminal.turns import LineReader

    console = Console(highlight=False, soft_wrap=True)  # a sentence is one line, however long
    record = session.record
    kept = "" if save else " (not recorded)"
    if record.attempts:
        kept += f", {record.solved} of {record.attempts} solved before"
    console.print(
        f"[bold]Puzzles[/] from {source} ({len(index):,}): your rating "
        f"{round(record.player.rating)}{kept}"
    )
    return train(
        session,
        pick,
        console,
        LineReader(sys.stdin, console),
        count=count,
        save=save_record if save else None,
    )
