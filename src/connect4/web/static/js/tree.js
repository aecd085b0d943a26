// The AI panel: the last AI move's figures, and the explorer of the search tree it
// recorded (nested lists built lazily; a node shows move, value and window, and
// hovering one draws its position).
import { drawMini } from "./board.js";
import { fmt } from "./format.js";
import { label, replay } from "./rules.js";

const $ = (id) => document.getElementById(id);

export function clearAiPanel() {
  $("stats").innerHTML = '<p class="note">No AI move yet.</p>';
  $("tree").innerHTML = "";
}

// The figures of an AI's answer in `game` (`who` names the side and its spec).
export function showStats(answer, who, game) {
  const stats = answer.stats || {};
  const rows = [
    ["player", who],
    ["move", answer.move_label + (answer.complete === false ? ` — best found in the time allowed (${answer.reached})` : "")],
    ["value", answer.value === null ? "–" : fmt(answer.value) + (answer.proven ? " (proven)" : "")],
    ["nodes", fmt(stats.nodes)],
    ["time", stats.seconds !== undefined ? `${(Number(stats.seconds) * 1000).toFixed(1)} ms` : "–"],
    ["depth", fmt(stats.depth)],
  ];
  for (const [key, value] of Object.entries(stats)) {
    if (key === "columns" && Array.isArray(value)) rows.push([key, columnTable(value)]);
    else if (!["nodes", "seconds", "depth"].includes(key)) rows.push([key, fmt(value)]);
  }
  const table = document.createElement("table");
  table.className = "stats";
  for (const [key, value] of rows) {
    const tr = table.insertRow();
    const th = document.createElement("th");
    // MCTS's root moves are tic-tac-toe's cells, Connect Four's columns
    th.textContent = key === "columns" && game.kind === "tictactoe" ? "cells" : key;
    tr.append(th);
    const cell = tr.insertCell();
    if (value instanceof Node) cell.append(value);
    else cell.textContent = value;
    tr.dataset.stat = key;
  }
  $("stats").innerHTML = "";
  $("stats").append(table);
}

// A Monte Carlo tree search's root moves: visits, mean value, proven result.
function columnTable(columns) {
  const proofs = { 1: "win", 0: "draw", "-1": "loss" };
  const table = document.createElement("table");
  table.className = "columns";
  const head = table.insertRow();
  for (const name of ["move", "visits", "value", "proven"]) {
    const th = document.createElement("th");
    th.textContent = name;
    head.append(th);
  }
  for (const column of columns) {
    const tr = table.insertRow();
    const proven = column.proven === null ? "" : proofs[column.proven];
    for (const text of [column.move, fmt(column.visits), Number(column.value).toFixed(3), proven]) {
      tr.insertCell().textContent = text;
    }
  }
  return table;
}

