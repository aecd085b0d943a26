"""Terminal play: a rich board, human input with undo/hints/quit, AI players.

With stdin a terminal, humans are prompted; otherwise one move per line is read
from stdin, so a whole game can be piped in::

    printf '4\\n4\\n5\\n5\\n6\\n6\\n7\\n' | connect4 play --red human --yellow human
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from rich.console import Console
from rich.text import Text

from connect4.core.errors import Connect4Error, IllegalMoveError, InvalidMoveError, clip
from connect4.core.files import LineTooLongError, read_input_line
from connect4.core.game import Game
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import is_mate, outcome_label, score_label, score_of_mate
from connect4.players import (
    KINDS,
    ColumnStats,
    MoveChoice,
    Player,
    PlayerContext,
    PlayerSpecError,
    make_player,
    parse_spec,
    rehearse,
)
from connect4.players.match import AGAIN, GameRecord, Turn, play_match, play_move

PLAYER_NAMES = {"connect4": ("red", "yellow"), "tictactoe": ("X", "O")}


def strongest_ai(game: str, rules: str = "standard") -> str:
    """The spec of the strongest AI available for a game (used by ``make play`` and hints)."""
    if game == "connect4" and rules == "standard" and "perfect" in KINDS:
        return "perfect"
    if "alphabeta" in KINDS:
        return "alphabeta:depth=9" if game == "tictactoe" else "alphabeta:level=hard"
    return "random"


def uses_solver(spec: str) -> bool:
    """True for a player that searches with the exact solver once past the opening book.

    >>> uses_solver("perfect:level=hard"), uses_solver("alphabeta:depth=4")
    (True, False)
    """
    try:
        return parse_spec(spec).kind.name == "perfect"
    except PlayerSpecError:  # a player of no registered kind (built in code): no solver
        return False


def start_solver_compile(game: Game, console: Console) -> bool:
    """On a first run, compile the solver in the background for a Connect Four game
    (its opening moves come from the book meanwhile) and say so; True while it compiles."""
    from connect4.solver.backend import compile_in_background

    if game.kind != "connect4" or game.rules != "standard":
        return False
    if not compile_in_background(game.width, game.height):
        return False
    console.print(
        "[dim]compiling the solver in the background (first run only); "
        "the opening moves come from the book meanwhile[/]"
    )
    return True


def needs_solver(game: Game) -> bool:
    """True while the solver compiles in the background and the opening book does not
    hold the scores of all of ``game``'s moves."""
    from connect4.players.perfect import PerfectEngine
    from connect4.solver.backend import compile_pending

    if game.kind != "connect4" or not compile_pending(game.width, game.height):
        return False
    return PerfectEngine(game.width, game.height).book_scores(Position.of(game)) is None


def wait_for_solver(game: Game, console: Console, who: str) -> None:
    """Wait, with a line before and after, for the solver compiling in the background."""
    from connect4.solver.backend import wait_for_compile

    console.print(f"[dim]{who} needs the solver: still compiling (first run only)...[/]")
    waited = wait_for_compile(game.width, game.height)
    console.print(f"[dim]the solver is ready ({waited:.0f} s)[/]")


class BackgroundPlayer:
    """A computer player made ready on a thread while the first prompt waits for the
    human: ``prepare`` builds it (loads its book, rehearses its search) and returns it;
    any use of the player waits for that first.

    >>> from connect4.players import make_player
    >>> player = BackgroundPlayer("random", lambda: make_player("random", seed=1))
    >>> player.is_human, player.ready().spec
    (False, 'random')
    """

    is_human = False

    def __init__(self, spec: str, prepare: Callable[[], Player]) -> None:
        self.spec = spec
        self._player: Player | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._prepare, args=(prepare,), name=f"connect4-ready-{spec}", daemon=True
        )
        self._thread.start()

    def _prepare(self, prepare: Callable[[], Player]) -> None:
        try:
            self._player = prepare()
        except BaseException as error:  # raised again where the player is used
            self._error = error

    def ready(self) -> Player:
        """The player, once prepared (its preparation's error, raised again)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._player is not None
        return self._player

    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """The prepared player's move."""
        return self.ready().choose(game, limit)

    def warm_up(self) -> None:
        """Prepared already: waits for the preparation."""
        self.ready()

    def record_trees(self, on: bool) -> bool:
        """The prepared player's answer."""
        return self.ready().record_trees(on)

    def close(self) -> None:
        """Close the prepared player (after its preparation ends; a failed one: nothing)."""
        self._thread.join()
        if self._player is not None:
            self._player.close()


def wait_until_ready(players: Sequence[Player]) -> None:
    """Wait for the players still being prepared on a thread (:class:`BackgroundPlayer`);
    a failed preparation is left for the move to report."""
    for player in players:
        if isinstance(player, BackgroundPlayer):
            with contextlib.suppress(Exception):
                player.ready()


