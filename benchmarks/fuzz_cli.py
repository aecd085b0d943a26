"""A seeded attack on the ``connect4`` command: hostile input, counted by outcome.

    .venv/bin/python benchmarks/fuzz_cli.py [--seed 1] [--lines 300] [--runs 12] [--quick]
                                            [--interrupts]

Feeds the real command, as separate processes, what a hostile user types:
random characters, control bytes, non-ASCII, huge digit strings, moves into full
columns or after the end, bad board sizes, bad player specs and options, junk and
truncated book files, a flood on stdin (/dev/zero, one 20 MB line) and a 100 kB move
string argument, files that are not files (FIFO, /dev/zero, a folder, a
4 GB sparse file, an endless line) and output targets that must be refused
before any work (/dev/full, a folder, a missing folder, an unknown plot
suffix, a symlink without --force), and outputs that already exist: every
command that writes a file must refuse a user's file (without --force, and
with --resume when it is not the command's own), leaving its bytes as they
were. Each process must end with a clear message: exit status 0,
1 or 2 and no Python traceback, within its time limit. Prints the counts by
scenario and outcome and the machine, and exits 1 if any run showed a traceback,
an unexpected status or a timeout (every such run is printed in full). Each file
reader's peak memory on the hostile inputs is printed beside the same command on a
normal input, and more than 200 MB beyond it counts as a problem. The same seed
gives the same inputs.

Then (not with ``--quick``; alone with ``--interrupts``) a Ctrl-C (SIGINT) goes to
each long command at work, and to commands still starting up (0.1, 0.3 and 0.6 s
after their start: imports, the book, the kernels): each must exit 130 within
0.5 s, with no traceback and no half-written file, and one line ``interrupted``
in start-up. The seconds from the signal to the exit are printed for every case.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
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
INTERRUPT_SECONDS = 0.5  # from Ctrl-C to the exit of a command at work
MAX_EXTRA_RSS_MB = 200  # what a hostile input file may cost beyond a normal one


@dataclass(frozen=True)
class Outcome:
    """One process: which scenario, its exit status and what went wrong (if anything)."""

    scenario: str
    status: int | None  # None: killed after the time limit
    problem: str | None
    argv: tuple[str, ...]
    stdin: str
    stderr: str
    max_rss_mb: float = 0.0  # the process's peak resident memory
    seconds: float | None = None  # Ctrl-C runs: from the signal to the exit


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
    scenario: str,
    argv: list[str],
    stdin: str = "",
    ok: tuple[int, ...] = (0, 1, 2),
    stdin_file: str | None = None,
) -> Outcome:
    """Run ``connect4 ARGV`` with ``stdin`` (or the file ``stdin_file`` on its stdin)
    and judge what it did."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    command = [sys.executable, "-m", "connect4", *argv]
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as output:
        given.write(stdin.encode("utf-8", "surrogateescape"))
        given.seek(0)
        source = given if stdin_file is None else open(stdin_file, "rb")  # noqa: SIM115
        with source:
            process = subprocess.Popen(command, stdin=source, stdout=output, stderr=output, env=env)
            status, rss_mb = reap(process.pid, TIMEOUT)
        output.seek(0)
        text = output.read().decode("utf-8", "replace")
    problem = None
    if status is None:
        problem = "timeout"
    elif "Traceback (most recent call last)" in text:
        problem = "traceback"
    elif status not in ok:
        problem = f"exit status {status}"
    return Outcome(scenario, status, problem, tuple(argv), stdin, text, rss_mb)


def reap(pid: int, timeout: float) -> tuple[int | None, float]:
    """Wait for process ``pid`` (killed after ``timeout`` s): its exit status (None if
    killed) and peak resident memory in MB (``wait4``'s own figure for that process)."""
    deadline = time.monotonic() + timeout
    killed = False
    while True:
        done, wait_status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            status = None if killed else os.waitstatus_to_exitcode(wait_status)
            return status, usage.ru_maxrss / 1024
        if time.monotonic() > deadline and not killed:
            os.kill(pid, 9)
            killed = True
        time.sleep(0.01)


