"""A Kaggle ConnectX agent file behind the external-bot protocol (the ``kaggle:`` player).

The ``kaggle:PATH`` player runs ``python kaggle_runner.py PATH`` as an
external bot (:mod:`connect4.players.external` drives it: time limits,
forfeits, killing). This script loads the agent as Kaggle does and answers
the protocol's lines::

    init connect4 <width> <height> <colour> standard  ->  ready
    move <moves or -> <seconds or ->                   ->  the agent's column, 1-based
    quit                                               ->  (exits)

Loading follows Kaggle's ``get_last_callable``: the file runs in a fresh
namespace with its folder appended to ``sys.path``, and the agent is the last
callable that namespace holds. Each move calls it with an ``observation``
(``board``: the cells row by row, top row first, 0 empty, 1 and 2 the marks;
``mark``: the agent's, 1 moves first; ``step``: the stones played;
``remainingOverageTime``) and a ``configuration`` (``columns``, ``rows``,
``inarow``, ``actTimeout`` and ``timeout``: the move's time limit, ...), both
dicts whose keys are also attributes, like Kaggle's ``Struct``; an agent
that takes one argument gets the observation only.

Only a plain ``int`` is a column, as Kaggle's action schema says (a numpy
integer, a float or a string is not): anything else is written back as its
``repr``, which the arena records as ``bad output``. An exception in the
agent ends this process with the traceback on stderr (``crash``). Whatever
the agent prints goes to stderr, never into the protocol.

This file imports nothing of the package but the core, so the agent's
process holds what the agent imports and little more.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

if __name__ == "__main__":  # run as a script: the package comes from this file's installation
    sys.path[0] = str(Path(__file__).resolve().parents[2])

from connect4.core.errors import Connect4Error
from connect4.core.files import LineTooLongError, read_input_line
from connect4.core.position import Position

KAGGLE_CONFIGURATION = {"episodeSteps": 1000, "runTimeout": 1200, "inarow": 4}
"""ConnectX's configuration fields that the arena does not set."""
KAGGLE_ACT_TIMEOUT = 2  # ConnectX's per-move seconds, told to agents when the arena sets none
KAGGLE_OVERAGE = 60  # ConnectX's overage bank, told to agents when the arena sets no limit
NUMBER = re.compile(r"[+-]?\d+")


class AgentError(Connect4Error):
    """The agent file cannot be loaded, or the arena said something unexpected."""


class Struct(dict[str, object]):
    """A dict whose keys are also attributes, as Kaggle passes observations.

    >>> s = Struct(columns=7, rows=6)
    >>> s.columns, s["rows"]
    (7, 6)
    """

    def __init__(self, **entries: object) -> None:
        super().__init__(entries)
        self.__dict__.update(entries)

    def __setattr__(self, name: str, value: object) -> None:
        self.__dict__[name] = value
        self[name] = value


def load_agent(path: Path) -> Callable[..., object]:
    """The last callable a ConnectX agent file defines, loaded as Kaggle loads it."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AgentError(f"cannot read {path}: {error}") from None
    namespace: dict[str, object] = {}
    code = compile(source, str(path), "exec")
    sys.path.append(str(path.parent))  # the agent may import files beside it
    try:
        exec(code, namespace)
    finally:
        sys.path.remove(str(path.parent))
    agents = [value for value in namespace.values() if callable(value)]
    if not agents:
        raise AgentError(f"{path} defines no function: the last one it defines is the agent")
    return agents[-1]


def observe(position: Position, mark: int, seconds: float | None) -> tuple[Struct, Struct]:
    """The ``observation`` and ``configuration`` Kaggle would pass for ``position``.

    >>> observation, configuration = observe(Position.from_moves("41", 4, 2), 1, 0.5)
    >>> observation.board, observation.mark, observation.step, configuration.actTimeout
    ([0, 0, 0, 0, 2, 0, 0, 1], 1, 2, 0.5)
    """
    width, height = position.width, position.height
    board = [position.cell(c, height - 1 - r) for r in range(height) for c in range(width)]
    overage = KAGGLE_OVERAGE if seconds is None else 0  # the arena keeps no time bank
    limit = KAGGLE_ACT_TIMEOUT if seconds is None else seconds
    observation = Struct(remainingOverageTime=overage, step=position.ply, board=board, mark=mark)
    configuration = Struct(
        **KAGGLE_CONFIGURATION,
        columns=width,
        rows=height,
        actTimeout=limit,
        timeout=limit,
        agentTimeout=overage,
    )
    return observation, configuration


def reply_of(action: object) -> str:
    """The protocol line for an agent's answer: a 1-based column, or the answer's ``repr``.

    >>> reply_of(3), reply_of(3.0), reply_of("3"), reply_of(True)
    ('4', '3.0', "'3'", 'True')
    """
    if isinstance(action, int) and not isinstance(action, bool):
        return str(action + 1)
    try:
        text = " ".join(repr(action).split())
    except Exception:
        text = f"<unprintable {type(action).__name__}>"
    if NUMBER.fullmatch(text):  # an object that prints as a number is still not an int
        text = f"{type(action).__name__}({text})"
    return text


def serve(agent_path: Path, commands: TextIO, replies: TextIO) -> None:
    """Answer the protocol on ``commands`` / ``replies`` until ``quit`` or end of input
    (a line longer than :data:`~connect4.core.files.MAX_INPUT_LINE` is an error)."""
    agent: Callable[..., object] | None = None
    width = height = 0
    mark = 1
    for number in itertools.count(1):
        try:
            line = read_input_line(commands, number)
        except LineTooLongError as error:
            raise AgentError(f"from the arena: {error}") from None
        if line is None:
            return
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            return
        if words[0] == "init" and len(words) == 6:
            game, columns, rows, colour, rules = words[1:]
            if game != "connect4" or rules != "standard":
                raise AgentError(f"ConnectX agents play standard Connect Four, not {game} {rules}")
            width, height, mark = int(columns), int(rows), 1 if colour == "red" else 2
            agent = load_agent(agent_path)
            replies.write("ready\n")
        elif words[0] == "move" and len(words) == 3 and agent is not None:
            moves = "" if words[1] == "-" else words[1]
            seconds = None if words[2] == "-" else float(words[2])
            position = Position.from_moves(moves, width, height)
            observation, configuration = observe(position, mark, seconds)
            code = getattr(agent, "__code__", None)
            arguments = [observation, configuration][: getattr(code, "co_argcount", 2)]
            replies.write(reply_of(agent(*arguments)) + "\n")
        else:
            raise AgentError(f"unexpected line from the arena: {line.strip()[:80]!r}")
        replies.flush()


def main(argv: list[str]) -> int:
    """Run the agent file ``argv[1]``; exit status 1 when it fails (traceback on stderr)."""
    if len(argv) != 2:
        print("usage: kaggle_runner.py AGENT_FILE", file=sys.stderr)
        return 2
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the agent's prints, even from C code or children, go to stderr
    sys.stdout = sys.stderr
    try:
        serve(Path(argv[1]), sys.stdin, replies)
    except AgentError as error:
        print(f"kaggle agent: {error}", file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