def ready_players(
    specs: Sequence[str], chosen: Sequence[bool], board: Board, seed: int | None, compiling: bool
) -> list[Player]:
    """The game's players in order. A spec the user named is built at once (a wrong one
    is an error before the game starts); a computer player's rehearsal, and the whole
    build of one chosen for the user (``chosen``), run on a thread while the first prompt
    waits (:class:`BackgroundPlayer`). While the solver compiles, players that use it
    are not rehearsed. ``seed``: the first player's seed, the next one's ``seed + 1``.

    >>> red, yellow = ready_players(["human", "random"], [False, True], Board(), 1, False)
    >>> red.is_human, yellow.is_human, yellow.spec
    (True, False, 'random')
    """
    players: list[Player] = []
    for index, (spec, auto) in enumerate(zip(specs, chosen, strict=True)):
        context = PlayerContext(board, None if seed is None else seed + index)
        built = None if auto else make_player(spec, context)
        if built is not None and built.is_human:
            players.append(built)
            continue
        practise = not (compiling and uses_solver(spec))
        prepare = functools.partial(_prepare, spec, built, context, practise)
        players.append(BackgroundPlayer(spec, prepare))
    return players


def _prepare(spec: str, built: Player | None, context: PlayerContext, practise: bool) -> Player:
    """Build ``spec`` unless ``built``; with ``practise``, rehearse it (compiled and
    loaded now, not between the human's move and its answer)."""
    player = built if built is not None else make_player(spec, context)
    if practise:
        rehearse(spec, context.board.new(), PlayerContext(context.board))
    return player


def render_board(game: Game) -> Text:
    """The board as rich text: coloured discs, last move and winning line marked.

    >>> from connect4 import TicTacToe
    >>> render_board(TicTacToe.from_moves("5")).plain.split()
    ['7', '8', '9', '4', 'X', '6', '1', '2', '3']
    """
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


class LineReader:
    """Reads human input: a prompt on a terminal, plain lines from a pipe (each at most
    :data:`~connect4.core.files.MAX_INPUT_LINE` characters: a longer one raises
    :class:`~connect4.core.files.LineTooLongError`, read no further)."""

    def __init__(self, stream: TextIO, console: Console) -> None:
        self.stream = stream
        self.console = console
        self.interactive = stream.isatty()
        self.source = getattr(stream, "buffer", stream)  # bytes: a bad byte is replaced
        self.lines = 0

    def read(self, prompt: str) -> str | None:
        """One line without its newline, or ``None`` at end of input."""
        if self.interactive:
            try:
                return self.console.input(prompt)
            except EOFError:
                return None
        self.console.print(prompt, end="")
        self.lines += 1
        try:
            line = read_input_line(self.source, self.lines, "input line")
        except LineTooLongError:
            self.console.print()
            raise
        if line is None:
            self.console.print()
            return None
        self.console.print(clip(line), highlight=False)  # a pasted novel: cut
        return line


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


class TerminalTurns:
    """The terminal's side of the one game loop (:func:`~connect4.players.match.play_match`):
    a person's turn is a prompt (a move, ``u`` undo, ``h`` hint, ``q`` quit), a computer's
    a move without a clock, announced; the board is shown after each."""

    def __init__(
        self,
        players: tuple[Player, Player],
        names: tuple[str, str],
        console: Console,
        reader: LineReader,
        *,
        game_name: str,
        hint_spec: str | None,
        show_board: bool,
    ) -> None:
        self.players, self.names, self.console, self.reader = players, names, console, reader
        self.game_name, self.hint_spec, self.show_board = game_name, hint_spec, show_board
        self.hints: list[Player] = []  # the hint player, built on the first hint

    def ask(self, mover: Player, game: Game, record: GameRecord) -> Turn | None:
        """The side to move's turn: a person's from the prompt, a computer's own."""
        if mover.is_human:
            return self.human_turn(game, record)
        return self.computer_turn(mover, game)

    def shown(self, game: Game, turn: Turn) -> None:
        """After a turn: the board, unless the turn was a forfeit."""
        if self.show_board and turn.forfeit is None:
            self.console.print(render_board(game))

    def hint_player(self, game: Game) -> Player:
        """The player that gives hints, asked afresh each time (``one_off``)."""
        if not self.hints:
            spec = self.hint_spec or strongest_ai(self.game_name, game.rules)
            width, height = board_size(game)
            context = PlayerContext(Board(self.game_name, width, height), one_off=True)
            self.hints.append(make_player(spec, context))
        return self.hints[0]

    def hint(self, game: Game) -> None:
        """Print a hint for the side to move (or why there is none)."""
        wait_until_ready(self.players)  # one thing loads the solver at a time
        try:
            if uses_solver(self.hint_spec or strongest_ai(self.game_name, game.rules)) and (
                needs_solver(game)
            ):
                wait_for_solver(game, self.console, "the hint")
            self.console.print(hint_text(game, functools.partial(self.hint_player, game)))
        except (PlayerSpecError, ValueError) as error:
            self.console.print(f"[red]no hint available:[/] {error}")

    def human_turn(self, game: Game, record: GameRecord) -> Turn | None:
        """Prompt until a legal move (its thinking time from the last prompt), an undo
        (:data:`AGAIN`) or the end: ``q`` or the end of input (``None``)."""
        name = self.names[game.to_move - 1]
        what = "column" if game.kind == "connect4" else "cell"
        while True:
            started = time.perf_counter()
            line = self.reader.read(f"{name} to move — {what}, u undo, h hint, q quit: ")
            played = f"{moves_text(game.ply)} ({game.moves or 'empty board'})"
            if line is None:
                self.console.print(
                    f"[bold]end of input[/] before the game ended: stopped after {played}"
                )
                return None
            command = line.strip().lower()
            if command in ("q", "quit", "exit"):
                self.console.print(f"quit after {played}")
                return None
            if command in ("u", "undo"):
                undo_turn(game, self.players, record, self.console)
                return AGAIN
            if command in ("h", "hint", "?"):
                self.hint(game)
                continue
            try:
                move = game.parse_move(command)
                game.copy().play(move)  # a full column, a taken cell: refused here
            except (InvalidMoveError, IllegalMoveError) as error:
                self.console.print(f"[red]{error}[/] — try again")
                continue
            return Turn(MoveChoice(move=move), time.perf_counter() - started)

    def computer_turn(self, mover: Player, game: Game) -> Turn:
        """A computer's move (its set-up waited for first, off its clock), announced."""
        name = self.names[game.to_move - 1]
        wait_until_ready([mover])  # its set-up is not its thinking time
        if uses_solver(mover.spec) and needs_solver(game):
            wait_for_solver(game, self.console, f"{name} ({mover.spec})")
        turn = play_move(mover, game)
        if turn.choice is None:
            assert turn.forfeit is not None
            self.console.print(
                f"[bold red]{name.capitalize()} ({mover.spec}) forfeits:[/] {turn.forfeit.text()}"
            )
            return turn
        detail = format_choice(turn.choice, game.ply, game.width * game.height)
        self.console.print(  # one line, however long: a wrapped one ended in ", "
            f"{name} ({mover.spec}) plays {game.move_label(turn.choice.move)}"
            + (f"  [dim]{detail}[/]" if detail else ""),
            soft_wrap=True,
        )
        return turn


