"""A reference solver run as a separate program over the benchmark driver protocol.

The program reads move strings on stdin, one per line (an empty line is the empty
board), and prints ``moves score nodes microseconds`` for each, timing the solve
only, with the table cleared before each position. ``benchmarks/reference/`` has
such drivers for Pons' solver and for Christophe Steininger's c4 (see
docs/solver.md, "Building the reference solvers").

A command may name the run's settings as ``{width}``, ``{height}``, ``{tt_mb}`` and
``{threads}``, filled in before it runs (c4 compiles them in, one driver each):

>>> reference_command("/opt/c4bench-{width}x{height}-t{threads}-{tt_mb}mb", 7, 6, 64, 2)
['/opt/c4bench-7x6-t2-64mb']
"""

from __future__ import annotations

import resource
import shlex
import subprocess
import time
from dataclasses import dataclass

PLACEHOLDERS = ("width", "height", "tt_mb", "threads")


class ReferenceError(Exception):
    """The reference could not be run or answered outside the protocol."""


@dataclass(frozen=True)
class ReferenceSolve:
    """One position as the reference reported it."""

    moves: str
    score: int
    nodes: int
    micros: float


@dataclass(frozen=True)
class ReferenceRun:
    """The reference's answers for a list of positions, and the run's cost."""

    solves: list[ReferenceSolve]
    wall_seconds: float
    cpu_seconds: float


def reference_command(
    template: str, width: int, height: int, tt_mb: int, threads: int
) -> list[str]:
    """The command's words (split like a shell's) with the run's settings filled in."""
    values = {"width": width, "height": height, "tt_mb": tt_mb, "threads": threads}
    words = []
    for word in shlex.split(template):
        try:
            words.append(word.format_map(values))
        except (KeyError, ValueError, IndexError) as error:
            known = ", ".join(f"{{{name}}}" for name in PLACEHOLDERS)
            raise ReferenceError(f"bad placeholder in {word!r} ({error}): use {known}") from None
    if not words:
        raise ReferenceError("the reference command is empty")
    return words


def _parse(line: str, moves: str) -> ReferenceSolve:
    fields = line.rstrip().split(" ")
    if len(fields) != 4 or fields[0] != moves:
        raise ReferenceError(f"expected '{moves} score nodes microseconds', got {line.rstrip()!r}")
    try:
        return ReferenceSolve(moves, int(fields[1]), int(fields[2]), float(fields[3]))
    except ValueError:
        raise ReferenceError(
            f"expected numbers in 'moves score nodes microseconds', got {line!r}"
        ) from None


def run_reference(command: list[str], moves: list[str]) -> ReferenceRun:
    """Solve every move string with the reference; its CPU time is its process's (all threads)."""
    text = "".join(f"{line}\n" for line in moves)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run(command, input=text, capture_output=True, text=True, check=False)
    except OSError as error:
        raise ReferenceError(
            f"cannot run the reference {shlex.join(command)!r}: {error.strerror}"
        ) from None
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ReferenceError(f"the reference exited with status {done.returncode}: {last}")
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if len(lines) != len(moves):
        raise ReferenceError(f"the reference printed {len(lines)} lines for {len(moves)} positions")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    solves = [_parse(line, want) for line, want in zip(lines, moves, strict=True)]
    return ReferenceRun(solves, wall, cpu)