// The search tree of an AI's answer, searched from `rootPos` in `game`; `source`: where
// the answer came from ("book": the opening book, no search ran).
export function showTree(tree, rootPos, game, source) {
  const box = $("tree");
  box.innerHTML = "";
  if (!tree) {
    box.innerHTML = source === "book"
      ? '<p class="note">This move came from the opening book: no search ran.</p>'
      : '<p class="note">This player records no search tree.</p>';
    return;
  }
  // The classic search's JSON wraps the root node with the search's figures.
  const root = tree.tree && typeof tree.tree === "object" ? tree.tree : tree;
  const start = typeof tree.root === "string" ? tree.root : rootPos;
  // Alpha-beta trees show each node's window; minimax has none.
  const view = { game, rootPos: start, windows: !["minimax", "mcts"].includes(tree.algorithm) };
  const summary = document.createElement("p");
  summary.className = "note";
  const parts = [];
  if (tree.algorithm) parts.push(tree.algorithm);
  if (tree.heuristic) parts.push(`heuristic ${tree.heuristic}`);
  if (tree.depth !== undefined) parts.push(`depth ${tree.depth}`);
  if (tree.playouts !== undefined) {
    parts.push(`${fmt(tree.playouts)} playouts, the ${fmt(tree.node_count)} most visited of ${fmt(tree.nodes)} nodes, ★ the path it plays`);
  } else parts.push(`${fmt(tree.node_count ?? "?")} nodes searched`);
  if (tree.pruned_count) parts.push(`${fmt(tree.pruned_count)} branches pruned (grey)`);
  if (tree.truncated || hasTruncated(root)) parts.push("recording capped");
  summary.textContent = parts.join(", ") + ". Values are from the searching player's view.";
  const tools = document.createElement("div");
  tools.className = "tree-tools";
  for (const [id, text, open] of [["expand-all", "Expand all", true], ["collapse-all", "Collapse all", false]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.id = id;
    button.textContent = text;
    button.addEventListener("click", () => setAllOpen(box, open));
    tools.append(button);
  }
  box.append(summary, tools);
  const list = document.createElement("ul");
  list.className = "tree-root";
  list.append(treeNode(root, view, true));
  box.append(list);
}

// Open (or close) every node below the root; opening builds the lazy levels as it goes.
function setAllOpen(box, open) {
  let toggles = [...box.querySelectorAll(".tree-root ul .tree-toggle:not(:disabled)")];
  const seen = new Set();
  while (toggles.length) {
    for (const toggle of toggles) {
      seen.add(toggle);
      const isOpen = toggle.textContent === "▾";
      if (isOpen !== open) toggle.click();
    }
    toggles = open ? [...box.querySelectorAll(".tree-root ul .tree-toggle:not(:disabled)")].filter((t) => !seen.has(t)) : [];
  }
}

function hasTruncated(node) {
  return Boolean(node.truncated) || (node.children || []).some(hasTruncated);
}

// `path` is the moves from the searched position, as a string or a list of moves.
function nodeMoves(node, view) {
  const path = node.path;
  if (Array.isArray(path)) return view.rootPos + path.map((m) => (typeof m === "number" ? label(view.game, m) : String(m))).join("");
  if (typeof path === "string") return view.rootPos + path;
  return view.rootPos;
}

function treeNode(node, view, open) {
  const li = document.createElement("li");
  li.className = "tree-node";
  if (node.pruned) li.classList.add("pruned");
  const row = document.createElement("div");
  row.className = "tree-row";
  row.tabIndex = 0;
  const children = node.children || [];
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "tree-toggle";
  toggle.textContent = children.length ? (open ? "▾" : "▸") : "·";
  toggle.disabled = !children.length;
  toggle.setAttribute("aria-label", open ? "collapse" : "expand");
  row.append(toggle);
  const text = document.createElement("span");
  text.className = "tree-text";
  const move = node.move === null || node.move === undefined ? "root" : `move ${typeof node.move === "number" ? label(view.game, node.move) : node.move}`;
  const bits = [move, node.pruned ? "not searched" : `value ${fmt(node.value)}`];
  if (node.visits !== undefined) {
    // a Monte Carlo tree search's node: visits, UCT score, proof, the played path
    bits.push(`visits ${fmt(node.visits)}`);
    if (node.uct !== null && node.uct !== undefined) bits.push(`uct ${fmt(node.uct)}`);
    if (node.proven !== null && node.proven !== undefined) bits.push(`proven ${{ 1: "win", 0: "draw", "-1": "loss" }[node.proven]}`);
    if (node.best) bits.push("★");
  }
  if (view.windows && !node.pruned) {
    bits.push(`α ${node.alpha === null || node.alpha === undefined ? "−∞" : fmt(node.alpha)}`);
    bits.push(`β ${node.beta === null || node.beta === undefined ? "+∞" : fmt(node.beta)}`);
  }
  if (node.eval !== undefined && node.eval !== null) bits.push(`eval ${fmt(node.eval)}`);
  if (node.pruned) bits.push("(pruned)");
  if (node.tt_hit) bits.push("(table hit)");
  if (node.truncated) bits.push(`(more not shown)`);
  text.textContent = bits.join("  ");
  row.append(text);
  li.append(row);
  const moves = nodeMoves(node, view);
  row.addEventListener("mouseenter", (e) => showMini(view.game, moves, e));
  row.addEventListener("focus", (e) => showMini(view.game, moves, e));
  row.addEventListener("mouseleave", hideMini);
  row.addEventListener("blur", hideMini);
  if (children.length) {
    const ul = document.createElement("ul");
    let built = false;
    const build = () => {
      if (built) return;
      built = true;
      for (const child of children) ul.append(treeNode(child, view, false));
    };
    if (open) build(); else ul.hidden = true;
    toggle.addEventListener("click", () => {
      build();
      ul.hidden = !ul.hidden;
      toggle.textContent = ul.hidden ? "▸" : "▾";
      toggle.setAttribute("aria-label", ul.hidden ? "expand" : "collapse");
    });
    li.append(ul);
  }
  return li;
}

function showMini(game, moves, event) {
  const mini = $("mini");
  drawMini(mini, game, replay(game, moves), moves);
  mini.hidden = false;
  const rect = event.target.getBoundingClientRect();
  mini.style.top = `${window.scrollY + rect.top}px`;
  mini.style.left = `${Math.max(8, window.scrollX + rect.left - 190)}px`;
}

function hideMini() {
  $("mini").hidden = true;
}
