"""A stand-in reference solver speaking the benchmark driver protocol, our solver inside.

    driver.py WIDTH HEIGHT [wrong|short|junk]

``wrong`` adds one to every score, ``short`` answers the first line only,
``junk`` prints a line outside the protocol.
"""

import sys

from connect4.core.position import Position
from connect4.solver import Solver

width, height = int(sys.argv[1]), int(sys.argv[2])
mode = sys.argv[3] if len(sys.argv) > 3 else ""
solver = Solver(width, height, 16)
for number, line in enumerate(sys.stdin, 1):
    if mode == "short" and number > 1:
        break
    moves = line.split(" ")[0].strip()
    result = solver.run(Position.from_moves(moves, width, height))
    score = (result.score or 0) + (mode == "wrong")
    text = "nonsense" if mode == "junk" else f"{moves} {score} {result.nodes} 12.5"
    print(text, flush=True)
