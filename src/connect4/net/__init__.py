"""The learned player's network: a small residual CNN with a policy and a value head.

:mod:`.model` runs it with NumPy (no PyTorch needed to play); :mod:`.train`
trains it with PyTorch (the ``train`` extra), imported only when asked for;
:mod:`.search` is the PUCT search its priors and values guide.

>>> net = Network.random(7, 6, channels=8, blocks=1)
>>> net.parameters > 0
True
"""

from __future__ import annotations

from connect4.net.model import (
    Evaluation,
    Network,
    NetworkError,
    load_network,
    shipped_network,
    shipped_path,
)

__all__ = [
    "Evaluation",
    "Network",
    "NetworkError",
    "load_network",
    "shipped_network",
    "shipped_path",
]
