"""Training the network with PyTorch (the ``train`` extra): the twin of :mod:`.model`.

The examples and their targets are :mod:`.examples`' (exact labels); the run's
settings, its curve and PyTorch on demand are :mod:`.run`'s; reading a checkpoint
back without trusting it is :mod:`.checkpoint`'s. Here: the steps.

**Loss**: cross-entropy of the policy (illegal columns masked out), of the
outcome, and the squared error of the score.

**Augmentation**: each batch shows half its positions mirrored (the columns
reversed), so the network sees both halves of the symmetric game.

A :class:`Trainer` runs the steps; :meth:`Trainer.save` writes a checkpoint
(weights, optimizer, step, history, random state) that :meth:`Trainer.load`
continues exactly, and :meth:`Trainer.network` folds batch normalisation into the
convolutions and returns the :class:`~connect4.net.model.Network` NumPy runs.

PyTorch is imported by the functions that need it, so this module loads
without it.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt

from connect4.core.files import atomic_write
from connect4.core.limits import Limit
from connect4.net.checkpoint import (
    FORMAT,
    check_optimizer,
    check_shapes,
    checked_count,
    read_checkpoint,
    read_point,
)
from connect4.net.examples import Examples, Targets, choice_errors, max_score, targets
from connect4.net.model import Network, encode
from connect4.net.run import (
    Figures,
    Point,
    TrainingError,
    TrainingSettings,
    plot_curve,
    require_torch,
    torch_network,
)

if TYPE_CHECKING:
    import torch
    from torch import Tensor

    from connect4.net.torch_net import TorchNetwork


class Batch(NamedTuple):
    """A batch on the training device: the encoded positions, the targets as tensors,
    and the :class:`Targets` themselves (for :func:`choice_errors`)."""

    x: Tensor
    policy: Tensor
    outcome: Tensor
    score: Tensor
    legal: Tensor
    targets: Targets


def save_network(network: Network, path: str | os.PathLike[str]) -> None:
    """Write a weights file atomically (what :func:`~connect4.net.model.load_network` reads)."""
    arrays = network.arrays()
    atomic_write(
        path, lambda file: np.savez_compressed(file, allow_pickle=False, **arrays), what="network"
    )


@dataclass
class Trainer:
    """A training run: the module, its optimizer and the curve so far (see module doc)."""

    settings: TrainingSettings
    module: TorchNetwork
    optimizer: torch.optim.Optimizer
    step: int = 0
    seconds: float = 0.0
    examples: int = 0
    history: list[Point] = field(default_factory=list)
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    recipe: dict[str, object] = field(default_factory=dict)
    device: str = "cpu"

    @classmethod
    def new(cls, settings: TrainingSettings, device: str = "cpu") -> Trainer:
        """A fresh run: weights and batches drawn from ``settings.seed``; ``device`` is
        ``cpu``, ``cuda`` or ``auto`` (a GPU when PyTorch sees one)."""
        settings.check()
        require_torch()
        import torch

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        if device not in ("cpu", "cuda"):
            raise TrainingError(f"must be cpu, cuda or auto, not {device!r}", setting="device")
        if device == "cuda" and not torch.cuda.is_available():
            raise TrainingError("no GPU that PyTorch can use: train on the cpu", setting="device")
        torch.manual_seed(settings.seed)
        module = torch_network(settings)
        module.to(device)
        optimizer = torch.optim.AdamW(
            module.parameters(), lr=settings.lr, weight_decay=settings.weight_decay
        )
        return cls(
            settings, module, optimizer, rng=np.random.default_rng(settings.seed), device=device
        )

    def module_parameters(self) -> int:
        """How many numbers the network learns."""
        return sum(int(p.numel()) for p in self.module.parameters())

    def learning_rate(self) -> float:
        """The rate of the next step: a short warm-up, then a cosine decay to 2 %."""
        s = self.settings
        warm = min(500, s.steps // 20)
        if self.step < warm:
            return s.lr * (self.step + 1) / warm
        progress = min(1.0, (self.step - warm) / max(1, s.steps - warm))
        return s.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * progress)))

    def _tensors(self, examples: Examples, mirror: npt.NDArray[np.bool_] | None) -> Batch:
        require_torch()
        import torch

        if mirror is not None and mirror.any():
            obs = examples.obs.copy()
            scores = examples.scores.copy()
            obs[mirror] = obs[mirror][:, :, ::-1]
            scores[mirror] = scores[mirror][:, ::-1]
            examples = Examples(obs, examples.ply, scores, examples.key)
        s = self.settings
        t = targets(examples, s.width, s.height)
        planes = encode(examples.obs, examples.ply, s.inputs)
        x, policy, outcome, score, legal = (
            torch.from_numpy(a).to(self.device)
            for a in (planes, t.policy, t.outcome, t.score, t.legal)
        )
        return Batch(x, policy, outcome, score, legal, t)

    def _losses(self, batch: Batch) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        require_torch()
        import torch

        logits, value = self.module(batch.x)
        masked = logits.masked_fill(~batch.legal, -1e9)
        policy_loss = -(batch.policy * torch.log_softmax(masked, dim=1)).sum(dim=1).mean()
        outcome_loss = torch.nn.functional.cross_entropy(value[:, :3], batch.outcome)
        score_loss = ((torch.tanh(value[:, 3]) - batch.score) ** 2).mean()
        total = policy_loss + outcome_loss + score_loss
        return total, policy_loss, outcome_loss, score_loss, logits

    def train(
        self,
        data: Examples,
        held_out: Examples | None = None,
        *,
        limit: Limit | None = None,
        on_point: Callable[[Point], None] | None = None,
        on_step: Callable[[int], None] | None = None,
    ) -> bool:
        """Run steps until ``settings.steps`` (True) or until ``limit`` stops it (False;
        the run can be saved and continued). ``on_point`` hears each curve point."""
        if not len(data):
            raise TrainingError("no training examples")
        s = self.settings
        sums = np.zeros(6)
        count = 0
        started = time.perf_counter() - self.seconds
        while self.step < s.steps:
            if limit is not None and limit.expired():
                self.seconds = time.perf_counter() - started
                return False
            self.module.train()
            index = self.rng.integers(0, len(data), size=min(s.batch, len(data)))
            batch = self._tensors(data.take(index), self.rng.random(index.size) < 0.5)
            for group in self.optimizer.param_groups:
                group["lr"] = self.learning_rate()
            total, policy_loss, outcome_loss, score_loss, logits = self._losses(batch)
            self.optimizer.zero_grad(set_to_none=True)
            total.backward()  # type: ignore[no-untyped-call]  # untyped in torch
            self.optimizer.step()
            self.step += 1
            self.examples += index.size
            right, wrong = choice_errors(logits.detach().cpu().numpy(), batch.targets)
            n = index.size
            losses = tuple(
                float(v.detach()) for v in (total, policy_loss, outcome_loss, score_loss)
            )
            sums += np.array([*(v * n for v in losses), right.sum(), wrong.sum()])
            count += n
            if on_step is not None:
                on_step(1)
            if self.step % s.eval_every == 0 or self.step == s.steps:
                self.seconds = time.perf_counter() - started
                point = Point(
                    self.step,
                    round(self.seconds, 2),
                    self.examples,
                    Figures(*(float(v) for v in sums / count)),
                    None if held_out is None or not len(held_out) else self.evaluate(held_out),
                )
                self.history.append(point)
                sums[:] = 0
                count = 0
                if on_point is not None:
                    on_point(point)
        self.seconds = time.perf_counter() - started
        return True

    def evaluate(self, examples: Examples, batch: int = 4096) -> Figures:
        """The :class:`Figures` of the network on ``examples`` (evaluation mode)."""
        require_torch()
        import torch

        self.module.eval()
        sums = np.zeros(6)
        with torch.no_grad():
            for start in range(0, len(examples), batch):
                part = examples.take(np.arange(start, min(start + batch, len(examples))))
                tensors = self._tensors(part, None)
                total, policy_loss, outcome_loss, score_loss, logits = self._losses(tensors)
                right, wrong = choice_errors(logits.cpu().numpy(), tensors.targets)
                n = len(part)
                losses = tuple(
                    float(v.detach()) for v in (total, policy_loss, outcome_loss, score_loss)
                )
                sums += np.array([*(v * n for v in losses), right.sum(), wrong.sum()])
        return Figures(*(float(v) for v in sums / len(examples)))

    def network(self) -> Network:
        """The NumPy network of the weights so far, with the run's recipe."""
        self.module.eval()
        s = self.settings
        recipe = {**self.recipe, "settings": asdict(s), "step": self.step,
                  "seconds": round(self.seconds, 1), "examples": self.examples}  # fmt: skip
        if self.history and self.history[-1].held_out is not None:
            recipe["held_out"] = asdict(self.history[-1].held_out)
        return self.module.to_network(json.dumps(recipe))

    # ------------------------------------------------------------ checkpoints
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write a checkpoint atomically: weights, optimizer, step, curve, random state."""
        require_torch()
        import torch

        state = {
            "format": FORMAT,
            "settings": asdict(self.settings),
            "module": self.module.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "step": self.step,
            "seconds": self.seconds,
            "examples": self.examples,
            "history": [asdict(point) for point in self.history],
            "rng": json.dumps(self.rng.bit_generator.state),
            "torch_rng": torch.get_rng_state(),
            "device": self.device,
            "recipe": json.dumps(self.recipe),
        }
        atomic_write(path, lambda file: torch.save(state, file), what="checkpoint")

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], steps: int | None = None, device: str = "cpu"
    ) -> Trainer:
        """Continue the run a checkpoint holds (``steps``: a new total number of steps).

        Any file that is not an intact checkpoint of this version (cut short, another
        format, a pickle of other objects, weights that do not fit its settings) is a
        :class:`TrainingError` naming it; nothing in the file is run (PyTorch reads it
        with ``weights_only``) and no network is built before its shapes are checked.
        """
        require_torch()
        import torch

        state = read_checkpoint(path)
        try:
            settings = TrainingSettings(**state["settings"])
            settings.check()  # the file's own settings: a bad one is damage, not a flag
            check_shapes(state["module"], settings)
        except TrainingError as error:
            raise TrainingError(f"{path} is a damaged checkpoint: {error}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise TrainingError(f"{path} is a damaged checkpoint: {error}") from None
        if steps is not None:
            settings = TrainingSettings(**{**asdict(settings), "steps": steps})
        trainer = cls.new(settings, device)  # a bad --steps or --device is the caller's
        try:
            trainer.module.load_state_dict(state["module"])
            trainer.optimizer.load_state_dict(state["optimizer"])
            check_optimizer(trainer.optimizer)
            trainer.step, trainer.examples = (
                checked_count(state[name], name) for name in ("step", "examples")
            )
            trainer.seconds = float(state["seconds"])
            if not (math.isfinite(trainer.seconds) and trainer.seconds >= 0):
                raise ValueError(f"seconds = {trainer.seconds}")
            trainer.history = [read_point(p) for p in state["history"]]
            trainer.rng.bit_generator.state = json.loads(state["rng"])
            torch.set_rng_state(state["torch_rng"])
            recipe = json.loads(state["recipe"])
            if not isinstance(recipe, dict):
                raise ValueError("its recipe is not a mapping")
            trainer.recipe = recipe
        except (KeyError, TypeError, ValueError, AttributeError, RuntimeError) as error:
            raise TrainingError(f"{path} is a damaged checkpoint: {error}") from None
        return trainer


__all__ = [
    "Examples",
    "Figures",
    "Point",
    "Targets",
    "Trainer",
    "TrainingError",
    "TrainingSettings",
    "choice_errors",
    "max_score",
    "plot_curve",
    "require_torch",
    "save_network",
    "targets",
    "torch_network",
]
