"""The network of :mod:`.model` as a PyTorch module, for training (the ``train`` extra).

Imported only once PyTorch is known to be there (:func:`connect4.net.train.require_torch`).
:meth:`TorchNetwork.to_network` folds each batch normalisation into the convolution
before it and returns the :class:`~connect4.net.model.Network` NumPy runs:

>>> import numpy as np, torch
>>> module = TorchNetwork(7, 6, channels=8, blocks=1).eval()
>>> network = module.to_network("doctest")
>>> x = np.zeros((1, 6, 7, 4), np.float32)
>>> logits, value = module(torch.from_numpy(x))
>>> bool(np.allclose(network.forward(x)[0], logits.detach().numpy(), atol=1e-4))
True
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn

from connect4.net.model import HEAD_PLANES, HIDDEN, Network, input_planes

__all__ = ["TorchNetwork"]

Weights = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]


class _Block(nn.Module):
    """A residual block: two 3x3 convolutions with batch normalisation."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: Tensor) -> Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class _Head(nn.Module):
    """A head's 1x1 convolution to a few planes, flattened."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, HEAD_PLANES, 1, bias=False)
        self.bn = nn.BatchNorm2d(HEAD_PLANES)

    def forward(self, x: Tensor) -> Tensor:
        return torch.relu(self.bn(self.conv(x))).flatten(1)


class TorchNetwork(nn.Module):
    """The policy/value network: a stem, residual blocks, a policy and a value head."""

    def __init__(
        self, width: int, height: int, channels: int, blocks: int, inputs: str = "stones"
    ) -> None:
        super().__init__()
        self.shape = (width, height, channels, blocks)
        self.inputs = inputs
        self.stem = nn.Conv2d(input_planes(inputs), channels, 3, padding=1, bias=False)
        self.stem_bn = nn.BatchNorm2d(channels)
        self.blocks = nn.ModuleList([_Block(channels) for _ in range(blocks)])
        self.policy_head = _Head(channels)
        self.policy_fc = nn.Linear(HEAD_PLANES * width * height, width)
        self.value_head = _Head(channels)
        self.value_fc1 = nn.Linear(HEAD_PLANES * width * height, HIDDEN)
        self.value_fc2 = nn.Linear(HIDDEN, 4)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """``(N, H, W, P)`` inputs (the NumPy layout) -> policy logits, value outputs."""
        x = torch.relu(self.stem_bn(self.stem(x.permute(0, 3, 1, 2))))
        for block in self.blocks:
            x = block(x)
        logits = self.policy_fc(self.policy_head(x))
        value = self.value_fc2(torch.relu(self.value_fc1(self.value_head(x))))
        return logits, value

    def to_network(self, recipe: str) -> Network:
        """The NumPy :class:`~connect4.net.model.Network` of these weights (BN folded)."""
        weights: dict[str, npt.NDArray[np.float32]] = {}
        weights["stem.w"], weights["stem.b"] = _fold(self.stem, self.stem_bn)
        for i, block in enumerate(self.blocks):
            assert isinstance(block, _Block)
            weights[f"block{i}.conv1.w"], weights[f"block{i}.conv1.b"] = _fold(
                block.conv1, block.bn1
            )
            weights[f"block{i}.conv2.w"], weights[f"block{i}.conv2.b"] = _fold(
                block.conv2, block.bn2
            )
        for name, head in (("policy", self.policy_head), ("value", self.value_head)):
            weights[f"{name}.conv.w"], weights[f"{name}.conv.b"] = _fold(head.conv, head.bn)
        for name, linear in (
            ("policy.fc", self.policy_fc),
            ("value.fc1", self.value_fc1),
            ("value.fc2", self.value_fc2),
        ):
            weights[f"{name}.w"] = _numpy(linear.weight).astype(np.float32)
            weights[f"{name}.b"] = _numpy(linear.bias).astype(np.float32)
        return Network(*self.shape, weights, recipe, self.inputs)


def _numpy(tensor: Tensor) -> npt.NDArray[np.float64]:
    array: npt.NDArray[np.float64] = tensor.detach().double().cpu().numpy()
    return array


def _fold(conv: nn.Conv2d, bn: nn.BatchNorm2d) -> Weights:
    """A convolution followed by (evaluation-mode) batch normalisation as one convolution."""
    assert bn.running_var is not None and bn.running_mean is not None
    scale = _numpy(bn.weight / (bn.running_var + bn.eps).sqrt())
    shift = _numpy(bn.bias) - _numpy(bn.running_mean) * scale
    return (_numpy(conv.weight) * scale[:, None, None, None]).astype(np.float32), shift.astype(
        np.float32
    )
