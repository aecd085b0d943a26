"""The classic search's node step (:func:`search_node`) and the leaf arithmetic it
evaluates on bitboards, written once for both engines (the bitboard helpers of
the game itself live in :mod:`connect4.core.bits` and :mod:`connect4.core.position`).

Every function here is plain Python over ints and flat int sequences (tuples in
Python, ``int64`` arrays when compiled), so the readable engine
(:mod:`connect4.classic.search`) and the named heuristics
(:mod:`connect4.classic.heuristics`) call them as they are, and the compiled
backend (:mod:`connect4.classic.fastsearch`) compiles the very same functions with
numba, :func:`search_node` included. Popcounts are ``x.bit_count()``; the backend
teaches numba that method.

Boards use the game's own bit layout: Connect Four columns of ``height + 1`` bits
(see :mod:`connect4.core.position`), tic-tac-toe's nine cells. Sequences are flat:

* ``directions``: ``(shift, starts, shift, starts, ...)``, ``starts`` a 1 at the lowest
  cell of every four-cell window in that direction;
* ``cells``: ``(weight, mask, weight, mask, ...)``, the cells with each weight;
* ``lines``: tic-tac-toe's eight lines of three;
* ``weights``: the heuristic's numbers; ``weights[0:4]`` score own windows (or lines)
  holding 1-4 discs, ``weights[4:8]`` the opponent's (threats adds its six numbers
  at ``8:14``, adjacency uses ``0:4``: same colour, playable, later, fours).

A bitboard read out of a sequence goes through :func:`mask_at` (and a sequence's
length through :func:`span`): here they index, as the one-word compiled code does;
boards over 64 bits compile every function again with two-word forms of these few
word helpers (``uint128`` bitboards whose high words fill a second half of each
array; see :mod:`connect4.envs.wideboard`).

>>> windows_score(0b111, 0, (1, 0b1111), (1, 10, 100, 1000, -1, -10, -100, -1000))
111
>>> mate_score(7, True), mate_score(12, False)
(999999993, -999999988)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

from connect4.core.position import count_fours, four_in_a_row
from connect4.core.score import MATE as MATE

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Array: TypeAlias = NDArray[np.int64]
    Ints: TypeAlias = Sequence[int] | Array

INF = 1 << 62  # no bound: the compiled engine's integer infinity
TT_SLOTS = 1_048_573  # a prime: the table is direct-mapped, key % TT_SLOTS
EXACT, LOWER, UPPER = 0, 1, 2  # what a table entry's value is: exact, a lower or upper bound

# evaluation codes: which heuristic a compiled leaf runs
EVAL_WINDOWS, EVAL_CELLS, EVAL_THREATS, EVAL_ADJACENCY = 0, 1, 2, 3

# the compiled search's parameter slots (one int64 array)
P_WIDTH, P_HEIGHT, P_PRUNE, P_SORTED, P_USE_TT, P_EVAL, P_COUNT_FOURS, P_SIZE = range(8)
P_BOTTOM, P_BOARD, P_GEN, P_ODD, P_ROOT_RED, P_TICTACTOE = range(8, 14)
# its statistics slots
S_NODES, S_LEAVES, S_CUTOFFS, S_TT_HITS, S_ABORTED, S_LIMIT = range(6)


# ---------------------------------------------------------------- words
def mask_at(values: Ints, index: int) -> int:
    """The bitboard ``values[index]`` (one word; the two-word form joins two).

    >>> mask_at((3, 0b1010), 1)
    10
    """
    return values[index]


def span(values: Ints) -> int:
    """The number of values in ``values`` (a two-word array holds twice as many words)."""
    return len(values)


def one(board: int) -> int:
    """1 as a bitboard of ``board``'s type, the cell a shift moves (0b1 << n past bit 63
    needs the two-word type)."""
    return 1


def table_slot(key: int) -> int:
    """The transposition table's slot of a position key: ``key % TT_SLOTS``."""
    return key % TT_SLOTS


def table_holds(tt_key: Array, slot: int, key: int) -> bool:
    """True when the table's ``slot`` holds ``key``, all of it (the two-word form
    compares both words: ``tt_key``'s second half keeps the high words)."""
    return bool(tt_key[slot] == key)


def table_keep(tt_key: Array, slot: int, key: int) -> None:
    """Keep ``key`` in the table's ``slot``, all of it (the two-word form writes its
    high word half the array on)."""
    tt_key[slot] = key