def play_game(
    game: Game,
    red: Player,
    yellow: Player,
    *,
    game_name: str = "connect4",
    console: Console | None = None,
    stdin: TextIO | None = None,
    hint_spec: str | None = None,
    show_board: bool = True,
) -> GameRecord:
    """Play one game to its end (or until the humans quit) and return its record: the
    one game loop with the terminal's turns (:class:`TerminalTurns`)."""
    console = console or Console()
    names = PLAYER_NAMES.get(game_name, ("red", "yellow"))
    turns = TerminalTurns(
        (red, yellow),
        names,
        console,
        LineReader(stdin or sys.stdin, console),
        game_name=game_name,
        hint_spec=hint_spec,
        show_board=show_board,
    )
    if show_board:
        console.print(render_board(game))
    record = play_match(game, (red, yellow), ask=turns.ask, after=turns.shown)
    if record.forfeit is not None:
        winner = names[3 - record.forfeit - 1].capitalize()
        console.print(
            f"[bold]{winner} wins by forfeit[/] after {moves_text(game.ply)}: {game.moves}"
        )
    elif record.finished:
        console.print(result_line(game, names))
    return record


def board_size(game: Game) -> tuple[int, int]:
    """``(width, height)`` of a game, for building players (3x3 for tic-tac-toe)."""
    return game.width, game.height


def undo_turn(
    game: Game, players: tuple[Player, Player], record: GameRecord, console: Console
) -> None:
    """Undo one ply against a human, or back to the human's previous turn against an AI."""
    if game.ply == 0:
        console.print("[red]nothing to undo[/]")
        return
    game.undo()
    for figures in (record.move_seconds, record.move_stats):
        if figures:
            figures.pop()
    while game.ply > 0 and not players[game.to_move - 1].is_human:
        game.undo()
        for figures in (record.move_seconds, record.move_stats):
            if figures:
                figures.pop()
    console.print(f"undone: back to {game.moves or 'the empty board'}")


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


REVIEW_SECONDS = 10.0  # the end-of-game review's time limit; later positions are not proven


def review_summary(moves: str, board: Board, time_limit: float = REVIEW_SECONDS) -> list[str]:
    """The game review's summary of a finished game (``[]`` for count-fours: not solvable).

    >>> for line in review_summary("51238", Board("tictactoe")):
    ...     print(line)
    Game review:
    X: accuracy 100.0 % (3 of 3 moves best), 0 good, 0 mistakes, 0 blunders
    O: accuracy 50.0 % (1 of 2 moves best), 0 good, 1 mistake, 0 blunders
    decided at ply 4 (O plays 3, mistake)
    every move: connect4 review 51238 --game tictactoe
    """
    from connect4.review import ReviewError, review
    from connect4.review.report import summary_lines

    try:
        result = review(moves, board, limit=Limit.within(time_limit))
    except ReviewError:
        return []
    command = f"connect4 review {moves or chr(34) * 2}"
    if board.kind == "tictactoe":
        command += " --game tictactoe"
    elif (board.width, board.height) != (7, 6):
        command += f" --width {board.width} --height {board.height}"
    return ["Game review:", *summary_lines(result), f"every move: {command}"]
