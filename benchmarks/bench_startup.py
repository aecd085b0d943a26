"""Start-up times: a warm ``connect4 play`` to its first prompt and a warm ``connect4
solve`` of a late position, or ``make play`` on a fresh clone, or the cold compiles.

    .venv/bin/python benchmarks/bench_startup.py [--runs 5] [--line MOVES] [--against CHECKOUT]
    .venv/bin/python benchmarks/bench_startup.py --numba [--runs 5] [--line MOVES]
    .venv/bin/python benchmarks/bench_startup.py --fresh [--rev HEAD] [--keep DIR]
    .venv/bin/python benchmarks/bench_startup.py --compile [--against CHECKOUT] [--rounds 1]

Without a mode: after one untimed run of each (it fills the caches), ``--runs``
times each, as fresh processes: ``connect4 play --red human --yellow auto`` in a
pseudo-terminal, the seconds from starting the process to its first prompt (then
it answers ``q``); and ``connect4 solve LINE``, the seconds to its exit (a wrong
answer stops the script; its CPU seconds print too). It prints the median, the
maximum and every time; the target of both is 1 s. With ``--against CHECKOUT``
another checkout runs in alternation, on the same load, and its figures print
beside these: with its own ``.venv`` if it has one, else with this Python and the
checkout's ``src`` first on the path (``git archive REV src | tar -x -C DIR`` makes
one), and with a cache folder of its own (``CONNECT4_CACHE_DIR``: its first,
untimed, runs compile).

``--numba``: ``connect4 solve`` alone, and also with ``CONNECT4_NATIVE=0`` (numba
runs the kernel, as before the native kernel existed) in alternation.

``--fresh``: clones revision ``--rev`` of this repository into a new folder,
runs ``make play`` there in a pseudo-terminal with its own empty
``CONNECT4_CACHE_DIR`` and prints the seconds until the first prompt appears
(the target is 40 s), the lines that printed a time on the way (the compile
steps), then answers ``q`` and does it again (a later start; target 1 s), and
says whether the clone's venv imports the browser app's and the plots' packages.

``--compile``: each compiled kernel's cold compile time (the solver's for 7x6
boards, for the other sizes, the classic search's and Monte Carlo tree
search's), each in a new process with empty caches, wall-clock and CPU seconds.
With ``--against CHECKOUT`` (another checkout with its own ``.venv``, e.g. a
clone of an older revision) the same steps run there too, in alternation, so
the two are compared on the same load. A checkout whose solver has one kernel
for every size compiles it whole in the first step.

Every mode but ``--compile`` runs the program as a user's shell would: without
``PYTHONDONTWRITEBYTECODE`` (set, every start would compile the package's
modules to bytecode again), an active venv or a numba cache folder of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pty
import re
import resource
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import describe_machine

NOT_A_USERS = ("PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")


def users_environment(**extra: str) -> dict[str, str]:
    """This environment as a user's shell has it, plus ``extra``: without the variables
    a user does not set (``PYTHONDONTWRITEBYTECODE`` would make every start compile
    the package's modules again; an active venv; a numba cache of our own)."""
    env = {name: value for name, value in os.environ.items() if name not in NOT_A_USERS}
    return {**env, **extra}


def connect4_command() -> list[str]:
    """The ``connect4`` script beside this Python (the venv's), else ``python -m connect4``."""
    script = Path(sys.executable).parent / "connect4"
    if script.exists():
        return [str(script)]
    found = shutil.which("connect4")
    return [found] if found else [sys.executable, "-m", "connect4"]


def time_solve(command: list[str], line: str, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from starting ``command`` (``connect4 solve LINE``) to its exit, and the
    CPU seconds it used (less moved by other work than the wall clock); exits on a
    wrong answer."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env=users_environment(**env), check=False
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or not done.stdout.startswith(line + " "):
        sys.exit(f"connect4 solve failed (exit {done.returncode}): {done.stderr.strip()}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return seconds, cpu


PROMPT = "to move — column"
TIMED = re.compile(r"\d+\.\d+ s\b")


def until_prompt(command: list[str], cwd: Path, env: dict[str, str], limit: float) -> float:
    """Run ``command`` in a pseudo-terminal, print its lines that carry a time with
    the seconds they appeared at; answer ``q`` at the first prompt; return those seconds."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: run make with the terminal as stdin/stdout
        os.chdir(cwd)
        os.execvpe(command[0], command, env)
    output = b""
    shown = 0
    try:
        while True:
            if time.perf_counter() - start > limit:
                sys.exit(f"no prompt within {limit:.0f} s; last output:\n{output[-2000:]!r}")
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                program = Path(command[0]).name
                sys.exit(f"{program} ended before its prompt:\n{output[-2000:].decode()}")
            output += chunk
            text = output.decode(errors="replace")
            lines = text.split("\n")
            for line in lines[shown:-1]:
                clean = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", line).strip()
                if TIMED.search(clean) or "compiling" in clean or "preparing" in clean:
                    print(f"  {time.perf_counter() - start:6.1f} s  {clean}")
            shown = len(lines) - 1
            if PROMPT in text:
                seconds = time.perf_counter() - start
                os.write(fd, b"q\n")
                break
    finally:
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            with_output = select.select([fd], [], [], 0.1)[0]
            if with_output:
                with contextlib.suppress(OSError):
                    os.read(fd, 65536)
        else:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
        os.close(fd)
    return seconds


PLAY = ["play", "--red", "human", "--yellow", "auto"]


def checkout_command(checkout: Path, args: list[str]) -> tuple[list[str], dict[str, str]]:
    """``connect4 ARGS`` of ``checkout`` and the environment it needs there."""
    script = checkout / ".venv" / "bin" / "connect4"
    if script.exists():
        return [str(script), *args], {}
    code = "import sys; from connect4.cli import main; sys.argv[0] = 'connect4'; main()"
    return [sys.executable, "-c", code, *args], {"PYTHONPATH": str(checkout / "src")}


def summary(values: list[float]) -> str:
    """``median 0.412 s, max 0.530 s (0.41, 0.39, ...)``."""
    runs = ", ".join(f"{v:.2f}" for v in values)
    return f"median {statistics.median(values):.3f} s, max {max(values):.3f} s ({runs})"


def later_starts(runs: int, line: str, against: str | None) -> None:
    """Print the medians of a warm ``connect4 play`` to its first prompt and of a warm
    ``connect4 solve LINE``, here (and in ``against``, in alternation)."""
    here = Path(__file__).resolve().parent.parent
    checkouts = {"this checkout": here}
    if against:
        checkouts["against"] = Path(against).resolve()
    steps = {  # solve first: its first run compiles in the foreground, play's behind the prompt
        f"connect4 solve {line}, exec to its exit": ["solve", line],
        f"connect4 {' '.join(PLAY)}, exec to its first prompt": PLAY,
    }
    times: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="connect4-against-") as cache:
        # a cache of its own: a kernel of other sources would replace this one's in one
        own = {"against": {"CONNECT4_CACHE_DIR": cache}}
        for round_ in range(runs + 1):  # the first round fills the caches, untimed
            for step, args in steps.items():
                for name, checkout in checkouts.items():
                    command, extra = checkout_command(checkout, args)
                    extra = {**extra, **own.get(name, {})}
                    if args is PLAY:
                        env = users_environment(**extra)
                        seconds = until_prompt(command, checkout, env, 300)
                    else:
                        seconds, used = time_solve(command, line, extra)
                        if round_:
                            cpu.setdefault((step, name), []).append(used)
                    if round_:
                        times.setdefault((step, name), []).append(seconds)
    print(f"warm starts, {runs} runs each, in alternation (target: 1 s each)")
    for step in steps:
        print(f"{step}:")
        for name in checkouts:
            used = cpu.get((step, name))
            note = f"; CPU median {statistics.median(used):.3f} s" if used else ""
            print(f"  {name:14} {summary(times[step, name])}{note}")
    if against:
        print(f"against: {checkouts['against']}")
    print(f"machine: {describe_machine()}, load {os.getloadavg()[0]:.2f}")


def numba_starts(runs: int, line: str) -> None:
    """Print the times of ``connect4 solve LINE`` with the native kernel and with numba's."""
    variants = {"native kernel": {}, "numba kernel": {"CONNECT4_NATIVE": "0"}}
    command = [*connect4_command(), "solve", line]
    times: dict[str, list[float]] = {name: [] for name in variants}
    for env in variants.values():
        time_solve(command, line, env)  # fill numba's and the native cache
    for _ in range(runs):
        for name, env in variants.items():
            times[name].append(time_solve(command, line, env)[0])
    print(f"connect4 solve {line}, {runs} runs each (target: 1 s)")
    for name, values in times.items():
        print(f"  {name:14} {summary(values)}")
    print(f"machine: {describe_machine()}, load {os.getloadavg()[0]:.2f}")


def fresh_clone(rev: str, keep: str | None) -> None:
    """Clone ``rev`` and time ``make play`` to its first prompt, twice (the clone and
    its venv are removed afterwards unless ``keep`` names their folder)."""
    root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="connect4-fresh-"))
    try:
        time_fresh_clone(rev, root)
    finally:
        if not keep:
            remove(root)


def remove(folder: Path, patience: float = 120) -> None:
    """Remove ``folder`` once no process runs from it (the first run's background
    compile may still be writing there); says so if that takes over ``patience`` s."""
    deadline = time.perf_counter() + patience
    while running_from(folder) and time.perf_counter() < deadline:
        time.sleep(1)
    shutil.rmtree(folder, ignore_errors=True)
    if folder.exists():
        print(f"could not remove {folder}: remove it by hand", file=sys.stderr)


def running_from(folder: Path) -> list[int]:
    """The processes (Linux: from /proc) whose command line or working folder is in
    ``folder``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            command = (proc / "cmdline").read_bytes().decode(errors="replace")
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if str(folder) in command or cwd.startswith(str(folder)):
            found.append(int(proc.name))
    return found


def time_fresh_clone(rev: str, root: Path) -> None:
    """Clone ``rev`` into ``root`` and time ``make play`` there, twice."""
    here = Path(__file__).resolve().parent.parent
    clone = root / "connect4"
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(here), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", rev], check=True)
    cache = root / "cache"
    env = users_environment(CONNECT4_CACHE_DIR=str(cache))
    commit = subprocess.run(
        ["git", "-C", str(clone), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(f"make play in a fresh clone of {commit[:70]} ({clone})")
    print(f"load before: {os.getloadavg()[0]:.2f}")
    first = until_prompt(["make", "play"], clone, env, 900)
    print(f"first start: {first:.1f} s to the prompt (target: 40 s)")
    later = until_prompt(["make", "play"], clone, env, 300)
    print(f"later start: {later:.1f} s to the prompt (target: 1 s)")
    print(f"what make play installed: {installed_extras(clone, env)}")
    print(f"machine: {describe_machine()}, load {os.getloadavg()[0]:.2f}")


EXTRAS = {"the browser app": ("fastapi", "uvicorn"), "the plots": ("matplotlib",)}


def installed_extras(clone: Path, env: dict[str, str]) -> str:
    """Which of the browser app's and the plots' packages the clone's venv imports."""
    found = []
    for what, modules in EXTRAS.items():
        code = "import " + ", ".join(modules)
        python = clone / ".venv" / "bin" / "python"
        done = subprocess.run([str(python), "-c", code], env=env, capture_output=True, check=False)
        found.append(f"{what} {'yes' if done.returncode == 0 else 'NO'}")
    return ", ".join(found)


COMPILE_STEPS = {
    "solver, 7x6 boards": "from connect4.solver import warm_up; warm_up(7, 6)",
    "solver, other sizes": "from connect4.solver import warm_up; warm_up(7, 6); warm_up(9, 5)",
    "classic search": "from connect4.classic import fastsearch; fastsearch.warm_up()",
    "Monte Carlo tree search": "from connect4.classic import fastmcts; fastmcts.warm_up()",
}
TIMER = """
import json, sys, time
{setup}
wall, cpu = time.perf_counter(), time.process_time()
{step}
print(json.dumps([time.perf_counter() - wall, time.process_time() - cpu]))
"""


def compile_seconds(checkout: Path, label: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one cold compile step in ``checkout``: a fresh process
    with empty numba and kernel caches (the solver's other-sizes step first loads
    the 7x6 kernel from its own cache, untimed)."""
    python = checkout / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory(prefix="connect4-compile-") as folder:
        env = {
            **os.environ,
            "NUMBA_CACHE_DIR": str(Path(folder) / "numba"),
            "CONNECT4_CACHE_DIR": str(Path(folder) / "kernel"),
        }
        setup, step = "", COMPILE_STEPS[label]
        if label == "solver, other sizes":  # time the second kernel only
            setup, step = step.rsplit("; ", 1)
        code = TIMER.format(setup=setup, step=step)
        done = subprocess.run(
            [str(python), "-c", code], capture_output=True, text=True, env=env, check=False
        )
        if done.returncode != 0:
            sys.exit(f"{checkout}: {label} failed: {done.stderr.strip()[-2000:]}")
        wall, cpu = json.loads(done.stdout.strip().splitlines()[-1])
        return float(wall), float(cpu)


def compile_times(against: str | None, rounds: int) -> None:
    """Print each kernel's cold compile time here (and in ``against``)."""
    here = Path(__file__).resolve().parent.parent
    checkouts = {"this checkout": here}
    if against:
        checkouts["against"] = Path(against).resolve()
    print("cold compile, wall / CPU seconds (median of rounds):")
    for label in COMPILE_STEPS:
        found: dict[str, list[tuple[float, float]]] = {name: [] for name in checkouts}
        for _ in range(rounds):
            for name, checkout in checkouts.items():
                found[name].append(compile_seconds(checkout, label))
        cells = []
        for name, values in found.items():
            wall = statistics.median(v[0] for v in values)
            cpu = statistics.median(v[1] for v in values)
            cells.append(f"{name} {wall:5.1f} / {cpu:5.1f}")
        print(f"  {label:24} " + "   ".join(cells), flush=True)
    if against:
        print(f"against: {checkouts['against']}")
    print(f"machine: {describe_machine()}, load {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--line", default="44455554221", help="the position (a move string)")
    parser.add_argument("--numba", action="store_true", help="solve alone, also with numba")
    parser.add_argument("--fresh", action="store_true", help="time make play on a fresh clone")
    parser.add_argument("--rev", default="HEAD", help="with --fresh: the revision to clone")
    parser.add_argument("--keep", help="with --fresh: clone into this (new) folder and keep it")
    parser.add_argument("--compile", action="store_true", help="time each kernel's compile")
    parser.add_argument("--against", help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=1, help="with --compile: rounds")
    args = parser.parse_args()
    if args.compile:
        compile_times(args.against, max(args.rounds, 1))
        return
    if args.fresh:
        fresh_clone(args.rev, args.keep)
        return
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.numba:
        numba_starts(args.runs, args.line)
        return
    later_starts(args.runs, args.line, args.against)


if __name__ == "__main__":
    main()