# ---------------------------------------------------------------- heuristics
def windows_score(own: int, opp: int, directions: Ints, weights: Ints) -> int:
    """Four-cell windows holding one colour only, weighted by their disc count.

    Each direction is a 4-input bit-sliced adder: ``bit0``, ``bit1`` and the carry
    terms hold the number of discs in the window starting at each cell.

    >>> windows_score(0b111, 0, (1, 0b1111), (1, 10, 100, 1000, 0, 0, 0, 0))  # 3, 2, 1 discs
    111
    """
    total = 0
    for index in range(0, span(directions), 2):
        shift = directions[index]
        shift2 = 2 * shift
        shift3 = 3 * shift
        starts = mask_at(directions, index + 1)
        for k in range(0, 8, 4):  # own windows, then the opponent's
            a = own if k == 0 else opp
            o = opp if k == 0 else own
            free = starts & ~(o | (o >> shift) | (o >> shift2) | (o >> shift3))
            if free == 0:
                continue
            b = a >> shift
            c = a >> shift2
            d = a >> shift3
            s1 = a ^ b
            c1 = a & b
            s2 = c ^ d
            c2 = c & d
            bit0 = s1 ^ s2
            carry = s1 & s2
            bit1 = c1 ^ c2 ^ carry
            odd = free & bit0
            pair = free & bit1
            total += (
                weights[k] * (odd & ~bit1).bit_count()
                + weights[k + 1] * (pair & ~bit0).bit_count()
                + weights[k + 2] * (odd & bit1).bit_count()
                + weights[k + 3] * (free & ((c1 & c2) | (carry & (c1 | c2)))).bit_count()
            )
    return total


def lines_score(own: int, opp: int, lines: Ints, weights: Ints) -> int:
    """Tic-tac-toe's windows: lines holding one colour only, weighted by disc count.

    >>> weights = (1, 10, 100, 0, -1, -10, -100, 0)
    >>> lines_score(0b10000, 0b1, (0b10010010,), weights)  # X in the centre column's line
    1
    >>> lines_score(0b10000, 0b1, (0b111, 0b10010010), weights)  # and O in the bottom row
    0
    """
    total = 0
    for index in range(len(lines)):
        mine = (own & lines[index]).bit_count()
        theirs = (opp & lines[index]).bit_count()
        if mine > 0 and theirs == 0:
            total += weights[mine - 1]
        elif theirs > 0 and mine == 0:
            total += weights[3 + theirs]
    return total


def cells_score(own: int, opp: int, cells: Ints) -> int:
    """Own discs' cell weights minus the opponent's.

    >>> cells_score(0b1, 0b10, (3, 0b1, 4, 0b10))
    -1
    """
    total = 0
    for index in range(0, span(cells), 2):
        mask = mask_at(cells, index + 1)
        total += cells[index] * ((own & mask).bit_count() - (opp & mask).bit_count())
    return total


def threat_cells(stones: int, mask: int, height: int, board: int) -> int:
    """Empty cells that would complete a four for ``stones`` (Pons' formula).

    >>> bin(threat_cells(0b111, 0b111, 6, 0b111111))  # three in column 1: the fourth cell
    '0b1000'
    """
    r = (stones << 1) & (stones << 2) & (stones << 3)
    for shift in (height + 1, height, height + 2):
        p = (stones << shift) & (stones << (2 * shift))
        r |= p & (stones << (3 * shift))
        r |= p & (stones >> shift)
        p = (stones >> shift) & (stones >> (2 * shift))
        r |= p & (stones << shift)
        r |= p & (stones >> (3 * shift))
    return r & board & ~mask


def above(cells: int, height: int, board: int) -> int:
    """Every cell strictly above some cell of ``cells`` in its column."""
    out = cells & 0  # 0 of the board's type
    for _ in range(height - 1):
        cells = (cells << 1) & board
        out |= cells
    return out


def threat_side(
    threats: int, dead: int, rows: int, mover: bool, playable: int, weights: Ints
) -> int:
    """One player's threat points: live threats by parity, dead ones, stacked pairs, and
    two playable threats when it is not to move."""
    live = threats & ~dead
    score = weights[8] * (live & rows).bit_count() + weights[9] * (live & ~rows).bit_count()
    score += weights[10] * (threats & dead).bit_count()
    score += weights[11] * (live & (live << 1)).bit_count()
    if not mover and (threats & playable).bit_count() >= 2:
        score += weights[12]
    return score


