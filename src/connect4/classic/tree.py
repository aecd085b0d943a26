"""Search trees: record the tree one search explored, render it as text, DOT or JSON.

:class:`~connect4.classic.recorder.TreeRecorder` is filled in by
:func:`connect4.classic.search.search` when called with ``record_tree=True``. The JSON
(also what the browser app shows; typed as :class:`~connect4.classic.results.SearchTree`)
is::

    {"root": "44",            # move string of the searched position
     "game": "connect4", "width": 7, "height": 6,
     "algorithm": "alphabeta", "heuristic": "windows", "depth": 2,
     "value": 4, "move": "4", # the search's value and best move (notation)
     "node_count": 33,        # searched nodes recorded (pruned ones not counted)
     "pruned_count": 11,      # children marked as pruned
     "truncated": false,      # true when the node cap stopped the recording
     "cap": 5000,
     "tree": NODE}

    NODE = {"id": 0,          # 0, 1, 2, ... in visiting order
            "path": "43",     # moves from the root (notation); "" for the root
            "move": "3",      # the last move of the path (null for the root)
            "depth": 2,       # plies from the root
            "alpha": 1, "beta": null,  # window on entry; null = unbounded (and
                                       # always null for minimax)
            "value": 4,       # value backed up to this node (null when pruned)
            "eval": 4,        # evaluation of a leaf (heuristic or game end), else null
            "pruned": false,  # true for a child alpha-beta cut off (never searched)
            "tt_hit": false,  # true when a transposition table entry answered
            "children": [NODE, ...]}

Values are from the root player's point of view: the root and every even depth
maximise, odd depths minimise.

:func:`mcts_tree` (:func:`mcts_tree_of` for a search already run) gives a Monte
Carlo tree search's tree in the same shape
(``"algorithm": "mcts"``, plus ``"playouts"`` and ``"min_visits"``; ``"nodes"`` is
the whole tree's size, ``"node_count"`` the nodes kept). Its nodes have no window,
pruning or table hits; ``value`` is the mean result (-1 .. 1) for the root player,
``eval`` a finished game's result, and four keys more::

    "visits": 34, "uct": 0.8948,   # visits; the UCT score the parent ranked it by
    "proven": null,                # the solver's result for the root player (1/0/-1)
    "best": true                   # on the path the search plays

>>> from connect4 import Position
>>> tree = search_tree(Position(), depth=2, algorithm="minimax")
>>> tree["node_count"], len(tree["tree"]["children"]), tree["truncated"]
(57, 7, False)
"""

from __future__ import annotations

import heapq
import json
from io import StringIO

from connect4.classic.mcts import (
    DEFAULT_C,
    Mcts,
    MctsResult,
    Node,
    move_statistics,
    pick_move,
    uct_score,
)
from connect4.classic.recorder import json_number
from connect4.classic.results import (
    Limits,
    SearchTree,
    TreeNode,
    check_options,
    describe_value,
)
from connect4.classic.search import search
from connect4.core.errors import Connect4Error, unknown_choice
from connect4.core.game import Game
from connect4.core.limits import Limit
from connect4.core.score import outcome_label

FORMATS = ("text", "dot", "json")


def search_tree(
    game: Game,
    *,
    depth: int,
    algorithm: str = "alphabeta",
    heuristic: str = "windows",
    ordering: str = "center",
    tt: bool = False,
    cap: int = 5000,
    budget: int | None = None,
) -> SearchTree:
    """Search ``game`` to ``depth`` and return the recorded tree (JSON-ready dict).

    ``budget`` stops a search that would visit more nodes (a ``ValueError`` says so):
    recording runs the generic search, some 20,000 nodes a second.
    """
    check_options(algorithm, ordering)
    result = search(
        game,
        limits=Limits(depth=depth),
        limit=None if budget is None else Limit(nodes=budget),
        algorithm="minimax" if algorithm == "minimax" else "alphabeta",
        heuristic=heuristic,
        ordering="none" if ordering == "none" else "center",
        tt=tt,
        record_tree=True,
        tree_cap=cap,
    )
    if result.tree is None:
        raise Connect4Error(
            f"the search stopped at {budget:,} nodes before finishing depth {depth}: "
            "choose a smaller depth or a larger budget",
            setting="budget",
        )
    tree = result.tree
    tree["algorithm"] = algorithm
    tree["heuristic"] = result.heuristic
    tree["depth"] = depth
    tree["value"] = json_number(result.value)
    tree["move"] = None if result.move is None else game.move_label(result.move)
    tree["nodes"] = result.stats.nodes
    tree["stats"] = result.stats.as_dict()
    return tree


