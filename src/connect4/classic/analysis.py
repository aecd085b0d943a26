"""Minimax against alpha-beta: nodes and time by depth, as a table, JSON or a plot.

Smart-Connect-4's nodes/time table and zer0lose's full tic-tac-toe timing, for
any position: for each depth 1…D both algorithms search
the same position with the same heuristic; the rows give nodes expanded, seconds,
value and move, and the ratio of the node counts. Minimax stops at a node budget
instead of running for hours, and the row says so.

>>> from connect4 import TicTacToe
>>> rows = compare(TicTacToe(), depths=[9])
>>> [(r.algorithm, r.nodes, r.value) for r in rows]
[('minimax', 549946, 0), ('alphabeta', 7865, 0)]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from connect4.classic.heuristics import get_heuristic
from connect4.classic.results import Limits, describe_value
from connect4.classic.search import search
from connect4.core.errors import Connect4Error
from connect4.core.files import save_figure
from connect4.core.game import Game
from connect4.core.limits import Limit

if TYPE_CHECKING:
    from rich.table import Table

DEFAULT_BUDGET = 5_000_000  # minimax nodes per depth before it stops (compiled search)
PYTHON_BUDGET = 500_000  # the same for heuristics only the generic search runs


def default_budget(game: Game, heuristic: str) -> int:
    """The minimax node budget: a few seconds of work on the engine that will run.

    >>> from connect4 import Position
    >>> default_budget(Position(), "windows"), default_budget(Position(), "recent-lines")
    (5000000, 500000)
    >>> default_budget(Position(10, 6), "windows")  # two words: compiled too
    5000000
    """
    from connect4.classic import fastsearch  # numba: only where the compiled engine runs

    return (
        DEFAULT_BUDGET
        if fastsearch.supports(game, get_heuristic(heuristic, game.kind), fastsearch.words_of(game))
        else PYTHON_BUDGET
    )


@dataclass(frozen=True)
class Row:
    """One search of the comparison (``value``/``move`` are None when it stopped)."""

    depth: int
    algorithm: str
    nodes: int
    seconds: float
    value: float | None
    move: str | None
    complete: bool = True


def parse_depth(text: str, game: Game) -> list[int]:
    """Depths 1…D for a maximum depth ``D``; ``all`` = to the end of the game (tic-tac-toe).

    >>> from connect4 import TicTacToe
    >>> parse_depth("3", TicTacToe()), parse_depth("all", TicTacToe.from_moves("5"))
    ([1, 2, 3], [8])
    """
    remaining = game.size - game.ply if game.kind == "tictactoe" else None
    if text == "all":
        if remaining is None:
            raise Connect4Error(
                "all is for tictactoe (connect4 would run for hours)", setting="max_depth"
            )
        return [remaining]
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 42:
        raise Connect4Error(f"must be a number 1-42 or 'all', not {text!r}", setting="max_depth")
    return list(range(1, int(text) + 1))


def compare(
    game: Game,
    depths: Sequence[int],
    *,
    heuristic: str = "windows",
    budget: int = DEFAULT_BUDGET,
    ordering: str = "center",
    tt: bool = False,
) -> list[Row]:
    """Minimax and alpha-beta rows for each depth; minimax stops at ``budget`` nodes
    and is not run deeper once it has stopped."""
    if game.is_over():
        raise ValueError(f"the game is over ({game.result_text()}): there is nothing to analyse")
    from connect4.classic import fastsearch

    fastsearch.warm_up(wide=fastsearch.words_of(game) == 2)
    rows: list[Row] = []
    minimax_stopped = False
    for depth in depths:
        for algorithm in ("minimax", "alphabeta"):
            if algorithm == "minimax" and minimax_stopped:
                rows.append(Row(depth, algorithm, 0, 0.0, None, None, complete=False))
                continue
            result = search(
                game,
                limits=Limits(depth=depth),
                limit=Limit(nodes=budget) if algorithm == "minimax" else None,
                algorithm="minimax" if algorithm == "minimax" else "alphabeta",
                heuristic=heuristic,
                ordering="none" if ordering == "none" else "center",
                tt=tt and algorithm == "alphabeta",
            )
            complete = result.complete and result.stopped is None
            if algorithm == "minimax" and not complete:
                minimax_stopped = True
            rows.append(
                Row(
                    depth,
                    algorithm,
                    result.stats.nodes,
                    result.stats.seconds,
                    result.value if complete else None,
                    game.move_label(result.move) if complete and result.move is not None else None,
                    complete,
                )
            )
    return rows


def rows_json(rows: list[Row]) -> str:
    """The rows as a JSON list of ``{depth, algorithm, nodes, seconds, value, move, complete}``."""
    return json.dumps([asdict(r) for r in rows])


def render_table(rows: list[Row], title: str, budget: int = DEFAULT_BUDGET) -> Table:
    """A rich table: per depth, nodes/seconds/value/move of both algorithms and the ratio."""
    from rich.table import Table

    table = Table(title=title, caption="MM = minimax, AB = alpha-beta; ratio = MM / AB nodes")
    for name in ("depth", "MM nodes", "MM s", "MM value", "MM move"):
        table.add_column(name, justify="right", no_wrap=True)
    for name in ("AB nodes", "AB s", "AB value", "AB move", "ratio"):
        table.add_column(name, justify="right", no_wrap=True)
    by_depth: dict[int, dict[str, Row]] = {}
    for row in rows:
        by_depth.setdefault(row.depth, {})[row.algorithm] = row
    for depth, pair in by_depth.items():
        mm, ab = pair["minimax"], pair["alphabeta"]
        if mm.complete:
            mm_cells = [f"{mm.nodes:,}", _secs(mm.seconds), describe_value(mm.value), mm.move]
            ratio = f"{mm.nodes / max(ab.nodes, 1):,.1f}×"
        elif mm.nodes:
            mm_cells = [f"> {budget:,}", _secs(mm.seconds), "stopped", "at budget"]
            ratio = f"> {budget / max(ab.nodes, 1):,.1f}×"
        else:
            mm_cells = ["-", "-", "skipped", "-"]
            ratio = "-"
        ab_cells = [f"{ab.nodes:,}", _secs(ab.seconds), describe_value(ab.value), ab.move]
        table.add_row(str(depth), *[c or "-" for c in mm_cells], *[c or "-" for c in ab_cells],
                      ratio)  # fmt: skip
    return table


def _secs(seconds: float) -> str:
    return f"{seconds:.3g}"


def plot(rows: list[Row], path: str, title: str) -> None:
    """Write a PNG: nodes and seconds against depth, log scale, both algorithms."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for algorithm, marker in (("minimax", "o"), ("alphabeta", "s")):
        done = [r for r in rows if r.algorithm == algorithm and r.complete]
        depths = [r.depth for r in done]
        axes[0].plot(depths, [max(r.nodes, 1) for r in done], marker=marker, label=algorithm)
        axes[1].plot(depths, [max(r.seconds, 1e-6) for r in done], marker=marker, label=algorithm)
    for ax, label in zip(axes, ("nodes expanded", "seconds"), strict=True):
        ax.set_yscale("log")
        ax.set_xlabel("depth")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
