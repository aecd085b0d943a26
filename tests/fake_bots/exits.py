"""Plays the leftmost free column twice, then exits cleanly mid-game (forfeit: exited)."""

import sys

answered = 0
for line in sys.stdin:
    words = line.split()
    if words[0] == "init":
        width, height = int(words[2]), int(words[3])
        print("ready", flush=True)
    elif words[0] == "move":
        if answered == 2:
            sys.exit(0)
        moves = "" if words[1] == "-" else words[1]
        column = next(c for c in range(1, width + 1) if moves.count(str(c)) < height)
        print(column, flush=True)
        answered += 1