def mcts_tree(
    game: Game,
    *,
    playouts: int,
    seed: int = 0,
    c: float = DEFAULT_C,
    solver: bool = False,
    heuristic: bool = False,
    cap: int = 50,
    min_visits: int = 1,
) -> SearchTree:
    """Run a Monte Carlo tree search of ``playouts`` on ``game`` and return its tree
    (see :func:`mcts_tree_of`).

    >>> from connect4 import TicTacToe
    >>> t = mcts_tree(TicTacToe.from_moves("5"), playouts=200, seed=1, cap=12)
    >>> t["move"], [child["visits"] for child in t["tree"]["children"]]
    ('3', [26, 34, 20, 27, 21, 29, 24, 19])
    >>> print(render_text(t).splitlines()[2])
    ├── 3  n 34  v -0.324  uct 0.895  *
    """
    mcts = Mcts(c=c, seed=seed, solver=solver, playout="heuristic" if heuristic else "random")
    result = mcts.search(game, playouts=playouts)
    return mcts_tree_of(mcts, game, result, cap=cap, min_visits=min_visits)


def mcts_tree_of(
    mcts: Mcts, game: Game, result: MctsResult, *, cap: int = 50, min_visits: int = 1
) -> SearchTree:
    """The tree of ``mcts``'s last search (``result``, of ``game``) as a JSON-ready dict.

    Kept: the ``cap`` most visited nodes with at least ``min_visits`` visits each
    (a kept node's parent is always kept). ``value`` is the mean result for the
    root player (-1 .. 1), ``uct`` the score the parent's player ranked the node by,
    ``proven`` the solver's result for the root player, ``best`` marks the path the
    search plays (proven wins first, then the most visits).
    """
    c = mcts.c
    search_root = mcts.root_node()
    kept = _most_visited(search_root, cap, min_visits)
    best_path = _best_path(search_root)
    counter = iter(range(len(kept)))

    def convert(node: Node, path: list[int], parent_visits: int) -> TreeNode:
        depth = len(path)
        sign = 1 if depth % 2 else -1  # the player who moved into the node, for the root's
        figures = move_statistics(node)
        uct = uct_score(figures, parent_visits, c) if depth else None
        out = TreeNode(
            id=next(counter),
            path="".join(game.move_label(move) for move in path),
            move=game.move_label(node.move) if depth else None,
            depth=depth,
            alpha=None,
            beta=None,
            value=round(sign * figures.value, 4) if node.visits else None,
            eval=sign * (node.end - 2) if node.end else None,
            pruned=False,
            tt_hit=False,
            children=[],
            visits=node.visits,
            uct=None if uct is None else round(uct, 4),
            proven=None if figures.proven is None else sign * figures.proven,
            best=best_path[:depth] == path,
        )
        for child in node.children:
            if id(child) in kept:
                out["children"].append(convert(child, [*path, child.move], node.visits))
        return out

    return SearchTree(
        root=game.moves,
        game=game.kind,
        width=game.width,
        height=game.height,
        node_count=len(kept),
        pruned_count=0,
        truncated=len(kept) < result.tree_size,
        cap=cap,
        tree=convert(search_root, [], 0),
        algorithm="mcts",
        value=round(result.value, 4),
        move=game.move_label(result.move),
        nodes=result.tree_size,
        playouts=result.playouts,
        min_visits=min_visits,
    )


def _most_visited(root: Node, cap: int, min_visits: int) -> set[int]:
    """The ids of the ``cap`` most visited nodes (at least ``min_visits``), root first."""
    kept: set[int] = set()
    order = 0
    heap: list[tuple[int, int, Node]] = [(-root.visits, order, root)]
    while heap and len(kept) < cap:
        _, _, node = heapq.heappop(heap)
        kept.add(id(node))
        for child in node.children:
            if child.visits >= min_visits:
                order += 1
                heapq.heappush(heap, (-child.visits, order, child))
    return kept


def _best_path(root: Node) -> list[int]:
    """The moves the search would play from the root on, as long as nodes have children."""
    path, node = [], root
    while node.children:
        chosen = pick_move([move_statistics(child) for child in node.children])
        node = next(child for child in node.children if child.move == chosen.move)
        path.append(node.move)
    return path


def _root(tree: SearchTree) -> TreeNode:
    if tree["tree"] is None:
        raise ValueError("the tree recorded no node")
    return tree["tree"]


def iter_nodes(node: TreeNode) -> list[TreeNode]:
    """Every node of a (sub)tree in visiting order, pruned ones included."""
    out = [node]
    for child in node["children"]:
        out.extend(iter_nodes(child))
    return out


def _bound(value: float | None, sign: str) -> str:
    return f"{sign}∞" if value is None else str(value)


def _mcts_label(node: TreeNode) -> str:
    value = node["value"]
    parts = [
        "root" if node["move"] is None else node["path"],
        f"n {node.get('visits', 0)}",
        "v ?" if value is None else f"v {value:+.3f}",
    ]
    uct = node.get("uct")
    if uct is not None:
        parts.append(f"uct {uct:.3f}")
    proven = node.get("proven")
    if proven is not None:
        parts.append(f"proven {outcome_label(proven)}")
    if node["eval"] is not None:
        parts.append("end")
    if node.get("best"):
        parts.append("*")
    return "  ".join(parts)


