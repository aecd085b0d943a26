"""The lab's report: ``report.md`` (Markdown tables and headline findings, computed
from the results) and PNG plots (rating, accuracy and nodes against depth; rating
and accuracy against the measured time per move).

>>> from connect4.arena.summary import Standing
>>> row = Standing("p", 1, 1, 0, 0, 1.0, 1.0, None, None, None, None, 0, 0, 0,
...                None, None, {}, 0.0123, None)
>>> _cell(None, ".1f"), _ms(row)
('–', '12.3')
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from connect4.arena.lab import (
    PERFECT,
    LabConfig,
    LabPlayer,
    LabRun,
    TestSetScore,
    by_clock,
    by_heuristic,
    by_series,
    lab_player,
)
from connect4.arena.schedule import ArenaConfig
from connect4.arena.summary import Standing, Summary
from connect4.core.files import atomic_write, check_output, is_plot, save_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Metric = Callable[[Standing], float | None]
"""A figure of a standings row that the lab tabulates and plots."""

METRICS: dict[str, Metric] = {
    "elo": lambda row: row.elo,
    "accuracy": lambda row: row.accuracy,
    "nodes_per_move": lambda row: row.nodes_per_move,
}


@dataclass(frozen=True)
class LabResult:
    """Where the lab wrote its report and plots, and what it found."""

    report: Path
    plots: list[Path]
    summary: Summary
    test_sets: list[TestSetScore]


def write_report(out: Path, run: LabRun) -> LabResult:
    """Write the plots and ``out/report.md`` of a lab run (the report last, whole: a
    written atomically)."""
    plots = write_plots(run.summary, out)
    report = out / "report.md"
    text = report_markdown(
        run.summary, run.config, plots, run.test_sets, perfect_missing=run.perfect_missing
    )
    atomic_write(report, text.encode("utf-8"), what="lab report")
    return LabResult(report, plots, run.summary, run.test_sets)


REPORT_TITLE = "# Lab: heuristics, depths, MCTS and equal clocks"


def check_report_files(out: Path, lab: LabConfig) -> None:
    """Before any game: the report and plots a lab in the folder ``out`` will write,
    each new, or replaced (``lab.force``), or, continuing (``lab.resume``), the lab's
    own (a report with its title, an image)."""
    if not out.is_dir():
        return  # made by the lab, empty (a target that is not a folder: refused there)
    check_output(out / "report.md", what="lab report", force=lab.force, resume=lab.resume,
                 ours=is_lab_report)  # fmt: skip
    figures = [*(DEPTH_FIGURES if lab.depths else ()), *(TIME_FIGURES if lab.clocks else ())]
    for name, *_ in figures:
        check_output(out / name, what="lab plot", force=lab.force, resume=lab.resume,
                     ours=is_plot)  # fmt: skip


def is_lab_report(file: BinaryIO) -> str | None:
    """``None`` when a file starts with the title of the lab's report."""
    if file.read(len(REPORT_TITLE.encode())) == REPORT_TITLE.encode():
        return None
    return "it does not start with the title of a lab report"


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
    the measured mean time per move (every series, timed players as stars), when
    players on a clock played (``--time-per-move``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    if by_heuristic(summary):
        for filename, key, label, log_scale in DEPTH_FIGURES:
            figure, axes = plt.subplots(figsize=(8, 5))
            _plot_against_depth(axes, summary, key, log_scale)
            axes.set_ylabel(label)
            title = f"{label.split(' (')[0]} against depth"
            paths.append(_finish(axes, figure, out / filename, title))
    if by_clock(summary):
        series = by_series(summary)
        searches = "MCTS and the network" if "network" in series else "MCTS"
        kinds = f"alpha-beta (by depth), {searches} (by playouts)"
        for filename, key, label in TIME_FIGURES:
            figure, axes = plt.subplots(figsize=(9, 5.5))
            _plot_against_time(axes, summary, key)
            axes.set_ylabel(label)
            title = f"{label.split(' (')[0]} against time per move: {kinds}"
            paths.append(_finish(axes, figure, out / filename, title))
    return paths


def _scale(key: str) -> float:
    """Accuracy is plotted in per cent, the other figures as they are."""
    return 100.0 if key == "accuracy" else 1.0


def _perfect_line(axes: Axes, summary: Summary, key: str) -> None:
    """The perfect player's figure as a dashed line, when it played."""
    perfect = summary.standing(PERFECT)
    best = None if perfect is None else METRICS[key](perfect)
    if best is not None:
        axes.axhline(best * _scale(key), color="black", linestyle="--", label="perfect")


def _plot_against_depth(axes: Axes, summary: Summary, key: str, log_scale: bool) -> None:
    """One line per heuristic: the figure ``key`` at each search depth (ratings with
    their 95 % intervals, the lines nudged apart so the bars do not overlap)."""
    from matplotlib.ticker import MaxNLocator

    groups = by_heuristic(summary)
    metric, scale = METRICS[key], _scale(key)
    for number, (heuristic, rows) in enumerate(sorted(groups.items())):
        known = {d: value for d, row in rows.items() if (value := metric(row)) is not None}
        depths = sorted(known)
        if not depths:
            continue
        values = [known[d] * scale for d in depths]
        if key == "elo":
            shift = 0.04 * (number - (len(groups) - 1) / 2)  # keep error bars apart
            low, high = zip(*(_elo_margins(rows[d]) for d in depths), strict=True)
            axes.errorbar([d + shift for d in depths], values, yerr=[low, high], marker="o",
                          capsize=3, label=heuristic)  # fmt: skip
        else:
            axes.plot(depths, values, marker="o", label=heuristic)
    if key != "nodes_per_move":
        _perfect_line(axes, summary, key)
    if log_scale:
        axes.set_yscale("log")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("search depth (plies)")


def _plot_against_time(axes: Axes, summary: Summary, key: str) -> None:
    """One line per series (alpha-beta by depth, MCTS and the network by playouts) at
    its measured time per move, and each timed player as a star in its series' colour."""
    from matplotlib.colors import to_hex

    metric, scale = METRICS[key], _scale(key)
    colours: dict[str, str] = {}
    for name, members in sorted(by_series(summary).items()):
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
    for number, timed in enumerate(by_clock(summary).values()):
        for player, row in timed:
            x, y = row.seconds_per_move, metric(row)
            if x is None or y is None:
                continue
            axes.plot([x], [y * scale], marker="*", markersize=14,
                      color=colours.get(player.series, "grey"), markeredgecolor="black",
                      linestyle="none",
                      label="timed (equal clock)" if number == 0 and player is timed[0][0]
                      else None)  # fmt: skip
            axes.annotate(player.series, (x, y * scale), fontsize="x-small",
                          xytext=(4, 4), textcoords="offset points")  # fmt: skip
    _perfect_line(axes, summary, key)
    axes.set_xscale("log")
    axes.set_xlabel("measured mean time per move (s, log scale)")


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
        if not name.startswith("MCTS") and name != "network":
            continue
        parts = [
            f"{_budget(player)} {row.elo or 0.0:+.0f} Elo ({_ms(row)} ms/move)"
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
    if player.playouts is None and player.family == "net":
        return "raw (one forward pass)"
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
    lines = setup_section(summary, config, perfect_missing)
    lines += standings_section(summary)
    lines += depth_sections(summary)
    lines += mcts_section(summary)
    lines += clock_sections(summary)
    lines += table_of_test_sets(test_sets or [])
    lines += ["", "## Plots", ""]
    lines += [f"![{path.stem}]({path.name})" for path in plots]
    return "\n".join(lines) + "\n"


def setup_section(summary: Summary, config: ArenaConfig, perfect_missing: bool) -> list[str]:
    """The title, what was played on which machine, and the headline findings."""
    cpu = platform.processor() or platform.machine()
    budget = (
        f"every game reviewed ({config.accuracy_nodes:,} solver nodes per position)"
        if config.accuracy_nodes
        else "no review"
    )
    lines = [
        REPORT_TITLE,
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
    return lines


def standings_section(summary: Summary) -> list[str]:
    """Every player's row: results, rating, accuracy, mistakes, time and work per move."""
    lines = [
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
    return lines


def depth_sections(summary: Summary) -> list[str]:
    """Rating, accuracy and nodes per move of the fixed-depth players, heuristic by depth."""
    groups = by_heuristic(summary)
    depths = sorted({d for rows in groups.values() for d in rows})
    lines: list[str] = []
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
    return lines


def mcts_section(summary: Summary) -> list[str]:
    """The MCTS players by playouts per move, with and without the solver, and the
    network's (raw, then PUCT)."""
    mcts = {
        name: rows
        for name, rows in by_series(summary).items()
        if name.startswith("MCTS") or name == "network"
    }
    if not mcts:
        return []
    lines = [
        "",
        "## MCTS and the network by playouts" if "network" in mcts else "## MCTS by playouts",
        "",
        "| player | playouts/move | Elo | score % | accuracy % | ms/move |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, members in sorted(mcts.items()):
        for player, row in members:
            lines.append(
                f"| {name} | {_cell(player.playouts, ',.0f')} | {_cell(row.elo, '+.0f')} | "
                f"{_cell(row.score, '.1f', 100)} | {_cell(row.accuracy, '.1f', 100)} | "
                f"{_ms(row)} |"
            )
    return lines


def clock_sections(summary: Summary) -> list[str]:
    """One table per clock: the players that searched that long per move, strongest first."""
    lines: list[str] = []
    for clock, timed in by_clock(summary).items():
        lines += [
            "",
            f"## Equal clock: {clock:g} s per move",
            "",
            "Every player below searched for the same time per move (alpha-beta: iterative "
            "deepening; MCTS, and the network's PUCT: playouts until the clock runs out).",
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
    return lines


def table_of_test_sets(test_sets: list[TestSetScore]) -> list[str]:
    """Each player's share of best moves (and time per move) on every test set."""
    if not test_sets:
        return []
    names = list(dict.fromkeys(score.test_set for score in test_sets))
    sizes = {score.test_set: score.positions for score in test_sets}
    table: dict[str, dict[str, TestSetScore]] = {}
    for score in test_sets:
        table.setdefault(score.spec, {})[score.test_set] = score
    lines = [
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
            if found is None:
                cells += ["", ""]
                continue
            seconds = found.seconds_per_move
            cells += [
                _cell(found.accuracy, ".0f", 100),
                _cell(seconds, ",.0f" if seconds >= 1 else ".3g", 1000),
            ]
        lines.append(f"| `{spec}` | {_budget(lab_player(spec))} | " + " | ".join(cells) + " |")
    return lines
