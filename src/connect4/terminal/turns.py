"""A terminal game's turns: a person's prompt (a move, or a key from one table: undo,
hint, quit), a computer's announced move, the board after each.

With stdin a terminal, humans are prompted; otherwise one move per line is read
from stdin, so a whole game can be piped in::

    printf '4\\n4\\n5\\n5\\n6\\n6\\n7\\n' | connect4 play --red human --yellow human
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console

from connect4.core.errors import IllegalMoveError, InvalidMoveError, clip
from connect4.core.files import LineTooLongError, read_input_line
from connect4.core.game import Game
from connect4.players import MoveChoice, Player
from connect4.players.match import AGAIN, GameRecord, Turn, play_move
from connect4.terminal.hints import Hints
from connect4.terminal.ready import needs_solver, uses_solver, wait_for_solver, wait_until_ready
from connect4.terminal.show import format_choice, moves_text, render_board

STAY = Turn(None, 0.0)
"""A key's answer when the game goes on from the same prompt (a hint was shown)."""


class LineReader:
    """Reads human input: a prompt on a terminal, plain lines from a pipe (each at most
    :data:`~connect4.core.files.MAX_INPUT_LINE` characters: a longer one raises
    :class:`~connect4.core.files.LineTooLongError`, read no further)."""

    def __init__(self, stream: TextIO, console: Console) -> None:
        self.stream = stream
        self.console = console
        self.interactive = stream.isatty()
        self.source = getattr(stream, "buffer", stream)  # bytes: a bad byte is replaced
        self.lines = 0

    def read(self, prompt: str) -> str | None:
        """One line without its newline, or ``None`` at end of input."""
        if self.interactive:
            try:
                return self.console.input(prompt)
            except EOFError:
                return None
        self.console.print(prompt, end="")
        self.lines += 1
        try:
            line = read_input_line(self.source, self.lines, "input line")
        except LineTooLongError:
            self.console.print()
            raise
        if line is None:
            self.console.print()
            return None
        self.console.print(clip(line), highlight=False)  # a pasted novel: cut
        return line


@dataclass(frozen=True)
class Key:
    """A command a person types at the prompt instead of a move: the ``words`` that
    mean it (the first one shown in the prompt beside its ``label``) and what it does,
    a method of :class:`TerminalTurns` answering :data:`STAY` (prompt again),
    :data:`~connect4.players.match.AGAIN` (the position changed: ask the side to move)
    or ``None`` (the game stops unfinished)."""

    words: tuple[str, ...]
    label: str
    act: Callable[[TerminalTurns, Game, GameRecord], Turn | None]


class TerminalTurns:
    """The terminal's side of the one game loop (:func:`~connect4.players.match.play_match`):
    a person's turn is a prompt (a move or one of the :data:`KEYS`), a computer's a
    move without a clock, announced; the board is shown after each."""

    def __init__(
        self,
        players: tuple[Player, Player],
        names: tuple[str, str],
        console: Console,
        reader: LineReader,
        *,
        game_name: str,
        hint_spec: str | None,
        show_board: bool,
    ) -> None:
        self.players, self.names, self.console, self.reader = players, names, console, reader
        self.game_name, self.show_board = game_name, show_board
        self.hints = Hints(players, console, game_name, hint_spec)

    def ask(self, mover: Player, game: Game, record: GameRecord) -> Turn | None:
        """The side to move's turn: a person's from the prompt, a computer's own."""
        if mover.is_human:
            return self.human_turn(game, record)
        return self.computer_turn(mover, game)

    def shown(self, game: Game, turn: Turn) -> None:
        """After a turn: the board, unless the turn was a forfeit."""
        if self.show_board and turn.forfeit is None:
            self.console.print(render_board(game))

    def human_turn(self, game: Game, record: GameRecord) -> Turn | None:
        """Prompt until a legal move (its thinking time from the last prompt), an undo
        (:data:`AGAIN`) or the end: ``q`` or the end of input (``None``)."""
        name = self.names[game.to_move - 1]
        what = "column" if game.kind == "connect4" else "cell"
        keys = ", ".join(f"{key.words[0]} {key.label}" for key in KEYS)
        while True:
            started = time.perf_counter()
            line = self.reader.read(f"{name} to move — {what}, {keys}: ")
            if line is None:
                self.console.print(
                    f"[bold]end of input[/] before the game ended: stopped after {played(game)}"
                )
                return None
            command = line.strip().lower()
            key = KEY_WORDS.get(command)
            if key is not None:
                turn = key.act(self, game, record)
                if turn is STAY:
                    continue
                return turn
            try:
                move = game.parse_move(command)
                game.copy().play(move)  # a full column, a taken cell: refused here
            except (InvalidMoveError, IllegalMoveError) as error:
                self.console.print(f"[red]{error}[/] — try again")
                continue
            return Turn(MoveChoice(move=move), time.perf_counter() - started)

    def undo(self, game: Game, record: GameRecord) -> Turn:
        """The ``u`` key: back one ply, or to the person's previous turn (:func:`undo_turn`)."""
        undo_turn(game, self.players, record, self.console)
        return AGAIN

    def hint(self, game: Game, record: GameRecord) -> Turn:
        """The ``h`` key: a hint for the side to move, then the same prompt."""
        self.hints.show(game)
        return STAY

    def quit(self, game: Game, record: GameRecord) -> None:
        """The ``q`` key: the game stops unfinished."""
        self.console.print(f"quit after {played(game)}")

    def computer_turn(self, mover: Player, game: Game) -> Turn:
        """A computer's move (its set-up waited for first, off its clock), announced."""
        name = self.names[game.to_move - 1]
        wait_until_ready([mover])  # its set-up is not its thinking time
        if uses_solver(mover.spec) and needs_solver(game):
            wait_for_solver(game, self.console, f"{name} ({mover.spec})")
        turn = play_move(mover, game)
        if turn.choice is None:
            assert turn.forfeit is not None
            self.console.print(
                f"[bold red]{name.capitalize()} ({mover.spec}) forfeits:[/] {turn.forfeit.text()}"
            )
            return turn
        detail = format_choice(turn.choice, game.ply, game.width * game.height)
        self.console.print(  # one line, however long: a wrapped one ended in ", "
            f"{name} ({mover.spec}) plays {game.move_label(turn.choice.move)}"
            + (f"  [dim]{detail}[/]" if detail else ""),
            soft_wrap=True,
        )
        return turn


KEYS = (
    Key(("u", "undo"), "undo", TerminalTurns.undo),
    Key(("h", "hint", "?"), "hint", TerminalTurns.hint),
    Key(("q", "quit", "exit"), "quit", TerminalTurns.quit),
)
"""The keys a person may type instead of a move, in the prompt's order."""

KEY_WORDS = {word: key for key in KEYS for word in key.words}


def played(game: Game) -> str:
    """How far the game went, for the line that stops it: ``2 moves (44)``."""
    return f"{moves_text(game.ply)} ({game.moves or 'empty board'})"


def undo_turn(
    game: Game, players: tuple[Player, Player], record: GameRecord, console: Console
) -> None:
    """Undo one ply against a human, or back to the human's previous turn against an AI."""
    if game.ply == 0:
        console.print("[red]nothing to undo[/]")
        return
    game.undo()
    for figures in (record.move_seconds, record.move_stats):
        if figures:
            figures.pop()
    while game.ply > 0 and not players[game.to_move - 1].is_human:
        game.undo()
        for figures in (record.move_seconds, record.move_stats):
            if figures:
                figures.pop()
    console.print(f"undone: back to {game.moves or 'the empty board'}")
