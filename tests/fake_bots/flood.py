"""Answers a move with an endless line (forfeit: bad output, its memory bounded)."""

import sys

for line in sys.stdin:
    if line.startswith("init"):
        print("ready", flush=True)
    elif line.startswith("move"):
        chunk = "4" * 65536
        while True:
            sys.stdout.write(chunk)
            sys.stdout.flush()
