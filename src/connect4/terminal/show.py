"""What the terminal shows: the board, an AI move's figures in words, a Monte Carlo
tree search's root moves, and the closing line of a game."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

from connect4.core.game import Game
from connect4.core.score import is_mate, outcome_label, score_label, score_of_mate
from connect4.players import ColumnStats, MoveChoice

Marks = Mapping[tuple[int, int], tuple[str, str]]
"""Empty cells drawn with a symbol of their own: ``(column, row) -> (symbol, style)``."""


def render_board(game: Game, marks: Marks | None = None) -> Text:
    """The board as rich text: coloured discs, last move and winning line marked, and
    each empty cell of ``marks`` (a Connect Four board's) drawn with its symbol.

    >>> from connect4 import Position, TicTacToe
    >>> render_board(TicTacToe.from_moves("5")).plain.split()
    ['7', '8', '9', '4', 'X', '6', '1', '2', '3']
    >>> render_board(Position.from_moves("1", 4, 4), {(1, 0): ("r", "red")}).plain.split()[-10:-6]
    ['│(●)', 'r', '·', '·']
    """
    marks = marks or {}
    text = Text()
    winning = game.winning_cells()
    last = game.last_cell()
    styles = ("dim", "bold red", "bold yellow")
    framed = game.kind == "connect4"  # a Connect Four frame, column labels below it
    for row in reversed(range(game.height)):
        if framed:
            text.append("│", style="blue")
        for column in range(game.width):
            owner = game.owner(column, row)
            style = styles[owner]
            if (column, row) in winning or (not framed and (column, row) == last):
                style += " reverse"
            if framed:
                is_last = (column, row) == last
                text.append("(" if is_last else " ", style="bold white")
                mark = marks.get((column, row)) if not owner else None
                if mark is not None:
                    text.append(mark[0], style=mark[1])
                else:
                    text.append("·●○"[owner], style=style)
                text.append(")" if is_last else " ", style="bold white")
            else:
                label = "·XO"[owner] if owner else game.move_label(game.cell_move(column, row))
                text.append(f" {label} ", style=style)
        text.append("│\n" if framed else "\n", style="blue")
    if framed:
        text.append("└" + "───" * game.width + "┘\n", style="blue")
        text.append(" " + "".join(f" {game.move_label(c)} " for c in range(game.width)) + "\n")
    return text


def value_words(choice: MoveChoice, ply: int, size: int) -> str | None:
    """An AI's value of its move in words, for the mover at ``ply`` stones on a board of
    ``size`` cells: an exact score or a proven game end as ``win in n`` / ``draw`` /
    ``loss in n`` (the solver's score beside it), a search's estimate as ``heuristic``,
    a Monte Carlo tree search's mean result as ``mean``, a network's own estimate of
    the outcome (from -1, a loss, to +1) as ``network value``; ``None`` for no value.

    >>> from connect4.core.score import MATE
    >>> value_words(MoveChoice(3, MATE - 9, proven=True), 4, 42)
    'win in 3'
    >>> value_words(MoveChoice(3, 2, {"source": "solver"}, proven=True), 4, 42)
    'score +2 (win in 18)'
    >>> value_words(MoveChoice(3, 7.0), 4, 42)
    'heuristic +7'
    >>> value_words(MoveChoice(3, 0.25, {"playouts": 900}), 4, 9)
    'mean +0.250'
    >>> value_words(MoveChoice(3, 0.7001, {"engine": "policy"}), 4, 42)
    'network value +0.700'

    A search that reached every game end (its depth covers the empty cells) knows its
    value exactly: no heuristic was asked.

    >>> value_words(MoveChoice(0, 0, {"depth": 8}), 1, 9)
    'draw with best play'
    """
    value = choice.value
    if value is None:
        return None
    if choice.stats.get("source") in ("book", "solver") and choice.proven:
        score = int(value)
        return f"score {score:+d} ({score_label(score, ply, size)})"
    if is_mate(value):
        return score_label(score_of_mate(value, size), ply, size)
    depth = choice.stats.get("depth")
    if isinstance(depth, int) and depth >= size - ply and "playouts" not in choice.stats:
        return "draw with best play" if value == 0 else f"exact {value:+g}"
    if "playouts" in choice.stats:
        return f"mean {value:+.3f}"
    if choice.stats.get("engine") == "policy":
        return f"network value {value:+.3f}"
    return f"heuristic {value:+g}"


def format_choice(choice: MoveChoice, ply: int, size: int) -> str:
    """A short line of an AI move's figures: its value in words (:func:`value_words`),
    nodes or playouts, time, depth, a Monte Carlo tree search's full tree and root visits.

    >>> format_choice(MoveChoice(3, 0.1, {"playouts": 9, "tree_size": 60, "tree_full": True,
    ...     "columns": [ColumnStats(move="4", visits=9, value=0.1, proven=None)]}), 0, 42)
    'mean +0.100, playouts 9, tree full at 60 nodes, visits 4:9'
    """
    parts = []
    words = value_words(choice, ply, size)
    if words is not None:
        parts.append(words)
    for key in ("nodes", "playouts", "depth"):
        if key in choice.stats:
            parts.append(f"{key} {choice.stats[key]}")
    if "seconds" in choice.stats:
        parts.append(f"{float(choice.stats['seconds']):.3f} s")
    if choice.proven is False:
        parts.append("not proven")
    if choice.stats.get("tree_full"):
        parts.append(f"tree full at {choice.stats.get('tree_size', 0):,} nodes")
    if "columns" in choice.stats:
        parts.append(
            "visits " + " ".join(f"{c['move']}:{c['visits']}" for c in choice.stats["columns"])
        )
    return ", ".join(parts)


def column_table(columns: list[ColumnStats]) -> str:
    """A Monte Carlo tree search's root moves, one line each: visits, mean value, proof.

    >>> print(column_table([ColumnStats(move="4", visits=90, value=0.125, proven=None),
    ...                     ColumnStats(move="5", visits=10, value=-1.0, proven=-1)]))
    move  visits   value  proven
       4      90  +0.125
       5      10  -1.000  loss
    """
    lines = ["move  visits   value  proven"]
    for column in columns:
        lines.append(
            f"{column['move']:>4}  {column['visits']:>6}  {column['value']:+.3f}  "
            f"{outcome_label(column['proven'])}".rstrip()
        )
    return "\n".join(lines)


def moves_text(count: int) -> str:
    """``1 move``, ``2 moves``.

    >>> moves_text(1), moves_text(0)
    ('1 move', '0 moves')
    """
    return f"{count} move" if count == 1 else f"{count} moves"


def result_line(game: Game, names: tuple[str, str]) -> str:
    """The closing line: who won, or a draw (with count-fours scores, the winner's first).

    >>> from connect4 import Position
    >>> game = Position.from_moves("23425142335214115354", 5, 4, rules="count-fours")
    >>> game.score_of(1), game.score_of(2)
    (1, 2)
    >>> result_line(game, ("red", "yellow"))
    '[bold yellow]Yellow wins[/] (2-1 fours) after 20 moves: 23425142335214115354'
    """
    who = game.winner()
    score = ""
    if game.rules == "count-fours":
        first = who or 1
        score = f" ({game.score_of(first)}-{game.score_of(3 - first)} fours)"
    if who is None:
        return f"[bold]Draw[/]{score} after {moves_text(game.ply)}: {game.moves}"
    style = "bold red" if who == 1 else "bold yellow"
    winner = names[who - 1].capitalize()
    return f"[{style}]{winner} wins[/]{score} after {moves_text(game.ply)}: {game.moves}"
