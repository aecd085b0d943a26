"""The policy/value network, evaluated with NumPy: no PyTorch needed to play.

A small residual convolutional network (the AlphaZero shape) reads a position
from the side to move's view and answers, for each position of a batch, a
**policy** (one logit per column) and a **value**: the probabilities of a
loss, a draw and a win for the side to move, and a **score**, the exact
score (Pons' convention) divided by the largest one of the board.

**Input** (:func:`encode`): ``(N, H, W, 4)`` float32 planes, row 0 the top
row: the side to move's stones, the opponent's, a plane of ones (the board's
edge, for the zero-padded convolutions) and a plane of ones when the side to
move is the first player (the parity of the threats that decide Connect Four).
A network of ``inputs="threats"`` reads two planes more (:func:`threat_planes`):
the empty cells where a stone of the side to move, and of the opponent, would
complete four in a row, playable now or not: the threats whose rows' parity
decides the game, which a few 3x3 layers would otherwise have to find.

**Layers**: a 3x3 convolution to ``channels`` planes, ``blocks`` residual
blocks (two 3x3 convolutions each), then two heads: the policy head (a 1x1
convolution to 2 planes, a linear layer to ``W`` logits) and the value head
(a 1x1 convolution to 2 planes, a hidden layer of 64, a linear layer to 3
outcome logits and a score). Batch normalisation is folded into the
convolutions' weights when a checkpoint is converted, so inference is
convolutions, additions and ReLUs only.

**Weights file** (``.npz``, written by :meth:`connect4.net.train.Trainer.network`):
the arrays named in :func:`weight_names` plus 0-d metadata ``format``,
``width``, ``height``, ``channels``, ``blocks``, ``inputs`` (format 2; a
format-1 file reads the stones), ``version`` and ``recipe`` (a JSON string: how
it was trained). :func:`load_network` checks them all.

>>> net = Network.random(7, 6, channels=8, blocks=1, seed=0)
>>> from connect4 import Position
>>> out = net.evaluate_positions([Position.from_moves("4453")])
>>> out.policy.shape, out.wdl.shape, bool(abs(out.wdl.sum() - 1) < 1e-5)
((1, 7), (1, 3), True)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import numpy.typing as npt

from connect4.core.bits import bitboard_planes, fits_word, layout_bits, threat_cells
from connect4.core.errors import Connect4Error
from connect4.core.files import FileError, load_arrays
from connect4.core.game import Game
from connect4.core.position import Position
from connect4.core.version import __version__

FORMAT = 2
"""The version of the weights file's layout (2 added ``inputs``; 1 is still read)."""

INPUTS = {"stones": 4, "threats": 6}
"""The kinds of input a network reads (see the module's docstring) and their planes."""
HIDDEN = 64  # the value head's hidden layer
HEAD_PLANES = 2  # planes of each head's 1x1 convolution
MAX_WEIGHTS_BYTES = 64 << 20  # the largest weights file read (the file and its arrays)
SHIPPED = "net_7x6.npz"
"""The network that ships in the package's data folder (7x6)."""

Floats = npt.NDArray[np.float32]


class NetworkError(Connect4Error):
    """A weights file that cannot be read, or a network that does not fit the board."""


def weight_names(blocks: int) -> list[str]:
    """The arrays of a network with ``blocks`` residual blocks, in order.

    >>> weight_names(1)[:4]
    ['stem.w', 'stem.b', 'block0.conv1.w', 'block0.conv1.b']
    """
    names = ["stem.w", "stem.b"]
    for i in range(blocks):
        for conv in ("conv1", "conv2"):
            names += [f"block{i}.{conv}.w", f"block{i}.{conv}.b"]
    for head in ("policy.conv", "policy.fc", "value.conv", "value.fc1", "value.fc2"):
        names += [f"{head}.w", f"{head}.b"]
    return names


def input_planes(inputs: str) -> int:
    """How many planes a network of ``inputs`` reads; :class:`NetworkError` for an unknown
    kind."""
    if inputs not in INPUTS:
        raise NetworkError(f"unknown inputs {inputs!r}: one of {', '.join(INPUTS)}")
    return INPUTS[inputs]


