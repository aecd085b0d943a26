"""Monte Carlo tree search on bitboards: the steps both MCTS engines share.

Plain Python on ints and flat int sequences, like :mod:`connect4.classic.node`
(whose :func:`~connect4.classic.node.end_state` and parameter slots it reuses):
the readable engine (:mod:`connect4.classic.mcts`) calls the random generator and
the line test as they are, and the compiled engine
(:mod:`connect4.classic.fastmcts`) compiles every function here with numba.

The tree is one row of ints per node (``F_*`` fields). Children are stored
side by side, in the game's move order (centre first), when a node is expanded.
A node's result is kept for the player who moved *into* it, as a code whose
value minus one is the doubled reward: ``LOSS`` 0, ``DRAW`` 1, ``WIN`` 2.

The random generator is xorshift64 seeded by splitmix64. It runs unchanged on
Python ints (``mask64 = 2**64 - 1``) and on numba's wrapping ``int64``
(``mask64 = -1``): each right shift is masked so that an arithmetic shift acts
as a logical one, and each draw reads the top 32 bits.

>>> state = seed_state(1)
>>> [draw(state := next_state(state, MASK64), 7) for _ in range(8)]
[0, 0, 5, 4, 2, 5, 1, 1]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypeAlias

from connect4.classic.node import (
    P_BOARD,
    P_BOTTOM,
    P_COUNT_FOURS,
    P_HEIGHT,
    P_SIZE,
    P_TICTACTOE,
    end_state,
    has_line,
    mask_at,
)
from connect4.core.game import Game
from connect4.core.position import (
    board_mask,
    bottom_mask,
    centre_order,
    count_fours,
    four_in_a_row,
)
from connect4.core.tictactoe import FULL, LINES, MOVE_ORDER

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from connect4.classic.node import Array, Ints

    FloatArray: TypeAlias = NDArray[np.float64]

MASK64 = (1 << 64) - 1  # the generator's word on Python ints (-1 on int64)

# parameter slots after the classic search's (connect4.classic.node.P_*)
P_SOLVER, P_HEURISTIC, P_MASK64 = range(P_TICTACTOE + 1, P_TICTACTOE + 4)
N_PARAMS = P_MASK64 + 1

# a node's fields: its move, its first child and number of children, visits, the
# sum of doubled rewards, its result as a finished game, its proven result
F_MOVE, F_FIRST, F_COUNT, F_VISITS, F_REWARD, F_END, F_PROVEN = range(7)
N_FIELDS = 7

# results for the player who moved into a node (reward = code - 1)
UNKNOWN, LOSS, DRAW, WIN = 0, 1, 2, 3

# state slots: nodes in use, generator state, playouts run, deepest selection path,
# 1 once an iteration found the tree full
S_USED, S_RNG, S_PLAYOUTS, S_MAX_DEPTH, S_FULL = range(5)
N_STATE = 5

MAX_NODES = 1 << 22
"""The most nodes a tree holds (112 MB of compiled rows). A search whose next iteration
would have to expand a node past it stops there: the tree is full. Playing out from
its leaves instead would freeze the tree while the playouts pile onto its most visited
leaves, whose random-game means then outweigh what the tree had proven below the other
moves: more playouts would play worse moves."""


# ---------------------------------------------------------------- random numbers
def seed_state(seed: int) -> int:
    """A nonzero 64-bit generator state from any int seed (splitmix64, Python ints).

    >>> hex(seed_state(0))
    '0xe220a8397b1dcdaf'
    """
    z = (seed + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    z ^= z >> 31
    return z or 1


def next_state(x: int, mask64: int) -> int:
    """One xorshift64 step (shifts 13, 7, 17)."""
    x ^= (x << 13) & mask64
    x ^= (x >> 7) & 0x01FF_FFFF_FFFF_FFFF
    x ^= (x << 17) & mask64
    return x


def draw(x: int, n: int) -> int:
    """A number in ``range(n)`` from a generator state: its top 32 bits modulo ``n``."""
    return ((x >> 32) & 0xFFFF_FFFF) % n


# ---------------------------------------------------------------- the board
def makes_line(stones: int, bit: int, params: Ints, lines: Ints) -> bool:
    """True when adding the cell ``bit`` to ``stones`` completes a new line: four in a
    row (a new four under count-fours rules) or tic-tac-toe's three.

    >>> params = [0] * N_PARAMS
    >>> params[P_HEIGHT] = 6
    >>> makes_line(0b0111, 0b1000, params, ()), makes_line(0b0111, 0b10000000, params, ())
    (True, False)
    """
    after = stones | bit
    if params[P_TICTACTOE] == 1:
        return has_line(after, lines)
    height = params[P_HEIGHT]
    if params[P_COUNT_FOURS] == 1:
        return count_fours(after, height) > count_fours(stones, height)
    return four_in_a_row(after, height)


def free_cells(mask: int, params: Ints) -> int:
    """The cells a move can fill now: each column's lowest empty cell, or every empty
    tic-tac-toe cell."""
    board = mask_at(params, P_BOARD)
    if params[P_TICTACTOE] == 1:
        return board & ~mask
    return (mask + mask_at(params, P_BOTTOM)) & board


def end_code(state: int) -> int:
    """:func:`~connect4.classic.node.end_state` as a result for the last mover."""
    if state == 1:
        return DRAW
    if state == 2:
        return WIN
    if state == 3:
        return LOSS
    return UNKNOWN


def playout_cell(
    cur: int, mask: int, free: int, params: Ints, order: Ints, cells: Ints, lines: Ints, st: Array
) -> int:
    """The cell a playout fills: the ``draw``-th free move in move order; with the
    heuristic playout, first a move that completes a line, then one that blocks the
    opponent's."""
    if params[P_HEURISTIC] == 1:
        for side in range(2):
            stones = cur if side == 0 else cur ^ mask
            for index in range(len(order)):
                bit = free & mask_at(cells, order[index])
                if bit != 0 and makes_line(stones, bit, params, lines):
                    return bit
    x = next_state(st[S_RNG], params[P_MASK64])
    st[S_RNG] = x
    k = draw(x, free.bit_count())
    for index in range(len(order)):
        bit = free & mask_at(cells, order[index])
        if bit != 0:
            if k == 0:
                return bit
            k -= 1
    return free & 0  # not reached (k < the free cells); 0 of the board's type


