"""Any player as a Kaggle ConnectX agent: ``kaggle_agent("perfect")``.

Kaggle's ConnectX environment (``kaggle_environments.make("connectx")``) calls
``agent(observation, configuration)`` for each move: ``observation.board`` is
the board row by row, top row first (0 empty, 1 and 2 the marks; mark 1
moves first), ``observation.mark`` the agent's mark, ``configuration.columns``,
``.rows`` and ``.inarow`` the game. The agent answers a 0-based column.

Kaggle may run an agent in a fresh process for any move, so the agent keeps
no game between calls: it rebuilds the position from the board alone
(:meth:`~connect4.core.position.Position.from_rows` finds a move order that
reaches it) and asks the player. The one thing kept is the player per board
size, whose tables and books only make later moves faster.

This module needs nothing of ``kaggle_environments``: it only builds the
function.

>>> agent = kaggle_agent("perfect")
>>> board = [0] * 21 + [0, 0, 0, 1, 0, 0, 0] * 2 + [2, 2, 0, 1, 0, 0, 0]  # 7x6, top row first
>>> agent({"board": board, "mark": 2}, {"columns": 7, "rows": 6, "inarow": 4})  # blocks
3
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from connect4.core.bits import MAX_BOARD_BITS
from connect4.core.games import Board
from connect4.core.position import Position
from connect4.players import Player, PlayerContext, make_player, rehearse

ConnectXAgent = Callable[[object, object], int]
"""A Kaggle ConnectX agent: ``agent(observation, configuration) -> column``."""

INAROW = 4
"""The line length this package's rules play: ConnectX's ``inarow``."""


def field(struct: object, name: str) -> object:
    """A field of an observation or configuration: Kaggle's ``Struct``, a dict or an object."""
    if isinstance(struct, Mapping):
        if name in struct:
            return struct[name]
    elif hasattr(struct, name):
        return getattr(struct, name)
    raise ValueError(f"ConnectX input has no {name!r} field")


def integer(struct: object, name: str) -> int:
    """An integer field; ``ValueError`` naming it otherwise."""
    value = field(struct, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"ConnectX {name} must be an integer, not {value!r}")
    return value


def position_of(observation: object, configuration: object) -> Position:
    """The position a ConnectX observation shows, checked against its ``mark``.

    >>> position_of({"board": [0, 0, 0, 1], "mark": 2}, {"columns": 2, "rows": 2, "inarow": 4})
    Position.from_moves('2', width=2, height=2)
    """
    columns, rows = integer(configuration, "columns"), integer(configuration, "rows")
    inarow = integer(configuration, "inarow")
    if inarow != INAROW:
        raise ValueError(
            f"ConnectX inarow={inarow} is not supported: this package plays four in a row "
            f"(inarow=4) on boards with columns*(rows+1) <= {MAX_BOARD_BITS}"
        )
    cells = field(observation, "board")
    if not isinstance(cells, Sequence) or isinstance(cells, str | bytes):
        raise ValueError(f"ConnectX board must be a list of cells, not {cells!r}")
    board = list(cells)
    if len(board) != columns * rows:
        raise ValueError(
            f"ConnectX board has {len(board)} cells, not columns*rows = {columns * rows}"
        )
    position = Position.from_rows([board[r * columns : (r + 1) * columns] for r in range(rows)])
    mark = integer(observation, "mark")
    if mark != position.to_move:
        raise ValueError(
            f"ConnectX mark {mark} is not the side to move: the board has {position.ply} "
            f"stones, so mark {position.to_move} moves (mark 1 moves first)"
        )
    return position


def kaggle_agent(spec: str = "perfect", *, seed: int | None = None) -> ConnectXAgent:
    """A ConnectX agent that plays as the player ``spec`` (any player spec).

    The spec is checked now (:class:`~connect4.players.PlayerSpecError`) and
    warmed up on the 7x6 board (compiling, loading books), so a submission that
    builds its agent at import pays for that before any move's clock starts;
    ``seed`` seeds the players for reproducible games. The agent raises
    ``ValueError`` for a board it cannot play: ``inarow`` other than 4, a board
    too large for the bitboard (``columns*(rows+1) > 128``), a board no game
    reaches, a ``mark`` that is not the side to move, a finished game.
    """
    players: dict[tuple[int, int], Player] = {(7, 6): make_player(spec, seed=seed)}
    rehearse(spec, Position(), PlayerContext())

    def agent(observation: object, configuration: object) -> int:
        position = position_of(observation, configuration)
        if position.is_over():
            raise ValueError(f"the game is over ({position.result_text()}): no move to choose")
        size = (position.width, position.height)
        if size not in players:
            context = PlayerContext(Board.of(position), seed)
            players[size] = make_player(spec, context)
            rehearse(spec, position, context)
        return int(players[size].choose(position).move)

    return agent
