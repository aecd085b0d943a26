"""The lab: classic heuristics at several depths, MCTS at several playout counts, and
players on an equal clock, in one tournament, plus their accuracy on test sets.

The players (all on 7x6, standard rules):

- ``alphabeta:depth=D,heuristic=H`` for every heuristic H and depth D;
- ``mcts:playouts=N,solver=off|on`` for every playout count N;
- with clocks (seconds per move): ``alphabeta:time=S,heuristic=H`` (iterative
  deepening) for every H and ``mcts:time=S,solver=off|on``, so every kind meets
  the others with the same time per move;
- the learned network (optional): ``net`` (one forward pass), ``net:playouts=N``
  (PUCT) for every playout count N, and ``net:time=S`` for every clock;
- ``perfect``.

:func:`run_lab` plays one arena tournament (every game reviewed; results in
``out/results.jsonl``, resumable) and, with test sets (files of ``moves score``
lines, such as Pons' benchmark files), lets every player pick a move in each of
their positions, judged by the solver (``out/test_sets.jsonl``, written only then).
Files already in ``out`` are the policy's (:func:`connect4.core.files.check_output`):
refused unless ``force`` replaces them or ``resume`` continues them (each must
be the lab's own: :func:`check_lab_files`). The report and
plots are :mod:`connect4.arena.labreport`'s; the ``connect4 lab`` command is
:mod:`connect4.cli.lab`.

>>> lab_players([1, 2], ["cell-weights"], perfect=False)
['alphabeta:depth=1,heuristic=cell-weights', 'alphabeta:depth=2,heuristic=cell-weights']
>>> lab_players([], [], perfect=False, playouts=[1000], solver=("off", "on"))
['mcts:playouts=1000,solver=off', 'mcts:playouts=1000,solver=on']
>>> lab_player("mcts:time=0.1,solver=on")
LabPlayer(spec='mcts:time=0.1,solver=on', family='mcts', heuristic=None, depth=None, \
playouts=None, solver=True, clock=0.1)
>>> lab_players([], [], perfect=False, net=True, net_playouts=[800], clocks=[0.5], solver=())
['net', 'net:playouts=800', 'net:time=0.5']
>>> lab_player("net:playouts=800").series, lab_player("net").playouts
('network', None)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, Literal

from connect4.arena.ladder import read_test_set
from connect4.arena.play import game_pool, run_tournament
from connect4.arena.schedule import ArenaConfig, ArenaError, load_openings
from connect4.arena.store import check_results_file
from connect4.arena.summary import Standing, Summary, summarize
from connect4.core.files import atomic_write, check_output, output_folder, read_lines
from connect4.core.processes import map_unordered

PERFECT = "perfect"
MAX_SCORES_BYTES = 1 << 26  # the largest test_sets.jsonl read back on --resume
MAX_SCORE_LINE = 1 << 16  # the longest line of test_sets.jsonl recognised as a score
SCORES_FILE = "test_sets.jsonl"
SOLVER_SETTINGS = ("off", "on")
LAB_KEYS = {
    "alphabeta": (frozenset({"depth", "heuristic"}), frozenset({"time", "heuristic"})),
    "mcts": (frozenset({"playouts", "solver"}), frozenset({"time", "solver"})),
    "net": (frozenset(), frozenset({"playouts"}), frozenset({"time"})),
}
"""The option keys of the lab's players, by kind: a fixed budget or a clock (the raw
network: none)."""


# ------------------------------------------------------------------ players
def available_heuristics() -> list[str]:
    """The Classic AI heuristics for Connect Four (``windows`` is an alias, left out)."""
    from connect4.classic.heuristics import heuristic_names

    return [name for name in heuristic_names("connect4") if name != "windows"]


def lab_players(
    depths: list[int],
    heuristics: list[str],
    perfect: bool = True,
    *,
    playouts: Iterable[int] = (),
    solver: Iterable[str] = SOLVER_SETTINGS,
    clocks: Iterable[float] = (),
    net: bool = False,
    net_playouts: Iterable[int] = (),
) -> list[str]:
    """The specs of the lab: alpha-beta by heuristic and depth, MCTS by playouts, with
    ``net`` the raw network and PUCT by ``net_playouts``, the timed players of each
    clock, then ``perfect``."""
    settings = list(solver)
    specs = [f"alphabeta:depth={d},heuristic={h}" for h in heuristics for d in depths]
    specs += [f"mcts:playouts={n},solver={s}" for s in settings for n in playouts]
    if net:
        specs += ["net", *(f"net:playouts={n}" for n in net_playouts)]
    for clock in clocks:
        specs += [f"alphabeta:time={clock:g},heuristic={h}" for h in heuristics]
        specs += [f"mcts:time={clock:g},solver={s}" for s in settings]
        specs += [f"net:time={clock:g}"] if net else []
    return [*specs, PERFECT] if perfect else specs


@dataclass(frozen=True)
class LabPlayer:
    """A lab spec taken apart: its family and budget (depth, playouts or clock; the
    raw network has none)."""

    spec: str
    family: Literal["alphabeta", "mcts", "net", "perfect"]
    heuristic: str | None = None
    depth: int | None = None
    playouts: int | None = None
    solver: bool = False
    clock: float | None = None

    @property
    def series(self) -> str:
        """The line the player belongs to in the plots: its heuristic, MCTS with or
        without the solver, or the network (raw, then PUCT)."""
        if self.family == "mcts":
            return "MCTS + solver" if self.solver else "MCTS"
        if self.family == "net":
            return "network"
        return self.heuristic or self.family


def lab_player(spec: str) -> LabPlayer | None:
    """The :class:`LabPlayer` of a lab spec (the shapes :func:`lab_players` writes, read
    by the player registry), ``None`` for any other spec."""
    from connect4.players.registry import PlayerSpecError, parse_spec

    try:
        parsed = parse_spec(spec)
    except PlayerSpecError:
        return None
    name, options = parsed.kind.name, parsed.options
    if name == PERFECT:
        return None if parsed.given else LabPlayer(spec, "perfect")
    if name not in LAB_KEYS:
        return None
    shape = frozenset(options)
    if shape not in LAB_KEYS[name]:
        return None
    clock = options.get("time")
    seconds = float(clock) if isinstance(clock, int | float) else None
    if name == "alphabeta":
        depth = options.get("depth")
        return LabPlayer(
            spec,
            "alphabeta",
            heuristic=str(options["heuristic"]),
            depth=depth if isinstance(depth, int) else None,
            clock=seconds,
        )
    playouts = options.get("playouts")
    if name == "net":
        return LabPlayer(
            spec, "net", playouts=playouts if isinstance(playouts, int) else None, clock=seconds
        )
    return LabPlayer(
        spec,
        "mcts",
        playouts=playouts if isinstance(playouts, int) else None,
        solver=options["solver"] is True,
        clock=seconds,
    )


def parse_lab_spec(spec: str) -> tuple[str, int] | None:
    """``(heuristic, depth)`` of a fixed-depth alpha-beta lab spec, ``None`` for others."""
    player = lab_player(spec)
    if player is None or player.heuristic is None or player.depth is None:
        return None
    return player.heuristic, player.depth


# ------------------------------------------------------------------ test sets
@dataclass(frozen=True)
class TestSetScore:
    """How one player did on one test set: ``optimal`` of ``positions`` moves kept the
    best score (the review's ``best`` verdict); mean seconds and nodes (MCTS:
    playouts) per move; ``failures``: positions where it crashed, ran out of time
    or answered an illegal move, by reason (not optimal; the run goes on), and
    ``timeouts``, those of them where its time ended before it had a move."""

    __test__ = False  # a result, not a test class (pytest collects names that start "Test")

    spec: str
    test_set: str
    path: str
    positions: int
    optimal: int
    seconds_per_move: float
    nodes_per_move: float | None
    timeouts: int = 0
    failures: dict[str, int] = field(default_factory=dict)

    @property
    def accuracy(self) -> float | None:
        return self.optimal / self.positions if self.positions else None


def is_scores_file(file: BinaryIO) -> str | None:
    """``None`` when a file's first line is a test-set score of the lab (or the file
    holds none yet), else why not.

    >>> import io
    >>> is_scores_file(io.BytesIO(b"plain notes\\n"))
    'its first line is not a test-set score of connect4 lab'
    """
    first = file.readline(MAX_SCORE_LINE + 1)
    if not first.strip():
        return None
    try:
        TestSetScore(**json.loads(first))
    except (ValueError, TypeError):
        return "its first line is not a test-set score of connect4 lab"
    return None


def score_test_set(task: tuple[str, str, int]) -> TestSetScore:
    """Let one player (``spec``) pick a move in each position of a test set, judged by
    the exact scores (runs in a worker), as ``connect4 rate`` judges a move
    (:func:`~connect4.arena.rate.judged_moves`: a new player a position, seeded with
    its index; a failure counted by its reason, the run going on)."""
    from connect4.arena.rate import judged_moves
    from connect4.core.position import Position
    from connect4.review import exact_scores
    from connect4.solver.bench import set_label

    spec, path, limit = task
    positions = read_test_set(path, limit)
    labels = [exact_scores(Position.from_moves(moves)).scores for moves in positions]
    optimal = 0
    seconds = 0.0
    nodes: list[float] = []
    failures: dict[str, int] = {}
    for verdict, turn in judged_moves(spec, positions, labels):
        seconds += verdict.seconds
        if verdict.failure is not None or turn.choice is None:
            reason = verdict.failure or "no move"
            failures[reason] = failures.get(reason, 0) + 1
            continue
        optimal += not verdict.score_error
        count = turn.choice.stats.get("nodes", turn.choice.stats.get("playouts"))
        if isinstance(count, int | float):
            nodes.append(float(count))
    return TestSetScore(
        spec=spec,
        test_set=set_label(path),
        path=path,
        positions=len(positions),
        optimal=optimal,
        seconds_per_move=seconds / len(positions),
        nodes_per_move=sum(nodes) / len(nodes) if nodes else None,
        timeouts=failures.get("timeout", 0),
        failures=failures,
    )


def run_test_sets(
    specs: list[str],
    paths: list[str],
    limit: int,
    out: Path,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    resume: bool = False,
) -> list[TestSetScore]:
    """Every player on every test set, saved to ``out/test_sets.jsonl`` as they finish
    (no test sets: no file); with ``resume`` the scores already there (same spec, file
    and size) are kept."""
    if not paths:
        return []
    for path in paths:
        read_test_set(path, limit)  # bad input fails before any work
    saved = out / SCORES_FILE
    done: dict[tuple[str, str, int], TestSetScore] = {}
    if resume and saved.exists():
        for _, line in read_lines(saved, what="test-set scores", max_bytes=MAX_SCORES_BYTES):
            try:
                score = TestSetScore(**json.loads(line))
            except (ValueError, TypeError):
                continue  # a torn or foreign line: that score is measured again
            done[(score.spec, score.path, score.positions)] = score
    else:
        atomic_write(saved, b"", what="test-set scores")
    sizes = {path: len(read_test_set(path, limit)) for path in paths}
    tasks = [(spec, path, limit) for path in paths for spec in specs]
    pending = [t for t in tasks if (t[0], t[1], sizes[t[1]]) not in done]
    with (
        game_pool(workers if pending else 1, scheduler if pending else None) as pool,
        saved.open("a", encoding="utf-8") as file,
    ):
        for score in map_unordered(score_test_set, pending, pool, lambda t: f"{t[0]} on {t[1]}"):
            done[(score.spec, score.path, score.positions)] = score
            file.write(json.dumps(asdict(score)) + "\n")
            file.flush()
    return [done[(spec, path, sizes[path])] for spec, path, _ in tasks]


# ------------------------------------------------------------------ running
@dataclass(frozen=True)
class LabConfig:
    """What the lab plays: the players' budgets and the tournament's settings.

    ``heuristics`` ``None``: every heuristic; ``clocks``: seconds per move of the
    timed players; ``net``: the learned network plays too (raw, PUCT by
    ``net_playouts`` and on every clock); ``test_sets``: benchmark files, the first
    ``test_positions`` positions of each; ``resume`` continues the lab's files in its
    folder, ``force`` replaces them.
    """

    depths: tuple[int, ...] = (1, 2, 3, 4)
    games: int = 2
    heuristics: tuple[str, ...] | None = None
    perfect: bool = True
    playouts: tuple[int, ...] = ()
    solver: tuple[str, ...] = SOLVER_SETTINGS
    clocks: tuple[float, ...] = ()
    net: bool = False
    net_playouts: tuple[int, ...] = ()
    openings: str = "plies=2"
    accuracy_nodes: int = 200_000
    test_sets: tuple[str, ...] = ()
    test_positions: int = 50
    workers: int = 1
    scheduler: str | None = None
    seed: int = 0
    resume: bool = False
    force: bool = False


@dataclass(frozen=True)
class LabRun:
    """What the lab played and measured: the tournament's config and summary, the
    test-set scores, and whether the perfect player was asked for but missing."""

    config: ArenaConfig
    summary: Summary
    test_sets: list[TestSetScore]
    perfect_missing: bool = False


def run_lab(
    out: Path, lab: LabConfig, progress: Callable[[int, int], None] | None = None
) -> LabRun:
    """Run the lab tournament (results in ``out/results.jsonl``) and the test sets
    (``out/test_sets.jsonl``); with ``lab.resume`` both go on where they stopped.
    ``progress(done, total)`` follows the tournament's games."""
    from connect4.players import KINDS

    known = available_heuristics()
    if not known:
        raise ArenaError("the lab needs the classic AI (connect4.classic.heuristics) installed")
    chosen = list(lab.heuristics or known)
    unknown = [h for h in chosen if h not in known]
    if unknown:
        raise ArenaError(f"unknown heuristic {unknown[0]!r}: choose from {', '.join(known)}")
    if lab.test_positions < 1:
        raise ArenaError(f"test positions per set must be at least 1, not {lab.test_positions}")
    with_perfect = lab.perfect and PERFECT in KINDS
    players = lab_players(
        list(lab.depths), chosen, with_perfect, playouts=lab.playouts, solver=lab.solver,
        clocks=lab.clocks, net=lab.net, net_playouts=lab.net_playouts,
    )  # fmt: skip
    base = ArenaConfig(
        players=tuple(players),
        games_per_pair=lab.games,
        seed=lab.seed,
        accuracy_nodes=lab.accuracy_nodes,
    )
    config = replace(base, openings=load_openings(lab.openings, base))
    output_folder(out, what="lab folder")
    check_lab_files(out, lab)
    for path in lab.test_sets:
        read_test_set(path, lab.test_positions)  # bad input fails before the tournament
    run = run_tournament(
        config,
        out / "results.jsonl",
        resume=lab.resume,
        force=lab.force,
        workers=lab.workers,
        scheduler=lab.scheduler,
        progress=progress,
    )
    scores = run_test_sets(
        [p for p in players if p != PERFECT],
        list(lab.test_sets),
        lab.test_positions,
        out,
        workers=lab.workers,
        scheduler=lab.scheduler,
        resume=lab.resume,
    )
    missing = lab.perfect and not with_perfect
    return LabRun(config, summarize(config, run.records), scores, perfect_missing=missing)


