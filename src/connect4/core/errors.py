"""Errors raised for moves that are not moves at all, or cannot be played now.

Both are :class:`ValueError` subclasses, so ``except ValueError`` catches them.

>>> from connect4 import Position
>>> Position.from_moves("48")
Traceback (most recent call last):
...
connect4.core.errors.InvalidMoveError: move 2 ('8'): column 8 is out of range 1-7
"""

from __future__ import annotations


class InvalidMoveError(ValueError):
    """Not a move at all: a bad character or a column out of range."""


class IllegalMoveError(ValueError):
    """A real move that cannot be played now: a full column or a finished game."""


def move_error_prefix(index: int, token: str) -> str:
    """The start of an error message naming the move's 1-based ``index`` in the string.

    A long token is cut to its first 20 characters, so a pasted novel gets a
    one-line message.

    >>> move_error_prefix(7, "4")
    "move 7 ('4')"
    >>> move_error_prefix(1, "9" * 5000)
    "move 1 ('99999999999999999999...', 5000 characters)"
    """
    if len(token) > 20:
        return f"move {index} ({token[:20] + '...'!r}, {len(token)} characters)"
    return f"move {index} ({token!r})"
