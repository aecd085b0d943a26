"""A dataset run: sample, label on an executor with a journal a later run resumes, and
write the file once, complete (:func:`make_dataset`, ``connect4 dataset``).

>>> import tempfile
>>> from concurrent.futures import ThreadPoolExecutor
>>> out = Path(tempfile.mkdtemp()) / "d.npz"
>>> with ThreadPoolExecutor(1) as pool:
...     report = make_dataset(3, (2, 4), out, width=4, height=4, book="none",
...                           executor=pool, progress=False)
>>> report.labelled, len(report.dataset)
(3, 3)
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from connect4.core.bits import fits_word
from connect4.core.files import check_output
from connect4.core.journal import Journal, journal_path
from connect4.core.limits import Limit, clock
from connect4.core.processes import JobInterrupted, run_chunks
from connect4.core.progress import Advance, progress_bar
from connect4.envs.dataset.arrays import ARRAYS, METADATA, Dataset, label
from connect4.envs.dataset.config import DatasetConfig
from connect4.envs.dataset.games import GameSampling, game_positions
from connect4.envs.dataset.sampling import Sample, sample_positions
from connect4.net.model import Network
from connect4.solver import job_pool
from connect4.solver.book import Book
from connect4.solver.book.build import WideRecord, book_tag, spot_check
from connect4.solver.book.jobs import DEFAULT_CHUNK, analyze_chunk, target_chunk
from connect4.solver.book.reader import load_book

__all__ = ["DatasetReport", "is_dataset_file", "journal_for", "make_dataset"]

SAMPLER = 1  # the sampling procedure's version: a journal of another one is refused


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
    out: Path,
    n: int,
    plies: tuple[int, int],
    width: int,
    height: int,
    seed: int,
    tag: int,
    sampling: str = "random",
    labels: str = "exact",
) -> Journal:
    """The journal of a run (``OUT.partial``, not yet opened): the run's parameters (``tag``:
    :func:`~connect4.solver.book.build.book_tag` of its book, 0 for none; ``sampling``: how
    the positions were drawn, :meth:`GameSampling.tag` for games; ``labels``: their kind)
    are its identity,
    and each labelled position a record (:func:`journal_record`)."""
    book = f"{tag:016x}" if tag else "none"
    identity: dict[str, object] = {"sampler": SAMPLER, "width": width, "height": height,
                "positions": n, "plies": list(plies), "seed": seed, "book": book}  # fmt: skip
    if sampling != "random":  # a random run's journal reads as it always did
        identity["sampling"] = sampling
    if labels != "exact":  # (so does an exact one's)
        identity["labels"] = labels
    return Journal(journal_path(out), "dataset run", identity)


def _draw(
    n: int,
    span: tuple[int, int],
    config: tuple[int, int, int],
    games: tuple[GameSampling, Network] | None,
    progress: bool,
) -> tuple[Sample, list[int]]:
    """The run's positions, random playouts or games a network plays, and the number of
    each one's game (a random position is a game of its own)."""
    width, height, seed = config
    with progress_bar(progress, n, 0, "sampling") as advance:
        if games is None:
            return sample_positions(n, span, width, height, seed=seed, advance=advance), [*range(n)]
        sampling, network = games
        found = game_positions(
            n, span, width, height, seed=seed, sampling=sampling, network=network, advance=advance
        )
    return found.sample, [g for g, size in enumerate(found.games) for _ in range(size)]


def _tasks(
    todo: list[tuple[str, int]], chunk: int, width: int, height: int, spec: str | None
) -> list[tuple[int, int, list[str], str | None]]:
    """The positions to label (move strings, each with its game's number) cut into tasks of
    about ``chunk``: a game's positions stay in one task, in their order, so its solver's
    table serves them all."""
    tasks: list[tuple[int, int, list[str], str | None]] = []
    part: list[str] = []
    for i, (moves, game) in enumerate(todo):
        part.append(moves)
        if len(part) >= chunk and (i + 1 == len(todo) or todo[i + 1][1] != game):
            tasks.append((width, height, part, spec))
            part = []
    if part:
        tasks.append((width, height, part, spec))
    return tasks


def journal_record(width: int, height: int) -> struct.Struct:
    """How a labelled position is packed in the journal: its key, scores and nodes."""
    return struct.Struct(f"<Q{width}bI") if fits_word(width, height) else WideRecord(f"{width}bI")


def _labelling_book(
    book: str, width: int, height: int, shallowest: int, say: Callable[[str], None] | None
) -> tuple[Book | None, str | None]:
    """The book probed while labelling (``None`` for ``none`` or when none ships) and, for a
    book file, the summary of its spot check against the solver below ``shallowest`` stones."""
    if book == "none":
        return None, None
    loaded = load_book(book, width, height, exact=True, role="book", doing="labelled")
    if loaded is None or book == "default":
        return loaded, None
    summary = spot_check(loaded, book, deeper_than=shallowest, setting="book").summary()
    if say is not None:
        say(summary)
    return loaded, summary


def is_dataset_file(file: BinaryIO) -> str | None:
    """``None`` when a file is a dataset of ``connect4 dataset`` (a NumPy ``.npz`` archive
    of its arrays; only the archive's directory is read), else why not.

    >>> import io
    >>> is_dataset_file(io.BytesIO(b"notes"))
    'it is not a dataset file of connect4 dataset (not a .npz archive)'
    """
    import zipfile

    try:
        with zipfile.ZipFile(file) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return "it is not a dataset file of connect4 dataset (not a .npz archive)"
    if not names.issuperset(f"{name}.npy" for name in (*ARRAYS, *METADATA)):
        return "it is a .npz archive, but not a dataset file of connect4 dataset"
    return None


