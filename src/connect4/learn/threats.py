"""The threat map of a Connect Four position, and the simple rules that explain a verdict.

A *threat* of a player is an empty cell that would complete a four in a row for
that player (three of its stones and this cell on one line; under count-fours
rules: a cell that would complete a new four-cell line, a point). Connect Four
strategy is taught through them (Allis, 1988): the first player (red) wants
threats on odd rows, the second (yellow) on even rows, counting rows from 1 at
the bottom, because when the board fills up column by column the parity of the
rows decides who is forced to play below a threat.

Each threat of the map says where it is, the parity of its row, and two things
about whether it can be played, defined exactly:

* ``playable``: the cell is the lowest empty cell of its column, so the side to
  move could fill it with its next stone;
* ``live``: the game need not end before the cell is filled. Under the standard
  rules a threat is *dead* when, below it in its column, there is a cell that is
  a threat of both players (whoever fills it completes a four), or two cells one
  directly above the other that are both threats of the same player (whoever
  fills the lower one, that player completes a four with it or with the upper
  one on its next move), assuming a player completes a four whenever it can.
  Under count-fours a four does not end the game and every threat is live.

:func:`explain` names the rule that proves the solver's verdict, where one of a
few simple rules does (:data:`RULES`), and returns ``None`` where none does:
never a guess. Each :class:`Explanation` carries the bounds its rule proves on
the exact score of the side to move (Pons' convention), and, for a forced
block, the one move that does not lose at once; the tests hold each claim
against the solver's exact scores.

>>> from connect4 import Position
>>> found = threat_map(Position.from_moves("445566"))
>>> [(t.column + 1, t.row + 1, t.odd, t.playable) for t in found.red]
[(3, 1, True, True), (7, 1, True, True)]
>>> explain(Position.from_moves("445566")).sentence
'Red wins now: column 3 completes a four.'
>>> explain(Position.from_moves("44556")).rule
'double threat'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from connect4.classic.node import threat_cells
from connect4.core.errors import Connect4Error
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.core.position import COLUMN_SYMBOLS, Position, board_mask, bottom_mask, four_in_a_row
from connect4.core.score import loss_score, win_score
from connect4.review import best_line, exact_scores

__all__ = [
    "RULES",
    "Explanation",
    "Rule",
    "SolverLine",
    "Threat",
    "ThreatError",
    "ThreatMap",
    "explain",
    "solver_line",
    "threat_bits",
    "threat_map",
]

Rule = Literal[
    "immediate win", "double threat", "zugzwang", "forced block", "claimeven", "odd threat"
]
RULES: tuple[Rule, ...] = (
    "immediate win",
    "double threat",
    "zugzwang",
    "forced block",
    "claimeven",
    "odd threat",
)
"""The rules :func:`explain` knows, in the order it tries them."""

SIDES = ("red", "yellow")


class ThreatError(Connect4Error):
    """A position without a threat map: not Connect Four, or a finished game."""


@dataclass(frozen=True)
class Threat:
    """One threat: an empty cell that would complete a four for ``player`` (1 red, 2
    yellow). ``column`` and ``row`` are 0-based, row 0 at the bottom; ``odd`` is True
    on the odd rows counted from 1 (rows 1, 3, 5: 0-based 0, 2, 4). ``playable`` and
    ``live`` are defined in the module's description."""

    column: int
    row: int
    player: int
    odd: bool
    playable: bool
    live: bool

    def as_dict(self) -> dict[str, int | bool]:
        """The threat for JSON: 1-based ``column`` and ``row`` (row 1 at the bottom)."""
        return {
            "column": self.column + 1,
            "row": self.row + 1,
            "odd": self.odd,
            "playable": self.playable,
            "live": self.live,
        }


