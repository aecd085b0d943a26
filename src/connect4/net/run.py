"""A training run described: its settings (checked before a run starts), the error of
a run that cannot start, PyTorch loaded on demand (and the network's PyTorch module
with it), and the learning curve: its points and its picture.

Nothing here imports PyTorch at load time: a machine without the ``train`` extra
reads the settings and draws a saved curve.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from connect4.core.bits import fits_word
from connect4.core.errors import Connect4Error, MissingExtra
from connect4.net.model import INPUTS

if TYPE_CHECKING:
    from connect4.net.torch_net import TorchNetwork


class TrainingError(Connect4Error):
    """Training that cannot start: no PyTorch, bad settings, a checkpoint that does not fit."""


def require_torch() -> ModuleType:
    """The ``torch`` module, or :class:`TrainingError` saying how to install it.

    Typed code here follows the call with ``import torch``: the check is this one.
    """
    try:
        import torch
    except ImportError:
        raise missing("torch") from None
    return torch


def missing(module: str) -> TrainingError:
    """The error for an optional module training needs: the project's own install command
    (:class:`~connect4.core.errors.MissingExtra`; PyPI's ``connect4`` is another project).

    >>> print(missing("torch"))
    torch is not installed (needed for training): in the project's folder run \
.venv/bin/pip install -e '.[train]'
    """
    extra = MissingExtra.of_module(module)
    assert extra is not None, module  # one of the extras
    return TrainingError(str(extra))


def torch_network(settings: TrainingSettings) -> TorchNetwork:
    """The PyTorch module of :mod:`.model`'s network of ``settings``' shape (batch
    normalisation not yet folded)."""
    require_torch()
    from connect4.net.torch_net import TorchNetwork

    s = settings
    return TorchNetwork(s.width, s.height, s.channels, s.blocks, s.inputs)


@dataclass(frozen=True)
class TrainingSettings:
    """A run's settings: the network's shape, the optimisation, the schedule."""

    width: int = 7
    height: int = 6
    channels: int = 64
    blocks: int = 4
    inputs: str = "stones"
    steps: int = 20_000
    batch: int = 256
    lr: float = 2e-3
    weight_decay: float = 1e-4
    eval_every: int = 500
    seed: int = 0

    def check(self) -> None:
        """Raise :class:`TrainingError` (naming the setting) for values no run can use."""
        bounds = {
            "channels": (1, 1024),
            "blocks": (0, 64),
            "steps": (1, 100_000_000),
            "batch": (1, 65_536),
            "eval_every": (1, 100_000_000),
        }
        for name, (low, high) in bounds.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise TrainingError(f"must be {low}-{high}, not {value}", setting=name)
        if self.inputs not in INPUTS:
            raise TrainingError(f"must be one of {', '.join(INPUTS)}, not {self.inputs!r}",
                                setting="inputs")  # fmt: skip
        if self.inputs == "threats" and not fits_word(self.width, self.height):
            raise TrainingError(f"threats need a board of 64 cells and columns at most, not "
                                f"{self.width}x{self.height}", setting="inputs")  # fmt: skip
        if not (0 < self.lr <= 1 and math.isfinite(self.lr)):
            raise TrainingError(f"must be in (0, 1], not {self.lr}", setting="lr")
        if not (0 <= self.weight_decay <= 1):
            raise TrainingError(
                f"must be in [0, 1], not {self.weight_decay}", setting="weight_decay"
            )


@dataclass(frozen=True)
class Figures:
    """How the network does on a set of examples: mean loss (total, policy, outcome,
    score), policy accuracy (its best column is one of the exact best) and error rate
    (its best column throws away the best outcome)."""

    loss: float
    policy_loss: float
    outcome_loss: float
    score_loss: float
    accuracy: float
    error_rate: float


@dataclass(frozen=True)
class Point:
    """One point of the learning curve: the step, seconds of training so far, the
    training figures since the last point and the held-out set's figures."""

    step: int
    seconds: float
    examples: int
    train: Figures
    held_out: Figures | None


def plot_curve(history: list[Point], path: str | os.PathLike[str], title: str = "") -> None:
    """Draw the learning curve (losses; accuracy and error rate) into an image file."""
    from connect4.core.files import save_figure

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise missing("matplotlib") from None
    steps = [p.step for p in history]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot(steps, [p.train.loss for p in history], label="training loss")
    held = [(p.step, p.held_out) for p in history if p.held_out is not None]
    if held:
        at = [step for step, _ in held]
        left.plot(at, [f.loss for _, f in held], label="held-out loss")
        right.plot(at, [100 * f.accuracy for _, f in held], label="held out: a best move (%)")
        right.plot(at, [100 * f.error_rate for _, f in held], label="held out: outcome lost (%)")
    right.plot(
        steps, [100 * p.train.accuracy for p in history], ":", label="training: a best move (%)"
    )
    left.set_xlabel("step")
    right.set_xlabel("step")
    left.set_ylabel("loss")
    right.set_ylabel("%")
    left.legend()
    right.legend()
    right.grid(alpha=0.3)
    left.grid(alpha=0.3)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    save_figure(figure, path, what="learning curve")
    plt.close(figure)
