"""``connect4 train``: a policy/value network trained from ``connect4 dataset`` files."""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, BinaryIO

import typer

from connect4.cli.common import (
    MAX_POSITIONS,
    AllCoresWorkers,
    Force,
    Json,
    Resume,
    Seed,
    echo_summary,
    fail,
    interrupted,
    keeping,
    run_job,
)

if TYPE_CHECKING:
    from connect4.envs.labels import Split
    from connect4.net.train import Figures, Point, Trainer, TrainingSettings


@dataclass(frozen=True)
class TrainSummary:
    """``connect4 train --json``: where the run stands and what it wrote."""

    checkpoint: str
    network: str
    plot: str | None
    step: int
    steps: int
    seconds: float
    examples_seen: int
    train_positions: int
    held_out_positions: int
    excluded_positions: int
    duplicate_positions: int
    parameters: int
    held_out: dict[str, float] | None
    finished: bool


def _generate(
    out: Path, n: int, plies: str | None, seed: int, workers: int | None, resume: bool, quiet: bool
) -> Path:
    """Label ``n`` positions into ``OUT.data.npz`` (kept: a resumed run reuses the file,
    an interrupted labelling continues from its journal) and return the file."""
    from connect4.envs.dataset import make_dataset, parse_plies

    path = out.with_suffix(".data.npz")
    if path.exists():
        if not resume:
            raise fail(f"{path} exists: train on it with --data {path}, or delete it")
        return path
    span = parse_plies(plies)
    run_job(
        lambda: make_dataset(
            n, span, path, seed=seed, workers=workers, resume=resume, progress=not quiet
        ),
        path,
    )
    return path


def _names(before: object, paths: list[Path]) -> list[str]:
    """The file names a recipe lists: those of earlier legs of the run and these."""
    earlier = [str(name) for name in before] if isinstance(before, list) else []
    return sorted({*earlier, *(path.name for path in paths)})


def _kept_out(before: object, paths: list[Path]) -> list[str]:
    """The files a recipe lists as kept out: those kept out in every leg of the run."""
    now = {path.name for path in paths}
    if isinstance(before, list):
        now &= {str(name) for name in before}
    return sorted(now)


def _describe(figures: Figures | None) -> str:
    if figures is None:
        return "-"
    return (
        f"loss {figures.loss:.3f}, best move {100 * figures.accuracy:.1f} %, "
        f"errors {100 * figures.error_rate:.1f} %"
    )


# ``connect4 train``'s options, one alias each (the command's signature stays readable).
DataFiles = Annotated[
    list[Path] | None,
    typer.Option(help="a `connect4 dataset` file (repeat for several: a mix of plies)"),
]
Generate = Annotated[
    int | None,
    typer.Option(
        help="label this many new positions first (as `connect4 dataset`, into "
        "OUT.data.npz; with --plies, --workers)",
        min=1,
        max=MAX_POSITIONS,
    ),
]
Plies = Annotated[str | None, typer.Option(help="with --generate: stones per position, e.g. 0-30")]
NetworkFile = Annotated[
    Path | None, typer.Option(help="the NumPy weights file to write (default: OUT with .npz)")
]
ExcludeFiles = Annotated[
    list[Path] | None,
    typer.Option(
        help="positions never trained on, one move string a line (repeat; e.g. "
        "Test_L1_R3, one of Pons' sets by name): mirror images too"
    ),
]
HeldOut = Annotated[
    float, typer.Option(help="share of the positions held out to measure on", min=0, max=0.5)
]
DropWinsAtOnce = Annotated[
    bool,
    typer.Option(
        help="leave out positions won with the next stone, as Pons' sets do (--keep-wins-at-once 0)"
    ),
]
KeepWinsAtOnce = Annotated[
    float | None,
    typer.Option(
        help="the share of positions won with the next stone to keep (default 1: all; "
        "0: none), chosen by a hash of the position",
        min=0.0,
        max=1.0,
    ),
]
Steps = Annotated[
    int | None,
    typer.Option(
        help="training steps in all (default 20,000; with --resume, the checkpoint's)", min=1
    ),
]
Batch = Annotated[int, typer.Option(help="positions per step", min=1, max=65_536)]
LearningRate = Annotated[float, typer.Option(help="peak learning rate (AdamW)", min=1e-7, max=1)]
Channels = Annotated[int, typer.Option(help="planes of the residual tower", min=1, max=1024)]
Blocks = Annotated[int, typer.Option(help="residual blocks", min=0, max=64)]
Inputs = Annotated[
    str,
    typer.Option(
        help="what the network reads: stones (the stones, whose turn) or threats (and the "
        "cells where either side would complete four)"
    ),
]
EvalEvery = Annotated[int, typer.Option(help="steps between curve points and checkpoints", min=1)]
Threads = Annotated[
    int | None, typer.Option(help="PyTorch CPU threads (default: PyTorch's)", min=1, max=256)
]
PlotFile = Annotated[
    Path | None, typer.Option(help="draw the learning curve into this image (.png, .svg)")
]
KaggleFile = Annotated[
    Path | None,
    typer.Option(help="also write a single-file Kaggle ConnectX agent (.py, weights inside)"),
]
Device = Annotated[str, typer.Option(help="cpu, cuda or auto (a GPU when there is one)")]