@dataclass(frozen=True)
class ThreatMap:
    """Both players' threats in one position, each list by column, then row."""

    moves: str
    width: int
    height: int
    rules: str
    to_move: int
    red: tuple[Threat, ...]
    yellow: tuple[Threat, ...]

    def of(self, player: int) -> tuple[Threat, ...]:
        """``player``'s threats (1 red, 2 yellow)."""
        return self.red if player == 1 else self.yellow

    def cells(self) -> dict[tuple[int, int], int]:
        """Each threat cell ``(column, row)`` with whose it is: 1 red, 2 yellow, 3 both."""
        found: dict[tuple[int, int], int] = {}
        for threat in (*self.red, *self.yellow):
            key = (threat.column, threat.row)
            found[key] = found.get(key, 0) | threat.player
        return found

    def as_dict(self) -> dict[str, object]:
        """The map for JSON: each side's threats with 1-based cells."""
        return {
            "position": self.moves,
            "width": self.width,
            "height": self.height,
            "rules": self.rules,
            "to_move": SIDES[self.to_move - 1],
            "red": [t.as_dict() for t in self.red],
            "yellow": [t.as_dict() for t in self.yellow],
        }


@dataclass(frozen=True)
class Explanation:
    """A simple rule that proves (part of) the verdict, in one sentence.

    ``low`` and ``high`` bound the exact score of the side to move (Pons'
    convention) as the rule proves it; ``move`` is the 0-based column the rule
    plays (``None`` where it needs none); ``only_move`` is True when every other
    move loses at once (a forced block).
    """

    rule: Rule
    sentence: str
    low: int
    high: int
    move: int | None = None
    only_move: bool = False

    def as_dict(self) -> dict[str, object]:
        """The explanation for JSON: the move 1-based (``None`` where there is none)."""
        return {
            "rule": self.rule,
            "sentence": self.sentence,
            "low": self.low,
            "high": self.high,
            "move": None if self.move is None else self.move + 1,
            "only_move": self.only_move,
        }


# ---------------------------------------------------------------- the map
def _position(game: Game) -> Position:
    """The Connect Four position of ``game`` (a copy), or a clear :class:`ThreatError`."""
    if not isinstance(game, Position):
        raise ThreatError(f"the threat map is for Connect Four, not {game.kind}")
    return game.copy()


def threat_bits(position: Position, player: int) -> int:
    """``player``'s threats as a bitboard (the board's layout, see
    :mod:`connect4.core.position`): empty cells that complete a four for it.

    >>> bin(threat_bits(Position.from_moves("112233", 4, 4), 1))  # red's 1-2-3 on row 1
    '0b1000000000000000'
    """
    board = board_mask(position.width, position.height)
    return threat_cells(position.stones(player), position.mask, position.height, board)


def _dead_cells(position: Position, red: int, yellow: int) -> int:
    """The cells above which every threat is dead (see the module's description): the
    cells of a column from the lowest threat of both players, or the lowest pair of
    one player's threats one above the other, upwards (standard rules only)."""
    if position.rules != "standard":
        return 0
    stride = position.height + 1
    dead = 0
    for column in range(position.width):
        for row in range(position.heights[column], position.height):
            bit = 1 << (column * stride + row)
            above = bit << 1
            both = red & yellow & bit
            stacked = (red & bit and red & above) or (yellow & bit and yellow & above)
            if both or stacked:
                start = row + 1 if both else row + 2
                for higher in range(start, position.height):
                    dead |= 1 << (column * stride + higher)
                break
    return dead


def _threats(position: Position, player: int, bits: int, dead: int) -> tuple[Threat, ...]:
    stride = position.height + 1
    found = []
    for column in range(position.width):
        for row in range(position.height):
            bit = 1 << (column * stride + row)
            if bits & bit:
                playable = row == position.heights[column]
                threat = Threat(column, row, player, row % 2 == 0, playable, not dead & bit)
                found.append(threat)
    return tuple(found)


