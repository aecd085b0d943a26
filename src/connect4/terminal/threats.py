"""The threat map in a terminal: the board with each side's threats drawn on it, the
threats listed, and why the position stands as it does (a simple rule, or the
solver's line where none explains it). ``connect4 threats`` and the ``t`` key of a
terminal game print it."""

from __future__ import annotations

from rich.text import Text

from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.core.score import score_label
from connect4.learn.threats import Threat, ThreatMap, explain, solver_line, threat_map
from connect4.terminal.show import Marks, render_board

THREAT_SECONDS = 10.0  # the solver's time for its line where no simple rule explains a position

SYMBOLS = {1: ("r", "bold red"), 2: ("y", "bold yellow"), 3: ("b", "bold magenta")}
LEGEND = (
    "r, y: a cell that would complete a four for red, yellow (b: for both); "
    "capital: playable now; dim: dead (the game ends below it)"
)
NO_RULE = "no simple rule explains this"


def threat_marks(found: ThreatMap) -> Marks:
    """Each threat cell's symbol and style: ``r``, ``y`` or ``b`` (both), a capital
    where the cell is playable now, dim where every threat on it is dead.

    >>> from connect4 import Position
    >>> threat_marks(threat_map(Position.from_moves("445566")))[(2, 0)]
    ('R', 'bold red')
    """
    marks: dict[tuple[int, int], tuple[str, str]] = {}
    for cell, owners in found.cells().items():
        threats = [t for t in (*found.red, *found.yellow) if (t.column, t.row) == cell]
        symbol, style = SYMBOLS[owners]
        if threats[0].playable:
            symbol = symbol.upper()
        if not any(t.live for t in threats):
            style = "dim " + style.removeprefix("bold ")
        marks[cell] = (symbol, style)
    return marks


def threat_words(threat: Threat) -> str:
    """One threat in words: ``column 3 row 1 (odd, playable now)``.

    >>> threat_words(Threat(2, 0, 1, True, True, True))
    'column 3 row 1 (odd, playable now)'
    """
    notes = ["odd" if threat.odd else "even"]
    if threat.playable:
        notes.append("playable now")
    if not threat.live:
        notes.append("dead")
    return f"column {threat.column + 1} row {threat.row + 1} ({', '.join(notes)})"


def why_line(game: Game, limit: Limit | None) -> str:
    """Why the position stands as it does: the simple rule that proves it, else the
    solver's verdict and line within ``limit`` (Connect Four, standard rules)."""
    if game.rules != "standard":
        return (
            "under count-fours a four does not end the game: a threat is a cell that would "
            "complete a new four-cell line, and no simple rule explains the verdict"
        )
    found = explain(game)
    if found is not None:
        return found.sentence
    line = solver_line(game, limit)
    if line.score is None:
        return f"{NO_RULE}, and the solver did not settle it within the time limit"
    side = ("red", "yellow")[game.to_move - 1]
    verdict = f"{side}: {score_label(line.score, game.ply, game.size)}, score {line.score:+d}"
    cut = "" if line.complete else ", cut short by the time limit"
    return f"{NO_RULE}; the solver's line: {line.text() or '-'} ({verdict}{cut})"


def threat_report(game: Game, limit: Limit | None = None) -> Text:
    """The threat map as the terminal shows it: the board with the threats drawn on
    it, a legend, each side's threats, and :func:`why_line`.

    Raises :class:`~connect4.learn.threats.ThreatError` for another game or one that
    is over.
    """
    found = threat_map(game)
    text = render_board(game, threat_marks(found))
    text.append(LEGEND + "\n", style="dim")
    for player, name in ((1, "red"), (2, "yellow")):
        listed = "; ".join(threat_words(t) for t in found.of(player)) or "none"
        text.append(f"{name} threats: ", style="bold red" if player == 1 else "bold yellow")
        text.append(listed + "\n")
    text.append("why: ", style="bold")
    text.append(why_line(game, limit) + "\n")
    return text
