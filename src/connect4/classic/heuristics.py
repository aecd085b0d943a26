"""Named evaluation functions for depth-limited search, with their authors' exact numbers.

Every heuristic scores a position for one player (``player``, 1 or 2): positive
is good for that player. Search calls it with the root player, so the asymmetric
``windows/zer0lose`` weights mean "the AI's lines" and "the human's lines" as in
that AI. Connect Four heuristics work on any board size; each is one function of
:mod:`connect4.classic.node` (shifts and ANDs on the two bitboards, no loop over
cells), the same one the compiled search runs at its leaves.

============================  ==============================================================
name                          source and rule
============================  ==============================================================
``windows``                   = ``windows/mollerhoj``
``windows/mollerhoj``         mollerhoj's Connect-4-AI: every four-cell window holding one
                              colour only, ±1, ±10, ±100, ±1000 for 1, 2, 3, 4 discs
``windows/zer0lose``          zer0lose's AI: +1, +10, +1000, +100000 / −1, −10, −500 (−100000)
``windows/report``            the report AI: 2: ±10, 3: ±100, 4: ±1000; a won position ±inf
``cell-weights``              the Power-4 contest AI: each disc scores the number of windows
                              through its cell
``recent-lines``              the Power-4 contest AI: 1 / 3 / 1000 for 2 / 3 / 4 discs, on
                              the windows through the last two moves only
``cell-weights+recent-lines`` the Power-4 contest AI's sum of both
``adjacency``                 Smart-Connect-4: neighbours +15 same colour, +10 empty and
                              playable, +5 empty not yet playable; + 642 × count-fours lead
``threats``                   ours: threats, reachability, odd/even parity (Allis)
============================  ==============================================================

On tic-tac-toe ``windows`` uses the eight lines of three with the preset's
1/2/3 weights and ``cell-weights`` the number of lines through each cell.

>>> from connect4 import Position
>>> p = Position.from_moves("4455")  # yellow's discs sit higher: more open windows
>>> evaluate("windows", p, 1), evaluate("cell-weights", p, 1)
(-6, -6)
>>> p.play(5)  # red's third disc in a row: 4, 5, 6
>>> evaluate("windows", p, 1), evaluate("windows/report", p, 2)
(176, -180)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

from connect4.classic.node import (
    EVAL_ADJACENCY,
    EVAL_CELLS,
    EVAL_THREATS,
    EVAL_WINDOWS,
    adjacency_score,
    cells_score,
    lines_score,
    threats_score,
    windows_score,
)
from connect4.core.bits import MAX_BOARD_BITS
from connect4.core.errors import unknown_choice
from connect4.core.game import Game, GameKind
from connect4.core.position import board_mask, bottom_mask
from connect4.core.tictactoe import FULL, LINES

Evaluate = Callable[[Game, int], float]


@dataclass(frozen=True)
class Heuristic:
    """A named evaluation function: ``heuristic(game, player)`` scores for ``player``.

    ``path_dependent`` heuristics look at the last moves, not only the position
    (search then keys its transposition table on them too). ``code`` and ``weights``
    say which function of :mod:`connect4.classic.node` scores a leaf with which
    numbers (the same ones ``evaluate`` passes it); ``code`` is None for a heuristic
    the compiled engine does not run.
    """

    name: str
    description: str
    source: str
    evaluate: Evaluate
    games: tuple[GameKind, ...] = ("connect4", "tictactoe")
    path_dependent: bool = False
    code: int | None = None
    weights: tuple[int, ...] = ()

    def __call__(self, game: Game, player: int) -> float:
        return self.evaluate(game, player)


# ---------------------------------------------------------------- geometry
@dataclass(frozen=True)
class Geometry:
    """Bit masks of one board, computed once (the flat sequences of
    :mod:`connect4.classic.node`).

    ``directions`` holds ``shift, starts`` pairs: ``starts`` has a 1 at the lowest
    cell of every four-cell window in that direction (shifts 1 vertical, ``H+1``
    horizontal, ``H`` down-right diagonal, ``H+2`` up-right diagonal); tic-tac-toe
    has none and its eight ``lines`` instead.
    """

    width: int
    height: int
    board: int
    bottom: int
    directions: tuple[int, ...]
    windows: int
    cell_weight: tuple[int, ...]  # by bit index (0 for sentinel bits)
    weight_masks: tuple[int, ...]  # weight, cells with that weight, weight, ...
    odd_rows: int  # rows 1, 3, 5, ... counted from 1 at the bottom
    lines: tuple[int, ...] = ()


def _weight_masks(weight: list[int]) -> tuple[int, ...]:
    masks: dict[int, int] = {}
    for bit, w in enumerate(weight):
        if w:
            masks[w] = masks.get(w, 0) | 1 << bit
    return tuple(n for pair in sorted(masks.items()) for n in pair)


@functools.cache
def geometry(width: int, height: int) -> Geometry:
    """The masks of a ``width x height`` Connect Four board.

    >>> g = geometry(7, 6)
    >>> g.windows, max(g.cell_weight), min(w for w in g.cell_weight if w)
    (69, 13, 3)
    """
    board = board_mask(width, height)
    directions: list[int] = []
    weight = [0] * (width * (height + 1))
    total = 0
    for shift in (1, height + 1, height, height + 2):
        starts = 0
        for bit in range(width * (height + 1)):
            cells = [bit + k * shift for k in range(4)]
            if all(c < width * (height + 1) and board >> c & 1 for c in cells):
                # a window must not wrap: column steps are 0 (vertical) or 1
                cols = [c // (height + 1) for c in cells]
                step = 0 if shift == 1 else 1
                if all(cols[k + 1] - cols[k] == step for k in range(3)):
                    starts |= 1 << bit
                    total += 1
                    for c in cells:
                        weight[c] += 1
        directions += (shift, starts)
    bottom = bottom_mask(width, height)
    return Geometry(
        width=width,
        height=height,
        board=board,
        bottom=bottom,
        directions=tuple(directions),
        windows=total,
        cell_weight=tuple(weight),
        weight_masks=_weight_masks(weight),
        odd_rows=bottom * sum(1 << r for r in range(0, height, 2)),
    )


@functools.cache
def _tictactoe_geometry() -> Geometry:
    weight = [sum(line >> cell & 1 for line in LINES) for cell in range(9)]
    return Geometry(3, 3, FULL, 0, (), len(LINES), tuple(weight), _weight_masks(weight), 0, LINES)


def board_geometry(game: Game) -> Geometry:
    """The masks of ``game``'s board, Connect Four or tic-tac-toe.

    >>> from connect4 import TicTacToe
    >>> board_geometry(TicTacToe()).weight_masks  # corners 3 lines, edges 2, centre 4
    (2, 170, 3, 325, 4, 16)
    """
    if game.kind == "tictactoe":
        return _tictactoe_geometry()
    return geometry(game.width, game.height)


def cell_weight_table(width: int = 7, height: int = 6) -> list[list[int]]:
    """The number of four-cell lines through each cell, top row first.

    >>> for row in cell_weight_table(): print(row)
    [3, 4, 5, 7, 5, 4, 3]
    [4, 6, 8, 10, 8, 6, 4]
    [5, 8, 11, 13, 11, 8, 5]
    [5, 8, 11, 13, 11, 8, 5]
    [4, 6, 8, 10, 8, 6, 4]
    [3, 4, 5, 7, 5, 4, 3]
    """
    g = geometry(width, height)
    return [
        [g.cell_weight[c * (height + 1) + r] for c in range(width)] for r in reversed(range(height))
    ]


# ---------------------------------------------------------------- windows
WINDOW_PRESETS: dict[str, tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = {
    # name: (own weights for 1..4 discs, opponent weights for 1..4 discs)
    "mollerhoj": ((1, 10, 100, 1000), (-1, -10, -100, -1000)),
    "zer0lose": ((1, 10, 1000, 100000), (-1, -10, -500, -100000)),
    "report": ((0, 10, 100, 1000), (0, -10, -100, -1000)),
}


def _windows_weights(preset: str) -> tuple[int, ...]:
    mine, theirs = WINDOW_PRESETS[preset]
    return (*mine, *theirs)


def make_windows(preset: str) -> Evaluate:
    """The windows evaluation with one of :data:`WINDOW_PRESETS` (tic-tac-toe: its lines).

    >>> from connect4 import TicTacToe
    >>> make_windows("mollerhoj")(TicTacToe.from_moves("51"), 1)  # X centre, O corner
    1
    """
    weights = _windows_weights(preset)
    infinite_win = preset == "report"

    def evaluate(game: Game, player: int) -> float:
        own, opp = game.stones(player), game.stones(3 - player)
        if game.kind == "tictactoe":
            return lines_score(own, opp, LINES, weights)
        if infinite_win and game.rules == "standard" and game.winner() is not None:
            return math.inf if game.winner() == player else -math.inf
        return windows_score(own, opp, geometry(game.width, game.height).directions, weights)

    return evaluate


# ---------------------------------------------------------------- cell weights
def cell_weights(game: Game, player: int) -> float:
    """Own discs' cell weights minus the opponent's (the Power-4 contest AI's first
    heuristic).

    >>> from connect4 import Position
    >>> cell_weights(Position.from_moves("4"), 1), cell_weights(Position.from_moves("41"), 1)
    (7, 4)
    """
    return cells_score(
        game.stones(player), game.stones(3 - player), board_geometry(game).weight_masks
    )


# ---------------------------------------------------------------- recent lines
RECENT_WEIGHTS = (0, 1, 3, 1000)  # for 1, 2, 3, 4 aligned discs
_RECENT = (*RECENT_WEIGHTS, *(-w for w in RECENT_WEIGHTS))
_WORD = (1 << MAX_BOARD_BITS) - 1  # one direction's window starts in a packed word


def _last_two_bits(game: Game) -> list[int]:
    """The bit indexes of the discs of the last two moves (fewer at the start)."""
    history = game.history[-2:]
    column_bits = game.height + 1
    stones = game.stones(1) | game.stones(2)
    bits = []
    for index, column in enumerate(history):
        top = (stones >> (column * column_bits)) & ((1 << column_bits) - 1)
        below = index == 0 and len(history) == 2 and history[1] == column  # covered since
        bits.append(column * column_bits + top.bit_length() - 1 - below)
    return bits


@functools.cache
def _covering(width: int, height: int) -> tuple[int, ...]:
    """For each bit, the window starts (packed :data:`MAX_BOARD_BITS` bits per direction)
    covering it."""
    directions = geometry(width, height).directions
    out = []
    for bit in range(width * (height + 1)):
        packed = 0
        for index in range(0, len(directions), 2):
            shift, starts = directions[index], directions[index + 1]
            mask = 0
            for k in range(4):
                if bit - k * shift >= 0:
                    mask |= 1 << (bit - k * shift)
            packed |= (mask & starts) << (index // 2 * MAX_BOARD_BITS)
        out.append(packed)
    return tuple(out)


def recent_lines(game: Game, player: int) -> float:
    """The Power-4 contest AI's second heuristic: 1/3/1000 for 2/3/4 aligned discs that
    can still make four, on the windows through the last two moves only; own minus
    opponent.

    >>> from connect4 import Position
    >>> recent_lines(Position.from_moves("4455"), 1)  # 3 windows of 2 each: 3 - 3
    0
    >>> recent_lines(Position.from_moves("44556"), 1)  # red 4-5-6 and yellow's 5 are recent
    3
    """
    if game.kind != "connect4":
        raise TypeError("recent-lines needs a Connect Four position")
    bits = _last_two_bits(game)
    if not bits:
        return 0
    cover = _covering(game.width, game.height)
    only = 0
    for bit in bits:
        only |= cover[bit]
    directions = list(geometry(game.width, game.height).directions)
    for index in range(1, len(directions), 2):
        directions[index] &= only >> ((index - 1) // 2 * MAX_BOARD_BITS) & _WORD
    return windows_score(game.stones(player), game.stones(3 - player), directions, _RECENT)


def cell_weights_recent_lines(game: Game, player: int) -> float:
    """The contest AI's combination: cell weights plus recent lines."""
    return cell_weights(game, player) + recent_lines(game, player)