def threat_map(game: Game) -> ThreatMap:
    """Both players' threats in a Connect Four position that is not over.

    Raises :class:`ThreatError` for another game or a finished one.

    >>> found = threat_map(Position.from_moves("443322"))
    >>> [(t.column + 1, t.row + 1) for t in found.red]
    [(1, 1), (5, 1)]
    >>> [(t.column + 1, t.row + 1, t.odd, t.playable) for t in found.yellow]
    [(1, 2, False, False), (5, 2, False, False)]
    """
    position = _position(game)
    if position.is_over():
        raise ThreatError(
            f"the game is already over ({position.result_text()}): no threat can be played"
        )
    red, yellow = threat_bits(position, 1), threat_bits(position, 2)
    dead = _dead_cells(position, red, yellow)
    return ThreatMap(
        position.moves,
        position.width,
        position.height,
        position.rules,
        position.to_move,
        _threats(position, 1, red, dead),
        _threats(position, 2, yellow, dead),
    )


# ---------------------------------------------------------------- explanations
def _name(player: int) -> str:
    return SIDES[player - 1].capitalize()


def _columns(bits: int, position: Position) -> list[int]:
    """The 0-based columns holding a bit of ``bits``, left to right."""
    stride = position.height + 1
    return [c for c in range(position.width) if bits >> (c * stride) & ((1 << stride) - 1)]


def _listed(columns: list[int]) -> str:
    names = [str(c + 1) for c in columns]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class _Board:
    """The bitboards every rule reads, computed once."""

    position: Position
    mover: int
    own: int  # the side to move's threats
    opp: int  # the opponent's threats
    playable: int  # the lowest empty cell of every column that is not full
    board: int
    size: int

    @classmethod
    def of(cls, position: Position) -> _Board:
        mover = position.to_move
        board = board_mask(position.width, position.height)
        playable = (position.mask + bottom_mask(position.width, position.height)) & board
        return cls(
            position,
            mover,
            threat_bits(position, mover),
            threat_bits(position, 3 - mover),
            playable,
            board,
            position.size,
        )

    def above(self, cell: int) -> int:
        """The cell directly above ``cell`` (0 above the top row)."""
        return (cell << 1) & self.board

    def cells(self, bits: int) -> Iterator[int]:
        """Each set bit of ``bits`` as a bitboard of one cell."""
        while bits:
            low = bits & -bits
            yield low
            bits ^= low


def _immediate(b: _Board) -> Explanation | None:
    """The side to move completes a four now."""
    wins = b.own & b.playable
    if not wins:
        return None
    columns = _columns(wins, b.position)
    score = win_score(b.size, b.position.ply)
    sentence = f"{_name(b.mover)} wins now: column {columns[0] + 1} completes a four."
    return Explanation("immediate win", sentence, score, score, columns[0])


def _lost_at_once(b: _Board) -> Explanation | None:
    """Every move of the side to move lets the opponent complete a four next: two
    playable threats, a playable one with another on top of it, or (zugzwang) no
    playable threat but one on top of every playable cell."""
    for cell in b.cells(b.playable):
        after = (b.playable ^ cell) | b.above(cell)
        if not b.opp & after:
            return None
    score = loss_score(b.size, b.position.ply)
    me, them = _name(b.mover), _name(3 - b.mover)
    now = b.opp & b.playable
    if now & (now - 1):
        cols = _listed(_columns(now, b.position))
        sentence = f"{them} threatens to win in columns {cols}: {me} can block only one."
        return Explanation("double threat", sentence, score, score)
    if now:
        col = _columns(now, b.position)[0] + 1
        sentence = (
            f"{them} has two threats one above the other in column {col}: "
            f"{me} must block the lower one, and {them} wins on top of it."
        )
        return Explanation("double threat", sentence, score, score)
    sentence = f"Zugzwang: every move {me} can make lets {them} complete a four on top of it."
    return Explanation("zugzwang", sentence, score, score)


def _forced_block(b: _Board) -> Explanation | None:
    """One playable threat of the opponent, the side to move without a four of its own:
    every other move loses at once."""
    now = b.opp & b.playable
    if not now or now & (now - 1):
        return None
    column = _columns(now, b.position)[0]
    low = loss_score(b.size, b.position.ply)
    sentence = (
        f"{_name(b.mover)} must block column {column + 1}: "
        f"{_name(3 - b.mover)} would complete a four there."
    )
    return Explanation(
        "forced block", sentence, low, win_score(b.size, b.position.ply), column, True
    )


