"""Every player on one scale: how often it throws away the outcome (or the score) on
positions whose exact scores are known (``connect4 rate``).

For each player spec and each set of positions (:mod:`connect4.arena.ladder`), a
new player (seeded with the position's index, so the figures do not depend on the
order or the worker) picks a move in each position under the clock, if any
(:func:`~connect4.players.match.play_move`). The move is judged by the exact scores
of every column (:func:`~connect4.arena.ladder.judge`):

- an **outcome error** throws the outcome away (a win to a draw or a loss, a draw to
  a loss);
- a **score error** is any move below the best score (a slower win, a faster loss
  count too), so every outcome error is a score error.

A player that crashes, runs out of its clock or answers an illegal move on a
position has both errors there, and the failure is counted by its reason; the run
goes on. Each rate comes with its 95 % Wilson interval (:func:`wilson`), and the
mean seconds per move (the failures' included).

The work goes in chunks of positions to worker processes; each finished chunk is
kept in a journal under the cache root (one a run: the specs and what their moves
depend on, see :func:`fingerprint`, the sets' positions and the clock), so an
interrupted run continues with ``resume`` and the journal is removed once the run
is complete.

>>> wilson(0, 50)
(0.0, 0.0713)
>>> wilson(5, 10)
(0.2366, 0.7634)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from connect4.arena.ladder import Labels, LadderError, PositionSet, judge, level_target
from connect4.arena.play import game_pool
from connect4.core.cache import cache_root, make_private_dir
from connect4.core.files import StrPath
from connect4.core.journal import Journal
from connect4.core.position import Position
from connect4.core.processes import map_unordered

if TYPE_CHECKING:
    from connect4.players.match import Turn

__all__ = [
    "RateConfig",
    "Rating",
    "SetRating",
    "check_specs",
    "fingerprint",
    "judged_moves",
    "plot_ratings",
    "rate_journal",
    "rate_players",
    "table",
    "wilson",
]

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval
MAX_CHUNK = 16  # positions per task, at most
REASONS = ("illegal move", "bad output")  # a forfeit's reason without its detail (the move)


def wilson(errors: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate of ``errors`` in ``n``, rounded to 4 places
    (``(0, 1)`` for no positions)."""
    if n <= 0:
        return 0.0, 1.0
    p = errors / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


@dataclass(frozen=True)
class Verdict:
    """One move judged: its errors, the seconds it took, the failure's reason (if any)."""

    outcome_error: bool
    score_error: bool
    seconds: float
    failure: str | None = None


@dataclass(frozen=True)
class SetRating:
    """One player on one set: counts of errors and failures (by reason), total seconds."""

    spec: str
    set: str
    positions: int
    outcome_errors: int
    score_errors: int
    seconds: float
    failures: dict[str, int] = field(default_factory=dict)
    target: float | None = None  # a level's outcome-error target on a decisive set

    @property
    def verdict(self) -> str | None:
        """``meets`` when the target lies within the outcome error's 95 % interval, else
        ``weaker`` or ``stronger``; ``None`` without a target."""
        if self.target is None:
            return None
        low, high = wilson(self.outcome_errors, self.positions)
        return (
            "meets" if low <= self.target <= high else "weaker" if low > self.target else "stronger"
        )

    @property
    def outcome_error(self) -> float:
        return self.outcome_errors / self.positions if self.positions else 0.0

    @property
    def score_error(self) -> float:
        return self.score_errors / self.positions if self.positions else 0.0

    @property
    def seconds_per_move(self) -> float:
        return self.seconds / self.positions if self.positions else 0.0

    def as_json(self) -> dict[str, object]:
        """The figures as ``connect4 rate --json`` writes them (fractions, intervals)."""
        return {
            "spec": self.spec,
            "set": self.set,
            "positions": self.positions,
            "outcome_error": round(self.outcome_error, 4),
            "score_error": round(self.score_error, 4),
            "seconds_per_move": round(self.seconds_per_move, 6),
            "outcome_interval": list(wilson(self.outcome_errors, self.positions)),
            "score_interval": list(wilson(self.score_errors, self.positions)),
            "outcome_errors": self.outcome_errors,
            "score_errors": self.score_errors,
            "failures": dict(sorted(self.failures.items())),
        } | ({} if self.target is None else {"target": self.target, "verdict": self.verdict})


