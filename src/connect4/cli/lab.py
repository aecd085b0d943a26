"""``connect4 lab``: the flags read into a :class:`~connect4.arena.lab.LabConfig`, the
lab run under a progress bar, its report written, the headline printed.

>>> parse_depths("1-3,5"), parse_playouts("1k,10k,250"), parse_clocks("0.1,0.5")
([1, 2, 3, 5], [250, 1000, 10000], [0.1, 0.5])
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from connect4.cli.common import (
    MAX_NODES,
    MAX_POSITIONS,
    Force,
    Resume,
    Scheduler,
    Seed,
    Workers,
    fail,
    keeping,
    kept_in,
)
from connect4.core.errors import Connect4Error, clip

if TYPE_CHECKING:
    from connect4.arena.lab import LabConfig

MAX_DEPTH = 20
MAX_PLAYOUTS = 10_000_000


def lab_error(message: str) -> Connect4Error:
    """The arena's error for a bad lab flag (imported late: the CLI starts light)."""
    from connect4.arena.schedule import ArenaError

    return ArenaError(message)


def parse_depths(text: str) -> list[int]:
    """``"1-8"``, ``"2,4,6"`` or a mix -> sorted distinct depths; ``ArenaError`` otherwise."""
    depths: set[int] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise lab_error(f"--depths {clip(text)!r}: write ranges and lists like 1-8 or 2,4,6")
        first, last = int(low), int(high) if dash else int(low)
        if not 1 <= first <= last <= MAX_DEPTH:
            raise lab_error(f"--depths {clip(text)!r}: depths must be 1-{MAX_DEPTH}, low to high")
        depths.update(range(first, last + 1))
    if not depths:
        raise lab_error("--depths: give at least one depth, e.g. 1-4")
    return sorted(depths)