def threats_score(
    own: int,
    opp: int,
    own_moves: bool,
    own_red: bool,
    height: int,
    board: int,
    bottom: int,
    odd_rows: int,
    directions: Ints,
    cells: Ints,
    weights: Ints,
) -> int:
    """Threat analysis (reachability, parity, Allis' zugzwang rule) plus windows and
    cell weights; :func:`connect4.classic.heuristics.threats` explains the rules."""
    mask = own | opp
    t_own = threat_cells(own, mask, height, board)
    t_opp = threat_cells(opp, mask, height, board)
    playable = (mask + bottom) & board
    dead_own = above(t_opp, height, board)
    dead_opp = above(t_own, height, board)
    yellow_rows = board & ~odd_rows  # red (moving first) owns the odd rows
    value = threat_side(
        t_own, dead_own, odd_rows if own_red else yellow_rows, own_moves, playable, weights
    )
    value -= threat_side(
        t_opp, dead_opp, yellow_rows if own_red else odd_rows, not own_moves, playable, weights
    )
    red_live = (t_own & ~dead_own) if own_red else (t_opp & ~dead_opp)
    yellow_live = (t_opp & ~dead_opp) if own_red else (t_own & ~dead_own)
    if red_live & odd_rows:
        value += weights[13] if own_red else -weights[13]
    elif yellow_live & yellow_rows:
        value += -weights[13] if own_red else weights[13]
    return value + windows_score(own, opp, directions, weights) + cells_score(own, opp, cells)


def adjacency_side(stones: int, now: int, later: int, height: int, weights: Ints) -> int:
    """One player's neighbour points: each disc's 8 neighbours, by what they hold."""
    total = 0
    for shift in (1, height + 1, height, height + 2):
        for side in range(2):
            moved = (stones << shift) if side == 0 else (stones >> shift)
            total += weights[0] * (moved & stones).bit_count()
            total += weights[1] * (moved & now).bit_count()
            total += weights[2] * (moved & later).bit_count()
    return total


def adjacency_score(own: int, opp: int, height: int, board: int, bottom: int, weights: Ints) -> int:
    """Neighbour points, own minus opponent, plus ``weights[3]`` per four ahead."""
    mask = own | opp
    now = (mask + bottom) & board
    later = board & ~mask & ~now
    value = adjacency_side(own, now, later, height, weights)
    value -= adjacency_side(opp, now, later, height, weights)
    return value + weights[3] * (count_fours(own, height) - count_fours(opp, height))


# ---------------------------------------------------------------- node steps
def mate_score(stones: int, root_won: bool) -> int:
    """The value of a game won at ``stones`` stones, for the root player."""
    return MATE - stones if root_won else -(MATE - stones)


def use_entry(flag: int, stored: float, alpha: float, beta: float) -> tuple[bool, float, float]:
    """A table entry of the node's depth: ``(answers the node, alpha, beta)``.

    >>> use_entry(LOWER, 5, 0, 3), use_entry(UPPER, 5, 0, 9)
    ((True, 5, 3), (False, 0, 5))
    """
    if flag == EXACT:
        return True, alpha, beta
    if flag == LOWER:
        return stored >= beta, max(alpha, stored), beta
    if stored <= alpha:
        return True, alpha, beta
    return False, alpha, min(beta, stored)


def entry_flag(prune: bool, best: float, alpha0: float, beta0: float) -> int:
    """What a node's value is for the table, given the window it was searched with."""
    if not prune:
        return EXACT
    if best <= alpha0:
        return UPPER
    if best >= beta0:
        return LOWER
    return EXACT


def back_up(
    maximizing: bool, prune: bool, value: float, best: float, alpha: float, beta: float
) -> tuple[bool, float, float, float]:
    """A child's value backed up: ``(improved, best, alpha, beta)``.

    >>> back_up(True, True, 7, 3, 5, 9), back_up(False, True, 7, 3, 0, 9)
    ((True, 7, 7, 9), (False, 3, 0, 9))
    """
    if maximizing:
        if value > best:
            return True, value, (value if prune and value > alpha else alpha), beta
    elif value < best:
        return True, value, alpha, (value if prune and value < beta else beta)
    return False, best, alpha, beta


