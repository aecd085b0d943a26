"""One finished game as the results file stores it: a JSON object on one line.

The format is the point (other tools read the file, and old files stay
readable), so a line is a :class:`ResultLine` TypedDict (a game as played is a
:class:`connect4.players.match.GameRecord`; the arena turns it into a line),
written with the keys in a fixed order and no spaces. ``move_seconds``,
``move_nodes`` and ``verdicts`` hold one entry per move played after the opening.

>>> record = ResultLine(game=0, tournament="t", red="random", yellow="random:seed=1",
...                     opening="4", moves="45", winner=None, reason="draw", forfeit=None,
...                     detail="", move_seconds=[0.001], move_nodes=[None], seed=7)
>>> to_line(record)[:47]
'{"game":0,"tournament":"t","red":"random","yell'
>>> from_json(json.loads(to_line(record))) == record, from_json({"game": "x"})
(True, None)
"""

import json  # no postponed annotations: ResultLine.__required_keys__ must see NotRequired
from typing import Literal, NotRequired, TypedDict, cast

from connect4.core.games import Board
from connect4.review import Verdict

Colour = Literal["red", "yellow"]
COLOURS: tuple[Colour, Colour] = ("red", "yellow")


class ResultLine(TypedDict):
    """A finished game as a results-file line: players, moves, result, per-move figures.

    ``kind`` (``connect4``/``tictactoe``), ``width``, ``height`` and ``rules``
    name the board (absent from records written before they were stored);
    ``winner`` and ``forfeit`` are colours (``None``: a draw, no forfeit);
    ``reason`` says how the game ended (``connect four``, ``draw``,
    ``fours 5-3``, ``timeout``, ``crash``, ``illegal move 9``, ...);
    ``move_nodes`` counts the nodes a search visited (MCTS: its playouts);
    ``verdicts`` is present when the game was reviewed (``--review``): the
    review's verdict on each move (``None``: not proven within the budget).
    """

    game: int
    tournament: str
    red: str
    yellow: str
    opening: str
    moves: str
    winner: Colour | None
    reason: str
    forfeit: Colour | None
    detail: str
    move_seconds: list[float]
    move_nodes: list[int | None]
    seed: int
    kind: NotRequired[str]
    width: NotRequired[int]
    height: NotRequired[int]
    rules: NotRequired[str]
    verdicts: NotRequired[list[Verdict | None]]


def set_board(record: ResultLine, board: Board) -> ResultLine:
    """``record`` naming the board it was played on (``kind``, ``width``, ``height``,
    ``rules``)."""
    record["kind"], record["rules"] = board.kind, board.rules
    record["width"], record["height"] = board.width, board.height
    return record


def board_of(record: ResultLine) -> Board | None:
    """The board ``record`` names (``None``: written before records named it); one that
    is no board raises :class:`~connect4.core.errors.GameError`.

    >>> board_of(set_board({}, Board("tictactoe")))
    Board(kind='tictactoe', width=3, height=3, rules='standard')
    """
    kind, width, height = record.get("kind"), record.get("width"), record.get("height")
    rules = record.get("rules")
    if kind is None or width is None or height is None or rules is None:
        return None
    return Board(kind, width, height, rules)


def to_line(record: ResultLine) -> str:
    """The record as one line of the results file (compact JSON, newline included)."""
    return json.dumps(record, separators=(",", ":")) + "\n"


def from_json(value: object) -> ResultLine | None:
    """The record a decoded JSON line holds, or ``None`` when it is not one."""
    if not isinstance(value, dict) or not ResultLine.__required_keys__ <= value.keys():
        return None
    if not isinstance(value["game"], int) or not isinstance(value["moves"], str):
        return None
    for key, kind in (("kind", str), ("width", int), ("height", int), ("rules", str)):
        if key in value and not isinstance(value[key], kind):
            return None
    if not isinstance(value["opening"], str) or not value["moves"].startswith(value["opening"]):
        return None
    return cast(ResultLine, value)