# ---------------------------------------------------------------- adjacency
ADJ_SAME, ADJ_PLAYABLE, ADJ_LATER, ADJ_FOURS = 15, 10, 5, 642
_ADJACENCY = (ADJ_SAME, ADJ_PLAYABLE, ADJ_LATER, ADJ_FOURS)


def adjacency(game: Game, player: int) -> float:
    """Smart-Connect-4's heuristic: for each disc, each of its 8 neighbours scores +15
    (same colour), +10 (empty, playable now) or +5 (empty, not yet playable); own minus
    opponent, plus 642 × the count-fours difference.

    >>> from connect4 import Position
    >>> adjacency(Position.from_moves("4"), 1)  # 3 playable + 2 later neighbours
    40
    """
    if game.kind != "connect4":
        raise TypeError("adjacency needs a Connect Four position")
    g = geometry(game.width, game.height)
    own, opp = game.stones(player), game.stones(3 - player)
    return adjacency_score(own, opp, game.height, g.board, g.bottom, _ADJACENCY)


# ---------------------------------------------------------------- threats
THREAT_WEIGHTS = {
    "good": 60,  # a threat on a row of the player's parity (odd rows for red)
    "other": 25,  # a reachable threat on the other parity
    "dead": 4,  # a threat above an opponent threat in the same column
    "stacked": 250,  # two own threats one above the other: a win once reached
    "double": 500,  # two playable threats of the side not to move: cannot block both
    "zugzwang": 180,  # holds the zugzwang (Allis' simple rule)
}
THREAT_WINDOWS = (4, 9)  # tie-breaks: points per open window of 2 and of 3 discs
_THREATS = (
    0, THREAT_WINDOWS[0], THREAT_WINDOWS[1], 0, 0, -THREAT_WINDOWS[0], -THREAT_WINDOWS[1], 0,
    *THREAT_WEIGHTS.values(),
)  # fmt: skip


