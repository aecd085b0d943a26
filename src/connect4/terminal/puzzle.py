"""Puzzles in a terminal, as lichess trains them: one puzzle after another near the
player's rating, each a board and "find the only move that keeps the win", the
player's moves checked against the solution (any four at its last step), the
opponent's replies played from it; after each puzzle its result, its rating and
themes, the player's rating and its change, the streak; a summary at the end.

At the prompt: a column, ``h`` a hint (first the threats drawn on the board, then
three columns marked that hold the move; a hinted puzzle counts as failed, as on
lichess), ``s`` the solution (failed), ``q`` to stop. As in a game, with stdin not a
terminal the answers are read one per line, so a session can be piped in::

    printf '4\\n5\\n' | connect4 puzzle --count 1
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from rich.console import Console

from connect4.core.errors import Connect4Error, IllegalMoveError, InvalidMoveError
from connect4.core.limits import interrupt_held
from connect4.core.position import Position, parse_column
from connect4.learn.puzzleindex import PuzzleIndex, right_moves
from connect4.learn.puzzles import MAX_RATING, Puzzle
from connect4.learn.ratings import PlayerRecord
from connect4.terminal.asking import ask_until
from connect4.terminal.show import render_board
from connect4.terminal.threats import LEGEND, threat_marks
from connect4.terminal.turns import LineReader

__all__ = [
    "Attempt",
    "Session",
    "TrainingSummary",
    "attempt_puzzle",
    "hint_columns",
    "picker",
    "train",
]

HINT_WORDS = ("h", "hint", "?")
SOLUTION_WORDS = ("s", "solution")
NAMES = ("red", "yellow")
PICK_TRIES = 32  # draws near the rating for a puzzle not tried before, then any
HINT_SPAN = 3  # the columns the second hint marks


@dataclass(frozen=True)
class Attempt:
    """How one puzzle went: ``solved`` without a hint or the solution (a clean solve,
    the only kind that counts as solved), ``hinted``, ``shown`` (the solution asked
    for), or the ``wrong`` move (0-based column) that failed it."""

    puzzle: Puzzle
    solved: bool
    hinted: bool = False
    shown: bool = False
    wrong: int | None = None

    def words(self) -> str:
        """The result in words."""
        if self.solved:
            return "[bold green]Solved[/]"
        if self.wrong is not None:
            return "[bold red]Failed[/]"
        if self.shown:
            return "[bold red]Failed[/] (the solution was shown)"
        return "[bold yellow]Solved with a hint[/]: it counts as failed"


@dataclass(frozen=True)
class TrainingSummary:
    """A session's figures: puzzles finished and solved cleanly, the player's rating
    before and after, the best streak of the session, and how it ended (``count``:
    the puzzles asked for were done, ``stopped``: ``q`` or the end of input,
    ``none left``: no puzzle to pick)."""

    attempted: int
    solved: int
    rating_before: float
    rating_after: float
    best_streak: int
    ended: str

    def line(self) -> str:
        """The summary in one line."""
        after = round(self.rating_after)
        if not self.attempted:
            return f"no puzzle finished; your rating {after}"
        change = after - round(self.rating_before)
        return (
            f"{self.solved} of {self.attempted} solved, your rating "
            f"{round(self.rating_before)} → {after} ({change:+d}), best streak {self.best_streak}"
        )


def picker(
    index: PuzzleIndex, rating: int | None = None, theme: str | None = None
) -> Callable[[PlayerRecord, Collection[str]], Puzzle | None]:
    """The next puzzle for a player: near ``rating``, or by default the player's own
    rating (as lichess picks), with ``theme`` if given, one the player has not tried
    (neither in the record nor among the ids passed) where such a one is near."""

    def pick(record: PlayerRecord, played: Collection[str]) -> Puzzle | None:
        target = rating if rating is not None else round(record.player.rating)
        target = max(0, min(MAX_RATING, target))
        puzzle = None
        for _ in range(PICK_TRIES):
            puzzle = index.pick(target, theme)
            if puzzle is None or (puzzle.id not in played and puzzle.id not in record.puzzles):
                return puzzle
        return puzzle

    return pick


def hint_columns(puzzle: Puzzle, step: int, move: int) -> list[int]:
    """The columns (0-based) the second hint marks: :data:`HINT_SPAN` side by side that
    hold ``move``, where among them fixed by the puzzle's id and the step (so the middle
    one is not always the answer).

    >>> from connect4.learn.puzzles import Puzzle
    >>> from connect4.core.games import Board
    >>> hint_columns(Puzzle("ab", Board(), "", "1", "win"), 0, 0)
    [0, 1, 2]
    """
    width = puzzle.board.width
    span = min(HINT_SPAN, width)
    digest = hashlib.blake2b(f"{puzzle.id}:{step}".encode(), digest_size=4).digest()
    start = move - int.from_bytes(digest, "big") % span
    start = max(0, min(start, width - span))
    return list(range(start, start + span))


@dataclass
class _Solving:
    """One puzzle being solved: the position, the solution's moves, the right moves of
    each step of the solver's side, the step reached and the hints given at it."""

    puzzle: Puzzle
    console: Console
    game: Position = field(init=False)
    line: list[int] = field(init=False)
    right: list[list[int]] = field(init=False)
    step: int = 0
    hints: int = 0
    hinted: bool = False

    def __post_init__(self) -> None:
        board = self.puzzle.board
        self.right = right_moves(self.puzzle)  # a puzzle that does not replay: PuzzleError
        self.game = Position.from_moves(self.puzzle.position, board.width, board.height)
        self.line = [parse_column(t, board.width, i) for i, t in enumerate(self.puzzle.solution)]

    def answer(self, command: str) -> Attempt | None:
        """What a line typed at the prompt does: an :class:`Attempt` once the puzzle is
        over, ``None`` to ask again."""
        if command in HINT_WORDS:
            self.hint()
            return None
        if command in SOLUTION_WORDS:
            self.solution("the solution" if not self.step else "the rest of the solution")
            return Attempt(self.puzzle, solved=False, hinted=self.hinted, shown=True)
        try:
            move = self.game.parse_move(command)
            self.game.copy().play(move)  # a full column: refused here
        except (InvalidMoveError, IllegalMoveError) as error:
            self.console.print(f"[red]{error}[/] — try again", highlight=False)
            return None
        label = self.game.move_label(move)
        expected = self.right[self.step]
        if move not in expected:
            self.console.print(
                f"[bold red]✗ {label} does not keep the {self.puzzle.outcome}[/]: the move "
                f"was {' or '.join(self.game.move_label(m) for m in expected)}",
                highlight=False,
            )
            self.solution("the solution from here")
            return Attempt(self.puzzle, solved=False, hinted=self.hinted, wrong=move)
        self.game.play(move)
        if self.step == len(self.right) - 1:
            self.console.print(f"[bold green]✓ {label}[/]", highlight=False)
            self.console.print(render_board(self.game))
            return Attempt(self.puzzle, solved=not self.hinted, hinted=self.hinted)
        reply = self.line[2 * self.step + 1]
        opponent = NAMES[self.game.to_move - 1]
        self.game.play(reply)
        self.step, self.hints = self.step + 1, 0
        self.console.print(
            f"[bold green]✓ {label}[/]: {opponent} answers {self.game.move_label(reply)}; "
            "find the next move",
            highlight=False,
        )
        self.console.print(render_board(self.game))
        return None

    def hint(self) -> None:
        """The ``h`` key: first the threats drawn on the board, then the columns that
        hold the move marked; the puzzle no longer counts as solved."""
        self.hinted = True
        self.hints += 1
        if self.hints == 1:
            from connect4.learn.threats import threat_map

            try:
                marks = threat_marks(threat_map(self.game))
            except Connect4Error as error:  # no map of this position: go on to the next hint
                self.console.print(f"[dim]no threat map: {error}[/]")
                self.hints += 1
            else:
                self.console.print("hint: look at the threats (h again: where the move is)")
                self.console.print(render_board(self.game, marks), end="")
                self.console.print(LEGEND + "\n", style="dim")
                return
        if self.hints == 2:
            columns = hint_columns(self.puzzle, self.step, self.right[self.step][0])
            marks = {
                (c, self.game.heights[c]): ("?", "bold green")
                for c in columns
                if self.game.can_play(c)
            }
            named = ", ".join(self.game.move_label(c) for c, _ in sorted(marks))
            self.console.print(f"hint: the move is one of the marked columns ({named})")
            self.console.print(render_board(self.game, marks))
            return
        self.console.print("no more hints: s shows the solution")

    def solution(self, title: str) -> None:
        """The solution from the current step in words, then the board at its end."""
        game = self.game.copy()
        moves = []
        for move in self.line[2 * self.step :]:
            moves.append(f"{NAMES[game.to_move - 1]} {game.move_label(move)}")
            game.play(move)
        self.console.print(f"{title}: {', '.join(moves)}", highlight=False)
        self.console.print(render_board(game))


