"""Practising a game's mistakes in a terminal: each exercise's board and question, a
prompt for a move (or ``h``/``?`` for the answer and its line, ``s`` to skip, ``q`` to
stop), the grade, and the summary at the end.

As in a game, with stdin not a terminal the answers are read one per line, so a
practice can be piped in::

    printf '4\\nh\\n' | connect4 review 4455 --practice
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console

from connect4.core.limits import Limit, run_interruptible
from connect4.learn.practice import Exercise, Practice, PracticeError, PracticeSummary
from connect4.terminal.asking import ask_until
from connect4.terminal.show import render_board
from connect4.terminal.turns import LineReader

if TYPE_CHECKING:
    from connect4.review import Review

REVEAL_SECONDS = 30.0
"""How long the solver's line of a revealed answer may take (a line it cuts short ends
where the time ran out, marked ``…``)."""

REVEAL_WORDS = ("h", "?", "hint")
SKIP_WORDS = ("s", "skip")

GRADE_STYLES = {"best": "green", "right": "green", "better": "yellow", "wrong": "red"}


def practise(
    practice: Practice,
    console: Console,
    reader: LineReader,
    *,
    reveal_seconds: float = REVEAL_SECONDS,
) -> PracticeSummary:
    """Step through ``practice``'s exercises on ``console``, answers read by ``reader``,
    until each has ended or the person stops (``q``, the end of input); its summary is
    printed last and returned. A Ctrl-C is raised on (the interface's policy). Each
    sentence is one line, however long (the terminal wraps it)."""
    total = len(practice.exercises)
    if not total:
        console.print("nothing to practise: no mistake, blunder or missed win was proven")
        return practice.summary()
    console.print(f"[bold]Practise your mistakes[/]: {total} exercise{'s' if total != 1 else ''}")
    while (exercise := practice.current) is not None:
        question = exercise.question()
        console.print(
            f"\n[bold]Exercise {practice.number} of {total}[/]: {question}", soft_wrap=True
        )
        console.print(render_board(exercise.game()))
        if not _ask(practice, exercise, console, reader, reveal_seconds):
            break
    summary = practice.summary()
    console.print(f"[bold]Practice:[/] {summary.line()}", soft_wrap=True)
    return summary


def offer_practice(
    result: Review,
    humans: Sequence[int],
    console: Console,
    reader: LineReader,
    *,
    ask: bool | None = None,
) -> PracticeSummary | None:
    """At the end of a game, the practice of the ``humans``' mistakes, blunders and
    missed wins (players 1 and 2) in ``result``, its review: with ``ask`` True at once,
    False never, ``None`` (default) after one question on a terminal whose answer is
    no unless it is ``y`` (input that is not a terminal is not asked: a scripted game
    reads as before). ``None`` when there was no practice."""
    if ask is False or not humans:
        return None
    practice = Practice.of(result, humans)
    count = len(practice.exercises)
    if not count:
        return None
    if ask is None:
        if not reader.interactive:
            return None
        positions = f"{count} position{'s' if count != 1 else ''}"
        line = reader.read(f"Practise your mistakes ({positions})? [y/N] ")
        if line is None or line.strip().lower() not in ("y", "yes"):
            return None
    console.print()
    return practise(practice, console, reader)


def _ask(
    practice: Practice,
    exercise: Exercise,
    console: Console,
    reader: LineReader,
    reveal_seconds: float,
) -> bool:
    """Prompt until the exercise ends (a right answer, revealed, skipped): True, or the
    person stops (``q``, the end of input): False."""
    board = exercise.board
    what = "column" if board.kind == "connect4" else "cell"
    prompt = f"your move — {what} 1-{board.width if what == 'column' else board.cells}, "
    prompt += "h hint (the answer), s skip, q quit: "

    def answer(command: str) -> bool | None:
        if command in SKIP_WORDS:
            practice.skip()
            console.print("skipped")
            return True
        if command in REVEAL_WORDS:
            solution = run_interruptible(practice.reveal, Limit.within(reveal_seconds))
            console.print(solution.text, highlight=False, soft_wrap=True)
            return True
        try:
            move = exercise.parse(command)
        except PracticeError as error:
            console.print(f"[red]{error}[/] — try again", highlight=False)
            return None
        graded = practice.answer(move)
        style = GRADE_STYLES[graded.grade]
        console.print(f"[{style}]{graded.text}[/]", highlight=False, soft_wrap=True)
        return True if graded.right else None

    return ask_until(reader, console, prompt, answer, "the practice stops here") is not None
