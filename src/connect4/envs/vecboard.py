"""The vector env's steps on bitboards: N games advanced in one loop.

Plain Python over ints and ``int64`` arrays, like :mod:`connect4.classic.node`:
:mod:`connect4.envs.vector` compiles every function here with numba, on top of the
classic search's and the MCTS engine's compiled functions. Nothing here is a second
copy of those: a game's end is :func:`~connect4.classic.node.end_state`, a legal
cell is :func:`~connect4.classic.mctsboard.free_cells`, the random opponent is the
MCTS playout's :func:`~connect4.classic.mctsboard.playout_cell` (a uniform draw from
the xorshift generator) and the alpha-beta opponent is
:func:`~connect4.classic.node.search_node`, the node the ``alphabeta`` player's
compiled engine runs, so it picks that player's moves.

Each game is one row of ``state`` (``E_*`` slots); its generator sits at
:data:`~connect4.classic.mctsboard.S_RNG`, where ``playout_cell`` reads it. Each
function runs unchanged on Python ints (``params[P_MASK64] = 2**64 - 1``):

>>> import numpy as np
>>> from connect4 import Position
>>> from connect4.classic.mctsboard import MASK64, N_PARAMS, P_MASK64, board_setup
>>> params, order, cells, lines = board_setup(Position(), False, False)
>>> row = [0] * N_SLOTS
>>> row[E_RNG] = 12345
>>> new_episode(row, RED, params)
>>> play_cell(row, 1 << 21)  # red in the centre column
>>> row[E_STONES], bin(row[E_MASK]), row[E_CUR]
(1, '0b1000000000000000000000', 0)
>>> outcome(row, params, ()), legal(row[E_MASK], 3, params, cells)
(0, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from connect4.classic.mctsboard import (
    P_MASK64,
    S_RNG,
    draw,
    free_cells,
    next_state,
    playout_cell,
)
from connect4.classic.node import (
    INF,
    P_GEN,
    P_HEIGHT,
    P_ROOT_RED,
    P_TICTACTOE,
    P_USE_TT,
    S_LIMIT,
    S_NODES,
    end_state,
    mask_at,
    search_node,
    span,
)

if TYPE_CHECKING:
    from connect4.classic.node import Array, Ints

    Row: TypeAlias = list[int] | Array

# every step inlined into the two loops when compiled (a call would count references
# to its arrays)
INLINE = frozenset(
    ("load", "store", "cell_of", "new_episode", "play_cell", "outcome", "legal", "search_move",
     "opponent_turn", "write_view", "start")
)  # fmt: skip

# a game's slots in its row of the state array; the generator at the playout's S_RNG
E_CUR = 0  # the stones of the side to move
E_RNG = S_RNG
E_MASK, E_STONES, E_AGENT, E_DONE = range(S_RNG + 1, S_RNG + 5)
N_SLOTS = E_DONE + 1  # a row's slots; boards over 64 bits add the high words of the
# bitboards behind them (slot s's at N_SLOTS + s, see connect4.envs.wideboard)

# why a game's episode ended (E_DONE): it goes on, the game is over, an illegal action
PLAYING, OVER, ILLEGAL = 0, 1, 2
# play_as codes (the agent's player number; 0 draws it at each new episode)
RANDOM_COLOUR, RED, YELLOW = 0, 1, 2
# opponent kinds
OPP_RANDOM, OPP_SEARCH = 0, 1
# autoreset modes: the next step resets a finished game, the same step does, nothing does
NEXT_STEP, SAME_STEP, DISABLED = 0, 1, 2
RESET = 3  # step_games' reset(): new episodes where ``actions`` holds 1, nothing played


def load(row: Row, slot: int) -> int:
    """The bitboard in ``row[slot]`` (one word; the two-word form joins the high word)."""
    return row[slot]


def store(row: Row, slot: int, board: int) -> None:
    """Keep the bitboard ``board`` in ``row[slot]``."""
    row[slot] = board


def cell_of(board: int, bit: int) -> int:
    """Bit ``bit`` of ``board``, 0 or 1 (an ``int64``; the two-word form reads it from
    the word that holds it)."""
    return (board >> bit) & 1


def new_episode(row: Row, play_as: int, params: Ints) -> None:
    """An empty board in ``row``; the agent's colour is ``play_as`` or, for
    ``RANDOM_COLOUR``, one draw of the row's generator."""
    for word in range(0, len(row), N_SLOTS):  # the boards' words (one, or two)
        row[word + E_CUR] = 0
        row[word + E_MASK] = 0
    row[E_STONES] = 0
    row[E_DONE] = PLAYING
    if play_as == RANDOM_COLOUR:
        x = next_state(row[E_RNG], params[P_MASK64])
        row[E_RNG] = x
        row[E_AGENT] = RED + draw(x, 2)
    else:
        row[E_AGENT] = play_as