def solve_runs(rng: random.Random, lines: int) -> list[Outcome]:
    """``connect4 solve`` (plain, -a, -w) with many hostile lines in one process each."""
    outcomes = []
    for flags in ([], ["-a"], ["-w"]):
        text = "\n".join(hostile_line(rng) for _ in range(lines)) + "\n"
        outcomes.append(run("solve " + " ".join(flags), ["solve", *flags], text))
    return outcomes


def flood_runs(folder: Path) -> list[Outcome]:
    """``solve`` and ``play`` reading a flood on stdin (``/dev/zero``, one 20 MB line) and
    ``solve`` and ``review`` given a 100,000-character move string: each refuses the
    line at once (exit 1 on stdin, 2 for an argument) within the memory of a normal run."""
    line = folder / "flood.txt"
    line.write_bytes(b"4" * (20 << 20) + b"\n")
    floods = {"/dev/zero": "/dev/zero", "one 20 MB line": str(line)}
    commands = {
        "solve": ["solve"],
        "play": ["play", "--red", "human", "--yellow", "human", "--no-review"],
    }
    outcomes = []
    for name, argv in commands.items():
        baseline = run(f"{name} (normal stdin)", argv, "4455\n", ok=(0,))
        hostile = [
            run(f"{name} ({flood})", argv, ok=(1,), stdin_file=path)
            for flood, path in floods.items()
        ]
        outcomes += [baseline, *hostile]
        worst = max(hostile, key=lambda o: o.max_rss_mb)
        print(f"max RSS {name + ' stdin':18} normal input {baseline.max_rss_mb:6.0f} MB, "
              f"floods at most {worst.max_rss_mb:6.0f} MB ({worst.scenario})")  # fmt: skip
        if worst.max_rss_mb > baseline.max_rss_mb + MAX_EXTRA_RSS_MB:
            outcomes.append(replace(worst, problem=f"max RSS {worst.max_rss_mb:.0f} MB"))
    huge = "4" * 100_000
    for name, argv in (("solve", ["solve", huge]), ("review", ["review", huge])):
        outcome = run(f"{name} (100 kB argument)", argv, ok=(2,))
        if outcome.problem is None and len(outcome.stderr) > 1000:
            outcome = replace(outcome, problem="the argument was echoed whole")
        outcomes.append(outcome)
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


def book_bomb(entries: int = 50_000_000) -> bytes:
    """A ``.c4book`` image, checksum right, whose ~500 KB payload inflates to the 450 MB
    its header's ``entries`` claim (zeros: found corrupted only once inflated)."""
    meta = b"{}"
    deflate = zlib.compressobj(9)
    chunks = [deflate.compress(bytes(1 << 24)) for _ in range(9 * entries >> 24)]
    payload = b"".join(chunks) + deflate.compress(bytes(9 * entries % (1 << 24)))
    payload += deflate.flush()
    header = struct.pack("<8sHBBBBHQQ", b"C4BOOK\r\n", 1, 7, 6, 12, 1, len(meta), entries,
                         len(payload))  # fmt: skip
    crc = zlib.crc32(payload, zlib.crc32(meta, zlib.crc32(header)))
    return header + struct.pack("<I", crc) + meta + payload


