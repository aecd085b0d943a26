"""A labelled dataset's arrays (the package's docstring lists them), made from sampled
positions and their scores (:func:`label`), saved and read back (:func:`load_dataset`).

>>> from connect4.envs.dataset.sampling import sample_positions
>>> data = label(sample_positions(1, (2, 2), 4, 4), [(0, 1, FULL, 0)])
>>> data.value.tolist(), data.best.tolist()
([1], [[False, True, False, False]])
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from connect4.core.bits import bitboard_planes, canonical_key, canonical_keys, fits_word
from connect4.core.files import FileError, atomic_write, load_arrays
from connect4.core.position import Position
from connect4.core.version import __version__
from connect4.envs.board import bitboard_action_mask
from connect4.envs.dataset.config import LABELS, MAX_DATASET_BYTES, DatasetError
from connect4.envs.dataset.sampling import Sample
from connect4.solver.book.jobs import SCORE_NONE
from connect4.solver.book.keys import key_array

__all__ = ["ARRAYS", "FORMAT", "FULL", "LABELS", "Dataset", "dataset_keys", "label", "load_dataset"]

FULL = SCORE_NONE
"""The score a full column gets in ``scores`` (-128: below every score)."""

FORMAT = 1
"""The version of the arrays' layout, saved as ``format``."""

ARRAYS = ("obs", "action_mask", "scores", "value", "best", "moves", "ply", "key")

METADATA = ("width", "height", "rules", "seed", "plies", "book", "full", "format", "version")


