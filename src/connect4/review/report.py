"""The review for people: a rich table coloured by verdict, summary lines, an evaluation plot.

>>> from connect4.core import Board
>>> from connect4.review import review
>>> summary_lines(review("5123", Board("tictactoe")))[1]
'O: accuracy 50.0 % (1 of 2 moves best), 0 good, 1 mistake, 0 blunders'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connect4.core.files import save_figure
from connect4.core.score import format_scores
from connect4.review.grading import Review

if TYPE_CHECKING:
    from rich.table import Table

VERDICT_STYLES = {
    "best": "green",
    "good": "cyan",
    "mistake": "yellow",
    "blunder": "bold red",
    None: "dim",
}


def _labels(review: Review, moves: tuple[int, ...]) -> str:
    if review.board.kind == "tictactoe":
        return ",".join(str(m + 1) for m in moves)
    from connect4.core.position import COLUMN_SYMBOLS

    return ",".join(COLUMN_SYMBOLS[m] for m in moves)


def decisive_text(review: Review) -> str:
    """One sentence on where the result was decided.

    >>> from connect4.core.limits import Limit
    >>> from connect4.review import review
    >>> decisive_text(review("4455"))
    'decided at ply 4 (yellow plays 5, blunder)'
    >>> decisive_text(review("4455", limit=Limit(nodes=0)))
    'the review proved nothing: none of the 4 moves was solved within the budget'
    """
    moves = len(review.plies)
    unproven = sum(1 for row in review.plies if not row.proven)
    if moves and unproven == moves:
        return f"the review proved nothing: none of the {moves} moves was solved within the budget"
    if review.decisive_ply is None and unproven:
        return (
            f"no decisive mistake proven: {unproven} of {moves} moves not solved within the budget"
        )
    if review.decisive_ply is None:
        return "no decisive mistake: the result is the starting position's value"
    row = review.plies[review.decisive_ply - 1]
    return f"decided at ply {row.ply} ({row.name} plays {row.label}, {row.verdict})"


def player_labels(review: Review) -> tuple[str, str]:
    """The players as the review shows them: the colour, and who played it when known.

    >>> from connect4.review import review
    >>> player_labels(review("4455", names=("random", "perfect")))
    ('red (random)', 'yellow (perfect)')
    """
    first, second = (p.name for p in review.players)
    if review.names is None:
        return first, second
    return f"{first} ({review.names[0]})", f"{second} ({review.names[1]})"


def summary_lines(review: Review) -> list[str]:
    """One line per player (the moves after any imposed opening), then the decisive moment."""
    labels = player_labels(review)
    lines = [p.line(label) for p, label in zip(review.players, labels, strict=True)]
    return [*lines, decisive_text(review)]


def render_table(review: Review) -> Table:
    """A rich table: one row per ply, coloured by verdict; the decisive ply is marked.

    >>> from connect4.review import review
    >>> table = render_table(review("4455"))
    >>> table.row_count, table.columns[3].header
    (4, 'verdict')
    """
    from rich.table import Table

    moves = review.moves or "(empty)"
    board = review.board
    size = "" if board.kind == "tictactoe" else f" {board.width}x{board.height}"
    title = f"{board.kind}{size} {moves}: {review.result}"
    if review.names is not None:
        title += "\n" + " vs ".join(player_labels(review))
    if review.opening:
        title += f"\nplies 1-{review.opening}: the opening, imposed (counted for nobody)"
    table = Table(title=title)
    for name in ("ply", "player", "move", "verdict", "score", "best", "best moves", "lost"):
        table.add_column(
            name, justify="right" if name in ("ply", "score", "best", "lost") else "left"
        )
    table.add_column("scores before the move", no_wrap=True)
    for row in review.plies:
        verdict: str = row.verdict or "not proven"
        if row.ply <= review.opening:
            verdict += " (opening)"
        if row.ply == review.decisive_ply:
            verdict += " ◀ decisive"
        table.add_row(
            str(row.ply),
            row.name,
            row.label,
            verdict,
            "?" if row.played_score is None else str(row.played_score),
            "?" if row.best_score is None else str(row.best_score),
            _labels(review, row.best_moves) or "?",
            "?" if row.loss is None else str(row.loss),
            format_scores(row.scores),
            style=VERDICT_STYLES[row.verdict],
        )
    return table


def plot(review: Review, path: str) -> None:
    """Write a PNG: the exact score after every ply from the first player's view,
    mistakes and blunders marked, the decisive ply drawn as a vertical line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    nan = float("nan")
    plies = list(range(len(review.evaluation)))
    values = [nan if v is None else float(v) for v in review.evaluation]
    first = review.players[0].name
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.plot(plies, values, marker="o", markersize=3, color="black", label=f"score ({first}'s view)")
    for verdict, colour in (("mistake", "orange"), ("blunder", "red")):
        marked = [row.ply for row in review.plies if row.verdict == verdict]
        if not marked:
            continue
        ax.scatter(marked, [values[p] for p in marked], color=colour, zorder=3, label=verdict)
    if review.decisive_ply is not None:
        ax.axvline(review.decisive_ply, color="red", linestyle="--", label="decisive")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("ply")
    ax.set_ylabel("exact score (positive: first player wins)")
    ax.set_title(f"{review.board.kind} {review.moves or '(empty)'}: {review.result}")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
