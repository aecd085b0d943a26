"""Labelled positions: random reachable positions with every column's exact score.

``connect4 dataset --positions 10000 --plies 0-30 --out data.npz`` draws
positions, has the solver score every column of each (on every core, or on a
Dask cluster), and writes arrays ready for training in the envs' tensor layout
(:mod:`connect4.envs.board`).

**Sampling** (:func:`sample_positions`, seeded, the same on any number of
workers). Each draw picks a number of stones uniformly in the ply range, then
plays that many random moves from the empty board, each chosen uniformly among
the moves that do not end the game (a move that wins or fills the board is
never played; a playout left without such a move starts again). Positions in
which the game is over are therefore never drawn; positions whose side to move
can win at once are. A draw whose position, or its mirror image, is already
in the set is dropped (the set keeps the first one drawn), so plies with few
positions (ply 0 has one) end up rarer than the others.

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
``format`` and ``version`` (the package's).

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

import os
import struct
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import numpy.typing as npt

from connect4.classic.node import threat_cells
from connect4.core.bits import bitboard_planes, canonical_key, canonical_keys, fits_word
from connect4.core.errors import Connect4Error
from connect4.core.files import FileError, atomic_write, check_output, load_arrays
from connect4.core.position import (
    COLUMN_SYMBOLS,
    Position,
    board_mask,
    bottom_mask,
    check_board_size,
)
from connect4.core.version import __version__
from connect4.envs.board import bitboard_action_mask
from connect4.solver.book import Book
from connect4.solver.book.build import WideRecord, book_tag, spot_check
from connect4.solver.book.jobs import (
    DEFAULT_CHUNK,
    SCORE_NONE,
    JobInterrupted,
    RecordJournal,
    analyze_chunk,
    make_executor,
    progress_bar,
    run_chunks,
)
from connect4.solver.book.keys import key_array
from connect4.solver.book.reader import load_exact_book
from connect4.solver.checks import check_solver_board

__all__ = [
    "FORMAT",
    "FULL",
    "Dataset",
    "DatasetConfig",
    "DatasetError",
    "DatasetReport",
    "Sample",
    "journal_for",
    "label",
    "load_dataset",
    "make_dataset",
    "parse_plies",
    "sample_positions",
]

FULL = SCORE_NONE
"""The score a full column gets in ``scores`` (-128: below every score)."""

FORMAT = 1
"""The version of the arrays' layout, saved as ``format``."""

SAMPLER = 1  # the sampling procedure's version: a journal of another one is refused
JOURNAL_MAGIC = b"C4DSET\r\n"
_JOURNAL_HEADER = struct.Struct("<8sBBBBBBxxQQQ")  # magic, sampler, w, h, plies, pad; n, seed, tag
MAX_SEED = 2**63 - 1
MAX_DATASET_BYTES = 1 << 31  # the largest dataset read (the file, and its arrays inflated)
ARRAYS_SLACK = 1 << 16  # the metadata arrays and the .npy headers, beside the arrays
ARRAYS = ("obs", "action_mask", "scores", "value", "best", "moves", "ply", "key")
METADATA = ("width", "height", "rules", "seed", "plies", "book", "full", "format", "version")


class DatasetError(Connect4Error):
    """Parameters a dataset cannot be made with, or a file that is not a dataset."""


# ---------------------------------------------------------------- parameters
def parse_plies(text: str | None, width: int = 7, height: int = 6) -> tuple[int, int]:
    """The ply range ``"A-B"`` (or ``"A"``) as ``(A, B)``; ``None``: every ply of a game not over.

    >>> parse_plies("0-30"), parse_plies("12"), parse_plies(None, 4, 4)
    ((0, 30), (12, 12), (0, 15))
    >>> parse_plies("5-2")
    Traceback (most recent call last):
    ...
    connect4.envs.dataset.DatasetError: plies: the range 5-2 runs backwards (write 2-5)
    """
    check_board_size(width, height)  # the board first: its size bounds the plies
    last = width * height - 1  # the most stones a position that is not over can hold
    if text is None:
        return 0, last
    low, dash, high = text.strip().partition("-")
    if not dash:
        high = low
    if not (low.isascii() and low.isdigit() and high.isascii() and high.isdigit()):
        raise DatasetError(
            f"must be a range such as 0-30 (or one ply), not {text!r}", setting="plies"
        )
    first, second = int(low), int(high)
    if first > second:
        raise DatasetError(
            f"the range {text} runs backwards (write {second}-{first})", setting="plies"
        )
    if second > last:
        raise DatasetError(
            f"{text}: a {width}x{height} position that is not over holds at most {last} stones",
            setting="plies",
        )
    return first, second


