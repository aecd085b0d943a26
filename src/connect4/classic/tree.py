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

>>> from connect4 import Position
>>> tree = search_tree(Position(), depth=2, algorithm="minimax")
>>> tree["node_count"], len(tree["tree"]["children"]), tree["truncated"]
(57, 7, False)
"""

from __future__ import annotations

import json
from io import StringIO

from connect4.classic.recorder import json_number
from connect4.classic.results import (
    Limits,
    SearchTree,
    TreeNode,
    check_options,
    describe_value,
)
from connect4.classic.search import search
from connect4.core.game import Game

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
        limits=Limits(depth=depth, nodes=budget),
        algorithm="minimax" if algorithm == "minimax" else "alphabeta",
        heuristic=heuristic,
        ordering="none" if ordering == "none" else "center",
        tt=tt,
        record_tree=True,
        tree_cap=cap,
    )
    if result.tree is None:
        raise ValueError(
            f"the search stopped at its budget of {budget:,} nodes before finishing depth "
            f"{depth}: choose a smaller depth or a larger --budget"
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


def _label(node: TreeNode, pruning: bool) -> str:
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
            sub = branch.add(_label(child, pruning), style=style)
            build(child, sub)

    root = _root(tree)
    top = Tree(_label(root, pruning))
    build(root, top)
    buffer = StringIO()
    console = Console(file=buffer, width=200, color_system="standard" if color else None)
    console.print(top)
    text = buffer.getvalue()
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
    raise ValueError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
