"""A training checkpoint read without trusting it: nothing in the file is run
(PyTorch reads it with ``weights_only``), its weights' shapes are checked against
its settings before a network is built, and each count and curve point is checked
as it is read. Any file that is not an intact checkpoint of this version is a
:class:`~connect4.net.run.TrainingError` naming it.
"""

from __future__ import annotations

import os
import pickle
import warnings
from typing import TYPE_CHECKING, Any

from connect4.core.files import FileError, open_input
from connect4.net.run import (
    Figures,
    Point,
    TrainingError,
    TrainingSettings,
    require_torch,
    torch_network,
)

if TYPE_CHECKING:
    import torch

MAX_CHECKPOINT_BYTES = 1 << 30
FORMAT = 1  # the version of the checkpoint format this module reads and writes


def read_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
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
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise TrainingError(f"{path} is not a training checkpoint of this version")
    return state


def check_shapes(module_state: object, settings: TrainingSettings) -> None:
    """Raise ``ValueError`` unless ``module_state`` holds exactly the tensors, of the
    shapes, of the network ``settings`` describe (built without memory: on PyTorch's
    meta device)."""
    require_torch()
    import torch

    if not isinstance(module_state, dict):
        raise ValueError("its weights are not a mapping of tensors")
    with torch.device("meta"):
        expected = torch_network(settings)
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


def check_optimizer(optimizer: torch.optim.Optimizer) -> None:
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


def checked_count(value: Any, name: str) -> int:
    """A count a checkpoint holds (steps, examples): ``ValueError`` when negative."""
    number = int(value)
    if number < 0:
        raise ValueError(f"{name} = {number}")
    return number


def read_point(raw: dict[str, Any]) -> Point:
    """One point of the learning curve as a checkpoint holds it (numbers checked)."""
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
