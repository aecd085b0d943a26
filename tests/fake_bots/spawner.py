"""Starts a long-sleeping child of its own, then plays column 1 forever.

The arena must kill the bot's whole process group, grandchildren included.
Its own pid and its child's are written to the file named by the first argument.
"""

import os
import subprocess
import sys

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(sys.argv[1], "a") as out:
    out.write(f"{os.getpid()} {child.pid}\n")
for line in sys.stdin:
    if line.startswith("init"):
        print("ready", flush=True)
    elif line.startswith("move"):
        moves = line.split()[1]
        free = [c for c in "1234567" if moves.count(c) < 6]
        print(free[0], flush=True)