def weight_shapes(
    width: int, height: int, channels: int, blocks: int, inputs: str = "stones"
) -> dict[str, tuple[int, ...]]:
    """Every array's shape (convolutions ``(out, in, k, k)``, linear layers ``(out, in)``)."""
    cells = HEAD_PLANES * width * height
    shapes: dict[str, tuple[int, ...]] = {
        "stem.w": (channels, input_planes(inputs), 3, 3),
        "stem.b": (channels,),
    }
    for i in range(blocks):
        for conv in ("conv1", "conv2"):
            shapes[f"block{i}.{conv}.w"] = (channels, channels, 3, 3)
            shapes[f"block{i}.{conv}.b"] = (channels,)
    shapes |= {
        "policy.conv.w": (HEAD_PLANES, channels, 1, 1),
        "policy.conv.b": (HEAD_PLANES,),
        "policy.fc.w": (width, cells),
        "policy.fc.b": (width,),
        "value.conv.w": (HEAD_PLANES, channels, 1, 1),
        "value.conv.b": (HEAD_PLANES,),
        "value.fc1.w": (HIDDEN, cells),
        "value.fc1.b": (HIDDEN,),
        "value.fc2.w": (4, HIDDEN),
        "value.fc2.b": (4,),
    }
    return shapes


# ---------------------------------------------------------------- the input
def encode(
    obs: npt.NDArray[np.int8], ply: npt.NDArray[np.integer], inputs: str = "stones"
) -> Floats:
    """The network's ``(N, H, W, P)`` float32 input (``P`` the planes of ``inputs``) from
    the side to move's ``(N, H, W, 2)`` planes and each position's number of stones.

    >>> encode(np.zeros((1, 6, 7, 2), np.int8), np.array([0]))[0, 0, 0].tolist()
    [0.0, 0.0, 1.0, 1.0]
    """
    n, height, width, _ = obs.shape
    out = np.empty((n, height, width, input_planes(inputs)), dtype=np.float32)
    out[..., :2] = obs
    out[..., 2] = 1.0
    out[..., 3] = (np.asarray(ply) % 2 == 0).astype(np.float32)[:, None, None]
    if inputs == "threats":
        out[..., 4:] = threat_planes(obs)
    return out


def threat_planes(obs: npt.NDArray[np.int8]) -> npt.NDArray[np.bool_]:
    """``(N, H, W, 2)``: the empty cells where a stone of the side to move (plane 0), and of
    the opponent (plane 1), would complete four in a row (:func:`~connect4.core.bits.threat_cells`
    on each position's bitboards; boards that fit a 64-bit word).

    >>> obs = np.zeros((1, 6, 7, 2), np.int8)
    >>> obs[0, 5, 1:4, 0] = 1  # three on the bottom row: b, c, d
    >>> np.argwhere(threat_planes(obs)[0, ..., 0]).tolist()
    [[5, 0], [5, 4]]
    """
    n, height, width, _ = obs.shape
    if not fits_word(width, height):
        raise NetworkError(f"threat inputs need a board that fits 64 bits, not {width}x{height}")
    bits = np.uint64(1) << layout_bits(width, height).astype(np.uint64)
    own, other = (
        np.bitwise_or.reduce(np.where(obs[..., i] != 0, bits, np.uint64(0)).reshape(n, -1), axis=1)
        for i in (0, 1)
    )
    mask = own | other
    board = np.bitwise_or.reduce(bits.ravel())
    planes = [
        bitboard_planes(threat_cells(stones, mask, height, board), mask, width, height)[..., 0]
        for stones in (own, other)
    ]
    return np.stack(planes, axis=-1).astype(bool)