def file_runs(folder: Path, quick: bool = False) -> list[Outcome]:
    """Input files that are not files (FIFO, device, folder), huge or with an endless line,
    and output targets that must be refused before any work (a device, a folder, a
    missing folder, an unknown plot format); --force replaces a symlinked output's link,
    never the file it points to."""
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
    bomb = folder / "bomb.c4book"
    bomb.write_bytes(book_bomb())
    inputs = {"FIFO": str(fifo), "/dev/zero": "/dev/zero", "folder": str(plain),
              "sparse 4 GB": str(sparse), "long line": str(long_line),
              "zlib bomb": str(bomb)}  # fmt: skip
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
    results = folder / "normal.jsonl"
    normal_results = run("arena (normal results)", ["arena", "-p", "random", "-p",
                         "random:seed=1", "--game", "tictactoe", "--results", str(results)],
                         ok=(0,))  # fmt: skip
    outcomes = [normal_results]
    openings = folder / "openings.txt"
    openings.write_text("44\n4453\n")
    normal = {"review --results": str(results), "arena --openings": str(openings),
              "bench": "Test_L3_R1"}  # fmt: skip
    for reader, argv in readers.items():
        ok = (1,) if reader == "bench" else (2,)  # bench: 1 for a file it cannot read
        hostile = [run(f"{reader} ({name})", argv(path), ok=ok) for name, path in inputs.items()]
        baseline = run(f"{reader} (normal)", argv(normal.get(reader, str(BOOK))), ok=(0, 1, 2))
        outcomes += [*hostile, baseline]
        worst = max(hostile, key=lambda o: o.max_rss_mb)
        print(f"max RSS {reader:18} normal input {baseline.max_rss_mb:6.0f} MB, hostile "
              f"inputs at most {worst.max_rss_mb:6.0f} MB ({worst.scenario})")  # fmt: skip
        if worst.max_rss_mb > baseline.max_rss_mb + MAX_EXTRA_RSS_MB:
            outcomes.append(replace(worst, problem=f"max RSS {worst.max_rss_mb:.0f} MB"))
    small_build = ["book", "build", "--width", "4", "--height", "4", "--plies", "2",
                   "--workers", "1", "--out"]  # fmt: skip
    big_build = ["book", "build", "--width", "5", "--height", "4", "--plies", "14", "--out"]
    dataset = ["dataset", "--positions", "100000", "--width", "5", "--height", "4", "--out"]
    arena = ["arena", "-p", "random", "-p", "random:seed=1", "--game", "tictactoe"]
    lab = ["lab", "--depths", "1-2", "--no-perfect", "--games", "1", "--out"]
    targets = [
        ("build --out /dev/full", [*big_build, "/dev/full"]),
        ("build --out folder", [*big_build, str(plain)]),
        ("build --out missing folder", [*big_build, str(missing)]),
        ("dataset --out /dev/full", [*dataset, "/dev/full"]),
        ("dataset --out folder", [*dataset, str(plain)]),
        ("arena --results missing", [*arena, "--results", str(missing)]),
        ("arena --results FIFO", [*arena, "--results", str(fifo)]),
        ("arena --csv /dev/full", [*arena, "--csv", "/dev/full"]),
        ("lab --out /dev/full", [*lab, "/dev/full"]),
        ("lab --out missing folder", [*lab, str(missing.parent / "lab")]),
        ("review --plot x.txt", ["review", "4455", "--plot", str(folder / "x.txt")]),
        ("review --plot folder", ["review", "4455", "--plot", str(plain)]),
        ("analyze --plot x.txt", ["analyze", "44", "--max-depth", "2", "--plot", "x.txt"]),
    ]
    for scenario, argv in targets[::3] if quick else targets:
        outcomes.append(run(scenario, argv, ok=(2,)))
    real, link = folder / "real.c4book", folder / "link.c4book"
    real.write_bytes(b"a user's file\n")
    link.symlink_to(real)
    outcome = run("build --out symlink", [*small_build, str(link)], ok=(2,))
    if outcome.problem is None and real.read_bytes() != b"a user's file\n":
        outcome = replace(outcome, problem="the file the symlink points to was written")
    outcomes.append(outcome)
    outcome = run("build --out symlink --force", [*small_build, str(link), "--force"], ok=(0,))
    replaced = not link.is_symlink() and link.read_bytes()[:6] == b"C4BOOK"
    if outcome.problem is None and not (replaced and real.read_bytes() == b"a user's file\n"):
        outcome = replace(outcome, problem="the file the symlink points to was written")
    outcomes.append(outcome)
    left = [p for p in (Path("/dev/full"), missing.parent) if p.exists() and not p.is_char_device()]
    if left or list(plain.iterdir()):
        outcomes.append(Outcome("outputs left alone", 1, f"changed: {left or plain}", (), "", ""))
    return outcomes


