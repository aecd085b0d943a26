"""The learned player's whole recipe in one command: label, train, export.

    python benchmarks/net_recipe.py --out DIR --device cuda --workers 16   # a GPU machine
    python benchmarks/net_recipe.py --out DIR --tiny                       # a check (a minute)

Meant for a borrowed machine with a GPU and many cores, where every minute counts:
run it once with ``--tiny`` on any machine first (every step, a few hundred
positions, 20 steps on the CPU), then for real. The steps, each a ``connect4``
command run as a user would run it (the list and their seconds go to
``DIR/recipe.json``):

1. **early** positions (``--plies 0-11``, random playouts, labelled with the
   opening book's help; two files of two seeds) and **late** ones (``17-41``),
   one ``connect4 dataset`` each;
2. **middle** positions (``12-20``) as games reach them (``--sampler games``: the
   shipped network plays the games, each game's positions labelled from its end
   backwards on one table; ``--labels targets``: what training reads, about 1.5
   times as fast as every column's exact score), in files of ``--middle-file`` positions, one after
   another until ``--middle`` are labelled or ``--middle-seconds`` have passed
   (the slowest labels: a budget keeps the rest of the machine's time for the
   training);
3. ``connect4 train`` on every file, Pons' six sets (and their mirror images)
   excluded, a share of the positions won with the next stone kept
   (``--keep-wins-at-once``), the network reading the threat planes
   (``--inputs``), writing ``DIR/net.pt`` (the checkpoint),
   ``DIR/net.npz`` (the NumPy weights the ``net`` player loads) and
   ``DIR/curve.png`` (where matplotlib is installed).

On a borrowed machine that has PyTorch, numba, numpy, typer and rich but not this
package installed, run it from the checkout with the cache root named (so nothing
else is needed), and bring back ``net.npz``, ``curve.png`` and ``recipe.json``::

    CONNECT4_CACHE_DIR=/tmp/c4 PYTHONPATH=src python3 benchmarks/net_recipe.py \
        --out /tmp/run --device cuda --workers 16 && cp /tmp/run/net.npz /tmp/run/*.json $OUT

A labelling step whose file exists is skipped and an interrupted one resumed
(each command's own ``--resume``; training resumes from its checkpoint and ends at
once when its steps are done), so running the same command again after Ctrl-C
(which each command answers by keeping what it did) or a lost machine goes on
where it stopped. Then, here, beside the shipped
network::

    python benchmarks/bench_net.py --network shipped --network DIR/net.npz \
        --limit 1000 --playouts ""
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from connect4.core.outputs import atomic_write

PONS_SETS = ("Test_L1_R1", "Test_L1_R2", "Test_L1_R3", "Test_L2_R1", "Test_L2_R2", "Test_L3_R1")


@dataclass
class Step:
    """One command of the recipe: what it ran, how long it took, what it wrote."""

    name: str
    argv: list[str]
    seconds: float
    output: str
    skipped: bool = False
    interrupted: bool = False


@dataclass
class Recipe:
    """The settings of a run and the steps it took (``DIR/recipe.json``)."""

    settings: dict[str, object]
    steps: list[Step] = field(default_factory=list)


def connect4() -> list[str]:
    """The command line that runs ``connect4`` with this interpreter."""
    return [sys.executable, "-m", "connect4"]


def run_step(
    recipe: Recipe, name: str, argv: list[str], output: Path, *, final: bool = True
) -> bool:
    """Run ``connect4 ARGV`` and record it. A dataset's ``output`` (``final``: written
    once, complete) that exists is skipped; a run is resumed when its journal
    (``OUT.partial``) or checkpoint (``.pt``: training, whose outputs are written at
    every curve point, so it always runs and ends at once when its steps are done) is
    there. False when the command failed (its own message is on stderr). Ctrl-C reaches
    the command too: it is waited for while it keeps what it did, then raised here."""
    if final and output.exists():
        recipe.steps.append(Step(name, argv, 0.0, str(output), skipped=True))
        print(f"{name}: {output} is there, skipped", flush=True)
        return True
    partial = output.with_name(output.name + ".partial")
    resume = ["--resume"] if partial.exists() or output.with_suffix(".pt").exists() else []
    started = time.perf_counter()
    print(f"{name}: connect4 {' '.join(argv + resume)}", flush=True)
    child = subprocess.Popen([*connect4(), *argv, *resume])
    try:
        code = child.wait()
    except KeyboardInterrupt:
        child.wait()  # the command has the Ctrl-C too: it saves what it did, then exits
        recipe.steps.append(Step(name, argv + resume, round(time.perf_counter() - started, 1),
                                 str(output), interrupted=True))  # fmt: skip
        raise
    seconds = time.perf_counter() - started
    recipe.steps.append(Step(name, argv + resume, round(seconds, 1), str(output)))
    print(f"{name}: {'done' if code == 0 else 'FAILED'} in {seconds:.0f} s", flush=True)
    return code == 0


def label(recipe: Recipe, args: argparse.Namespace, out: Path) -> list[Path] | None:
    """The three kinds of labelled positions: the files written, or None on a failure."""
    workers = ["--workers", str(args.workers)] if args.workers else []
    files: list[Path] = []
    for name, plies, count, seed in (
        ("early", "0-11", args.early, 1),
        ("early2", "0-11", args.more_early, 3),
        ("late", "17-41", args.late, 2),
    ):
        if count == 0:
            continue
        path = out / f"{name}.npz"
        argv = ["dataset", "--positions", str(count), "--plies", plies, "--seed", str(seed),
                "--out", str(path), *workers]  # fmt: skip
        if not run_step(recipe, name, argv, path):
            return None
        files.append(path)
    started = time.perf_counter()
    labelled, index = 0, 0
    while labelled < args.middle and time.perf_counter() - started < args.middle_seconds:
        index += 1
        count = min(args.middle_file, args.middle - labelled)
        path = out / f"middle-{index}.npz"
        argv = ["dataset", "--sampler", "games", "--labels", "targets", "--positions", str(count),
                "--plies", "12-20",
                "--seed", str(5000 + index), "--out", str(path), *workers]  # fmt: skip
        if not run_step(recipe, f"middle {index}", argv, path):
            return None
        files.append(path)
        labelled += count
    return files


def train(recipe: Recipe, args: argparse.Namespace, out: Path, files: list[Path]) -> bool:
    """Train on ``files``: ``DIR/net.pt``, ``DIR/net.npz`` and, where matplotlib is
    installed, ``DIR/curve.png``."""
    plot = ["--plot", str(out / "curve.png")] if importlib.util.find_spec("matplotlib") else []
    argv = ["train", *[a for f in files for a in ("--data", str(f))],
            *[a for s in PONS_SETS for a in ("--exclude", s)],
            "--keep-wins-at-once", str(args.keep_wins_at_once),
            "--out", str(out / "net.pt"), "--network", str(out / "net.npz"),
            *plot, "--channels", str(args.channels),
            "--blocks", str(args.blocks), "--inputs", args.inputs,
            "--batch", str(args.batch), "--steps", str(args.steps),
            "--eval-every", str(args.eval_every), "--device", args.device,
            "--seed", str(args.seed)]  # fmt: skip
    return run_step(recipe, "train", argv, out / "net.pt", final=False)


def _at_least(least: float, kind: type[int] | type[float] = int) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` at least ``least``."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least:g}, not {text}")
        return value

    return parse


def _share(text: str) -> float:
    """An argparse type: a share from 0 to 1."""
    value = _at_least(0.0, float)(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a share from 0 to 1, not {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    count, positive = _at_least(0), _at_least(1)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the folder for every file")
    parser.add_argument("--device", default="auto", choices=("cpu", "cuda", "auto"),
                        help="cpu, cuda or auto (default)")  # fmt: skip
    parser.add_argument("--workers", type=count, default=0, help="labelling processes (all cores)")
    parser.add_argument("--early", type=count, default=200_000, help="positions of 0-11 stones")
    parser.add_argument("--more-early", type=count, default=400_000,
                        help="a second file of 0-11 stones (another seed; 0: none)")  # fmt: skip
    parser.add_argument("--late", type=count, default=300_000, help="positions of 17-41 stones")
    parser.add_argument("--middle", type=count, default=200_000, help="positions of 12-20 stones")
    parser.add_argument("--middle-file", type=positive, default=20_000,
                        help="middle positions a file")  # fmt: skip
    parser.add_argument("--middle-seconds", type=_at_least(0.0, float), default=300.0,
                        help="no new middle file after this many seconds of them")  # fmt: skip
    parser.add_argument("--steps", type=positive, default=20_000)
    # the shipped tower: 800 playouts a move took 0.53-0.64 s on one core here, against
    # 0.89-1.05 s for 64x4 and 1.2-1.6 s for 64x6 (the player's goal: within 1 s)
    parser.add_argument("--channels", type=positive, default=48)
    parser.add_argument("--blocks", type=positive, default=4)
    parser.add_argument("--inputs", default="threats", choices=("stones", "threats"),
                        help="what the network reads (connect4 train --inputs)")  # fmt: skip
    parser.add_argument("--batch", type=positive, default=512)
    parser.add_argument("--eval-every", type=positive, default=1000)
    parser.add_argument("--keep-wins-at-once", type=_share, default=0.05)
    parser.add_argument("--seed", type=count, default=1)
    tiny = "a check of every step: a few hundred positions, 20 steps, the CPU"
    parser.add_argument("--tiny", action="store_true", help=tiny)
    args = parser.parse_args(argv)
    if args.tiny:
        args.early, args.more_early, args.late = 300, 200, 300
        args.middle, args.middle_file = 200, 100
        args.steps, args.channels, args.blocks, args.batch, args.eval_every = 20, 8, 1, 32, 10
        args.device, args.workers = "cpu", args.workers or 1
    if shutil.which("nvidia-smi") is None and args.device == "cuda":
        print("note: no nvidia-smi here; connect4 train says whether CUDA is there", flush=True)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out: {args.out} is not a folder")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        parser.error(f"--out: cannot make the folder {args.out}: {error.strerror}")
    if (args.out / "recipe.json").is_dir():  # written last: the run would end with no record
        parser.error(f"--out: {args.out / 'recipe.json'} is a folder; the run's record goes there")
    recipe = Recipe({k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()})
    started = time.perf_counter()
    interrupted = False
    try:
        files = label(recipe, args, args.out)
        ok = files is not None and train(recipe, args, args.out, files)
    except KeyboardInterrupt:
        ok, interrupted = False, True
    seconds = round(time.perf_counter() - started, 1)
    record = {**asdict(recipe), "seconds": seconds, "ok": ok, "interrupted": interrupted}
    text = (json.dumps(record, indent=1) + "\n").encode()
    atomic_write(args.out / "recipe.json", text, what="recipe record")
    said = "done" if ok else "interrupted (run it again to go on)" if interrupted else "stopped"
    print(f"{said}: {args.out / 'recipe.json'}", flush=True)
    return 0 if ok else 130 if interrupted else 1


if __name__ == "__main__":
    sys.exit(main())
