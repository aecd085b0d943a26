"""Practise your own mistakes: each mistake, blunder and missed win of a reviewed game
becomes an exercise, graded exactly.

An exercise is the position before the move (a move string), the move the game
played and every move's exact score there, all taken from the review
(:func:`connect4.review.review`): nothing is solved twice. An answer is graded by
the outcome it keeps:

- **right** when it keeps the best outcome (a win stays a win, a draw a draw),
  ``best`` when it also keeps the best score (the fastest win);
- **better** when it is better than the game's move but loses the best outcome
  ("better than the game's move, but still loses");
- **wrong** otherwise (the game's move itself, or as bad or worse).

The answer revealed is the solver's best move and its principal line
(:func:`connect4.review.best_line`). A :class:`Practice` steps through the
exercises and counts how each one ended; it prints nothing.

>>> from connect4.core import Board
>>> from connect4.review import review
>>> practice = Practice.of(review("5123", Board("tictactoe")))
>>> [(e.ply, e.name, e.label, e.kind) for e in practice.exercises]
[(4, 'O', '3', 'mistake')]
>>> print(practice.answer(2).text)  # the game's move again
wrong: 3 is the game's move (loss in 1)
>>> print(practice.answer(6).text)
wrong: 7 is as bad as the game's move (loss in 1)
>>> print(practice.answer(7).text)
right: 8 is the best move (draw)
>>> practice.summary().line()
'1 exercise: 0 right first time, 1 right after retries, 0 revealed, 0 skipped'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from connect4.core.errors import Connect4Error, IllegalMoveError, InvalidMoveError, clip
from connect4.core.game import Game
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.score import pick_best, score_label
from connect4.review import Review, Verdict, best_line

__all__ = [
    "Answer",
    "Exercise",
    "Grade",
    "Practice",
    "PracticeError",
    "PracticeSummary",
    "Solution",
    "exercises",
    "parse_sides",
]

Kind = Literal["mistake", "blunder", "missed win"]
Grade = Literal["best", "right", "better", "wrong"]
Ending = Literal["first try", "after retries", "revealed", "skipped"]


class PracticeError(Connect4Error):
    """An answer that is not a move here (not a move, a full column, a taken cell), or
    sides to practise that the game does not have."""


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


@dataclass(frozen=True)
class Answer:
    """One answer graded: the ``move`` (0-based) and its ``label``, its exact ``score``
    (the mover's view), the ``grade`` and the sentence that says it."""

    move: int
    label: str
    score: int
    grade: Grade
    text: str

    @property
    def right(self) -> bool:
        """True when the answer keeps the best outcome."""
        return self.grade in ("best", "right")


@dataclass(frozen=True)
class Solution:
    """The answer revealed: the solver's ``move`` with its ``score``, and the best
    ``line`` from the position (that move first; ``complete`` when it reaches the end
    of the game, else a limit stopped it)."""

    move: int
    label: str
    score: int
    line: tuple[str, ...]
    complete: bool
    text: str


@dataclass(frozen=True)
class Exercise:
    """One of the reviewed side's mistakes, blunders or missed wins, as a question:
    the ``position`` before ply ``ply`` (a move string on ``board``), the game's
    ``move`` (0-based; ``label`` as written) and every move's exact ``scores`` there
    (the mover's view; ``None``: not playable)."""

    board: Board
    ply: int
    player: int
    name: str
    position: str
    move: int
    label: str
    scores: tuple[int | None, ...]
    best_score: int
    played_score: int
    verdict: Verdict
    missed_win: bool

    @property
    def kind(self) -> Kind:
        """``missed win`` where a winning move was there, else the verdict."""
        if self.missed_win:
            return "missed win"
        return "blunder" if self.verdict == "blunder" else "mistake"

    @property
    def right_moves(self) -> tuple[int, ...]:
        """Every move that keeps the best outcome (0-based)."""
        best = _sign(self.best_score)
        return tuple(m for m, s in enumerate(self.scores) if s is not None and _sign(s) == best)

    @property
    def best_moves(self) -> tuple[int, ...]:
        """Every move that keeps the best score (0-based)."""
        return tuple(m for m, s in enumerate(self.scores) if s == self.best_score)

    def game(self) -> Game:
        """The position before the game's move, to be played on."""
        return self.board.new(self.position)

    def words(self, score: int) -> str:
        """A score in this position in words: ``win in 3``, ``draw``, ``loss in 2``."""
        return score_label(score, self.ply - 1, self.board.cells)

    def question(self) -> str:
        """The exercise as one sentence.

        >>> from connect4.review import review
        >>> print(exercises(review("4455"), (1,))[0].question())
        ply 3, red to move: the game's 5 was a missed win (win in 20 became loss in 19); \
find a better move
        """
        return (
            f"ply {self.ply}, {self.name} to move: the game's {self.label} was a {self.kind} "
            f"({self.words(self.best_score)} became {self.words(self.played_score)}); "
            "find a better move"
        )

    def parse(self, text: str) -> int:
        """The move ``text`` names here (1-based column, or cell), checked playable;
        :class:`PracticeError` otherwise."""
        game = self.game()
        try:
            move = game.parse_move(text.strip())
            game.play(move)  # a full column, a taken cell: refused here
        except (InvalidMoveError, IllegalMoveError) as error:
            raise PracticeError(str(error)) from None
        return move

    def grade(self, move: int) -> Answer:
        """Grade the move ``move`` (0-based) by its exact score."""
        if not 0 <= move < len(self.scores) or self.scores[move] is None:
            raise PracticeError(f"move {move + 1} cannot be played here")
        score = self.scores[move]
        assert score is not None
        label = self.game().move_label(move)
        words = self.words(score)
        grade: Grade
        if score == self.best_score:
            grade, text = "best", f"right: {label} is the best move ({words})"
        elif _sign(score) == _sign(self.best_score):
            best = ", ".join(self.game().move_label(m) for m in self.best_moves)
            outcome = "win" if score > 0 else "draw"
            text = (
                f"right: {label} keeps the {outcome} ({words}); "
                f"the best, {best}, is a {self.words(self.best_score)}"
            )
            grade = "right"
        elif score > self.played_score:
            still = "only draws" if score == 0 else f"still loses ({words})"
            grade, text = "better", f"{label} is better than the game's move, but {still}"
        elif move == self.move:
            grade, text = "wrong", f"wrong: {label} is the game's move ({words})"
        else:
            worse = "as bad as" if score == self.played_score else "worse than"
            grade, text = "wrong", f"wrong: {label} is {worse} the game's move ({words})"
        return Answer(move, label, score, grade, text)

    def solution(self, limit: Limit | None = None) -> Solution:
        """The solver's best move and its principal line from here, within ``limit``
        (a line it cuts short ends where the limit left a position unsettled)."""
        game = self.game()
        line = best_line(game, limit=limit)
        move = line.moves[0] if line.moves else pick_best(self.scores)  # the same tie-break
        labels: list[str] = []
        for step in line.moves or (move,):
            labels.append(game.move_label(step))
            game.play(step)
        score = self.scores[move]
        assert score is not None
        ending = "" if line.complete else " …"
        text = (
            f"the answer: {labels[0]} ({self.words(score)}); "
            f"the best line: {' '.join(labels)}{ending}"
        )
        return Solution(move, labels[0], score, tuple(labels), line.complete, text)

    def as_dict(self) -> dict[str, object]:
        """The exercise as JSON-ready values (moves 0-based, as in the review's rows)."""
        return {
            "ply": self.ply,
            "player": self.player,
            "name": self.name,
            "position": self.position,
            "move": self.move,
            "label": self.label,
            "kind": self.kind,
            "verdict": self.verdict,
            "missed_win": self.missed_win,
            "scores": list(self.scores),
            "best_score": self.best_score,
            "played_score": self.played_score,
            "best_moves": list(self.best_moves),
            "right_moves": list(self.right_moves),
        }


def exercises(review: Review, players: Iterable[int] = (1, 2)) -> tuple[Exercise, ...]:
    """The exercises of ``review`` for ``players`` (1, 2 or both): every move of theirs
    graded mistake or blunder after the imposed opening, in the order played. A missed
    win is always one of them (:attr:`~connect4.review.PlyReview.missed_win`); a move
    not proven is no exercise (nothing is guessed).

    >>> from connect4.review import review
    >>> [(e.ply, e.kind) for e in exercises(review("4455"))]
    [(3, 'missed win'), (4, 'missed win')]
    """
    sides = set(players)
    board = review.board
    game = board.new()
    found: list[Exercise] = []
    for row in review.plies:
        position = game.moves
        game.play(row.move)
        if row.ply <= review.opening or row.player not in sides:
            continue
        if row.verdict not in ("mistake", "blunder"):
            continue
        assert row.best_score is not None and row.played_score is not None
        found.append(
            Exercise(
                board=board,
                ply=row.ply,
                player=row.player,
                name=row.name,
                position=position,
                move=row.move,
                label=row.label,
                scores=row.scores,
                best_score=row.best_score,
                played_score=row.played_score,
                verdict=row.verdict,
                missed_win=row.missed_win,
            )
        )
    return tuple(found)


SIDE_WORDS = {"1": (1,), "2": (2,), "both": (1, 2), "first": (1,), "second": (2,)}


def parse_sides(kind: str | None, text: str) -> tuple[int, ...]:
    """The players named by ``text``: a colour (red, yellow; X, O in tic-tac-toe),
    1 or 2, first or second, or both (``kind`` ``None``: either game's colours).

    >>> parse_sides("connect4", "Yellow"), parse_sides("tictactoe", "x")
    ((2,), (1,))
    >>> parse_sides("connect4", "both")
    (1, 2)
    >>> parse_sides("connect4", "x")
    Traceback (most recent call last):
    ...
    connect4.learn.practice.PracticeError: side 'x': give red, yellow, 1, 2 or both
    """
    names = ("x", "o") if kind == "tictactoe" else ("red", "yellow")
    words = {**SIDE_WORDS, names[0]: (1,), names[1]: (2,)}
    if kind is None:
        words.update(x=(1,), o=(2,))
    sides = words.get(text.strip().lower())
    if sides is None:
        raise PracticeError(f"side {clip(text)!r}: give {names[0]}, {names[1]}, 1, 2 or both")
    return sides


@dataclass(frozen=True)
class PracticeSummary:
    """How the exercises ended: right at the first answer, right after wrong ones,
    the answer revealed, skipped, or not reached (the practice was left)."""

    exercises: int
    first_try: int
    after_retries: int
    revealed: int
    skipped: int
    not_reached: int

    def line(self) -> str:
        """The summary in one line.

        >>> print(PracticeSummary(3, 1, 0, 1, 0, 1).line())
        3 exercises: 1 right first time, 0 right after retries, 1 revealed, 0 skipped, \
1 not reached
        """
        count = f"{self.exercises} exercise{'' if self.exercises == 1 else 's'}"
        text = (
            f"{count}: {self.first_try} right first time, {self.after_retries} right after "
            f"retries, {self.revealed} revealed, {self.skipped} skipped"
        )
        return text + (f", {self.not_reached} not reached" if self.not_reached else "")


@dataclass
class Practice:
    """A practice session through ``exercises``: :meth:`answer` grades an answer to the
    current one (a right answer goes on to the next), :meth:`reveal` and :meth:`skip`
    end it, :meth:`summary` counts how each ended."""

    exercises: tuple[Exercise, ...]
    endings: list[Ending] = field(default_factory=list)
    tries: int = 0

    @classmethod
    def of(cls, review: Review, players: Iterable[int] = (1, 2)) -> Practice:
        """The practice of ``review``'s exercises for ``players`` (:func:`exercises`)."""
        return cls(exercises(review, players))

    @property
    def current(self) -> Exercise | None:
        """The exercise asked now, ``None`` once all have ended."""
        index = len(self.endings)
        return self.exercises[index] if index < len(self.exercises) else None

    @property
    def number(self) -> int:
        """The current exercise's number, from 1."""
        return len(self.endings) + 1

    def _current(self) -> Exercise:
        exercise = self.current
        if exercise is None:
            raise PracticeError("the practice is over: no exercise left")
        return exercise

    def _end(self, ending: Ending) -> None:
        self.endings.append(ending)
        self.tries = 0

    def answer(self, move: int) -> Answer:
        """Grade ``move`` (0-based) for the current exercise; a right one ends it."""
        answer = self._current().grade(move)
        self.tries += 1
        if answer.right:
            self._end("first try" if self.tries == 1 else "after retries")
        return answer

    def reveal(self, limit: Limit | None = None) -> Solution:
        """The current exercise's answer and line (within ``limit``); it ends revealed."""
        solution = self._current().solution(limit)
        self._end("revealed")
        return solution

    def skip(self) -> None:
        """The current exercise ends skipped."""
        self._current()
        self._end("skipped")

    def summary(self) -> PracticeSummary:
        """How the exercises ended so far (those not ended: not reached)."""
        ended = self.endings
        return PracticeSummary(
            exercises=len(self.exercises),
            first_try=ended.count("first try"),
            after_retries=ended.count("after retries"),
            revealed=ended.count("revealed"),
            skipped=ended.count("skipped"),
            not_reached=len(self.exercises) - len(ended),
        )
