"""The lab: classic heuristics at several depths, MCTS at several playout counts, and
players on an equal clock, in one tournament; a Markdown report with plots.

The players (all on 7x6, standard rules):

- ``alphabeta:depth=D,heuristic=H`` for every heuristic H and depth D;
- ``mcts:playouts=N,solver=off|on`` for every playout count N;
- with ``--time-per-move S`` (one or more clocks): ``alphabeta:time=S,heuristic=H``
  (iterative deepening) for every H and ``mcts:time=S,solver=off|on``, so
  every kind meets the others with the same time per move;
- ``perfect``.

One arena tournament (every game reviewed), then ``report.md`` with the tables
and PNG plots in ``--out``: rating, accuracy and nodes against depth for the
heuristics, and rating and accuracy against the *measured* mean time per move
for every player, the common axis on which alpha-beta and MCTS compare. With
test sets (files of ``moves score`` lines, such as Pons' benchmark files, which
the package does not ship) every player also picks a move in each of their
positions, judged by the solver::

    connect4 lab --depths 1-4 --playouts 1k,10k --time-per-move 0.1 --out lab \\
        --test-set Test_L2_R1 --test-set Test_L1_R1

>>> parse_depths("1-3,5"), parse_playouts("1k,10k,250"), parse_clocks("0.1,0.5")
([1, 2, 3, 5], [250, 1000, 10000], [0.1, 0.5])
>>> lab_players([1, 2], ["cell-weights"], perfect=False)
['alphabeta:depth=1,heuristic=cell-weights', 'alphabeta:depth=2,heuristic=cell-weights']
>>> lab_players([], [], perfect=False, playouts=[1000], solver=("off", "on"))
['mcts:playouts=1000,solver=off', 'mcts:playouts=1000,solver=on']
>>> lab_player("mcts:time=0.1,solver=on")
LabPlayer(spec='mcts:time=0.1,solver=on', family='mcts', heuristic=None, depth=None, \
playouts=None, solver=True, clock=0.1)
"""

from __future__ import annotations

import functools
import json
import math
import os
import platform
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from connect4.arena.play import map_unordered, run_tournament
from connect4.arena.report import lazy_progress_bar
from connect4.arena.schedule import ArenaConfig, ArenaError, load_openings
from connect4.arena.summary import Standing, Summary, summarize
from connect4.core.files import atomic_write, read_lines, save_figure

PERFECT = "perfect"
MAX_DEPTH = 20
MAX_PLAYOUTS = 10_000_000
MAX_SCORES_BYTES = 1 << 26  # the largest test_sets.jsonl read back on --resume
SOLVER_SETTINGS = ("off", "on")
SPEC_PATTERNS = {
    "depth": re.compile(r"alphabeta:depth=(\d+),heuristic=(.+)"),
    "alphabeta-time": re.compile(r"alphabeta:time=([0-9.]+),heuristic=(.+)"),
    "playouts": re.compile(r"mcts:playouts=(\d+),solver=(on|off)"),
    "mcts-time": re.compile(r"mcts:time=([0-9.]+),solver=(on|off)"),
}


# ------------------------------------------------------------------ players
def parse_depths(text: str) -> list[int]:
    """``"1-8"``, ``"2,4,6"`` or a mix -> sorted distinct depths; ``ArenaError`` otherwise."""
    depths: set[int] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ArenaError(f"--depths {text!r}: write ranges and lists like 1-8 or 2,4,6")
        first, last = int(low), int(high) if dash else int(low)
        if not 1 <= first <= last <= MAX_DEPTH:
            raise ArenaError(f"--depths {text!r}: depths must be 1-{MAX_DEPTH}, low to high")
        depths.update(range(first, last + 1))
    if not depths:
        raise ArenaError("--depths: give at least one depth, e.g. 1-4")
    return sorted(depths)


def parse_playouts(text: str) -> list[int]:
    """``"1k,10k,100k"`` -> ``[1000, 10000, 100000]`` (``none`` or empty: no MCTS)."""
    counts: set[int] = set()
    if text.strip().lower() == "none":
        return []
    for part in filter(None, (p.strip().lower() for p in text.split(","))):
        digits, scale = (part[:-1], 1000) if part.endswith("k") else (part, 1)
        if not digits.isdigit() or not 1 <= int(digits) * scale <= MAX_PLAYOUTS:
            raise ArenaError(
                f"--playouts {text!r}: write playout counts 1-{MAX_PLAYOUTS:,} like "
                "1k,10k,100k (or none)"
            )
        counts.add(int(digits) * scale)
    return sorted(counts)