def _double_next(b: _Board) -> Explanation | None:
    """A move that makes two threats the opponent cannot both block (neither side
    having a four to complete now): a win with the side to move's second stone."""
    if b.opp & b.playable:
        return None
    position = b.position
    for cell in b.cells(b.playable):
        after = (b.playable ^ cell) | b.above(cell)
        if b.opp & after:
            continue  # the move would let the opponent win on top of it
        stones = position.stones(b.mover) | cell
        own = threat_cells(stones, position.mask | cell, position.height, b.board)
        now = own & after
        stacked = any(own & b.above(c) for c in b.cells(now))
        if now & (now - 1) or stacked:
            score = win_score(b.size, position.ply + 2)
            column = _columns(cell, position)[0]
            how = "one above the other" if not now & (now - 1) else "at once"
            sentence = (
                f"{_name(b.mover)} wins with a double threat: column {column + 1} makes two "
                f"threats {how}, and {_name(3 - b.mover)} can block only one."
            )
            return Explanation("double threat", sentence, score, score, column)
    return None


def _odd_rows(position: Position) -> int:
    return bottom_mask(position.width, position.height) * (
        sum(1 << r for r in range(0, position.height, 2))
    )


def _claimeven_cells(position: Position, board: int) -> tuple[int, int]:
    """The cells the second player (yellow, not to move, an even number of stones
    played on a board of an even number of rows) is sure to get by claimeven, and
    the most the first player can get: see :func:`_claimeven`."""
    playable = (position.mask + bottom_mask(position.width, position.height)) & board
    even_rows = board & ~_odd_rows(position)
    theirs = position.stones(2) | (even_rows & ~position.mask & ~playable)
    return theirs, board & ~theirs


def _claimeven(b: _Board) -> Explanation | None:
    """Yellow's claimeven, on a board of an even number of rows.

    With red to move (an even number of stones), yellow answers a red stone on an
    odd row (1-based) by playing on top of it, and a red stone on an even row
    (possible only in a column holding an odd number of stones, which come in
    pairs) by the even cell playable now in another such column. Yellow gets every
    empty even cell not playable now; red at most the other cells. If those hold no
    four red cannot win; if yellow's hold one too, yellow wins. With yellow to
    move, the same after a yellow move.
    """
    position = b.position
    if position.height % 2 or position.rules != "standard":
        return None
    if position.to_move == 1:
        theirs, reds = _claimeven_cells(position, b.board)
        if four_in_a_row(reds, position.height):
            return None
        wins = four_in_a_row(theirs, position.height)
        high = -1 if wins else 0
        outcome = "wins" if wins else "cannot lose"
        sentence = (
            f"Yellow {outcome} by claimeven: answering every Red stone in its column (or an "
            "even-row stone in another column with an even cell to play) gives Yellow every "
            f"even-row cell above the playable ones, and the cells left to Red hold no four"
            + (", while Yellow's hold one." if wins else ".")
        )
        return Explanation("claimeven", sentence, loss_score(b.size, position.ply), high)
    for cell in b.cells(b.playable):
        if b.opp & b.above(cell):
            continue
        column = _columns(cell, position)[0]
        position.play(column)
        theirs, reds = _claimeven_cells(position, b.board)
        position.undo()
        if four_in_a_row(reds, position.height):
            continue
        wins = four_in_a_row(theirs, position.height)
        outcome = "wins" if wins else "cannot lose"
        sentence = (
            f"Yellow {outcome} by claimeven: after column {column + 1}, answering every Red "
            "stone in its column gives Yellow every even-row cell above the playable ones, and "
            "the cells left to Red hold no four" + (", while Yellow's hold one." if wins else ".")
        )
        low = 1 if wins else 0
        return Explanation("claimeven", sentence, low, win_score(b.size, position.ply), column)
    return None


