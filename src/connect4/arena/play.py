"""Playing the schedule: one game with forfeits, the executors, and the resumable run.

A game ends normally or by a forfeit (a crash, a timeout, an illegal move or
garbage from a bot: :mod:`connect4.players.match`'s one policy); either way it
yields a results-file line (:class:`~connect4.arena.record.ResultLine`). The games
run in-process, on a local process pool, or on a Dask cluster; each game
builds its players from seeds derived from its own seed, so the records are
the same whichever executor plays them. Finished games go to the results
store as they arrive, so a run that is killed loses only the games in flight.

>>> from connect4.arena.schedule import ArenaConfig, make_schedule
>>> from connect4.core import Board
>>> config = ArenaConfig(players=("random", "random:seed=7"), board=Board("tictactoe"),
...                      openings=("5",), games_per_pair=2, seed=1)
>>> record = play_scheduled(make_schedule(config)[0], config)
>>> record["red"], record["opening"], record["moves"].startswith("5")
('random', '5', True)
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import gc
import importlib
import multiprocessing.util
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TypeVar

from connect4.arena.accuracy import check_reviewable, with_verdicts
from connect4.arena.record import COLOURS, ResultLine, set_board
from connect4.arena.schedule import (
    ArenaConfig,
    ArenaError,
    ScheduledGame,
    check_specs,
    derive_seed,
    make_schedule,
    start_position,
)
from connect4.arena.store import ResultsStore
from connect4.core.limits import interrupt_held
from connect4.players import Player, PlayerContext, build_player, rehearse
from connect4.players.match import GameRecord, play_move

Task = TypeVar("Task")
Result = TypeVar("Result")


def close_all(players: Iterable[Player | None]) -> None:
    """Close every player (killing external bots), even if Ctrl-C hits one close."""
    interrupted: BaseException | None = None
    for player in players:
        if player is None:
            continue
        try:
            player.close()
        except KeyboardInterrupt as error:
            interrupted = error
        except Exception:  # a player that fails to close must not stop the others
            pass
    if interrupted is not None:
        raise interrupted


def play_scheduled(scheduled: ScheduledGame, config: ArenaConfig) -> ResultLine:
    """Play one scheduled game to its end or a forfeit; return its results-file line.

    Runs in a worker (process or Dask). The players are built here with seeds
    derived from the game's seed and closed (external bots killed) at the end;
    :func:`rehearse` warms each spec up first, so no set-up counts against a move.
    Each move is a move under the clock (:func:`connect4.players.match.play_move`).
    """
    board = start_position(config, scheduled.opening)
    specs = (scheduled.red, scheduled.yellow)
    players: list[Player | None] = [None, None]
    record = GameRecord(opening=board.moves)
    try:
        for colour in (1, 2):
            try:
                context = PlayerContext(
                    config.board, derive_seed(scheduled.seed, colour), config.max_move_seconds
                )
                players[colour - 1] = build_player(specs[colour - 1], context)
            except Exception as error:  # a player that cannot even be built
                record.forfeit, record.reason = colour, "crash"
                record.detail = f"cannot start: {error}"
                break
            rehearse(specs[colour - 1], board, context)
        while record.forfeit is None and not board.is_over():
            mover = players[board.to_move - 1]
            assert mover is not None
            record.add(play_move(mover, board, config.time_per_move), board)
    finally:
        close_all(players)
    return with_verdicts(result_line(record.finish(board), scheduled, config), config)


def result_line(record: GameRecord, scheduled: ScheduledGame, config: ArenaConfig) -> ResultLine:
    """A played game as the results file stores it (colours as names, nodes per move)."""
    nodes: list[int | None] = []
    for stats in record.move_stats:
        count = None if stats is None else stats.get("nodes", stats.get("playouts"))
        nodes.append(int(count) if isinstance(count, int | float) else None)
    line = ResultLine(
        game=scheduled.index,
        tournament=config.fingerprint(),
        red=scheduled.red,
        yellow=scheduled.yellow,
        opening=scheduled.opening,
        moves=record.moves,
        winner=None if record.winner is None else COLOURS[record.winner - 1],
        reason=record.reason,
        forfeit=None if record.forfeit is None else COLOURS[record.forfeit - 1],
        detail=record.detail,
        move_seconds=[round(seconds, 6) for seconds in record.move_seconds],
        move_nodes=nodes,
        seed=scheduled.seed,
    )
    return set_board(line, config.board)


# ------------------------------------------------------------------ executors
def exit_with_parent(
    lifeline: Connection, arena: int | None = None, tempdir: str | None = None
) -> None:
    """Worker initializer: end this worker the moment the arena process is gone.

    The arena holds the only writing end of ``lifeline``; when it closes (the
    run is over, or the arena died, even by SIGKILL) the read below ends and
    the worker exits, its bots with it (they get SIGKILL when their parent
    dies). With no worker left, the forkserver and the resource tracker see
    their pipes close and exit too. (A parent-death signal alone would not do:
    a forkserver's workers are the forkserver's children, and it outlives the
    arena while they live.) When the arena died (``arena``: its pid), the
    workers also remove what it would have removed on its way out
    (:func:`clean_after`).
    """

    def watch() -> None:
        with contextlib.suppress(EOFError, OSError):
            lifeline.recv_bytes()
        if arena is not None and not running(arena):
            clean_after(tempdir)
        os._exit(1)

    threading.Thread(target=watch, name="connect4-lifeline", daemon=True).start()


PF_EXITING = 0x4  # the kernel's flag for a process on its way out (/proc/PID/stat field 9)


def running(pid: int) -> bool:
    """Whether process ``pid`` is alive (a zombie is not, nor one already exiting: a
    killed process closes its pipes before it becomes a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        state, flags = fields[0], int(fields[6])
    except (OSError, IndexError, ValueError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return not Path("/proc").is_dir()
    return state not in ("Z", "X") and not flags & PF_EXITING


def clean_after(tempdir: str | None) -> None:
    """What a killed arena leaves: multiprocessing's temporary folder (the forkserver's
    socket) and the pool's named semaphores (unlinked once, by the worker that
    gets there first, and struck from the resource tracker's list)."""
    from multiprocessing import resource_tracker, synchronize

    sem_unlink: Callable[[str], None] = importlib.import_module("_multiprocessing").sem_unlink
    if tempdir:
        shutil.rmtree(tempdir, ignore_errors=True)
    for lock in [o for o in gc.get_objects() if isinstance(o, synchronize.SemLock)]:
        name = getattr(getattr(lock, "_semlock", None), "name", None)
        if not isinstance(name, str):
            continue
        try:
            sem_unlink(name)
        except OSError:
            continue  # another worker unlinked it
        resource_tracker.unregister(name, "semaphore")


def _executor(
    workers: int, scheduler: str | None
) -> tuple[concurrent.futures.Executor, Callable[[bool], None]]:
    """A process pool of ``workers``, or a Dask cluster's executor; and how to close it.

    ``close(finished)`` drops the queued games; unless ``finished`` (every game
    done), games still running are abandoned and local workers are terminated at
    once (their finished games are already stored).
    """
    if scheduler is not None:
        from connect4.solver.book.jobs import dask_executor

        dask, close_client = dask_executor(scheduler)

        def close_dask(finished: bool) -> None:
            # Dask's executor has no cancel_futures; closing the client drops the rest.
            dask.shutdown(wait=False)
            close_client()

        return dask, close_dask
    method = "forkserver" if sys.platform == "linux" else None
    context = multiprocessing.get_context(method)
    lifeline, keep_alive = context.Pipe(duplex=False)
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=exit_with_parent,
        initargs=(lifeline, os.getpid(), multiprocessing.util.get_temp_dir()),
    )

    def close_pool(finished: bool) -> None:
        try:
            if finished:
                pool.shutdown(wait=True, cancel_futures=True)
            else:  # Ctrl-C or a failure: the games under way are abandoned, not waited for
                from connect4.solver.book.jobs import stop_pool

                stop_pool(pool)
        finally:
            keep_alive.close()
            lifeline.close()

    return pool, close_pool


def map_unordered(
    function: Callable[[Task], Result],
    items: list[Task],
    workers: int,
    scheduler: str | None,
    name: Callable[[Task], str],
) -> Iterator[Result]:
    """``function`` over ``items`` in-process (one worker) or on an executor, results as
    they finish; a worker that dies stops the run with an :class:`ArenaError` naming
    the item (``name(item)``)."""
    if scheduler is None and workers <= 1:
        for item in items:
            yield function(item)
        return
    executor, close = _executor(workers, scheduler)
    futures: dict[concurrent.futures.Future[Result], Task] = {}
    try:
        with interrupt_held():  # the pool starts its workers here: never halfway
            futures = {executor.submit(function, item): item for item in items}
        for future in concurrent.futures.as_completed(futures):
            try:
                result = future.result()
            except Exception as error:  # a worker died (or a bug): stop, keep what finished
                raise ArenaError(
                    f"{name(futures[future])} failed in a worker "
                    f"({type(error).__name__}: {error}); finished work is saved, "
                    "resume the run to finish it"
                ) from error
            yield result
    finally:
        finished = all(future.done() for future in futures)
        for future in futures:
            if future.cancel():
                # Before Python 3.12 a pool broken by its workers' exit (they leave when
                # the arena stops) sets an exception on every pending future, cancelled
                # ones too, and its thread prints a traceback (InvalidStateError).
                setattr(future, "set_exception", _leave_cancelled)  # noqa: B010
        close(finished)


def _leave_cancelled(exception: BaseException | None) -> None:
    """A cancelled future's ``set_exception``: it stays cancelled."""


def play_pending(
    pending: list[ScheduledGame], config: ArenaConfig, workers: int, scheduler: str | None
) -> Iterator[ResultLine]:
    """Play ``pending`` in-process (one worker) or on an executor; records as they finish."""
    play = functools.partial(play_scheduled, config=config)
    yield from map_unordered(play, pending, workers, scheduler, lambda g: f"game {g.index}")


# ------------------------------------------------------------------ running
@dataclass(frozen=True)
class TournamentRun:
    """What :func:`run_tournament` returns: the config, schedule and records in schedule order.

    ``resumed`` games came from the journal or the results file; ``repaired`` bytes
    of a torn last line were cut from the file and ``skipped`` unreadable lines
    ignored; ``damaged`` journal records were dropped and their games played again.
    """

    config: ArenaConfig
    schedule: list[ScheduledGame]
    records: list[ResultLine]
    resumed: int = 0
    repaired: int = 0
    skipped: int = 0
    damaged: int = 0


def run_tournament(
    config: ArenaConfig,
    results: Path | None = None,
    *,
    resume: bool = False,
    force: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentRun:
    """Play every scheduled game not already in ``results``; return all records.

    An existing ``results`` file is continued with ``resume`` (once recognised as
    a results file), replaced with ``force``, else refused
    (:meth:`~connect4.arena.store.ResultsStore.open`).

    Resumed games that lack the review the config asks for (records written
    before it) are reviewed now and stored again. ``progress(done, total)``
    is called at the start and after each game. A
    KeyboardInterrupt stops the run after cancelling the queued games; the
    finished ones are already in the results file.
    """
    check_specs(config)
    check_reviewable(config)
    if workers < 1:
        raise ArenaError("must be at least 1", setting="workers")
    schedule = make_schedule(config)
    store = ResultsStore(results, config).open(resume, force)
    with store:  # the journal is closed on the way out, kept for a resume
        for stored in list(store.records.values()):
            if config.accuracy_nodes > 0 and "verdicts" not in stored:  # stored before a review
                store.append(with_verdicts(stored, config))
        done_before = sum(1 for game in schedule if game.index in store.records)
        pending = [game for game in schedule if game.index not in store.records]
        total = len(schedule)
        done = done_before
        if progress is not None:
            progress(done, total)
        for record in play_pending(pending, config, workers, scheduler):
            store.append(record)
            done += 1
            if progress is not None:
                progress(done, total)
        store.finish()  # every game is in the results file: the journal goes
    records = [store.records[game.index] for game in schedule if game.index in store.records]
    return TournamentRun(
        config,
        schedule,
        records,
        resumed=done_before,
        repaired=store.repaired,
        skipped=store.skipped,
        damaged=store.damaged,
    )
