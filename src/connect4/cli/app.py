"""The ``connect4`` command: play, solve, bench, tree, analyze, review, book, dataset, arena,
serve.

Each subcommand is a thin wrapper; the work lives in the module of its concept.
Heavy modules are imported inside the commands so start-up stays fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from connect4.core.games import new_game

app = typer.Typer(
    name="connect4",
    help="Connect Four and tic-tac-toe: play, solve, analyse search, run AI tournaments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


MAX_WORKERS = 4 * (os.cpu_count() or 1)  # more processes than this only thrash
MAX_PLAYOUTS = 100_000_000  # an MCTS tree's playouts (the mcts player's own cap)
MAX_NODES = 1_000_000_000  # a node budget; past it a search runs for hours
MAX_POSITIONS = 100_000_000  # a data set's positions (about 1 GB of labels)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


T = TypeVar("T")


def interruptible(work: Callable[[], T]) -> T:
    """Run ``work`` so that Ctrl-C ends the command at once: exit 130, one line on
    stderr, nothing written (the thinking thread is left to the process exit)."""
    from connect4.core.limits import run_interruptible

    try:
        return run_interruptible(lambda limit: work())
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise typer.Exit(130) from None


@app.callback(invoke_without_command=True)
def root(
    version: Annotated[bool, typer.Option("--version", help="show the version and exit")] = False,
) -> None:
    """Connect Four and tic-tac-toe: play, solve, analyse search, run AI tournaments."""
    if version:
        from connect4.core.version import __version__

        typer.echo(f"connect4 {__version__}")
        raise typer.Exit()


@app.command()
def play(
    red: Annotated[
        str, typer.Option(help="red (first player) spec: human, random, perfect, ...")
    ] = "human",
    yellow: Annotated[
        str, typer.Option(help="yellow spec; 'auto' = the strongest AI available")
    ] = "auto",
    game: Annotated[str, typer.Option(help="connect4 or tictactoe")] = "connect4",
    width: Annotated[int, typer.Option(help="board width (connect4)")] = 7,
    height: Annotated[int, typer.Option(help="board height (connect4)")] = 6,
    rules: Annotated[str, typer.Option(help="standard or count-fours")] = "standard",
    seed: Annotated[int | None, typer.Option(help="seed for reproducible random choices")] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="print one JSON object when the game ends")
    ] = False,
    hint: Annotated[str | None, typer.Option(help="player spec used for 'h' hints")] = None,
    no_review: Annotated[
        bool, typer.Option("--no-review", help="skip the game review summary at the end")
    ] = False,
) -> None:
    """Play a game in the terminal. Type a column number, u (undo), h (hint) or q (quit).

    A finished game ends with the game review's summary (accuracy, mistakes,
    blunders, the decisive move) unless ``--no-review``.
    """
    from rich.console import Console

    from connect4.players import PlayerContext, PlayerSpecError, make_player, rehearse
    from connect4.terminal import play_game, review_summary, strongest_ai

    try:
        board = new_game(game, width, height, rules)
    except ValueError as error:
        raise fail(str(error)) from None
    specs = [strongest_ai(game, rules) if spec == "auto" else spec for spec in (red, yellow)]
    size = {"width": width, "height": height}
    try:
        players = [
            make_player(
                spec,
                game=game,
                rules=rules,
                seed=None if seed is None else seed + index,
                **size,
            )
            for index, spec in enumerate(specs)
        ]
    except PlayerSpecError as error:
        raise fail(str(error)) from None
    console = Console(stderr=json_output, highlight=False)
    context = PlayerContext(game, width, height, rules)
    for spec, player in zip(specs, players, strict=True):
        if not player.is_human:  # compile and load now, not between a prompt and a move
            rehearse(spec, board, context)
    try:
        record = play_game(
            board,
            players[0],
            players[1],
            game_name=game,
            console=console,
            hint_spec=hint,
        )
    except KeyboardInterrupt:
        console.print("\ninterrupted")
        raise typer.Exit(130) from None
    finally:
        for player in players:
            player.close()
    if json_output:
        typer.echo(record.to_json())
    elif record.finished and record.forfeit is None and not no_review:
        for line in review_summary(record.moves, game, width, height, rules):
            console.print(line)
    if record.forfeit is not None:
        raise typer.Exit(1)


@app.command()
def prepare() -> None:
    """Compile the solver and the compiled searches now (once; cached on disk afterwards).

    The first game would otherwise stop for a while on the first computer move;
    ``make play`` runs this before the game starts. Fast when nothing is left to do.
    """
    import time

    from connect4.classic import fastmcts, fastsearch
    from connect4.solver import warm_up

    steps = (
        ("the perfect solver's kernel", warm_up),
        ("the compiled classic search", fastsearch.warm_up),
        ("the compiled Monte Carlo tree search", fastmcts.warm_up),
    )
    for label, step in steps:
        started = time.perf_counter()
        typer.echo(f"preparing {label}...", err=True)  # own line: a compile notice may follow
        step()
        typer.echo(f"{label}: ready ({time.perf_counter() - started:.1f} s)", err=True)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    workers: Annotated[
        int, typer.Option(help="server processes (uvicorn workers)", min=1, max=64)
    ] = 1,
    threads: Annotated[
        int, typer.Option(help="solver/search threads per lane in each process", min=1, max=64)
    ] = 2,
    queue: Annotated[
        int, typer.Option(help="waiting places per lane before HTTP 503", min=0, max=10000)
    ] = 128,
    time_limit: Annotated[
        float, typer.Option(help="seconds per request before HTTP 503", min=0.1)
    ] = 10.0,
    cache: Annotated[
        int, typer.Option(help="solved positions kept in memory (0 = no cache)", min=0)
    ] = 20_000,
) -> None:
    """Serve the browser app and the JSON API (docs at /docs) with uvicorn."""
    from connect4.web.server import run_server

    try:
        run_server(
            host=host,
            port=port,
            workers=workers,
            threads=threads,
            queue=queue,
            time_limit=time_limit,
            cache=cache,
        )
    except (OSError, ValueError) as error:
        raise fail(str(error)) from None


@app.command()
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
    resume: Annotated[bool, typer.Option(help="continue the tournament in --results")] = False,
    workers: Annotated[
        int, typer.Option(help="local worker processes", min=1, max=MAX_WORKERS)
    ] = 1,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (instead of local processes)")
    ] = None,
    seed: Annotated[int, typer.Option(help="tournament seed (each game derives its own)")] = 0,
    json_output: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    csv: Annotated[Path | None, typer.Option(help="write the standings as CSV")] = None,
    game: Annotated[str, typer.Option(help="connect4 or tictactoe")] = "connect4",
    width: Annotated[int, typer.Option(help="board width (connect4)")] = 7,
    height: Annotated[int, typer.Option(help="board height (connect4)")] = 6,
    rules: Annotated[str, typer.Option(help="standard or count-fours")] = "standard",
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
    """
    from connect4.arena import ArenaError
    from connect4.cli.arena import arena_main

    try:
        code = arena_main(
            players=[*(players or []), *(more or [])],
            gauntlet=gauntlet,
            games_per_pair=games_per_pair,
            openings=openings,
            time_per_move=time_per_move,
            max_move_seconds=max_move_seconds,
            results=results,
            resume=resume,
            workers=workers,
            scheduler=scheduler,
            seed=seed,
            json_output=json_output,
            csv_path=csv,
            game=game,
            width=width,
            height=height,
            rules=rules,
            review=review,
            accuracy_nodes=accuracy_nodes,
        )
    except (ArenaError, OSError) as error:
        raise fail(str(error)) from None
    if code:
        raise typer.Exit(code)


