"""The ``connect4`` command: play, prepare, serve, arena, lab, book, dataset, train, tree,
analyze, review, explore, threats, puzzles, puzzle, solve, bench.

Each subcommand is a thin wrapper in a module of :mod:`connect4.cli` (one per
group: ``arena``, ``lab``, ``book``, ``dataset``, ``train``, ``analysis``, ``review``,
``explore``, ``threats``, ``puzzles``, ``puzzle``, ``solve``, ``bench``), the options they share
declared once in :mod:`connect4.cli.common`; the work lives in the module of its concept. A command
line loads the one command it names (:data:`COMMANDS`), and heavy modules are
imported inside the commands, so start-up stays fast.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup
from typer.main import get_command

from connect4.cli.common import (
    Game,
    Height,
    Json,
    OptionalSeed,
    Rules,
    Width,
    board_option,
    fail,
    interrupted,
    plain_help,
    stopped,
)

if TYPE_CHECKING:
    from rich.console import Console

    from connect4.core.games import Board
    from connect4.players import Player

COMMANDS = {
    "play": "connect4.cli.app:play",
    "prepare": "connect4.cli.app:prepare",
    "serve": "connect4.cli.app:serve",
    "arena": "connect4.cli.arena:arena",
    "lab": "connect4.cli.lab:lab",
    "book": "connect4.cli.book:book_app",
    "dataset": "connect4.cli.dataset:dataset",
    "train": "connect4.cli.train:train",
    "tree": "connect4.cli.analysis:tree",
    "analyze": "connect4.cli.analysis:analyze",
    "review": "connect4.cli.review:review",
    "explore": "connect4.cli.explore:explore",
    "threats": "connect4.cli.threats:threats",
    "puzzles": "connect4.cli.puzzles:puzzles_app",
    "puzzle": "connect4.cli.puzzle:puzzle",
    "solve": "connect4.cli.solve:solve",
    "bench": "connect4.cli.bench:bench",
    "rate": "connect4.cli.rate:rate",
}
"""Each subcommand, in the order the help lists them, and where it is declared
(``module:function``, or a typer app for a group of commands)."""


def load_command(name: str) -> Any:  # typer's click command type is not public
    """The subcommand ``name`` (a key of :data:`COMMANDS`) as typer builds it from its
    declaration, its module imported now."""
    module, _, attribute = COMMANDS[name].partition(":")
    declared = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer(add_completion=False)
    if isinstance(declared, typer.Typer):  # a group: the holder's one subgroup
        holder.add_typer(declared, name=name)
        command = get_command(holder).commands[name]  # type: ignore[attr-defined]
    else:  # a function: the holder's one command is that command
        holder.command(name=name)(declared)
        command = get_command(holder)
    plain_help(command)
    return command


class LazyCommands(MutableMapping[str, Any]):
    """The subcommands by name, each built (its module imported) when first asked for:
    a command line pays for its own command, the help for all of them."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        self.built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self.built:
            if name not in self.names:
                raise KeyError(name)
            self.built[name] = load_command(name)
        return self.built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self.names:
            self.names.append(name)
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        self.names.remove(name)
        self.built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.names))

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, name: object) -> bool:
        return name in self.names