def arrays_bytes(positions: int, width: int, height: int, most_stones: int) -> int:
    """The bytes a dataset's arrays take (the module's docstring lists them), for
    ``positions`` positions of a ``width x height`` board with up to ``most_stones``.

    >>> arrays_bytes(1, 7, 6, 41)  # 84 obs, 7+7+7 mask/scores/best, 164 moves, 1+2+8
    280
    """
    per_position = 2 * width * height + 3 * width + 4 * max(most_stones, 1) + 1 + 2 + 8
    return positions * per_position


@dataclass(frozen=True)
class DatasetConfig:
    """The settings of a dataset run, checked when made: ``positions`` positions with
    ``plies`` stones (``None``: every ply of a game not over), ``chunk`` per task
    (``None``: chosen by the run), ``workers`` local processes (``None``: all cores).

    A run whose arrays would not fit in a dataset file (:data:`MAX_DATASET_BYTES`,
    what :func:`load_dataset` reads) is refused; errors name the setting at fault.

    >>> DatasetConfig(100, width=4, height=4).plies
    (0, 15)
    >>> DatasetConfig(10**12)
    Traceback (most recent call last):
    ...
    connect4.envs.dataset.DatasetError: positions: 1,000,000,000,000 positions of a 7x6 \
board with up to 41 stones take 280,000,000,000,000 bytes of arrays, over the \
2,147,483,648 a dataset holds (at most 7,669,350 positions)
    """

    positions: int
    plies: tuple[int, int] | None = None
    width: int = 7
    height: int = 6
    rules: str = "standard"
    seed: int = 0
    chunk: int | None = None
    workers: int | None = None

    def __post_init__(self) -> None:
        width, height = self.width, self.height
        try:
            check_board_size(width, height)
            check_solver_board(width, height)
        except ValueError as error:
            raise DatasetError(str(error)) from None
        if self.rules != "standard":
            if self.rules != "count-fours":
                raise DatasetError(
                    f"unknown rules {self.rules!r}: choose standard or count-fours",
                    setting="rules",
                )
            raise DatasetError(
                "the solver handles the standard rules only: count-fours positions cannot be "
                "labelled",
                setting="rules",
            )
        if self.plies is None:
            object.__setattr__(self, "plies", parse_plies(None, width, height))
        low, high = self.span
        if not 0 <= low <= high <= width * height - 1:
            raise DatasetError(
                f"{low}-{high} is not a range of a {width}x{height} board", setting="plies"
            )
        if not 0 <= self.seed <= MAX_SEED:
            raise DatasetError(f"must be in 0..{MAX_SEED}, not {self.seed}", setting="seed")
        for setting in ("positions", "chunk", "workers"):
            value = getattr(self, setting)
            if value is not None and value < 1:
                raise DatasetError(f"must be at least 1, not {value}", setting=setting)
        need = arrays_bytes(self.positions, width, height, high) + ARRAYS_SLACK
        if need > MAX_DATASET_BYTES:
            most = (MAX_DATASET_BYTES - ARRAYS_SLACK) // arrays_bytes(1, width, height, high)
            raise DatasetError(
                f"{self.positions:,} positions of a {width}x{height} board with up to {high} "
                f"stones take {need - ARRAYS_SLACK:,} bytes of arrays, over the "
                f"{MAX_DATASET_BYTES:,} a dataset holds (at most {most:,} positions)",
                setting="positions",
            )

    @property
    def span(self) -> tuple[int, int]:
        """The ply range (``plies`` once made, never ``None``)."""
        assert self.plies is not None
        return self.plies


