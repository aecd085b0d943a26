"""Plays the leftmost free column after sleeping SLOW_BOT_SECONDS (env) per move."""

import os
import time

from protocol import leftmost, moves_asked

delay = float(os.environ.get("SLOW_BOT_SECONDS", "0"))
for moves, width, height in moves_asked():
    time.sleep(delay)
    print(leftmost(moves, width, height), flush=True)
