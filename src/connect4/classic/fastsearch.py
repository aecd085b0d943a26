"""Compiled fast path of :mod:`connect4.classic.search`: numba bitboard minimax and alpha-beta.

The same algorithm as the generic search (max/min form, root player maximises,
fail-soft alpha-beta, distance-scored game ends, the same move orders, the same
direct-mapped transposition table with exact/lower/upper entries used only at
equal depth), written on two ``int64`` bitboards with make/unmake by XOR and no
allocation per node. It returns the same value, principal variation and node,
leaf, cut-off and table-hit counts as the generic code (the tests check this).

Supported: Connect Four boards with ``width * (height + 1) <= 63`` (both rule
sets) and tic-tac-toe, with the ``windows`` presets and ``cell-weights``, and
``threats`` and ``adjacency`` on Connect Four. Everything else (``recent-lines``,
which looks at the move history, and a recorded tree) runs on the generic search.

>>> from connect4 import Position
>>> value, pv, stats, complete = run(Position(), depth=4, algorithm="alphabeta",
...     heuristic="windows", ordering="center", tt=False)
>>> value, stats.nodes == search_python(Position(), 4).stats.nodes
(-4, True)
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

import numpy as np
from numba import njit

from connect4.classic.heuristics import (
    ADJ_FOURS,
    ADJ_LATER,
    ADJ_PLAYABLE,
    ADJ_SAME,
    THREAT_WEIGHTS,
    THREAT_WINDOWS,
    WINDOW_PRESETS,
    geometry,
)
from connect4.classic.search import SearchStats
from connect4.core.game import Game
from connect4.core.position import Position, centre_order
from connect4.core.tictactoe import LINES, MOVE_ORDER, TicTacToe

MATE = 1_000_000_000
INF = 1 << 62
TT_SLOTS = 1_048_573
EXACT, LOWER, UPPER = 0, 1, 2
# stats slots
NODES, LEAVES, CUTOFFS, TT_HITS, ABORTED, LIMIT = 0, 1, 2, 3, 4, 5
# parameter slots
P_WIDTH, P_HEIGHT, P_PRUNE, P_SORTED, P_USE_TT, P_HEUR, P_COUNT_FOURS, P_SIZE = range(8)
P_BOTTOM, P_BOARD, P_GEN, P_ODD, P_ROOT_RED = 8, 9, 10, 11, 12
HEUR_WINDOWS, HEUR_CELLS, HEUR_THREATS, HEUR_ADJACENCY = 0, 1, 2, 3
FAST_HEURISTICS = (
    "windows",
    "windows/mollerhoj",
    "windows/zer0lose",
    "windows/report",
    "cell-weights",
    "threats",
    "adjacency",
)


def supports(game: Game, heuristic: str) -> bool:
    """True when the compiled path can run this search."""
    if heuristic not in FAST_HEURISTICS:
        return False
    if isinstance(game, TicTacToe):
        return heuristic not in ("threats", "adjacency")
    return isinstance(game, Position) and game.width * (game.height + 1) <= 63


# ---------------------------------------------------------------- bit helpers
@njit(cache=True, inline="always")
def _popcount(x: int) -> int:  # pragma: no cover - compiled
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@njit(cache=True)
def _four(stones: int, height: int) -> bool:  # pragma: no cover - compiled
    for shift in (1, height + 1, height, height + 2):
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


@njit(cache=True)
def _count_fours(stones: int, height: int) -> int:  # pragma: no cover - compiled
    total = 0
    for shift in (1, height + 1, height, height + 2):
        pairs = stones & (stones >> shift)
        total += _popcount(pairs & (pairs >> (2 * shift)))
    return total


@njit(cache=True)
def _windows(own: int, opp: int, dirs: np.ndarray, weights: np.ndarray) -> int:  # pragma: no cover
    """Windows score: ``weights[0:4]`` for own 1-4 discs, ``weights[4:8]`` opponent's."""
    total = 0
    for i in range(dirs.shape[0]):
        shift = dirs[i, 0]
        starts = dirs[i, 1]
        for side in range(2):
            a = own if side == 0 else opp
            o = opp if side == 0 else own
            blocked = o | (o >> shift) | (o >> (2 * shift)) | (o >> (3 * shift))
            free = starts & ~blocked
            if free == 0:
                continue
            b = a >> shift
            c = a >> (2 * shift)
            d = a >> (3 * shift)
            s1 = a ^ b
            c1 = a & b
            s2 = c ^ d
            c2 = c & d
            bit0 = s1 ^ s2
            carry = s1 & s2
            bit1 = c1 ^ c2 ^ carry
            bit2 = (c1 & c2) | (carry & (c1 | c2))
            base = 4 * side
            total += weights[base] * _popcount(free & bit0 & ~bit1)
            total += weights[base + 1] * _popcount(free & bit1 & ~bit0)
            total += weights[base + 2] * _popcount(free & bit0 & bit1)
            total += weights[base + 3] * _popcount(free & bit2)
    return total