# ---------------------------------------------------------------- sampling
@dataclass(frozen=True)
class Sample:
    """Sampled positions in the order drawn: move strings and each position's two
    bitboard words (``current``: the side to move's stones, ``mask``: all stones;
    ``uint64``, or Python ints in object arrays on a board over 64 bits)."""

    width: int
    height: int
    moves: list[str]
    current: npt.NDArray[np.uint64]
    mask: npt.NDArray[np.uint64]

    def __len__(self) -> int:
        return len(self.moves)

    def keys(self) -> npt.NDArray[np.uint64]:
        """Each position's own key (``Position.key()``: ``current + mask``)."""
        return self.current + self.mask

    def positions(self) -> list[Position]:
        """The positions, replayed from their move strings."""
        return [Position.from_moves(m, self.width, self.height) for m in self.moves]


Words = npt.NDArray[np.uint64]
# the bitboard arithmetic is plain Python on ints that works element-wise on uint64 arrays
_threat_cells = cast("Callable[[Words, Words, int, int], Words]", threat_cells)


def _playouts(
    rng: np.random.Generator, stones: npt.NDArray[np.int64], width: int, height: int
) -> tuple[
    npt.NDArray[np.int8], npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.bool_]
]:
    """Random playouts of ``stones[i]`` moves each that do not end the game, side by side.

    Each move is drawn uniformly among the columns with room whose cell does
    not complete a four for the mover (:func:`~connect4.classic.node.threat_cells`).
    Returns the columns played (``(N, max stones)``), the two bitboard words
    and whether each playout got there (False: no such move was left).
    """
    n = stones.size
    h1 = height + 1
    bottom, board = bottom_mask(width, height), board_mask(width, height)
    if fits_word(width, height):
        column_bits: np.uint64 | int = np.uint64((1 << h1) - 1)
        shifts = np.arange(width, dtype=np.uint64) * np.uint64(h1)
        current = np.zeros(n, dtype=np.uint64)
    else:  # Python ints, element by element (the same arithmetic, any width)
        column_bits = (1 << h1) - 1
        shifts = np.array([c * h1 for c in range(width)], dtype=object)
        current = np.zeros(n, dtype=object)
    mask = current.copy()
    longest = int(stones.max(initial=0))
    columns = np.zeros((n, max(longest, 1)), dtype=np.int8)
    ok = np.ones(n, dtype=bool)
    for ply in range(longest):
        playable = (mask + bottom) & board
        allowed = playable & ~_threat_cells(current, mask, height, board)
        room = np.asarray(((allowed[:, None] >> shifts) & column_bits) != 0, dtype=bool)
        weights = rng.random((n, width))
        weights[~room] = -1.0
        choice = weights.argmax(axis=1)
        active = ok & (stones > ply)
        dead = active & ~room.any(axis=1)
        ok &= ~dead
        active &= ~dead
        cell = playable & (column_bits << shifts[choice])
        current = np.where(active, current ^ mask, current)
        mask = np.where(active, mask | cell, mask)
        columns[active, ply] = choice[active]
    return columns, current, mask, ok