def attempt_puzzle(
    puzzle: Puzzle, number: int, console: Console, reader: LineReader
) -> Attempt | None:
    """Ask one puzzle until it is solved or failed (its :class:`Attempt`), or the person
    stops (``q``, the end of input: ``None``, the puzzle not counted)."""
    solving = _Solving(puzzle, console)
    side = NAMES[solving.game.to_move - 1]
    console.print(
        f"\n[bold]Puzzle {number}[/] ({puzzle.id}): {side.capitalize()} to move: "
        f"find the only move that keeps the {puzzle.outcome}",
        highlight=False,
    )
    console.print(render_board(solving.game))
    width = puzzle.board.width
    prompt = f"your move — column 1-{width}, h hint, s solution, q quit: "
    stop = "the puzzles stop here; this one is not counted"
    return ask_until(reader, console, prompt, solving.answer, stop)


@dataclass
class Session:
    """A session's tally over the player's ``record``: the puzzles finished (their
    ids), those solved cleanly, the session's streak and best streak, the rating it
    started from."""

    record: PlayerRecord
    played: list[str] = field(default_factory=list)
    solved: int = 0
    streak: int = 0
    best_streak: int = 0
    rating_before: float = field(init=False)

    def __post_init__(self) -> None:
        self.rating_before = self.record.player.rating

    def count(self, attempt: Attempt, save: Callable[[PlayerRecord], None] | None) -> bool:
        """Count a finished attempt in the session and, the first time the player tries
        the puzzle, in the record (both ratings move) and the streaks, saved by ``save``
        with a Ctrl-C held until it is written; True when it was rated. As on lichess a
        puzzle is rated once: trying it again (``--id``, a small collection) counts
        among the session's puzzles, and moves neither a rating nor a streak."""
        puzzle = attempt.puzzle
        rated = puzzle.id not in self.record.puzzles
        if rated:
            with interrupt_held():
                self.record.record(puzzle.id, puzzle.rating, solved=attempt.solved)
                if save is not None:
                    save(self.record)
            self.streak = self.streak + 1 if attempt.solved else 0
            self.best_streak = max(self.best_streak, self.streak)
        self.played.append(puzzle.id)
        self.solved += attempt.solved
        return rated

    def summary(self, ended: str) -> TrainingSummary:
        """The figures so far, the session ended as ``ended`` says."""
        return TrainingSummary(
            len(self.played),
            self.solved,
            self.rating_before,
            self.record.player.rating,
            self.best_streak,
            ended,
        )


