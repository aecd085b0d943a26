"""Answers init, then dies with a traceback on its first move (forfeit: crash)."""

import sys

sys.stdin.readline()
print("ready", flush=True)
sys.stdin.readline()
raise RuntimeError("fake bot crashed")
