"""The heuristic lab: every classic heuristic at several depths (plus the perfect player).

One arena tournament, then a Markdown report with the tables and three PNG
plots (rating, accuracy and nodes per move against depth, one line per
heuristic), written to ``--out``::

    connect4 lab --depths 1-4 --games 2 --out lab

>>> parse_depths("1-3,5")
[1, 2, 3, 5]
>>> lab_players([1, 2], ["cell-weights"], perfect=False)
['alphabeta:depth=1,heuristic=cell-weights', 'alphabeta:depth=2,heuristic=cell-weights']
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from connect4.arena.play import run_tournament
from connect4.arena.report import lazy_progress_bar
from connect4.arena.schedule import ArenaConfig, ArenaError, load_openings
from connect4.arena.summary import Standing, Summary, summarize

SPEC_PATTERN = re.compile(r"alphabeta:depth=(\d+),heuristic=(.+)")
PERFECT = "perfect"
MAX_DEPTH = 20


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


def available_heuristics() -> list[str]:
    """The Classic AI heuristics for Connect Four (``windows`` is an alias, left out)."""
    try:
        from connect4.classic.heuristics import heuristic_names
    except ImportError:
        return []
    return [name for name in heuristic_names("connect4") if name != "windows"]


def lab_players(depths: list[int], heuristics: list[str], perfect: bool = True) -> list[str]:
    """The specs of the lab: ``alphabeta`` for each heuristic and depth, then ``perfect``."""
    specs = [f"alphabeta:depth={d},heuristic={h}" for h in heuristics for d in depths]
    return [*specs, PERFECT] if perfect else specs


def parse_lab_spec(spec: str) -> tuple[str, int] | None:
    """``(heuristic, depth)`` of a lab spec, ``None`` for others (the perfect player)."""
    match = SPEC_PATTERN.fullmatch(spec)
    return (match.group(2), int(match.group(1))) if match else None


@dataclass(frozen=True)
class LabResult:
    """Where the lab wrote its report and what it found."""

    report: Path
    plots: list[Path]
    summary: Summary


Metric = Callable[[Standing], float | None]
"""A figure of a standings row that the lab tabulates and plots against depth."""

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
    openings: str = "plies=2",
    time_per_move: float | None = None,
    accuracy_nodes: int = 200_000,
    workers: int = 1,
    scheduler: str | None = None,
    seed: int = 0,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> LabResult:
    """Run the lab tournament (results in ``out/results.jsonl``) and write the report."""
    from connect4.players import KINDS

    known = available_heuristics()
    if not known:
        raise ArenaError("the lab needs the classic AI (connect4.classic.heuristics) installed")
    chosen = heuristics or known
    unknown = [h for h in chosen if h not in known]
    if unknown:
        raise ArenaError(f"unknown heuristic {unknown[0]!r}: choose from {', '.join(known)}")
    with_perfect = perfect and PERFECT in KINDS
    players = lab_players(depths, chosen, with_perfect)
    base = ArenaConfig(
        players=tuple(players),
        games_per_pair=games,
        time_per_move=time_per_move,
        seed=seed,
        accuracy_nodes=accuracy_nodes,
    )
    config = replace(base, openings=load_openings(openings, base))
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    run = run_tournament(
        config, results, resume=resume, workers=workers, scheduler=scheduler, progress=progress
    )
    summary = summarize(config, run.records)
    plots = write_plots(summary, out)
    report = out / "report.md"
    report.write_text(
        report_markdown(summary, config, plots, perfect_missing=perfect and not with_perfect)
    )
    return LabResult(report, plots, summary)


def by_heuristic(summary: Summary) -> dict[str, dict[int, Standing]]:
    """Standings rows regrouped as ``{heuristic: {depth: row}}``."""
    table: dict[str, dict[int, Standing]] = {}
    for row in summary.standings:
        parsed = parse_lab_spec(row.player)
        if parsed is not None:
            table.setdefault(parsed[0], {})[parsed[1]] = row
    return table


def _elo_margins(row: Standing) -> tuple[float, float]:
    """How far the 95 % interval reaches below and above the rating (Elo points)."""
    if row.elo is None or row.elo_low is None or row.elo_high is None:
        return 0.0, 0.0
    return row.elo - row.elo_low, row.elo_high - row.elo


def write_plots(summary: Summary, out: Path) -> list[Path]:
    """Rating, accuracy and nodes per move against depth, one line per heuristic (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    groups = by_heuristic(summary)
    perfect = summary.standing(PERFECT)
    figures = [
        ("rating_vs_depth.png", "elo", "rating (Elo, centred; bars: 95 % interval)", False),
        ("accuracy_vs_depth.png", "accuracy", "accuracy (share of optimal moves, %)", False),
        ("nodes_vs_depth.png", "nodes_per_move", "nodes per move (mean)", True),
    ]
    paths = []
    for filename, key, label, log_scale in figures:
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
        axes.grid(True, alpha=0.3)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(fontsize="small")
        axes.set_title(f"{label.split(' (')[0]} against depth")
        figure.tight_layout()
        path = out / filename
        figure.savefig(path, dpi=100)
        plt.close(figure)
        paths.append(path)
    return paths


def _cell(value: float | None, pattern: str, scale: float = 1.0) -> str:
    return "–" if value is None else format(value * scale, pattern)


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
    if mean_by_heuristic:
        ranked = sorted(mean_by_heuristic, key=lambda h: -mean_by_heuristic[h])
        lines.append(
            "Averaged over depths: "
            + ", ".join(f"{h} {mean_by_heuristic[h]:+.0f}" for h in ranked)
            + "."
        )
    perfect = summary.standing(PERFECT)
    if perfect is not None:
        lines.append(
            f"The perfect player scores {100 * (perfect.score or 0):.0f} % "
            f"({perfect.wins}-{perfect.draws}-{perfect.losses})."
        )
    return lines


def report_markdown(
    summary: Summary,
    config: ArenaConfig,
    plots: list[Path],
    perfect_missing: bool = False,
) -> str:
    """The lab report: setup, headline findings, standings, per-heuristic tables, plots."""
    groups = by_heuristic(summary)
    depths = sorted({d for rows in groups.values() for d in rows})
    cpu = platform.processor() or platform.machine()
    lines = [
        "# Heuristic lab",
        "",
        f"{len(config.players)} players, {summary.games_played} games "
        f"({config.games_per_pair} per pair, {len(config.openings)} openings), seed {config.seed}, "
        f"time per move {f'{config.time_per_move:g} s' if config.time_per_move else 'unlimited'}, "
        f"accuracy budget "
        f"{config.accuracy_nodes:,} solver nodes per position. Machine: {os.cpu_count()} CPUs, "
        f"{cpu}.",
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
        "| # | player | games | W-D-L | score % | Elo | 95 % interval | accuracy % (moves judged) "
        "| nodes/move |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
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
            f"{_cell(row.accuracy, '.1f', 100)} ({row.analysed_moves}) | "
            f"{_cell(row.nodes_per_move, ',.0f')} |"
        )
    for title, key, pattern, scale in (
        ("Rating (Elo) by heuristic and depth", "elo", "+.0f", 1.0),
        ("Accuracy (% optimal moves) by heuristic and depth", "accuracy", ".1f", 100.0),
        ("Nodes per move by heuristic and depth", "nodes_per_move", ",.0f", 1.0),
    ):
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
    openings: str = "plies=2",
    time_per_move: float | None = None,
    accuracy_nodes: int = 200_000,
    workers: int = 1,
    scheduler: str | None = None,
    seed: int = 0,
    resume: bool = False,
) -> int:
    """``connect4 lab``: run the lab with a progress bar, print the headline; the exit code."""
    from rich.console import Console

    depth_list = parse_depths(depths)
    chosen = [h.strip() for h in heuristics.split(",") if h.strip()] if heuristics else None
    err = Console(stderr=True, highlight=False)
    try:
        with lazy_progress_bar(err, "lab games") as progress:
            result = run_lab(
                out,
                depths=depth_list,
                games=games,
                heuristics=chosen,
                perfect=perfect,
                openings=openings,
                time_per_move=time_per_move,
                accuracy_nodes=accuracy_nodes,
                workers=workers,
                scheduler=scheduler,
                seed=seed,
                resume=resume,
                progress=progress,
            )
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