# ---------------------------------------------------------------- the compiled search
def has_line(stones: int, lines: Ints) -> bool:
    """True when ``stones`` fill one of ``lines``."""
    for index in range(len(lines)):  # noqa: SIM110 - numba compiles loops, not generators
        if stones & lines[index] == lines[index]:
            return True
    return False


def end_state(cur: int, last: int, stones: int, params: Ints, lines: Ints) -> int:
    """0: the game goes on; 1: a draw; 2: the last mover won; 3: the side to move won
    (count-fours rules, on count at the end)."""
    if stones == 0:
        return 0
    height = params[P_HEIGHT]
    full = stones == params[P_SIZE]
    if params[P_TICTACTOE] == 1:
        won = has_line(last, lines)
    elif params[P_COUNT_FOURS] == 1:
        if not full:
            return 0
        lead = count_fours(last, height) - count_fours(cur, height)
        return 2 if lead > 0 else (3 if lead < 0 else 1)
    else:
        won = four_in_a_row(last, height)
    if won:
        return 2
    return 1 if full else 0


def evaluate(
    own: int,
    opp: int,
    own_moves: bool,
    params: Ints,
    directions: Ints,
    weights: Ints,
    cells: Ints,
    lines: Ints,
) -> int:
    """The compiled leaf: the heuristic ``params[P_EVAL]`` for ``own``, the root player."""
    code = params[P_EVAL]
    if code == EVAL_CELLS:
        return cells_score(own, opp, cells)
    if params[P_TICTACTOE] == 1:  # its windows are its eight lines
        return lines_score(own, opp, lines, weights)
    height = params[P_HEIGHT]
    board = mask_at(params, P_BOARD)
    bottom = mask_at(params, P_BOTTOM)
    if code == EVAL_ADJACENCY:
        return adjacency_score(own, opp, height, board, bottom, weights)
    if code == EVAL_THREATS:
        root_red = params[P_ROOT_RED] == 1
        return threats_score(
            own, opp, own_moves, root_red, height, board, bottom, mask_at(params, P_ODD),
            directions, cells, weights,
        )  # fmt: skip
    return windows_score(own, opp, directions, weights)


def gather_moves(
    mask: int,
    ply: int,
    ttt: bool,
    height: int,
    heights: Array,
    params: Array,
    order: Array,
    movebuf: Array,
) -> int:
    """Write the node's legal moves, in search order, to ``movebuf[ply]``; their count."""
    count = 0
    for index in range(len(order)):
        move = order[index] if params[P_SORTED] == 0 else index
        free = (mask >> move) & 1 == 0 if ttt else heights[move] < height
        if free:
            movebuf[ply, count] = move
            count += 1
    return count


def move_first(move: int, ply: int, count: int, movebuf: Array) -> None:
    """Move ``move`` to the front of ``movebuf[ply]``'s ``count`` moves (the others keep
    their order); nothing when it is not among them."""
    for index in range(1, count):
        if movebuf[ply, index] == move:
            for k in range(index, 0, -1):
                movebuf[ply, k] = movebuf[ply, k - 1]
            movebuf[ply, 0] = move
            break


def extend_pv(move: int, ply: int, pv: Array, pvlen: Array) -> None:
    """The principal variation at ``ply``: ``move``, then the one at ``ply + 1``."""
    pv[ply, 0] = move
    n = pvlen[ply + 1]
    for k in range(n):
        pv[ply, k + 1] = pv[ply + 1, k]
    pvlen[ply] = n + 1


