"""``connect4 bench``: run benchmark files through the solver, print each file's figures.

The measuring lives in :mod:`connect4.solver.bench`; this module reads the
files, shows a progress bar on long runs and prints lines or JSON.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from connect4.cli.common import Height, Json, Width, fail, interruptible

if TYPE_CHECKING:
    from connect4.solver.bench import BenchCase, FileReport

PROGRESS_THRESHOLD = 200  # show a progress bar from this many positions on


def bench(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="benchmark files of 'moves score' lines, or Pons' sets by name "
            "(End-Easy or Test_L3_R1, ...: shipped with the package)"
        ),
    ],
    limit: Annotated[int | None, typer.Option(help="first N positions per file", min=1)] = None,
    json_output: Json = False,
    weak: Annotated[bool, typer.Option("-w", "--weak", help="check win/draw/loss only")] = False,
    width: Width = 7,
    height: Height = 6,
) -> None:
    """Solve every position of benchmark files, check the scores, print the timings."""
    from connect4.solver.checks import check_solver_board

    try:
        check_solver_board(width, height)
    except ValueError as error:  # a usage error, before the solver is loaded
        raise fail(error) from None
    paths = [str(f) for f in files]
    raise typer.Exit(  # a Ctrl-C ends it at once: the files reported so far stay printed
        interruptible(
            lambda _limit: bench_command(
                paths, limit, json_output, width=width, height=height, weak=weak
            )
        )
    )


def bench_command(
    files: Iterable[str],
    limit: int | None = None,
    as_json: bool = False,
    *,
    width: int = 7,
    height: int = 6,
    weak: bool = False,
    tt_megabytes: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """``connect4 bench``: run each file, print its figures; 1 if any score is wrong.

    A file that cannot be read prints an error and also gives exit status 1.
    """
    from rich.console import Console

    from connect4.core.progress import progress_bar
    from connect4.solver import Solver
    from connect4.solver.bench import benchmark_file, format_report, read_cases, run_cases

    out = out or sys.stdout
    err = err or sys.stderr
    solver = Solver(width, height) if tt_megabytes is None else Solver(width, height, tt_megabytes)
    status = 0
    loaded: list[tuple[str, list[BenchCase]]] = []
    for path in files:
        try:
            loaded.append((path, read_cases(benchmark_file(path), limit)))
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=err)
            status = 1
    total = sum(len(cases) for _, cases in loaded)
    reports: list[FileReport] = []
    console = Console(file=err) if total >= PROGRESS_THRESHOLD else None
    with progress_bar(console is not None, total, console=console, transient=True) as advance:
        for path, cases in loaded:
            try:
                report = run_cases(path, cases, solver, weak=weak, on_case=lambda: advance(1))
            except ValueError as exc:  # an illegal move string in the file
                print(f"error: {path}: {exc}", file=err)
                status = 1
                continue
            reports.append(report)
            if not report.ok:
                status = 1
            if not as_json:
                print(format_report(report), file=out, flush=True)
                for bad in report.wrong[:10]:
                    print(
                        f"  wrong: line {bad['line']} {bad['moves']}: expected {bad['expected']}, "
                        f"got {bad['got']}",
                        file=out,
                    )
    if as_json:
        print(json.dumps([r.as_json() for r in reports], indent=2), file=out)
    return status