def parse_clocks(text: str | None) -> list[float]:
    """``"0.1,0.5"`` -> seconds per move of the timed players (``None``/empty: none)."""
    clocks: set[float] = set()
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        try:
            seconds = float(part)
        except ValueError:
            seconds = math.nan
        if not 0.01 <= seconds <= 60:
            raise ArenaError(
                f"--time-per-move {text!r}: give seconds 0.01-60, one clock or several like 0.1,0.5"
            )
        clocks.add(seconds)
    return sorted(clocks)


def parse_solver(text: str) -> tuple[str, ...]:
    """``--mcts-solver``: ``off``, ``on`` or ``both`` -> the settings played."""
    choices = {"off": ("off",), "on": ("on",), "both": SOLVER_SETTINGS}
    if text not in choices:
        raise ArenaError(f"--mcts-solver {text!r}: choose off, on or both")
    return choices[text]


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
) -> list[str]:
    """The specs of the lab: alpha-beta by heuristic and depth, MCTS by playouts, the
    timed players of each clock, then ``perfect``."""
    settings = list(solver)
    specs = [f"alphabeta:depth={d},heuristic={h}" for h in heuristics for d in depths]
    specs += [f"mcts:playouts={n},solver={s}" for s in settings for n in playouts]
    for clock in clocks:
        specs += [f"alphabeta:time={clock:g},heuristic={h}" for h in heuristics]
        specs += [f"mcts:time={clock:g},solver={s}" for s in settings]
    return [*specs, PERFECT] if perfect else specs


@dataclass(frozen=True)
class LabPlayer:
    """A lab spec taken apart: its family and budget (depth, playouts or clock)."""

    spec: str
    family: Literal["alphabeta", "mcts", "perfect"]
    heuristic: str | None = None
    depth: int | None = None
    playouts: int | None = None
    solver: bool = False
    clock: float | None = None

    @property
    def series(self) -> str:
        """The line the player belongs to in the plots: its heuristic, or MCTS with or
        without the solver."""
        if self.family == "mcts":
            return "MCTS + solver" if self.solver else "MCTS"
        return self.heuristic or self.family


def lab_player(spec: str) -> LabPlayer | None:
    """The :class:`LabPlayer` of a lab spec, ``None`` for any other spec."""
    if spec == PERFECT:
        return LabPlayer(spec, "perfect")
    for key, pattern in SPEC_PATTERNS.items():
        match = pattern.fullmatch(spec)
        if match is None:
            continue
        first, second = match.groups()
        if key == "depth":
            return LabPlayer(spec, "alphabeta", heuristic=second, depth=int(first))
        if key == "alphabeta-time":
            return LabPlayer(spec, "alphabeta", heuristic=second, clock=float(first))
        solver = second == "on"
        if key == "playouts":
            return LabPlayer(spec, "mcts", playouts=int(first), solver=solver)
        return LabPlayer(spec, "mcts", solver=solver, clock=float(first))
    return None


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
    playouts) per move."""

    spec: str
    test_set: str
    path: str
    positions: int
    optimal: int
    seconds_per_move: float
    nodes_per_move: float | None

    @property
    def accuracy(self) -> float | None:
        return self.optimal / self.positions if self.positions else None


def read_test_set(path: str, limit: int) -> list[str]:
    """The first ``limit`` positions (move strings) of a benchmark file; ``ArenaError``
    naming the line when the file is unreadable or a position is not a live 7x6 game."""
    from connect4.core.position import Position
    from connect4.solver.bench import read_cases

    try:
        cases = read_cases(path, limit)
    except OSError as error:
        raise ArenaError(f"--test-set {path}: cannot read ({error.strerror})") from None
    except ValueError as error:
        raise ArenaError(f"--test-set {error}") from None
    for case in cases:
        try:
            position = Position.from_moves(case.moves)
        except ValueError as error:
            raise ArenaError(f"--test-set {path}:{case.line}: {error}") from None
        if position.is_over():
            raise ArenaError(f"--test-set {path}:{case.line}: the game is already over")
    if not cases:
        raise ArenaError(f"--test-set {path}: no positions in the file")
    return [case.moves for case in cases]


def score_test_set(task: tuple[str, str, int]) -> TestSetScore:
    """Let one player (``spec``) pick a move in each position of a test set, judged by
    the exact scores (runs in a worker). Each position gets a new player whose seed
    is the position's index, so the figures do not depend on the order."""
    from connect4.core.position import Position
    from connect4.players import PlayerContext, make_player, rehearse
    from connect4.review import exact_scores, grade
    from connect4.solver.bench import set_label

    spec, path, limit = task
    positions = read_test_set(path, limit)
    optimal = 0
    seconds = 0.0
    nodes: list[float] = []
    rehearse(spec, Position(), PlayerContext())
    for index, moves in enumerate(positions):
        position = Position.from_moves(moves)
        scores = exact_scores(position).scores
        player = make_player(spec, seed=index)
        started = time.perf_counter()
        try:
            choice = player.choose(position.copy())
        finally:
            player.close()
        seconds += time.perf_counter() - started
        played = scores[choice.move]
        best = max(s for s in scores if s is not None)
        optimal += played is not None and grade(best, played) == "best"
        count = choice.stats.get("nodes", choice.stats.get("playouts"))
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
    """Every player on every test set, saved to ``out/test_sets.jsonl`` as they finish;
    with ``resume`` the scores already there (same spec, file and size) are kept."""
    for path in paths:
        read_test_set(path, limit)  # bad input fails before any work
    saved = out / "test_sets.jsonl"
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
    with saved.open("a", encoding="utf-8") as file:
        for score in map_unordered(
            score_test_set, pending, workers, scheduler, lambda t: f"{t[0]} on {t[1]}"
        ):
            done[(score.spec, score.path, score.positions)] = score
            file.write(json.dumps(asdict(score)) + "\n")
            file.flush()
    return [done[(spec, path, sizes[path])] for spec, path, _ in tasks]