@njit(cache=True)
def _cells(own: int, opp: int, wmasks: np.ndarray) -> int:  # pragma: no cover - compiled
    total = 0
    for i in range(wmasks.shape[0]):
        total += wmasks[i, 0] * (_popcount(own & wmasks[i, 1]) - _popcount(opp & wmasks[i, 1]))
    return total


@njit(cache=True)
def _threat_cells(s: int, mask: int, height: int, board: int) -> int:  # pragma: no cover
    r = (s << 1) & (s << 2) & (s << 3)
    for shift in (height + 1, height, height + 2):
        p = (s << shift) & (s << (2 * shift))
        r |= p & (s << (3 * shift))
        r |= p & (s >> shift)
        p = (s >> shift) & (s >> (2 * shift))
        r |= p & (s << shift)
        r |= p & (s >> (3 * shift))
    return r & board & ~mask


@njit(cache=True)
def _above(cells: int, height: int, board: int) -> int:  # pragma: no cover - compiled
    out = 0
    for _ in range(height - 1):
        cells = (cells << 1) & board
        out |= cells
    return out


@njit(cache=True)
def _threat_side(  # pragma: no cover - compiled
    t: int, dead: int, rows: int, mover: bool, playable: int, w: np.ndarray
) -> int:
    live = t & ~dead
    score: int = w[8] * _popcount(live & rows) + w[9] * _popcount(live & ~rows)
    score += w[10] * _popcount(t & dead)
    score += w[11] * _popcount(live & (live << 1))
    if not mover and _popcount(t & playable) >= 2:
        score += w[12]
    return score


@njit(cache=True)
def _threats(  # pragma: no cover - compiled
    own: int,
    opp: int,
    mask: int,
    own_moves: bool,
    own_red: bool,
    params: np.ndarray,
    dirs: np.ndarray,
    weights: np.ndarray,
    wmasks: np.ndarray,
) -> int:
    """:func:`connect4.classic.heuristics.threats` on int64 bitboards (same weights, same value)."""
    height = params[P_HEIGHT]
    board = params[P_BOARD]
    t_own = _threat_cells(own, mask, height, board)
    t_opp = _threat_cells(opp, mask, height, board)
    playable = (mask + params[P_BOTTOM]) & board
    dead_own = _above(t_opp, height, board)
    dead_opp = _above(t_own, height, board)
    red_rows = params[P_ODD]
    yellow_rows = board & ~red_rows
    own_rows = red_rows if own_red else yellow_rows
    opp_rows = yellow_rows if own_red else red_rows
    value = _threat_side(t_own, dead_own, own_rows, own_moves, playable, weights)
    value -= _threat_side(t_opp, dead_opp, opp_rows, not own_moves, playable, weights)
    red_live = (t_own & ~dead_own) if own_red else (t_opp & ~dead_opp)
    yellow_live = (t_opp & ~dead_opp) if own_red else (t_own & ~dead_own)
    if red_live & red_rows:
        value += weights[13] if own_red else -weights[13]
    elif yellow_live & yellow_rows:
        value += -weights[13] if own_red else weights[13]
    value += _windows(own, opp, dirs, weights)
    return value + _cells(own, opp, wmasks)


@njit(cache=True)
def _adjacency_side(  # pragma: no cover - compiled
    stones: int, now: int, later: int, height: int, w: np.ndarray
) -> int:
    total = 0
    for shift in (1, height + 1, height, height + 2):
        for side in range(2):
            moved = (stones << shift) if side == 0 else (stones >> shift)
            total += w[0] * _popcount(moved & stones)
            total += w[1] * _popcount(moved & now)
            total += w[2] * _popcount(moved & later)
    return total


@njit(cache=True)
def _adjacency(  # pragma: no cover - compiled
    own: int, opp: int, mask: int, params: np.ndarray, w: np.ndarray
) -> int:
    """:func:`connect4.classic.heuristics.adjacency` on int64 bitboards."""
    height = params[P_HEIGHT]
    board = params[P_BOARD]
    now = (mask + params[P_BOTTOM]) & board
    later = board & ~mask & ~now
    value: int = _adjacency_side(own, now, later, height, w)
    value -= _adjacency_side(opp, now, later, height, w)
    fours: int = w[3] * (_count_fours(own, height) - _count_fours(opp, height))
    return value + fours


