"""Plays the leftmost free column after sleeping SLOW_BOT_SECONDS (env) per move."""

import os
import sys
import time

delay = float(os.environ.get("SLOW_BOT_SECONDS", "0"))
for line in sys.stdin:
    words = line.split()
    if words[0] == "init":
        width, height = int(words[2]), int(words[3])
        print("ready", flush=True)
    elif words[0] == "move":
        time.sleep(delay)
        moves = "" if words[1] == "-" else words[1]
        column = next(c for c in range(1, width + 1) if moves.count(str(c)) < height)
        print(column, flush=True)
    elif words[0] == "quit":
        break