def play_cell(row: Row, bit: int) -> None:
    """The side to move fills the cell ``bit``."""
    mask = load(row, E_MASK) | bit
    store(row, E_CUR, (load(row, E_CUR) | bit) ^ mask)
    store(row, E_MASK, mask)
    row[E_STONES] += 1


def outcome(row: Row, params: Ints, lines: Ints) -> int:
    """The game's end for the agent after a move: 0 it goes on, 1 a draw, 2 the agent
    won, 3 the agent lost."""
    stones = row[E_STONES]
    cur = load(row, E_CUR)
    state = end_state(cur, cur ^ load(row, E_MASK), stones, params, lines)
    if state <= 1:
        return state
    last_mover = 2 - (stones & 1)  # red (1) made the odd-numbered moves
    winner = last_mover if state == 2 else 3 - last_mover
    return 2 if winner == row[E_AGENT] else 3


def legal(mask: int, action: int, params: Ints, cells: Ints) -> bool:
    """True when ``action`` (a column, a tic-tac-toe cell) is a move on the board ``mask``."""
    if action < 0 or action >= span(cells):
        return False
    return free_cells(mask, params) & mask_at(cells, action) != 0


def search_move(
    row: Row,
    depth: int,
    params: Array,
    order: Array,
    directions: Array,
    weights: Array,
    hcells: Array,
    lines: Array,
    st: Array,
    tt_key: Array,
    tt_data: Array,
    tt_value: Array,
    movebuf: Array,
    pv: Array,
    pvlen: Array,
    heights: Array,
) -> int:
    """The search player's move in the row's game: :func:`search_node` from an empty
    table (a new generation), the root the side to move, as its compiled engine runs it."""
    cur = load(row, E_CUR)
    mask = load(row, E_MASK)
    stones = row[E_STONES]
    if params[P_TICTACTOE] == 0:
        bits = params[P_HEIGHT] + 1
        column = (1 << bits) - 1
        for c in range(len(heights)):
            heights[c] = ((mask >> (c * bits)) & column).bit_count()
    params[P_ROOT_RED] = 1 if (stones & 1) == 0 else 0
    if params[P_USE_TT] == 1:
        params[P_GEN] += 1
    for k in range(len(st)):
        st[k] = 0
    st[S_LIMIT] = INF
    # read back from the array: literal arguments would give search_node a literal-typed
    # copy (see connect4.classic.fastsearch.compile_module)
    bound = st[S_LIMIT]
    root = st[S_NODES]
    search_node(
        cur, mask, depth, -bound, bound, root, stones, heights, params, order, directions,
        weights, hcells, lines, st, tt_key, tt_data, tt_value, movebuf, pv, pvlen,
    )  # fmt: skip
    return int(pv[0, 0])


def opponent_turn(
    row: Array,
    kind: int,
    depth: int,
    params: Array,
    order: Array,
    cells: Array,
    lines: Array,
    directions: Array,
    weights: Array,
    hcells: Array,
    st: Array,
    tt_key: Array,
    tt_data: Array,
    tt_value: Array,
    movebuf: Array,
    pv: Array,
    pvlen: Array,
    heights: Array,
) -> int:
    """The opponent moves in the row's game; its outcome for the agent (see :func:`outcome`)."""
    mask = load(row, E_MASK)
    free = free_cells(mask, params)
    if kind == OPP_RANDOM:
        bit = playout_cell(load(row, E_CUR), mask, free, params, order, cells, lines, row)
    else:
        move = search_move(
            row, depth, params, order, directions, weights, hcells, lines, st, tt_key, tt_data,
            tt_value, movebuf, pv, pvlen, heights,
        )  # fmt: skip
        bit = free & mask_at(cells, move)
    play_cell(row, bit)
    return outcome(row, params, lines)


def write_view(
    row: Array, obs: Array, masks: Array, i: int, params: Array, cells: Array, cell_bits: Array
) -> None:
    """Game ``i``'s observation (plane 0 the agent's stones, top row first, flattened)
    and its action mask (all zeros once the game is over; after an illegal action the
    board's open moves, as the single env shows them)."""
    cur = load(row, E_CUR)
    mask = load(row, E_MASK)
    agent_moves = 1 + (row[E_STONES] & 1) == row[E_AGENT]  # red moves when the count is even
    own = cur if agent_moves else cur ^ mask
    opp = own ^ mask
    for k in range(len(cell_bits)):
        b = cell_bits[k]
        obs[i, 2 * k] = cell_of(own, b)
        obs[i, 2 * k + 1] = cell_of(opp, b)
    done = row[E_DONE] == OVER
    free = free_cells(mask, params)
    for m in range(span(cells)):
        masks[i, m] = 0 if done or free & mask_at(cells, m) == 0 else 1


