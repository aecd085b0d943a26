"""Hints in a terminal game: the strongest AI (or the player the user named) asked
for the side to move, its answer as every column's score, its root moves, or its move."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from rich.console import Console

from connect4.core.errors import Connect4Error
from connect4.core.game import Game
from connect4.core.games import Board
from connect4.players import Player, PlayerContext, PlayerSpecError, make_player
from connect4.players.match import play_move
from connect4.terminal.ready import (
    needs_solver,
    strongest_ai,
    uses_solver,
    wait_for_solver,
    wait_until_ready,
)
from connect4.terminal.show import column_table, format_choice


class Hints:
    """The hint player of one game, built on the first hint (``hint_spec``, else the
    strongest AI for ``game_name``), and what asking it prints."""

    def __init__(
        self, players: Sequence[Player], console: Console, game_name: str, hint_spec: str | None
    ) -> None:
        self.players, self.console = players, console
        self.game_name, self.hint_spec = game_name, hint_spec
        self.built: list[Player] = []  # the hint player, built on the first hint

    def player(self, game: Game) -> Player:
        """The player that gives hints, asked afresh each time (``one_off``)."""
        if not self.built:
            spec = self.hint_spec or strongest_ai(self.game_name, game.rules)
            width, height = board_size(game)
            context = PlayerContext(Board(self.game_name, width, height), one_off=True)
            self.built.append(make_player(spec, context))
        return self.built[0]

    def show(self, game: Game) -> None:
        """Print a hint for the side to move (or why there is none)."""
        wait_until_ready(self.players)  # one thing loads the solver at a time
        try:
            if uses_solver(self.hint_spec or strongest_ai(self.game_name, game.rules)) and (
                needs_solver(game)
            ):
                wait_for_solver(game, self.console, "the hint")
            self.console.print(hint_text(game, functools.partial(self.player, game)))
        except (PlayerSpecError, ValueError) as error:
            self.console.print(f"[red]no hint available:[/] {error}")


def hint_text(game: Game, hint_player: Callable[[], Player]) -> str:
    """What ``h`` prints: every column's score if the hint player gives them, else its move."""
    player = hint_player()
    turn = play_move(player, game)
    if turn.choice is None:
        assert turn.forfeit is not None
        raise Connect4Error(f"the hint bot ({player.spec}) failed: {turn.forfeit.text()}")
    choice = turn.choice
    if choice.column_scores is not None and game.kind == "connect4":
        cells = []
        for column, score in enumerate(choice.column_scores):
            label = game.move_label(column)
            cells.append(f"{label}: {'-' if score is None else f'{score:+d}'}")
        return (
            "scores (+n: win, 0: draw, -n: loss; larger = faster): "
            + "  ".join(cells)
            + f"  -> play {game.move_label(choice.move)}"
        )
    if "columns" in choice.stats:
        full = choice.stats.get("tree_full")
        note = f" (tree full at {choice.stats.get('tree_size', 0):,} nodes)" if full else ""
        return f"hint ({player.spec}): play {game.move_label(choice.move)}{note}\n" + column_table(
            choice.stats["columns"]
        )
    if choice.proven is False:  # a search's estimate only: no score to show
        return f"hint ({player.spec}): play {game.move_label(choice.move)} (not proven)"
    detail = format_choice(choice, game.ply, game.width * game.height)
    return f"hint ({player.spec}): play {game.move_label(choice.move)}" + (
        f" ({detail})" if detail else ""
    )


def board_size(game: Game) -> tuple[int, int]:
    """``(width, height)`` of a game, for building players (3x3 for tic-tac-toe)."""
    return game.width, game.height
