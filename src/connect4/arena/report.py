"""Showing a tournament: standings as CSV and rich tables.

>>> import io
>>> from rich.console import Console
>>> from connect4.arena.schedule import ArenaConfig
>>> from connect4.arena.summary import summarize
>>> console = Console(file=io.StringIO(), width=100)
>>> for table in render_summary(summarize(ArenaConfig(players=("a", "b")), [])):
...     console.print(table)
>>> "Standings (0 games)" in console.file.getvalue()
True
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

from connect4.arena.summary import Summary
from connect4.core.files import atomic_write

if TYPE_CHECKING:
    from rich.table import Table

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
    "proven_moves",
    "unproven_moves",
    "reviewed_games",
    "mistakes_per_game",
    "blunders_per_game",
    "forfeits",
    "seconds_per_move",
    "nodes_per_move",
)


CROSSTABLE_TITLE = "Crosstable (row's points / games against column)"


def write_csv(summary: Summary, path: Path) -> None:
    """The standings as CSV, one row per player, best first."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    for rank, row in enumerate(summary.standings, start=1):
        forfeits = ";".join(f"{k}={v}" for k, v in sorted(row.forfeits.items()))
        values = {**row.as_dict(), "rank": rank, "forfeits": forfeits}
        writer.writerow(["" if values[key] is None else values[key] for key in CSV_FIELDS])
    atomic_write(path, out.getvalue().encode("utf-8"), what="standings CSV")


def _fmt(value: float | None, pattern: str) -> str:
    return "-" if value is None else format(value, pattern)


def _table(title: str, names: bool, columns: tuple[tuple[str, str], ...]) -> Table:
    """An empty table: ``#``, the player column when ``names``, then ``columns``."""
    from rich.table import Table

    table = Table(title=title, min_width=len(title))  # a title on one line
    table.add_column("#", justify="right")
    if names:
        table.add_column("player", overflow="fold")
    for column, justify in columns:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    return table


def _summary_tables(summary: Summary, max_crosstable: int, names: bool) -> list[Table]:
    """The standings, the moves and (few enough players) the crosstable."""
    rows = list(enumerate(summary.standings, start=1))

    def who(rank: int, player: str) -> list[str]:
        return [str(rank), player] if names else [str(rank)]

    standings = _table(
        f"Standings ({summary.games_played} games)",
        names,
        (("games", "right"), ("W-D-L", "right"), ("points", "right"), ("score", "right"),
         ("Elo", "right"), ("95 % interval", "right")),
    )  # fmt: skip
    review = _table(
        "Review (accuracy: best of proven moves)",
        names,
        (("accuracy", "right"), ("mistakes/game", "right"), ("blunders/game", "right"),
         ("not proven", "right")),
    )  # fmt: skip
    moves = _table(
        "Moves",
        names,
        (("ms/move", "right"), ("nodes/move", "right"), ("forfeits", "left")),
    )
    for rank, row in rows:
        interval = (
            "-"
            if row.elo_low is None or row.elo_high is None
            else f"{row.elo_low:+.0f} … {row.elo_high:+.0f}"
        )
        standings.add_row(
            *who(rank, row.player),
            str(row.games),
            f"{row.wins}-{row.draws}-{row.losses}",
            f"{row.points:g}",
            _fmt(None if row.score is None else 100 * row.score, ".1f") + " %",
            _fmt(row.elo, "+.0f"),
            interval,
        )
        review.add_row(
            *who(rank, row.player),
            "-" if row.accuracy is None else f"{100 * row.accuracy:.1f} % ({row.proven_moves})",
            _fmt(row.mistakes_per_game, ".2f"),
            _fmt(row.blunders_per_game, ".2f"),
            str(row.unproven_moves),
        )
        per_move = row.seconds_per_move
        moves.add_row(
            *who(rank, row.player),
            _fmt(None if per_move is None else 1000 * per_move, ".3g"),
            _fmt(row.nodes_per_move, ",.0f"),
            ", ".join(f"{k} ×{v}" for k, v in sorted(row.forfeits.items())) or "-",
        )
    tables = [standings, review, moves] if summary.reviewed else [standings, moves]
    if len(rows) <= max_crosstable:
        cross = _table(
            CROSSTABLE_TITLE,
            names,
            tuple((str(rank), "center") for rank, _ in rows),
        )
        for rank, row in rows:
            cells = []
            for _, other in rows:
                cell = summary.crosstable.get(row.player, {}).get(other.player)
                cells.append("·" if cell is None else f"{cell.points:g}/{cell.games}")
            cross.add_row(*who(rank, row.player), *cells)
        tables.append(cross)
    return tables


def _natural_width(table: Table) -> int:
    """The width ``table`` needs to show every cell on one line, uncut."""
    import io

    from rich.console import Console

    return Console(width=100_000, file=io.StringIO()).measure(table).maximum


def render_summary(
    summary: Summary,
    max_crosstable: int = 16,
    width: int | None = None,
    full: str = "the summary as JSON",
) -> list[Table]:
    """Rich tables: standings, the review (when games were reviewed), moves, and the
    crosstable when there are few enough players.

    Given the console's ``width``, tables too wide for it with every player's
    full spec name the players by rank instead, after a ``Players`` table that
    lists the specs (folded when even that is too narrow); a crosstable that
    still does not fit is left out, its caption pointing to ``full`` (where the
    whole crosstable is, e.g. a command-line flag). Nothing is cut.

    >>> from connect4.arena.schedule import ArenaConfig
    >>> from connect4.arena.summary import summarize
    >>> config = ArenaConfig(players=("alphabeta:depth=2,heuristic=windows", "random"))
    >>> [t.title for t in render_summary(summarize(config, []), width=80)][:2]
    ['Players', 'Standings (0 games)']
    """
    tables = _summary_tables(summary, max_crosstable, names=True)
    if width is None or all(_natural_width(table) <= width for table in tables):
        return tables
    legend = _table("Players", names=True, columns=())
    for rank, row in enumerate(summary.standings, start=1):
        legend.add_row(str(rank), row.player)
    short = _summary_tables(summary, max_crosstable, names=False)
    if short[-1].title == CROSSTABLE_TITLE and _natural_width(short[-1]) > width:
        short.pop()
        short[-1].caption = f"(the crosstable is wider than {width} columns: see {full})"
    return [legend, *short]
