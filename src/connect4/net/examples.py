"""Labelled positions and what the network learns from them (NumPy only).

**Targets** from exact labels (:func:`targets`): the policy target spreads
probability evenly over the columns with the best exact score; the outcome
target is the sign of the position's score (loss, draw, win for the side to
move); the score target is the exact score over the board's largest (so the
distance to the end counts: a quick win scores higher than a slow one).

>>> ex = Examples.of(
...     np.zeros((1, 6, 7, 2), np.int8), np.array([0]),
...     np.array([[-2, -1, 0, 1, 0, -1, -2]], np.int8), np.array([1], np.uint64))
>>> t = targets(ex, 7, 6)
>>> t.policy.tolist(), t.outcome.tolist(), round(float(t.score[0]), 3)
([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]], [2], 0.056)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FULL = -128  # a full column's score in the labels


def max_score(width: int, height: int) -> int:
    """The largest exact score of the board: a win with the first player's fourth stone.

    >>> max_score(7, 6)
    18
    """
    return (width * height - 5) // 2


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
