"""Run solver benchmark files (``moves score`` lines, Pons' format) and check every score.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "tiny")
>>> _ = open(path, "w").write("4455 18\\n44455554221 -15\\n")
>>> report = run_file(path)
>>> report.n, report.correct, report.ok
(2, 2, True)
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from connect4.core.files import read_lines
from connect4.core.position import Position

if TYPE_CHECKING:
    from connect4.solver import Solver

MAX_CASE_LINE = 4096  # a benchmark line: a move string and a score
BATCH = 100  # positions per kernel call (timed inside the kernel, one by one)


PONS_SETS = {
    "Test_L3_R1": "End-Easy",
    "Test_L2_R1": "Middle-Easy",
    "Test_L2_R2": "Middle-Medium",
    "Test_L1_R1": "Begin-Easy",
    "Test_L1_R2": "Begin-Medium",
    "Test_L1_R3": "Begin-Hard",
}
"""Pons' benchmark files and the names his tutorial gives them."""


def pons_path(name: str) -> Path:
    """The file of Pons' set ``name`` shipped in the package (its file's name,
    ``Test_L2_R1``, or his tutorial's, ``Middle-Easy``; any case); ``KeyError`` for
    another name. The one place that knows where the six sets are.

    >>> pons_path("middle-easy").name, pons_path("Test_L1_R3").is_file()
    ('Test_L2_R1', True)
    """
    wanted = name.strip().lower()
    for file, label in PONS_SETS.items():
        if wanted in (file.lower(), label.lower()):
            return Path(str(resources.files("connect4").joinpath("data", "pons", file)))
    raise KeyError(name)


def benchmark_file(name: str | os.PathLike[str]) -> str:
    """The file a benchmark argument names: the file itself when there is one, else
    Pons' shipped set of that name (``Test_L3_R1``, ``End-Easy``), else the name as
    given (its reader then says what is wrong with it).

    >>> benchmark_file("End-Easy") == str(pons_path("Test_L3_R1"))
    True
    """
    text = os.fspath(name)
    if os.path.exists(text):
        return text
    try:
        return str(pons_path(text))
    except KeyError:
        return text


def set_label(path: str) -> str:
    """The name of a benchmark file: Pons' name for his sets, else the file's name.

    >>> set_label(str(pons_path("Test_L2_R1"))), set_label("/tmp/mine.txt")
    ('Middle-Easy', 'mine.txt')
    """
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return PONS_SETS.get(name, name)


@dataclass
class BenchCase:
    """One benchmark line: the move string, the expected score, its line number."""

    moves: str
    score: int
    line: int


class WrongAnswer(TypedDict):
    """A benchmark line the solver scored differently (JSON-ready)."""

    line: int
    moves: str
    expected: int
    got: int


@dataclass
class FileReport:
    """The figures of one benchmark file (times per position, in microseconds)."""

    file: str
    n: int
    correct: int
    mean_us: float
    median_us: float
    max_us: float
    mean_nodes: float
    nodes_per_second: float
    wrong: list[WrongAnswer] = field(default_factory=list)
    cpu_mean_us: float = 0.0  # process CPU time per position (robust on a busy machine)

    @property
    def ok(self) -> bool:
        """True when every score was right."""
        return self.correct == self.n

    def as_json(self) -> dict[str, object]:
        """The keys of ``connect4 bench --json`` (plus the wrong lines, if any)."""
        data = asdict(self)
        if not self.wrong:
            del data["wrong"]
        return data


def read_cases(path: str, limit: int | None = None) -> list[BenchCase]:
    """The cases of a benchmark file; ``ValueError`` naming the line on a bad one.

    Blank lines are skipped; ``limit`` keeps the first ``limit`` cases.
    """
    cases: list[BenchCase] = []
    for number, raw in read_lines(path, what="benchmark file", max_line_bytes=MAX_CASE_LINE):
        text = raw.strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 2:
            raise ValueError(f"{path}:{number}: expected 'moves score', got {text!r}")
        try:
            score = int(parts[1])
        except ValueError:
            raise ValueError(f"{path}:{number}: score {parts[1]!r} is not an integer") from None
        cases.append(BenchCase(parts[0], score, number))
        if limit is not None and len(cases) >= limit:
            break
    return cases


def run_cases(
    name: str,
    cases: Sequence[BenchCase],
    solver: Solver | None = None,
    *,
    width: int = 7,
    height: int = 6,
    weak: bool = False,
    on_case: Callable[[], None] | None = None,
) -> FileReport:
    """Solve every case, time it and count correct scores.

    Positions go to the kernel in batches and each one is timed inside the kernel
    (cycle counter), so the figures are the solver's time without the Python call
    overhead (~2-5 µs per call), like a compiled solver's own benchmark loop.

    With ``weak``, a case is correct when the sign of the score is right.
    """
    from connect4.solver import Solver

    if solver is None:
        solver = Solver(width, height)
    width, height = solver.width, solver.height  # the positions are on the solver's board
    solver.warm_up()
    times: list[float] = []
    cpu = 0.0
    nodes: list[int] = []
    wrong: list[WrongAnswer] = []
    positions = [Position.from_moves(case.moves, width, height) for case in cases]
    for first in range(0, len(cases), BATCH):
        chunk = positions[first : first + BATCH]
        cpu_start = time.process_time()
        scores, chunk_nodes, seconds = solver.run_batch(chunk, weak=weak)
        cpu += time.process_time() - cpu_start
        times.extend(seconds)
        nodes.extend(chunk_nodes)
        for case, got in zip(cases[first : first + BATCH], scores, strict=True):
            expected = (case.score > 0) - (case.score < 0) if weak else case.score
            if got != expected:
                wrong.append(
                    WrongAnswer(line=case.line, moves=case.moves, expected=expected, got=got)
                )
            if on_case is not None:
                on_case()
    n = len(cases)
    total = sum(times)
    return FileReport(
        file=name,
        n=n,
        correct=n - len(wrong),
        mean_us=1e6 * total / n if n else 0.0,
        median_us=1e6 * statistics.median(times) if n else 0.0,
        max_us=1e6 * max(times) if n else 0.0,
        mean_nodes=sum(nodes) / n if n else 0.0,
        nodes_per_second=sum(nodes) / total if total > 0 else 0.0,
        wrong=wrong,
        cpu_mean_us=1e6 * cpu / n if n else 0.0,
    )


def run_file(path: str, limit: int | None = None, solver: Solver | None = None) -> FileReport:
    """Read and run one benchmark file."""
    return run_cases(path, read_cases(path, limit), solver)


def format_report(report: FileReport) -> str:
    """One human-readable line per file.

    >>> format_report(FileReport("f", 2, 2, 3.0, 2.5, 4.0, 51.0, 1.7e7, cpu_mean_us=2.9))
    'f: n=2 correct=2 mean=3.0 µs median=2.5 µs max=4.0 µs nodes=51 nodes/s=17.0M cpu=2.9 µs'
    """
    return (
        f"{report.file}: n={report.n} correct={report.correct} "
        f"mean={_us(report.mean_us)} median={_us(report.median_us)} max={_us(report.max_us)} "
        f"nodes={report.mean_nodes:,.0f} nodes/s={report.nodes_per_second / 1e6:.1f}M "
        f"cpu={_us(report.cpu_mean_us)}"
    )


def _us(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:.2f} s"
    if value >= 1e3:
        return f"{value / 1e3:.2f} ms"
    return f"{value:.1f} µs"
