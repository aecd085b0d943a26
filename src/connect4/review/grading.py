"""A move-by-move review of a game: every move graded against the exact scores.

For each ply the review holds every move's exact score in the position before
it (:func:`connect4.review.values.exact_scores`), the best move(s), the score
the move kept or lost, and a verdict:

- ``best``: the move kept the best score;
- ``good``: it kept the result but not the best score (a slower win, a faster loss);
- ``mistake``: a win became a draw, or a draw a loss;
- ``blunder``: a win became a loss.

A move that lets a win go (a draw or a loss where a winning move was there) is
also a *missed win* (:attr:`PlyReview.missed_win`): always a mistake or a blunder.

A position the solver could not settle within the budget gets no verdict
(``None``, "not proven"): nothing is guessed.

>>> r = review("5123", Board("tictactoe"))
>>> [row.verdict for row in r.plies]
['best', 'best', 'best', 'mistake']
>>> r.decisive_ply, r.players[1].mistakes
(4, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from connect4.core.game import Game
from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.review.values import MoveScores, ReviewError, exact_scores
from connect4.review.work import score_game

__all__ = ["PlayerSummary", "PlyReview", "Review", "Verdict", "grade", "review"]

Verdict = Literal["best", "good", "mistake", "blunder"]
VERDICTS: tuple[Verdict, ...] = ("best", "good", "mistake", "blunder")


def _sign(score: int) -> int:
    return (score > 0) - (score < 0)


def grade(best: int, played: int) -> Verdict:
    """The verdict on a move scoring ``played`` where the best move scores ``best``.

    >>> grade(5, 5), grade(5, 2), grade(5, 0), grade(0, -3), grade(5, -1), grade(-2, -7)
    ('best', 'good', 'mistake', 'mistake', 'blunder', 'good')
    """
    if played > best:
        raise ValueError(f"a move cannot score {played}, more than the best score {best}")
    if played == best:
        return "best"
    drop = _sign(best) - _sign(played)
    return ("good", "mistake", "blunder")[drop]


def player_name(game: str, player: int) -> str:
    """``red``/``yellow`` in Connect Four, ``X``/``O`` in tic-tac-toe.

    >>> player_name("connect4", 2), player_name("tictactoe", 1)
    ('yellow', 'X')
    """
    if game == "tictactoe":
        return "X" if player == 1 else "O"
    return "red" if player == 1 else "yellow"


@dataclass(frozen=True)
class PlyReview:
    """One move of the game, graded.

    ``ply`` counts from 1; ``player`` is 1 (red / X) or 2; ``move`` is 0-based
    and ``label`` its notation. ``scores`` are every move's exact score before
    it, from the mover's view (``None``: not playable or not settled);
    ``played_score`` the move's own score; ``loss`` how much less it scored
    than the best. ``verdict`` is ``None`` when the position was not proven.
    """

    ply: int
    player: int
    name: str
    move: int
    label: str
    scores: tuple[int | None, ...]
    proven: bool
    best_score: int | None
    best_moves: tuple[int, ...]
    played_score: int | None
    loss: int | None
    verdict: Verdict | None

    @property
    def missed_win(self) -> bool:
        """True when a winning move was there and the move played does not win (always a
        mistake or a blunder: a win became a draw or a loss).

        >>> [row.missed_win for row in review("4455").plies]
        [False, False, True, True]
        """
        best, played = self.best_score, self.played_score
        return best is not None and played is not None and best > 0 >= played

    def as_dict(self) -> dict[str, object]:
        """The row as JSON-ready values (lists for tuples)."""
        data = asdict(self)
        data["scores"] = list(self.scores)
        data["best_moves"] = list(self.best_moves)
        return data


@dataclass(frozen=True)
class PlayerSummary:
    """One player's figures: ``accuracy`` is the share of best moves among the
    proven ones (``None`` when none was proven)."""

    player: int
    name: str
    moves: int
    proven: int
    best: int
    good: int
    mistakes: int
    blunders: int

    @property
    def accuracy(self) -> float | None:
        return self.best / self.proven if self.proven else None

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "accuracy": self.accuracy}

    def line(self, label: str | None = None) -> str:
        """A one-line summary, headed by ``label`` (default: the colour's name).

        >>> PlayerSummary(1, "red", 4, 4, 3, 0, 1, 0).line()
        'red: accuracy 75.0 % (3 of 4 moves best), 0 good, 1 mistake, 0 blunders'
        """
        accuracy = "-" if self.accuracy is None else f"{100 * self.accuracy:.1f} %"
        unproven = self.moves - self.proven
        extra = f", {unproven} not proven" if unproven else ""
        return (
            f"{label or self.name}: accuracy {accuracy} ({self.best} of {self.proven} moves best), "
            f"{self.good} good, {self.mistakes} mistake{'' if self.mistakes == 1 else 's'}, "
            f"{self.blunders} blunder{'' if self.blunders == 1 else 's'}{extra}"
        )


@dataclass(frozen=True)
class Review:
    """The review of a game (see :func:`review`).

    ``outcomes[k]`` is the proven result after ``k`` plies from the first
    player's view (1 win, 0 draw, -1 loss; ``None``: not proven);
    ``evaluation[k]`` the exact score after ``k`` plies, also from the first
    player's view. ``decisive_ply`` is defined in :func:`review`.
    ``opening`` plies at the start were imposed (an arena opening): they are
    graded but count for neither player. ``names`` says who played the first
    and the second player (arena specs), when known.
    """

    board: Board
    moves: str
    result: str
    plies: tuple[PlyReview, ...]
    outcomes: tuple[int | None, ...]
    evaluation: tuple[int | None, ...]
    decisive_ply: int | None
    players: tuple[PlayerSummary, PlayerSummary]
    opening: int = 0
    names: tuple[str, str] | None = None

    def as_dict(self) -> dict[str, object]:
        """The review as JSON-ready values."""
        board = self.board
        return {
            "game": board.kind,
            "width": board.width,
            "height": board.height,
            "rules": board.rules,
            "moves": self.moves,
            "result": self.result,
            "opening": self.opening,
            "names": None if self.names is None else list(self.names),
            "decisive_ply": self.decisive_ply,
            "outcomes": list(self.outcomes),
            "evaluation": list(self.evaluation),
            "players": [p.as_dict() for p in self.players],
            "plies": [row.as_dict() for row in self.plies],
        }


def _decisive(outcomes: list[int | None]) -> int | None:
    final = outcomes[-1]
    if final is None:
        return None
    for k in range(len(outcomes) - 1, 0, -1):
        before = outcomes[k - 1]
        if before is None:
            return None
        if before != final:
            return k
    return None


def review(
    moves: str,
    board: Board = DEFAULT_BOARD,
    *,
    limit: Limit | None = None,
    opening: int = 0,
    names: tuple[str, str] | None = None,
    reuse_table: bool = True,
    scores: Sequence[MoveScores] | None = None,
) -> Review:
    """Grade every move of the game ``moves`` (a move string) on ``board`` by exact scores.

    Connect Four positions go to the solver (standard rules, with the board size's exact
    opening book), within ``limit``: its node budget caps each position's solve, its
    deadline and stop flag the whole review (a position left when it expired stays
    unproven); tic-tac-toe is searched in full. ``scores``, when given, are every
    position's move scores found elsewhere (one per move: the web server solves a game's
    moves on several threads with :class:`~connect4.review.work.GameScores`). A bad move
    string raises :class:`~connect4.core.errors.GameError` (or its move errors);
    count-fours raises :class:`~connect4.review.values.ReviewError`.

    The first ``opening`` plies were imposed on both players (an arena
    opening): they are graded, but the players' figures count only the moves
    after them. ``names`` (who played first and second) is kept for display.
    ``reuse_table`` (default) keeps the solver's table from one position of
    the game to the next, about half the work, and solves the game's moves as
    :class:`~connect4.review.work.GameScores` tasks (the node budget then caps
    each move's solve); without it every position is analysed on its own from a
    cleared table (the node budget per position), so a position left unproven
    by the node budget is the same
    whatever was solved before (the arena's reproducible records).

    **The decisive ply.** Let ``outcome[k]`` be the proven result after ``k``
    plies (first player's view; after the last ply it is the game's result, or
    the proven value of the unfinished position). The decisive ply is the last
    ply ``k`` whose move changed the outcome (``outcome[k-1] != outcome[k]``):
    the mistake or blunder after which the final result was settled for good.
    It is ``None`` when the game ended as the starting position's value says
    with no change on the way back from the end, or when a position on that
    way is not proven.

    >>> r = review("4455")  # red's 5 throws the win away, yellow's 5 gives it back
    >>> [row.verdict for row in r.plies], r.decisive_ply
    (['best', 'best', 'blunder', 'blunder'], 4)
    >>> r.players[1].line()
    'yellow: accuracy 50.0 % (1 of 2 moves best), 0 good, 0 mistakes, 1 blunder'
    """
    history = board.new(moves).history  # checks every move first
    if board.rules != "standard":
        raise ReviewError(
            "the solver handles the standard rules only: count-fours games cannot be reviewed"
        )
    if not 0 <= opening <= len(history):
        raise ReviewError(f"opening of {opening} plies: the game has {len(history)}")
    game = board.new()
    given = scores
    if given is None and isinstance(game, Position) and reuse_table:
        given = score_game(game, history, limit=limit)
    elif given is not None and len(given) != len(history):
        raise ValueError(f"{len(given)} positions' scores given for a game of {len(history)} moves")
    rows: list[PlyReview] = []
    outcomes: list[int | None] = []
    evaluation: list[int | None] = []
    for ply, move in enumerate(history, start=1):
        view = 1 if game.to_move == 1 else -1  # the mover's score times view = first player's
        # else tic-tac-toe, or each position on its own from a cleared table
        judged = given[ply - 1] if given is not None else _judge_alone(game, limit, reuse_table)
        row = _ply_review(game, ply, move, judged)
        if ply == 1:
            best = row.best_score
            outcomes.append(None if best is None else view * _sign(best))
            evaluation.append(None if best is None else view * best)
        rows.append(row)
        played = row.played_score
        outcomes.append(None if played is None else view * _sign(played))
        evaluation.append(None if played is None else view * played)
        game.play(move)
    if not history:
        outcomes.append(None)
        evaluation.append(None)
    summaries = tuple(_summary(board.kind, p, rows[opening:]) for p in (1, 2))
    return Review(
        board=board,
        moves=game.moves,
        result=game.result_text(),
        plies=tuple(rows),
        outcomes=tuple(outcomes),
        evaluation=tuple(evaluation),
        decisive_ply=_decisive(outcomes),
        players=(summaries[0], summaries[1]),
        opening=opening,
        names=names,
    )


def _judge_alone(board: Game, limit: Limit | None, reuse_table: bool) -> MoveScores:
    """One position's move scores, solved on its own within the per-position node
    budget and the review's limit (none settled once that has expired)."""
    if limit is not None and limit.expired():
        return MoveScores((None,) * board.size, False)
    return exact_scores(board, limit=limit, reuse_table=reuse_table)


def _ply_review(board: Game, ply: int, move: int, judged: MoveScores) -> PlyReview:
    """The row of the move ``move`` played in ``board`` (before it), given the position's
    move scores: the best score and moves (when proven), the score kept, the verdict."""
    column_scores, proven = judged.scores, judged.complete
    known = [s for s in column_scores if s is not None]
    best_score = max(known) if proven and known else None
    played = column_scores[move]
    verdict: Verdict | None = None
    loss: int | None = None
    if best_score is not None and played is not None:
        verdict, loss = grade(best_score, played), best_score - played
    return PlyReview(
        ply=ply,
        player=board.to_move,
        name=player_name(board.kind, board.to_move),
        move=move,
        label=board.move_label(move),
        scores=column_scores,
        proven=proven,
        best_score=best_score,
        best_moves=tuple(m for m, s in enumerate(column_scores) if proven and s == best_score),
        played_score=played,
        loss=loss,
        verdict=verdict,
    )


def _summary(game: str, player: int, rows: list[PlyReview]) -> PlayerSummary:
    mine = [row for row in rows if row.player == player]
    verdicts = [row.verdict for row in mine]
    return PlayerSummary(
        player=player,
        name=player_name(game, player),
        moves=len(mine),
        proven=sum(1 for v in verdicts if v is not None),
        best=verdicts.count("best"),
        good=verdicts.count("good"),
        mistakes=verdicts.count("mistake"),
        blunders=verdicts.count("blunder"),
    )
