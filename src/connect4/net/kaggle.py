"""A network as a single-file Kaggle ConnectX agent: NumPy code and the weights inside.

:func:`agent_source` writes a Python file whose last function is
``agent(observation, configuration)``: it rebuilds the network from the
weights stored in the file (base64 of the ``.npz``), reads the board from
the side to move's view and plays the policy's best legal column: one
forward pass, about a millisecond, far inside ConnectX's two seconds a move.
It needs NumPy only (Kaggle's image has it) and plays the board size the
network was trained on.

>>> import tempfile, pathlib
>>> from connect4.net.model import Network
>>> path = pathlib.Path(tempfile.mkdtemp()) / "agent.py"
>>> write_agent(Network.random(7, 6, channels=8, blocks=1), path)
>>> namespace: dict[str, object] = {}
>>> exec(path.read_text(), namespace)
>>> class Obs: board, mark = [0] * 42, 1
>>> class Config: rows, columns, inarow = 6, 7, 4
>>> namespace["agent"](Obs(), Config()) in range(7)
True
"""

from __future__ import annotations

import base64
import io
import os

import numpy as np

from connect4.core.files import atomic_write
from connect4.net.model import Network

TEMPLATE = '''"""Connect Four policy network ({channels}x{blocks} residual CNN, {width}x{height})
as a Kaggle ConnectX agent: one forward pass per move, the policy's best legal column.
Written by the connect4 package (connect4.net.kaggle); needs NumPy only."""

import base64
import io

import numpy as np

WEIGHTS = "{weights}"
BLOCKS = {blocks}
INPUTS = "{inputs}"
_NET = {{}}


def _weights():
    if not _NET:
        with np.load(io.BytesIO(base64.b64decode(WEIGHTS)), allow_pickle=False) as data:
            for name in data.files:
                w = data[name]
                if w.ndim == 4 and w.shape[2] == 3:  # 3x3 convolution: (9 * in, out)
                    w = w.transpose(2, 3, 1, 0).reshape(-1, w.shape[0])
                _NET[name] = w.astype(np.float32)
    return _NET


def _conv3x3(x, w, b):
    n, h, wd, c = x.shape
    p = np.zeros((n, h + 2, wd + 2, c), dtype=x.dtype)
    p[:, 1:-1, 1:-1] = x
    cols = [p[:, i : i + h, j : j + wd] for i in range(3) for j in range(3)]
    return np.concatenate(cols, axis=-1) @ w + b


def _head(x, w, name):
    planes = np.maximum(x @ w[name + ".conv.w"][:, :, 0, 0].T + w[name + ".conv.b"], 0)
    return planes.transpose(0, 3, 1, 2).reshape(x.shape[0], -1)


def _policy(x):
    w = _weights()
    x = np.maximum(_conv3x3(x, w["stem.w"], w["stem.b"]), 0)
    for i in range(BLOCKS):
        y = np.maximum(_conv3x3(x, w[f"block{{i}}.conv1.w"], w[f"block{{i}}.conv1.b"]), 0)
        x = np.maximum(_conv3x3(y, w[f"block{{i}}.conv2.w"], w[f"block{{i}}.conv2.b"]) + x, 0)
    return (_head(x, w, "policy") @ w["policy.fc.w"].T + w["policy.fc.b"])[0]


def _threats(stones):
    """The cells that would complete four in a row with three of ``stones``."""
    h, wd = stones.shape
    p = np.zeros((h + 6, wd + 6), dtype=bool)
    p[3:-3, 3:-3] = stones
    found = np.zeros_like(stones)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for at in range(4):
            line = np.ones_like(stones)
            for k in range(4):
                if k != at:
                    r, c = 3 + (k - at) * dr, 3 + (k - at) * dc
                    line &= p[r : r + h, c : c + wd]
            found |= line
    return found


def agent(observation, configuration):
    rows, columns = configuration.rows, configuration.columns
    board = np.array(observation.board).reshape(rows, columns)
    me = observation.mark
    x = np.zeros((1, rows, columns, 6 if INPUTS == "threats" else 4), dtype=np.float32)
    x[0, :, :, 0] = board == me
    x[0, :, :, 1] = board == 3 - me
    x[0, :, :, 2] = 1.0
    x[0, :, :, 3] = float(np.count_nonzero(board) % 2 == 0)
    if INPUTS == "threats":
        x[0, :, :, 4] = _threats(board == me) & (board == 0)
        x[0, :, :, 5] = _threats(board == 3 - me) & (board == 0)
    logits = _policy(x)
    legal = [c for c in range(columns) if board[0, c] == 0]
    return int(max(legal, key=lambda c: (logits[c], -abs(2 * c - columns + 1))))
'''


def agent_source(network: Network) -> str:
    """The agent file's text for ``network`` (its weights inside, base64)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, allow_pickle=False, **network.weights)
    return TEMPLATE.format(
        channels=network.channels,
        blocks=network.blocks,
        inputs=network.inputs,
        width=network.width,
        height=network.height,
        weights=base64.b64encode(buffer.getvalue()).decode("ascii"),
    )


def write_agent(network: Network, path: str | os.PathLike[str]) -> None:
    """Write :func:`agent_source` to ``path`` atomically."""
    atomic_write(path, agent_source(network).encode("utf-8"), what="Kaggle agent")