def check_lab_files(out: Path, lab: LabConfig) -> None:
    """Before any game: the results and test-set scores the lab will write in ``out``,
    each new, or replaced (``lab.force``) or continued (``lab.resume``, once
    recognised as the lab's own)."""
    check_results_file(out / "results.jsonl", resume=lab.resume, force=lab.force)
    if lab.test_sets:
        check_output(out / SCORES_FILE, what="test-set scores", force=lab.force,
                     resume=lab.resume, ours=is_scores_file)  # fmt: skip


# ------------------------------------------------------------------ grouping
def by_heuristic(summary: Summary) -> dict[str, dict[int, Standing]]:
    """Fixed-depth alpha-beta rows regrouped as ``{heuristic: {depth: row}}``."""
    table: dict[str, dict[int, Standing]] = {}
    for row in summary.standings:
        parsed = parse_lab_spec(row.player)
        if parsed is not None:
            table.setdefault(parsed[0], {})[parsed[1]] = row
    return table


def by_series(summary: Summary) -> dict[str, list[tuple[LabPlayer, Standing]]]:
    """Fixed-budget rows (alpha-beta by depth, MCTS by playouts, the raw network then PUCT
    by playouts) by series, cheapest first."""
    table: dict[str, list[tuple[LabPlayer, Standing]]] = {}
    for row in summary.standings:
        player = lab_player(row.player)
        if player is None or player.family == "perfect" or player.clock is not None:
            continue
        table.setdefault(player.series, []).append((player, row))
    for rows in table.values():
        rows.sort(key=lambda item: item[0].depth or item[0].playouts or 0)
    return table


def by_clock(summary: Summary) -> dict[float, list[tuple[LabPlayer, Standing]]]:
    """Timed rows grouped by their clock, strongest first."""
    table: dict[float, list[tuple[LabPlayer, Standing]]] = {}
    for row in summary.standings:
        player = lab_player(row.player)
        if player is not None and player.clock is not None:
            table.setdefault(player.clock, []).append((player, row))
    return dict(sorted(table.items()))
