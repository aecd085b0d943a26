"""A puzzle-mining run: games in worker processes, a journal a later run resumes, the
puzzles file written once, complete (:func:`generate_puzzles`, ``connect4 puzzles generate``).

The run's games are the games files' games (:func:`~connect4.learn.collection.read_games`,
those of the run's board) followed by its self-play games; each game is a task, mined
(:func:`~connect4.learn.mining.mine_game`) in a worker, and its puzzles recorded in the
journal (``OUT.partial``, :mod:`connect4.core.journal`) as they come, so an interrupted
run loses only the games in flight. At the end the puzzles are written in the order of
the games, each position once.

>>> import tempfile
>>> from concurrent.futures import ThreadPoolExecutor
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "games.txt").write_text("4455661\\n")
>>> with ThreadPoolExecutor(1) as pool:
...     report = generate_puzzles(folder / "p.jsonl", files=[folder / "games.txt"],
...                               executor=pool, progress=False)
>>> report.games, report.puzzles
(1, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

from connect4.core.files import check_output
from connect4.core.games import Board
from connect4.core.journal import Journal, journal_path
from connect4.core.limits import Limit, clock
from connect4.core.processes import JobInterrupted, run_chunks
from connect4.core.progress import progress_bar
from connect4.learn.collection import CollectionError, read_games
from connect4.learn.mining import DEFAULT_LEVELS, MiningError, mine_game, self_play_game
from connect4.learn.puzzlefile import is_puzzle_file, write_puzzles
from connect4.learn.puzzles import Puzzle, PuzzleError
from connect4.solver import job_pool

__all__ = ["MAX_SELF_PLAY", "MINER", "GenerateReport", "generate_puzzles", "select_puzzles"]

MINER = 1  # the mining procedure's version: a journal of another one is refused
MAX_SELF_PLAY = 1_000_000  # self-play games of one run
Task = tuple[int, str | None, str]  # the game's number, its moves (None: self-play), source


@dataclass(frozen=True)
class GenerateReport:
    """What a run did: games in all, mined now and from the journal, puzzles written."""

    out: str
    games: int
    mined: int
    resumed: int
    puzzles: int
    seconds: float
    damaged: int = 0
    other_boards: int = 0  # games of the files on another board, passed over
    left_out: int = 0  # puzzles found but not written: deep ones, trivial ones over the share


def _file_tasks(files: Sequence[str | os.PathLike[str]], board: Board) -> tuple[list[Task], int]:
    """The games of ``files`` on ``board`` (move strings are of ``board``) as tasks, and how
    many games of other boards were passed over; a bad file is a :class:`PuzzleError`."""
    tasks: list[Task] = []
    other = 0
    try:
        for path in files:
            for game in read_games(path):
                if (game.board or board) != board:
                    other += 1
                    continue
                try:
                    board.new(game.moves)
                except ValueError as error:
                    raise PuzzleError(f"{game.where}: {error}") from None
                tasks.append((len(tasks), game.moves, game.where))
    except CollectionError as error:
        raise PuzzleError(str(error)) from None
    return tasks, other


def mine_chunk(
    width: int, height: int, tasks: list[Task], levels: list[str], seed: int
) -> list[bytes]:
    """A worker's task: each game mined (self-play games played first), as journal
    records (JSON: the game's number, its moves, the puzzles' dicts)."""
    board = Board("connect4", width, height)
    records = []
    for number, moves, source in tasks:
        if moves is None:
            moves, source = self_play_game(number, levels, seed, board)
        puzzles = [p.as_dict() for p in mine_game(moves, board, source)]
        records.append(json.dumps({"game": number, "moves": moves, "puzzles": puzzles}).encode())
    return records


def _identity(board: Board, tasks: list[Task], self_play: int, levels: Sequence[str], seed: int
              ) -> dict[str, object]:  # fmt: skip
    games = hashlib.sha256("\n".join(str(t[1]) for t in tasks).encode()).hexdigest()[:16]
    return {"miner": MINER, "width": board.width, "height": board.height, "games": games,
            "self_play": self_play, "levels": list(levels), "seed": seed}  # fmt: skip


def generate_puzzles(
    out: str | os.PathLike[str],
    *,
    files: Sequence[str | os.PathLike[str]] = (),
    self_play: int = 0,
    levels: Sequence[str] = DEFAULT_LEVELS,
    seed: int = 0,
    board: Board | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    executor: Executor | None = None,
    resume: bool = False,
    force: bool = False,
    chunk: int = 1,
    progress: bool = True,
    limit: Limit | None = None,
    stop_after: int | None = None,
    deep: bool = True,
    trivial_share: float = 1.0,
) -> GenerateReport:
    """Mine the games of ``files`` and ``self_play`` self-play games between ``levels`` for
    puzzles, in worker processes (``executor``, or a pool of ``workers``, or the Dask
    cluster at ``scheduler``), and write them to the JSONL file ``out``.

    Refused before any work: no games, a file that cannot be read (naming its line),
    a bad player spec, an existing ``out`` without ``force`` or ``resume`` (then it
    must be a puzzles file), a journal of another run (with ``resume``) or an
    unfinished one (without). ``limit`` stops the run (its stop flag, its deadline):
    the games finished are kept in the journal and
    :class:`~connect4.core.processes.JobInterrupted` raised; ``stop_after`` stops the
    same way after that many tasks (for tests). ``deep=False`` leaves out the puzzles
    tagged ``deep``, and ``trivial_share`` keeps the trivial ones to at most that share
    of what is written (see :func:`select_puzzles`).
    """
    board = board or Board()
    if board.kind != "connect4" or board.rules != "standard":
        raise PuzzleError("puzzles are mined from Connect Four games of the standard rules")
    if not 0.0 <= trivial_share <= 1.0:
        raise PuzzleError(f"the trivial share is a fraction from 0 to 1, not {trivial_share}")
    if not 0 <= self_play <= MAX_SELF_PLAY:
        raise PuzzleError(f"self-play games must be 0..{MAX_SELF_PLAY:,}, not {self_play}")
    _check_levels(levels)
    out_path = Path(out)
    check_output(out_path, what="puzzles file", force=force, resume=resume, ours=is_puzzle_file)
    tasks, other = _file_tasks(files, board)
    tasks += [(len(tasks) + i, None, "") for i in range(self_play)]
    if not tasks:
        raise PuzzleError("no games to mine: give games files, self-play games, or both")
    identity = _identity(board, tasks, self_play, levels, seed)
    journal = Journal(journal_path(out_path), "puzzle mining", identity)
    journal.open(resume=resume, force=force)
    found: dict[int, list[Puzzle]] = {}
    mined = 0
    started = clock()
    try:
        for data in journal.records():
            record = json.loads(data)
            found[record["game"]] = [Puzzle.from_dict(p) for p in record["puzzles"]]
        resumed = len(found)
        todo = [task for task in tasks if task[0] not in found]

        def finished(records: list[bytes]) -> bool:
            nonlocal mined
            journal.append(records)
            for data in records:
                record = json.loads(data)
                found[record["game"]] = [Puzzle.from_dict(p) for p in record["puzzles"]]
            mined += len(records)
            advance(len(records))
            return stop_after is None or mined < stop_after

        chunks = [(board.width, board.height, todo[i : i + chunk], list(levels), seed)
                  for i in range(0, len(todo), chunk)]  # fmt: skip
        with (
            job_pool(executor, workers, scheduler) as pool,
            progress_bar(progress, len(tasks), resumed, "mining", "games") as advance,
        ):
            complete = run_chunks(pool, mine_chunk, chunks, finished, limit)
    except BaseException:
        if not found:
            journal.remove()
        raise
    finally:
        journal.close()
    if not complete:
        raise JobInterrupted(journal.path, mined + resumed, "puzzle mining", "games")
    written, left_out = _write_found(out_path, found, deep, trivial_share)
    journal.remove()
    return GenerateReport(
        os.fspath(out_path), len(tasks), mined, resumed, written, clock() - started,
        journal.damaged, other, left_out,
    )  # fmt: skip


def _write_found(
    out: Path, found: dict[int, list[Puzzle]], deep: bool, trivial_share: float
) -> tuple[int, int]:
    """Write the puzzles in the order of their games, each position once, less those
    :func:`select_puzzles` leaves out; how many were written and left out."""
    puzzles: dict[str, Puzzle] = {}
    for number in sorted(found):
        for puzzle in found[number]:
            puzzles.setdefault(puzzle.id, puzzle)
    kept = select_puzzles(puzzles.values(), deep=deep, trivial_share=trivial_share)
    write_puzzles(out, kept)
    return len(kept), len(puzzles) - len(kept)


def select_puzzles(
    puzzles: Iterable[Puzzle], *, deep: bool = True, trivial_share: float = 1.0
) -> list[Puzzle]:
    """The puzzles, in their order, less the ``deep`` ones unless ``deep``, and less the
    trivial ones over ``trivial_share`` of the result: those kept are the ones whose ids
    hash lowest, so a run that finds a few other puzzles keeps nearly the same ones.

    >>> easy = [Puzzle(f"e{i}", Board(), "4", "4", "win", ("win-in-1",), 400, True)
    ...         for i in range(4)]
    >>> hard = Puzzle("h", Board(), "44", "3", "win", ("win-in-3",), 1000, False)
    >>> deep = Puzzle("d", Board(), "", "4", "win", ("win-in-9", "deep"), 2200, False)
    >>> [p.id for p in select_puzzles([*easy, hard, deep], trivial_share=0.5)]
    ['e0', 'e1', 'h', 'd']
    >>> [p.id for p in select_puzzles([*easy, hard, deep], deep=False, trivial_share=0.5)]
    ['e0', 'h']
    """
    chosen = [p for p in puzzles if deep or "deep" not in p.themes]
    trivial = [p for p in chosen if p.trivial]
    if trivial_share >= 1.0 or not trivial:
        return chosen
    room = int(trivial_share * (len(chosen) - len(trivial)) / (1.0 - trivial_share) + 1e-9)
    ranked = sorted(trivial, key=lambda p: hashlib.sha256(p.id.encode()).digest())
    keep = {p.id for p in ranked[:room]}
    return [p for p in chosen if not p.trivial or p.id in keep]


def _check_levels(levels: Sequence[str]) -> None:
    """Refuse, before any work, a self-play player spec the registry does not know."""
    from connect4.players.registry import PlayerSpecError, parse_spec

    if not levels:
        raise MiningError("self-play needs at least one player spec in its levels")
    for spec in levels:
        try:
            parse_spec(spec)
        except PlayerSpecError as error:
            raise MiningError(f"self-play level {spec!r}: {error}") from None