def _chunk_size(chunk: int | None, workers: int | None, todo: int) -> int:
    """``chunk`` positions a task, or by default at least four tasks per worker (so a
    slow one cannot hold up the end), at most :data:`DEFAULT_CHUNK`."""
    if chunk is not None:
        return chunk
    cores = workers or os.cpu_count() or 1
    return max(1, min(DEFAULT_CHUNK, todo // (4 * cores)))


@dataclass
class _Labels:
    """A run's labels: those journalled before it (:meth:`replay`) and those its chunks
    bring (:meth:`take`, which journals them), with the nodes they took."""

    journal: Journal
    record: struct.Struct
    stop_after: int | None  # chunks taken before stopping (for tests)
    known: dict[int, tuple[int, ...]] = field(default_factory=dict)
    nodes: int = 0
    labelled: int = 0
    chunks: int = 0

    def replay(self) -> None:
        """Put the journal's labels into :attr:`known`."""
        for data in self.journal.records():
            key, *scores, count = self.record.unpack(data)
            self.known[key] = tuple(scores)
            self.nodes += count

    def take(self, results: list[tuple[int, tuple[int, ...], int]], advance: Advance) -> bool:
        """Journal and keep a chunk's labels; False once ``stop_after`` chunks are in."""
        self.journal.append([self.record.pack(key, *scores, n) for key, scores, n in results])
        for key, scores, count in results:
            self.known[key] = scores
            self.nodes += count
        self.labelled += len(results)
        self.chunks += 1
        advance(len(results))
        return self.stop_after is None or self.chunks < self.stop_after


CHUNK_WORK = {"exact": analyze_chunk, "targets": target_chunk}
"""What a worker runs on a chunk of positions, for each kind of labels."""


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
    force: bool = False,
    chunk: int | None = None,
    progress: bool = True,
    stop_after: int | None = None,
    say: Callable[[str], None] | None = None,
    limit: Limit | None = None,
    sampling: GameSampling | None = None,
    labels: str = "exact",
) -> DatasetReport:
    """Sample ``n`` positions, label them on an executor and write the ``.npz`` file ``out``.

    ``book`` names a book probed inside the searches (``default``: the one
    that ships for the board, ``none``, or a file, spot-checked against the
    solver first; ``say`` is given the check's summary). Refused before any
    work: bad parameters, an existing ``out`` without ``force`` (replace it) or
    ``resume`` (then it must be a dataset file: :func:`is_dataset_file`), a book
    that does not fit, and in the journal's place (``OUT.partial``,
    :mod:`connect4.core.journal`) a journal of another run (with ``resume``),
    an unfinished one (without: ``force`` starts over) or a file that is not a
    journal (without ``force``). ``chunk`` positions go to a task (default: up to 64,
    at least four tasks per local worker).
    ``limit`` stops the run once it expires (its stop flag, set from any thread, or
    its deadline; looked at every few hundredths of a second while labelling): the
    labels finished are kept in the journal and
    :class:`~connect4.core.processes.JobInterrupted` raised, so a resumed run goes
    on from there. ``stop_after`` stops the same way after that many chunks: for tests.
    ``sampling`` draws the positions from games (:mod:`~connect4.envs.dataset.games`)
    instead of random playouts; each game's positions are labelled in one task.
    ``labels`` ``targets`` labels the best columns exactly and the others by their
    outcome (:func:`~connect4.solver.book.jobs.target_chunk`: two thirds of the nodes,
    every training target the same), ``exact`` (the default) every column exactly.
    """
    span = DatasetConfig(n, plies, width, height, rules, seed, chunk, workers, labels).span
    out_path = Path(out)
    check_output(out_path, what="dataset", force=force, resume=resume, ours=is_dataset_file)
    loaded, book_check = _labelling_book(book, width, height, span[0], say)
    spec = None if loaded is None else book
    players = None if sampling is None else (sampling, sampling.load(width, height))
    drawn = "random" if players is None else players[0].tag(players[1])
    tag = 0 if loaded is None else book_tag(loaded)
    journal = journal_for(out_path, n, span, width, height, seed, tag, drawn, labels)
    journal.open(resume=resume, force=force)
    done = _Labels(journal, journal_record(width, height), stop_after)
    try:
        done.replay()
        started = clock()
        sample, game = _draw(n, span, (width, height, seed), players, progress)
        keys = sample.keys().tolist()
        todo = [(moves, g) for moves, key, g in zip(sample.moves, keys, game, strict=True)
                if key not in done.known]  # fmt: skip
        resumed = n - len(todo)
        tasks = _tasks(todo, _chunk_size(chunk, workers, len(todo)), width, height, spec)
        with (
            job_pool(executor, workers, scheduler) as pool,
            progress_bar(progress, n, resumed, "labelling") as advance,
        ):
            complete = run_chunks(pool, CHUNK_WORK[labels], tasks,
                                  lambda results: done.take(results, advance), limit)  # fmt: skip
    except BaseException:
        if not done.known:  # nothing to resume: leave no journal behind
            journal.remove()
        raise
    finally:
        journal.close()
    if not complete:
        raise JobInterrupted(journal.path, done.labelled, "dataset")
    dataset = label(sample, [done.known[key] for key in keys], seed=seed, plies=span,
                    book=spec or "none", sampler=drawn, labels=labels)  # fmt: skip
    dataset.save(out_path)
    journal.remove()
    seconds = clock() - started
    return DatasetReport(
        dataset, done.labelled, resumed, done.nodes, seconds, book_check, journal.damaged
    )