def threats(game: Game, player: int) -> float:
    """Our heuristic: Allis-style threat analysis on top of window counts.

    A *threat* is an empty cell that completes a four. Threats count by
    reachability and parity: a threat above an opponent's threat in its column is
    dead (the opponent wins or blocks first); otherwise red (moving first) wants
    threats on odd rows and yellow on even rows, because with the rest of the
    board filled column by column, zugzwang hands each player the cells of its
    parity. Two own threats stacked in a column win once the lower is reached;
    two playable threats for the side not to move cannot both be blocked.
    Red holds the zugzwang with a live odd threat; yellow with a live even
    threat when red has no live odd threat (Allis' simple rule). Window counts
    (2: ±4, 3: ±9) and cell weights break ties.

    >>> from connect4 import Position
    >>> threats(Position.from_moves("445566"), 1)  # red threatens 3 and 7 on row 1
    284
    """
    if game.kind != "connect4":
        raise TypeError("threats needs a Connect Four position")
    g = geometry(game.width, game.height)
    return threats_score(
        game.stones(player), game.stones(3 - player), game.to_move == player, player == 1,
        game.height, g.board, g.bottom, g.odd_rows, g.directions, g.weight_masks, _THREATS,
    )  # fmt: skip


# ---------------------------------------------------------------- registry
def _heuristics() -> dict[str, Heuristic]:
    both: tuple[GameKind, ...] = ("connect4", "tictactoe")
    c4: tuple[GameKind, ...] = ("connect4",)
    table = [
        Heuristic(
            "windows/mollerhoj",
            "four-cell windows of one colour: ±1, ±10, ±100, ±1000 for 1-4 discs",
            "mollerhoj/Connect-4-AI",
            make_windows("mollerhoj"),
            both,
            code=EVAL_WINDOWS,
            weights=_windows_weights("mollerhoj"),
        ),
        Heuristic(
            "windows/zer0lose",
            "windows: +1, +10, +1000, +100000 own / -1, -10, -500 (-100000) opponent",
            "zer0lose's AI",
            make_windows("zer0lose"),
            both,
            code=EVAL_WINDOWS,
            weights=_windows_weights("zer0lose"),
        ),
        Heuristic(
            "windows/report",
            "windows: 2 discs ±10, 3 ±100, 4 ±1000; a won position ±inf",
            "the report AI",
            make_windows("report"),
            both,
            code=EVAL_WINDOWS,
            weights=_windows_weights("report"),
        ),
        Heuristic(
            "cell-weights",
            "own discs' cell weights (windows through the cell) minus the opponent's",
            "the Power-4 contest AI",
            cell_weights,
            both,
            code=EVAL_CELLS,
        ),
        Heuristic(
            "recent-lines",
            "1/3/1000 for 2/3/4 aligned discs on the windows through the last two moves",
            "the Power-4 contest AI",
            recent_lines,
            c4,
            path_dependent=True,
        ),
        Heuristic(
            "cell-weights+recent-lines",
            "the contest AI's sum of cell-weights and recent-lines",
            "the Power-4 contest AI",
            cell_weights_recent_lines,
            c4,
            path_dependent=True,
        ),
        Heuristic(
            "adjacency",
            "neighbours +15 same colour, +10 playable, +5 later; + 642 × count-fours lead",
            "Smart-Connect-4",
            adjacency,
            c4,
            code=EVAL_ADJACENCY,
            weights=_ADJACENCY,
        ),
        Heuristic(
            "threats",
            "threat analysis: reachability, odd/even parity, zugzwang (Allis)",
            "ours",
            threats,
            c4,
            code=EVAL_THREATS,
            weights=_THREATS,
        ),
    ]
    named = {h.name: h for h in table}
    named["windows"] = named["windows/mollerhoj"]
    return named