def train(
    out: Annotated[Path, typer.Option(help="the checkpoint to write (.pt)")],
    data: DataFiles = None,
    generate: Generate = None,
    plies: Plies = None,
    workers: AllCoresWorkers = None,
    network: NetworkFile = None,
    exclude: ExcludeFiles = None,
    held_out: HeldOut = 0.02,
    drop_wins_at_once: DropWinsAtOnce = False,
    keep_wins_at_once: KeepWinsAtOnce = None,
    steps: Steps = None,
    batch: Batch = 256,
    lr: LearningRate = 2e-3,
    channels: Channels = 64,
    blocks: Blocks = 4,
    inputs: Inputs = "stones",
    eval_every: EvalEvery = 500,
    threads: Threads = None,
    plot: PlotFile = None,
    kaggle: KaggleFile = None,
    device: Device = "cpu",
    seed: Seed = 0,
    resume: Resume = False,
    force: Force = False,
    json_output: Json = False,
) -> None:
    """Train a policy/value network from exact labels (needs the `train` extra: PyTorch).

    An existing --out, --network, --plot or --kaggle file is refused unless --force
    (start afresh, replacing them) or --resume (continue the run: each must be
    the kind of file train writes).
    """
    from connect4.core.files import FileError
    from connect4.net.model import INPUTS

    if inputs not in INPUTS:  # before the labelling and the data's loading
        raise fail(f"--inputs: must be one of {', '.join(INPUTS)}, not {inputs!r}")
    if drop_wins_at_once and keep_wins_at_once not in (None, 0.0):
        raise fail("--drop-wins-at-once keeps none: leave it out with --keep-wins-at-once")
    try:
        from connect4.envs.labels import load_examples
        from connect4.net.train import Trainer, require_torch

        network_path = network if network is not None else out.with_suffix(".npz")
        fresh = _check_targets(
            out, network_path, plot, kaggle, resume, generate is not None, force=force
        )
        files = list(data or [])
        if generate is not None:
            require_torch()  # before the minutes of labelling, not after them
            files.append(_generate(out, generate, plies, seed, workers, resume, json_output))
        if not files:
            raise fail("no data: give --data FILE (from `connect4 dataset`) or --generate N")
        kept = 0.0 if drop_wins_at_once else 1.0 if keep_wins_at_once is None else keep_wins_at_once
        split = load_examples(
            files, exclude=exclude or [], held_out=held_out, keep_wins_at_once=kept
        )
        torch = require_torch()  # after the checks of the files: its import takes seconds
        if threads is not None:
            torch.set_num_threads(threads)
        if resume and not fresh:
            trainer = Trainer.load(out, steps=steps, device=device)
            _check_board(trainer, split)
        else:
            shape = Shape(channels, blocks, inputs, batch, lr, eval_every, seed)
            trainer = Trainer.new(shape.settings(split, steps), device)
        _record_recipe(trainer, files, exclude or [], split, (held_out, kept))
    except (FileError, ValueError) as error:
        raise fail(error) from None

    _run(trainer, split, out, network_path, plot=plot, kaggle=kaggle, json_output=json_output)


@dataclass(frozen=True)
class Shape:
    """A new network's size and training figures, as the command line gives them."""

    channels: int
    blocks: int
    inputs: str
    batch: int
    lr: float
    eval_every: int
    seed: int

    def settings(self, split: Split, steps: int | None) -> TrainingSettings:
        """The training settings for the data's board (``steps`` None: the default's)."""
        from connect4.net.train import TrainingSettings

        return TrainingSettings(
            width=split.width, height=split.height, channels=self.channels, blocks=self.blocks,
            inputs=self.inputs, batch=self.batch, lr=self.lr, eval_every=self.eval_every,
            seed=self.seed,
            **({} if steps is None else {"steps": steps}),
        )  # fmt: skip


def _check_board(trainer: Trainer, split: Split) -> None:
    """Refuse data of another board than the network's (a resumed checkpoint's)."""
    s = trainer.settings
    if (split.width, split.height) != (s.width, s.height):
        raise fail(f"the data is {split.width}x{split.height}, the network {s.width}x{s.height}")


def _check_targets(
    out: Path,
    network: Path,
    plot: Path | None,
    kaggle: Path | None,
    resume: bool,
    generate: bool,
    *,
    force: bool = False,
) -> bool:
    """Check every file ``train`` writes before any work; True when ``out`` is new (a
    ``--resume`` with ``--generate`` may continue the labelling only). An existing
    file needs ``--force`` (replaced) or ``--resume`` (then it must be what train
    writes there: a checkpoint, weights, an image, a Kaggle agent)."""
    from connect4.core.files import check_output, is_archive, is_plot, plot_target

    fresh = not out.exists()
    if resume and fresh and not generate:
        raise fail(f"--resume: {out} does not exist (run without --resume to start)")
    go_on = resume and not fresh  # continuing: the run's other outputs are replaced
    check_output(out, what="checkpoint", force=force, resume=resume, ours=is_archive)
    check_output(network, what="network", force=force, resume=go_on, ours=is_archive)
    if plot is not None:
        plot_target(plot, "learning curve", force=force, ours=is_plot if go_on else None)
    if kaggle is not None:
        check_output(kaggle, what="Kaggle agent", force=force, resume=go_on, ours=is_agent)
    return fresh or force


