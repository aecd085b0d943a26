"""The opening explorer: every move from a position with its exact score, the best
line, and how often each move was played in a collection of games.

What lichess's opening explorer shows from its databases, made exact: each legal
move's score in Pons' convention (:func:`connect4.review.exact_scores`, the
solver with the board's shipped opening book), the principal variation
(:func:`connect4.review.best_line`) and, from a :class:`GameIndex` of a game
collection, how many games played each move and how they ended.

Inside the shipped books (7x6 up to 12 stones, 6x5) the scores are a lookup
away; any other position is searched under the caller's :class:`Limit`, and a
position the limit does not settle raises :class:`ExplorerLimit` (a
:class:`~connect4.core.errors.BudgetExceeded`: the interfaces answer it as
any stopped work) rather than showing guesses. The best line is cut short,
``line_complete`` False, where the limit ran out while it was being played.

A collection is given as data, move strings: :class:`GameCounter` counts
them into an index (positions are matched by their key, so games that reach a
position by different orders of moves count together, as on lichess). Reading
files is the interfaces' part (:mod:`connect4.learn.collection`).

>>> from connect4 import Position
>>> counter = GameCounter(Board())
>>> for moves in ("4453", "44", "4455667"):
...     counter.add(moves)
>>> found = explore(Position.from_moves("44"), index=counter.index())
>>> [(m.move + 1, m.score, m.games) for m in found.moves]
[(1, -3, 0), (2, -3, 0), (3, -2, 0), (4, 1, 0), (5, -2, 2), (6, -3, 0), (7, -3, 0)]
>>> found.moves[4].wins, found.games, found.best(), found.line[:4]
(1, 2, (3,), (3, 3, 3, 3))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from connect4.core.errors import BudgetExceeded, Connect4Error
from connect4.core.game import Game
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.review import best_line, exact_scores

__all__ = [
    "Exploration",
    "ExploredMove",
    "ExplorerError",
    "ExplorerLimit",
    "GameCounter",
    "GameIndex",
    "MoveCount",
    "explore",
]


class ExplorerError(Connect4Error):
    """A position that cannot be explored (the game is over, another board's index)."""


class ExplorerLimit(BudgetExceeded):
    """The limit ran out before every move of the position was scored."""


@dataclass(frozen=True)
class MoveCount:
    """How many games of a collection played a move in a position, and how they
    ended for the side that played it (``wins + draws + losses`` may be fewer than
    ``games``: a game that stopped before its end, a forfeit, has no result on the
    board)."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


@dataclass(frozen=True)
class GameIndex:
    """A game collection counted by position: ``counts[(key, move)]`` for the
    position's :meth:`~connect4.core.game.Game.key` and a move played there.
    ``games`` is how many games were counted (all on ``board``)."""

    board: Board
    games: int = 0
    counts: Mapping[tuple[int, int], MoveCount] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def played(self, game: Game, move: int) -> MoveCount:
        """How often ``move`` was played in ``game``'s position (zero counts if never)."""
        return self.counts.get((game.key(), move), MoveCount())


class GameCounter:
    """Counts move strings of one board into a :class:`GameIndex`.

    >>> counter = GameCounter(Board("tictactoe"))
    >>> counter.add("5")
    >>> counter.add("59x")
    Traceback (most recent call last):
    ...
    connect4.core.errors.InvalidMoveError: move 3 ('x'): not a cell number 1-9
    >>> counter.index().games  # a game that does not replay is not counted
    1
    """

    def __init__(self, board: Board) -> None:
        self.board = board
        self.games = 0
        self._counts: dict[tuple[int, int], list[int]] = {}

    def add(self, moves: str) -> None:
        """Count one game (its move string in the board's notation); one that does
        not replay raises the board's :class:`~connect4.core.errors.GameError`."""
        final = self.board.new(moves)  # checks the whole string before anything is counted
        winner = final.winner() if final.is_over() else -1  # -1: no result on the board
        game = self.board.new()
        for move in final.history:
            counts = self._counts.setdefault((game.key(), move), [0, 0, 0, 0])
            counts[0] += 1
            if winner is None:
                counts[2] += 1
            elif winner == game.to_move:
                counts[1] += 1
            elif winner > 0:
                counts[3] += 1
            game.play(move)
        self.games += 1

    def add_all(self, games: Iterable[str]) -> GameCounter:
        """Count every move string of ``games``; returns self."""
        for moves in games:
            self.add(moves)
        return self

    def index(self) -> GameIndex:
        """The games counted so far, as a frozen index."""
        counts = {key: MoveCount(*value) for key, value in self._counts.items()}
        return GameIndex(self.board, self.games, MappingProxyType(counts))


@dataclass(frozen=True)
class ExploredMove:
    """One legal move of an explored position: its exact ``score`` (Pons' convention,
    the mover's point of view) and how the collection played it (:class:`MoveCount`)."""

    move: int
    score: int
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class Exploration:
    """Every legal move of a position (``moves``, in board order) with its score and
    games, the position's ``score`` (the best move's), the best line from it
    (``line``: the game's move numbers; ``line_complete`` when it reaches the game's
    end) and how many games of the collection went on from it (``games``)."""

    board: Board
    position: str
    ply: int
    to_move: int
    score: int
    moves: tuple[ExploredMove, ...]
    line: tuple[int, ...]
    line_complete: bool
    games: int

    def best(self) -> tuple[int, ...]:
        """The moves with the position's score."""
        return tuple(m.move for m in self.moves if m.score == self.score)

    def line_text(self) -> str:
        """The best line as a move string (the game's notation: 1-based columns or cells)."""
        game = self.board.new()
        return "".join(game.move_label(move) for move in self.line)

    def as_dict(self) -> dict[str, object]:
        """As the interfaces give it (JSON): moves 1-based under ``column``, the best line
        a move string.

        >>> from connect4 import Position
        >>> found = explore(Position.from_moves("445566"))
        >>> found.as_dict()["moves"][2], found.as_dict()["line"]
        ({'column': 3, 'score': 18, 'games': 0, 'wins': 0, 'draws': 0, 'losses': 0}, '3')
        """
        return {
            "position": self.position,
            "game": self.board.kind,
            "width": self.board.width,
            "height": self.board.height,
            "ply": self.ply,
            "to_move": self.to_move,
            "score": self.score,
            "games": self.games,
            "moves": [
                {
                    "column": m.move + 1,
                    "score": m.score,
                    "games": m.games,
                    "wins": m.wins,
                    "draws": m.draws,
                    "losses": m.losses,
                }
                for m in self.moves
            ],
            "line": self.line_text(),
            "line_complete": self.line_complete,
        }


def explore(
    game: Game,
    *,
    index: GameIndex | None = None,
    limit: Limit | None = None,
    line_moves: int | None = None,
) -> Exploration:
    """Every legal move of ``game`` with its exact score and how often ``index``'s
    games played it, and the best line (at most ``line_moves`` moves).

    ``limit`` bounds the whole (its deadline, node budget and stop flag): the scores
    first, then the line with what is left. Raises :class:`ExplorerError` for a
    game that is over or an index of another board, :class:`ExplorerLimit` when the
    limit leaves a move unscored, and the review's error for a game the solver
    cannot score (count-fours).
    """
    board = Board.of(game)
    if game.is_over():
        raise ExplorerError(f"the game is already over ({game.result_text()}): no move to explore")
    if index is not None and index.board != board:
        raise ExplorerError(
            f"the games counted are of {_board_name(index.board)}, not {_board_name(board)}"
        )
    judged = exact_scores(game, limit=limit)
    if not judged.complete:
        raise ExplorerLimit(
            f"the solver could not score every move of {game.moves or 'the empty board'} "
            f"within the limit ({_limit_words(limit)}); a position past the opening book "
            "needs a search: give it more time"
        )
    moves = []
    for move in sorted(game.legal_moves()):
        score = judged.scores[move]
        assert score is not None  # complete: every legal move is scored
        count = index.played(game, move) if index is not None else MoveCount()
        moves.append(ExploredMove(move, score, count.games, count.wins, count.draws, count.losses))
    line = best_line(game, limit=limit, max_moves=line_moves)
    return Exploration(
        board=board,
        position=game.moves,
        ply=game.ply,
        to_move=game.to_move,
        score=max(m.score for m in moves),
        moves=tuple(moves),
        line=line.moves,
        line_complete=line.complete,
        games=sum(m.games for m in moves),
    )


def _board_name(board: Board) -> str:
    if board.kind == "tictactoe":
        return "tic-tac-toe"
    return f"{board.width}x{board.height} Connect Four" + (
        "" if board.rules == "standard" else f" ({board.rules})"
    )


def _limit_words(limit: Limit | None) -> str:
    """What ``limit`` allowed, in words: ``10 s``, ``5,000 nodes`` or ``stopped``."""
    if limit is None or (limit.stopped() and not limit.overdue()):
        return "stopped"
    parts = []
    seconds = limit.allowed()
    if seconds is not None:
        parts.append(f"{seconds:.3g} s")
    if limit.nodes is not None:
        parts.append(f"{limit.nodes:,} nodes")
    return ", ".join(parts) or "stopped"