@app.command()
def lab(
    depths: Annotated[str, typer.Option(help="alpha-beta depths, e.g. 1-8 or 2,4,6")] = "1-4",
    games: Annotated[int, typer.Option(help="games per pair", min=1)] = 2,
    out: Annotated[Path, typer.Option(help="directory for results, report.md and plots")] = Path(
        "lab"
    ),
    heuristics: Annotated[
        str | None, typer.Option(help="comma-separated heuristics (default: all)")
    ] = None,
    perfect: Annotated[bool, typer.Option(help="include the perfect player")] = True,
    playouts: Annotated[
        str, typer.Option(help="MCTS playouts per move, e.g. 1k,10k,100k (none: no MCTS)")
    ] = "1k,10k,100k",
    mcts_solver: Annotated[
        str, typer.Option(help="MCTS players with the solver option: off, on or both")
    ] = "both",
    time_per_move: Annotated[
        str | None,
        typer.Option(
            help="equal clocks, e.g. 0.1 or 0.1,0.5: alpha-beta (every heuristic) and MCTS "
            "players that search S seconds per move"
        ),
    ] = None,
    openings: Annotated[str, typer.Option(help="plies=K or a file of move strings")] = "plies=2",
    accuracy_nodes: Annotated[
        int, typer.Option(help="solver node budget per position for the game review", min=1)
    ] = 200_000,
    test_set: Annotated[
        list[str] | None,
        typer.Option(
            help="a benchmark file (Pons' format): every player picks a move in its "
            "positions, judged by the solver (repeatable)"
        ),
    ] = None,
    test_positions: Annotated[
        int, typer.Option(help="positions used from each test set (the first N)", min=1)
    ] = 50,
    workers: Annotated[
        int, typer.Option(help="local worker processes", min=1, max=MAX_WORKERS)
    ] = 1,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address")] = None,
    seed: Annotated[int, typer.Option(help="tournament seed")] = 0,
    resume: Annotated[bool, typer.Option(help="continue the lab in --out")] = False,
) -> None:
    """The lab: heuristics by depth, MCTS by playouts, equal clocks, perfect; Markdown + PNGs."""
    from connect4.arena import ArenaError
    from connect4.arena.lab import lab_main

    try:
        code = lab_main(
            depths=depths,
            games=games,
            out=out,
            heuristics=heuristics,
            perfect=perfect,
            playouts=playouts,
            mcts_solver=mcts_solver,
            time_per_move=time_per_move,
            openings=openings,
            accuracy_nodes=accuracy_nodes,
            test_sets=test_set,
            test_positions=test_positions,
            workers=workers,
            scheduler=scheduler,
            seed=seed,
            resume=resume,
        )
    except (ArenaError, OSError) as error:
        raise fail(str(error)) from None
    if code:
        raise typer.Exit(code)