class Commands(TyperGroup):
    """The subcommands (:data:`COMMANDS`, each loaded when named); a Ctrl-C that a
    command does not handle itself (while it imports or loads its kernels) ends it
    with the one ``interrupted`` line and exit 130, and so does work that stopped
    before it finished (one ``stopped: ...`` line)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        plain_help(self)
        declared = self.commands
        self.commands = LazyCommands(list(COMMANDS))
        self.commands.update(declared)

    def invoke(self, ctx: Any) -> Any:  # typer's own Context type is not public
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise interrupted() from None
        except Exception as error:
            end = stopped(error)
            if end is None:
                raise
            raise end from None


app = typer.Typer(
    cls=Commands,
    name="connect4",
    help="Connect Four and tic-tac-toe: play, solve, analyse search, run AI tournaments.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback(invoke_without_command=True)
def root(
    version: Annotated[bool, typer.Option("--version", help="show the version and exit")] = False,
) -> None:
    """Connect Four and tic-tac-toe: play, solve, analyse search, run AI tournaments."""
    if version:
        from connect4.core.version import __version__

        typer.echo(f"connect4 {__version__}")
        raise typer.Exit()


def play(
    red: Annotated[
        str, typer.Option(help="red (first player) spec: human, random, perfect, ...")
    ] = "human",
    yellow: Annotated[
        str, typer.Option(help="yellow spec; 'auto' = the strongest AI available")
    ] = "auto",
    game: Game = "connect4",
    width: Width = 7,
    height: Height = 6,
    rules: Rules = "standard",
    seed: OptionalSeed = None,
    json_output: Json = False,
    hint: Annotated[str | None, typer.Option(help="player spec used for 'h' hints")] = None,
    no_review: Annotated[
        bool, typer.Option("--no-review", help="skip the game review summary at the end")
    ] = False,
    practice: Annotated[
        bool | None,
        typer.Option(
            "--practice/--no-practice",
            help="after the review, practise the humans' mistakes: at once (answers read "
            "from stdin too) or never; by default asked on a terminal, not when stdin is piped",
        ),
    ] = None,
) -> None:
    """Play a game in the terminal. Type a column number, u (undo), h (hint) or q (quit).

    A finished game ends with the game review's summary (accuracy, mistakes,
    blunders, the decisive move) unless ``--no-review``, then the offer to
    practise the humans' mistakes, blunders and missed wins (as ``connect4
    review --practice``).
    """
    from rich.console import Console

    from connect4.core.files import LineTooLongError
    from connect4.players import PlayerSpecError
    from connect4.terminal import (
        play_game,
        ready_players,
        solver_compiling,
        start_solver_compile,
        strongest_ai,
    )

    board = board_option(game, width, height, rules)
    start = board.new()
    console = Console(stderr=json_output, highlight=False)
    compiling = start_solver_compile(start)  # on a thread: the first prompt does not wait
    specs = [strongest_ai(game, rules) if spec == "auto" else spec for spec in (red, yellow)]
    try:
        players = ready_players(
            specs, [side == "auto" for side in (red, yellow)], board, seed, compiling
        )
    except PlayerSpecError as error:
        raise fail(error) from None
    for line in opponent_lines(game, (red, yellow), specs):
        console.print(line)
    try:  # a Ctrl-C: the players are closed, the CLI's policy ends it
        record = play_game(
            start,
            players[0],
            players[1],
            game_name=game,
            console=console,
            hint_spec=hint,
        )
    except LineTooLongError as error:  # a flood on stdin: refused before it fills memory
        raise fail(f"{error}: the rest of the input is not read", 1) from None
    finally:
        for player in players:
            player.close()
    from connect4.solver.backend import background_compiles, wait_for_compile

    # the solver's check (on a thread since the start) answered: a first run's compile
    still_compiling = board.kind == "connect4" and solver_compiling(board.width, board.height)
    if json_output:
        typer.echo(record.to_json())
    elif record.finished and record.forfeit is None and not no_review:
        if still_compiling:
            console.print("[dim]the review needs the solver: still compiling...[/]")
            wait_for_compile(board.width, board.height)
        _review_and_practise(record.moves, board, players, console, practice)
    for pid in background_compiles():
        console.print(f"[dim]the solver goes on compiling in the background (process {pid})[/]")
    if record.forfeit is not None:
        raise typer.Exit(1)


def _review_and_practise(
    moves: str, board: Board, players: list[Player], console: Console, practice: bool | None
) -> None:
    """The end of a finished game: its review's summary, then the practice of the
    humans' mistakes (``--practice``: at once, ``--no-practice``: never, else offered
    on a terminal)."""
    from connect4.core.files import LineTooLongError
    from connect4.terminal import LineReader, game_review, summary_of
    from connect4.terminal.practice import offer_practice

    result = game_review(moves, board)
    if result is None:
        return
    for line in summary_of(result):
        console.print(line)
    humans = [side + 1 for side, player in enumerate(players) if player.is_human]
    try:
        offer_practice(result, humans, console, LineReader(sys.stdin, console), ask=practice)
    except LineTooLongError as error:  # a flood on stdin: refused before it fills memory
        raise fail(f"{error}: the rest of the input is not read", 1) from None


def opponent_lines(game: str, asked: tuple[str, str], specs: list[str]) -> list[str]:
    """Who plays whom, when ``auto`` chose a side's AI.

    >>> opponent_lines("connect4", ("human", "auto"), ["human", "perfect"])
    ['you play Red against perfect (auto: the strongest AI here)']
    >>> opponent_lines("tictactoe", ("auto", "auto"), ["alphabeta:depth=9"] * 2)
    ['X is alphabeta:depth=9 (auto)', 'O is alphabeta:depth=9 (auto)']
    >>> opponent_lines("connect4", ("human", "random"), ["human", "random"])
    []
    """
    from connect4.terminal import PLAYER_NAMES

    names = [name.capitalize() if len(name) > 1 else name for name in PLAYER_NAMES[game]]
    chosen = [side for side in (0, 1) if asked[side] == "auto"]
    humans = [side for side in (0, 1) if specs[side] == "human"]
    if len(chosen) == 1 and len(humans) == 1:
        return [
            f"you play {names[humans[0]]} against {specs[chosen[0]]} (auto: the strongest AI here)"
        ]
    return [f"{names[side]} is {specs[side]} (auto)" for side in chosen]


def prepare() -> None:
    """Compile everything ahead of time (once; cached on disk afterwards): the solver's
    kernels, for every board size the browser app offers (8x8, 9x7 and 10x6 have
    their own), the compiled searches and the vectorised environment's loop.

    Otherwise each compiles the first time it is used: the first computer move of a
    game waits for it, and ``connect4 serve`` compiles the big boards' solvers in the
    background. ``make test`` runs this first; ``make play`` does not (the game
    compiles in the background while you play). Fast when nothing is left to do.
    """
    import time

    from connect4.classic import fastmcts, fastsearch
    from connect4.core.bits import fits_word
    from connect4.solver import warm_up
    from connect4.solver.backend import compile_big_in_background, wait_for_compile

    try:
        from connect4.web.settings import BOARD_SIZES
    except ImportError:  # without the web extra there is no page to offer big boards
        big: list[tuple[int, int]] = []
    else:
        big = [(width, height) for width, height in BOARD_SIZES if not fits_word(width, height)]
    for width, height in big:  # side by side, in child processes below this one's priority
        compile_big_in_background(width, height)

    def big_board(width: int, height: int) -> Callable[[], object]:
        return lambda: (wait_for_compile(width, height), warm_up(width, height))

    steps: list[tuple[str, Callable[[], object]]] = [
        ("the perfect solver's kernel", warm_up),
        ("the solver's kernel for boards other than 7x6", lambda: warm_up(9, 5)),
        ("the compiled classic search", fastsearch.warm_up),
        ("the compiled Monte Carlo tree search", fastmcts.warm_up),
    ]
    try:
        from connect4.envs import vector
    except ImportError:  # without the rl extra (gymnasium) there is no vectorised env
        pass
    else:
        steps.append(("the vectorised environment's compiled loop", vector.warm_up))
    steps += [
        (f"the solver's kernel for {width}x{height} boards", big_board(width, height))
        for width, height in big
    ]
    for label, step in steps:
        started = time.perf_counter()
        typer.echo(f"preparing {label}...", err=True)  # own line: a compile notice may follow
        step()
        typer.echo(f"{label}: ready ({time.perf_counter() - started:.1f} s)", err=True)


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
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            help="comma-separated addresses of the reverse proxies whose X-Forwarded-For "
            "(the client's address) is believed, '*' for any; by default none: every client "
            "is the connection's peer"
        ),
    ] = "",
    games: Annotated[
        list[Path] | None,
        typer.Option(
            "--games",
            help="a game collection the opening explorer counts (/api/explore): arena or lab "
            "results, or a file of move strings; repeat for more",
        ),
    ] = None,
    puzzles: Annotated[
        Path | None,
        typer.Option(
            "--puzzles",
            help="the puzzles file /api/puzzle and the page's puzzles serve (JSONL, as "
            "`connect4 puzzles generate` writes); by default the package's own",
        ),
    ] = None,
) -> None:
    """Serve the browser app and the JSON API (docs at /docs) with uvicorn.

    It says when it accepts connections (the first start on a machine compiles for up
    to a minute before). Ctrl-C (or SIGTERM) cancels the requests in flight (503) and
    stops within a moment; a second Ctrl-C stops at once."""
    from connect4.core.errors import require

    try:
        require("fastapi", "uvicorn", "fastapi_offline")
    except ValueError as error:
        raise fail(error) from None
    from connect4.web.server import run_server
    from connect4.web.settings import Settings

    try:
        collection = _games_files(games or [])
        settings = Settings(
            threads=threads,
            queue=queue,
            time_limit=time_limit,
            cache_size=cache,
            games=collection,
            puzzles=_puzzles_file(puzzles),
        )
        run_server(
            settings, host=host, port=port, workers=workers, forwarded_allow_ips=forwarded_allow_ips
        )
    except (OSError, ValueError) as error:
        raise fail(error, flags={"cache_size": "--cache"}) from None


def _games_files(paths: list[Path]) -> tuple[str, ...]:
    """The ``--games`` files as the server reads them (absolute paths), each read once now
    so a file that cannot be counted is refused before the server starts."""
    from connect4.core.games import Board
    from connect4.learn.collection import count_games_files

    count_games_files(paths, Board())
    return tuple(str(path.resolve()) for path in paths)


def _puzzles_file(path: Path | None) -> str | None:
    """The ``--puzzles`` file as the server reads it (an absolute path), read once now so
    a file that is no puzzles file is refused before the server starts."""
    if path is None:
        return None
    from connect4.learn.puzzleindex import PuzzleIndex

    PuzzleIndex.load(path)
    return str(path.resolve())


def run_app() -> None:
    """Run the typer app (:func:`connect4.cli.main` is the console script) as
    ``connect4``, however it was started (``python -m connect4`` too). An optional
    part that is not installed is one line naming the command that installs it."""
    from connect4.core.errors import MissingExtra

    try:
        app(prog_name="connect4")
    except BrokenPipeError:
        sys.stderr.close()
    except ModuleNotFoundError as error:
        missing = MissingExtra.of_module(error.name or "")
        if missing is None:
            raise
        typer.echo(f"error: {missing}", err=True)
        sys.exit(2)