def _odd_threat(b: _Board) -> Explanation | None:
    """Red's odd threat that yellow cannot undo (zugzwang control, Allis' rule in a
    form that is proved here).

    Red to move, a board of an even number of rows, every column holding an even
    number of stones, and a red threat ``T`` on an odd row (1-based) of column
    ``c``. Red plays ``c`` (an odd row) and then answers every yellow stone in the
    same column: in the other columns yellow gets the odd rows and red the even
    ones; in ``c`` yellow gets the even rows, red the odd ones up to ``T``. When the
    other columns are full yellow must play in ``c``, so red gets ``T`` unless the
    game ended before. If the cells yellow can get this way hold no four, yellow
    never completes one, and red wins.
    """
    position = b.position
    if position.height % 2 or position.rules != "standard" or position.to_move != 1:
        return None
    if any(h % 2 for h in position.heights):
        return None
    stride = position.height + 1
    odd = _odd_rows(position)
    empty = b.board & ~position.mask
    for threat in b.cells(b.own & odd):
        column = _columns(threat, position)[0]
        base = column * stride
        in_column = ((1 << stride) - 1) << base
        below = in_column & (threat - 1)
        yellows = position.stones(2) | (empty & odd & ~in_column) | (empty & ~odd & below)
        if four_in_a_row(yellows, position.height):
            continue
        row = threat.bit_length() - 1 - base
        sentence = (
            f"Red wins by zugzwang with the odd threat in column {column + 1}, row {row + 1}: "
            f"Red plays column {column + 1}, then answers every Yellow stone in its column; "
            "Yellow gets only odd-row cells elsewhere and even-row cells below the threat, "
            "which hold no four, and must in the end let Red play the threat."
        )
        return Explanation("odd threat", sentence, 1, win_score(b.size, position.ply), column)
    return None


_RULES = (_immediate, _lost_at_once, _forced_block, _double_next, _odd_threat, _claimeven)


def explain(game: Game) -> Explanation | None:
    """The simple rule that proves the side to move's verdict, or ``None`` where none
    of :data:`RULES` applies (and for count-fours, where a four does not end the game).

    Rules are tried fastest first: a four to complete now, a loss at the opponent's
    next stone (a double threat, threats stacked in a column, zugzwang), a forced
    block, a double threat made with the next move, red's odd threat, yellow's
    claimeven. Raises :class:`ThreatError` as :func:`threat_map` does.

    >>> explain(Position.from_moves("41414")).sentence
    'Yellow must block column 4: Red would complete a four there.'
    >>> explain(Position.from_moves("")) is None
    True
    """
    position = _position(game)
    if position.is_over():
        raise ThreatError(
            f"the game is already over ({position.result_text()}): there is no verdict to explain"
        )
    if position.rules != "standard":
        return None
    board = _Board.of(position)
    for rule in _RULES:
        found = rule(board)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class SolverLine:
    """The solver's verdict and line where no simple rule explains a position: the
    side to move's exact ``score`` (``None``: not settled within the limit), the best
    line's ``moves`` (0-based columns, the first the side to move's), and whether
    the line reaches the game's end (``complete``)."""

    score: int | None
    moves: tuple[int, ...]
    complete: bool

    def text(self) -> str:
        """The line as a move string (``"4453"``), ``""`` for none."""
        return "".join(COLUMN_SYMBOLS[move] for move in self.moves)


def solver_line(game: Game, limit: Limit | None = None) -> SolverLine:
    """The exact verdict and the best line of a Connect Four position (standard rules,
    not over), within ``limit``: what to show where :func:`explain` finds no rule.

    >>> found = solver_line(Position.from_moves("4455"))
    >>> found.score, found.text(), found.complete
    (18, '342', True)
    """
    position = _position(game)
    scores = exact_scores(position, limit=limit)
    score = None
    if scores.complete:
        score = max(s for s in scores.scores if s is not None)
    line = best_line(position, limit=limit) if scores.complete else None
    if line is None:
        return SolverLine(score, (), False)
    return SolverLine(score, line.moves, line.complete)