def existing_runs(folder: Path, quick: bool = False) -> list[Outcome]:
    """Every command that writes a file, pointed at a user's file that is already there
    (a copy of a text file): refused without --force, and with --resume (a command that
    can resume) as not its own; the file's bytes must be unchanged after each."""
    lab = folder / "existing-lab"
    lab.mkdir()
    small = ["--width", "4", "--height", "4", "--workers", "1"]
    arena = ["arena", "-p", "random", "-p", "random:seed=1", "--game", "tictactoe"]
    cases: list[tuple[str, Path, list[str], bool]] = [  # scenario, file, argv, resumable
        ("arena --results", folder / "passwd.jsonl", [*arena, "--results"], True),
        ("arena --csv", folder / "sheet.csv", [*arena, "--csv"], False),
        ("book build --out", folder / "notes.c4book",
         ["book", "build", *small, "--plies", "2", "--base-book", "none", "--out"], True),
        ("dataset --out", folder / "notes.npz",
         ["dataset", "--positions", "5", *small, "--book", "none", "--out"], True),
        ("lab report.md", lab / "report.md",
         ["lab", "--depths", "1", "--no-perfect", "--playouts", "none", "--out", str(lab)], True),
        ("train --out", folder / "notes.pt",
         ["train", "--data", str(folder / "no-data.npz"), "--out"], True),
        ("analyze --plot", folder / "photo.png", ["analyze", "44", "--max-depth", "1", "--plot"],
         False),
        ("review --plot", folder / "photo2.png", ["review", "4455", "--plot"], False),
    ]  # fmt: skip
    if quick:
        cases = cases[::3]
    outcomes = []
    for scenario, path, argv, resumable in cases:
        data = f"root:x:0:0:root:/root:/bin/bash\n{scenario}\n".encode() * 20
        path.write_bytes(data)
        full = argv if scenario.startswith("lab") else [*argv, str(path)]
        flags = [("existing " + scenario, [])]
        if resumable:
            flags.append(("foreign --resume " + scenario.split()[0], ["--resume"]))
        for name, extra in flags:
            outcome = run(name, [*full, *extra], ok=(2,))
            said = "already exists" if not extra else "cannot continue"
            if outcome.problem is None and path.read_bytes() != data:
                outcome = replace(outcome, problem=f"{path.name} was changed")
            elif outcome.problem is None and said not in outcome.stderr:
                outcome = replace(outcome, problem=f"refused, but not as {said!r}")
            outcomes.append(outcome)
    return outcomes


