"""What every ``connect4`` subcommand shares: its options, declared once, and the
ways a command ends (``error: ...`` with exit 2, Ctrl-C or a stop with exit 130).

A command writes ``game: Game = "connect4"`` (any default it likes) and gets the
same flag, help and checks as every other command; a command that needs a flag
read differently (``review --game N``) declares that one itself.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperOption

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from connect4.core.games import Board
    from connect4.core.limits import Limit

MAX_WORKERS = 4 * (os.cpu_count() or 1)  # more processes than this only thrash
MAX_PLAYOUTS = 100_000_000  # an MCTS tree's playouts (the mcts player's own cap)
MAX_NODES = 1_000_000_000  # a node budget; past it a search runs for hours
MAX_TREE_NODES = 10_000_000  # a recorded tree's nodes: minutes in the recording engine
MAX_POSITIONS = 100_000_000  # a data set's positions (about 1 GB of labels)

Game = Annotated[str, typer.Option(help="connect4 or tictactoe")]
Width = Annotated[int, typer.Option(help="board width (connect4)")]
Height = Annotated[int, typer.Option(help="board height (connect4)")]
Rules = Annotated[str, typer.Option(help="standard or count-fours")]
Moves = Annotated[
    str, typer.Argument(help='the position as a move string, e.g. "4453" ("" = empty)')
]


def board_option(game: str, width: int, height: int, rules: str) -> Board:
    """The board a command's ``--game``, ``--width``, ``--height`` and ``--rules`` name; a
    bad one ends the command with its precise message."""
    from connect4.core.games import Board

    try:
        return Board(game, width, height, rules)
    except ValueError as error:
        raise fail(error) from None


def seed_in_range(value: int | None) -> int | None:
    """A ``--seed`` the players take (0..SEED_MAX); a precise error otherwise."""
    if value is None:
        return None
    from connect4.players.options import SEED_MAX  # here: the CLI starts without numpy

    if not 0 <= value <= SEED_MAX:
        raise typer.BadParameter(f"must be in 0..{SEED_MAX} (the players' seeds), not {value}")
    return value


Seed = Annotated[
    int,
    typer.Option(
        help="random seed (the same seed, the same run; games derive their own)",
        callback=seed_in_range,
    ),
]
OptionalSeed = Annotated[
    int | None,
    typer.Option(help="seed for reproducible random choices", callback=seed_in_range),
]
Workers = Annotated[int, typer.Option(help="local worker processes", min=1, max=MAX_WORKERS)]
AllCoresWorkers = Annotated[
    int | None,
    typer.Option(help="local worker processes (default: all cores)", min=1, max=MAX_WORKERS),
]
Scheduler = Annotated[
    str | None, typer.Option(help="Dask scheduler address (instead of local processes)")
]
Json = Annotated[bool, typer.Option("--json", help="print the result as JSON")]
Resume = Annotated[
    bool,
    typer.Option(help="continue an interrupted run from its results file or journal (OUT.partial)"),
]

Force = Annotated[
    bool,
    typer.Option(
        help="replace an output file that exists (without it, an existing file is refused)"
    ),
]


FLAGS = {"accuracy_nodes": "--review"}
"""Settings whose flag is not their name (the arena's review budget comes with ``--review``)."""


def flag(setting: str) -> str:
    """The flag of a library setting: ``games_per_pair`` -> ``--games-per-pair``."""
    return FLAGS.get(setting, "--" + setting.replace("_", "-"))


def fail(
    message: str | Exception, code: int = 2, *, flags: Mapping[str, str] | None = None
) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise; a library error
    names the setting at fault by its flag (``flags``: a command's own flags for some
    settings, e.g. the lab's ``--games`` for ``games_per_pair``)."""
    from connect4.core.errors import Connect4Error

    if isinstance(message, Connect4Error):
        own = flags or {}
        message = message.worded(lambda setting: own.get(setting) or flag(setting))
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def plain_help(command: Any) -> None:
    """Help text as people read it, for ``command`` (a typer command or group) and every
    subcommand under it: the docstrings' literal markup (````--flag````) shown without
    its backticks. (A flag's type is left out of every help: :func:`_option_type`.)"""
    for attribute in ("help", "short_help"):
        text = getattr(command, attribute, None)
        if text:
            setattr(command, attribute, _paragraphs(text.replace("``", "")))
    for param in command.params:
        if getattr(param, "help", None):
            param.help = param.help.replace("``", "")
    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)


def _paragraphs(text: str) -> str:
    """A docstring's paragraphs each on one line (typer keeps the source's line breaks
    after the first paragraph), except those with indented or ``-`` lines (a list).

    >>> _paragraphs("One\\ntwo.\\n\\nThree\\nfour.\\n\\n- a\\n- b")
    'One two.\\n\\nThree four.\\n\\n- a\\n- b'
    """
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        p
        if any(line[:1].isspace() or line.startswith("- ") for line in p.splitlines())
        else " ".join(p.splitlines())
        for p in paragraphs
    )


