"""``connect4 tree`` and ``connect4 analyze``: what a classic search explored, and
minimax against alpha-beta by depth.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from connect4.cli.common import (
    MAX_NODES,
    MAX_PLAYOUTS,
    MAX_TREE_NODES,
    Force,
    Game,
    Height,
    Json,
    Rules,
    Seed,
    Width,
    fail,
    interruptible,
)
from connect4.core.errors import clip
from connect4.core.games import new_game


def tree(
    moves: Annotated[str, typer.Argument(help='position to search, e.g. "44" ("" = empty)')],
    depth: Annotated[int, typer.Option(help="search depth in plies", min=0, max=42)] = 2,
    algorithm: Annotated[str, typer.Option(help="minimax, alphabeta or mcts")] = "alphabeta",
    heuristic: Annotated[str, typer.Option(help="evaluation function")] = "windows",
    ordering: Annotated[str, typer.Option(help="center or none")] = "center",
    tt: Annotated[bool, typer.Option("--tt", help="use a transposition table")] = False,
    cap: Annotated[
        int | None, typer.Option(help="most nodes recorded (default 5000; mcts: 50)", min=1)
    ] = None,
    playouts: Annotated[int, typer.Option(help="mcts: playouts", min=1, max=MAX_PLAYOUTS)] = 1000,
    seed: Seed = 0,
    solver: Annotated[bool, typer.Option("--solver", help="mcts: MCTS-Solver")] = False,
    min_visits: Annotated[
        int, typer.Option(help="mcts: nodes shown need this many visits", min=1)
    ] = 1,
    budget: Annotated[
        int,
        typer.Option(help="stop a search that visits more nodes", min=1, max=MAX_TREE_NODES),
    ] = 500_000,
    game: Game = "connect4",
    width: Width = 7,
    height: Height = 6,
    rules: Rules = "standard",
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="text, dot or json; draw dot with Graphviz: connect4 tree 44 --format dot "
            "| dot -Tsvg > tree.svg (Debian/Ubuntu: apt install graphviz)",
        ),
    ] = "text",
) -> None:
    """Print the tree one minimax, alpha-beta or Monte Carlo tree search explored.

    Alpha-beta marks pruned children; ``--algorithm mcts`` runs ``--playouts``
    and shows the most visited nodes (visits, mean value, UCT score, proofs with
    ``--solver``), the path it plays marked ``*``.

    ``--format dot`` writes Graphviz's language: ``dot`` (from the graphviz
    package) turns it into SVG or PNG. ``--format json`` is the same tree the
    browser's tree explorer draws.
    """
    from connect4.classic.tree import FORMATS, mcts_tree, render, search_tree

    if fmt not in FORMATS:
        raise fail(f"unknown format {clip(fmt)!r}: choose one of {', '.join(FORMATS)}")
    if algorithm not in ("minimax", "alphabeta", "mcts"):
        raise fail(f"unknown algorithm {clip(algorithm)!r}: choose one of minimax, alphabeta, mcts")
    try:
        position = new_game(game, width, height, rules, moves)
        if algorithm == "mcts":
            recorded = interruptible(
                lambda _limit: mcts_tree(
                    position,
                    playouts=playouts,
                    seed=seed,
                    solver=solver,
                    cap=cap or 50,
                    min_visits=min_visits,
                )
            )
        else:
            recorded = interruptible(
                lambda _limit: search_tree(
                    position,
                    depth=depth,
                    algorithm=algorithm,
                    heuristic=heuristic,
                    ordering=ordering,
                    tt=tt,
                    cap=cap or 5000,
                    budget=budget,
                )
            )
    except ValueError as error:
        raise fail(error) from None
    sys.stdout.write(render(recorded, fmt))


def analyze(
    moves: Annotated[str, typer.Argument(help="position to analyse (default: empty)")] = "",
    game: Game = "connect4",
    max_depth: Annotated[str, typer.Option(help="depths 1..D, or 'all' (tictactoe)")] = "6",
    heuristic: Annotated[str, typer.Option(help="evaluation function")] = "windows",
    budget: Annotated[
        int | None,
        typer.Option(
            help="minimax node budget per depth (default 5,000,000; 500,000 "
            "for heuristics without a compiled version)",
            min=1,
            max=MAX_NODES,
        ),
    ] = None,
    tt: Annotated[bool, typer.Option("--tt", help="alpha-beta with a transposition table")] = False,
    ordering: Annotated[str, typer.Option(help="move order: center or none")] = "center",
    width: Width = 7,
    height: Height = 6,
    rules: Rules = "standard",
    json_output: Json = False,
    plot: Annotated[str | None, typer.Option(help="write a PNG plot to this file")] = None,
    force: Force = False,
) -> None:
    """Minimax against alpha-beta by depth: nodes, seconds, value, move and their ratio."""
    from connect4.classic.analysis import (
        compare,
        default_budget,
        parse_depth,
        plot as write_plot,
        render_table,
        rows_json,
    )
    from connect4.core.files import plot_target

    try:
        if plot is not None:
            # before the work: a plot that cannot be written (or exists) fails now
            plot_target(plot, force=force)
        position = new_game(game, width, height, rules, moves)
        depths = parse_depth(max_depth, position)
        budget = budget or default_budget(position, heuristic)
        if ordering not in ("center", "none"):
            raise ValueError(f"unknown ordering {clip(ordering)!r}: choose one of center, none")
        rows = interruptible(
            lambda _limit: compare(
                position, depths, heuristic=heuristic, budget=budget, tt=tt, ordering=ordering
            )
        )
    except ValueError as error:
        raise fail(error) from None
    title = f"{game} {moves or '(empty)'}: minimax vs alpha-beta, heuristic {heuristic}"
    if plot is not None:
        try:
            write_plot(rows, plot, title)
        except ValueError as error:
            raise fail(error) from None
    if json_output:
        typer.echo(rows_json(rows))
        return
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 120)
    console.print(render_table(rows, title, budget))
    if any(not r.complete for r in rows if r.algorithm == "minimax"):
        console.print(f"minimax stopped at its budget of {budget:,} nodes (--budget to change)")
    if plot is not None:
        console.print(f"plot written to {plot}")