def search_node(
    cur: int,
    mask: int,
    depth: int,
    alpha: float,
    beta: float,
    ply: int,
    stones: int,
    heights: Array,
    params: Array,
    order: Array,
    directions: Array,
    weights: Array,
    cells: Array,
    lines: Array,
    st: Array,
    tt_key: Array,
    tt_data: Array,
    tt_value: Array,
    movebuf: Array,
    pv: Array,
    pvlen: Array,
) -> float:
    """One node of the bitboard search the compiled backend runs (arrays, no objects).

    ``cur``/``mask``: the side to move's stones / all stones; ``ply`` counts from the
    root (even: the root player moves and maximises); ``st`` takes the statistics
    and the node limit. The same steps as the readable engine's node, on bitboards.
    """
    st[S_NODES] += 1
    if st[S_NODES] > st[S_LIMIT]:
        st[S_ABORTED] = 1
        return 0
    pvlen[ply] = 0
    ttt = params[P_TICTACTOE] == 1
    height = params[P_HEIGHT]
    maximizing = (ply & 1) == 0
    last = cur ^ mask  # the player who just moved
    state = end_state(cur, last, stones, params, lines)
    if state != 0:
        st[S_LEAVES] += 1
        if state == 1:
            return 0
        return mate_score(stones, (state == 3) == maximizing)
    if depth == 0:
        st[S_LEAVES] += 1
        own = cur if maximizing else last
        opp = last if maximizing else cur
        return evaluate(own, opp, maximizing, params, directions, weights, cells, lines)
    count = gather_moves(mask, ply, ttt, height, heights, params, order, movebuf)
    key = node_key(cur, last, mask, stones, ttt)
    slot = 0
    alpha0 = alpha
    beta0 = beta
    use_tt = params[P_USE_TT] == 1
    if use_tt:
        slot = table_slot(key)
        hit, stored, alpha, beta = probe_entry(
            key, slot, depth, ply, count, alpha, beta, params, st, tt_key, tt_data, tt_value,
            movebuf, pv, pvlen,
        )  # fmt: skip
        if hit:
            return stored
    prune = params[P_PRUNE] == 1
    best: float = -INF if maximizing else INF
    best_move = -1
    for index in range(count):
        move = movebuf[ply, index]
        if ttt:
            bit = one(mask) << move
        else:
            bit = one(mask) << (move * (height + 1) + heights[move])
            heights[move] += 1
        value = search_node(
            cur ^ mask, mask | bit, depth - 1, alpha, beta, ply + 1, stones + 1, heights,
            params, order, directions, weights, cells, lines, st, tt_key, tt_data, tt_value,
            movebuf, pv, pvlen,
        )  # fmt: skip
        if not ttt:
            heights[move] -= 1
        if st[S_ABORTED] == 1:
            return 0
        improved, best, alpha, beta = back_up(maximizing, prune, value, best, alpha, beta)
        if improved:
            best_move = move
            extend_pv(move, ply, pv, pvlen)
        if prune and alpha >= beta:
            if index + 1 < count:
                st[S_CUTOFFS] += 1
            break
    if use_tt:
        flag = entry_flag(prune, best, alpha0, beta0)
        table_keep(tt_key, slot, key)
        tt_data[slot] = depth | (flag << 16) | ((best_move + 1) << 24) | (params[P_GEN] << 32)
        tt_value[slot] = best
    return best


def node_key(cur: int, last: int, mask: int, stones: int, ttt: bool) -> int:
    """A node's table key: the game's own key (``Position.key``; ``TicTacToe.key``: X's
    cells, O's above them), so both engines fill the same slots and count the same
    nodes."""
    if ttt:
        return (cur | (last << 9)) if (stones & 1) == 0 else (last | (cur << 9))
    return cur + mask


def probe_entry(
    key: int,
    slot: int,
    depth: int,
    ply: int,
    count: int,
    alpha: float,
    beta: float,
    params: Array,
    st: Array,
    tt_key: Array,
    tt_data: Array,
    tt_value: Array,
    movebuf: Array,
    pv: Array,
    pvlen: Array,
) -> tuple[bool, float, float, float]:
    """The node's table entry (``key`` in ``slot``) applied: ``(answered, value, alpha,
    beta)``. An entry of this search and depth may answer the node (its move then the
    principal variation) or narrow the window; an entry of this search puts its move
    first among the ``count`` moves of ``movebuf[ply]``."""
    if not table_holds(tt_key, slot, key) or (tt_data[slot] >> 32) != params[P_GEN]:
        return False, 0, alpha, beta
    data = tt_data[slot]
    stored = tt_value[slot]
    best_move = ((data >> 24) & 0xFF) - 1
    if data & 0xFFFF == depth:
        st[S_TT_HITS] += 1
        hit, alpha, beta = use_entry((data >> 16) & 0xFF, stored, alpha, beta)
        if hit or alpha >= beta:
            if best_move >= 0:
                pv[ply, 0] = best_move
                pvlen[ply] = 1
            return True, int(stored), alpha, beta
    move_first(best_move, ply, count, movebuf)  # the table's move first
    return False, 0, alpha, beta
