"""Playing in a terminal: a rich board, a person's moves with undo, hints and quit,
computer players made ready while the first prompt waits, forfeits, and the game
review's summary at the end.

A game can also be piped in, one move a line (see :mod:`connect4.terminal.turns`).
"""

from __future__ import annotations

from connect4.terminal.game import (
    PLAYER_NAMES,
    REVIEW_SECONDS,
    game_review,
    play_game,
    review_summary,
    summary_of,
)
from connect4.terminal.hints import hint_text
from connect4.terminal.ready import (
    BackgroundPlayer,
    ready_players,
    start_solver_compile,
    strongest_ai,
    uses_solver,
    wait_until_ready,
)
from connect4.terminal.show import format_choice, render_board, result_line, value_words
from connect4.terminal.turns import KEYS, LineReader, TerminalTurns

__all__ = [
    "KEYS",
    "PLAYER_NAMES",
    "REVIEW_SECONDS",
    "BackgroundPlayer",
    "LineReader",
    "TerminalTurns",
    "format_choice",
    "game_review",
    "hint_text",
    "play_game",
    "ready_players",
    "render_board",
    "result_line",
    "review_summary",
    "start_solver_compile",
    "strongest_ai",
    "summary_of",
    "uses_solver",
    "value_words",
    "wait_until_ready",
]