def playout(
    cur: int, mask: int, stones: int, params: Ints, order: Ints, cells: Ints, lines: Ints, st: Array
) -> int:
    """Play to the end from a position; the doubled reward (0, 1, 2) of the player who
    made the position's last move."""
    flip = 0  # 1 while that player is to move
    while True:
        state = end_state(cur, cur ^ mask, stones, params, lines)
        if state != 0:
            break
        bit = playout_cell(cur, mask, free_cells(mask, params), params, order, cells, lines, st)
        mover = cur | bit
        mask |= bit
        cur = mover ^ mask
        stones += 1
        flip ^= 1
    if state == 1:
        return 1
    last_won = state == 2
    return 2 if last_won == (flip == 0) else 0


# ---------------------------------------------------------------- the tree
def expand(
    node: int,
    cur: int,
    mask: int,
    stones: int,
    nodes: Array,
    params: Ints,
    order: Ints,
    cells: Ints,
    lines: Ints,
    st: Array,
) -> None:
    """Give ``node`` a child per legal move, in move order, each marked if it ends
    the game."""
    free = free_cells(mask, params)
    first = st[S_USED]
    count = 0
    for index in range(len(order)):
        bit = free & mask_at(cells, order[index])
        if bit == 0:
            continue
        mover = cur | bit
        after = mask | bit
        code = end_code(end_state(mover ^ after, mover, stones + 1, params, lines))
        child = first + count
        nodes[child, F_MOVE] = order[index]
        nodes[child, F_FIRST] = 0
        nodes[child, F_COUNT] = 0
        nodes[child, F_VISITS] = 0
        nodes[child, F_REWARD] = 0
        nodes[child, F_END] = code
        nodes[child, F_PROVEN] = code if params[P_SOLVER] == 1 else UNKNOWN
        count += 1
    nodes[node, F_FIRST] = first
    nodes[node, F_COUNT] = count
    st[S_USED] = first + count


def select(node: int, c: float, nodes: Array, solver: bool) -> int:
    """The child to descend into: the first unvisited one in move order, else the one
    with the highest UCT score ``mean + c * sqrt(ln N / n)`` (the first on ties). With
    the solver, children proven lost for the mover are skipped."""
    first = nodes[node, F_FIRST]
    end = first + nodes[node, F_COUNT]
    for child in range(first, end):
        if nodes[child, F_VISITS] == 0 and not (solver and nodes[child, F_PROVEN] == LOSS):
            return child
    log_n = math.log(nodes[node, F_VISITS])
    best = -1
    best_score = -1.0
    for child in range(first, end):
        if solver and nodes[child, F_PROVEN] == LOSS:
            continue
        n = nodes[child, F_VISITS]
        score = nodes[child, F_REWARD] / (2.0 * n) + c * math.sqrt(log_n / n)
        if score > best_score:
            best = child
            best_score = score
    return best


def prove(node: int, nodes: Array) -> bool:
    """MCTS-Solver's step: ``node`` is lost for the player who moved into it if a child
    is won for the player to move, and takes its best child's result once all are
    proven. True when ``node`` became proven."""
    first = nodes[node, F_FIRST]
    best = WIN + 1  # the lowest code seen; UNKNOWN (0) when some child is not proven
    for child in range(first, first + nodes[node, F_COUNT]):
        code = nodes[child, F_PROVEN]
        if code == WIN:
            nodes[node, F_PROVEN] = LOSS
            return True
        best = min(best, code)
    if best == UNKNOWN:
        return False
    nodes[node, F_PROVEN] = WIN + LOSS - max_code(node, nodes)
    return True


