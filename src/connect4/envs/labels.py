"""Training examples from labelled datasets: merged, benchmark positions kept out, split.

``connect4 train`` reads one or more files of ``connect4 dataset`` (each a
range of plies; together a mix of them) through :func:`load_examples`:

- positions that turn up in several files are kept once (by canonical key:
  a position and its mirror image are one);
- positions of the files given as ``exclude`` (lines ``MOVES [SCORE]``, such
  as Pons' benchmark sets) are dropped by canonical key, so neither they nor
  their mirror images are ever trained on;
- of the positions where the side to move wins with its next stone (read from
  the labels: the best column scores the most a position of that ply can),
  only the share ``keep_wins_at_once`` is kept (chosen by a hash of the key, as
  the held-out share is, but independently of it): random playouts leave such a
  four open in half the positions they sample, and they teach only "complete
  the four", yet with none of them a network forgets to complete it;
- a fixed share of the positions, chosen by a hash of their key (the same
  position always lands on the same side, whatever the files and however
  often a run is resumed), is held out to measure the network on.

Mirror augmentation happens batch by batch while training
(:class:`connect4.net.train.Trainer`); :meth:`Examples.mirrored
<connect4.net.train.Examples.mirrored>` gives the mirrored labels.

>>> import tempfile, os
>>> from connect4.envs.dataset import label, sample_positions
>>> folder = tempfile.mkdtemp()
>>> label(sample_positions(3, (2, 2), 4, 4, seed=1), [(0, 0, 0, 0)] * 3).save(f"{folder}/d.npz")
>>> with open(f"{folder}/bench.txt", "w") as f:
...     _ = f.write("32 0\\n")  # the mirror image of the sample's '23'
>>> split = load_examples([f"{folder}/d.npz"], exclude=[f"{folder}/bench.txt"], held_out=0.0)
>>> len(split.train), split.excluded
(2, 1)
>>> won = label(sample_positions(2, (6, 6), 4, 4, seed=1), [(5, 0, 0, 0), (0, 0, 0, 0)])
>>> won.save(f"{folder}/w.npz")  # 5 on 4x4 at 6 stones: a win with the next stone
>>> load_examples([f"{folder}/w.npz"], held_out=0.0, keep_wins_at_once=0.0).wins_at_once
1
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from connect4.core.bits import canonical_keys
from connect4.core.errors import Connect4Error
from connect4.core.files import FileError, read_lines
from connect4.core.position import Position
from connect4.core.score import win_score
from connect4.envs.dataset import FULL, load_dataset
from connect4.net.train import Examples
from connect4.solver.bench import benchmark_file

MAX_LINE = 200  # a benchmark line: a move string of at most a board's cells, a score
MAX_EXCLUDE_BYTES = 64 << 20
HASH = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the key's bits spread over the word
WINS_SALT = np.uint64(0xD6E8FEB86659FD93)  # the wins-at-once share's hash: apart from held-out


class LabelsError(Connect4Error):
    """Datasets that cannot be merged into training examples."""


def excluded_keys(
    paths: Sequence[str | os.PathLike[str]], width: int = 7, height: int = 6
) -> npt.NDArray[np.uint64]:
    """The canonical keys (mirror images merged) of the positions listed in ``paths``:
    one move string per line, optionally followed by anything (Pons' sets add the
    score; a set's name, ``Test_L1_R3``, names the one shipped); blank lines are
    skipped. A line that is not a position is an error naming the file and the line."""
    keys: list[int] = []
    for path in (Path(benchmark_file(name)) for name in paths):
        try:
            for number, line in read_lines(
                path,
                what="excluded positions",
                max_bytes=MAX_EXCLUDE_BYTES,
                max_line_bytes=MAX_LINE,
            ):
                text = line.split()
                if not text:
                    continue
                try:
                    keys.append(Position.from_moves(text[0], width, height).key())
                except ValueError as error:
                    raise LabelsError(f"{path}, line {number}: {error}") from None
        except FileError as error:
            raise LabelsError(str(error)) from None
    return np.unique(canonical_keys(np.array(keys, dtype=np.uint64), width, height))


def held_out_mask(keys: npt.NDArray[np.uint64], share: float) -> npt.NDArray[np.bool_]:
    """Which positions are held out: a share of them chosen by a hash of their canonical key.

    >>> held_out_mask(np.arange(100_000, dtype=np.uint64), 0.1).mean()
    np.float64(0.1)
    """
    spread = (keys * HASH) >> np.uint64(40)  # the top 24 bits, uniform
    return spread < np.uint64(round(share * (1 << 24)))


@dataclass(frozen=True)
class Split:
    """Training and held-out examples, and what was dropped on the way."""

    train: Examples
    held_out: Examples
    width: int
    height: int
    files: int
    duplicates: int
    excluded: int
    wins_at_once: int = 0


def load_examples(
    paths: Sequence[str | os.PathLike[str]],
    *,
    exclude: Sequence[str | os.PathLike[str]] = (),
    held_out: float = 0.02,
    keep_wins_at_once: float = 1.0,
) -> Split:
    """Read dataset files into a :class:`Split` (the module's docstring says how):
    ``exclude`` names files of positions kept out (see :func:`excluded_keys`);
    ``keep_wins_at_once`` is the share of the positions won with the next stone
    kept (1: all, 0: none)."""
    if not paths:
        raise LabelsError("no dataset files: make some with `connect4 dataset`", setting="data")
    if not 0 <= held_out < 1:
        raise LabelsError(f"must be in [0, 1), not {held_out}", setting="held_out")
    if not 0 <= keep_wins_at_once <= 1:
        raise LabelsError(
            f"must be in [0, 1], not {keep_wins_at_once}", setting="keep_wins_at_once"
        )
    parts: list[Examples] = []
    size: tuple[int, int] | None = None
    for path in paths:
        data = load_dataset(path)  # DatasetError names the file and what is wrong
        if size is not None and (data.width, data.height) != size:
            raise LabelsError(
                f"{path} holds {data.width}x{data.height} positions, the other files "
                f"{size[0]}x{size[1]}",
                setting="data",
            )
        size = (data.width, data.height)
        if int(data.scores.min(initial=0)) < FULL:
            raise LabelsError(f"{path}: scores below the full-column mark", setting="data")
        parts.append(Examples.of(data.obs, data.ply, data.scores, data.key))
    assert size is not None
    merged = Examples.of(
        np.concatenate([p.obs for p in parts]),
        np.concatenate([p.ply for p in parts]),
        np.concatenate([p.scores for p in parts]),
        np.concatenate([p.key for p in parts]),
    )
    _, first = np.unique(merged.key, return_index=True)
    duplicates = len(merged) - first.size
    keep = np.zeros(len(merged), dtype=bool)
    keep[first] = True
    excluded = 0
    keys = excluded_keys(exclude, *size)
    if keys.size:
        hit = keep & np.isin(merged.key, keys)
        excluded = int(hit.sum())
        keep &= ~hit
    wins_at_once = 0
    if keep_wins_at_once < 1:
        best = merged.scores.astype(np.int64).max(axis=1)
        won = keep & (best == win_score(size[0] * size[1], merged.ply.astype(np.int64)))
        won &= ~held_out_mask(merged.key ^ WINS_SALT, keep_wins_at_once)
        wins_at_once = int(won.sum())
        keep &= ~won
    merged = merged.take(np.flatnonzero(keep))
    held = held_out_mask(merged.key, held_out)
    return Split(
        train=merged.take(np.flatnonzero(~held)),
        held_out=merged.take(np.flatnonzero(held)),
        width=size[0],
        height=size[1],
        files=len(paths),
        duplicates=duplicates,
        excluded=excluded,
        wins_at_once=wins_at_once,
    )
