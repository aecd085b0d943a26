"""A move under a clock, the one forfeit policy, and the one game record.

:func:`play_move` runs ``player.choose`` in a worker thread with a
:class:`~connect4.core.limits.Limit` (the clock's deadline and a stop flag)
while the calling thread waits in short slices, so a Ctrl-C there stops the
thinking (the flag is set) and is raised again within half a second. It
answers a :class:`Turn`: the move played, or a :class:`Forfeit` with its
reason. :func:`play_match` is the one game loop: the arena's games run through it
as they are (each move under the clock), the terminal's with its own turns (a
person's prompt, undo, hint and quit: its ``ask`` and ``after`` hooks); both keep
a :class:`GameRecord`.

Forfeits (the other side wins): ``timeout`` (no move within the clock and its
grace, or stopped with no move at all), ``crash`` (the player raised), an
``illegal move N``, and a bot's own faults (``bad output``, ``exited``, ...).

>>> from connect4 import TicTacToe
>>> from connect4.players.registry import make_player
>>> players = (make_player("random", seed=1), make_player("random", seed=2))
>>> record = play_match(TicTacToe.from_moves("5"), players)
>>> record.finished, record.moves.startswith("5"), len(record.move_seconds) == record.ply - 1
(True, True, True)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from connect4.core.errors import BudgetExceeded
from connect4.core.game import Game
from connect4.core.limits import Limit, Worker, clock as now
from connect4.core.position import count_fours
from connect4.players.base import MoveChoice, MoveStats, Player
from connect4.players.external import BotFault

STOP_WAIT = 0.3  # after Ctrl-C, how long the thinking thread gets to wind down
ABANDON_SECONDS = 15.0  # past its clock, a player that has not answered is left behind


def grace(clock: float) -> float:
    """The overrun a clocked move may have (a search stops at the next check):
    a tenth of the clock, at least 50 ms.

    >>> grace(1.0), grace(0.1)
    (0.1, 0.05)
    """
    return max(0.05, 0.1 * clock)


@dataclass(frozen=True)
class Forfeit:
    """A lost game by fault: the colour (1 red/X, 2 yellow/O), why, and details."""

    colour: int
    reason: str
    detail: str = ""

    def text(self) -> str:
        """The reason in a few words: ``crash (ValueError: ...)``."""
        return self.reason + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class Turn:
    """What one move under a clock gave: a ``choice`` (its move is legal) and the
    ``seconds`` it counts for, or a ``forfeit``."""

    choice: MoveChoice | None
    seconds: float
    forfeit: Forfeit | None = None


def _wait(thinking: Worker[MoveChoice], limit: Limit, clock: float | None) -> bool:
    """Wait for ``thinking`` in short slices; False when it was abandoned past its clock.

    A KeyboardInterrupt while waiting stops the thinking, gives it
    :data:`STOP_WAIT` seconds to end and is raised again."""
    give_up = limit.overrun(grace(clock or 0.0) + ABANDON_SECONDS)
    try:
        if thinking.wait(give_up):
            return True
    except KeyboardInterrupt:
        limit.stop()
        thinking.done.wait(STOP_WAIT)
        raise
    limit.stop()  # it ignored its deadline (a bot's start-up may not count)
    return False


def play_move(
    player: Player, game: Game, clock: float | None = None, limit: Limit | None = None
) -> Turn:
    """Ask ``player`` for a move in ``game`` (left unchanged) under a ``clock`` in
    seconds (``None``: no clock) and the caller's ``limit``; see the module docstring.

    >>> from connect4 import Position
    >>> from connect4.players.registry import PlayerContext, make_player, rehearse
    >>> rehearse("alphabeta:depth=30", Position(), PlayerContext())  # loaded off the clock
    >>> play_move(make_player("alphabeta:depth=30"), Position(), clock=0.2).choice.complete
    False
    """
    colour = game.to_move
    own = Limit.within(clock) if limit is None else limit.tighter(clock)
    position = game.copy()
    started = now()
    thinking = Worker(
        lambda limit: player.choose(position, limit), own, name=f"connect4-think-{player.spec}"
    )
    finished = _wait(thinking, own, clock)
    wall = now() - started
    if not finished:
        return Turn(None, wall, Forfeit(colour, "timeout", f"no answer {wall:.1f} s into its move"))
    error = thinking.error
    if isinstance(error, BotFault):
        return Turn(None, wall, Forfeit(colour, error.reason, error.detail))
    if isinstance(error, BudgetExceeded):
        return Turn(None, wall, Forfeit(colour, "timeout", str(error)))
    if isinstance(error, Exception):
        return Turn(None, wall, Forfeit(colour, "crash", f"{type(error).__name__}: {error}"))
    if error is not None:
        raise error
    choice = thinking.result()
    reported = choice.stats.get("seconds")
    seconds = float(reported) if isinstance(reported, int | float) else wall
    if clock is not None and seconds > clock + grace(clock):
        detail = f"{seconds:.3f} s for a {clock:g} s move"
        return Turn(None, seconds, Forfeit(colour, "timeout", detail))
    move = choice.move
    if not isinstance(move, int) or move not in game.legal_moves():
        label = move + 1 if isinstance(move, int) else move
        return Turn(None, seconds, Forfeit(colour, f"illegal move {label}"))
    return Turn(choice, seconds)


def end_reason(game: Game) -> str:
    """Why a finished game ended: ``connect four``, ``three in a row``, ``draw``, ``fours 5-3``."""
    if game.rules == "count-fours":
        fours = [count_fours(game.stones(player), game.height) for player in (1, 2)]
        return f"fours {fours[0]}-{fours[1]}"
    if game.winner() is None:
        return "draw"
    return "three in a row" if game.kind == "tictactoe" else "connect four"


@dataclass
class GameRecord:
    """One game as played: its moves (``opening`` first), the time each later move
    took and each AI move's figures (``None`` for a person's), and how it ended.

    ``winner`` is 1 or 2 (``None``: a draw or unfinished); ``forfeit`` the colour
    that lost by fault, ``reason`` how the game ended (``connect four``, ``draw``,
    ``timeout``, ``crash``, ``illegal move 9``, ...), ``detail`` a forfeit's details.
    """

    moves: str = ""
    opening: str = ""
    winner: int | None = None
    finished: bool = False
    reason: str = ""
    forfeit: int | None = None
    detail: str = ""
    move_seconds: list[float] = field(default_factory=list)
    move_stats: list[MoveStats | None] = field(default_factory=list)

    @property
    def ply(self) -> int:
        """Moves played, the opening's included."""
        return len(self.moves)

    def add(self, turn: Turn, game: Game) -> None:
        """Play ``turn``'s move on ``game`` and note it, or note its forfeit."""
        if turn.forfeit is not None:
            self.forfeit, self.reason, self.detail = (
                turn.forfeit.colour,
                turn.forfeit.reason,
                turn.forfeit.detail,
            )
            return
        assert turn.choice is not None
        game.play(turn.choice.move)
        self.move_seconds.append(turn.seconds)
        self.move_stats.append(turn.choice.stats or None)

    def finish(self, game: Game) -> GameRecord:
        """Fill in the end: moves, winner, reason (a forfeit's stays)."""
        self.moves = game.moves
        if self.forfeit is not None:
            self.finished, self.winner = True, 3 - self.forfeit
        else:
            self.finished = game.is_over()
            self.winner = game.winner() if self.finished else None
            self.reason = end_reason(game) if self.finished else ""
        return self

    def forfeit_text(self) -> str:
        """The forfeit's reason with its details (empty without a forfeit)."""
        if self.forfeit is None:
            return ""
        return self.reason + (f" ({self.detail})" if self.detail else "")

    def to_json(self) -> str:
        """The record as a JSON object (``connect4 play --json``)."""
        record: dict[str, object] = {
            "moves": self.moves,
            "winner": self.winner,
            "move_seconds": [round(s, 6) for s in self.move_seconds],
            "move_stats": self.move_stats,
            "finished": self.finished,
        }
        if self.forfeit is not None:
            record.update(forfeit=self.forfeit, reason=self.forfeit_text())
        return json.dumps(record)