def parse_playouts(text: str, flag: str = "--playouts") -> list[int]:
    """``"1k,10k,100k"`` -> ``[1000, 10000, 100000]`` (``none`` or empty: none);
    ``flag`` names the flag in the error."""
    counts: set[int] = set()
    if text.strip().lower() == "none":
        return []
    for part in filter(None, (p.strip().lower() for p in text.split(","))):
        digits, scale = (part[:-1], 1000) if part.endswith("k") else (part, 1)
        if not digits.isdigit() or not 1 <= int(digits) * scale <= MAX_PLAYOUTS:
            raise lab_error(
                f"{flag} {clip(text)!r}: write playout counts 1-{MAX_PLAYOUTS:,} like "
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
            raise lab_error(
                f"--time-per-move {clip(text or '')!r}: give seconds 0.01-60, one clock or "
                "several like 0.1,0.5"
            )
        clocks.add(seconds)
    return sorted(clocks)


def parse_solver(text: str) -> tuple[str, ...]:
    """``--mcts-solver``: ``off``, ``on`` or ``both`` -> the settings played."""
    choices = {"off": ("off",), "on": ("on",), "both": ("off", "on")}
    if text not in choices:
        raise lab_error(f"--mcts-solver {clip(text)!r}: choose off, on or both")
    return choices[text]


# the lab's own flags (their help text), read by :func:`lab`
Heuristics = Annotated[str | None, typer.Option(help="comma-separated heuristics (default: all)")]
Playouts = Annotated[
    str, typer.Option(help="MCTS playouts per move, e.g. 1k,10k,100k (none: no MCTS)")
]
MctsSolver = Annotated[
    str, typer.Option(help="MCTS players with the solver option: off, on or both")
]
TimePerMove = Annotated[
    str | None,
    typer.Option(
        help="equal clocks, e.g. 0.1 or 0.1,0.5: alpha-beta (every heuristic) and MCTS "
        "players that search S seconds per move"
    ),
]
Net = Annotated[
    bool,
    typer.Option(
        help="include the learned network: raw (one forward pass), PUCT by --net-playouts "
        "and on every --time-per-move clock"
    ),
]
NetPlayouts = Annotated[
    str, typer.Option(help="the network's PUCT playouts per move with --net, e.g. 100,800")
]
AccuracyNodes = Annotated[
    int,
    typer.Option(help="solver node budget per position for the game review", min=1, max=MAX_NODES),
]
TestSet = Annotated[
    list[str] | None,
    typer.Option(
        help="a benchmark file (Pons' format), or one of Pons' sets by name "
        "(Test_L2_R1, Middle-Easy, ...): every player picks a move in its "
        "positions, judged by the solver (repeatable)"
    ),
]
TestPositions = Annotated[
    int,
    typer.Option(help="positions used from each test set (the first N)", min=1, max=MAX_POSITIONS),
]


def lab(
    depths: Annotated[str, typer.Option(help="alpha-beta depths, e.g. 1-8 or 2,4,6")] = "1-4",
    games: Annotated[int, typer.Option(help="games per pair", min=1)] = 2,
    out: Annotated[Path, typer.Option(help="directory for results, report.md and plots")] = Path(
        "lab"
    ),
    heuristics: Heuristics = None,
    perfect: Annotated[bool, typer.Option(help="include the perfect player")] = True,
    playouts: Playouts = "1k,10k,100k",
    mcts_solver: MctsSolver = "both",
    time_per_move: TimePerMove = None,
    net: Net = False,
    net_playouts: NetPlayouts = "none",
    openings: Annotated[str, typer.Option(help="plies=K or a file of move strings")] = "plies=2",
    accuracy_nodes: AccuracyNodes = 200_000,
    test_set: TestSet = None,
    test_positions: TestPositions = 50,
    workers: Workers = 1,
    scheduler: Scheduler = None,
    seed: Seed = 0,
    resume: Resume = False,
    force: Force = False,
) -> None:
    """The lab: heuristics by depth, MCTS by playouts, equal clocks, perfect (and, with
    --net, the learned network); Markdown + PNGs.

    Lab files already in --out are refused unless --force (replace them) or
    --resume (continue the lab: each must be the lab's own).
    """
    from connect4.arena.lab import LabConfig
    from connect4.core.errors import require

    try:
        require("matplotlib")  # the report's plots: missing, it fails now, not after the games
        if accuracy_nodes < 1:
            raise lab_error("--accuracy-nodes must be at least 1: the lab reviews every game")
        config = LabConfig(
            depths=tuple(parse_depths(depths)),
            games=games,
            heuristics=tuple(h.strip() for h in heuristics.split(",") if h.strip())
            if heuristics
            else None,
            perfect=perfect,
            playouts=tuple(parse_playouts(playouts)),
            solver=parse_solver(mcts_solver),
            clocks=tuple(parse_clocks(time_per_move)),
            net=net,
            net_playouts=tuple(parse_playouts(net_playouts, flag="--net-playouts")),
            openings=openings,
            accuracy_nodes=accuracy_nodes,
            test_sets=tuple(test_set or ()),
            test_positions=test_positions,
            workers=workers,
            scheduler=scheduler,
            seed=seed,
            resume=resume,
            force=force,
        )
        check_test_sets(config.test_sets, config.test_positions)
        run_and_report(out, config)
    except (Connect4Error, OSError) as error:
        raise fail(error, flags=LAB_FLAGS) from None


LAB_FLAGS = {"games_per_pair": "--games", "accuracy_nodes": "--accuracy-nodes"}
"""The lab's flags for the tournament settings it names its own way."""


def check_test_sets(paths: tuple[str, ...], positions: int) -> None:
    """Read every ``--test-set`` before any game: a bad one fails now, named by its flag."""
    from connect4.arena.ladder import read_test_set

    for path in paths:
        try:
            read_test_set(path, positions)
        except Connect4Error as error:
            raise lab_error(f"--test-set {error}") from None


def run_and_report(out: Path, config: LabConfig) -> None:
    """Run the lab under a progress bar, write its report, print the headline; Ctrl-C
    exits 130 with one line (the finished games and scores stay for ``--resume``)."""
    from rich.console import Console

    from connect4.arena.lab import run_lab
    from connect4.arena.labreport import check_report_files, headline, write_report
    from connect4.core.progress import progress_callback

    check_report_files(out, config)
    err = Console(stderr=True, highlight=False)
    with keeping(kept_in(out / "results.jsonl", "finished games are")):
        with progress_callback(err, "lab games", "games") as progress:
            run = run_lab(out, config, progress=progress)
        result = write_report(out, run)
    console = Console(highlight=False)
    for line in headline(result.summary):
        console.print(f"- {line.replace('**', '')}")
    plots = ", ".join(p.name for p in result.plots)
    console.print(f"report: {result.report}  plots: {plots}", soft_wrap=True)