# ---------------------------------------------------------------- the search
@njit(cache=True)
def _node(  # pragma: no cover - compiled
    cur: int,
    mask: int,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    stones: int,
    heights: np.ndarray,
    params: np.ndarray,
    order: np.ndarray,
    dirs: np.ndarray,
    weights: np.ndarray,
    wmasks: np.ndarray,
    lines: np.ndarray,
    st: np.ndarray,
    tt_key: np.ndarray,
    tt_data: np.ndarray,
    tt_value: np.ndarray,
    movebuf: np.ndarray,
    pv: np.ndarray,
    pvlen: np.ndarray,
) -> int:
    """One node. ``cur``/``mask``: side to move's stones / all stones; ``ply`` from the
    root (even = the root player moves, maximises). Tic-tac-toe when ``params[P_HEIGHT]``
    is 0 (``lines`` then holds its eight lines)."""
    st[NODES] += 1
    if st[NODES] > st[LIMIT]:
        st[ABORTED] = 1
        return 0
    pvlen[ply] = 0
    ttt = params[P_HEIGHT] == 0
    height = params[P_HEIGHT]
    size = params[P_SIZE]
    maximizing = (ply & 1) == 0
    last = cur ^ mask  # the player who just moved
    # ---- game over?
    winner_last = False
    over = False
    if stones > 0:
        if ttt:
            for i in range(lines.shape[0]):
                if last & lines[i] == lines[i]:
                    winner_last = True
                    break
            over = winner_last or stones == size
        elif params[P_COUNT_FOURS] == 1:
            if stones == size:
                over = True
                diff = _count_fours(last, height) - _count_fours(cur, height)
                winner_last = diff > 0
                if diff < 0:  # the side to move won on count
                    st[LEAVES] += 1
                    return MATE - stones if maximizing else -(MATE - stones)
        else:
            winner_last = _four(last, height)
            over = winner_last or stones == size
    if over:
        st[LEAVES] += 1
        if not winner_last:
            return 0
        # the last mover won: it is the root player when the side to move is not
        return -(MATE - stones) if maximizing else MATE - stones
    if depth == 0:
        st[LEAVES] += 1
        own = cur if maximizing else last
        opp = last if maximizing else cur
        if params[P_HEUR] == HEUR_CELLS:
            return _cells(own, opp, wmasks)
        if params[P_HEUR] == HEUR_ADJACENCY:
            return _adjacency(own, opp, mask, params, weights)
        if params[P_HEUR] == HEUR_THREATS:
            return _threats(
                own, opp, mask, maximizing, params[P_ROOT_RED] == 1, params, dirs, weights,
                wmasks,
            )  # fmt: skip
        if ttt:
            total = 0
            for i in range(lines.shape[0]):
                a = _popcount(own & lines[i])
                b = _popcount(opp & lines[i])
                if a > 0 and b == 0:
                    total += weights[a - 1]
                elif b > 0 and a == 0:
                    total += weights[4 + b - 1]
            return total
        return _windows(own, opp, dirs, weights)
    # ---- moves
    count = 0
    width = params[P_WIDTH]
    n_order = order.shape[0]
    for i in range(n_order):
        m = order[i] if params[P_SORTED] == 0 else i
        if ttt:
            if (mask >> m) & 1 == 0:
                movebuf[ply, count] = m
                count += 1
        elif m < width and heights[m] < height:
            movebuf[ply, count] = m
            count += 1
    key = 0
    slot = 0
    alpha0 = alpha
    beta0 = beta
    use_tt = params[P_USE_TT] == 1
    if use_tt:
        key = cur + mask
        if ttt:
            key = (cur | (last << 9)) if (stones & 1) == 0 else (last | (cur << 9))
        slot = key % TT_SLOTS
        if tt_key[slot] == key and (tt_data[slot] >> 32) == params[P_GEN]:
            data = tt_data[slot]
            entry_depth = data & 0xFFFF
            flag = (data >> 16) & 0xFF
            best_move = ((data >> 24) & 0xFF) - 1
            stored = tt_value[slot]
            if entry_depth == depth:
                hit = False
                if flag == EXACT:
                    hit = True
                elif flag == LOWER:
                    if stored >= beta:
                        hit = True
                    if stored > alpha:
                        alpha = stored
                elif stored <= alpha:
                    hit = True
                elif stored < beta:
                    beta = stored
                st[TT_HITS] += 1
                if hit or alpha >= beta:
                    if best_move >= 0:
                        pv[ply, 0] = best_move
                        pvlen[ply] = 1
                    return int(stored)
            if best_move >= 0 and movebuf[ply, 0] != best_move:
                found = -1
                for i in range(count):
                    if movebuf[ply, i] == best_move:
                        found = i
                        break
                if found > 0:
                    for i in range(found, 0, -1):
                        movebuf[ply, i] = movebuf[ply, i - 1]
                    movebuf[ply, 0] = best_move
    prune = params[P_PRUNE] == 1
    best = -INF if maximizing else INF
    best_move = -1
    for index in range(count):
        m = movebuf[ply, index]
        if ttt:
            bit = 1 << m
        else:
            bit = 1 << (m * (height + 1) + heights[m])
            heights[m] += 1
        value = _node(
            cur ^ mask, mask | bit, depth - 1, alpha, beta, ply + 1, stones + 1, heights,
            params, order, dirs, weights, wmasks, lines, st, tt_key, tt_data, tt_value,
            movebuf, pv, pvlen,
        )  # fmt: skip
        if not ttt:
            heights[m] -= 1
        if st[ABORTED] == 1:
            return 0
        improved = False
        if maximizing:
            if value > best:
                best = value
                best_move = m
                improved = True
                if prune and best > alpha:
                    alpha = best
        elif value < best:
            best = value
            best_move = m
            improved = True
            if prune and best < beta:
                beta = best
        if improved:
            pv[ply, 0] = m
            n = pvlen[ply + 1]
            for i in range(n):
                pv[ply, i + 1] = pv[ply + 1, i]
            pvlen[ply] = n + 1
        if prune and alpha >= beta:
            if index + 1 < count:
                st[CUTOFFS] += 1
            break
    if use_tt:
        if not prune:
            flag = EXACT
        elif best <= alpha0:
            flag = UPPER
        elif best >= beta0:
            flag = LOWER
        else:
            flag = EXACT
        tt_key[slot] = key
        tt_data[slot] = depth | (flag << 16) | ((best_move + 1) << 24) | (params[P_GEN] << 32)
        tt_value[slot] = best
    return best