Ask = Callable[[Player, Game, GameRecord], Turn | None]
"""How an interface gets a turn from the side to move: the :class:`Turn` to play, or
:data:`AGAIN` (the position changed without a move, as an undo does: ask the side to
move then), or ``None`` to stop the game unfinished (a person quit)."""

AGAIN = Turn(None, 0.0)
"""An :data:`Ask`'s answer when no move was played but the position changed (an undo)."""


def play_match(
    game: Game,
    players: Sequence[Player],
    clock: float | None = None,
    *,
    ask: Ask | None = None,
    after: Callable[[Game, Turn], None] | None = None,
) -> GameRecord:
    """The one game loop: play ``game`` on to its end, a forfeit or a stop, and answer
    its record.

    Each turn is asked of ``players[colour - 1]``: by default a move under ``clock``
    (:func:`play_move`); an interface's ``ask`` gives its own (a person's move, a
    prompt's undo or quit) and ``after`` sees each turn once played (to show it).
    """
    record = GameRecord(opening=game.moves)
    while record.forfeit is None and not game.is_over():
        mover = players[game.to_move - 1]
        turn = play_move(mover, game, clock) if ask is None else ask(mover, game, record)
        if turn is None:
            break
        if turn is not AGAIN:
            record.add(turn, game)
        if after is not None:
            after(game, turn)
    return record.finish(game)
