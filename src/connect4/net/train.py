"""Training the network with PyTorch (the ``train`` extra): the twin of :mod:`.model`.

**Targets** from exact labels (:func:`targets`): the policy target spreads
probability evenly over the columns with the best exact score; the outcome
target is the sign of the position's score (loss, draw, win for the side to
move); the score target is the exact score over the board's largest (so the
distance to the end counts: a quick win scores higher than a slow one).

**Loss**: cross-entropy of the policy (illegal columns masked out), of the
outcome, and the squared error of the score.

**Augmentation**: each batch shows half its positions mirrored (the columns
reversed), so the network sees both halves of the symmetric game.

A :class:`Trainer` runs the steps; :meth:`Trainer.save` writes a checkpoint
(weights, optimizer, step, history, random state) that :meth:`Trainer.load`
continues exactly, and :meth:`Trainer.network` folds batch normalisation into the
convolutions and returns the :class:`~connect4.net.model.Network` NumPy runs.

PyTorch is imported by the functions that need it, so this module loads
without it:

>>> ex = Examples.of(
...     np.zeros((1, 6, 7, 2), np.int8), np.array([0]),
...     np.array([[-2, -1, 0, 1, 0, -1, -2]], np.int8), np.array([1], np.uint64))
>>> t = targets(ex, 7, 6)
>>> t.policy.tolist(), t.outcome.tolist(), round(float(t.score[0]), 3)
([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]], [2], 0.056)
"""

from __future__ import annotations

import json
import math
import os
import pickle
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from connect4.core.errors import Connect4Error, MissingExtra
from connect4.core.files import FileError, atomic_write, open_input
from connect4.core.limits import Limit
from connect4.net.model import Network, encode

if TYPE_CHECKING:
    import torch
    from torch import Tensor

    from connect4.net.torch_net import TorchNetwork

FULL = -128  # a full column's score in the labels
MAX_CHECKPOINT_BYTES = 1 << 30


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


def max_score(width: int, height: int) -> int:
    """The largest exact score of the board: a win with the first player's fourth stone.

    >>> max_score(7, 6)
    18
    """
    return (width * height - 5) // 2


# ---------------------------------------------------------------- examples and targets
@dataclass(frozen=True)
class Examples:
    """Labelled positions: ``obs`` (N, H, W, 2) planes of the side to move, ``ply``
    (N,), every column's exact score ``scores`` (N, W) (:data:`FULL`: a full column)
    and the canonical ``key`` (N,) (shared with the mirror image)."""

    obs: npt.NDArray[np.int8]
    ply: npt.NDArray[np.int16]
    scores: npt.NDArray[np.int8]
    key: npt.NDArray[np.uint64]

    @classmethod
    def of(
        cls,
        obs: npt.NDArray[np.int8],
        ply: npt.NDArray[np.integer],
        scores: npt.NDArray[np.int8],
        key: npt.NDArray[np.uint64],
    ) -> Examples:
        """Examples from arrays of any integer type (copied to the stored types)."""
        return cls(
            np.asarray(obs, np.int8),
            np.asarray(ply, np.int16),
            np.asarray(scores, np.int8),
            np.asarray(key, np.uint64),
        )

    def __len__(self) -> int:
        return int(self.ply.shape[0])

    def take(self, index: npt.NDArray[np.integer]) -> Examples:
        """The examples at ``index``."""
        return Examples(self.obs[index], self.ply[index], self.scores[index], self.key[index])

    def mirrored(self) -> Examples:
        """The mirror images (columns reversed): the same labels, reversed."""
        return Examples(self.obs[:, :, ::-1], self.ply, self.scores[:, ::-1], self.key)


@dataclass(frozen=True)
class Targets:
    """What the network learns for each example: ``policy`` (N, W) over the best columns,
    ``outcome`` (N,) 0 loss / 1 draw / 2 win, ``score`` (N,) the exact score scaled to
    -1..1, ``legal`` (N, W) and ``best`` (N, W) masks, ``sign`` (N, W) each column's
    outcome (-1, 0, 1; -2 full)."""

    policy: npt.NDArray[np.float32]
    outcome: npt.NDArray[np.int64]
    score: npt.NDArray[np.float32]
    legal: npt.NDArray[np.bool_]
    best: npt.NDArray[np.bool_]
    sign: npt.NDArray[np.int8]


def targets(examples: Examples, width: int, height: int) -> Targets:
    """The training targets of exact labels (the module's docstring says how)."""
    scores = examples.scores.astype(np.int16)
    legal = scores != FULL
    value = scores.max(axis=1)
    best = legal & (scores == value[:, None])
    policy = best / best.sum(axis=1, keepdims=True)
    return Targets(
        policy=policy.astype(np.float32),
        outcome=(np.sign(value) + 1).astype(np.int64),
        score=(value / max_score(width, height)).astype(np.float32),
        legal=legal,
        best=best,
        sign=np.where(legal, np.sign(scores), -2).astype(np.int8),
    )