def interrupt(
    scenario: str, argv: list[str], folder: Path, outputs: list[Path], after: float = 3.0
) -> Outcome:
    """Start ``connect4 ARGV``, let it start up and work (``after`` seconds), send SIGINT:
    it must exit 130 within :data:`INTERRUPT_SECONDS` with no traceback, leaving no
    half-written file among ``outputs`` (each absent, or whole: a results file of JSON
    lines). A signal during start-up (``after`` under a second) must get one line,
    ``interrupted``, and nothing else."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen([sys.executable, "-m", "connect4", *argv], cwd=folder,
                                   stdin=subprocess.PIPE, stdout=output, stderr=output,
                                   env=env)  # fmt: skip
        time.sleep(after)
        if process.poll() is not None:
            process.wait()
            return Outcome(scenario, process.returncode, "ended before Ctrl-C", tuple(argv), "", "")
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        status, rss_mb = reap(process.pid, 20)
        seconds = time.monotonic() - sent
        output.seek(0)
        text = output.read().decode("utf-8", "replace")
    problem = None
    if status != 130:
        problem = f"exit status {status} after Ctrl-C"
    elif "Traceback (most recent call last)" in text:
        problem = "traceback"
    elif seconds > INTERRUPT_SECONDS:
        problem = f"exit {seconds:.2f} s after Ctrl-C"
    elif after < 1 and text.strip() != "interrupted":
        problem = "not the one line 'interrupted' in start-up"
    for path in outputs:
        if path.suffix == ".jsonl" and path.exists():
            try:
                [json.loads(line) for line in path.read_text().splitlines()]
            except ValueError:
                problem = f"{path.name} half-written"
        elif path.exists():
            problem = f"{path.name} written though interrupted"
    return Outcome(scenario, status, problem, tuple(argv), "", text[-3000:], rss_mb, seconds)


def interrupt_runs(folder: Path) -> list[Outcome]:
    """Ctrl-C to each long command while it works, and to commands starting up (imports,
    kernel loading), each timed from the signal to the exit (see :func:`interrupt`)."""
    verify = ["book", "verify", str(BOOK.with_name("book_7x6.c4book")), "--sample", "50"]
    cases: list[tuple[str, list[str], list[str]]] = [
        ("Ctrl-C play mcts", ["play", "--red", "mcts:playouts=100000000", "--yellow", "human"], []),
        ("Ctrl-C play alphabeta", ["play", "--red", "alphabeta:depth=30", "--yellow", "human"], []),
        ("Ctrl-C play minimax", ["play", "--red", "minimax:depth=14", "--yellow", "human"], []),
        ("Ctrl-C tree mcts", ["tree", "", "--algorithm", "mcts", "--playouts", "100000000"], []),
        ("Ctrl-C analyze", ["analyze", "", "--max-depth", "12", "--budget", "1000000000"], []),
        ("Ctrl-C review 8x7", ["review", "4", "--width", "8", "--height", "7", "--time-limit",
                               "0"], []),
        ("Ctrl-C solve 8x7", ["solve", "--width", "8", "--height", "7"], []),
        ("Ctrl-C book verify", verify, []),
        ("Ctrl-C book build", ["book", "build", "--width", "6", "--height", "5", "--plies", "10",
                               "--workers", "2", "--out", "i.c4book"], ["i.c4book"]),
        ("Ctrl-C dataset", ["dataset", "--positions", "100000", "--width", "6", "--height", "5",
                            "--workers", "2", "--out", "i.npz"], ["i.npz"]),
        ("Ctrl-C arena", ["arena", "-p", "alphabeta:depth=8", "-p", "alphabeta:depth=7",
                          "--games-per-pair", "2000", "--workers", "2", "--results", "i.jsonl"],
         ["i.jsonl"]),
        ("Ctrl-C lab", ["lab", "--depths", "6-7", "--heuristics", "cell-weights", "--playouts",
                        "20000", "--no-perfect", "--games", "200", "--workers", "2", "--out",
                        "lab"], ["lab/report.md"]),
    ]  # fmt: skip
    outcomes = [
        interrupt(scenario, argv, folder, [folder / name for name in outputs])
        for scenario, argv, outputs in cases
    ]
    start_up = [  # the signal while the command imports, reads its book or loads kernels
        ("Ctrl-C start-up play", ["play", "--red", "perfect", "--yellow", "human"]),
        ("Ctrl-C start-up arena", ["arena", "-p", "perfect", "-p", "mcts", "--workers", "2"]),
        ("Ctrl-C start-up review", ["review", "4455"]),
        ("Ctrl-C start-up verify", verify),
    ]
    for after in (0.1, 0.3, 0.6):
        outcomes += [
            interrupt(f"{scenario} {after:.1f} s", argv, folder, [], after=after)
            for scenario, argv in start_up
        ]
    print("Ctrl-C to exit (s):")
    for outcome in outcomes:
        figure = "-" if outcome.seconds is None else f"{outcome.seconds:.3f}"
        print(f"  {outcome.scenario:34} {figure:>6}  exit {outcome.status}")
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lines", type=int, default=300, help="hostile lines per solve run")
    parser.add_argument("--runs", type=int, default=12, help="play runs and option runs each")
    parser.add_argument("--quick", action="store_true", help="a small sample (for the tests)")
    parser.add_argument("--interrupts", action="store_true", help="only the Ctrl-C runs")
    args = parser.parse_args()
    lines, runs = (40, 5) if args.quick else (args.lines, args.runs)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    print(describe_machine())
    with tempfile.TemporaryDirectory() as tmp:
        if args.interrupts:
            return report(interrupt_runs(Path(tmp)), args.seed, started)
        outcomes = [
            *solve_runs(rng, lines),
            *flood_runs(Path(tmp)),
            *play_runs(rng, runs),
            *option_runs(rng, runs),
            *book_runs(rng, Path(tmp)),
            *file_runs(Path(tmp), args.quick),
            *existing_runs(Path(tmp), args.quick),
            *([] if args.quick else interrupt_runs(Path(tmp))),  # timings: not for tests
        ]
    return report(outcomes, args.seed, started)


def report(outcomes: list[Outcome], seed: int, started: float) -> int:
    """Print the counts by scenario and outcome and every run with a problem; 1 if any."""
    counts = Counter(
        (o.scenario, "killed" if o.status is None else f"exit {o.status}") for o in outcomes
    )
    print(f"{len(outcomes)} processes, seed {seed}, {time.perf_counter() - started:.1f} s")
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