# ------------------------------------------------------------------ running
@dataclass(frozen=True)
class LabResult:
    """Where the lab wrote its report and what it found."""

    report: Path
    plots: list[Path]
    summary: Summary
    test_sets: list[TestSetScore]


Metric = Callable[[Standing], float | None]
"""A figure of a standings row that the lab tabulates and plots."""

METRICS: dict[str, Metric] = {
    "elo": lambda row: row.elo,
    "accuracy": lambda row: row.accuracy,
    "nodes_per_move": lambda row: row.nodes_per_move,
}


def run_lab(
    out: Path,
    *,
    depths: list[int],
    games: int = 2,
    heuristics: list[str] | None = None,
    perfect: bool = True,
    playouts: list[int] | None = None,
    solver: tuple[str, ...] = SOLVER_SETTINGS,
    clocks: list[float] | None = None,
    openings: str = "plies=2",
    accuracy_nodes: int = 200_000,
    test_sets: list[str] | None = None,
    test_positions: int = 50,
    workers: int = 1,
    scheduler: str | None = None,
    seed: int = 0,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> LabResult:
    """Run the lab tournament (results in ``out/results.jsonl``), the test sets, and
    write the report and plots."""
    from connect4.players import KINDS

    known = available_heuristics()
    if not known:
        raise ArenaError("the lab needs the classic AI (connect4.classic.heuristics) installed")
    chosen = heuristics or known
    unknown = [h for h in chosen if h not in known]
    if unknown:
        raise ArenaError(f"unknown heuristic {unknown[0]!r}: choose from {', '.join(known)}")
    if test_positions < 1:
        raise ArenaError("--test-positions must be at least 1")
    with_perfect = perfect and PERFECT in KINDS
    players = lab_players(
        depths, chosen, with_perfect, playouts=playouts or (), solver=solver, clocks=clocks or ()
    )
    base = ArenaConfig(
        players=tuple(players), games_per_pair=games, seed=seed, accuracy_nodes=accuracy_nodes
    )
    config = replace(base, openings=load_openings(openings, base))
    out.mkdir(parents=True, exist_ok=True)
    for path in test_sets or []:
        read_test_set(path, test_positions)  # bad input fails before the tournament
    results = out / "results.jsonl"
    run = run_tournament(
        config, results, resume=resume, workers=workers, scheduler=scheduler, progress=progress
    )
    summary = summarize(config, run.records)
    scores = run_test_sets(
        [p for p in players if p != PERFECT],
        list(test_sets or []),
        test_positions,
        out,
        workers=workers,
        scheduler=scheduler,
        resume=resume,
    )
    plots = write_plots(summary, out)
    report = out / "report.md"
    markdown = report_markdown(
        summary, config, plots, scores, perfect_missing=perfect and not with_perfect
    )
    atomic_write(report, markdown.encode("utf-8"), what="lab report")
    return LabResult(report, plots, summary, scores)


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
    """Fixed-budget rows (alpha-beta by depth, MCTS by playouts) by series, cheapest first."""
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


# ------------------------------------------------------------------ plots
def _elo_margins(row: Standing) -> tuple[float, float]:
    """How far the 95 % interval reaches below and above the rating (Elo points)."""
    if row.elo is None or row.elo_low is None or row.elo_high is None:
        return 0.0, 0.0
    return row.elo - row.elo_low, row.elo_high - row.elo


DEPTH_FIGURES = (
    ("rating_vs_depth.png", "elo", "rating (Elo, centred; bars: 95 % interval)", False),
    ("accuracy_vs_depth.png", "accuracy", "accuracy (share of best moves, %)", False),
    ("nodes_vs_depth.png", "nodes_per_move", "nodes per move (mean)", True),
)
TIME_FIGURES = (
    ("rating_vs_time.png", "elo", "rating (Elo, centred; bars: 95 % interval)"),
    ("accuracy_vs_time.png", "accuracy", "accuracy (share of best moves, %)"),
)


def _finish(axes: object, figure: object, path: Path, title: str) -> Path:
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    assert isinstance(axes, Axes) and isinstance(figure, Figure)
    axes.grid(True, alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize="small")
    axes.set_title(title)
    figure.tight_layout()
    try:
        save_figure(figure, path)
    finally:
        plt.close(figure)
    return path


def write_plots(summary: Summary, out: Path) -> list[Path]:
    """PNG plots: rating, accuracy and nodes per move against depth (one line per
    heuristic, when fixed-depth players played), then rating and accuracy against
    the measured mean time per move (every series, timed players as stars)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex
    from matplotlib.ticker import MaxNLocator

    groups = by_heuristic(summary)
    perfect = summary.standing(PERFECT)
    paths = []
    for filename, key, label, log_scale in DEPTH_FIGURES if groups else ():
        figure, axes = plt.subplots(figsize=(8, 5))
        metric = METRICS[key]
        scale = 100.0 if key == "accuracy" else 1.0
        for number, (heuristic, rows) in enumerate(sorted(groups.items())):
            known = {d: value for d, row in rows.items() if (value := metric(row)) is not None}
            depths = sorted(known)
            shift = 0.04 * (number - (len(groups) - 1) / 2)  # keep error bars apart
            if not depths:
                continue
            values = [known[d] * scale for d in depths]
            if key == "elo":
                low, high = zip(*(_elo_margins(rows[d]) for d in depths), strict=True)
                shifted = [d + shift for d in depths]
                axes.errorbar(shifted, values, yerr=[low, high], marker="o", capsize=3,
                              label=heuristic)  # fmt: skip
            else:
                axes.plot(depths, values, marker="o", label=heuristic)
        best = None if perfect is None else metric(perfect)
        if best is not None and key != "nodes_per_move":
            axes.axhline(best * scale, color="black", linestyle="--", label="perfect")
        if log_scale:
            axes.set_yscale("log")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel("search depth (plies)")
        axes.set_ylabel(label)
        paths.append(_finish(axes, figure, out / filename, f"{label.split(' (')[0]} against depth"))
    series = by_series(summary)
    clocks = by_clock(summary)
    for filename, key, label in TIME_FIGURES if series or clocks else ():
        figure, axes = plt.subplots(figsize=(9, 5.5))
        metric = METRICS[key]
        scale = 100.0 if key == "accuracy" else 1.0
        colours: dict[str, str] = {}
        for name, members in sorted(series.items()):
            points = [(row.seconds_per_move, metric(row), row) for _, row in members]
            shown = [(x, y * scale, row) for x, y, row in points if x is not None and y is not None]
            if not shown:
                continue
            xs, ys, kept = zip(*shown, strict=True)
            style = "s--" if name.startswith("MCTS") else "o-"
            if key == "elo":
                low, high = zip(*(_elo_margins(row) for row in kept), strict=True)
                drawn = axes.errorbar(xs, ys, yerr=[low, high], fmt=style, capsize=3, label=name)
                colours[name] = to_hex(drawn.lines[0].get_color())
            else:
                (line,) = axes.plot(xs, ys, style, label=name)
                colours[name] = to_hex(line.get_color())
        for number, timed in enumerate(clocks.values()):
            for player, row in timed:
                x, y = row.seconds_per_move, metric(row)
                if x is None or y is None:
                    continue
                colour = colours.get(player.series, "grey")
                axes.plot([x], [y * scale], marker="*", markersize=14, color=colour,
                          markeredgecolor="black", linestyle="none",
                          label="timed (equal clock)" if number == 0 and player is timed[0][0]
                          else None)  # fmt: skip
                axes.annotate(player.series, (x, y * scale), fontsize="x-small",
                              xytext=(4, 4), textcoords="offset points")  # fmt: skip
        best = None if perfect is None else metric(perfect)
        if best is not None:
            axes.axhline(best * scale, color="black", linestyle="--", label="perfect")
        axes.set_xscale("log")
        axes.set_xlabel("measured mean time per move (s, log scale)")
        axes.set_ylabel(label)
        title = f"{label.split(' (')[0]} against time per move: alpha-beta (by depth) and MCTS"
        paths.append(_finish(axes, figure, out / filename, title + " (by playouts)"))
    return paths


# ------------------------------------------------------------------ report
def _cell(value: float | None, pattern: str, scale: float = 1.0) -> str:
    return "–" if value is None else format(value * scale, pattern)


def _ms(row: Standing) -> str:
    """Milliseconds per move, three significant digits (whole numbers from 1000 on).

    >>> from dataclasses import replace
    >>> row = Standing("p", 1, 1, 0, 0, 1.0, 1.0, None, None, None, None, 0, 0, 0,
    ...                None, None, {}, 1.4567, None)
    >>> _ms(row), _ms(replace(row, seconds_per_move=0.0123))
    ('1,457', '12.3')
    """
    seconds = row.seconds_per_move
    return _cell(seconds, ",.0f" if seconds is not None and seconds >= 1 else ".3g", 1000)


def headline(summary: Summary) -> list[str]:
    """Findings in sentences, computed from the tables (not hand-written)."""
    groups = by_heuristic(summary)
    lines: list[str] = []
    depths = sorted({d for rows in groups.values() for d in rows})
    for depth in depths:
        rows = [(h, rows[depth]) for h, rows in groups.items() if depth in rows]
        name, best = max(rows, key=lambda item: item[1].elo or -1e9)
        lines.append(
            f"At depth {depth} the strongest heuristic is **{name}** "
            f"({best.elo or 0.0:+.0f} Elo, score {100 * (best.score or 0):.0f} %)."
        )
    mean_by_heuristic = {
        h: sum(r.elo or 0.0 for r in rows.values()) / len(rows) for h, rows in groups.items()
    }
    if len(mean_by_heuristic) > 1:
        ranked = sorted(mean_by_heuristic, key=lambda h: -mean_by_heuristic[h])
        lines.append(
            "Averaged over depths: "
            + ", ".join(f"{h} {mean_by_heuristic[h]:+.0f}" for h in ranked)
            + "."
        )
    for name, members in sorted(by_series(summary).items()):
        if not name.startswith("MCTS"):
            continue
        parts = [
            f"{(player.playouts or 0):,} playouts {row.elo or 0.0:+.0f} Elo ({_ms(row)} ms/move)"
            for player, row in members
        ]
        lines.append(f"{name}: " + ", ".join(parts) + ".")
    for clock, timed in by_clock(summary).items():
        by_elo = sorted(timed, key=lambda item: -(item[1].elo or -1e9))
        (first, top), rest = by_elo[0], by_elo[1:]
        others = ", ".join(f"{p.series} {r.elo or 0.0:+.0f}" for p, r in rest)
        lines.append(
            f"At **{clock:g} s per move** the strongest is **{first.series}** "
            f"({top.elo or 0.0:+.0f} Elo, {_ms(top)} ms/move measured)"
            + (f"; then {others}." if others else ".")
        )
    perfect = summary.standing(PERFECT)
    if perfect is not None:
        lines.append(
            f"The perfect player scores {100 * (perfect.score or 0):.0f} % "
            f"({perfect.wins}-{perfect.draws}-{perfect.losses})."
        )
    return lines


def _budget(player: LabPlayer | None) -> str:
    if player is None or player.family == "perfect":
        return "–"
    if player.clock is not None:
        return f"{player.clock:g} s"
    if player.depth is not None:
        return f"depth {player.depth}"
    return f"{player.playouts or 0:,} playouts"


def report_markdown(
    summary: Summary,
    config: ArenaConfig,
    plots: list[Path],
    test_sets: list[TestSetScore] | None = None,
    perfect_missing: bool = False,
) -> str:
    """The lab report: setup, headline, standings, tables by heuristic and depth, MCTS
    by playouts, the equal-clock comparison, test-set accuracy, plots."""
    groups = by_heuristic(summary)
    depths = sorted({d for rows in groups.values() for d in rows})
    cpu = platform.processor() or platform.machine()
    budget = (
        f"every game reviewed ({config.accuracy_nodes:,} solver nodes per position)"
        if config.accuracy_nodes
        else "no review"
    )
    lines = [
        "# Lab: heuristics, depths, MCTS and equal clocks",
        "",
        f"{len(config.players)} players, {summary.games_played} games "
        f"({config.games_per_pair} per pair, {len(config.openings)} openings), seed {config.seed}, "
        f"{budget}. Machine: {os.cpu_count()} CPUs, {cpu}. Times are wall-clock per move, "
        "measured in the games (shared by the other work on the machine).",
        "",
        "## Headline",
        "",
        *[f"- {line}" for line in headline(summary)],
    ]
    if perfect_missing:
        lines.append("- The perfect player is not available in this build; it did not play.")
    lines += [
        "",
        "## Standings",
        "",
        "Accuracy is the game review's: the share of best moves among the proven ones "
        "(moves after the opening); mistakes and blunders are per game. Nodes per move "
        "count searched nodes, for MCTS playouts.",
        "",
        "| # | player | games | W-D-L | score % | Elo | 95 % interval | accuracy % (proven) "
        "| mistakes/game | blunders/game | ms/move | nodes or playouts/move |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for rank, row in enumerate(summary.standings, start=1):
        interval = (
            "–"
            if row.elo_low is None or row.elo_high is None
            else f"{row.elo_low:+.0f} … {row.elo_high:+.0f}"
        )
        lines.append(
            f"| {rank} | `{row.player}` | {row.games} | {row.wins}-{row.draws}-{row.losses} | "
            f"{_cell(row.score, '.1f', 100)} | {_cell(row.elo, '+.0f')} | {interval} | "
            f"{_cell(row.accuracy, '.1f', 100)} ({row.proven_moves}) | "
            f"{_cell(row.mistakes_per_game, '.2f')} | {_cell(row.blunders_per_game, '.2f')} | "
            f"{_ms(row)} | {_cell(row.nodes_per_move, ',.0f')} |"
        )
    for title, key, pattern, scale in (
        ("Rating (Elo) by heuristic and depth", "elo", "+.0f", 1.0),
        ("Accuracy (% best moves) by heuristic and depth", "accuracy", ".1f", 100.0),
        ("Nodes per move by heuristic and depth", "nodes_per_move", ",.0f", 1.0),
    ):
        if not groups:
            break
        lines += [
            "",
            f"## {title}",
            "",
            "| heuristic | " + " | ".join(f"depth {d}" for d in depths) + " |",
            "|---|" + "---:|" * len(depths),
        ]
        for heuristic, rows in sorted(groups.items()):
            metric = METRICS[key]
            cells = [_cell(metric(rows[d]), pattern, scale) if d in rows else "" for d in depths]
            lines.append(f"| {heuristic} | " + " | ".join(cells) + " |")
    mcts = {name: rows for name, rows in by_series(summary).items() if name.startswith("MCTS")}
    if mcts:
        lines += [
            "",
            "## MCTS by playouts",
            "",
            "| player | playouts/move | Elo | score % | accuracy % | ms/move |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for name, members in sorted(mcts.items()):
            for player, row in members:
                lines.append(
                    f"| {name} | {player.playouts or 0:,} | {_cell(row.elo, '+.0f')} | "
                    f"{_cell(row.score, '.1f', 100)} | {_cell(row.accuracy, '.1f', 100)} | "
                    f"{_ms(row)} |"
                )
    for clock, timed in by_clock(summary).items():
        lines += [
            "",
            f"## Equal clock: {clock:g} s per move",
            "",
            "Every player below searched for the same time per move (alpha-beta: iterative "
            "deepening; MCTS: playouts until the clock runs out).",
            "",
            "| player | Elo | score % | accuracy % | mistakes/game | ms/move (measured) "
            "| nodes or playouts/move |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for player, row in sorted(timed, key=lambda item: -(item[1].elo or -1e9)):
            lines.append(
                f"| `{player.spec}` | {_cell(row.elo, '+.0f')} | {_cell(row.score, '.1f', 100)} | "
                f"{_cell(row.accuracy, '.1f', 100)} | {_cell(row.mistakes_per_game, '.2f')} | "
                f"{_ms(row)} | {_cell(row.nodes_per_move, ',.0f')} |"
            )
    if test_sets:
        names = list(dict.fromkeys(score.test_set for score in test_sets))
        sizes = {score.test_set: score.positions for score in test_sets}
        table: dict[str, dict[str, TestSetScore]] = {}
        for score in test_sets:
            table.setdefault(score.spec, {})[score.test_set] = score
        lines += [
            "",
            "## Accuracy on test sets",
            "",
            "Each player picks a move in each position of the set (a new player per "
            "position); the share of moves that keep the best score, by the solver. "
            + ", ".join(f"{name}: first {sizes[name]} positions" for name in names)
            + ".",
            "",
            "| player | budget | " + " | ".join(f"{name} % | ms/move" for name in names) + " |",
            "|---|---|" + "---:|---:|" * len(names),
        ]
        for spec, by_set in table.items():
            cells = []
            for name in names:
                found = by_set.get(name)
                cells += (
                    ["", ""]
                    if found is None
                    else [
                        _cell(found.accuracy, ".0f", 100),
                        _cell(
                            found.seconds_per_move,
                            ",.0f" if found.seconds_per_move >= 1 else ".3g",
                            1000,
                        ),
                    ]
                )
            lines.append(f"| `{spec}` | {_budget(lab_player(spec))} | " + " | ".join(cells) + " |")
    lines += ["", "## Plots", ""]
    lines += [f"![{path.stem}]({path.name})" for path in plots]
    return "\n".join(lines) + "\n"


def lab_main(
    *,
    depths: str = "1-4",
    games: int = 2,
    out: Path = Path("lab"),
    heuristics: str | None = None,
    perfect: bool = True,
    playouts: str = "1k,10k,100k",
    mcts_solver: str = "both",
    time_per_move: str | None = None,
    openings: str = "plies=2",
    accuracy_nodes: int = 200_000,
    test_sets: list[str] | None = None,
    test_positions: int = 50,
    workers: int = 1,
    scheduler: str | None = None,
    seed: int = 0,
    resume: bool = False,
) -> int:
    """``connect4 lab``: run the lab with a progress bar, print the headline; the exit code."""
    from rich.console import Console

    depth_list = parse_depths(depths)
    playout_list = parse_playouts(playouts)
    clocks = parse_clocks(time_per_move)
    solver = parse_solver(mcts_solver)
    if accuracy_nodes < 1:
        raise ArenaError("--accuracy-nodes must be at least 1: the lab reviews every game")
    chosen = [h.strip() for h in heuristics.split(",") if h.strip()] if heuristics else None
    err = Console(stderr=True, highlight=False)
    lab = functools.partial(
        run_lab,
        out,
        depths=depth_list,
        games=games,
        heuristics=chosen,
        perfect=perfect,
        playouts=playout_list,
        solver=solver,
        clocks=clocks,
        openings=openings,
        accuracy_nodes=accuracy_nodes,
        test_sets=test_sets,
        test_positions=test_positions,
        workers=workers,
        scheduler=scheduler,
        seed=seed,
        resume=resume,
    )
    try:
        with lazy_progress_bar(err, "lab games") as progress:
            result = lab(progress=progress)
    except KeyboardInterrupt:
        saved = out / "results.jsonl"
        note = f"interrupted; finished games are in {saved}: rerun with --resume"
        err.print(note, soft_wrap=True)
        return 130
    console = Console(highlight=False)
    for line in headline(result.summary):
        console.print(f"- {line.replace('**', '')}")
    plots = ", ".join(p.name for p in result.plots)
    console.print(f"report: {result.report}  plots: {plots}", soft_wrap=True)
    return 0