_typer_option_type = TyperOption.display_type_rich


def _option_type(option: TyperOption, ctx: Any) -> str | None:
    """An option's type as the help shows it: none for a flag, which takes no value
    (typer writes ``<bool>`` beside every flag, ``--help`` included)."""
    return None if option.is_flag else _typer_option_type(option, ctx)


setattr(TyperOption, "display_type_rich", _option_type)  # noqa: B010 (typer's own method)


def interrupted(note: str = "") -> typer.Exit:
    """The command line's answer to a Ctrl-C (its one policy, :func:`connect4.cli.say_interrupted`):
    one ``interrupted`` line on stderr, ``interrupted: note`` when the command says what
    it kept, and the Exit (130) to raise."""
    from connect4.cli import INTERRUPTED, say_interrupted

    say_interrupted(note)
    return typer.Exit(INTERRUPTED)


@contextlib.contextmanager
def keeping(note: Callable[[], str]) -> Iterator[None]:
    """What a command says it kept when a Ctrl-C stops the block: ``note()`` (asked
    then, so it can look at what is on disk) becomes the policy's one line, exit 130."""
    try:
        yield
    except KeyboardInterrupt:
        raise interrupted(note()) from None


def kept_in(path: Path | None, what: str, resume: str = "--resume") -> Callable[[], str]:
    """The note (for :func:`keeping`) of a command whose finished work is kept in
    ``path``: ``what`` (with its verb) is there and ``resume`` (the flag or the rerun the command
    needs) continues it; nothing to resume when the file was never written; no note
    (``path`` ``None``) when the command keeps nothing on disk.

    >>> kept_in(Path("/nonexistent.partial"), "the moves judged so far are")()
    'nothing was finished, nothing to resume'
    >>> kept_in(Path("/"), "the finished tasks are", "a rerun of the same command")()
    'the finished tasks are in / (resume with a rerun of the same command)'
    """

    def note() -> str:
        if path is None:
            return ""
        if not path.exists():
            return "nothing was finished, nothing to resume"
        return f"{what} in {path} (resume with {resume})"

    return note


def stopped(error: BaseException) -> typer.Exit | None:
    """For work stopped before it finished (a :class:`~connect4.core.errors.Stopped`:
    a time limit, a node budget), print ``stopped: ...`` on stderr and return the Exit
    (130) to raise; ``None`` for any other exception, bad input included."""
    errors = sys.modules.get("connect4.core.errors")  # not loaded: nothing was stopped
    if errors is None or not isinstance(error, errors.Stopped):
        return None
    typer.echo(f"stopped: {error}", err=True)
    return typer.Exit(130)


T = TypeVar("T")


def interruptible(work: Callable[[Limit], T], limit: Limit | None = None) -> T:
    """Run ``work(limit)`` so that Ctrl-C ends the command at once: ``limit`` is
    stopped and the CLI's policy ends the command (exit 130, the one line; nothing
    written, the thinking thread left to the process exit)."""
    from connect4.core.limits import run_interruptible

    return run_interruptible(work, limit)


def echo_summary(summary: DataclassInstance, json_output: bool, text: str) -> None:
    """A finished command's last words: its ``summary`` as one JSON object (``--json``),
    else ``text`` for people."""
    typer.echo(json.dumps(asdict(summary)) if json_output else text)


def damaged_note(damaged: int) -> str:
    """What a resumed job says about journal records it found damaged and redid."""
    if not damaged:
        return ""
    return f"; {damaged} damaged journal record{'s' if damaged != 1 else ''} recomputed"


def run_job(command: Callable[[], T], out: Path, resume: str = "--resume") -> T:
    """Run a resumable job (``book build``, ``dataset``, ``puzzles generate``) writing
    ``out``, its work journalled beside it (:func:`~connect4.core.journal.journal_path`):
    bad input exits 2 with its message; Ctrl-C or a stop exits 130 with one line
    saying how to resume: ``resume``, what this command needs (its flag, or a rerun)."""
    from connect4.core.journal import journal_path
    from connect4.core.processes import JobInterrupted

    try:
        with keeping(kept_in(journal_path(out), "the work done so far is", resume)):
            return command()
    except JobInterrupted as error:
        note = f"{error.job} stopped after {error.done:,} {error.unit}; resume with {resume}"
        raise interrupted(f"{note} (journal {error.journal})") from None
    except (ValueError, OSError) as error:
        raise fail(error) from None
