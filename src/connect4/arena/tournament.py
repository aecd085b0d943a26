"""Tournaments between players: schedule, games with forfeits, a resumable results store.

A tournament is a round robin (or a gauntlet: one player against the rest)
where each pair plays each of a set of openings with both colours, so
deterministic players do not replay one game. Every game gets a schedule
index and a seed derived from the tournament seed and that index, so the
results are the same whichever executor plays them (in-process, a local
process pool, or a Dask cluster). Finished games are appended, flushed and
fsynced to a JSONL file; ``resume`` replays nothing that finished.

>>> config = ArenaConfig(players=("random", "random:seed=7"), game="tictactoe",
...                      openings=("5",), games_per_pair=2, seed=1)
>>> [(g.index, g.red, g.yellow, g.opening) for g in make_schedule(config)]
[(0, 'random', 'random:seed=7', '5'), (1, 'random:seed=7', 'random', '5')]
>>> record = play_scheduled(make_schedule(config)[0], config)
>>> record["red"], record["opening"], record["moves"].startswith("5")
('random', '5', True)
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import importlib
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from connect4.arena.ratings import fit_ratings
from connect4.core.errors import IllegalMoveError, InvalidMoveError
from connect4.core.game import Game, Rules
from connect4.core.position import Position
from connect4.core.tictactoe import TicTacToe
from connect4.players import MoveChoice, Player, PlayerSpecError, make_player
from connect4.players.external import BotFault, ExternalPlayer

COLOURS = ("red", "yellow")
MAX_OPENING_PLIES = 6
Record = dict[str, Any]


class ArenaError(ValueError):
    """Bad tournament input: specs, openings, a results file that does not fit."""


# ------------------------------------------------------------------ configuration
@dataclass(frozen=True)
class ArenaConfig:
    """Everything that decides a tournament's games (and so its fingerprint).

    ``openings`` are move strings (``""`` = the empty board); ``accuracy_nodes``
    is the solver's node budget per position for the accuracy figures (0 = off).
    """

    players: tuple[str, ...]
    gauntlet: str | None = None
    games_per_pair: int = 2
    openings: tuple[str, ...] = ("",)
    time_per_move: float | None = None
    game: str = "connect4"
    width: int = 7
    height: int = 6
    rules: str = "standard"
    seed: int = 0
    accuracy_nodes: int = 0

    def fingerprint(self) -> str:
        """A short hash naming this tournament; stored with every result line."""
        text = json.dumps(asdict(self), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def names(self) -> list[str]:
        """Every participant, the gauntlet player first."""
        return ([self.gauntlet] if self.gauntlet else []) + list(self.players)


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: its index, who plays which colour, from which opening."""

    index: int
    red: str
    yellow: str
    opening: str
    seed: int


