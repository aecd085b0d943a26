"""Always plays column 9, off a 7-wide board (forfeit: illegal move 9)."""

import sys

for line in sys.stdin:
    if line.startswith("init"):
        print("ready", flush=True)
    elif line.startswith("move"):
        print(9, flush=True)