def game_planes(games: Sequence[Game]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """The ``(N, H, W, 2)`` planes and stone counts of Connect Four positions (all of one
    board size); ``ValueError`` for another game."""
    positions = [Position.of(game) for game in games]
    current = np.array([p.current for p in positions], dtype=np.uint64)
    mask = np.array([p.mask for p in positions], dtype=np.uint64)
    planes = bitboard_planes(current, mask, games[0].width, games[0].height)
    return planes, np.array([p.ply for p in positions], dtype=np.int64)


# ---------------------------------------------------------------- the layers
def _conv3x3(x: Floats, w: Floats, b: Floats) -> Floats:
    """A 3x3 convolution with zero padding, ``x`` in NHWC, ``w`` as ``(9 * in, out)``."""
    n, height, width, planes = x.shape
    padded = np.zeros((n, height + 2, width + 2, planes), dtype=x.dtype)
    padded[:, 1:-1, 1:-1] = x
    cols = np.concatenate(
        [padded[:, dy : dy + height, dx : dx + width] for dy in range(3) for dx in range(3)],
        axis=-1,
    )
    out: Floats = cols @ w + b
    return out


def _relu(x: Floats) -> Floats:
    return np.maximum(x, 0, out=x)


@dataclass(frozen=True)
class Evaluation:
    """What the network says of a batch: ``policy`` (N, W) probabilities over the legal
    columns, ``logits`` (N, W) the raw policy logits, ``wdl`` (N, 3) the probabilities of a
    loss, draw and win for the side to move, ``score`` (N,) the predicted exact score
    divided by the board's largest."""

    policy: Floats
    logits: Floats
    wdl: Floats
    score: Floats

    @property
    def value(self) -> Floats:
        """The expected outcome for the side to move, -1 (loss) to 1 (win)."""
        value: Floats = self.wdl[:, 2] - self.wdl[:, 0]
        return value


def softmax(logits: Floats, legal: npt.NDArray[np.bool_] | None = None) -> Floats:
    """Row-wise softmax, illegal entries (``legal`` False) at probability 0."""
    z = logits.astype(np.float64)
    if legal is not None:
        z = np.where(legal, z, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: Floats = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


@dataclass(frozen=True)
class Network:
    """A network's weights (BN folded) and shape; :meth:`evaluate` runs it on a batch."""

    width: int
    height: int
    channels: int
    blocks: int
    weights: Mapping[str, Floats]
    recipe: str = "{}"
    inputs: str = "stones"
    """What it reads: :data:`INPUTS`' kinds (the module's docstring says what each holds)."""
    mats: dict[str, Floats] = field(init=False, repr=False, compare=False)
    """The 3x3 convolutions as ``(9 * in, out)`` matrices, in :func:`_conv3x3`'s order."""

    def __post_init__(self) -> None:
        expected = weight_shapes(self.width, self.height, self.channels, self.blocks, self.inputs)
        if self.inputs == "threats" and not fits_word(self.width, self.height):
            raise NetworkError(
                f"threat inputs need a board that fits 64 bits, not {self.width}x{self.height}"
            )
        for name, shape in expected.items():
            found = self.weights.get(name)
            if found is None:
                raise NetworkError(f"the network has no array {name}")
            if found.shape != shape:
                raise NetworkError(f"array {name} has shape {found.shape}, not {shape}")
        mats = {
            name: np.ascontiguousarray(
                w.transpose(2, 3, 1, 0).reshape(-1, w.shape[0]), dtype=np.float32
            )
            for name, w in self.weights.items()
            if w.ndim == 4 and w.shape[2] == 3
        }
        object.__setattr__(self, "mats", mats)

    @property
    def parameters(self) -> int:
        """How many numbers the network holds."""
        return sum(int(w.size) for w in self.weights.values())

    @classmethod
    def random(
        cls,
        width: int = 7,
        height: int = 6,
        *,
        channels: int = 32,
        blocks: int = 2,
        seed: int = 0,
        inputs: str = "stones",
    ) -> Network:
        """A network of random weights (for tests and examples)."""
        rng = np.random.default_rng(seed)
        weights = {
            name: (rng.standard_normal(shape) * (0.5 / np.sqrt(np.prod(shape[1:]))))
            .astype(np.float32)
            .reshape(shape)
            for name, shape in weight_shapes(width, height, channels, blocks, inputs).items()
        }
        return cls(width, height, channels, blocks, weights, inputs=inputs)

    def encode(self, obs: npt.NDArray[np.int8], ply: npt.NDArray[np.integer]) -> Floats:
        """:func:`encode` for this network's inputs."""
        return encode(obs, ply, self.inputs)

    def forward(self, x: Floats) -> tuple[Floats, Floats]:
        """Raw outputs of ``(N, H, W, P)`` inputs (:meth:`encode`): policy logits ``(N, W)``
        and the value head's ``(N, 4)`` (three outcome logits, then the score before its
        tanh)."""
        w = self.weights
        mats = self.mats
        x = _relu(_conv3x3(x, mats["stem.w"], w["stem.b"]))
        for i in range(self.blocks):
            y = _relu(_conv3x3(x, mats[f"block{i}.conv1.w"], w[f"block{i}.conv1.b"]))
            y = _conv3x3(y, mats[f"block{i}.conv2.w"], w[f"block{i}.conv2.b"])
            x = _relu(y + x)
        n = x.shape[0]

        def head(name: str) -> Floats:  # 1x1 conv, ReLU, flattened in (plane, row, column) order
            conv = w[f"{name}.conv.w"][:, :, 0, 0]
            planes = _relu(x @ conv.T + w[f"{name}.conv.b"])
            flat: Floats = planes.transpose(0, 3, 1, 2).reshape(n, -1)
            return flat

        logits = head("policy") @ w["policy.fc.w"].T + w["policy.fc.b"]
        hidden = _relu(head("value") @ w["value.fc1.w"].T + w["value.fc1.b"])
        value = hidden @ w["value.fc2.w"].T + w["value.fc2.b"]
        return logits.astype(np.float32), value.astype(np.float32)

    def evaluate(self, x: Floats, legal: npt.NDArray[np.bool_]) -> Evaluation:
        """The network's :class:`Evaluation` of ``(N, H, W, P)`` inputs (:meth:`encode`);
        ``legal`` (N, W) says which columns can be played (the policy is spread over
        those)."""
        logits, value = self.forward(x)
        return Evaluation(
            policy=softmax(logits, legal),
            logits=logits,
            wdl=softmax(value[:, :3]),
            score=np.tanh(value[:, 3]).astype(np.float32),
        )

    def evaluate_positions(self, games: Sequence[Game]) -> Evaluation:
        """:meth:`evaluate` for positions of this network's board, none of them over."""
        for game in games:
            if (game.width, game.height) != (self.width, self.height):
                raise NetworkError(
                    f"this network plays {self.width}x{self.height}, not {game.width}x{game.height}"
                )
        planes, ply = game_planes(games)
        legal = planes.sum(axis=3)[:, 0, :] == 0  # the top cell of the column is empty
        return self.evaluate(self.encode(planes, ply), legal)

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """The weights file's arrays (weights and metadata), by name."""
        return {
            **{name: np.asarray(w, dtype=np.float32) for name, w in self.weights.items()},
            "format": np.array(FORMAT),
            "width": np.array(self.width),
            "height": np.array(self.height),
            "channels": np.array(self.channels),
            "blocks": np.array(self.blocks),
            "inputs": np.array(self.inputs),
            "version": np.array(__version__),
            "recipe": np.array(self.recipe),
        }


def _meta_int(found: Mapping[str, npt.NDArray[np.generic]], name: str, path: object) -> int:
    value = found[name]
    if value.shape != () or value.dtype.kind not in "iu":
        raise NetworkError(f"{path}: {name} is not an integer")
    number = int(value)
    if not 1 <= number <= 1024:
        raise NetworkError(f"{path}: {name} = {number} is out of range 1-1024")
    return number


def load_network(path: str | os.PathLike[str]) -> Network:
    """Read a weights file (``.npz``); :class:`NetworkError` says what is wrong with it.

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "w.npz"
    >>> np.savez(out, format=np.array(1))
    >>> load_network(out)
    Traceback (most recent call last):
    ...
    connect4.net.model.NetworkError: ... is not a network's weights file: no width, height, ...
    """
    try:
        found = load_arrays(
            path, what="network", contents="a network's weights", max_bytes=MAX_WEIGHTS_BYTES
        )
    except FileError as error:
        raise NetworkError(str(error)) from None
    meta = ("format", "width", "height", "channels", "blocks", "recipe")
    missing = [name for name in meta if name not in found]
    if missing:
        raise NetworkError(f"{path} is not a network's weights file: no {', '.join(missing)}")
    if found["format"].shape != () or int(found["format"]) not in (1, FORMAT):
        raise NetworkError(
            f"{path} has weights format {found['format']}; this reader knows 1-{FORMAT}"
        )
    inputs = str(found["inputs"]) if "inputs" in found else "stones"  # format 1: stones
    if inputs not in INPUTS:
        raise NetworkError(f"{path}: unknown inputs {inputs!r} (one of {', '.join(INPUTS)})")
    width, height, channels, blocks = (
        _meta_int(found, name, path) for name in ("width", "height", "channels", "blocks")
    )
    weights = {}
    for name in weight_names(blocks):
        if name not in found:
            raise NetworkError(f"{path} has no array {name}")
        array = found[name]
        if array.dtype.kind != "f":
            raise NetworkError(f"{path}: {name} is not floating point")
        if not np.isfinite(array).all():
            raise NetworkError(f"{path}: {name} holds NaN or infinite values")
        weights[name] = array.astype(np.float32)
    try:
        return Network(width, height, channels, blocks, weights, str(found["recipe"]), inputs)
    except NetworkError as error:
        raise NetworkError(f"{path}: {error}") from None


def shipped_path(width: int = 7, height: int = 6) -> Path | None:
    """The weights file that ships for the board, ``None`` when none does."""
    if (width, height) != (7, 6):
        return None
    path = Path(str(resources.files("connect4").joinpath("data", SHIPPED)))
    return path if path.is_file() else None


_SHIPPED: dict[tuple[int, int], Network] = {}


def shipped_network(width: int = 7, height: int = 6) -> Network:
    """The network that ships with the package for the board (loaded once)."""
    key = (width, height)
    if key not in _SHIPPED:
        path = shipped_path(width, height)
        if path is None:
            raise NetworkError(
                f"no network ships for {width}x{height} (one ships for 7x6): "
                "train one with `connect4 train` and play it with load=PATH"
            )
        _SHIPPED[key] = load_network(path)
    return _SHIPPED[key]


def recipe_of(network: Network) -> dict[str, object]:
    """The recipe saved with the network (how it was trained), as a dict."""
    try:
        found = json.loads(network.recipe)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
