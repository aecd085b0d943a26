"""Tournaments between players: schedule, play, results, summaries, ratings and the lab.

One module per concern, each importing only those before it:
``schedule`` (config, openings, the game list), ``record`` (the stored game),
``ratings`` (Bradley–Terry Elo), ``accuracy`` (each game reviewed),
``store`` (the resumable results file), ``play`` (a game with forfeits,
the game pool, the run), ``summary`` (standings, crosstable), ``report`` (CSV,
tables), ``lab`` (the heuristic lab: config and running) and
``labreport`` (its Markdown report and plots). The commands are in
:mod:`connect4.cli`.

>>> from connect4.arena import ArenaConfig, run_tournament, summarize
>>> from connect4.core import Board
>>> config = ArenaConfig(players=("random", "random:seed=1"), board=Board("tictactoe"), seed=1)
>>> summarize(config, run_tournament(config).records).games_played
2
"""

from __future__ import annotations

from connect4.arena.accuracy import game_verdicts, review_record
from connect4.arena.play import TournamentRun, play_scheduled, run_tournament
from connect4.arena.ratings import Rating, fit_ratings
from connect4.arena.record import COLOURS, Colour, ResultLine
from connect4.arena.report import render_summary, write_csv
from connect4.arena.schedule import (
    ArenaConfig,
    ArenaError,
    ScheduledGame,
    all_openings,
    load_openings,
    make_schedule,
)
from connect4.arena.store import ResultsStore
from connect4.arena.summary import CrossCell, PlayerStats, Standing, Summary, summarize

__all__ = [
    "COLOURS",
    "ArenaConfig",
    "ArenaError",
    "Colour",
    "CrossCell",
    "PlayerStats",
    "Rating",
    "ResultLine",
    "ResultsStore",
    "ScheduledGame",
    "Standing",
    "Summary",
    "TournamentRun",
    "all_openings",
    "fit_ratings",
    "game_verdicts",
    "load_openings",
    "make_schedule",
    "play_scheduled",
    "render_summary",
    "review_record",
    "run_tournament",
    "summarize",
    "write_csv",
]
