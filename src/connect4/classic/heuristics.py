"""Named evaluation functions for depth-limited search, with the seeds' exact numbers.

Every heuristic scores a position for one player (``player``, 1 or 2): positive
is good for that player. Search calls it with the root player, so the asymmetric
``windows/zer0lose`` weights mean "the AI's lines" and "the human's lines" as in
that seed. Connect Four heuristics work on any board size; they count with
shifts and ANDs on the two bitboards (no loop over cells).

============================  ==============================================================
name                          source and rule
============================  ==============================================================
``windows``                   = ``windows/mollerhoj``
``windows/mollerhoj``         seed 001: every four-cell window holding one colour only,
                              ±1, ±10, ±100, ±1000 for 1, 2, 3, 4 discs
``windows/zer0lose``          seed 003: +1, +10, +1000, +100000 / −1, −10, −500 (−100000)
``windows/report``            seed 004: 2: ±10, 3: ±100, 4: ±1000; a won position ±inf
``cell-weights``              seed 000: each disc scores the number of windows through its cell
``recent-lines``              seed 000: 1 / 3 / 1000 for 2 / 3 / 4 discs, on the windows
                              through the last two moves only
``cell-weights+recent-lines`` seed 000: the contest AI's sum of both
``adjacency``                 seed 002: neighbours +15 same colour, +10 empty and playable,
                              +5 empty not yet playable; + 642 × count-fours difference
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

from connect4.core.game import Game
from connect4.core.position import Position, board_mask, bottom_mask, count_fours
from connect4.core.tictactoe import LINES, TicTacToe

Evaluate = Callable[[Game, int], float]


@dataclass(frozen=True)
class Heuristic:
    """A named evaluation function: ``heuristic(game, player)`` scores for ``player``.

    ``path_dependent`` heuristics look at the last moves, not only the position
    (search then keys its transposition table on them too).
    """

    name: str
    description: str
    source: str
    evaluate: Evaluate
    games: tuple[str, ...] = ("connect4", "tictactoe")
    path_dependent: bool = False

    def __call__(self, game: Game, player: int) -> float:
        return self.evaluate(game, player)


# ---------------------------------------------------------------- geometry
@dataclass(frozen=True)
class Geometry:
    """Bit masks of one board size, computed once.

    ``directions`` holds ``(shift, starts)``: ``starts`` has a 1 at the lowest
    cell of every four-cell window in that direction (shifts 1 vertical,
    ``H+1`` horizontal, ``H`` down-right diagonal, ``H+2`` up-right diagonal).
    """

    width: int
    height: int
    board: int
    bottom: int
    directions: tuple[tuple[int, int], ...]
    windows: int
    cell_weight: tuple[int, ...]  # by bit index (0 for sentinel bits)
    weight_masks: tuple[tuple[int, int], ...]  # (weight, cells with that weight)
    shifts: tuple[tuple[int, int, int, int], ...]  # (shift, 2*shift, 3*shift, starts)
    odd_rows: int  # rows 1, 3, 5, ... counted from 1 at the bottom


@functools.cache
def geometry(width: int, height: int) -> Geometry:
    """The masks of a ``width x height`` board.

    >>> g = geometry(7, 6)
    >>> g.windows, max(g.cell_weight), min(w for w in g.cell_weight if w)
    (69, 13, 3)
    """
    board = board_mask(width, height)
    directions = []
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
        directions.append((shift, starts))
    masks: dict[int, int] = {}
    for bit, w in enumerate(weight):
        if w:
            masks[w] = masks.get(w, 0) | 1 << bit
    odd = bottom_mask(width, height) * sum(1 << r for r in range(0, height, 2))
    return Geometry(
        width=width,
        height=height,
        board=board,
        bottom=bottom_mask(width, height),
        directions=tuple(directions),
        windows=total,
        cell_weight=tuple(weight),
        weight_masks=tuple(sorted(masks.items())),
        shifts=tuple((s, 2 * s, 3 * s, starts) for s, starts in directions),
        odd_rows=odd,
    )


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


def window_counts(own: int, opp: int, g: Geometry, only: int | None = None) -> tuple[int, ...]:
    """Windows holding ``own`` discs only, by count: ``(n1, n2, n3, n4)``.

    ``only`` (a map from each direction's shift to allowed window starts) limits
    the windows counted. Each direction is a 4-input bit-sliced adder:

    >>> g = geometry(7, 6)
    >>> window_counts(0b111, 0, g)  # three discs at the bottom of column 1
    (7, 1, 1, 0)
    """
    n1 = n2 = n3 = n4 = 0
    for index, (shift, starts) in enumerate(g.directions):
        if only is not None:
            starts &= only >> (index * 64) & 0xFFFFFFFFFFFFFFFF
        if not starts:
            continue
        blocked = opp | opp >> shift | opp >> 2 * shift | opp >> 3 * shift
        free = starts & ~blocked
        if not free:
            continue
        a, b, c, d = own, own >> shift, own >> 2 * shift, own >> 3 * shift
        s1, c1, s2, c2 = a ^ b, a & b, c ^ d, c & d
        bit0, carry = s1 ^ s2, s1 & s2
        bit1 = c1 ^ c2 ^ carry
        bit2 = (c1 & c2) | (carry & (c1 | c2))
        n1 += (free & bit0 & ~bit1).bit_count()
        n2 += (free & bit1 & ~bit0).bit_count()
        n3 += (free & bit0 & bit1).bit_count()
        n4 += (free & bit2).bit_count()
    return n1, n2, n3, n4


def windows_score(
    own: int, opp: int, g: Geometry, mine: tuple[int, ...], theirs: tuple[int, ...]
) -> int:
    """``sum(mine[k-1] * own-only windows with k discs) + sum(theirs[k-1] * opponent-only
    windows with k discs)`` in one pass (the hot path of the generic search).

    >>> windows_score(0b111, 0, geometry(7, 6), (1, 10, 100, 1000), (-1, -10, -100, -1000))
    117
    """
    w1, w2, w3, w4 = mine
    v1, v2, v3, v4 = theirs
    total = 0
    for shift, shift2, shift3, starts in g.shifts:
        for a, o, k1, k2, k3, k4 in ((own, opp, w1, w2, w3, w4), (opp, own, v1, v2, v3, v4)):
            free = starts & ~(o | o >> shift | o >> shift2 | o >> shift3)
            if not free:
                continue
            b, c, d = a >> shift, a >> shift2, a >> shift3
            s1, c1, s2, c2 = a ^ b, a & b, c ^ d, c & d
            bit0, carry = s1 ^ s2, s1 & s2
            bit1 = c1 ^ c2 ^ carry
            odd = free & bit0
            pair = free & bit1
            total += (
                k1 * (odd & ~bit1).bit_count()
                + k2 * (pair & ~bit0).bit_count()
                + k3 * (odd & bit1).bit_count()
                + k4 * (free & ((c1 & c2) | (carry & (c1 | c2)))).bit_count()
            )
    return total


# ---------------------------------------------------------------- windows
WINDOW_PRESETS: dict[str, tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = {
    # name: (own weights for 1..4 discs, opponent weights for 1..4 discs)
    "mollerhoj": ((1, 10, 100, 1000), (-1, -10, -100, -1000)),
    "zer0lose": ((1, 10, 1000, 100000), (-1, -10, -500, -100000)),
    "report": ((0, 10, 100, 1000), (0, -10, -100, -1000)),
}


def _split(game: Game, player: int) -> tuple[int, int]:
    """``(own, opponent)`` bitboards of a Connect Four position or tic-tac-toe board."""
    if isinstance(game, (Position, TicTacToe)):
        return game.stones(player), game.stones(3 - player)
    raise TypeError(f"heuristics need a Position or TicTacToe, not {type(game).__name__}")


def _ttt_lines(own: int, opp: int) -> tuple[int, int, int, int, int, int]:
    """Tic-tac-toe lines holding one colour only, by count, own then opponent."""
    counts = [0] * 8
    for line in LINES:
        mine, theirs = (own & line).bit_count(), (opp & line).bit_count()
        if mine and not theirs:
            counts[mine] += 1
        elif theirs and not mine:
            counts[4 + theirs] += 1
    return counts[1], counts[2], counts[3], counts[5], counts[6], counts[7]


def make_windows(preset: str) -> Evaluate:
    """The windows evaluation with one of :data:`WINDOW_PRESETS`.

    >>> from connect4 import TicTacToe
    >>> make_windows("mollerhoj")(TicTacToe.from_moves("51"), 1)  # X centre, O corner
    1
    """
    mine, theirs = WINDOW_PRESETS[preset]
    infinite_win = preset == "report"

    def evaluate(game: Game, player: int) -> float:
        own, opp = _split(game, player)
        if isinstance(game, TicTacToe):
            a1, a2, a3, b1, b2, b3 = _ttt_lines(own, opp)
            return (
                mine[0] * a1 + mine[1] * a2 + mine[2] * a3
                + theirs[0] * b1 + theirs[1] * b2 + theirs[2] * b3
            )  # fmt: skip
        assert isinstance(game, Position)
        if infinite_win and game.rules == "standard" and game.winner() is not None:
            return math.inf if game.winner() == player else -math.inf
        return windows_score(own, opp, geometry(game.width, game.height), mine, theirs)

    return evaluate


# ---------------------------------------------------------------- cell weights
_TTT_WEIGHT_MASKS = ((2, 0b010101010), (3, 0b101000101), (4, 0b000010000))


def cell_weights(game: Game, player: int) -> float:
    """Own discs' cell weights minus the opponent's (seed 000's first heuristic).

    >>> from connect4 import Position
    >>> cell_weights(Position.from_moves("4"), 1), cell_weights(Position.from_moves("41"), 1)
    (7, 4)
    """
    own, opp = _split(game, player)
    if isinstance(game, TicTacToe):
        masks: tuple[tuple[int, int], ...] = _TTT_WEIGHT_MASKS
    else:
        assert isinstance(game, Position)
        masks = geometry(game.width, game.height).weight_masks
    return sum(w * ((own & m).bit_count() - (opp & m).bit_count()) for w, m in masks)


# ---------------------------------------------------------------- recent lines
RECENT_WEIGHTS = (0, 1, 3, 1000)  # for 1, 2, 3, 4 aligned discs


def _last_two_bits(game: Position) -> list[int]:
    """The bit indexes of the discs of the last two moves (fewer at the start)."""
    history = game.history[-2:]
    heights = game.heights
    bits = [history[-1] * (game.height + 1) + heights[history[-1]] - 1] if history else []
    if len(history) == 2:
        column = history[0]
        row = heights[column] - 1 - (history[1] == column)
        bits.append(column * (game.height + 1) + row)
    return bits


@functools.cache
def _covering(width: int, height: int) -> tuple[int, ...]:
    """For each bit, the window starts (packed 64 bits per direction) covering it."""
    g = geometry(width, height)
    out = []
    for bit in range(width * (height + 1)):
        packed = 0
        for index, (shift, starts) in enumerate(g.directions):
            mask = 0
            for k in range(4):
                if bit - k * shift >= 0:
                    mask |= 1 << (bit - k * shift)
            packed |= (mask & starts) << (index * 64)
        out.append(packed)
    return tuple(out)


def recent_lines(game: Game, player: int) -> float:
    """Seed 000's second heuristic: 1/3/1000 for 2/3/4 aligned discs that can still make
    four, on the windows through the last two moves only; own minus opponent.

    >>> from connect4 import Position
    >>> recent_lines(Position.from_moves("4455"), 1)  # 3 windows of 2 each: 3 - 3
    0
    >>> recent_lines(Position.from_moves("44556"), 1)  # red 4-5-6 and yellow's 5 are recent
    3
    """
    if not isinstance(game, Position):
        raise TypeError("recent-lines needs a Connect Four position")
    bits = _last_two_bits(game)
    if not bits:
        return 0
    g = geometry(game.width, game.height)
    cover = _covering(game.width, game.height)
    only = 0
    for bit in bits:
        only |= cover[bit]
    own, opp = _split(game, player)
    a = window_counts(own, opp, g, only)
    b = window_counts(opp, own, g, only)
    return sum(w * (x - y) for w, x, y in zip(RECENT_WEIGHTS, a, b, strict=True))


def cell_weights_recent_lines(game: Game, player: int) -> float:
    """The contest AI's combination: cell weights plus recent lines."""
    return cell_weights(game, player) + recent_lines(game, player)


# ---------------------------------------------------------------- adjacency
ADJ_SAME, ADJ_PLAYABLE, ADJ_LATER, ADJ_FOURS = 15, 10, 5, 642


def _adjacency_side(stones: int, empty_now: int, empty_later: int, height: int) -> int:
    total = 0
    for shift in (1, height + 1, height, height + 2):
        for moved in (stones << shift, stones >> shift):  # each disc's neighbour cell
            total += ADJ_SAME * (moved & stones).bit_count()
            total += ADJ_PLAYABLE * (moved & empty_now).bit_count()
            total += ADJ_LATER * (moved & empty_later).bit_count()
    return total


def adjacency(game: Game, player: int) -> float:
    """Seed 002: for each disc, each of its 8 neighbours scores +15 (same colour),
    +10 (empty, playable now) or +5 (empty, not yet playable); own minus opponent,
    plus 642 × the count-fours difference.

    >>> from connect4 import Position
    >>> adjacency(Position.from_moves("4"), 1)  # 3 playable + 2 later neighbours
    40
    """
    if not isinstance(game, Position):
        raise TypeError("adjacency needs a Connect Four position")
    g = geometry(game.width, game.height)
    own, opp = _split(game, player)
    empty_now = (game.mask + g.bottom) & g.board
    empty_later = g.board & ~game.mask & ~empty_now
    side = _adjacency_side(own, empty_now, empty_later, game.height)
    side -= _adjacency_side(opp, empty_now, empty_later, game.height)
    fours = count_fours(own, game.height) - count_fours(opp, game.height)
    return side + ADJ_FOURS * fours


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


def threat_cells(stones: int, mask: int, g: Geometry) -> int:
    """Empty cells that would complete a four for ``stones`` (Pons' formula).

    >>> g = geometry(7, 6)
    >>> bin(threat_cells(0b111, 0b111, g))  # three in column 1: the fourth cell
    '0b1000'
    """
    h = g.height
    r = (stones << 1) & (stones << 2) & (stones << 3)
    for shift in (h + 1, h, h + 2):
        p = (stones << shift) & (stones << 2 * shift)
        r |= p & (stones << 3 * shift)
        r |= p & (stones >> shift)
        p = (stones >> shift) & (stones >> 2 * shift)
        r |= p & (stones << shift)
        r |= p & (stones >> 3 * shift)
    return r & g.board & ~mask


def _above(cells: int, g: Geometry) -> int:
    """Every cell strictly above some cell of ``cells`` in its column."""
    out = 0
    for _ in range(g.height - 1):
        cells = (cells << 1) & g.board
        out |= cells
    return out


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
    if not isinstance(game, Position):
        raise TypeError("threats needs a Connect Four position")
    g = geometry(game.width, game.height)
    own, opp = _split(game, player)
    mask = game.mask
    t_own, t_opp = threat_cells(own, mask, g), threat_cells(opp, mask, g)
    playable = (mask + g.bottom) & g.board
    dead_own, dead_opp = _above(t_opp, g), _above(t_own, g)
    # parity: red (player 1) owns odd rows, yellow even rows
    red_rows, yellow_rows = g.odd_rows, g.board & ~g.odd_rows
    own_rows = red_rows if player == 1 else yellow_rows
    opp_rows = yellow_rows if player == 1 else red_rows
    w = THREAT_WEIGHTS

    def side(t: int, dead: int, rows: int, mover: bool) -> int:
        live = t & ~dead
        score = w["good"] * (live & rows).bit_count() + w["other"] * (live & ~rows).bit_count()
        score += w["dead"] * (t & dead).bit_count()
        score += w["stacked"] * (live & (live << 1)).bit_count()
        if not mover and (t & playable).bit_count() >= 2:
            score += w["double"]
        return score

    mover_is_own = game.to_move == player
    value = side(t_own, dead_own, own_rows, mover_is_own) - side(
        t_opp, dead_opp, opp_rows, not mover_is_own
    )
    red_live = (t_own if player == 1 else t_opp) & ~(dead_own if player == 1 else dead_opp)
    yellow_live = (t_opp if player == 1 else t_own) & ~(dead_opp if player == 1 else dead_own)
    if red_live & red_rows:
        value += w["zugzwang"] if player == 1 else -w["zugzwang"]
    elif yellow_live & yellow_rows:
        value += w["zugzwang"] if player == 2 else -w["zugzwang"]
    two, three = THREAT_WINDOWS
    value += windows_score(own, opp, g, (0, two, three, 0), (0, -two, -three, 0))
    return value + cell_weights(game, player)


# ---------------------------------------------------------------- registry
def _heuristics() -> dict[str, Heuristic]:
    both = ("connect4", "tictactoe")
    c4 = ("connect4",)
    table = [
        Heuristic(
            "windows/mollerhoj",
            "four-cell windows of one colour: ±1, ±10, ±100, ±1000 for 1-4 discs",
            "seed 001 (mollerhoj/Connect-4-AI)",
            make_windows("mollerhoj"),
            both,
        ),
        Heuristic(
            "windows/zer0lose",
            "windows: +1, +10, +1000, +100000 own / -1, -10, -500 (-100000) opponent",
            "seed 003 (zer0lose)",
            make_windows("zer0lose"),
            both,
        ),
        Heuristic(
            "windows/report",
            "windows: 2 discs ±10, 3 ±100, 4 ±1000; a won position ±inf",
            "seed 004 (report)",
            make_windows("report"),
            both,
        ),
        Heuristic(
            "cell-weights",
            "own discs' cell weights (windows through the cell) minus the opponent's",
            "seed 000 (Power-4 contest)",
            cell_weights,
            both,
        ),
        Heuristic(
            "recent-lines",
            "1/3/1000 for 2/3/4 aligned discs on the windows through the last two moves",
            "seed 000 (Power-4 contest)",
            recent_lines,
            c4,
            path_dependent=True,
        ),
        Heuristic(
            "cell-weights+recent-lines",
            "the contest AI's sum of cell-weights and recent-lines",
            "seed 000 (Power-4 contest)",
            cell_weights_recent_lines,
            c4,
            path_dependent=True,
        ),
        Heuristic(
            "adjacency",
            "neighbours +15 same colour, +10 playable, +5 later; + 642 × count-fours lead",
            "seed 002 (Smart-Connect-4)",
            adjacency,
            c4,
        ),
        Heuristic(
            "threats",
            "threat analysis: reachability, odd/even parity, zugzwang (Allis)",
            "ours",
            threats,
            c4,
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
        raise ValueError(
            f"unknown heuristic {name!r}: choose one of {', '.join(heuristic_names(game))}"
        )
    heuristic = HEURISTICS[name]
    if game not in heuristic.games:
        raise ValueError(
            f"heuristic {name!r} plays {', '.join(heuristic.games)} only; for {game} choose "
            f"one of: {', '.join(heuristic_names(game))}"
        )
    return heuristic


def evaluate(name: str, game: Game, player: int) -> float:
    """Score ``game`` for ``player`` with the heuristic called ``name``."""
    kind = "tictactoe" if isinstance(game, TicTacToe) else "connect4"
    return get_heuristic(name, kind)(game, player)