@dataclass(frozen=True)
class Dataset:
    """Labelled positions as arrays (the module's docstring lists them) and their metadata."""

    width: int
    height: int
    rules: str
    seed: int
    plies: tuple[int, int]
    book: str
    obs: npt.NDArray[np.int8]
    action_mask: npt.NDArray[np.int8]
    scores: npt.NDArray[np.int8]
    value: npt.NDArray[np.int8]
    best: npt.NDArray[np.bool_]
    moves: npt.NDArray[np.str_]
    ply: npt.NDArray[np.int16]
    key: npt.NDArray[np.uint64]
    sampler: str = "random"
    """How the positions were drawn: ``random`` playouts, or the tag of
    :class:`~connect4.envs.dataset.games.GameSampling` (games a network played)."""
    labels: str = "exact"
    """What ``scores`` holds: ``exact``, every column's exact score; or ``targets``, the
    exact score of each best column and, for the others, a stand-in below it with the
    column's outcome's sign (:func:`~connect4.solver.book.jobs.target_chunk`): ``value``,
    ``best`` and each column's outcome are exact either way."""

    def __len__(self) -> int:
        return int(self.value.shape[0])

    def positions(self) -> list[Position]:
        """The positions, rebuilt from their move strings."""
        return [Position.from_moves(str(m), self.width, self.height) for m in self.moves]

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """Every array of the file, metadata included, by name."""
        return {
            "obs": self.obs,
            "action_mask": self.action_mask,
            "scores": self.scores,
            "value": self.value,
            "best": self.best,
            "moves": self.moves,
            "ply": self.ply,
            "key": self.key,
            "width": np.array(self.width),
            "height": np.array(self.height),
            "rules": np.array(self.rules),
            "seed": np.array(self.seed),
            "plies": np.array(self.plies),
            "book": np.array(self.book),
            "full": np.array(FULL, dtype=np.int8),
            "format": np.array(FORMAT),
            "version": np.array(__version__),
            "sampler": np.array(self.sampler),
            "labels": np.array(self.labels),
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the ``.npz`` file atomically: a temporary file, fsynced, renamed into place."""
        arrays = self.arrays()
        atomic_write(
            path,
            lambda file: np.savez_compressed(file, allow_pickle=False, **arrays),
            what="dataset",
        )


def label(
    sample: Sample,
    scores: Sequence[Sequence[int]],
    *,
    seed: int = 0,
    plies: tuple[int, int] | None = None,
    book: str = "none",
    sampler: str = "random",
    labels: str = "exact",
) -> Dataset:
    """The :class:`Dataset` of sampled positions given every column's score (:data:`FULL`: full).

    ``plies`` defaults to the range the positions span.
    """
    if not len(sample):
        raise DatasetError("no positions to label")
    width, height = sample.width, sample.height
    table = np.array(scores, dtype=np.int8).reshape(len(sample), width)
    value = table.max(axis=1)
    stones = np.array([len(m) for m in sample.moves], dtype=np.int16)
    return Dataset(
        width=width,
        height=height,
        rules="standard",
        seed=seed,
        plies=plies or (int(stones.min()), int(stones.max())),
        book=book,
        obs=bitboard_planes(sample.current, sample.mask, width, height),
        action_mask=bitboard_action_mask(sample.mask, width, height),
        scores=table,
        value=value,
        best=table == value[:, None],
        moves=np.array(sample.moves, dtype=np.str_),
        ply=stones,
        key=dataset_keys(sample, width, height),
        sampler=sampler,
        labels=labels,
    )


def dataset_keys(sample: Sample, width: int, height: int) -> npt.NDArray[np.uint64]:
    """The canonical keys of the ``key`` array: ``(N,)``, or ``(N, 2)`` words on a board
    over 64 bits (:func:`connect4.solver.book.keys.key_array`)."""
    if fits_word(width, height):
        return canonical_keys(sample.keys(), width, height)
    keys = (canonical_key(int(k), width, height) for k in sample.keys().tolist())
    return key_array(keys, width, height)


def load_dataset(path: str | os.PathLike[str]) -> Dataset:
    """Read a file :meth:`Dataset.save` wrote; :class:`DatasetError` names what is wrong.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from connect4.envs.dataset.sampling import sample_positions
    >>> out = Path(tempfile.mkdtemp()) / "d.npz"
    >>> label(sample_positions(1, (2, 2), 4, 4), [(0, 0, 0, 0)]).save(out)
    >>> load_dataset(out).moves.tolist()
    ['11']
    """
    try:
        found = load_arrays(path, what="dataset", contents="a dataset", max_bytes=MAX_DATASET_BYTES)
    except FileError as error:
        raise DatasetError(str(error)) from None
    missing = [name for name in (*ARRAYS, *METADATA) if name not in found]
    if missing:
        raise DatasetError(f"{path} is not a labelled dataset: no {', '.join(missing)}")
    if int(found["format"]) != FORMAT:
        raise DatasetError(
            f"{path} has dataset format {found['format']}; this reader knows {FORMAT}"
        )
    width, height = int(found["width"]), int(found["height"])
    if found["value"].ndim != 1:
        raise DatasetError(f"{path}: value has shape {found['value'].shape}, not (N,)")
    n = found["value"].shape[0]
    shapes = {
        "obs": (n, height, width, 2),
        "action_mask": (n, width),
        "scores": (n, width),
        "best": (n, width),
        "moves": (n,),
        "ply": (n,),
        "key": (n,) if fits_word(width, height) else (n, 2),
    }
    for name, shape in shapes.items():
        if found[name].shape != shape:
            raise DatasetError(f"{path}: {name} has shape {found[name].shape}, not {shape}")
    low, high = (int(v) for v in found["plies"])
    return Dataset(
        width=width,
        height=height,
        rules=str(found["rules"]),
        seed=int(found["seed"]),
        plies=(low, high),
        book=str(found["book"]),
        obs=found["obs"],
        action_mask=found["action_mask"],
        scores=found["scores"],
        value=found["value"],
        best=found["best"],
        moves=found["moves"],
        ply=found["ply"],
        key=found["key"],
        sampler=str(found["sampler"]) if "sampler" in found else "random",  # older files: random
        labels=_labels_kind(path, found),
    )


def _labels_kind(path: str | os.PathLike[str], found: dict[str, npt.NDArray[np.generic]]) -> str:
    """The file's ``labels`` (``exact`` for files from before the field)."""
    kind = str(found["labels"]) if "labels" in found else "exact"
    if kind not in LABELS:
        raise DatasetError(f"{path}: labels {kind!r}, not one of {', '.join(LABELS)}")
    return kind
