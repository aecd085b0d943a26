"""Puzzles: positions with exactly one move that keeps the best outcome, and their solutions.

A position of Connect Four (standard rules) is a *puzzle* when the side to move
(the *solver's side*) can win or draw, exactly one of its moves keeps that
outcome (a win, or a draw), and every other move is worse in outcome, by the
exact scores of the solver (:func:`~connect4.review.exact_scores`). The
*solution* starts with that move and goes on:

* the opponent answers with its most resisting reply: its best-scored move
  (the slowest loss, or the draw), ties to the centre
  (:func:`~connect4.core.score.pick_best`);
* the solver's side then plays its only move again, as long as it has one. The
  line ends with a four (where the solver's side can complete one, the four
  ends the solution: any four is right), with the board full, or before the
  solver's side's turn where its move is no longer the only one: every move
  keeps the outcome (it no longer depends on the next move), or several do.

So a solution is a move string from the position that starts and ends with a
move of the solver's side. A *trivial* puzzle (a four to complete, or a four of
the opponent's to block, and nothing after it) is kept only as the easiest
tier: its first rating is :data:`TRIVIAL_RATING`.

A puzzle a person can solve has a short forced line. Its *depth* is how many
moves of one side the solver's side must see: for a win, its moves to the four
(``win-in-N``'s N); for a draw, the opponent's moves to its slowest win after a
wrong move (every wrong move must be seen to lose). A
puzzle deeper than :data:`MAX_DEPTH` is tagged ``deep`` (an early-game "only
move that keeps a win 18 moves away"): it stays a puzzle, but a shipped set
leaves it out.

The first rating (before anyone has tried the puzzle) grows with the depth and
with the moves that *tempt* at the first move: the wrong moves that are not
refuted at once (after them the opponent cannot complete a four with its next
stone, so the mistake does not show within one move):
``FIRST_RATING + STEP * (depth - 1) + TEMPTING * tempting moves``
(:func:`rating_of`), at most :data:`MAX_RATING`.

Themes are tagged from the exact scores and the threat map's rules
(:mod:`connect4.learn.threats`), see :data:`THEMES`.

>>> from connect4 import Position
>>> find_puzzle(Position.from_moves("4455")) is None  # red to move: 3 or 6 both win
True
>>> found = find_puzzle(Position.from_moves("36777454272212734247"))  # a four in column 3
>>> found.solution, found.outcome, found.trivial, found.rating
('3', 'win', True, 400)
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from connect4.core.errors import BudgetExceeded, Connect4Error, GameError
from connect4.core.game import Game
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.position import COLUMN_SYMBOLS, Position, parse_column
from connect4.core.score import loss_score, moves_to_end, pick_best, win_score
from connect4.learn.threats import explain, threat_map
from connect4.review import exact_scores

__all__ = [
    "FIRST_RATING",
    "MAX_RATING",
    "THEMES",
    "TRIVIAL_RATING",
    "Outcome",
    "Puzzle",
    "PuzzleError",
    "Verdict",
    "depth",
    "find_puzzle",
    "puzzle_id",
    "rating_of",
    "verify",
]

Outcome = Literal["win", "draw"]

THEMES: Mapping[str, str] = {
    "win-in-N": "a win with the N-th move of the solver's side (win-in-1, win-in-2, ...)",
    "only-drawing-move": "the outcome is a draw, and only one move keeps it",
    "defence": "every other move loses within "
    "3 moves of the opponent: the only move that does not lose at once",
    "deep": "the line is longer than 7 moves of a side: too deep to see, "
    "left out of the shipped set",
    "double-threat": "a move of the solver's side makes two threats the opponent cannot "
    "both block (side by side, or one above the other)",
    "odd-even-threat": "a won puzzle whose first move makes a threat that cannot be "
    "played yet on the solver's side's good rows (odd for red, even for yellow), or Red's "
    "odd threat that wins by zugzwang",
    "zugzwang": "the opponent, to move, must let the solver's side complete a four on "
    "top of its move, or Red's odd threat wins by zugzwang",
    "claimeven": "yellow keeps its outcome by claimeven (answering red in the same column)",
}
"""The themes a puzzle is tagged with, each with what it means."""

TRIVIAL_RATING = 400  # the easiest tier: a four to complete or block at once
FIRST_RATING = 600  # a depth-1 puzzle that is not trivial, before anyone tried it
STEP = 200  # each further move of depth
TEMPTING = 100  # each wrong first move not refuted at once
MAX_DEPTH = 7  # deeper puzzles are tagged "deep"
DEFENCE_DEPTH = 3  # "defence": every other move loses within this many opponent's moves
MAX_RATING = 2800
ID_LENGTH = 12  # hex digits of the id


class PuzzleError(Connect4Error):
    """A game that has no puzzles (not Connect Four's standard rules) or a bad puzzle."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: the position (a move string from the empty ``board``), the solution
    (a move string from the position, starting with the solver's side's only move), the
    ``outcome`` the solver's side keeps, its themes, first rating, whether it is
    trivial (the easiest tier), and where it was found (``source``). ``id`` is a hash of
    the board and the position's stones (:func:`puzzle_id`): the same position reached
    by another move order has the same id."""

    id: str
    board: Board
    position: str
    solution: str
    outcome: Outcome
    themes: tuple[str, ...] = ()
    rating: int = FIRST_RATING
    trivial: bool = False
    source: str = ""

    def as_dict(self) -> dict[str, object]:
        """The puzzle for JSON (a line of a puzzles file)."""
        return {
            "id": self.id,
            "width": self.board.width,
            "height": self.board.height,
            "position": self.position,
            "solution": self.solution,
            "outcome": self.outcome,
            "themes": list(self.themes),
            "rating": self.rating,
            "trivial": self.trivial,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, value: object) -> Puzzle:
        """The puzzle a JSON object describes; :class:`PuzzleError` saying what is wrong."""
        if not isinstance(value, dict):
            raise PuzzleError("not a JSON object")
        text = {"id": str, "position": str, "solution": str, "outcome": str, "source": str}
        whole = {"width": int, "height": int, "rating": int}
        for key, kind in {**text, **whole, "themes": list, "trivial": bool}.items():
            got = value.get(key, "" if key == "source" else None)
            if not isinstance(got, kind) or (kind is int and isinstance(got, bool)):
                raise PuzzleError(f'no "{key}" {kind.__name__} field')
        if value["outcome"] not in ("win", "draw"):
            raise PuzzleError(f'"outcome" is {value["outcome"]!r}, not "win" or "draw"')
        if not all(isinstance(theme, str) for theme in value["themes"]):
            raise PuzzleError('"themes" is not a list of strings')
        try:
            board = Board("connect4", value["width"], value["height"])
        except GameError as error:
            raise PuzzleError(f"no board: {error}") from None
        return cls(
            value["id"], board, value["position"], value["solution"], value["outcome"],
            tuple(value["themes"]), value["rating"], value["trivial"], value.get("source", ""),
        )  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """What :func:`verify` found: ``ok``, else ``reason`` says what is wrong, in words."""

    ok: bool
    reason: str = ""


class Unsettled(BudgetExceeded):
    """The solver did not settle a position within the limit (a stop, not bad input)."""


def puzzle_id(board: Board, position: Game) -> str:
    """The stable id of a puzzle: a hash of the board and the position's stones.

    >>> from connect4 import Position
    >>> puzzle_id(Board(), Position.from_moves("4453")) == puzzle_id(Board(), \
Position.from_moves("5344"))
    True
    """
    text = f"{board.kind} {board.width}x{board.height} {board.rules} {position.key()}"
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()[:ID_LENGTH]


# ---------------------------------------------------------------- the definition
def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


@dataclass
class _Walk:
    """The exact scores along a puzzle's line, each position judged once."""

    limit: Limit | None
    scored: dict[tuple[str, int], tuple[int | None, ...]] = field(default_factory=dict)

    def scores(self, game: Game) -> tuple[int | None, ...]:
        judged = exact_scores(game, limit=self.limit)
        if not judged.complete:
            raise Unsettled
        return judged.scores

    def keepers(self, game: Game, sign: int) -> list[int]:
        """The moves that keep the outcome ``sign`` (1 win, 0 draw) for the side to move."""
        return [m for m, s in enumerate(self.scores(game)) if s is not None and _sign(s) == sign]

    def four(self, game: Game) -> int | None:
        """A move that completes a four now (the leftmost-from-centre), or ``None``."""
        scores = self.scores(game)
        now = win_score(game.size, game.ply)
        fours = [s if s == now else None for s in scores]
        return pick_best(fours) if any(s is not None for s in fours) else None


def _connect4(game: Game) -> Position:
    if not isinstance(game, Position) or game.rules != "standard":
        raise PuzzleError(
            f"puzzles are positions of Connect Four's standard rules, not {game.kind} "
            f"({game.rules})"
        )
    return game.copy()


def _solution(walk: _Walk, position: Position, first: int, sign: int) -> list[int]:
    """The line from ``position`` after its only move ``first`` (the module's description)."""
    line = [first]
    position.play(first)
    while not position.is_over():
        reply = pick_best(walk.scores(position))
        position.play(reply)
        if position.is_over():
            break  # the board is full: the last stone was the opponent's forced reply
        four = walk.four(position) if sign > 0 else None
        keepers = [four] if four is not None else walk.keepers(position, sign)
        if len(keepers) != 1:
            break  # the outcome no longer depends on the move, or several keep it
        line += [reply, keepers[0]]
        position.play(keepers[0])
    return line


def find_puzzle(game: Game, limit: Limit | None = None, *, source: str = "") -> Puzzle | None:
    """The puzzle at ``game`` (a Connect Four position, standard rules), or ``None`` where
    the position is none: the game is over, the side to move loses whatever it plays,
    more than one move keeps its best outcome, or ``limit`` left a position of the line
    unsettled. Raises :class:`PuzzleError` for another game or rule set."""
    position = _connect4(game)
    if position.is_over():
        return None
    walk = _Walk(limit)
    try:
        scores = walk.scores(position)
        best = max(s for s in scores if s is not None)
        if best < 0:
            return None
        keepers = walk.keepers(position, _sign(best))
        if len(keepers) != 1:
            return None
        line = _solution(walk, position.copy(), keepers[0], _sign(best))
        themes = tag_themes(walk, position, line, best)
        rating, trivial = first_rating(walk, position, line)
    except Unsettled:
        return None
    return Puzzle(
        puzzle_id(Board.of(position), position),
        Board.of(position),
        position.moves,
        "".join(COLUMN_SYMBOLS[move] for move in line),
        "win" if best > 0 else "draw",
        themes,
        rating,
        trivial,
        source,
    )


# ---------------------------------------------------------------- rating
def _trivial(walk: _Walk, position: Position, line: list[int]) -> bool:
    """A four completed now, or the opponent's four blocked, and nothing after it."""
    if len(line) != 1:
        return False
    if walk.four(position) == line[0]:
        return True
    threats = threat_map(position).of(3 - position.to_move)
    return any(t.playable and t.column == line[0] for t in threats)


def depth(scores: tuple[int | None, ...], ply: int, size: int) -> int:
    """How many moves of one side a puzzle with these exact ``scores`` (of the side to
    move at ``ply`` stones, ``size`` cells) asks to see: for a win, the moves to the
    four; for a draw, the opponent's moves to its slowest win after a wrong move.

    >>> depth((None, -20, 0, -3, None, None, None), 6, 42)  # a draw; column 4 loses late
    16
    """
    best = max(s for s in scores if s is not None)
    if best > 0:
        return moves_to_end(best, ply, size)
    losses = [moves_to_end(s, ply, size) for s in scores if s is not None and s < 0]
    return max(losses, default=1)


def rating_of(depth: int, tempting: int) -> int:
    """The first rating of a puzzle that is not trivial: its ``depth`` and its tempting
    first moves (see the module's description).

    >>> rating_of(1, 0), rating_of(3, 2), rating_of(30, 6)
    (600, 1200, 2800)
    """
    return min(MAX_RATING, FIRST_RATING + STEP * (max(1, depth) - 1) + TEMPTING * tempting)


def first_rating(walk: _Walk, position: Position, line: list[int]) -> tuple[int, bool]:
    """The first rating of the puzzle ``position`` with solution ``line``, and whether it is
    trivial (see the module's description)."""
    if _trivial(walk, position, line):
        return TRIVIAL_RATING, True
    scores = walk.scores(position)
    obvious = loss_score(position.size, position.ply)  # lost to the next stone
    move = line[0]
    tempting = sum(
        1
        for m, s in enumerate(scores)
        if s is not None and m != move and s != obvious and _sign(s) < _sign(scores[move] or 0)
    )
    return rating_of(depth(scores, position.ply, position.size), tempting), False


# ---------------------------------------------------------------- themes
def tag_themes(walk: _Walk, position: Position, line: list[int], best: int) -> tuple[str, ...]:
    """The themes of the puzzle ``position`` with solution ``line`` (see :data:`THEMES`)."""
    themes = _outcome_themes(walk.scores(position), position, line[0], best)
    solver = position.to_move
    rules: set[str] = set()
    board = position.copy()
    for index, move in enumerate(line):
        if board.is_over():
            break
        found = explain(board)
        if found is not None:
            ours = index % 2 == 0
            if ours and found.rule in ("odd threat", "claimeven") and found.move == move:
                rules.add(found.rule)
            elif not ours and found.rule in ("double threat", "zugzwang"):
                rules.add(found.rule)  # the opponent, to move, cannot stop the four
            elif not ours and found.rule == "claimeven" and found.high <= 0:
                rules.add("claimeven")  # red to move cannot win against yellow's claimeven
        board.play(move)
    if not board.is_over() and board.to_move != solver:
        found = explain(board)
        if found is not None and found.rule in ("double threat", "zugzwang"):
            rules.add(found.rule)
    if "double threat" in rules:
        themes.append("double-threat")
    if best > 0 and ("odd threat" in rules or _parity_threat(position, line[0])):
        themes.append("odd-even-threat")
    if "zugzwang" in rules or "odd threat" in rules:
        themes.append("zugzwang")
    if "claimeven" in rules and solver == 2:
        themes.append("claimeven")
    return tuple(themes)


def _outcome_themes(
    scores: tuple[int | None, ...], position: Position, first: int, best: int
) -> list[str]:
    """The themes of the exact scores alone: win-in-N or only-drawing-move, defence, deep."""
    ply, size = position.ply, position.size
    themes = [f"win-in-{moves_to_end(best, ply, size)}" if best > 0 else "only-drawing-move"]
    others = [s for m, s in enumerate(scores) if m != first and s is not None]
    if others and all(s < 0 and moves_to_end(s, ply, size) <= DEFENCE_DEPTH for s in others):
        themes.append("defence")
    if depth(scores, ply, size) > MAX_DEPTH:
        themes.append("deep")
    return themes


def _parity_threat(position: Position, move: int) -> bool:
    """True when ``move`` makes a new live threat of the side to move, not playable, on
    its good rows (odd rows, counted from 1, for red; even rows for yellow)."""
    player = position.to_move
    before = {(t.column, t.row) for t in threat_map(position).of(player)}
    after = position.copy()
    after.play(move)
    if after.is_over():
        return False
    return any(
        t.live and not t.playable and t.odd == (player == 1) and (t.column, t.row) not in before
        for t in threat_map(after).of(player)
    )


# ---------------------------------------------------------------- verification
def _replay(puzzle: Puzzle) -> tuple[Position, list[int]] | str:
    """The puzzle's position and solution as columns, or why they cannot be."""
    board = puzzle.board
    if board.kind != "connect4" or board.rules != "standard":
        return f"puzzles are of Connect Four's standard rules, not {board.kind} {board.rules}"
    try:
        position = Position.from_moves(puzzle.position, board.width, board.height)
    except GameError as error:
        return f"the position does not replay: {error}"
    try:
        line = [
            parse_column(token, board.width, index)
            for index, token in enumerate(puzzle.solution, start=1)
        ]
    except GameError as error:
        return f"the solution does not replay: {error}"
    if not line:
        return "the solution is empty"
    if puzzle_id(board, position) != puzzle.id:
        return f"the id {puzzle.id} is not the position's ({puzzle_id(board, position)})"
    return position, line


def _check_line(walk: _Walk, position: Position, line: list[int], sign: int) -> str | None:
    """Why the solution ``line`` breaks the definition at some move, or ``None``."""
    board = position.copy()
    word = "win" if sign > 0 else "draw"
    for index, move in enumerate(line):
        at = f"move {index + 1} of the solution (column {move + 1})"
        if board.is_over():
            return f"{at} comes after the game ended"
        if move not in board.legal_moves():
            return f"{at} cannot be played: the column is full"
        if index % 2 == 1:
            scores = walk.scores(board)
            best = pick_best(scores)
            if scores[move] != scores[best]:
                return f"{at} is not the most resisting reply: column {best + 1} holds out longer"
        elif index and sign > 0 and walk.four(board) is not None:
            if walk.scores(board)[move] != win_score(board.size, board.ply):
                return f"{at} does not complete the four that is there"
        else:
            keepers = walk.keepers(board, sign)
            if move not in keepers:
                return f"{at} does not keep the {word}"
            others = [m + 1 for m in keepers if m != move]
            if others:
                listed = ", ".join(map(str, others))
                return f"{at} is not the only move keeping the {word}: column {listed} too"
        board.play(move)
    if len(line) % 2 == 0:
        return "the solution ends with a reply, not with a move of the solver's side"
    return None


def verify(puzzle: Puzzle, limit: Limit | None = None) -> Verdict:
    """Check ``puzzle`` with the solver: its position replays and has the puzzle's id, its
    outcome is the side to move's best, the solution's first move and every later move
    of the solver's side is the only one keeping that outcome (or, last, completes a
    four), every reply is the opponent's best-scored move, and the solution is not cut
    short (the next solver's move would still be the only one). Themes and rating are
    derived, not checked. A position ``limit`` leaves unsettled fails, saying so."""
    replayed = _replay(puzzle)
    if isinstance(replayed, str):
        return Verdict(False, replayed)
    position, line = replayed
    if position.is_over():
        return Verdict(False, "the game is already over at the position")
    walk = _Walk(limit)
    try:
        best = max(s for s in walk.scores(position) if s is not None)
        outcome = "win" if best > 0 else "draw" if best == 0 else "loss"
        if outcome != puzzle.outcome:
            return Verdict(False, f"the side to move's best outcome is a {outcome}, not a "
                                  f"{puzzle.outcome}")  # fmt: skip
        wrong = _check_line(walk, position, line, _sign(best))
        if wrong is not None:
            return Verdict(False, wrong)
        longer = _goes_on(walk, position, line, _sign(best))
    except Unsettled:
        return Verdict(False, "the solver did not settle a position of it within the limit")
    if longer is not None:
        reply, only = longer[0] + 1, longer[1] + 1
        return Verdict(
            False, f"the solution stops early: after the reply {reply}, column {only} is still "
            "the only move"
        )  # fmt: skip
    return Verdict(True)


def _goes_on(walk: _Walk, position: Position, line: list[int], sign: int) -> tuple[int, int] | None:
    """The most resisting reply after ``line`` and the solver's side's only move after it,
    where the line should have gone on; ``None`` where it ends rightly."""
    board = position.copy()
    for move in line:
        board.play(move)
    if board.is_over():
        return None
    reply = pick_best(walk.scores(board))
    board.play(reply)
    if board.is_over():
        return None
    four = walk.four(board) if sign > 0 else None
    keepers = [four] if four is not None else walk.keepers(board, sign)
    return (reply, keepers[0]) if len(keepers) == 1 else None