HEURISTICS: dict[str, Heuristic] = _heuristics()


def heuristic_names(game: str | None = None) -> list[str]:
    """The names usable for ``game`` (``connect4``, ``tictactoe`` or all).

    >>> heuristic_names("tictactoe")
    ['windows', 'windows/mollerhoj', 'windows/zer0lose', 'windows/report', 'cell-weights']
    """
    names = ["windows"] + [n for n in HEURISTICS if n != "windows"]
    return [n for n in names if game is None or game in HEURISTICS[n].games]


def get_heuristic(name: str, game: str = "connect4") -> Heuristic:
    """The heuristic called ``name``; a ``ValueError`` lists the valid names.

    >>> get_heuristic("threats", "tictactoe")
    Traceback (most recent call last):
    ...
    ValueError: heuristic 'threats' plays connect4 only; for tictactoe choose one of: \
windows, windows/mollerhoj, windows/zer0lose, windows/report, cell-weights
    """
    if name not in HEURISTICS:
        raise ValueError(unknown_choice("heuristic", name, heuristic_names(game)))
    heuristic = HEURISTICS[name]
    if game not in heuristic.games:
        raise ValueError(
            f"heuristic {name!r} plays {', '.join(heuristic.games)} only; for {game} choose "
            f"one of: {', '.join(heuristic_names(game))}"
        )
    return heuristic


def evaluate(name: str, game: Game, player: int) -> float:
    """Score ``game`` for ``player`` with the heuristic called ``name``."""
    return get_heuristic(name, game.kind)(game, player)
