"""The ``connect4`` command: play, solve, bench, tree, analyze, book, arena, serve.

Each subcommand is a thin wrapper; the work lives in the module of its concept.
Heavy modules are imported inside the commands so start-up stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="connect4",
    help="Connect Four and tic-tac-toe: play, solve, analyse search, run AI tournaments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@app.callback()
def root(
    version: Annotated[bool, typer.Option("--version", help="show the version and exit")] = False,
) -> None:
    """Connect Four and tic-tac-toe: play, solve, analyse search, run AI tournaments."""
    if version:
        from connect4 import __version__

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
) -> None:
    """Play a game in the terminal. Type a column number, u (undo), h (hint) or q (quit)."""
    from rich.console import Console

    from connect4.players import PlayerSpecError, make_player
    from connect4.terminal import new_game, play_game, strongest_ai

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


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    workers: Annotated[
        int, typer.Option(help="solver/search threads per lane (quick and deep)", min=1, max=64)
    ] = 2,
    queue: Annotated[
        int, typer.Option(help="waiting places per lane before HTTP 503", min=0, max=10000)
    ] = 128,
    time_limit: Annotated[
        float, typer.Option(help="seconds per request before HTTP 503", min=0.1)
    ] = 10.0,
) -> None:
    """Serve the browser app and the JSON API (docs at /docs) with uvicorn."""
    from connect4.web.server import run_server

    try:
        run_server(host=host, port=port, workers=workers, queue=queue, time_limit=time_limit)
    except (OSError, ValueError) as error:
        raise fail(str(error)) from None


@app.command()
def arena(
    players: Annotated[
        list[str] | None,
        typer.Option("--players", "-p", help="player specs (quote specs with spaces)"),
    ] = None,
    more: Annotated[
        list[str] | None, typer.Argument(help="more player specs", show_default=False)
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
    results: Annotated[
        Path | None, typer.Option(help="append each finished game to this JSONL file")
    ] = None,
    resume: Annotated[bool, typer.Option(help="continue the tournament in --results")] = False,
    workers: Annotated[int, typer.Option(help="local worker processes", min=1)] = 1,
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
    accuracy_nodes: Annotated[
        int, typer.Option(help="solver node budget per position for accuracy (0 = off)", min=0)
    ] = 200_000,
) -> None:
    """AI-vs-AI tournament: round robin (or gauntlet), ratings, accuracy, resumable results."""
    from connect4.arena import ArenaError, arena_main

    try:
        code = arena_main(
            players=[*(players or []), *(more or [])],
            gauntlet=gauntlet,
            games_per_pair=games_per_pair,
            openings=openings,
            time_per_move=time_per_move,
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
            accuracy_nodes=accuracy_nodes,
        )
    except (ArenaError, OSError) as error:
        raise fail(str(error)) from None
    if code:
        raise typer.Exit(code)


def main() -> None:
    """Entry point of the ``connect4`` console script."""
    try:
        app()
    except BrokenPipeError:
        sys.stderr.close()


if __name__ == "__main__":
    main()
