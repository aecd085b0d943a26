"""Kaggle ConnectX agents as players: the ``kaggle:PATH`` kind.

A ConnectX submission is a Python file whose last function is the agent,
``agent(observation, configuration) -> column``. ``kaggle:PATH`` runs such a
file in its own process through :mod:`connect4.players.kaggle_runner`, which
speaks the external-bot protocol, so the arena's time limits and forfeits
(:class:`~connect4.players.external.BotFault`) apply as to any ``cmd:`` bot:
an agent that raises forfeits with ``crash`` (the exception on the record),
one too slow with ``timeout``, one that answers a full or missing column with
``illegal move N`` (N 1-based, the arena's notation) and one that answers
anything but an ``int`` with ``bad output``.

ConnectX agents play standard Connect Four on any board the package plays;
``count-fours`` rules and tic-tac-toe have no ConnectX form.

>>> from pathlib import Path
>>> from connect4 import Position
>>> agent = Path(__file__).resolve().parents[3] / "examples" / "kaggle_agent.py"
>>> player = make_kaggle(str(agent), time_limit=10.0)
>>> player.choose(Position.from_moves("444")).move  # the example blocks column 4
3
>>> player.close()
"""

from __future__ import annotations

import sys
from pathlib import Path

from connect4.core.files import FileError, read_input_bytes
from connect4.players.base import PlayerContext
from connect4.players.external import ExternalPlayer
from connect4.players.registry import PlayerKind, PlayerSpecError

RUNNER = Path(__file__).with_name("kaggle_runner.py")
MAX_AGENT_BYTES = 16 << 20  # the largest agent file read (Kaggle allows 100 MB archives, not .py)
"""The script that runs an agent file behind the bot protocol."""


def agent_command(argument: str) -> list[str]:
    """The argv that runs the agent file ``argument``; raises :class:`PlayerSpecError`.

    The file must exist, be a file (not a folder or a device such as
    ``/dev/zero``) and compile: a syntax error is the spec's fault, found
    before any game starts.

    >>> agent_command("no/such/agent.py")
    Traceback (most recent call last):
    ...
    connect4.players.registry.PlayerSpecError: kaggle: agent file 'no/such/agent.py' not found
    >>> agent_command("/dev/zero")
    Traceback (most recent call last):
    ...
    connect4.players.registry.PlayerSpecError: kaggle: agent file /dev/zero is a device, not a file
    """
    text = argument.strip()
    if not text:
        raise PlayerSpecError("kaggle: needs an agent file, e.g. kaggle:my_agent.py")
    path = Path(text).expanduser()
    if not path.exists():
        raise PlayerSpecError(f"kaggle: agent file {text!r} not found")
    try:
        data = read_input_bytes(path, what="agent file", max_bytes=MAX_AGENT_BYTES)
    except FileError as error:  # a folder, a device, a FIFO, too large: said as such
        raise PlayerSpecError(f"kaggle: {error}") from None
    try:
        source = data.decode()
    except UnicodeDecodeError as error:
        raise PlayerSpecError(f"kaggle: cannot read {text!r}: {error}") from None
    try:
        compile(source, str(path), "exec")
    except (SyntaxError, ValueError) as error:
        where = f" line {error.lineno}" if isinstance(error, SyntaxError) else ""
        message = error.msg if isinstance(error, SyntaxError) else str(error)
        raise PlayerSpecError(f"kaggle: {text}{where}: {message}") from None
    return [sys.executable, str(RUNNER), str(path.resolve())]


def check_context(context: PlayerContext) -> None:
    """Refuse the games ConnectX has no form for (count-fours rules)."""
    if context.board.rules != "standard":
        raise PlayerSpecError(
            f"kaggle: ConnectX agents play standard rules only, not {context.board.rules}"
        )


def make_kaggle(
    argument: str, context: PlayerContext | None = None, time_limit: float | None = None
) -> ExternalPlayer:
    """A player for the agent file ``argument`` (the text after ``kaggle:``)."""
    check_context(context := context or PlayerContext())
    return ExternalPlayer(f"kaggle:{argument}", agent_command(argument), context, time_limit)


def build_kaggle(spec: str, options: dict[str, object], context: PlayerContext) -> ExternalPlayer:
    """The ``kaggle`` kind's builder (registered in :mod:`connect4.players`)."""
    check_context(context)
    return ExternalPlayer(spec, agent_command(str(options.get("argument", ""))), context)


KAGGLE = PlayerKind(
    name="kaggle",
    description="a Kaggle ConnectX agent file (its last function is the agent): kaggle:PATH",
    options={},
    build=build_kaggle,
    games=("connect4",),
    free_argument=True,
    rehearse=False,  # as cmd: the clock starts once the agent is loaded and ready
)