def train(
    session: Session,
    pick: Callable[[PlayerRecord, Collection[str]], Puzzle | None],
    console: Console,
    reader: LineReader,
    *,
    count: int | None = None,
    save: Callable[[PlayerRecord], None] | None = None,
) -> TrainingSummary:
    """Puzzles one after another (``pick``'s, given the record and the ids played) until
    ``count`` are finished (default: until the person stops), each attempt counted in
    the ``session`` and its record (both ratings, the streak), saved by ``save`` at once;
    the summary is printed last and returned. A Ctrl-C is raised on (the interface's
    policy: the session's summary is what it kept)."""
    ended = "count"
    while count is None or len(session.played) < count:
        puzzle = pick(session.record, session.played)
        if puzzle is None:
            console.print("no puzzle left to pick")
            ended = "none left"
            break
        attempt = attempt_puzzle(puzzle, len(session.played) + 1, console, reader)
        if attempt is None:
            ended = "stopped"
            break
        rating = session.record.puzzle_rating(puzzle.id, puzzle.rating).rating
        old = session.record.player.rating
        rated = session.count(attempt, save)
        _said(attempt, rating, old if rated else None, session.record, console)
    summary = session.summary(ended)
    console.print(f"\n[bold]Puzzles:[/] {summary.line()}", highlight=False)
    return summary


def _said(
    attempt: Attempt, rating: float, old: float | None, record: PlayerRecord, console: Console
) -> None:
    """How a counted attempt went: the result, the puzzle's ``rating`` (before the
    attempt) and themes, the player's rating and its change from ``old`` (``None``: a
    puzzle tried before, not rated again), the streak."""
    puzzle = attempt.puzzle
    themes = ", ".join(puzzle.themes) or "none"
    console.print(
        f"{attempt.words()} — puzzle {puzzle.id}: rating {round(rating)}, themes {themes}",
        highlight=False,
        soft_wrap=True,
    )
    now = round(record.player.rating)
    change = "tried before: not rated again" if old is None else f"{now - round(old):+d}"
    console.print(
        f"your rating {now} ({change}); streak {record.streak}, best {record.best_streak}",
        highlight=False,
    )
