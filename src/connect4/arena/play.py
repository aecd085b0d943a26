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

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

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
from connect4.core.processes import make_executor, map_unordered
from connect4.players import Player, PlayerContext, make_player, rehearse
from connect4.players.match import GameRecord, play_match
from connect4.solver import fresh_worker


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
    The game is the one game loop's (:func:`connect4.players.match.play_match`),
    each move under the clock; a player that cannot be built forfeits (``crash``).
    """
    board = start_position(config, scheduled.opening)
    specs = (scheduled.red, scheduled.yellow)
    players: list[Player] = []
    try:
        for colour in (1, 2):
            try:
                context = PlayerContext(
                    config.board, derive_seed(scheduled.seed, colour), config.max_move_seconds
                )
                players.append(make_player(specs[colour - 1], context))
            except Exception as error:  # a player that cannot even be built
                record = GameRecord(opening=board.moves, forfeit=colour, reason="crash")
                record.detail = f"cannot start: {error}"
                record.finish(board)
                break
            rehearse(specs[colour - 1], board, context)
        else:
            record = play_match(board, players, config.time_per_move)
    finally:
        close_all(players)
    return with_verdicts(result_line(record, scheduled, config), config)


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
def game_pool(
    workers: int, scheduler: str | None
) -> contextlib.AbstractContextManager[Executor | None]:
    """Where games are played: in this process (``None``) for one local worker, else
    on the one pool factory's executor (:func:`connect4.core.processes.make_executor`:
    local workers end with the arena, even when it is killed, their bots with them;
    or a Dask cluster's). Made before the progress bar, so the workers start first."""
    if scheduler is None and workers <= 1:
        return contextlib.nullcontext()
    return make_executor(workers, scheduler, fresh_worker)


def play_pending(
    pending: list[ScheduledGame], config: ArenaConfig, pool: Executor | None
) -> Iterator[ResultLine]:
    """Play ``pending`` in-process (no pool) or on ``pool``; records as they finish."""
    play = functools.partial(play_scheduled, config=config)
    yield from map_unordered(play, pending, pool, lambda g: f"game {g.index}")


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
    KeyboardInterrupt stops the run at once (queued games cancelled, local
    workers terminated); the finished ones are already in the results file.
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
        with game_pool(workers if pending else 1, scheduler if pending else None) as pool:
            if progress is not None:
                progress(done, total)
            for record in play_pending(pending, config, pool):
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
