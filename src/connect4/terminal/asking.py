"""Asking a person one question in a terminal until it is answered: the prompt read
again and again (a line of stdin each time when stdin is not a terminal), the words
that stop (``q``) and the end of input handled once for every kind of question
(a practice's exercise, a puzzle's move).

>>> import io
>>> from rich.console import Console
>>> from connect4.terminal.turns import LineReader
>>> console = Console(file=io.StringIO(), width=80)
>>> reader = LineReader(io.StringIO("x\\n4\\n"), console)
>>> ask_until(reader, console, "? ", lambda line: 4 if line == "4" else None, "stop")
4
>>> ask_until(LineReader(io.StringIO("q\\n"), console), console, "? ", lambda _: 1, "stop")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rich.console import Console

from connect4.terminal.turns import LineReader

QUIT_WORDS = ("q", "quit", "exit")
"""What a person types to stop: the same words as in a game."""

T = TypeVar("T")


def ask_until(
    reader: LineReader,
    console: Console,
    prompt: str,
    answer: Callable[[str], T | None],
    stop: str,
) -> T | None:
    """Prompt until ``answer`` (given the line, stripped and lower-cased) says the
    question is over with a value other than ``None``; ``None`` when the person stops
    instead (one of :data:`QUIT_WORDS`, or the end of input), said as ``stop`` (a
    sentence: "the practice stops here")."""
    while True:
        line = reader.read(prompt)
        if line is None:
            console.print(f"[bold]end of input[/]: {stop}")
            return None
        command = line.strip().lower()
        if command in QUIT_WORDS:
            console.print(stop)
            return None
        result = answer(command)
        if result is not None:
            return result