def _label(node: TreeNode, pruning: bool) -> str:
    if "visits" in node:
        return _mcts_label(node)
    name = "root" if node["move"] is None else f"{node['path']}"
    if node["pruned"]:
        return f"{name}  pruned"
    parts = [name, f"= {describe_value(node['value'])}" if node["value"] is not None else "= ?"]
    if pruning:
        parts.append(f"[α {_bound(node['alpha'], '-')}, β {_bound(node['beta'], '+')}]")
    if node["eval"] is not None:
        parts.append("leaf")
    if node["tt_hit"]:
        parts.append("tt")
    return "  ".join(parts)


def render_text(tree: SearchTree, *, color: bool = False) -> str:
    """An indented text tree (rich), one line per node; pruned children marked.

    >>> from connect4 import TicTacToe
    >>> t = search_tree(TicTacToe.from_moves("5192"), depth=1, algorithm="minimax")
    >>> print(render_text(t).splitlines()[1])
    ├── 3  = 21  leaf
    """
    from rich.console import Console
    from rich.tree import Tree

    pruning = tree.get("algorithm") != "minimax"

    def build(node: TreeNode, branch: Tree) -> None:
        for child in node["children"]:
            style = "dim strike" if child["pruned"] else ("bold" if child["depth"] % 2 else "")
            if "visits" in child:
                style = "bold" if child.get("best") else ""
            sub = branch.add(_label(child, pruning), style=style)
            build(child, sub)

    root = _root(tree)
    top = Tree(_label(root, pruning))
    build(root, top)
    buffer = StringIO()
    console = Console(file=buffer, width=200, color_system="standard" if color else None)
    console.print(top)
    text = buffer.getvalue()
    if tree.get("algorithm") == "mcts":
        footer = (
            f"{tree['node_count']} of {tree.get('nodes')} nodes shown (the most visited, "
            f"cap {tree['cap']}, at least {tree.get('min_visits')} visits); "
            f"{tree.get('playouts')} playouts; n visits, v mean value for the root player, "
            "* the path the search plays"
        )
    else:
        footer = f"{tree['node_count']} nodes, {tree['pruned_count']} pruned"
        if tree["truncated"]:
            footer += f" (truncated at the cap of {tree['cap']})"
    return text + footer + "\n"


def render_dot(tree: SearchTree) -> str:
    """Graphviz DOT: max nodes are boxes, min nodes ellipses, pruned ones dashed grey.

    >>> from connect4 import TicTacToe
    >>> dot = render_dot(search_tree(TicTacToe.from_moves("5"), depth=2))
    >>> dot.splitlines()[0], "style=dashed" in dot
    ('digraph search {', True)
    """
    if tree.get("algorithm") == "mcts":
        return _mcts_dot(tree)
    lines = [
        "digraph search {",
        '  node [fontname="Helvetica", fontsize=10];',
        f'  label="{tree.get("algorithm", "")} depth {tree.get("depth", "")}, '
        f'root \\"{tree["root"]}\\", {tree["node_count"]} nodes";',
    ]
    for node in iter_nodes(_root(tree)):
        shape = "box" if node["depth"] % 2 == 0 else "ellipse"
        label = node["move"] or "root"
        if node["pruned"]:
            lines.append(
                f'  n{node["id"]} [label="{label}\\npruned", shape={shape}, style=dashed, '
                "color=gray, fontcolor=gray];"
            )
        else:
            text = f"{label}\\n{describe_value(node['value'])}"
            if node["alpha"] is not None or node["beta"] is not None:
                text += f"\\n[{_bound(node['alpha'], '-')}, {_bound(node['beta'], '+')}]"
            lines.append(f'  n{node["id"]} [label="{text}", shape={shape}];')
        for child in node["children"]:
            style = " [style=dashed, color=gray]" if child["pruned"] else ""
            lines.append(f"  n{node['id']} -> n{child['id']}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mcts_dot(tree: SearchTree) -> str:
    lines = [
        "digraph mcts {",
        '  node [fontname="Helvetica", fontsize=10, shape=box];',
        f'  label="mcts {tree.get("playouts")} playouts, root \\"{tree["root"]}\\", '
        f'{tree["node_count"]} of {tree.get("nodes")} nodes";',
    ]
    for node in iter_nodes(_root(tree)):
        text = "\\n".join(_mcts_label(node).replace("  *", "").split("  "))
        style = ", color=red, penwidth=2" if node.get("best") else ""
        lines.append(f'  n{node["id"]} [label="{text}"{style}];')
        for child in node["children"]:
            edge = " [color=red, penwidth=2]" if child.get("best") else ""
            lines.append(f"  n{node['id']} -> n{child['id']}{edge};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_json(tree: SearchTree) -> str:
    """The tree as JSON text (schema in the module docstring)."""
    return json.dumps(tree, ensure_ascii=False)


def render(tree: SearchTree, fmt: str) -> str:
    """Render in ``fmt`` (text, dot or json); a ``ValueError`` names the valid formats."""
    if fmt == "text":
        return render_text(tree)
    if fmt == "dot":
        return render_dot(tree)
    if fmt == "json":
        return render_json(tree) + "\n"
    raise ValueError(unknown_choice("format", fmt, FORMATS))
