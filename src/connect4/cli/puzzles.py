"""``connect4 puzzles``: mine puzzles from games, check a collection of them."""

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
    board_option,
    damaged_note,
    echo_summary,
    fail,
    keeping,
    run_job,
)

if TYPE_CHECKING:
    from connect4.learn.generate import GenerateReport

puzzles_app = typer.Typer(
    help="Puzzles: positions with exactly one move that keeps the best outcome.",
    no_args_is_help=True,
)


@puzzles_app.command("generate")
def generate(
    out: Annotated[Path, typer.Option(help="the puzzles file to write (JSONL)")],
    from_files: Annotated[
        list[Path] | None,
        typer.Option(
            "--from",
            help="games file: arena or lab results, or move strings one a line (repeatable)",
        ),
    ] = None,
    self_play: Annotated[
        int, typer.Option(help="self-play games between players of mixed levels", min=0)
    ] = 0,
    levels: Annotated[
        str | None,
        typer.Option(
            help="the self-play players, comma-separated specs "
            "(default: the five weak perfect, alphabeta and mcts players the shipped "
            "set was mined with)"
        ),
    ] = None,
    deep: Annotated[
        bool,
        typer.Option(
            "--deep/--no-deep", help="keep the puzzles tagged deep (longer than 7 moves a side)"
        ),
    ] = True,
    trivial_share: Annotated[
        float,
        typer.Option(
            help="the trivial puzzles' largest share of the file (a four to complete or "
            "block at once); those over it are left out (the same ones each run)",
            min=0.0,
            max=1.0,
        ),
    ] = 1.0,
    seed: Seed = 0,
    width: Width = 7,
    height: Height = 6,
    workers: AllCoresWorkers = None,
    scheduler: Scheduler = None,
    resume: Resume = False,
    force: Force = False,
    json_output: Json = False,
) -> None:
    """Mine puzzles from games: where a move changed the outcome, keep the positions before
    and after it that are puzzles (exactly one move keeps the side to move's win or
    draw), with their solutions, themes and first ratings.

    Games come from --from files and --self-play games; they are mined in worker
    processes, and a run stopped with Ctrl-C continues with --resume. An existing
    --out file is refused unless --force (replace it) or --resume.
    """
    from connect4.learn.generate import generate_puzzles
    from connect4.learn.mining import DEFAULT_LEVELS

    board = board_option("connect4", width, height, "standard")
    specs = DEFAULT_LEVELS if levels is None else _specs(levels)

    def mine() -> GenerateReport:
        return generate_puzzles(
            out, files=from_files or (), self_play=self_play, levels=specs, seed=seed,
            board=board, workers=workers, scheduler=scheduler, resume=resume, force=force,
            progress=not json_output, deep=deep, trivial_share=trivial_share,
        )  # fmt: skip

    report = run_job(mine, out)
    summary = GenerateSummary(
        out=report.out,
        games=report.games,
        mined=report.mined,
        from_journal=report.resumed,
        other_boards=report.other_boards,
        puzzles=report.puzzles,
        left_out=report.left_out,
        seconds=round(report.seconds, 3),
        damaged_journal_records=report.damaged,
    )
    echo_summary(
        summary,
        json_output,
        f"wrote {out}: {report.puzzles:,} puzzles from {report.games:,} games "
        f"({report.mined:,} mined now, {report.resumed:,} from the journal"
        + (f", {report.other_boards:,} of other boards passed over" if report.other_boards else "")
        + (f"; {report.left_out:,} left out" if report.left_out else "")
        + f"), {report.seconds:.1f} s{damaged_note(report.damaged)}",
    )


def _specs(text: str) -> tuple[str, ...]:
    """The ``--levels`` list: player specs separated by spaces or ``;``; a spec's own
    options are comma-separated, so specs are told apart by the kind's name."""
    from connect4.players import KINDS

    specs: list[str] = []
    for part in text.replace(";", " ").split():
        for item in part.split(","):
            kind = item.partition(":")[0].partition("=")[0]
            if specs and (kind not in KINDS or "=" in item.partition(":")[0]):
                specs[-1] += "," + item  # an option of the spec before
            elif item:
                specs.append(item)
    if not specs:
        raise fail("--levels names no player")
    return tuple(specs)


@dataclass(frozen=True)
class GenerateSummary:
    """``connect4 puzzles generate --json``: what the run wrote."""

    out: str
    games: int
    mined: int
    from_journal: int
    other_boards: int
    puzzles: int
    left_out: int
    seconds: float
    damaged_journal_records: int


@puzzles_app.command("verify")
def verify(
    file: Annotated[Path, typer.Argument(help="the puzzles file (JSONL) to check")],
    json_output: Json = False,
) -> None:
    """Check every puzzle of a file with the solver: its first move is the only one that
    keeps the best outcome, so is each later move of the solver's side, and each reply
    is the opponent's most resisting move. A wrong puzzle is reported with its line
    number and why; the exit status is 1 if any is wrong.
    """
    from connect4.learn.puzzlefile import verify_file

    def report_line(number: int, reason: str) -> None:
        if not json_output:
            typer.echo(f"{file} line {number}: {reason}")

    try:
        with keeping(lambda: "nothing was written; the check did not finish"):
            report = verify_file(file, progress=not json_output, each=report_line)
    except ValueError as error:
        raise fail(error) from None
    summary = VerifySummary(
        file=report.path,
        puzzles=report.puzzles,
        wrong=len(report.problems),
        problems=[{"line": line, "reason": reason} for line, reason in report.problems],
        seconds=round(report.seconds, 3),
    )
    wrong = len(report.problems)
    echo_summary(
        summary,
        json_output,
        f"{file}: {report.puzzles:,} puzzles, "
        + (f"{wrong:,} wrong" if wrong else "all verified")
        + f" ({report.seconds:.1f} s)",
    )
    if wrong:
        raise typer.Exit(1)


@dataclass(frozen=True)
class VerifySummary:
    """``connect4 puzzles verify --json``: the puzzles checked and the wrong ones."""

    file: str
    puzzles: int
    wrong: int
    problems: list[dict[str, object]]
    seconds: float