def derive_seed(seed: int, index: int) -> int:
    """A game's seed from the tournament seed and its schedule index (stable everywhere).

    >>> derive_seed(0, 5) == derive_seed(0, 5) != derive_seed(1, 5)
    True
    """
    digest = hashlib.sha256(f"connect4-arena:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def pairings(config: ArenaConfig) -> list[tuple[str, str]]:
    """The pairs that meet: every pair (round robin), or the gauntlet player against each."""
    if config.gauntlet:
        return [(config.gauntlet, other) for other in config.players]
    players = config.players
    return [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]


def make_schedule(config: ArenaConfig) -> list[ScheduledGame]:
    """Every game in order: round ``k`` of all pairs, then round ``k + 1``.

    Pair ``p`` plays its openings ``p*R, p*R + 1, ...`` of the list (``R`` =
    ``ceil(games_per_pair / 2)``, cycling), each twice in a row with colours
    swapped (rounds ``2m`` and ``2m + 1``): pairs meet on different positions,
    and a tournament cut short is still colour-balanced.
    """
    games: list[ScheduledGame] = []
    pairs = pairings(config)
    rounds = (config.games_per_pair + 1) // 2
    for k in range(config.games_per_pair):
        for p, (a, b) in enumerate(pairs):
            opening = config.openings[(p * rounds + k // 2) % len(config.openings)]
            red, yellow = (a, b) if k % 2 == 0 else (b, a)
            index = len(games)
            seed = derive_seed(config.seed, index)
            games.append(ScheduledGame(index, red, yellow, opening, seed))
    return games


def start_position(config: ArenaConfig, moves: str = "") -> Position | TicTacToe:
    """The board of ``config`` after ``moves``; raises InvalidMoveError/IllegalMoveError."""
    if config.game == "tictactoe":
        return TicTacToe.from_moves(moves)
    if config.game != "connect4":
        raise ArenaError(f"unknown game {config.game!r}: choose connect4 or tictactoe")
    rules: Rules = "count-fours" if config.rules == "count-fours" else "standard"
    if config.rules not in ("standard", "count-fours"):
        raise ArenaError(f"unknown rules {config.rules!r}: choose standard or count-fours")
    return Position.from_moves(moves, config.width, config.height, rules)


def all_openings(config: ArenaConfig, plies: int) -> list[str]:
    """Every distinct position after ``plies`` moves with the game still on, one move string each.

    >>> len(all_openings(ArenaConfig(players=()), 2))
    49
    """
    if not 0 <= plies <= MAX_OPENING_PLIES:
        raise ArenaError(f"openings plies={plies}: must be 0-{MAX_OPENING_PLIES}")
    found: dict[int, str] = {}

    def walk(game: Game, depth: int) -> None:
        if depth == 0:
            found.setdefault(game.key(), game.moves)
            return
        for move in sorted(game.legal_moves()):
            game.play(move)
            if not game.is_over():
                walk(game, depth - 1)
            game.undo()

    walk(start_position(config), plies)
    return sorted(found.values())


def load_openings(text: str, config: ArenaConfig) -> tuple[str, ...]:
    """Resolve ``--openings``: ``plies=K`` or a file of move strings (``-`` = empty board).

    ``plies=K`` lists every position after K plies, shuffled with the
    tournament seed so the first ones used are varied.
    """
    if text.startswith("plies="):
        value = text.removeprefix("plies=")
        if not value.isdigit():
            raise ArenaError(f"--openings {text}: plies must be a number 0-{MAX_OPENING_PLIES}")
        openings = all_openings(config, int(value))
        random.Random(config.seed).shuffle(openings)
        if not openings:
            raise ArenaError(f"--openings {text}: no position with the game still on")
        return tuple(openings)
    path = Path(text)
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise ArenaError(
            f"--openings {text}: cannot read ({error.strerror}); give a file or plies=K"
        ) from None
    openings_list: list[str] = []
    for number, line in enumerate(lines, start=1):
        moves = line.split("#", 1)[0].strip()
        if not moves:
            continue
        moves = "" if moves == "-" else moves
        try:
            position = start_position(config, moves)
        except (InvalidMoveError, IllegalMoveError) as error:
            raise ArenaError(f"{text} line {number}: {error}") from None
        if position.is_over():
            raise ArenaError(f"{text} line {number}: the game is already over after {moves}")
        openings_list.append(moves)
    if not openings_list:
        raise ArenaError(f"{text}: no openings in the file")
    return tuple(openings_list)


def check_specs(config: ArenaConfig) -> None:
    """Build (and close) every player once so a bad spec fails before any game."""
    names = config.names
    if config.gauntlet is None and len(names) < 2:
        raise ArenaError("a tournament needs at least two players (--players SPEC SPEC ...)")
    if config.gauntlet is not None and not names[1:]:
        raise ArenaError("--gauntlet needs opponents (--players SPEC ...)")
    twice = [name for i, name in enumerate(names) if name in names[:i]]
    if twice:
        raise ArenaError(
            f"player {twice[0]!r} appears twice; make the specs differ (e.g. random:seed=2)"
        )
    if config.games_per_pair < 1:
        raise ArenaError("--games-per-pair must be at least 1")
    if config.time_per_move is not None and config.time_per_move <= 0:
        raise ArenaError("--time-per-move must be positive")
    for spec in names:
        try:
            player = make_player(
                spec,
                game=config.game,
                width=config.width,
                height=config.height,
                rules=config.rules,
            )
        except (PlayerSpecError, ValueError) as error:
            raise ArenaError(str(error)) from None
        if player.is_human:
            player.close()
            raise ArenaError(f"{spec}: humans cannot play in the arena")
        player.close()


# ------------------------------------------------------------------ playing games
def end_reason(game: Game, config: ArenaConfig) -> str:
    """Why a finished game ended: ``connect four``, ``three in a row``, ``draw``, ``fours 5-3``."""
    if isinstance(game, Position) and game.rules == "count-fours":
        return f"fours {game.score_of(1)}-{game.score_of(2)}"
    if game.winner() is None:
        return "draw"
    return "three in a row" if config.game == "tictactoe" else "connect four"


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


def play_scheduled(scheduled: ScheduledGame, config: ArenaConfig) -> Record:
    """Play one scheduled game to its end or a forfeit; return its result record.

    Runs in a worker (process or Dask). The players are built here with seeds
    derived from the game's seed and closed (external bots killed) at the end.
    """
    board = start_position(config, scheduled.opening)
    specs = (scheduled.red, scheduled.yellow)
    players: list[Player | None] = [None, None]
    seconds: list[float] = []
    nodes: list[int | None] = []
    forfeit: int | None = None
    reason = ""
    detail = ""
    try:
        for colour in (1, 2):
            try:
                built = make_player(
                    specs[colour - 1],
                    game=config.game,
                    width=config.width,
                    height=config.height,
                    rules=config.rules,
                    seed=derive_seed(scheduled.seed, colour),
                )
            except Exception as error:  # a player that cannot even be built
                forfeit, reason, detail = colour, "crash", f"cannot start: {error}"
                break
            if isinstance(built, ExternalPlayer):
                built.time_limit = config.time_per_move
            players[colour - 1] = built
        while forfeit is None and not board.is_over():
            colour = board.to_move
            mover = players[colour - 1]
            assert mover is not None
            started = time.perf_counter()
            try:
                choice: MoveChoice = mover.choose(board.copy())
            except BotFault as fault:
                forfeit, reason, detail = colour, fault.reason, fault.detail
                break
            except KeyboardInterrupt:
                raise
            except Exception as error:  # a built-in player that failed
                forfeit, reason = colour, "crash"
                detail = f"{type(error).__name__}: {error}"
                break
            elapsed = time.perf_counter() - started
            if not isinstance(mover, ExternalPlayer):
                limit = config.time_per_move
                if limit is not None and elapsed > limit:
                    forfeit, reason = colour, "timeout"
                    detail = f"{elapsed:.3f} s for a {limit:g} s move"
                    break
            elif "seconds" in choice.stats:
                elapsed = float(choice.stats["seconds"])
            move = choice.move
            if not isinstance(move, int) or move not in board.legal_moves():
                label = move + 1 if isinstance(move, int) else move
                forfeit, reason = colour, f"illegal move {label}"
                break
            board.play(move)
            seconds.append(round(elapsed, 6))
            count = choice.stats.get("nodes")
            nodes.append(int(count) if isinstance(count, int | float) else None)
    finally:
        close_all(players)
    if forfeit is not None:
        winner: str | None = COLOURS[2 - forfeit]
    else:
        reason = end_reason(board, config)
        who = board.winner()
        winner = None if who is None else COLOURS[who - 1]
    record: Record = {
        "game": scheduled.index,
        "tournament": config.fingerprint(),
        "red": scheduled.red,
        "yellow": scheduled.yellow,
        "opening": scheduled.opening,
        "moves": board.moves,
        "winner": winner,
        "reason": reason,
        "forfeit": None if forfeit is None else COLOURS[forfeit - 1],
        "detail": detail,
        "move_seconds": seconds,
        "move_nodes": nodes,
        "seed": scheduled.seed,
    }
    if config.accuracy_nodes > 0:
        record["optimal"] = optimal_moves(config, board.moves, len(scheduled.opening))
    return record


# ------------------------------------------------------------------ accuracy
_TICTACTOE_VALUES: dict[int, int] = {}


def _tictactoe_value(game: TicTacToe) -> int:
    """Exact tic-tac-toe value for the side to move (+1 win, 0 draw, -1 loss), memoised."""
    key = game.key()
    if key in _TICTACTOE_VALUES:
        return _TICTACTOE_VALUES[key]
    if game.winner() is not None:
        value = -1  # the previous mover just won
    elif game.is_over():
        value = 0
    else:
        value = -2
        for move in game.legal_moves():
            game.play(move)
            value = max(value, -_tictactoe_value(game))
            game.undo()
    _TICTACTOE_VALUES[key] = value
    return value


def _tictactoe_scores(game: TicTacToe) -> list[int | None]:
    scores: list[int | None] = [None] * 9
    for move in game.legal_moves():
        game.play(move)
        scores[move] = -_tictactoe_value(game)
        game.undo()
    return scores


_SCORE_CACHE: dict[tuple[int, int, int, int], list[int | None] | None] = {}
ACCURACY_TABLE_MEGABYTES = 16  # cleared before each position: small keeps that cheap


def accuracy_solver(width: int, height: int) -> Any:
    """This process's solver for judging moves (with the default opening book if one ships).

    It clears its table before each position, so a judgement does not depend
    on which positions the worker saw before (the same on every executor).
    """
    from connect4.solver import thread_solver
    from connect4.solver.book import exact_default_book

    book = exact_default_book(width, height)  # None: fewer early positions judged
    return thread_solver(width, height, ACCURACY_TABLE_MEGABYTES, book)


def _connect4_scores(position: Position, budget: int) -> list[int | None] | None:
    """Per-column solver scores, or ``None`` when the solver is missing or out of budget."""
    cache_key = (position.width, position.height, position.key(), budget)
    if cache_key in _SCORE_CACHE:
        return _SCORE_CACHE[cache_key]
    try:
        solver = accuracy_solver(position.width, position.height)
    except ImportError:
        return None
    result = solver.run(position, analyze=True, max_nodes=budget)
    scores = list(result.column_scores) if result.complete and result.column_scores else None
    if len(_SCORE_CACHE) > 200_000:
        _SCORE_CACHE.clear()
    _SCORE_CACHE[cache_key] = scores
    return scores


def column_scores(game: Game, config: ArenaConfig) -> list[int | None] | None:
    """Exact scores of every move of ``game`` (``None`` where nobody can tell)."""
    if isinstance(game, TicTacToe):
        return _tictactoe_scores(game)
    if isinstance(game, Position) and game.rules == "standard":
        return _connect4_scores(game, config.accuracy_nodes)
    return None


def optimal_moves(config: ArenaConfig, moves: str, start: int) -> list[bool | None]:
    """For each move from ply ``start`` on: was it optimal? (``None``: not solved in budget).

    >>> config = ArenaConfig(players=(), game="tictactoe", accuracy_nodes=1)
    >>> optimal_moves(config, "5123", 0)  # 5 fine, 1 fine, 2 fine, 3 loses to 7
    [True, True, True, False]
    """
    board = start_position(config, moves[:start])
    flags: list[bool | None] = []
    for token in moves[start:]:
        move = board.parse_move(token)
        scores = column_scores(board, config)
        known = [s for s in (scores or []) if s is not None]
        if scores is None or not known or scores[move] is None:
            flags.append(None)
        else:
            flags.append(scores[move] == max(known))
        board.play(move)
    return flags


# ------------------------------------------------------------------ results store
class ResultsStore:
    """Finished games, one JSON object per line, appended with flush + fsync.

    ``open`` with ``resume=True`` reads what a previous run wrote: a torn last
    line (the run was killed mid-write) is cut off, and lines of another
    tournament are refused. Without ``resume`` an existing non-empty file is
    refused so results are never mixed by accident.
    """

    def __init__(self, path: Path | None, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.records: dict[int, Record] = {}
        self.repaired = 0  # bytes of a torn line cut off
        self.skipped = 0  # unreadable complete lines ignored

    def open(self, resume: bool) -> ResultsStore:
        """Load earlier results (``resume``) or check the file is new; returns self."""
        path = self.path
        if path is None:
            return self
        if path.exists() and path.stat().st_size > 0 and not resume:
            raise ArenaError(
                f"results file {path} already exists: pass --resume to continue that "
                "tournament, or choose another file"
            )
        if resume and path.exists():
            self._load(path)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
            with contextlib.suppress(OSError):  # make the new file's name durable too
                directory = os.open(path.parent, os.O_RDONLY)
                try:
                    os.fsync(directory)
                finally:
                    os.close(directory)
        return self

    def _load(self, path: Path) -> None:
        data = path.read_bytes()
        cut = data.rfind(b"\n") + 1
        tail = data[cut:]
        if tail.strip():
            try:
                json.loads(tail)
                with path.open("ab") as out:  # complete but unterminated: keep it
                    out.write(b"\n")
                cut = len(data) + 1
                data += b"\n"
            except ValueError:
                with path.open("r+b") as out:
                    out.truncate(cut)
                    out.flush()
                    os.fsync(out.fileno())
                self.repaired = len(tail)
        for number, raw in enumerate(data[:cut].splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
                index = int(record["game"])
            except (ValueError, KeyError, TypeError):
                self.skipped += 1
                continue
            if record.get("tournament") != self.fingerprint:
                raise ArenaError(
                    f"{path} line {number} belongs to another tournament (different players, "
                    "openings or options); rerun with the same options or use another file"
                )
            self.records.setdefault(index, record)

    def append(self, record: Record) -> None:
        """Keep a finished game; with a file, write it durably before returning."""
        self.records[int(record["game"])] = record
        if self.path is None:
            return
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with self.path.open("a", encoding="utf-8") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())


# ------------------------------------------------------------------ running
@dataclass
class TournamentRun:
    """What :func:`run_tournament` returns: the config, schedule and records by index."""

    config: ArenaConfig
    schedule: list[ScheduledGame]
    records: list[Record]
    resumed: int = 0
    repaired: int = 0
    skipped: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _executor(workers: int, scheduler: str | None) -> tuple[concurrent.futures.Executor, Any]:
    if scheduler is not None:
        try:
            distributed: Any = importlib.import_module("dask.distributed")
        except ImportError:
            raise ArenaError("--scheduler needs dask: pip install 'connect4[dask]'") from None
        try:
            client = distributed.Client(scheduler, timeout=10)
        except (OSError, TimeoutError, ValueError) as error:
            raise ArenaError(f"cannot reach the Dask scheduler {scheduler}: {error}") from None
        executor: concurrent.futures.Executor = client.get_executor()
        return executor, client
    method = "forkserver" if sys.platform == "linux" else None
    context = multiprocessing.get_context(method)
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=context), None


def _play_pending(
    pending: list[ScheduledGame], config: ArenaConfig, workers: int, scheduler: str | None
) -> Iterator[Record]:
    if scheduler is None and workers <= 1:
        for scheduled in pending:
            yield play_scheduled(scheduled, config)
        return
    executor, client = _executor(workers, scheduler)
    futures: dict[concurrent.futures.Future[Record], ScheduledGame] = {}
    try:
        futures = {executor.submit(play_scheduled, game, config): game for game in pending}
        for future in concurrent.futures.as_completed(futures):
            try:
                record = future.result()
            except Exception as error:  # a worker died (or a bug): stop, keep what finished
                raise ArenaError(
                    f"game {futures[future].index} failed in a worker "
                    f"({type(error).__name__}: {error}); finished games are saved, "
                    "rerun with --resume"
                ) from error
            yield record
    finally:
        for future in futures:
            future.cancel()
        if client is None:
            executor.shutdown(wait=False, cancel_futures=True)
        else:  # Dask's executor has no cancel_futures; closing the client drops the rest
            executor.shutdown(wait=False)
            client.close()


def run_tournament(
    config: ArenaConfig,
    results: Path | None = None,
    *,
    resume: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentRun:
    """Play every scheduled game not already in ``results``; return all records.

    ``progress(done, total)`` is called at the start and after each game. A
    KeyboardInterrupt stops the run after cancelling the queued games; the
    finished ones are already in the results file.
    """
    check_specs(config)
    if workers < 1:
        raise ArenaError("--workers must be at least 1")
    schedule = make_schedule(config)
    store = ResultsStore(results, config.fingerprint()).open(resume)
    done_before = sum(1 for game in schedule if game.index in store.records)
    pending = [game for game in schedule if game.index not in store.records]
    total = len(schedule)
    done = done_before
    if progress is not None:
        progress(done, total)
    for record in _play_pending(pending, config, workers, scheduler):
        store.append(record)
        done += 1
        if progress is not None:
            progress(done, total)
    records = [store.records[game.index] for game in schedule if game.index in store.records]
    return TournamentRun(
        config,
        schedule,
        records,
        resumed=done_before,
        repaired=store.repaired,
        skipped=store.skipped,
    )


# ------------------------------------------------------------------ report
def _points(record: Record, colour: str) -> float:
    if record["winner"] is None:
        return 0.5
    return 1.0 if record["winner"] == colour else 0.0


def player_moves(record: Record, colour: str) -> Iterable[int]:
    """Indexes into ``move_seconds``/``optimal`` of the moves ``colour`` made."""
    first = len(record["opening"]) % 2  # 0: red made the first recorded move
    parity = first if colour == "red" else 1 - first
    return range(parity, len(record["move_seconds"]), 2)


def summarize(config: ArenaConfig, records: list[Record]) -> dict[str, Any]:
    """Standings (points, ratings with 95 % intervals, accuracy, speed) and the crosstable."""
    names = config.names
    stats: dict[str, dict[str, Any]] = {
        name: {
            "player": name,
            "games": 0,
            "wins": 0,
            "draws": 0,
            "losses": 0,
            "points": 0.0,
            "forfeits": {},
            "moves": 0,
            "seconds": 0.0,
            "nodes": 0,
            "nodes_moves": 0,
            "analysed": 0,
            "optimal": 0,
        }
        for name in names
    }
    cross: dict[str, dict[str, list[float]]] = {a: {b: [0.0, 0] for b in names} for a in names}
    games: list[tuple[str, str, float]] = []
    for record in records:
        games.append((record["red"], record["yellow"], _points(record, "red")))
        for colour, other in (("red", "yellow"), ("yellow", "red")):
            name = record[colour]
            if name not in stats:
                continue
            entry = stats[name]
            points = _points(record, colour)
            entry["games"] += 1
            entry["points"] += points
            key = "wins" if points == 1 else "losses" if points == 0 else "draws"
            entry[key] += 1
            if record.get("forfeit") == colour:
                reason = str(record["reason"])
                entry["forfeits"][reason] = entry["forfeits"].get(reason, 0) + 1
            cross[name][record[other]][0] += points
            cross[name][record[other]][1] += 1
            optimal = record.get("optimal") or []
            for i in player_moves(record, colour):
                entry["moves"] += 1
                entry["seconds"] += record["move_seconds"][i]
                move_nodes = record.get("move_nodes") or []
                if i < len(move_nodes) and move_nodes[i] is not None:
                    entry["nodes"] += move_nodes[i]
                    entry["nodes_moves"] += 1
                if i < len(optimal) and optimal[i] is not None:
                    entry["analysed"] += 1
                    entry["optimal"] += bool(optimal[i])
    ratings = {r.name: r for r in fit_ratings(names, games)} if games else {}
    standings = []
    for name in names:
        entry = stats[name]
        rating = ratings.get(name)
        standings.append(
            {
                "player": name,
                "games": entry["games"],
                "wins": entry["wins"],
                "draws": entry["draws"],
                "losses": entry["losses"],
                "points": entry["points"],
                "score": entry["points"] / entry["games"] if entry["games"] else None,
                "elo": None if rating is None else round(rating.elo, 1),
                "elo_low": None if rating is None else round(rating.low, 1),
                "elo_high": None if rating is None else round(rating.high, 1),
                "accuracy": entry["optimal"] / entry["analysed"] if entry["analysed"] else None,
                "analysed_moves": entry["analysed"],
                "forfeits": entry["forfeits"],
                "seconds_per_move": entry["seconds"] / entry["moves"] if entry["moves"] else None,
                "nodes_per_move": (
                    entry["nodes"] / entry["nodes_moves"] if entry["nodes_moves"] else None
                ),
            }
        )
    standings.sort(key=lambda row: (-(row["elo"] or 0.0), -row["points"], row["player"]))
    return {
        "tournament": config.fingerprint(),
        "config": asdict(config),
        "games_played": len(records),
        "standings": standings,
        "crosstable": {
            a: {b: {"points": cell[0], "games": int(cell[1])} for b, cell in row.items() if cell[1]}
            for a, row in cross.items()
        },
    }


CSV_FIELDS = (
    "rank",
    "player",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
    "score",
    "elo",
    "elo_low",
    "elo_high",
    "accuracy",
    "analysed_moves",
    "forfeits",
    "seconds_per_move",
    "nodes_per_move",
)


def write_csv(summary: dict[str, Any], path: Path) -> None:
    """The standings as CSV, one row per player, best first."""
    import csv

    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(CSV_FIELDS)
        for rank, row in enumerate(summary["standings"], start=1):
            forfeits = ";".join(f"{k}={v}" for k, v in sorted(row["forfeits"].items()))
            values = {**row, "rank": rank, "forfeits": forfeits}
            writer.writerow(["" if values[key] is None else values[key] for key in CSV_FIELDS])


def _fmt(value: float | None, pattern: str) -> str:
    return "-" if value is None else format(value, pattern)


def render_summary(summary: dict[str, Any], max_crosstable: int = 16) -> list[Any]:
    """Rich tables: the standings, and the crosstable when there are few enough players."""
    from rich.table import Table

    standings = summary["standings"]
    table = Table(title=f"Standings ({summary['games_played']} games)")
    for column, justify in (
        ("#", "right"),
        ("player", "left"),
        ("games", "right"),
        ("W-D-L", "right"),
        ("points", "right"),
        ("score", "right"),
        ("Elo", "right"),
        ("95 % interval", "right"),
        ("accuracy", "right"),
        ("ms/move", "right"),
        ("nodes/move", "right"),
        ("forfeits", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for rank, row in enumerate(standings, start=1):
        interval = (
            "-" if row["elo_low"] is None else f"{row['elo_low']:+.0f} … {row['elo_high']:+.0f}"
        )
        accuracy = (
            "-"
            if row["accuracy"] is None
            else f"{100 * row['accuracy']:.1f} % ({row['analysed_moves']})"
        )
        forfeits = ", ".join(f"{k} ×{v}" for k, v in sorted(row["forfeits"].items()))
        per_move = row["seconds_per_move"]
        table.add_row(
            str(rank),
            row["player"],
            str(row["games"]),
            f"{row['wins']}-{row['draws']}-{row['losses']}",
            f"{row['points']:g}",
            _fmt(None if row["score"] is None else 100 * row["score"], ".1f") + " %",
            _fmt(row["elo"], "+.0f"),
            interval,
            accuracy,
            _fmt(None if per_move is None else 1000 * per_move, ".3g"),
            _fmt(row["nodes_per_move"], ",.0f"),
            forfeits or "-",
        )
    tables: list[Any] = [table]
    if len(standings) <= max_crosstable:
        order = [row["player"] for row in standings]
        cross = Table(title="Crosstable (row's points / games against column)")
        cross.add_column("#", justify="right")
        cross.add_column("player")
        for rank in range(1, len(order) + 1):
            cross.add_column(str(rank), justify="center")
        for rank, name in enumerate(order, start=1):
            cells = []
            for other in order:
                cell = summary["crosstable"].get(name, {}).get(other)
                cells.append("·" if cell is None else f"{cell['points']:g}/{cell['games']}")
            cross.add_row(str(rank), name, *cells)
        tables.append(cross)
    return tables


# ------------------------------------------------------------------ command line
@contextlib.contextmanager
def progress_bar(console: Any, label: str) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar (games done, rate, ETA); yields a ``progress(done, total)`` callback."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("-- games/s" if speed is None else f"{speed:.2f} games/s")

    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
    task_id = progress.add_task(label, total=None)
    started: list[int] = []

    def update(done: int, total: int) -> None:
        if not started:
            started.append(done)
            # Games loaded from a resumed file do not count towards the rate.
            progress.update(task_id, total=total - done, completed=0)
            progress.update(task_id, description=f"{label} ({done} resumed)" if done else label)
        else:
            progress.update(task_id, completed=done - started[0])

    with progress:
        yield update


def arena_main(
    *,
    players: list[str],
    gauntlet: str | None = None,
    games_per_pair: int = 2,
    openings: str = "plies=2",
    time_per_move: float | None = None,
    results: Path | None = None,
    resume: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
    seed: int = 0,
    json_output: bool = False,
    csv_path: Path | None = None,
    game: str = "connect4",
    width: int = 7,
    height: int = 6,
    rules: str = "standard",
    accuracy_nodes: int = 200_000,
) -> int:
    """``connect4 arena``: run (or resume) a tournament and print its tables; the exit code.

    Raises :class:`ArenaError` for bad input (the CLI prints it as ``error: ...``).
    """
    from rich.console import Console

    if resume and results is None:
        raise ArenaError("--resume needs --results FILE")
    base = ArenaConfig(
        players=tuple(players),
        gauntlet=gauntlet,
        games_per_pair=games_per_pair,
        time_per_move=time_per_move,
        game=game,
        width=width,
        height=height,
        rules=rules,
        seed=seed,
        accuracy_nodes=accuracy_nodes,
    )
    try:
        start_position(base)
    except ValueError as error:
        raise ArenaError(str(error)) from None
    config = ArenaConfig(**{**asdict(base), "openings": load_openings(openings, base)})
    err = Console(stderr=True, highlight=False)
    wide = None if sys.stdout.isatty() else 250  # piped: whole tables, no ellipses
    out = Console(highlight=False, width=wide)
    with contextlib.ExitStack() as stack:
        bar: list[Callable[[int, int], None]] = []

        def update(done: int, total: int) -> None:
            if not bar:  # the first call comes once the specs and the file are checked
                bar.append(stack.enter_context(progress_bar(err, "games")))
            bar[0](done, total)

        try:
            run = run_tournament(
                config,
                results,
                resume=resume,
                workers=workers,
                scheduler=scheduler,
                progress=update,
            )
        except KeyboardInterrupt:
            stack.close()
            where = f"; finished games are in {results}, continue with --resume" if results else ""
            err.print(f"interrupted{where}", soft_wrap=True)
            return 130
    if run.repaired:
        note = f"note: cut a torn last line ({run.repaired} bytes) from {results}"
        err.print(note, soft_wrap=True)
    if run.skipped:
        note = f"note: ignored {run.skipped} unreadable line(s) in {results}"
        err.print(note, soft_wrap=True)
    summary = summarize(config, run.records)
    if csv_path is not None:
        write_csv(summary, csv_path)
    if json_output:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        for table in render_summary(summary):
            out.print(table)
    return 0