# ---------------------------------------------------------------- Python side
def _stats(st: np.ndarray) -> SearchStats:
    return SearchStats(
        nodes=int(st[NODES]), leaves=int(st[LEAVES]), cutoffs=int(st[CUTOFFS]),
        tt_hits=int(st[TT_HITS]),
    )  # fmt: skip


_TABLE: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
_GENERATIONS = itertools.count(1)  # next() is atomic: threads never share a generation
_TABLE_LOCK = threading.Lock()


def shared_table() -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int]:
    """The process's table and a new generation: entries of other generations count as
    empty, so each search starts from an empty table without clearing 24 MB. The
    kernel holds the GIL, so searches in several threads only evict each other's
    entries (more nodes, never a different value)."""
    with _TABLE_LOCK:
        if not _TABLE:
            _TABLE.append(new_table())
    return _TABLE[0], next(_GENERATIONS)


def new_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty transposition table: keys (-1 = empty), packed data, values."""
    return (
        np.full(TT_SLOTS, -1, dtype=np.int64),
        np.zeros(TT_SLOTS, dtype=np.int64),
        np.zeros(TT_SLOTS, dtype=np.int64),
    )


_EMPTY_TABLE = (np.full(1, -1, dtype=np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64))


def _setup(game: Game, heuristic: str) -> dict[str, Any]:
    name = "windows/mollerhoj" if heuristic == "windows" else heuristic
    weights = np.zeros(16, dtype=np.int64)
    if name.startswith("windows/"):
        mine, theirs = WINDOW_PRESETS[name.split("/", 1)[1]]
        weights[:8] = (*mine, *theirs)
    heur = {
        "cell-weights": HEUR_CELLS, "threats": HEUR_THREATS, "adjacency": HEUR_ADJACENCY,
    }.get(name, HEUR_WINDOWS)  # fmt: skip
    if name == "adjacency":
        weights[:4] = (ADJ_SAME, ADJ_PLAYABLE, ADJ_LATER, ADJ_FOURS)
    if name == "threats":
        w = THREAT_WEIGHTS
        weights[:8] = (0, THREAT_WINDOWS[0], THREAT_WINDOWS[1], 0, 0, -THREAT_WINDOWS[0],
                       -THREAT_WINDOWS[1], 0)  # fmt: skip
        weights[8:14] = (w["good"], w["other"], w["dead"], w["stacked"], w["double"],
                         w["zugzwang"])  # fmt: skip
    if isinstance(game, TicTacToe):
        order = np.array(MOVE_ORDER, dtype=np.int64)
        params = np.array([9, 0, 0, 0, 0, heur, 0, 9, 0, 0, 0, 0, 0], dtype=np.int64)
        dirs = np.zeros((1, 2), dtype=np.int64)
        wmasks = np.array([[2, 0b010101010], [3, 0b101000101], [4, 0b000010000]], np.int64)
        lines = np.array(LINES, dtype=np.int64)
        cur = game.stones(game.to_move)
        mask = game.stones(1) | game.stones(2)
        heights = np.zeros(1, dtype=np.int64)
    else:
        assert isinstance(game, Position)
        g = geometry(game.width, game.height)
        order = np.array(centre_order(game.width), dtype=np.int64)
        params = np.array(
            [game.width, game.height, 0, 0, 0, heur, int(game.rules == "count-fours"),
             game.width * game.height, g.bottom, g.board, 0, g.odd_rows,
             int(game.to_move == 1)],
            dtype=np.int64,
        )  # fmt: skip
        dirs = np.array(g.directions, dtype=np.int64)
        wmasks = np.array(g.weight_masks, dtype=np.int64)
        lines = np.zeros(1, dtype=np.int64)
        cur, mask = game.current, game.mask
        heights = np.array(game.heights, dtype=np.int64)
    return {
        "order": order, "params": params, "dirs": dirs, "weights": weights,
        "wmasks": wmasks, "lines": lines, "cur": cur, "mask": mask, "heights": heights,
    }  # fmt: skip


def run(
    game: Game,
    *,
    depth: int,
    algorithm: str,
    heuristic: str,
    ordering: str,
    tt: bool,
    node_limit: int | None = None,
    deadline: float | None = None,
    state: dict[str, Any] | None = None,
) -> tuple[float, list[int], SearchStats, bool]:
    """Search ``game`` to ``depth`` on the compiled path: ``(value, pv, stats, complete)``.

    ``state`` (a dict the caller keeps) carries the transposition table and the
    measured speed from one iterative-deepening iteration to the next; with a
    ``deadline`` the iteration gets a node budget from that speed.
    """
    state = {} if state is None else state
    setup = _setup(game, heuristic)
    params = setup["params"]
    params[P_PRUNE] = int(algorithm == "alphabeta")
    params[P_SORTED] = int(ordering == "none")
    params[P_USE_TT] = int(tt)
    if tt:
        if "table" not in state:
            state["table"], state["generation"] = shared_table()
        table = state["table"]
        params[P_GEN] = state["generation"]
    else:
        table = _EMPTY_TABLE
    st = np.zeros(6, dtype=np.int64)
    limit = INF if node_limit is None else node_limit
    if deadline is not None:
        spent = state.get("seconds", 0.0)
        rate = state.get("nodes", 0) / spent if spent > 0.002 else 500_000.0
        limit = min(limit, max(1, int((deadline - time.perf_counter()) * rate)))
    st[LIMIT] = limit
    size = 9 if isinstance(game, TicTacToe) else game.width * game.height
    movebuf = np.zeros((size + 2, max(9, getattr(game, "width", 9))), dtype=np.int64)
    pv = np.zeros((size + 2, size + 2), dtype=np.int64)
    pvlen = np.zeros(size + 2, dtype=np.int64)
    start = time.perf_counter()
    value = _node(
        setup["cur"], setup["mask"], depth, -INF, INF, 0, game.ply, setup["heights"], params,
        setup["order"], setup["dirs"], setup["weights"], setup["wmasks"], setup["lines"], st,
        table[0], table[1], table[2], movebuf, pv, pvlen,
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    state["nodes"] = state.get("nodes", 0) + int(st[NODES])
    state["seconds"] = state.get("seconds", 0.0) + elapsed
    stats = _stats(st)
    if st[ABORTED]:
        return float("nan"), [], stats, False
    line = [int(m) for m in pv[0, : pvlen[0]]]
    return int(value), line, stats, True  # value is an int64


def search_python(game: Game, depth: int) -> Any:
    """The generic alpha-beta (windows, centre order) for comparison in examples."""
    from connect4.classic.search import Limits, search

    return search(game, limits=Limits(depth=depth), engine="python")


def warm_up() -> None:
    """Compile (or load from the cache) the kernels once."""
    run(Position(), depth=1, algorithm="alphabeta", heuristic="windows", ordering="center",
        tt=True)  # fmt: skip
    run(TicTacToe(), depth=1, algorithm="alphabeta", heuristic="windows", ordering="center",
        tt=False)  # fmt: skip