Summary = TypeVar("Summary")


def run_job(command: Callable[[], Summary]) -> Summary:
    """Run a resumable job (``book build``, ``dataset``): bad input exits 2 with its
    message; Ctrl-C or a stop exits 130, saying how to resume."""
    from connect4.solver.book.jobs import JobInterrupted

    try:
        return command()
    except (JobInterrupted, KeyboardInterrupt) as error:
        typer.echo(f"interrupted: {str(error) or 'continue with --resume'}", err=True)
        raise typer.Exit(130) from None
    except (ValueError, OSError) as error:
        raise fail(str(error)) from None


book_app = typer.Typer(
    help="Opening books: build one for any board size, show what one holds.",
    no_args_is_help=True,
)
app.add_typer(book_app, name="book")


@book_app.command("build")
def book_build(
    out: Annotated[Path, typer.Option(help="book file to write (.c4book)")],
    width: Annotated[int, typer.Option(help="board width")] = 7,
    height: Annotated[int, typer.Option(help="board height")] = 6,
    plies: Annotated[
        int, typer.Option(help="solve every position with up to this many stones", min=0)
    ] = 4,
    workers: Annotated[
        int | None,
        typer.Option(help="local worker processes (default: all cores)", min=1, max=MAX_WORKERS),
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (instead of local processes)")
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="continue an interrupted build (OUT.partial)")
    ] = False,
    base_book: Annotated[
        str, typer.Option(help="book used inside the deepest searches: default, none, FILE")
    ] = "default",
    chunk: Annotated[int, typer.Option(help="positions per task", min=1)] = 64,
    json_output: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
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
            f"{summary['bytes']:,} bytes"
        )


