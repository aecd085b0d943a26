"""``connect4 rate``: the flags read into the sets and a
:class:`~connect4.arena.rate.RateConfig`, the positions labelled and the players rated
under progress bars, the table (or ``--json``) printed and the plot written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from connect4.cli.common import (
    Force,
    Json,
    Resume,
    Seed,
    Workers,
    fail,
    keeping,
    kept_in,
)
from connect4.core.errors import Connect4Error

if TYPE_CHECKING:
    from rich.console import Console

    from connect4.arena.ladder import Labels, PositionSet
    from connect4.arena.rate import RateConfig, Rating

MAX_DECISIVE = 100_000
MAX_CLOCK = 600.0


def rate(
    specs: Annotated[
        list[str],
        typer.Argument(
            help="player specs: random, alphabeta:depth=4, mcts:level=hard, net:playouts=800, "
            "perfect:level=medium, cmd:PROGRAM, kaggle:FILE, ...",
            show_default=False,
        ),
    ],
    set_names: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="one of Pons' six sets by name: End-Easy, Middle-Easy, Middle-Medium, "
            "Begin-Easy, Begin-Medium, Begin-Hard (repeatable; default: all six, unless "
            "--decisive or --positions names other sets)",
        ),
    ] = None,
    decisive: Annotated[
        int | None,
        typer.Option(
            help="a set of N decisive positions (2-36 stones, a move there can throw the "
            "outcome away), drawn from games with --seed and labelled by the solver; kept "
            "under the cache root for the next run",
            min=1,
            max=MAX_DECISIVE,
        ),
    ] = None,
    positions: Annotated[
        list[Path] | None,
        typer.Option(
            help="a file of positions in Pons' format, one 'moves score' a line (repeatable)"
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option(help="rate on the first N positions of each set", min=1)
    ] = None,
    clock: Annotated[
        float | None,
        typer.Option(
            help="seconds a move (a player past it has failed there); default: the players' "
            "own limits",
            min=0.01,
            max=MAX_CLOCK,
        ),
    ] = None,
    seed: Seed = 0,
    workers: Workers = 1,
    resume: Resume = False,
    force: Force = False,
    json_output: Json = False,
    plot: Annotated[
        Path | None,
        typer.Option(help="plot outcome error against time per move to this file (PNG, SVG, ...)"),
    ] = None,
) -> None:
    """Rate players on positions whose exact scores are known: how often each throws
    away the outcome (outcome error) or the best score (score error), with 95 %
    intervals and the time per move.

    A player that crashes, times out or answers an illegal move on a position has
    failed there: an error, counted by its reason. An interrupted run continues
    with --resume; --force starts it over. A level (mcts:level=medium) on a
    --decisive set is judged against its target: easy 30 %, medium 10 %, hard 3 %.
    """
    from rich.console import Console

    from connect4.arena.ladder import Labels
    from connect4.arena.rate import RateConfig, check_specs, rate_journal

    err = Console(stderr=True, highlight=False)
    try:
        check_specs(specs)
        if plot is not None:
            from connect4.core.files import is_plot, plot_target

            plot_target(plot, force=force, ours=is_plot if resume else None)
        sets = read_sets(set_names, positions, limit, others=decisive is not None)
        with Labels() as labels:
            sets += decisive_sets(decisive, seed, limit, labels, workers, err, json_output)
            config = RateConfig(tuple(dict.fromkeys(specs)), tuple(_unique(sets)), clock, workers)
            journal = rate_journal(config)
            journal.check(resume=resume, force=force)
            label_sets(config.sets, labels, workers, err, json_output)
            ratings = run_rating(config, labels, resume, force, err, json_output)
        report(ratings, json_output, plot)
    except (Connect4Error, OSError) as error:
        raise fail(error) from None


def report(ratings: list[Rating], json_output: bool, plot: Path | None) -> None:
    """The plot written (first: a plot that cannot be written is the command's error),
    then the ratings printed: the table and the plot's name, or ``--json``."""
    from connect4.arena.rate import plot_ratings, table

    if plot is not None:
        plot_ratings(ratings, plot)
    if json_output:
        typer.echo(json.dumps([r.as_json() for r in ratings], indent=1))
        return
    typer.echo(table(ratings))
    if plot is not None:
        typer.echo(f"plot: {plot}")


def _unique(sets: list[PositionSet]) -> list[PositionSet]:
    """Each set once (by name; a file named like another set is told apart by a suffix)."""
    from connect4.arena.ladder import PositionSet

    out: dict[str, PositionSet] = {}
    for one in sets:
        if one.name in out and out[one.name].moves == one.moves:
            continue
        name, n = one.name, 2
        while name in out:
            name, n = f"{one.name} ({n})", n + 1
        out[name] = PositionSet(name, one.moves, one.decisive)
    return list(out.values())


def read_sets(
    names: list[str] | None, files: list[Path] | None, limit: int | None, *, others: bool
) -> list[PositionSet]:
    """Pons' sets named (all six when nothing names a set: no name, no file, no ``others``)
    and the files, read and checked."""
    from connect4.arena.ladder import PONS_ORDER, file_set, pons_set

    sets = [file_set(str(path), limit) for path in files or ()]
    chosen = list(names or ())
    if not chosen and not files and not others:
        chosen = list(PONS_ORDER)
    return [pons_set(name, limit) for name in chosen] + sets


def decisive_sets(
    n: int | None,
    seed: int,
    limit: int | None,
    labels: Labels,
    workers: int,
    err: Console,
    json_output: bool,
) -> list[PositionSet]:
    """The decisive set asked for (none without ``--decisive``), found or read back."""
    if n is None:
        return []
    from connect4.arena.ladder import decisive_set
    from connect4.arena.play import game_pool
    from connect4.core.progress import progress_bar

    size = n if limit is None else min(n, limit)
    with (
        keeping(lambda: "the positions labelled so far are kept under the cache root"),
        game_pool(workers, None) as pool,
        progress_bar(not json_output, size, 0, "decisive positions", "pos", err) as advance,
    ):
        return [decisive_set(size, seed, labels, pool, advance)]


def label_sets(
    sets: tuple[PositionSet, ...], labels: Labels, workers: int, err: Console, json_output: bool
) -> None:
    """Every column of every position scored by the solver, where not done before."""
    from connect4.arena.ladder import label_positions
    from connect4.arena.play import game_pool
    from connect4.core.progress import progress_bar

    todo = labels.missing(m for one in sets for m in one.moves)
    if not todo:
        return
    with (
        keeping(lambda: "the positions labelled so far are kept under the cache root"),
        game_pool(workers, None) as pool,
        progress_bar(not json_output, len(todo), 0, "labelling", "pos", err) as advance,
    ):
        label_positions(todo, labels, pool, advance)


def run_rating(
    config: RateConfig, labels: Labels, resume: bool, force: bool, err: Console, json_output: bool
) -> list[Rating]:
    """The players rated under a progress bar; Ctrl-C keeps the finished chunks."""
    from connect4.arena.rate import rate_journal, rate_players
    from connect4.core.progress import progress_callback

    journal = rate_journal(config)
    kept = kept_in(journal.path, "the moves judged so far are")
    with keeping(kept), progress_callback(err, "rating", "moves") as progress:
        return rate_players(
            config,
            labels,
            resume=resume,
            force=force,
            progress=None if json_output else progress,
            journal=journal,
        )