@dataclass(frozen=True)
class Rating:
    """One player over every set: the sets' figures summed (``sets``: each one's)."""

    spec: str
    sets: tuple[SetRating, ...]

    @property
    def total(self) -> SetRating:
        failures: Counter[str] = Counter()
        for one in self.sets:
            failures.update(one.failures)
        return SetRating(
            self.spec,
            "all",
            sum(s.positions for s in self.sets),
            sum(s.outcome_errors for s in self.sets),
            sum(s.score_errors for s in self.sets),
            sum(s.seconds for s in self.sets),
            dict(failures),
        )

    def as_json(self) -> dict[str, object]:
        """The Interface's object: ``spec``, ``positions``, ``outcome_error``, ``score_error``,
        ``seconds_per_move``, then the intervals, counts, failures and every set's figures
        (a level's ``target`` and ``verdict`` on a decisive set; on the whole too when
        that is its only set)."""
        data = (self.sets[0] if len(self.sets) == 1 else self.total).as_json()
        del data["set"]
        data["sets"] = [{k: v for k, v in s.as_json().items() if k != "spec"} for s in self.sets]
        return data


@dataclass(frozen=True)
class RateConfig:
    """What a rating run does: each spec on each labelled set, under ``clock`` seconds a
    move (``None``: the players' own limits), on ``workers`` processes."""

    specs: tuple[str, ...]
    sets: tuple[PositionSet, ...]
    clock: float | None = None
    workers: int = 1

    def identity(self) -> dict[str, object]:
        """What a resumed run must share with the interrupted one."""
        return {
            "specs": list(self.specs),
            "players": [fingerprint(spec) for spec in self.specs],
            "sets": [[s.name, s.digest(), len(s.moves)] for s in self.sets],
            "clock": self.clock,
        }


def fingerprint(spec: str) -> object:
    """What a spec's moves depend on: its options, defaults filled in, and its kind's
    fingerprint (the levels' presets, the network's digest). A run is resumed only
    under the same: after a level is retuned or a network replaced, the same spec
    text is another player.

    >>> fingerprint("random:seed=3")
    [{'seed': 3}, None]
    """
    from connect4.players import parse_spec

    parsed = parse_spec(spec)
    kind = parsed.kind
    shown = kind.fingerprint(parsed.options) if kind.fingerprint is not None else None
    return json.loads(json.dumps([parsed.options, shown], sort_keys=True, default=repr))


def check_specs(specs: Sequence[str]) -> None:
    """Every spec builds a player that is not a person (``ArenaError`` naming the spec);
    no spec at all is refused too."""
    from connect4.players import make_player
    from connect4.players.registry import PlayerSpecError

    if not specs:
        raise LadderError("name at least one player spec to rate")
    for spec in specs:
        try:
            player = make_player(spec)
        except (PlayerSpecError, ValueError) as error:
            raise LadderError(str(error)) from None
        try:
            if player.is_human:
                raise LadderError(f"{spec}: a person cannot be rated here")
        finally:
            player.close()


Task = tuple[str, str, int, tuple[str, ...], tuple[tuple[int | None, ...], ...], float | None]
"""A chunk of work: spec, set name, index of the first position, the positions, their
labels, the clock."""


def rate_chunk(task: Task) -> tuple[str, str, int, list[Verdict]]:
    """Let ``spec`` pick a move in each position of the chunk (runs in a worker): a new
    player a position, seeded with the position's index in its set."""
    spec, name, start, moves, labels, clock = task
    verdicts = [verdict for verdict, _ in judged_moves(spec, moves, labels, start, clock)]
    return spec, name, start, verdicts


def judged_moves(
    spec: str,
    moves: Sequence[str],
    labels: Sequence[Sequence[int | None]],
    start: int = 0,
    clock: float | None = None,
) -> Iterator[tuple[Verdict, Turn]]:
    """Let ``spec`` pick a move in each position (``moves``) under ``clock`` seconds
    (``None``: its own limits), judged by the exact scores of its columns (``labels``):
    a new player a position, seeded with ``start`` plus the position's index, so the
    figures depend neither on the order nor on the worker. A player that crashes, runs
    out of time or answers an illegal move has failed there (both errors, the reason
    kept) and the run goes on. Yields each verdict with its turn (the choice's
    statistics: nodes, playouts)."""
    from connect4.players import PlayerContext, make_player, rehearse
    from connect4.players.match import play_move

    rehearse(spec, Position(), PlayerContext())
    for offset, (m, scores) in enumerate(zip(moves, labels, strict=True)):
        position = Position.from_moves(m)
        player = make_player(spec, seed=start + offset)
        try:
            turn = play_move(player, position, clock)
        finally:
            player.close()
        if turn.choice is None:
            reason = turn.forfeit.reason if turn.forfeit is not None else "no move"
            failure = next((r for r in REASONS if reason.startswith(r)), reason)
            yield Verdict(True, True, turn.seconds, failure), turn
        else:
            outcome, score = judge(scores, turn.choice.move)
            yield Verdict(outcome, score, turn.seconds), turn