def start(
    row: Array,
    play_as: int,
    kind: int,
    depth: int,
    params: Array,
    order: Array,
    cells: Array,
    lines: Array,
    directions: Array,
    weights: Array,
    hcells: Array,
    st: Array,
    tt_key: Array,
    tt_data: Array,
    tt_value: Array,
    movebuf: Array,
    pv: Array,
    pvlen: Array,
    heights: Array,
) -> int:
    """A new episode in the row; when the agent plays yellow the opponent has moved.
    Returns the moves played (0 or 1)."""
    new_episode(row, play_as, params)
    if row[E_AGENT] == RED:
        return 0
    opponent_turn(
        row, kind, depth, params, order, cells, lines, directions, weights, hcells, st, tt_key,
        tt_data, tt_value, movebuf, pv, pvlen, heights,
    )  # fmt: skip
    return 1


def step_games(
    actions: Array,
    state: Array,
    mode: int,
    play_as: int,
    kind: int,
    depth: int,
    params: Array,
    order: Array,
    cells: Array,
    lines: Array,
    cell_bits: Array,
    directions: Array,
    weights: Array,
    hcells: Array,
    st: Array,
    tt_key: Array,
    tt_data: Array,
    tt_value: Array,
    movebuf: Array,
    pv: Array,
    pvlen: Array,
    heights: Array,
    obs: Array,
    masks: Array,
    rewards: Array,
    flags: Array,
    final_obs: Array,
    final_masks: Array,
) -> int:
    """One step of every game; returns the moves played (the agents' and the opponents').

    With ``mode`` ``RESET`` it is a reset instead: the games whose ``actions[i]`` is
    1 start new episodes (the opponents' first moves are the moves played); every
    game's view is written, nothing else. Otherwise a game over since the last step
    starts anew (``NEXT_STEP``: the action is ignored, reward 0). Otherwise the
    agent's action is played (an illegal one ends the game with reward -1, the board
    unchanged), then the opponent's answer.
    ``flags[i]`` gets bit 0 for terminated, bit 1 for an illegal action, bit 2 when
    ``SAME_STEP`` started a new episode (the finished game's view is then in
    ``final_obs`` and ``final_masks``), bit 3 when the agent of that game was yellow.
    """
    moves = 0
    for i in range(len(state)):
        row = state[i]
        reward = 0.0
        flag = 0
        if mode == RESET:
            if actions[i] == 1:
                moves += start(
                    row, play_as, kind, depth, params, order, cells, lines, directions, weights,
                    hcells, st, tt_key, tt_data, tt_value, movebuf, pv, pvlen, heights,
                )  # fmt: skip
            write_view(row, obs, masks, i, params, cells, cell_bits)
            continue
        if row[E_DONE] != PLAYING:
            moves += start(
                row, play_as, kind, depth, params, order, cells, lines, directions, weights,
                hcells, st, tt_key, tt_data, tt_value, movebuf, pv, pvlen, heights,
            )  # fmt: skip
        elif not legal(load(row, E_MASK), actions[i], params, cells):
            reward = -1.0
            flag = 3
            row[E_DONE] = ILLEGAL
        else:
            bit = free_cells(load(row, E_MASK), params) & mask_at(cells, actions[i])
            play_cell(row, bit)
            moves += 1
            end = outcome(row, params, lines)
            if end == 0:
                end = opponent_turn(
                    row, kind, depth, params, order, cells, lines, directions, weights, hcells,
                    st, tt_key, tt_data, tt_value, movebuf, pv, pvlen, heights,
                )  # fmt: skip
                moves += 1
            if end != 0:
                reward = 1.0 if end == 2 else (-1.0 if end == 3 else 0.0)
                flag = 1
                row[E_DONE] = OVER
        write_view(row, obs, masks, i, params, cells, cell_bits)
        if mode == SAME_STEP and row[E_DONE] != PLAYING:
            for k in range(obs.shape[1]):
                final_obs[i, k] = obs[i, k]
            for m in range(masks.shape[1]):
                final_masks[i, m] = masks[i, m]
            if row[E_AGENT] == YELLOW:
                flag |= 8
            moves += start(
                row, play_as, kind, depth, params, order, cells, lines, directions, weights,
                hcells, st, tt_key, tt_data, tt_value, movebuf, pv, pvlen, heights,
            )  # fmt: skip
            write_view(row, obs, masks, i, params, cells, cell_bits)
            flag |= 4
        rewards[i] = reward
        flags[i] = flag
    return moves