@book_app.command("info")
def book_info(
    book: Annotated[
        str, typer.Argument(help="a .c4book file, or bitbully:8-ply|12-ply|12-ply-dist")
    ],
    json_output: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
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


@app.command()
def dataset(
    positions: Annotated[
        int, typer.Option(help="how many distinct positions", min=1, max=MAX_POSITIONS)
    ],
    out: Annotated[Path, typer.Option(help="the .npz file to write")],
    plies: Annotated[
        str | None,
        typer.Option(help="stones per position, a range such as 0-30 (default: every ply)"),
    ] = None,
    seed: Annotated[int, typer.Option(help="sampling seed (same seed, same file)", min=0)] = 0,
    width: Annotated[int, typer.Option(help="board width")] = 7,
    height: Annotated[int, typer.Option(help="board height")] = 6,
    rules: Annotated[str, typer.Option(help="standard (the solver's only rules)")] = "standard",
    book: Annotated[
        str, typer.Option(help="book probed inside the searches: default, none, FILE")
    ] = "default",
    workers: Annotated[
        int | None,
        typer.Option(help="local worker processes (default: all cores)", min=1, max=MAX_WORKERS),
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (instead of local processes)")
    ] = None,
    resume: Annotated[bool, typer.Option(help="continue an interrupted run (OUT.partial)")] = False,
    chunk: Annotated[
        int | None,
        typer.Option(help="positions per task (default: up to 64, 4+ tasks per worker)", min=1),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
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
        )


@app.command()
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
    seed: Annotated[int, typer.Option(help="mcts: random seed", min=0)] = 0,
    solver: Annotated[bool, typer.Option("--solver", help="mcts: MCTS-Solver")] = False,
    min_visits: Annotated[
        int, typer.Option(help="mcts: nodes shown need this many visits", min=1)
    ] = 1,
    budget: Annotated[
        int, typer.Option(help="stop a search that visits more nodes", min=1, max=MAX_NODES)
    ] = 500_000,
    game: Annotated[str, typer.Option(help="connect4 or tictactoe")] = "connect4",
    width: Annotated[int, typer.Option(help="board width (connect4)")] = 7,
    height: Annotated[int, typer.Option(help="board height (connect4)")] = 6,
    rules: Annotated[str, typer.Option(help="standard or count-fours")] = "standard",
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
        raise fail(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if algorithm not in ("minimax", "alphabeta", "mcts"):
        raise fail(f"unknown algorithm {algorithm!r}: choose one of minimax, alphabeta, mcts")
    try:
        position = new_game(game, width, height, rules, moves)
        if algorithm == "mcts":
            recorded = interruptible(
                lambda: mcts_tree(
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
                lambda: search_tree(
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
        raise fail(str(error)) from None
    sys.stdout.write(render(recorded, fmt))


@app.command()
def analyze(
    moves: Annotated[str, typer.Argument(help="position to analyse (default: empty)")] = "",
    game: Annotated[str, typer.Option(help="connect4 or tictactoe")] = "connect4",
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
    width: Annotated[int, typer.Option(help="board width (connect4)")] = 7,
    height: Annotated[int, typer.Option(help="board height (connect4)")] = 6,
    rules: Annotated[str, typer.Option(help="standard or count-fours")] = "standard",
    json_output: Annotated[bool, typer.Option("--json", help="print the rows as JSON")] = False,
    plot: Annotated[str | None, typer.Option(help="write a PNG plot to this file")] = None,
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

    try:
        position = new_game(game, width, height, rules, moves)
        depths = parse_depth(max_depth, position)
        budget = budget or default_budget(position, heuristic)
        if ordering not in ("center", "none"):
            raise ValueError(f"unknown ordering {ordering!r}: choose one of center, none")
        rows = interruptible(
            lambda: compare(
                position, depths, heuristic=heuristic, budget=budget, tt=tt, ordering=ordering
            )
        )
    except ValueError as error:
        raise fail(str(error)) from None
    title = f"{game} {moves or '(empty)'}: minimax vs alpha-beta, heuristic {heuristic}"
    if plot is not None:
        try:
            write_plot(rows, plot, title)
        except OSError as error:
            raise fail(f"cannot write {plot}: {error}") from None
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


@app.command()
def review(
    moves: Annotated[
        str | None,
        typer.Argument(help='the game as a move string, e.g. "4455" (or --results)'),
    ] = None,
    game: Annotated[
        str | None,
        typer.Option(help="connect4 or tictactoe; with --results: the game's number in the file"),
    ] = None,
    results: Annotated[
        Path | None,
        typer.Option(help="an arena results file (JSONL): review its game --game N"),
    ] = None,
    width: Annotated[int | None, typer.Option(help="board width (connect4; default 7)")] = None,
    height: Annotated[int | None, typer.Option(help="board height (connect4; default 6)")] = None,
    rules: Annotated[
        str | None, typer.Option(help="standard (count-fours cannot be solved)")
    ] = None,
    max_nodes: Annotated[
        int | None, typer.Option(help="solver node budget per position (default: none)", min=0)
    ] = None,
    time_limit: Annotated[
        float,
        typer.Option(
            help="seconds for the whole review (0 = no limit); later positions are not proven",
            min=0,
        ),
    ] = 120.0,
    json_output: Annotated[bool, typer.Option("--json", help="print the review as JSON")] = False,
    plot: Annotated[
        str | None, typer.Option(help="write the evaluation graph (PNG) to this file")
    ] = None,
) -> None:
    """Grade every move of a game by exact scores: best, good, mistake or blunder.

    The table gives each ply's verdict, the score kept and the best moves; a
    position the solver cannot settle within the budget is "not proven".

    ``--results FILE --game N`` reviews game N of an arena results file (the
    ``game`` field of its line): the board and rules come from the record, the
    players' specs head the review, and the arena's opening counts for nobody.
    Without ``--results``, ``--game`` is the kind of game (connect4, tictactoe).
    """
    import json
    import time

    from connect4.review import review as review_game
    from connect4.review.report import plot as write_plot, render_table, summary_lines

    deadline = time.perf_counter() + time_limit if time_limit > 0 else None
    try:
        if results is not None:
            from connect4.arena import ArenaError, review_record
            from connect4.arena.store import read_game

            if moves is not None:
                raise fail("give either MOVES or --results FILE --game N, not both")
            board = (("width", width), ("height", height), ("rules", rules))
            given = [f"--{name}" for name, value in board if value is not None]
            if given:
                raise fail(f"{', '.join(given)}: with --results the board comes from the record")
            if game is None or not game.isdigit():
                got = "" if game is None else f", not {game!r}"
                raise fail(
                    f"--results needs --game N, the number of a game in the file (e.g. --game 0)"
                    f"{got}"
                )
            try:
                record = read_game(results, int(game))
            except ArenaError as error:
                raise fail(str(error)) from None
            result = review_record(record, max_nodes=max_nodes, deadline=deadline)
        else:
            if moves is None:
                raise fail("give the game's MOVES, or --results FILE --game N")
            if game is not None and game.isdigit():
                raise fail(
                    f"--game {game} picks a game of an arena results file: add --results FILE "
                    "(without it, --game is connect4 or tictactoe)"
                )
            result = review_game(
                moves, game=game or "connect4", width=7 if width is None else width,
                height=6 if height is None else height, rules=rules or "standard",
                max_nodes=max_nodes, deadline=deadline,
            )  # fmt: skip
    except ValueError as error:
        raise fail(str(error)) from None
    if plot is not None:
        try:
            write_plot(result, plot)
        except OSError as error:
            raise fail(f"cannot write {plot}: {error}") from None
    if json_output:
        typer.echo(json.dumps(result.as_dict()))
        return
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 120)
    console.print(render_table(result))
    for line in summary_lines(result):
        console.print(line)
    if plot is not None:
        console.print(f"plot written to {plot}")


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def solve(ctx: typer.Context) -> None:
    """Pons' protocol: read move strings on stdin, print 'moves score' per line.

    Options: -a/--analyze, -w/--weak, --width W, --height H, --no-book
    (``connect4 solve --help``).
    """
    from connect4.cli.solve import solve_main

    raise typer.Exit(solve_main(list(ctx.args)))


@app.command()
def bench(
    files: Annotated[list[Path], typer.Argument(help="benchmark files of 'moves score' lines")],
    limit: Annotated[int | None, typer.Option(help="first N positions per file", min=1)] = None,
    json_output: Annotated[bool, typer.Option("--json", help="one JSON object per file")] = False,
    weak: Annotated[bool, typer.Option("-w", "--weak", help="check win/draw/loss only")] = False,
    width: Annotated[int, typer.Option(help="board width")] = 7,
    height: Annotated[int, typer.Option(help="board height")] = 6,
) -> None:
    """Solve every position of benchmark files, check the scores, print the timings."""
    from connect4.solver.bench import bench_command

    raise typer.Exit(
        bench_command(
            [str(f) for f in files], limit, json_output, width=width, height=height, weak=weak
        )
    )


def run_app() -> None:
    """Run the typer app (:func:`connect4.cli.main` is the console script)."""
    try:
        app()
    except BrokenPipeError:
        sys.stderr.close()