def rate_journal(config: RateConfig, folder: Path | None = None) -> Journal:
    """The journal of a run (under the cache root, named by the run's identity)."""
    identity = config.identity()
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    folder = folder or cache_root() / "ladder"
    make_private_dir(folder)
    return Journal(folder / f"rate-{digest}.partial", "rate", identity)


Done = dict[tuple[str, str], dict[int, Verdict]]
"""The moves judged so far: by spec and set, each position's verdict by its index."""


def _tasks(config: RateConfig, labels: Labels, done: Done) -> list[Task]:
    """The chunks left: runs of positions not judged yet, at most :data:`MAX_CHUNK` each
    (fewer, so every worker gets some work), whatever chunks the journal holds."""
    tasks: list[Task] = []
    for one in config.sets:
        scores = labels.of(one.moves)
        size = max(1, min(MAX_CHUNK, len(one.moves) // (4 * config.workers)))
        for spec in config.specs:
            judged = done.get((spec, one.name), {})
            todo = [i for i in range(len(one.moves)) if i not in judged]
            runs: list[list[int]] = []
            for i in todo:
                if runs and runs[-1][-1] == i - 1 and len(runs[-1]) < size:
                    runs[-1].append(i)
                else:
                    runs.append([i])
            for run in runs:
                chunk = slice(run[0], run[-1] + 1)
                tasks.append(
                    (spec, one.name, run[0], one.moves[chunk], tuple(scores[chunk]), config.clock)
                )
    return tasks


def _pack(spec: str, name: str, start: int, verdicts: list[Verdict]) -> bytes:
    rows = [[v.outcome_error, v.score_error, v.seconds, v.failure] for v in verdicts]
    return json.dumps({"spec": spec, "set": name, "start": start, "verdicts": rows}).encode()


def _unpack(data: bytes) -> tuple[tuple[str, str, int], list[Verdict]]:
    record = json.loads(data)
    verdicts = [Verdict(bool(o), bool(s), float(t), f) for o, s, t, f in record["verdicts"]]
    return (str(record["spec"]), str(record["set"]), int(record["start"])), verdicts


def rate_players(
    config: RateConfig,
    labels: Labels,
    *,
    resume: bool = False,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    journal: Journal | None = None,
) -> list[Rating]:
    """Rate every spec on every set (labelled in ``labels``); ``progress(done, total)``
    counts moves. The journal (:func:`rate_journal`) is continued with ``resume``,
    replaced with ``force``, refused when it holds another unfinished run's work; it
    is removed once every chunk is done. A Ctrl-C keeps the chunks finished."""
    journal = journal or rate_journal(config)
    done: Done = {}
    with journal.open(resume=resume, force=force):
        for data in journal.records():
            try:
                (spec, name, start), verdicts = _unpack(data)
            except (ValueError, TypeError, KeyError):
                continue  # not a chunk of this run: done again
            done.setdefault((spec, name), {}).update(enumerate(verdicts, start))
        tasks = _tasks(config, labels, done)
        total = len(config.specs) * sum(len(s.moves) for s in config.sets)
        finished = sum(len(v) for v in done.values())
        if progress is not None:
            progress(finished, total)
        with game_pool(config.workers if tasks else 1, None) as pool:
            for spec, name, start, verdicts in map_unordered(
                rate_chunk, tasks, pool, lambda t: f"{t[0]} on {t[1]} from position {t[2] + 1}"
            ):
                journal.append([_pack(spec, name, start, verdicts)])
                done.setdefault((spec, name), {}).update(enumerate(verdicts, start))
                finished += len(verdicts)
                if progress is not None:
                    progress(finished, total)
    journal.remove()
    return [_rating(spec, config.sets, done) for spec in config.specs]


def _rating(spec: str, sets: Sequence[PositionSet], done: Done) -> Rating:
    rated = []
    for one in sets:
        judged = done.get((spec, one.name), {})
        verdicts = [judged[i] for i in range(len(one.moves)) if i in judged]
        if len(verdicts) != len(one.moves):
            raise LadderError(f"{spec} on {one.name}: {len(verdicts)} of {len(one.moves)} moves")
        failures = Counter(v.failure for v in verdicts if v.failure is not None)
        rated.append(
            SetRating(
                spec,
                one.name,
                len(verdicts),
                sum(v.outcome_error for v in verdicts),
                sum(v.score_error for v in verdicts),
                sum(v.seconds for v in verdicts),
                dict(failures),
                level_target(spec) if one.decisive else None,
            )
        )
    return Rating(spec, tuple(rated))


# ------------------------------------------------------------------ output
def table(ratings: Sequence[Rating]) -> str:
    """The figures for people: a row a spec and set (and its total over several sets)."""
    rows = [(r, row) for r in ratings for row in (*r.sets, *([r.total] if len(r.sets) > 1 else []))]
    who = max([len("player"), *(len(r.spec) for r in ratings)])
    where = max([len("set"), *(len(row.set) for _, row in rows)])
    lines = [
        f"{'player':<{who}}  {'set':<{where}}  {'positions':>9}  {'outcome error (95 %)':<24}"
        f"{'score error (95 %)':<24}{'s/move':>8}  failures"
        + ("  level target" if any(row.target is not None for _, row in rows) else "")
    ]
    for _, row in rows:
        lines.append(
            f"{row.spec:<{who}}  {row.set:<{where}}  {row.positions:>9}  "
            f"{_rate(row.outcome_errors, row.positions):<24}"
            f"{_rate(row.score_errors, row.positions):<24}"
            f"{row.seconds_per_move:>8.4f}  {_failures(row.failures)}"
            + ("" if row.target is None else f"  {100 * row.target:.0f} %: {row.verdict}")
        )
    return "\n".join(lines)


def _rate(errors: int, n: int) -> str:
    low, high = wilson(errors, n)
    share = errors / n if n else 0.0
    return f"{100 * share:5.1f} % ({100 * low:.1f}-{100 * high:.1f})"


def _failures(failures: dict[str, int]) -> str:
    return ", ".join(f"{count} {reason}" for reason, count in sorted(failures.items())) or "-"


def plot_ratings(ratings: Sequence[Rating], path: StrPath) -> None:
    """Outcome error against seconds per move (log scale), each point a player on a set
    with its 95 % interval: the strength-for-compute curve. A colour a kind of player
    (each point named by the rest of its spec), a marker a set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from connect4.core.files import save_figure

    figure, axes = plt.subplots(figsize=(11, 7))
    kinds = list(dict.fromkeys(r.spec.partition(":")[0] for r in ratings))
    names = list(dict.fromkeys(s.set for r in ratings for s in r.sets))
    colours = {k: f"C{i % 10}" for i, k in enumerate(kinds)}
    markers = {n: "osD^v<>ph*"[i % 10] for i, n in enumerate(names)}
    for rating in ratings:
        kind, _, rest = rating.spec.partition(":")
        for one in rating.sets:
            x = max(one.seconds_per_move, 1e-6)
            y = 100 * one.outcome_error
            low, high = wilson(one.outcome_errors, one.positions)
            axes.errorbar(
                [x],
                [y],
                yerr=[[y - 100 * low], [100 * high - y]],
                fmt=markers[one.set],
                color=colours[kind],
                capsize=3,
                alpha=0.85,
            )
            label = rest or kind
            axes.annotate(label, (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7)
    for kind in kinds:  # the legend: kinds by colour, sets by marker (when several)
        axes.plot([], [], "o", color=colours[kind], label=kind)
    if len(names) > 1:
        for name in names:
            axes.plot([], [], markers[name], color="grey", label=name)
    axes.set_xscale("log")
    axes.set_xlabel("seconds per move (mean, log scale)")
    axes.set_ylabel("outcome error (%, bars: 95 % interval)")
    title = names[0] if len(names) == 1 else f"{len(names)} sets"
    axes.set_title(f"Outcome error against time per move ({title})")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    try:
        save_figure(figure, os.fspath(path))
    finally:
        plt.close(figure)
