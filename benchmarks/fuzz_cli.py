"""A seeded attack on the ``connect4`` command: hostile input, counted by outcome.

    .venv/bin/python benchmarks/fuzz_cli.py [--seed 1] [--lines 300] [--runs 12] [--quick]

Feeds the real command, as separate processes, what a hostile user types:
random characters, control bytes, non-ASCII, huge digit strings, moves into full
columns or after the end, bad board sizes, bad player specs and options, junk and
truncated book files, files that are not files (FIFO, /dev/zero, a folder, a
4 GB sparse file, an endless line) and output targets that must be refused
before any work (/dev/full, a folder, a missing folder, an unknown plot
suffix; a symlink is written through). Each process must end with a clear message: exit status 0,
1 or 2 and no Python traceback, within its time limit. Prints the counts by
scenario and outcome and the machine, and exits 1 if any run showed a traceback,
an unexpected status or a timeout (every such run is printed in full). The same
seed gives the same inputs.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from machine import describe_machine

HERE = Path(__file__).resolve().parent
BOOK = HERE.parent / "src" / "connect4" / "data" / "book_6x5.c4book"
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz-+ ,.;:/\\'\"!?*#%&()[]{}<>=_~`|"
ODD = ["\x00", "\x1b[31m", "\t", "\r", "é", "四", "🙂", "\u202e", "\ufeff", "٣"]
TIMEOUT = 60.0


@dataclass(frozen=True)
class Outcome:
    """One process: which scenario, its exit status and what went wrong (if anything)."""

    scenario: str
    status: int | None  # None: killed after the time limit
    problem: str | None
    argv: tuple[str, ...]
    stdin: str
    stderr: str


def hostile_line(rng: random.Random, width: int = 7) -> str:
    """One line of what a hostile user might type at a move prompt or into ``solve``."""
    kind = rng.randrange(9)
    if kind == 0:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 40)))
    if kind == 1:
        return rng.choice("123456789") * rng.choice((4301, 5000, 20_000))
    if kind == 2:
        return "".join(rng.choice(ODD + list(ALPHABET)) for _ in range(rng.randrange(1, 12)))
    if kind == 3:  # a real column, played until it overflows
        return str(rng.randrange(1, width + 1)) * rng.randrange(7, 12)
    if kind == 4:
        return "x" * rng.choice((1000, 100_000))
    if kind == 5:
        return str(rng.choice((0, -1, width + 1, 99, 10**30)))
    if kind == 6:  # a valid game, then moves after its end
        return "1212121" + "".join(rng.choice("1234567") for _ in range(rng.randrange(1, 5)))
    if kind == 7:
        return " " * rng.randrange(0, 5)
    # a random game: short ones are in the opening book, long ones quick to solve (the
    # middle, 13-17 stones without a book entry, can take seconds each: not an attack)
    length = rng.choice((rng.randrange(0, 9), rng.randrange(20, 34)))
    return "".join(rng.choice("1234567") for _ in range(length))


def hostile_spec(rng: random.Random) -> str:
    """A player spec with an unknown kind, key, value or a broken shape."""
    return rng.choice(
        [
            "genius",
            "alphabeta:depth=-3",
            "alphabeta:depth=" + "9" * 50,
            "alphabeta:heuristic=nope",
            "minimax:depth",
            "perfect:level=godlike",
            "perfect:time=-1",
            "random:seed=abc",
            "random:speed=3",
            ":::",
            "alphabeta:depth=2,depth=3,tt=maybe",
            "".join(rng.choice(ALPHABET) for _ in range(30)),
            "cmd:",
            "cmd:/nonexistent/bot --flag",
            "perfect:" + "x" * 5000,
        ]
    )


def run(
    scenario: str, argv: list[str], stdin: str = "", ok: tuple[int, ...] = (0, 1, 2)
) -> Outcome:
    """Run ``connect4 ARGV`` with ``stdin`` and judge what it did."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    command = [sys.executable, "-m", "connect4", *argv]
    try:
        done = subprocess.run(
            command,
            input=stdin.encode("utf-8", "surrogateescape"),
            capture_output=True,
            timeout=TIMEOUT,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        err = (expired.stderr or b"").decode("utf-8", "replace")
        return Outcome(scenario, None, "timeout", tuple(argv), stdin, err)
    err = done.stderr.decode("utf-8", "replace")
    out = done.stdout.decode("utf-8", "replace")
    problem = None
    if "Traceback (most recent call last)" in err + out:
        problem = "traceback"
    elif done.returncode not in ok:
        problem = f"exit status {done.returncode}"
    return Outcome(scenario, done.returncode, problem, tuple(argv), stdin, err)


def solve_runs(rng: random.Random, lines: int) -> list[Outcome]:
    """``connect4 solve`` (plain, -a, -w) with many hostile lines in one process each."""
    outcomes = []
    for flags in ([], ["-a"], ["-w"]):
        text = "\n".join(hostile_line(rng) for _ in range(lines)) + "\n"
        outcomes.append(run("solve " + " ".join(flags), ["solve", *flags], text))
    return outcomes


def play_runs(rng: random.Random, runs: int) -> list[Outcome]:
    """``connect4 play`` between humans (every rule set and a few sizes) fed hostile lines."""
    outcomes = []
    boards = [
        ["--game", "connect4"],
        ["--game", "tictactoe"],
        ["--rules", "count-fours"],
        ["--width", "4", "--height", "4"],
        ["--width", "9", "--height", "6"],
    ]
    for index in range(runs):
        board = boards[index % len(boards)]
        width = int(board[board.index("--width") + 1]) if "--width" in board else 7
        moves = [hostile_line(rng, width) for _ in range(rng.randrange(5, 30))]
        moves += rng.sample(["u", "h", "undo", "?", "", "q"], 3)
        argv = ["play", "--red", "human", "--yellow", "human", *board]
        outcomes.append(run("play (humans)", argv, "\n".join(moves) + "\n"))
    return outcomes


def option_runs(rng: random.Random, runs: int) -> list[Outcome]:
    """Commands given bad positions, sizes, depths and player specs on the command line."""
    outcomes = []
    makers: list[Callable[[], tuple[str, list[str]]]] = [
        lambda: ("play (bad spec)", ["play", "--red", hostile_spec(rng), "--yellow", "random"]),
        lambda: ("play (bad size)", ["play", "--width", str(rng.choice((0, 1, 3, 40, -2)))]),
        lambda: ("play (bad game)", ["play", "--game", rng.choice(("chess", "", "TICTACTOE"))]),
        lambda: (
            "tree",
            [
                "tree",
                hostile_line(rng)[:200],
                "--depth",
                str(rng.choice((-1, 0, 1, 99))),
                "--format",
                rng.choice(("text", "dot", "json", "svg", "")),
            ],
        ),
        lambda: ("analyze", ["analyze", hostile_line(rng)[:200], "--max-depth", "2"]),
        lambda: (
            "analyze (bad depth)",
            ["analyze", "", "--max-depth", rng.choice(("x", "-1", "0"))],
        ),
        lambda: (
            "arena (bad spec)",
            ["arena", "--players", hostile_spec(rng), "random", "--games-per-pair", "1"],
        ),
    ]
    for index in range(runs):
        scenario, argv = makers[index % len(makers)]()
        outcomes.append(run(scenario, argv))
    return outcomes


def book_runs(rng: random.Random, folder: Path) -> list[Outcome]:
    """``connect4 book info`` on junk, empty, truncated and bit-flipped book files."""
    real = BOOK.read_bytes() if BOOK.exists() else b"C4BOOK\r\n" + bytes(64)
    files = {
        "empty": b"",
        "junk": bytes(rng.randrange(256) for _ in range(4096)),
        "truncated": real[: len(real) // 2],
        "header only": real[:44],
    }
    flipped = bytearray(real)
    for _ in range(8):
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
    files["bit flips"] = bytes(flipped)
    outcomes = []
    for name, data in files.items():
        path = folder / f"{name.replace(' ', '_')}.c4book"
        path.write_bytes(data)
        outcomes.append(run(f"book info ({name})", ["book", "info", str(path)]))
    outcomes.append(run("book info (missing)", ["book", "info", str(folder / "missing.c4book")]))
    outcomes.append(run("book info (a folder)", ["book", "info", str(folder)]))
    return outcomes


def file_runs(folder: Path, quick: bool = False) -> list[Outcome]:
    """Input files that are not files (FIFO, device, folder), huge or with an endless line,
    and output targets that must be refused before any work (a device, a folder, a
    missing folder, an unknown plot format); a symlinked output is written through."""
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    sparse = folder / "sparse.bin"
    with sparse.open("wb") as file:
        file.truncate(4 << 30)  # 4 GB of holes
    long_line = folder / "long.jsonl"
    long_line.write_bytes(b"4" * (3 << 20) + b"\n")
    plain = folder / "plain"
    plain.mkdir()
    missing = folder / "missing-folder" / "x"
    inputs = {"FIFO": str(fifo), "/dev/zero": "/dev/zero", "folder": str(plain),
              "sparse 4 GB": str(sparse), "long line": str(long_line)}  # fmt: skip
    readers = {
        "book info": lambda f: ["book", "info", f],
        "book verify": lambda f: ["book", "verify", f],
        "review --results": lambda f: ["review", "--results", f, "--game", "0"],
        "arena --openings": lambda f: ["arena", "-p", "random", "-p", "random:seed=1",
                                       "--openings", f],
        "bench": lambda f: ["bench", f],
        "build --base-book": lambda f: ["book", "build", "--width", "4", "--height", "4",
                                        "--plies", "2", "--out", str(folder / "b.c4book"),
                                        "--base-book", f],
        "dataset --book": lambda f: ["dataset", "--positions", "5", "--width", "5",
                                     "--height", "4", "--out", str(folder / "d.npz"),
                                     "--book", f],
    }  # fmt: skip
    if quick:  # two readers, every kind of input
        readers = {k: v for k, v in readers.items() if k in ("book info", "review --results")}
    outcomes = []
    for reader, argv in readers.items():
        ok = (1,) if reader == "bench" else (2,)  # bench: 1 for a file it cannot read
        for name, path in inputs.items():
            outcomes.append(run(f"{reader} ({name})", argv(path), ok=ok))
    small_build = ["book", "build", "--width", "4", "--height", "4", "--plies", "2",
                   "--workers", "1", "--out"]  # fmt: skip
    big_build = ["book", "build", "--width", "5", "--height", "4", "--plies", "14", "--out"]
    dataset = ["dataset", "--positions", "100000", "--width", "5", "--height", "4", "--out"]
    arena = ["arena", "-p", "random", "-p", "random:seed=1", "--game", "tictactoe"]
    targets = [
        ("build --out /dev/full", [*big_build, "/dev/full"]),
        ("build --out folder", [*big_build, str(plain)]),
        ("build --out missing folder", [*big_build, str(missing)]),
        ("dataset --out /dev/full", [*dataset, "/dev/full"]),
        ("dataset --out folder", [*dataset, str(plain)]),
        ("arena --results missing", [*arena, "--results", str(missing)]),
        ("arena --results FIFO", [*arena, "--results", str(fifo)]),
        ("arena --csv /dev/full", [*arena, "--csv", "/dev/full"]),
        ("review --plot x.txt", ["review", "4455", "--plot", str(folder / "x.txt")]),
        ("review --plot folder", ["review", "4455", "--plot", str(plain)]),
        ("analyze --plot x.txt", ["analyze", "44", "--max-depth", "2", "--plot", "x.txt"]),
    ]
    for scenario, argv in targets[::3] if quick else targets:
        outcomes.append(run(scenario, argv, ok=(2,)))
    real, link = folder / "real.c4book", folder / "link.c4book"
    link.symlink_to(real)
    outcome = run("build --out symlink", [*small_build, str(link)], ok=(0,))
    if outcome.problem is None and not (link.is_symlink() and real.is_file()):
        outcome = replace(outcome, problem="the symlink was replaced")
    outcomes.append(outcome)
    left = [p for p in (Path("/dev/full"), missing.parent) if p.exists() and not p.is_char_device()]
    if left or list(plain.iterdir()):
        outcomes.append(Outcome("outputs left alone", 1, f"changed: {left or plain}", (), "", ""))
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lines", type=int, default=300, help="hostile lines per solve run")
    parser.add_argument("--runs", type=int, default=12, help="play runs and option runs each")
    parser.add_argument("--quick", action="store_true", help="a small sample (for the tests)")
    args = parser.parse_args()
    lines, runs = (40, 5) if args.quick else (args.lines, args.runs)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    print(describe_machine())
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = [
            *solve_runs(rng, lines),
            *play_runs(rng, runs),
            *option_runs(rng, runs),
            *book_runs(rng, Path(tmp)),
            *file_runs(Path(tmp), args.quick),
        ]
    counts = Counter(
        (o.scenario, "killed" if o.status is None else f"exit {o.status}") for o in outcomes
    )
    print(f"{len(outcomes)} processes, seed {args.seed}, {time.perf_counter() - started:.1f} s")
    for (scenario, result), count in sorted(counts.items()):
        print(f"  {scenario:24} {result:8} {count:3}")
    bad = [o for o in outcomes if o.problem is not None]
    problems = Counter(o.problem or "" for o in bad)
    statuses = sum(count for kind, count in problems.items() if kind.startswith("exit"))
    print(
        f"tracebacks: {problems['traceback']}  timeouts: {problems['timeout']}  "
        f"unexpected exit statuses: {statuses}"
    )
    for outcome in bad:
        print(f"\n--- {outcome.problem}: connect4 {' '.join(outcome.argv)[:300]}")
        print(f"stdin (first 300 characters): {outcome.stdin[:300]!r}")
        print(outcome.stderr[-3000:])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
