"""Labelled positions: random reachable positions with every column's exact score.

``connect4 dataset --positions 10000 --plies 0-30 --out data.npz`` draws
positions, has the solver score every column of each (on every core, or on a
Dask cluster), and writes arrays ready for training in the envs' tensor layout
(:mod:`connect4.envs.board`).

The package by concern: :mod:`~connect4.envs.dataset.config` (the settings and
:class:`DatasetError`), :mod:`~connect4.envs.dataset.sampling` (the draws),
:mod:`~connect4.envs.dataset.games` (positions from games a network plays, for the
middle plies), :mod:`~connect4.envs.dataset.arrays` (the labelled arrays and their file) and
:mod:`~connect4.envs.dataset.run` (:func:`make_dataset`).

**Sampling** (:func:`sample_positions`, seeded, the same on any number of
workers). Each draw picks a number of stones uniformly in the ply range, then
plays that many random moves from the empty board, each chosen uniformly among
the moves that do not end the game (a move that wins or fills the board is
never played; a playout left without such a move starts again). Positions in
which the game is over are therefore never drawn; positions whose side to move
can win at once are. A draw whose position, or its mirror image, is already
in the set is dropped (the set keeps the first one drawn), so plies with few
positions (ply 0 has one) end up rarer than the others.

**Games** (:func:`game_positions`, ``connect4 dataset --sampler games``): positions
the way games reach them, from games a network plays with some randomness, each
game's positions labelled together from its last back to its first with one
transposition table (the middle plies, 12-20 on 7x6, are where that pays).

**Labels** (:data:`FULL`, Pons' scores from the side to move's view):
``scores[i, c]`` is the exact score of playing column ``c`` (:data:`FULL` for
a full column, below every score so ``argmax`` never picks it), ``value[i]``
the position's score (the best column's), ``best[i]`` the columns reaching it.

**Arrays** in the ``.npz`` file (:class:`Dataset`; ``N`` positions, ``W x H``
board):

==============  ===================  ==========================================
array           shape, dtype         what
==============  ===================  ==========================================
``obs``         (N, H, W, 2) int8    :func:`~connect4.envs.board.planes` of the
                                     side to move (plane 0 its stones, row 0 the
                                     top): what the envs show the agent to move
``action_mask`` (N, W) int8          :func:`~connect4.envs.board.action_mask`
``scores``      (N, W) int8          every column's exact score, ``FULL`` = -128
``value``       (N,) int8            the position's exact score
``best``        (N, W) bool          the columns with the best score
``moves``       (N,) str             the move string (1-based columns)
``ply``         (N,) int16           stones on the board
``key``         (N,) uint64          canonical key (shared with the mirror image);
                                     ``(N, 2)``, low and high words, on a board
                                     over 64 bits
==============  ===================  ==========================================

On a board over 64 bits (8x8, 10x6, ...) the sampler keeps its bitboards as
Python ints (slower, but the solver's labels take far longer there), and only
late plies can be labelled in reasonable time (a 10x6 position with 14 empty
cells takes milliseconds, with 30 minutes or more).

plus 0-d metadata arrays ``width``, ``height``, ``rules``, ``seed``,
``plies`` (the range, shape (2,)), ``book``, ``full`` (the sentinel),
``format``, ``version`` (the package's), ``sampler`` (``random``, or how the games
were played; a file without it is of random playouts) and ``labels`` (``exact``, or
``targets``: a column that is not one of the best holds a stand-in below the best
score with its outcome's sign; a file without it is exact).

A run journals each finished chunk (``OUT.partial``); Ctrl-C or a kill loses
at most the chunks in flight and ``--resume`` continues (a journal of other
parameters is refused). The file is written once, complete, through a
temporary file renamed into place.

>>> from connect4.solver import Solver
>>> sample = sample_positions(3, (4, 6), 5, 4, seed=1)
>>> sample.moves
['54521', '53455', '131323']
>>> scores = [Solver(5, 4).analyze(p) for p in sample.positions()]
>>> scores
[[1, 1, 0, 1, 0], [0, 0, 1, 0, 0], [-7, -7, -2, -7, -7]]
>>> data = label(sample, [[FULL if s is None else s for s in row] for row in scores])
>>> data.obs.shape, data.value.tolist(), data.best[0].tolist()
((3, 4, 5, 2), [1, 1, -2], [True, True, False, True, False])

"""

from __future__ import annotations

from connect4.envs.dataset.arrays import ARRAYS, FORMAT, FULL, Dataset, label, load_dataset
from connect4.envs.dataset.config import (
    MAX_DATASET_BYTES,
    DatasetConfig,
    DatasetError,
    arrays_bytes,
    parse_plies,
)
from connect4.envs.dataset.games import GameSample, GameSampling, game_positions
from connect4.envs.dataset.run import DatasetReport, journal_for, make_dataset
from connect4.envs.dataset.sampling import Sample, sample_positions

__all__ = [
    "ARRAYS",
    "FORMAT",
    "FULL",
    "MAX_DATASET_BYTES",
    "Dataset",
    "DatasetConfig",
    "DatasetError",
    "DatasetReport",
    "GameSample",
    "GameSampling",
    "Sample",
    "arrays_bytes",
    "game_positions",
    "journal_for",
    "label",
    "load_dataset",
    "make_dataset",
    "parse_plies",
    "sample_positions",
]
