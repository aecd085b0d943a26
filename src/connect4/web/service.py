"""The synchronous work behind the HTTP API: solve, review, ask a player.

The :class:`~connect4.web.api.Api` validates every request on the event loop
and hands this module typed, checked input (a game that is not over, a spec the
web runs); solves and AI moves run here in worker threads (see
:mod:`connect4.web.pool`). Solvers and players are cached per worker thread, so
no two requests share a transposition table.

>>> FULL_COLUMN  # the /solve endpoint's score for a column that cannot be played
100
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from pydantic import JsonValue

from connect4.core.errors import BudgetExceeded, Connect4Error
from connect4.core.game import Game
from connect4.core.games import Board
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.core.score import best_columns
from connect4.players import MoveStats, Player, PlayerContext, PlayerSpec, make_player, parse_spec
from connect4.web.errors import BadRequest, TimeLimitExceeded
from connect4.web.models import CacheStatus, JsonObject, MoveResponse, Stat, StatValue

if TYPE_CHECKING:
    from connect4.review import MoveScores, Review
    from connect4.review.work import GameScores

PLAYER_CACHE_SIZE = 4  # per worker thread (a perfect one holds a 32 MB table only while it moves)
TREE_NODE_CAP = 5000
FULL_COLUMN = 100  # the /solve endpoint's score for a column that cannot be played


# ------------------------------------------------------------------ scores
@dataclass
class Analysis:
    """A solved position: its score, every column's score, best moves, effort."""

    score: int | None
    column_scores: list[int | None]
    nodes: int
    seconds: float
    complete: bool

    def best_moves(self) -> list[int]:
        """The 0-based columns with the highest score (none when nothing was scored)."""
        return best_columns(self.column_scores)


class AnalysisCache:
    """A bounded LRU of solved positions, keyed by game, board size and move string.

    Only the event loop touches it, so it needs no lock.

    >>> cache = AnalysisCache(1)
    >>> cache.put(Position.from_moves("4"), Analysis(0, [0] * 7, 10, 0.1, True))
    >>> cache.get(Position.from_moves("4")).nodes, cache.get(Position.from_moves("5"))
    (10, None)
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[tuple[str, int, int, str], Analysis] = OrderedDict()

    def get(self, game: Game) -> Analysis | None:
        key = (game.kind, game.width, game.height, game.moves)
        found = self._items.get(key)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self._items.move_to_end(key)
        return found

    def put(self, game: Game, analysis: Analysis) -> None:
        if self.size <= 0:
            return
        self._items[(game.kind, game.width, game.height, game.moves)] = analysis
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def status(self) -> CacheStatus:
        return {
            "size": self.size,
            "entries": len(self._items),
            "hits": self.hits,
            "misses": self.misses,
        }


# ------------------------------------------------------------------ solver
_local = threading.local()


def warm_up() -> None:
    """Load the solver kernel, the compiled classic searches (alpha-beta, minimax and
    MCTS: compiled on a first run) and the 7x6 opening book, so that no request pays
    for a kernel's loading within its own time limit."""
    from connect4.classic import fastmcts, fastsearch
    from connect4.solver import DEFAULT_BOOK, warm_up as warm_up_solver
    from connect4.solver.book import load_book

    load_book(DEFAULT_BOOK, 7, 6, exact=True)  # once per process, shared by every solver
    warm_up_solver()
    fastsearch.warm_up()  # one kernel for alpha-beta and minimax, every heuristic
    fastmcts.warm_up()


def analyze_position(
    position: Position,
    *,
    limit: Limit,
    table_megabytes: int = 64,
) -> Analysis:
    """Solve ``position`` (standard rules, not over) and every move from it, within the
    request's ``limit`` (its deadline, node budget and stop flag)."""
    from connect4.solver import solver_for

    # this thread's solver of the board, with its book: no two threads share a table
    solver = solver_for(position.width, position.height, tt_megabytes=table_megabytes)
    result = solver.run(position, analyze=True, limit=limit)
    columns = list(result.column_scores or [None] * position.width)
    score = result.score
    complete = bool(result.complete)
    if score is None and complete:
        scored = [s for s in columns if s is not None]
        score = max(scored) if scored else None
    return Analysis(score, columns, int(result.nodes), float(result.seconds), complete)