def is_agent(file: BinaryIO) -> str | None:
    """``None`` when a file starts as the Kaggle agents train writes do."""
    from connect4.net.kaggle import TEMPLATE

    start = TEMPLATE.split("{", 1)[0].encode()
    if file.read(len(start)) == start:
        return None
    return "it is not a Kaggle agent written by connect4 train"


def _record_recipe(
    trainer: Trainer,
    files: list[Path],
    exclude: list[Path],
    split: Split,
    shares: tuple[float, float],
) -> None:
    """Add this leg's data, exclusions and split to the recipe saved with the network."""
    trainer.recipe = {
        **trainer.recipe,
        "data": _names(trainer.recipe.get("data"), files),
        "excluded_files": _kept_out(
            trainer.recipe.get("excluded_files") if trainer.step else None, exclude
        ),
        "train_positions": len(split.train),
        "held_out_positions": len(split.held_out),
        "excluded_positions": split.excluded,
        "dropped_wins_at_once": split.wins_at_once,
        "held_out_share": shares[0],
        "kept_wins_at_once_share": shares[1],
    }


def _run(
    trainer: Trainer,
    split: Split,
    out: Path,
    network_path: Path,
    *,
    plot: Path | None,
    kaggle: Path | None,
    json_output: bool,
) -> None:
    """Train to the end or to a Ctrl-C, saving at every curve point; print the summary.

    The first Ctrl-C stops the training's limit: the step under way ends, the
    checkpoint is saved and the one line says where; a second one stops the step
    itself (the last curve point's checkpoint stays)."""
    from connect4.core.limits import Limit, stop_on_interrupt
    from connect4.core.progress import progress_bar
    from connect4.net.train import save_network

    s = trainer.settings
    if not json_output:
        typer.echo(
            f"{len(split.train):,} training positions, {len(split.held_out):,} held out, "
            f"{split.excluded:,} excluded, {split.duplicates:,} duplicates dropped"
            + (f", {split.wins_at_once:,} won at once dropped" if split.wins_at_once else "")
            + "; "
            f"{trainer.module_parameters():,} parameters; step {trainer.step:,} of {s.steps:,}"
        )
    limit = Limit()

    def save() -> None:
        trainer.save(out)
        save_network(trainer.network(), network_path)
        if kaggle is not None:
            from connect4.net.kaggle import write_agent

            write_agent(trainer.network(), kaggle)
        if plot is not None and trainer.history:
            from connect4.net.train import plot_curve

            plot_curve(trainer.history, plot, f"{s.channels}x{s.blocks} network")

    bar = not json_output and sys.stdout.isatty()  # piped: the log lines below instead
    try:
        with keeping(lambda: f"stopped during a step; the last checkpoint is in {out}"):
            with (
                stop_on_interrupt(limit),
                progress_bar(bar, s.steps, trainer.step, "training", "steps") as advance,
            ):

                def on_point(point: Point) -> None:
                    save()
                    held_out = _describe(point.held_out)
                    advance.note(f"train loss {point.train.loss:.3f} | held out: {held_out}")
                    if not json_output and not sys.stdout.isatty():  # a log: one line a point
                        typer.echo(
                            f"step {point.step:,} ({point.seconds / 60:.1f} min): train loss "
                            f"{point.train.loss:.3f}; held out: {held_out}"
                        )

                finished = trainer.train(
                    split.train, split.held_out, limit=limit, on_point=on_point, on_step=advance
                )
            save()
    except (ValueError, OSError) as error:
        raise fail(error) from None
    last = trainer.history[-1].held_out if trainer.history else None
    summary = TrainSummary(
        checkpoint=str(out),
        network=str(network_path),
        plot=None if plot is None else str(plot),
        step=trainer.step,
        steps=s.steps,
        seconds=round(trainer.seconds, 1),
        examples_seen=trainer.examples,
        train_positions=len(split.train),
        held_out_positions=len(split.held_out),
        excluded_positions=split.excluded,
        duplicate_positions=split.duplicates,
        parameters=trainer.module_parameters(),
        held_out=None if last is None else asdict(last),
        finished=finished,
    )
    if not finished:
        raise interrupted(f"step {trainer.step:,} saved in {out}; continue with --resume")
    echo_summary(
        summary,
        json_output,
        f"wrote {out} and {network_path}: step {trainer.step:,}, {trainer.seconds / 60:.1f} min; "
        f"held out: {_describe(last)}",
    )