def sample_positions(
    n: int,
    plies: tuple[int, int],
    width: int = 7,
    height: int = 6,
    *,
    seed: int = 0,
    advance: Callable[[int], None] | None = None,
) -> Sample:
    """``n`` distinct random positions (mirror images merged) with ``plies[0]..plies[1]`` stones.

    Deterministic for a seed (the module's docstring describes the draws; a
    playout that reaches a dead end is drawn again with the same number of
    stones). Raises :class:`DatasetError` when the range does not hold ``n``
    distinct positions: after ``10,000 + n`` draws in a row found nothing new.
    ``advance(k)`` is told of the positions found.

    >>> sample_positions(4, (0, 1), seed=3).moves  # '2' stands for its mirror image '6' too
    ['4', '', '2', '5']
    """
    DatasetConfig(n, plies, width, height, seed=seed)
    rng = np.random.default_rng(seed)
    low, high = plies
    seen: set[int] = set()
    moves: list[str] = []
    currents: list[int] = []
    masks: list[int] = []
    again: list[int] = []  # stones of the playouts that reached a dead end
    draws = misses = 0
    patience = 10_000 + n
    while len(moves) < n:
        size = min(max(n - len(moves) + (n - len(moves)) // 4, 256), 1 << 15)
        fresh = rng.integers(low, high + 1, size=max(size - len(again), 0))
        stones = np.concatenate([np.array(again, dtype=np.int64), fresh])
        again = []
        columns, current, mask, ok = _playouts(rng, stones, width, height)
        if fits_word(width, height):
            keys = canonical_keys(current + mask, width, height).tolist()
        else:
            keys = [canonical_key(int(k), width, height) for k in (current + mask).tolist()]
        found = len(moves)
        for i, key in enumerate(keys):
            draws += 1
            if not ok[i]:
                again.append(int(stones[i]))
                misses += 1
            elif key in seen:
                misses += 1
            else:
                misses = 0
                seen.add(key)
                moves.append("".join(COLUMN_SYMBOLS[c] for c in columns[i, : stones[i]].tolist()))
                currents.append(int(current[i]))
                masks.append(int(mask[i]))
                if len(moves) == n:
                    break
            if misses >= patience:
                raise DatasetError(
                    f"only {len(moves):,} distinct positions with {low}-{high} stones turned up "
                    f"in {draws:,} draws on a {width}x{height} board: ask for fewer, or widen "
                    "the ply range",
                    setting="positions",
                )
        if advance is not None:
            advance(len(moves) - found)
    words = np.uint64 if fits_word(width, height) else object
    return Sample(
        width, height, moves, np.array(currents, dtype=words), np.array(masks, dtype=words)
    )


# ---------------------------------------------------------------- the arrays
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
    )


# ---------------------------------------------------------------- the run
@dataclass(frozen=True)
class DatasetReport:
    """What a run did: the dataset, positions labelled now and from the journal, figures."""

    dataset: Dataset
    labelled: int
    resumed: int
    nodes: int
    seconds: float
    book_check: str | None = None
    damaged: int = 0  # damaged journal records dropped and labelled again


def journal_for(
    out: Path, n: int, plies: tuple[int, int], width: int, height: int, seed: int, tag: int
) -> RecordJournal:
    """The journal of a run: its parameters in the header, then ``(key, scores, nodes)`` records."""
    header = _JOURNAL_HEADER.pack(JOURNAL_MAGIC, SAMPLER, width, height, *plies, 0, n, seed, tag)
    record = struct.Struct(f"<Q{width}bI") if fits_word(width, height) else WideRecord(f"{width}bI")
    return RecordJournal(out.with_name(out.name + ".partial"), header, record)


def _labelling_book(
    book: str, width: int, height: int, shallowest: int, say: Callable[[str], None] | None
) -> tuple[Book | None, str | None]:
    """The book probed while labelling (``None`` for ``none`` or when none ships) and, for a
    book file, the summary of its spot check against the solver below ``shallowest`` stones."""
    if book == "none":
        return None, None
    loaded = load_exact_book(book, width, height, role="book", doing="labelled")
    if loaded is None or book == "default":
        return loaded, None
    summary = spot_check(loaded, book, deeper_than=shallowest, setting="book").summary()
    if say is not None:
        say(summary)
    return loaded, summary


def _check_journal(journal: RecordJournal, resume: bool) -> None:
    """Refuse a journal of another run (with ``resume``) or an unfinished one (without)."""
    if resume and journal.exists() and not journal.matches():
        raise DatasetError(
            f"{journal.path} belongs to another run (board, positions, plies, seed or book "
            "differ): delete it, or start a new run",
            setting="resume",
        )
    if not resume and journal.has_records():
        raise DatasetError(
            f"{journal.path} holds an unfinished run: resume it, or delete it", setting="resume"
        )


def make_dataset(
    n: int,
    plies: tuple[int, int] | None,
    out: str | os.PathLike[str],
    *,
    width: int = 7,
    height: int = 6,
    rules: str = "standard",
    seed: int = 0,
    book: str = "default",
    workers: int | None = None,
    scheduler: str | None = None,
    executor: Executor | None = None,
    resume: bool = False,
    chunk: int | None = None,
    progress: bool = True,
    stop_after: int | None = None,
    say: Callable[[str], None] | None = None,
) -> DatasetReport:
    """Sample ``n`` positions, label them on an executor and write the ``.npz`` file ``out``.

    ``book`` names a book probed inside the searches (``default``: the one
    that ships for the board, ``none``, or a file, spot-checked against the
    solver first; ``say`` is given the check's summary). Refused before any
    work: bad parameters, a book that does not fit, a journal of another run
    (with ``resume``) or an unfinished journal (without). ``chunk`` positions
    go to a task (default: up to 64, at least four tasks per local worker).
    ``stop_after`` stops
    (as an interruption would) after that many chunks: for tests.
    """
    span = DatasetConfig(n, plies, width, height, rules, seed, chunk, workers).span
    out_path = Path(out)
    try:
        check_output(out_path, what="dataset")
    except FileError as error:
        raise DatasetError(str(error)) from None
    loaded, book_check = _labelling_book(book, width, height, span[0], say)
    spec = None if loaded is None else book
    journal = journal_for(
        out_path, n, span, width, height, seed, 0 if loaded is None else book_tag(loaded)
    )
    _check_journal(journal, resume)
    started = time.perf_counter()
    with progress_bar(progress, n, 0, "sampling") as advance:
        sample = sample_positions(n, span, width, height, seed=seed, advance=advance)
    keys = sample.keys().tolist()
    fresh = not (resume and journal.exists())
    labels: dict[int, tuple[int, ...]] = {}
    nodes = damaged = 0
    if fresh:
        journal.start()
    else:
        for key, *scores, count in journal.read():
            labels[key] = tuple(scores)
            nodes += count
        damaged = journal.damaged
    todo = [moves for moves, key in zip(sample.moves, keys, strict=True) if key not in labels]
    resumed = n - len(todo)
    labelled = chunks = 0

    def finished(results: list[tuple[int, tuple[int, ...], int]]) -> bool:
        nonlocal labelled, chunks, nodes
        journal.append([(key, *scores, count) for key, scores, count in results])
        for key, scores, count in results:
            labels[key] = scores
            nodes += count
        labelled += len(results)
        chunks += 1
        advance(len(results))
        return stop_after is None or chunks < stop_after

    if chunk is None:  # at least four tasks per worker, so a slow one cannot hold up the end
        cores = workers or os.cpu_count() or 1
        chunk = max(1, min(DEFAULT_CHUNK, len(todo) // (4 * cores)))
    tasks = [(width, height, todo[i : i + chunk], spec) for i in range(0, len(todo), chunk)]
    try:
        with progress_bar(progress, n, resumed, "labelling") as advance:
            if executor is not None:
                complete = run_chunks(executor, analyze_chunk, tasks, finished)
            else:
                with make_executor(workers, scheduler) as pool:
                    complete = run_chunks(pool, analyze_chunk, tasks, finished)
    except BaseException:
        if fresh and not labels:  # nothing to resume: leave no journal behind
            journal.remove()
        raise
    if not complete:
        raise JobInterrupted(journal.path, labelled, "dataset")
    dataset = label(
        sample,
        [labels[key] for key in keys],
        seed=seed,
        plies=span,
        book=spec or "none",
    )
    dataset.save(out_path)
    journal.remove()
    seconds = time.perf_counter() - started
    return DatasetReport(dataset, labelled, resumed, nodes, seconds, book_check, damaged)
