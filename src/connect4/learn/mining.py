"""Mining puzzles from games: where the evaluation swings, keep what is a puzzle.

Along a game, every position's moves are scored exactly
(:func:`~connect4.review.exact_scores`). Where the move played changed the
outcome (a win thrown to a draw or a loss, a draw thrown to a loss), two
positions are candidates: the one before the move (find what the player
missed) and the one after it (punish the mistake). Each is kept where it is a
puzzle (:func:`~connect4.learn.puzzles.find_puzzle`); the same position met
twice is one puzzle. So is every other position of the game where exactly one
move keeps the side to move's win or draw and the line is no deeper than
:data:`~connect4.learn.puzzles.MAX_DEPTH` (the late, short puzzles a person can
solve, which a swing early in the game leaves behind).

Games come from games files (:func:`~connect4.learn.collection.read_games`:
arena and lab results, move strings) or from self-play between players of
mixed strengths (:data:`DEFAULT_LEVELS`, any player specs of the registry): game
``i`` of a run pairs two of them, picked and seeded from the run's seed and
``i``, so a run is the same every time, except where a move hangs on a player's
clock (a perfect player at a level whose solve runs out of its time plays a timed
search's move).

>>> from connect4.core.games import Board
>>> [(p.position, p.solution) for p in mine_game("4455661", Board(), "example")]
[('44', '444')]
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from connect4.core.errors import GameError
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.position import parse_column
from connect4.learn.puzzles import MAX_DEPTH, Puzzle, PuzzleError, depth, find_puzzle
from connect4.review import exact_scores

__all__ = [
    "DEFAULT_LEVELS",
    "Candidate",
    "MiningError",
    "candidates",
    "mine_game",
    "self_play_game",
]

DEFAULT_LEVELS: tuple[str, ...] = (
    "perfect:temperature=4,blunder=0.3",
    "perfect:temperature=2,blunder=0.1",
    "alphabeta:depth=2,heuristic=windows",
    "alphabeta:depth=5,heuristic=windows,tt=on",
    "mcts:playouts=200",
)
"""The players self-play pairs by default: beatable players, whose mistakes make puzzles.
Written out key by key (what the easy and medium levels of ``perfect`` and ``alphabeta``
and the easy level of ``mcts`` were when the shipped puzzle set was mined), not by level
name, so that retuning a level leaves the self-play games, and the set, as they are."""


class MiningError(PuzzleError):
    """A game that cannot be mined: it does not replay on the board, or a bad player spec."""


@dataclass(frozen=True)
class Candidate:
    """A position where the evaluation swung: the game's first ``ply`` moves."""

    ply: int
    moves: str


def _outcome(score: int) -> int:
    return (score > 0) - (score < 0)


def candidates(moves: str, board: Board, limit: Limit | None = None) -> list[Candidate]:
    """The positions of the game ``moves`` on ``board`` where the evaluation swings: before
    and after each move that changed the mover's outcome, and those where one move alone
    keeps a shallow win or draw (positions ``limit`` leaves unsettled are passed over).
    A game that does not replay is a :class:`MiningError`.

    >>> [c.moves for c in candidates("4455661", Board())]  # red's 5 throws the win away
    ['44', '445', '4455']
    """
    try:
        game = board.new(moves)
    except GameError as error:
        raise MiningError(f"the game {moves!r} does not replay: {error}") from None
    if game.kind != "connect4" or game.rules != "standard":
        raise MiningError("puzzles are mined from Connect Four games of the standard rules")
    found: list[Candidate] = []
    replay = board.new()
    for ply, token in enumerate(moves.strip()):
        column = parse_column(token, board.width, ply + 1)
        judged = exact_scores(replay, limit=limit)
        played = judged.scores[column] if judged.complete else None
        if played is not None:
            best = max(s for s in judged.scores if s is not None)
            before = replay.moves
            if _outcome(played) < _outcome(best):
                found += [c for c in (Candidate(ply, before), Candidate(ply + 1, before + token))
                          if c not in found]  # fmt: skip
            elif (
                _only(judged.scores, best)
                and depth(judged.scores, ply, game.size) <= MAX_DEPTH
                and Candidate(ply, before) not in found
            ):
                found.append(Candidate(ply, before))
        replay.play(column)
    return found


def _only(scores: tuple[int | None, ...], best: int) -> bool:
    """True when exactly one move keeps the outcome ``best`` and it is not a loss."""
    kept = [s for s in scores if s is not None and _outcome(s) == _outcome(best)]
    return best >= 0 and len(kept) == 1


def mine_game(moves: str, board: Board, source: str, limit: Limit | None = None) -> list[Puzzle]:
    """The puzzles of one game: its candidates that are puzzles, each position once, in
    the order of the game; ``source`` is recorded in each (where the game came from)."""
    found: dict[str, Puzzle] = {}
    for candidate in candidates(moves, board, limit):
        position = board.new(candidate.moves)
        puzzle = find_puzzle(position, limit, source=source)
        if puzzle is not None and puzzle.id not in found:
            found[puzzle.id] = puzzle
    return list(found.values())


def self_play_game(index: int, levels: Sequence[str], seed: int, board: Board) -> tuple[str, str]:
    """Game ``index`` of a self-play run: its moves and who played it (``A vs B``). The two
    players are picked from ``levels`` and seeded from ``seed`` and ``index``."""
    from connect4.players.base import PlayerContext
    from connect4.players.match import play_match
    from connect4.players.registry import PlayerSpecError, make_player

    rng = random.Random(seed * 1_000_003 + index)
    specs = [rng.choice(list(levels)) for _ in range(2)]
    players = []
    try:
        for colour, spec in enumerate(specs):
            context = PlayerContext(board, seed=rng.randrange(2**31) + colour)
            players.append(make_player(spec, context))
        record = play_match(board.new(), players)
    except PlayerSpecError as error:
        raise MiningError(str(error)) from None
    finally:
        for player in players:
            player.close()
    return record.moves, f"self-play {index}: {specs[0]} vs {specs[1]}"
