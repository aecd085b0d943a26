"""One finished game as the results file stores it: a JSON object on one line.

The format is the point (other tools read the file), so a record is a
:class:`GameRecord` TypedDict, written with the keys in a fixed order and no
spaces. ``move_seconds``, ``move_nodes`` and ``optimal`` hold one entry per
move played after the opening.

>>> record = GameRecord(game=0, tournament="t", red="random", yellow="random:seed=1",
...                     opening="4", moves="45", winner=None, reason="draw", forfeit=None,
...                     detail="", move_seconds=[0.001], move_nodes=[None], seed=7)
>>> to_line(record)[:47]
'{"game":0,"tournament":"t","red":"random","yell'
>>> from_json(json.loads(to_line(record))) == record, from_json({"game": "x"})
(True, None)
"""

import json  # no postponed annotations: GameRecord.__required_keys__ must see NotRequired
from typing import Literal, NotRequired, TypedDict, cast

Colour = Literal["red", "yellow"]
COLOURS: tuple[Colour, Colour] = ("red", "yellow")


class GameRecord(TypedDict):
    """A finished game: who played, the moves, the result and per-move figures.

    ``winner`` and ``forfeit`` are colours (``None``: a draw, no forfeit);
    ``reason`` says how the game ended (``connect four``, ``draw``,
    ``fours 5-3``, ``timeout``, ``crash``, ``illegal move 9``, ...);
    ``optimal`` is present when the accuracy judge ran (``None``: not judged).
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
    optimal: NotRequired[list[bool | None]]


def to_line(record: GameRecord) -> str:
    """The record as one line of the results file (compact JSON, newline included)."""
    return json.dumps(record, separators=(",", ":")) + "\n"


def from_json(value: object) -> GameRecord | None:
    """The record a decoded JSON line holds, or ``None`` when it is not one."""
    if not isinstance(value, dict) or not GameRecord.__required_keys__ <= value.keys():
        return None
    if not isinstance(value["game"], int) or not isinstance(value["moves"], str):
        return None
    return cast(GameRecord, value)