def max_code(node: int, nodes: Array) -> int:
    """The best proven result among ``node``'s children."""
    first = nodes[node, F_FIRST]
    best = UNKNOWN
    for child in range(first, first + nodes[node, F_COUNT]):
        best = max(best, nodes[child, F_PROVEN])
    return best


def iterate(
    c: float,
    cur: int,
    mask: int,
    stones: int,
    nodes: Array,
    params: Ints,
    order: Ints,
    cells: Ints,
    lines: Ints,
    path: Array,
    st: Array,
) -> bool:
    """One MCTS iteration from the root (node 0): select, expand, play out, back up.
    False, with nothing changed but ``st[S_FULL]`` set, when the node it reaches needs
    expanding and the tree (``len(nodes)`` rows) has no room for its children."""
    solver = params[P_SOLVER] == 1
    node = 0
    depth = 0
    path[0] = 0
    while True:
        if nodes[node, F_END] != UNKNOWN:
            reward = nodes[node, F_END] - 1
            break
        if solver and nodes[node, F_PROVEN] != UNKNOWN:
            reward = nodes[node, F_PROVEN] - 1
            break
        if depth > 0 and nodes[node, F_VISITS] == 0:
            reward = playout(cur, mask, stones, params, order, cells, lines, st)
            break
        if nodes[node, F_COUNT] == 0:
            if st[S_USED] + len(order) > len(nodes):  # full: selection drew no random number
                st[S_FULL] = 1
                return False
            expand(node, cur, mask, stones, nodes, params, order, cells, lines, st)
        node = select(node, c, nodes, solver)
        bit = free_cells(mask, params) & mask_at(cells, nodes[node, F_MOVE])
        mover = cur | bit
        mask |= bit
        cur = mover ^ mask
        stones += 1
        depth += 1
        path[depth] = node
    for k in range(depth, -1, -1):
        nodes[path[k], F_VISITS] += 1
        nodes[path[k], F_REWARD] += reward
        reward = 2 - reward
    if solver:
        for k in range(depth - 1, -1, -1):
            if nodes[path[k + 1], F_PROVEN] == UNKNOWN or not prove(path[k], nodes):
                break
    st[S_MAX_DEPTH] = max(st[S_MAX_DEPTH], depth)
    return True


def run_playouts(
    count: int,
    c: float,
    cur: int,
    mask: int,
    stones: int,
    nodes: Array,
    params: Ints,
    order: Ints,
    cells: Ints,
    lines: Ints,
    path: Array,
    st: Array,
    stop: Array,
) -> int:
    """Up to ``count`` iterations; stops early when the root is proven, when the tree is
    full (``st[S_FULL]``) or, checked every 64 iterations, once another thread sets
    ``stop[0]``. Returns the number run."""
    done = 0
    while done < count:
        if params[P_SOLVER] == 1 and nodes[0, F_PROVEN] != UNKNOWN:
            break
        if (done & 63) == 0 and stop[0] != 0:
            break
        if not iterate(c, cur, mask, stones, nodes, params, order, cells, lines, path, st):
            break
        done += 1
    st[S_PLAYOUTS] += done
    return done


def copy_subtree(root: int, nodes: Array, out: Array) -> int:
    """Copy the subtree under ``root`` to ``out`` with ``root`` as node 0, children
    kept side by side; returns the number of nodes copied."""
    for f in range(N_FIELDS):
        out[0, f] = nodes[root, f]
    used = 1
    i = 0
    while i < used:
        count = out[i, F_COUNT]
        if count > 0:
            first = out[i, F_FIRST]
            for k in range(count):
                for f in range(N_FIELDS):
                    out[used + k, f] = nodes[first + k, f]
            out[i, F_FIRST] = used
            used += count
        i += 1
    return used


# ---------------------------------------------------------------- set-up (Python only)
def board_setup(
    game: Game, solver: bool, heuristic: bool
) -> tuple[list[int], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``(params, order, cells, lines)`` for ``game``: the parameter slots, the moves in
    move order, the cells each move can fill (indexed by move) and tic-tac-toe's lines.

    >>> from connect4 import TicTacToe
    >>> params, order, cells, lines = board_setup(TicTacToe(), True, False)
    >>> order, cells[4], len(lines), params[P_SOLVER]
    ((4, 0, 2, 6, 8, 1, 3, 5, 7), 16, 8, 1)
    """
    params = [0] * N_PARAMS
    params[P_HEIGHT], params[P_SIZE] = game.height, game.size
    params[P_SOLVER], params[P_HEURISTIC], params[P_MASK64] = int(solver), int(heuristic), MASK64
    if game.kind == "tictactoe":
        params[P_TICTACTOE], params[P_BOARD] = 1, FULL
        return params, MOVE_ORDER, tuple(1 << cell for cell in range(9)), LINES
    params[P_COUNT_FOURS] = int(game.rules == "count-fours")
    params[P_BOTTOM] = bottom_mask(game.width, game.height)
    params[P_BOARD] = board_mask(game.width, game.height)
    column = (1 << game.height) - 1
    cells = tuple(column << (c * (game.height + 1)) for c in range(game.width))
    return params, centre_order(game.width), cells, ()