# ------------------------------------------------------------------ review
def review_work(position: Position) -> GameScores:
    """The solves a review of ``position``'s game needs (from the empty board)."""
    from connect4.review.work import GameScores

    return GameScores(Position(position.width, position.height), position.history)


def review_from_scores(game: Game, scores: list[MoveScores]) -> Review:
    """The review of ``game`` from every position's move scores (cheap: no solving)."""
    from connect4.review import review

    return review(game.moves, Board.of(game), scores=scores)


def review_game(game: Game, *, limit: Limit) -> Review:
    """Every move of ``game`` graded by exact scores within the request's ``limit``
    (its deadline and stop flag: positions left when it expires are not proven)."""
    from connect4.review import review

    return review(game.moves, Board.of(game), limit=limit)


# ------------------------------------------------------------------ players
def cached_player(spec: str | PlayerSpec, board: Board) -> Player:
    """This thread's player for a spec and board, built on first use (LRU of
    ``PLAYER_CACHE_SIZE``; evicted players are freed, not pooled). Each request is a
    question of its own (``one_off``): no search tree or random stream carries over
    from one request to the next, whichever thread served it."""
    cache: OrderedDict[tuple[str, Board], Player] = _local.__dict__.setdefault(
        "players", OrderedDict()
    )
    parsed = parse_spec(spec)
    key = (parsed.text, board)
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    try:
        player = make_player(parsed, PlayerContext(board, one_off=True))
    except Connect4Error:
        raise
    except ValueError as error:  # a kind that cannot play this board
        raise BadRequest(f"player {parsed.text!r}: {error}") from None
    cache[key] = player
    while len(cache) > PLAYER_CACHE_SIZE:
        # Dropped, not closed: the web app builds no player that holds a process, and a
        # one-off perfect player gives its table back to the pool after every move.
        cache.popitem(last=False)
    return player


def _children(node: JsonObject) -> list[JsonObject]:
    """The child nodes of a JSON search-tree node."""
    kids = node.get("children")
    return [kid for kid in kids if isinstance(kid, dict)] if isinstance(kids, list) else []


def _shell(node: JsonObject) -> tuple[JsonObject, list[JsonValue]]:
    """A copy of a tree node without its children, and the copy's (empty) child list."""
    copy: JsonObject = {k: v for k, v in node.items() if k != "children"}
    children: list[JsonValue] = []
    copy["children"] = children
    return copy, children


def cap_tree(tree: JsonObject, cap: int = TREE_NODE_CAP) -> JsonObject:
    """A copy of a JSON search tree with at most ``cap`` nodes, breadth first.

    Nodes whose children were cut get ``"truncated": true``; the root gets
    ``"node_count"`` (nodes kept).

    >>> tree = {"id": 0, "children": [{"id": 1, "children": []}, {"id": 2, "children": []}]}
    >>> small = cap_tree(tree, 2)
    >>> [c["id"] for c in small["children"]], small["truncated"], small["node_count"]
    ([1], True, 2)
    """
    root, children = _shell(tree)
    kept = 1
    queue: list[tuple[JsonObject, JsonObject, list[JsonValue]]] = [(tree, root, children)]
    head = 0
    while head < len(queue):
        source, target, target_children = queue[head]
        head += 1
        for child in _children(source):
            if kept >= cap:
                target["truncated"] = True
                break
            copy, copy_children = _shell(child)
            target_children.append(copy)
            kept += 1
            queue.append((child, copy, copy_children))
    root["node_count"] = kept
    return root


def count_nodes(tree: JsonObject) -> int:
    """The number of nodes in a JSON search tree.

    >>> count_nodes({"id": 0, "children": [{"id": 1, "children": []}]})
    2
    """
    total, stack = 0, [tree]
    while stack:
        node = stack.pop()
        total += 1
        stack.extend(_children(node))
    return total


def _clean(value: object) -> Stat:
    """A JSON-safe stat value (infinities become strings; a flag stays a flag).

    >>> _clean(True), _clean(float("inf")), _clean(3)
    (True, 'inf', 3)
    """
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    return None if value is None else str(value)