def choice_errors(
    logits: npt.NDArray[np.float32], t: Targets
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """For the network's best legal column of each example: whether it is one of the best
    (``right``) and whether it throws away the best outcome (``outcome_error``)."""
    masked = np.where(t.legal, logits, -np.inf)
    pick = masked.argmax(axis=1)
    rows = np.arange(len(pick))
    right = t.best[rows, pick]
    outcome_error = t.sign[rows, pick] < t.outcome - 1
    return right, outcome_error


class Batch(NamedTuple):
    """A batch on the training device: the encoded positions, the targets as tensors,
    and the :class:`Targets` themselves (for :func:`choice_errors`)."""

    x: Tensor
    policy: Tensor
    outcome: Tensor
    score: Tensor
    legal: Tensor
    targets: Targets


# ---------------------------------------------------------------- the torch network
def torch_network(width: int, height: int, channels: int, blocks: int) -> TorchNetwork:
    """The PyTorch module of :mod:`.model`'s network (batch normalisation not yet folded)."""
    require_torch()
    from connect4.net.torch_net import TorchNetwork

    return TorchNetwork(width, height, channels, blocks)


def save_network(network: Network, path: str | os.PathLike[str]) -> None:
    """Write a weights file atomically (what :func:`~connect4.net.model.load_network` reads)."""
    arrays = network.arrays()
    atomic_write(
        path, lambda file: np.savez_compressed(file, allow_pickle=False, **arrays), what="network"
    )


# ---------------------------------------------------------------- the run
@dataclass(frozen=True)
class TrainingSettings:
    """A run's settings: the network's shape, the optimisation, the schedule."""

    width: int = 7
    height: int = 6
    channels: int = 64
    blocks: int = 4
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
        module = torch_network(settings.width, settings.height, settings.channels, settings.blocks)
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
        x, policy, outcome, score, legal = (
            torch.from_numpy(a).to(self.device)
            for a in (encode(examples.obs, examples.ply), t.policy, t.outcome, t.score, t.legal)
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
            "format": 1,
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

        state = _read_checkpoint(path)
        try:
            settings = TrainingSettings(**state["settings"])
            settings.check()  # the file's own settings: a bad one is damage, not a flag
            _check_shapes(state["module"], settings)
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
            _check_optimizer(trainer.optimizer)
            trainer.step, trainer.examples = (
                _count(state[name], name) for name in ("step", "examples")
            )
            trainer.seconds = float(state["seconds"])
            if not (math.isfinite(trainer.seconds) and trainer.seconds >= 0):
                raise ValueError(f"seconds = {trainer.seconds}")
            trainer.history = [_point(p) for p in state["history"]]
            trainer.rng.bit_generator.state = json.loads(state["rng"])
            torch.set_rng_state(state["torch_rng"])
            recipe = json.loads(state["recipe"])
            if not isinstance(recipe, dict):
                raise ValueError("its recipe is not a mapping")
            trainer.recipe = recipe
        except (KeyError, TypeError, ValueError, AttributeError, RuntimeError) as error:
            raise TrainingError(f"{path} is a damaged checkpoint: {error}") from None
        return trainer


def _read_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The dict a checkpoint file holds (tensors, numbers, strings only: never code)."""
    require_torch()
    import torch

    try:
        with (
            open_input(path, what="checkpoint", max_bytes=MAX_CHECKPOINT_BYTES) as file,
            warnings.catch_warnings(),  # a foreign pickle's protocol: the error says enough
        ):
            warnings.simplefilter("ignore")
            state = torch.load(file, weights_only=True, map_location="cpu")
    except FileError as error:
        raise TrainingError(str(error)) from None
    except Exception as error:  # torch raises many kinds for a file that is not its own
        if isinstance(error, pickle.UnpicklingError) and "Unsupported global" in str(error):
            raise TrainingError(  # what weights_only is for: a pickle naming code to run
                f"cannot read {path} as a checkpoint: it holds objects other than tensors, "
                "numbers and strings (refused: reading them could run code)"
            ) from None
        raise TrainingError(
            f"cannot read {path} as a checkpoint: not a PyTorch checkpoint file, or one cut short"
        ) from None
    if not isinstance(state, dict) or state.get("format") != 1:
        raise TrainingError(f"{path} is not a training checkpoint of this version")
    return state


def _check_shapes(module_state: object, settings: TrainingSettings) -> None:
    """Raise ``ValueError`` unless ``module_state`` holds exactly the tensors, of the
    shapes, of the network ``settings`` describe (built without memory: on PyTorch's
    meta device)."""
    require_torch()
    import torch

    if not isinstance(module_state, dict):
        raise ValueError("its weights are not a mapping of tensors")
    with torch.device("meta"):
        expected = torch_network(
            settings.width, settings.height, settings.channels, settings.blocks
        )
    shapes = {name: tuple(t.shape) for name, t in expected.state_dict().items()}
    for name, shape in shapes.items():
        found = module_state.get(name)
        if not isinstance(found, torch.Tensor):
            raise ValueError(f"no tensor {name}")
        if tuple(found.shape) != shape:
            raise ValueError(f"{name} has shape {tuple(found.shape)}, not {shape}")
    extra = sorted(set(module_state) - set(shapes))
    if extra:
        raise ValueError(f"tensors no network of its settings has: {', '.join(map(str, extra))}")


def _check_optimizer(optimizer: torch.optim.Optimizer) -> None:
    """Raise ``ValueError`` when the loaded optimizer's moments do not fit the weights
    (PyTorch checks only their number; a wrong shape would fail at the first step)."""
    require_torch()
    import torch

    for group in optimizer.param_groups:
        for param in group["params"]:
            for name, value in optimizer.state.get(param, {}).items():
                if isinstance(value, torch.Tensor) and value.dim() and value.shape != param.shape:
                    raise ValueError(
                        f"the optimizer's {name} has shape {tuple(value.shape)}, "
                        f"not {tuple(param.shape)}"
                    )


def _count(value: Any, name: str) -> int:
    number = int(value)
    if number < 0:
        raise ValueError(f"{name} = {number}")
    return number


def _point(raw: dict[str, Any]) -> Point:
    held = raw.get("held_out")

    def figures(values: dict[str, Any]) -> Figures:
        return Figures(**{key: float(value) for key, value in values.items()})

    return Point(
        int(raw["step"]),
        float(raw["seconds"]),
        int(raw["examples"]),
        figures(raw["train"]),
        None if held is None else figures(held),
    )


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
