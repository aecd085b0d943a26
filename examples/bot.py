"""A minimal Connect Four bot for `connect4 arena` (protocol: docs/arena.md).

It wins at once when it can, else blocks the opponent's win, else plays the
centremost free column. Try: connect4 arena --players "cmd:python3 examples/bot.py" random
"""

import sys


def four(cells: set[tuple[int, int]]) -> bool:
    steps = ((1, 0), (0, 1), (1, 1), (1, -1))
    return any(
        all((c + i * dc, r + i * dr) in cells for i in range(4))
        for c, r in cells
        for dc, dr in steps
    )


for line in sys.stdin:
    word, *args = line.split()
    if word == "init":
        width, height = int(args[1]), int(args[2])
        print("ready", flush=True)
    elif word == "move":
        moves = "" if args[0] == "-" else args[0]
        heights, stones = [0] * width, ({}, {})  # stones[player][(col, row)]
        for ply, symbol in enumerate(moves):
            column = int(symbol, 36) - 1
            stones[ply % 2][(column, heights[column])] = True
            heights[column] += 1
        me = len(moves) % 2
        free = sorted(
            (c for c in range(width) if heights[c] < height), key=lambda c: abs(2 * c - width + 1)
        )
        best = next(
            (c for who in (me, 1 - me) for c in free if four(set(stones[who]) | {(c, heights[c])})),
            free[0],
        )
        print(best + 1, flush=True)
    elif word == "quit":
        break