def _clean_stat(value: object) -> StatValue:
    """A JSON-safe stat: a number or string, or a list of rows of them (per-column figures).

    >>> _clean_stat([{"move": "4", "value": float("nan")}])
    [{'move': '4', 'value': 'nan'}]
    """
    if isinstance(value, list):
        return [{key: _clean(item) for key, item in dict(row).items()} for row in value]
    return _clean(value)


def _capped(tree: JsonObject) -> JsonObject:
    """A recorded search tree cut to ``TREE_NODE_CAP`` nodes (the classic search's JSON
    wraps the root node with the search's figures under ``"tree"``)."""
    inner = tree.get("tree")
    if isinstance(inner, dict):
        if count_nodes(inner) > TREE_NODE_CAP:
            return {**tree, "tree": cap_tree(inner), "truncated": True}
        return tree
    return cap_tree(tree) if count_nodes(tree) > TREE_NODE_CAP else tree


def reached(stats: MoveStats) -> str:
    """How far a search cut short got, in words: its playouts, else its depth.

    >>> reached(MoveStats(playouts=12000, depth=9)), reached(MoveStats(depth=7)), reached({})
    ('12,000 playouts', 'depth 7', 'no full iteration')
    """
    if "playouts" in stats:
        return f"{stats['playouts']:,} playouts"
    if "depth" in stats:
        return f"depth {stats['depth']}"
    return "no full iteration"


def choose_move(
    position: Game, spec: str | PlayerSpec, *, want_tree: bool, limit: Limit
) -> MoveResponse:
    """Ask the player a spec names for its move within the request's ``limit``: move,
    value, stats and search tree.

    Every player's own time, depth and playouts are capped by ``limit``: one it
    cuts short answers the best move found (``complete`` False, ``reached`` says
    how far it got); one with no move at all is a 503; one that fails otherwise (a
    plain ``ValueError``) a 400 naming it, never a 500.
    """
    if limit.expired():
        raise TimeLimitExceeded("the request waited too long for a free worker")
    player = cached_player(spec, Board.of(position))
    name = str(spec).strip()
    can_record = player.record_trees(want_tree)
    started = time.perf_counter()
    try:
        choice = player.choose(position.copy(), limit)
    except BudgetExceeded as error:
        raise TimeLimitExceeded(
            f"time limit exceeded: player {name!r} found no move in the time allowed ({error})"
        ) from None
    except Connect4Error:
        raise
    except ValueError as error:
        raise BadRequest(f"player {name!r} found no move: {error}") from None
    finally:
        if can_record:
            player.record_trees(False)
    seconds = time.perf_counter() - started
    stats = {key: _clean_stat(value) for key, value in choice.stats.items()}
    stats.setdefault("seconds", round(seconds, 6))
    tree = None
    if want_tree and choice.tree is not None:
        tree = _capped(cast(JsonObject, dict(choice.tree)))  # a SearchTree is a JSON object
    after = position.copy()
    after.play(choice.move)
    return {
        "pos": position.moves,
        "move": choice.move,
        "move_number": choice.move + 1,
        "move_label": position.move_label(choice.move),
        "pos_after": after.moves,
        "value": _clean(choice.value),
        "proven": choice.proven,
        "column_scores": choice.column_scores,
        "stats": stats,
        "tree": tree,
        "tree_available": can_record,
        "result": after.result_text(),
        "over": after.is_over(),
        "complete": choice.complete,
        "reached": None if choice.complete else reached(choice.stats),
    }


# ------------------------------------------------------------------ small games
def analyze_by_search(game: Game) -> Analysis:
    """Every move's exact score in Pons' convention for a small game whose moves are its
    cells (tic-tac-toe), from the review's one door to exact scores
    (:func:`connect4.review.values.exact_scores`: a full search, memoised per
    position). A taken cell has no score; ``nodes`` counts the position and the
    children looked up.

    >>> from connect4 import TicTacToe
    >>> analysis = analyze_by_search(TicTacToe.from_moves("7182"))
    >>> analysis.score, analysis.column_scores[8], analysis.best_moves()
    (3, 3, [8])
    """
    from connect4.review.values import exact_scores

    started = time.perf_counter()
    scores = list(exact_scores(game).scores)
    known = [s for s in scores if s is not None]
    best = max(known) if known else None
    return Analysis(best, scores, len(known) + 1, time.perf_counter() - started, True)
