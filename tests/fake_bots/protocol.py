"""What the fake bots that play share: the arena's line protocol (``init``, ``move``,
``quit``) and the leftmost column with room."""

import sys
from collections.abc import Iterator


def moves_asked() -> Iterator[tuple[str, int, int]]:
    """Answer ``init`` with ``ready``; for each ``move`` request, the moves so far and the
    board's width and height; end at ``quit`` or the end of stdin."""
    width = height = 0
    for line in sys.stdin:
        words = line.split()
        if words[0] == "init":
            width, height = int(words[2]), int(words[3])
            print("ready", flush=True)
        elif words[0] == "move":
            yield ("" if words[1] == "-" else words[1]), width, height
        elif words[0] == "quit":
            return


def leftmost(moves: str, width: int, height: int) -> int:
    """The leftmost column (1-based) that is not full after ``moves``."""
    return next(c for c in range(1, width + 1) if moves.count(str(c)) < height)
