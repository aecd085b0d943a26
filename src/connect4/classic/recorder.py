"""Record the tree one search explores (the readable engine calls it at every node).

The nodes it builds are :class:`~connect4.classic.results.TreeNode` dicts, ready for
JSON; :mod:`connect4.classic.tree` documents the schema and renders it.

>>> from connect4 import TicTacToe
>>> game = TicTacToe.from_moves("5")
>>> recorder = TreeRecorder(game, cap=2)
>>> handle = recorder.enter(game, 0, 0, 0, prune=False)
>>> recorder.leave(handle, 3, None)
>>> tree = recorder.to_json()
>>> tree["node_count"], tree["tree"]["value"] if tree["tree"] else None
(1, 3)
"""

from __future__ import annotations

import math

from connect4.classic.results import SearchTree, TreeNode
from connect4.core.game import Game


def json_number(value: float | None) -> float | None:
    """A JSON-safe number: infinities become null, integral floats ints.

    >>> json_number(float("inf")), json_number(4.0), json_number(2.5)
    (None, 4, 2.5)
    """
    if value is None or not math.isfinite(value):
        return None
    return int(value) if value == int(value) else value


class TreeRecorder:
    """Collects nodes during a search, up to ``cap`` of them (the search goes on)."""

    def __init__(self, game: Game, cap: int = 5000) -> None:
        if cap < 1:
            raise ValueError(f"the node cap must be >= 1, not {cap}")
        self.root_moves = game.moves
        self.game = game
        self.cap = cap
        self.recorded = 0
        self.pruned_count = 0
        self.truncated = False
        self.root: TreeNode | None = None
        self.stack: list[TreeNode | None] = []

    def _new(self, game: Game, ply: int) -> TreeNode:
        history = game.history
        path = "".join(game.move_label(m) for m in history[len(history) - ply :]) if ply else ""
        return TreeNode(
            id=self.recorded + self.pruned_count,
            path=path,
            move=game.move_label(history[-1]) if ply else None,
            depth=ply,
            alpha=None,
            beta=None,
            value=None,
            eval=None,
            pruned=False,
            tt_hit=False,
            children=[],
        )

    def enter(self, game: Game, ply: int, alpha: float, beta: float, prune: bool) -> int:
        """Start a node; returns a handle for :meth:`leave`."""
        parent = self.stack[-1] if self.stack else None
        if (self.stack and parent is None) or self.recorded + self.pruned_count >= self.cap:
            if self.recorded + self.pruned_count >= self.cap:
                self.truncated = True
            self.stack.append(None)
            return len(self.stack) - 1
        node = self._new(game, ply)
        if prune:
            node["alpha"], node["beta"] = json_number(alpha), json_number(beta)
        self.recorded += 1
        if parent is None:
            self.root = node
        else:
            parent["children"].append(node)
        self.stack.append(node)
        return len(self.stack) - 1

    def leave(self, handle: int, value: float, evaluation: float | None, note: str = "") -> None:
        """Finish the node of ``handle`` with its value (and leaf evaluation)."""
        node = self.stack.pop()
        if node is not None:
            node["value"] = json_number(value)
            node["eval"] = json_number(evaluation)
            node["tt_hit"] = note == "tt"

    def pruned(self, handle: int, game: Game, moves: list[int]) -> None:
        """Mark the untried ``moves`` of the current node as pruned children."""
        node = self.stack[-1]
        if node is None:
            return
        for move in moves:
            if self.recorded + self.pruned_count >= self.cap:
                self.truncated = True
                return
            game.play(move)
            child = self._new(game, node["depth"] + 1)
            game.undo()
            child["pruned"] = True
            self.pruned_count += 1
            node["children"].append(child)

    def to_json(self) -> SearchTree:
        """The recorded tree as a JSON-ready dict (schema in :mod:`connect4.classic.tree`)."""
        game = self.game
        return SearchTree(
            root=self.root_moves,
            game=game.kind,
            width=game.width,
            height=game.height,
            node_count=self.recorded,
            pruned_count=self.pruned_count,
            truncated=self.truncated,
            cap=self.cap,
            tree=self.root,
        )
