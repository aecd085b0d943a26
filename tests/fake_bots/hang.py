"""Answers init, then never answers a move (forfeit: timeout)."""

import sys
import time

sys.stdin.readline()
print("ready", flush=True)
sys.stdin.readline()
while True:
    time.sleep(60)
