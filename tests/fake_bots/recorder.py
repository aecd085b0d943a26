"""Writes every line it receives to the file named by its first argument; plays column 1.

Lets a test check the exact protocol transcript the arena sends.
"""

import sys

with open(sys.argv[1], "a") as log:
    for line in sys.stdin:
        log.write(line)
        log.flush()
        if line.startswith("init"):
            print("ready", flush=True)
        elif line.startswith("move"):
            print(1, flush=True)
        elif line.startswith("quit"):
            break
