// connect4 browser app: plain JavaScript, no build step.
// The page keeps the game as a move string (the same notation as the API and the
// URL: ?pos=4453), replays it locally to draw the board, and asks the server
// for AI moves (POST /api/move) and solutions (GET /api/analyze).
"use strict";

const SYMBOLS = "123456789abcdefghijklmnopqrstuvwxyz";
const NAMES = { connect4: ["Red", "Yellow"], tictactoe: ["X", "O"] };
const TTT_LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

const state = {
  game: "connect4",
  rules: "standard",
  width: 7,
  height: 6,
  moves: "",        // move string in the game's notation
  redo: [],         // undone moves, most recent last
  kinds: [],        // from /api/players
  solverAvailable: false,
  thinking: false,
  paused: false,
  generation: 0,    // bumps on every change, so stale answers are dropped
  lastDrop: null,   // index of the move to animate
};

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ game rules
// A board replayed from a move string. Connect Four: grid[col][row], row 0 at the
// bottom. Tic-tac-toe: cells 0..8 with numpad numbering (cell 0 = key 1, bottom left).
function replay(moves) {
  if (state.game === "tictactoe") return replayTicTacToe(moves);
  const w = state.width, h = state.height;
  const grid = Array.from({ length: w }, () => []);
  const b = { grid, ply: 0, over: false, winner: 0, winCells: new Set(), last: null, error: null };
  for (let i = 0; i < moves.length; i++) {
    const col = SYMBOLS.indexOf(moves[i].toLowerCase());
    if (col < 0 || col >= w) { b.error = `move ${i + 1} ('${moves[i]}'): not a column 1-${w}`; break; }
    if (b.over) { b.error = `move ${i + 1} ('${moves[i]}'): the game is already over`; break; }
    if (grid[col].length >= h) { b.error = `move ${i + 1} ('${moves[i]}'): column ${col + 1} is full`; break; }
    const player = 1 + (i % 2);
    grid[col].push(player);
    b.ply = i + 1;
    b.last = [col, grid[col].length - 1];
    const full = b.ply === w * h;
    if (state.rules === "standard") {
      const cells = fours(grid, player);
      if (cells.size) { b.over = true; b.winner = player; b.winCells = cells; }
      else if (full) b.over = true;
    } else if (full) {
      b.over = true;
      const red = countFours(grid, 1), yellow = countFours(grid, 2);
      b.score = [red, yellow];
      if (red !== yellow) { b.winner = red > yellow ? 1 : 2; b.winCells = fours(grid, b.winner); }
    }
  }
  if (state.rules === "count-fours") b.score = [countFours(grid, 1), countFours(grid, 2)];
  b.toMove = 1 + (b.ply % 2);
  return b;
}

function at(grid, c, r) {
  return c >= 0 && c < grid.length && r >= 0 ? (grid[c][r] || 0) : 0;
}

// The cells of every four-in-a-row of `player`, as "c,r" strings.
function fours(grid, player) {
  const cells = new Set();
  forEachFour(grid, player, (line) => line.forEach(([c, r]) => cells.add(`${c},${r}`)));
  return cells;
}

function countFours(grid, player) {
  let n = 0;
  forEachFour(grid, player, () => { n += 1; });
  return n;
}

function forEachFour(grid, player, visit) {
  const w = state.width, h = state.height;
  for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    for (let c = 0; c < w; c++) {
      for (let r = 0; r < h; r++) {
        const line = [0, 1, 2, 3].map((k) => [c + k * dc, r + k * dr]);
        if (line.every(([x, y]) => y < h && at(grid, x, y) === player)) visit(line);
      }
    }
  }
}

function replayTicTacToe(moves) {
  const cells = Array(9).fill(0);
  const b = { cells, ply: 0, over: false, winner: 0, winCells: new Set(), last: null, error: null };
  for (let i = 0; i < moves.length; i++) {
    const cell = "123456789".indexOf(moves[i]);
    if (cell < 0) { b.error = `move ${i + 1} ('${moves[i]}'): not a cell number 1-9`; break; }
    if (b.over) { b.error = `move ${i + 1} ('${moves[i]}'): the game is already over`; break; }
    if (cells[cell]) { b.error = `move ${i + 1} ('${moves[i]}'): cell ${cell + 1} is taken`; break; }
    cells[cell] = 1 + (i % 2);
    b.ply = i + 1;
    b.last = cell;
    for (const line of TTT_LINES) {
      if (line.every((k) => cells[k] === cells[cell])) {
        b.over = true; b.winner = cells[cell]; line.forEach((k) => b.winCells.add(String(k)));
      }
    }
    if (b.ply === 9) b.over = true;
  }
  b.toMove = 1 + (b.ply % 2);
  return b;
}

function legal(board, move) {
  if (board.over) return false;
  if (state.game === "tictactoe") return board.cells[move] === 0;
  return board.grid[move].length < state.height;
}

function label(move) {
  return state.game === "tictactoe" ? String(move + 1) : SYMBOLS[move];
}

// ------------------------------------------------------------------ players
function playerSpec(side) {
  const fieldset = document.querySelector(`fieldset.player[data-side="${side}"]`);
  const kind = fieldset.querySelector(".kind").value;
  const parts = [];
  fieldset.querySelectorAll(".options [data-key]").forEach((input) => {
    const value = input.value.trim();
    if (value !== "" && value !== (input.dataset.default || "")) parts.push(`${input.dataset.key}=${value}`);
  });
  return parts.length ? `${kind}:${parts.join(",")}` : kind;
}

function isHuman(side) {
  return playerSpec(side) === "human";
}

function kindInfo(name) {
  return state.kinds.find((k) => k.kind === name);
}

function fillKinds() {
  for (const side of [1, 2]) {
    const select = $(`p${side}-kind`);
    const previous = select.value;
    select.innerHTML = "";
    const human = new Option("human (click to move)", "human");
    select.add(human);
    for (const kind of state.kinds) {
      if (!kind.games.includes(state.game)) continue;
      const option = new Option(kind.kind, kind.kind);
      option.title = kind.description;
      select.add(option);
    }
    if ([...select.options].some((o) => o.value === previous)) select.value = previous;
    fillOptions(side);
  }
}

function fillOptions(side, values = {}) {
  const fieldset = document.querySelector(`fieldset.player[data-side="${side}"]`);
  const box = fieldset.querySelector(".options");
  box.innerHTML = "";
  const kind = fieldset.querySelector(".kind").value;
  const info = kindInfo(kind);
  if (!info) return;
  if ((kind === "alphabeta" || kind === "minimax") && kindInfo("alphabeta") && kindInfo("minimax")) {
    // Pruning on = alpha-beta, off = plain minimax (same depth and heuristic).
    const wrap = document.createElement("label");
    wrap.title = "alpha-beta pruning: same value, far fewer nodes";
    const box2 = document.createElement("input");
    box2.type = "checkbox";
    box2.className = "pruning";
    box2.checked = kind === "alphabeta";
    box2.addEventListener("change", () => {
      const kept = {};
      fieldset.querySelectorAll(".options [data-key]").forEach((el) => { if (el.value) kept[el.dataset.key] = el.value; });
      fieldset.querySelector(".kind").value = box2.checked ? "alphabeta" : "minimax";
      const other = kindInfo(fieldset.querySelector(".kind").value);
      for (const key of Object.keys(kept)) if (!(key in other.options)) delete kept[key];
      fillOptions(side, kept);
      onPlayersChanged();
    });
    wrap.append(box2, " pruning");
    box.append(wrap);
  }
  for (const [key, option] of Object.entries(info.options)) {
    if (key === "seed") continue;
    const wrap = document.createElement("label");
    wrap.title = option.description;
    wrap.append(`${key} `);
    let input;
    if (option.choices && option.choices.length) {
      input = document.createElement("select");
      if (!option.default) input.add(new Option("(default)", ""));
      for (const choice of option.choices) input.add(new Option(choice, choice));
    } else {
      input = document.createElement("input");
      input.size = 4;
      input.placeholder = option.default || "";
    }
    input.dataset.key = key;
    input.dataset.default = option.default || "";
    input.value = values[key] !== undefined ? values[key] : (option.default || "");
    input.addEventListener("change", onPlayersChanged);
    wrap.append(input);
    box.append(wrap);
  }
}

function setSpec(side, spec) {
  const [kind, rest] = spec.includes(":") ? [spec.slice(0, spec.indexOf(":")), spec.slice(spec.indexOf(":") + 1)] : [spec, ""];
  const select = $(`p${side}-kind`);
  if (![...select.options].some((o) => o.value === kind)) return;
  select.value = kind;
  const values = {};
  for (const item of rest.split(",")) {
    const [k, v] = item.split("=");
    if (k && v !== undefined) values[k.trim()] = v.trim();
  }
  fillOptions(side, values);
}

function defaultAi() {
  const names = state.kinds.filter((k) => k.games.includes(state.game)).map((k) => k.kind);
  if (state.game === "connect4" && state.rules === "standard" && names.includes("perfect")) return "perfect";
  for (const name of ["alphabeta", "minimax", "random"]) if (names.includes(name)) return name;
  return "human";
}

// ------------------------------------------------------------------ drawing
function render() {
  const board = replay(state.moves);
  const boardEl = $("board");
  boardEl.innerHTML = "";
  boardEl.className = state.game;
  const blocked = state.thinking || board.over || !isHuman(board.toMove);
  boardEl.classList.toggle("blocked", blocked);
  if (state.game === "tictactoe") renderTicTacToe(board, boardEl);
  else renderConnect4(board, boardEl);
  state.lastDrop = null;

  const names = NAMES[state.game];
  let status;
  if (board.error) status = board.error;
  else if (board.over) {
    const score = board.score ? ` (${board.score[0]}–${board.score[1]} fours)` : "";
    status = board.winner ? `${names[board.winner - 1]} wins${score}!` : `Draw${score}.`;
  } else {
    const who = names[board.toMove - 1];
    const spec = playerSpec(board.toMove);
    status = spec === "human" ? `${who} to move — click a ${state.game === "tictactoe" ? "cell" : "column"}.` : `${who} (${spec}) to move.`;
    if (board.score) status += ` Fours so far: ${board.score[0]}–${board.score[1]}.`;
  }
  $("status").textContent = status;
  $("status").dataset.over = board.over ? "1" : "0";
  $("undo").disabled = state.moves.length === 0;
  $("redo").disabled = state.redo.length === 0;
  $("continue").hidden = !(state.paused && !board.over && !isHuman(board.toMove) && !state.thinking);
  $("pos-text").textContent = state.moves || "(empty)";
  $("share").href = shareUrl();
  document.querySelectorAll("fieldset.player").forEach((fs) => {
    fs.classList.toggle("to-move", !board.over && Number(fs.dataset.side) === board.toMove);
  });
  renderSolution(board);
  return board;
}

function renderConnect4(board, boardEl) {
  const w = state.width, h = state.height;
  boardEl.style.setProperty("--cols", w);
  boardEl.style.setProperty("--rows", h);
  for (let c = 0; c < w; c++) {
    const col = document.createElement("button");
    col.type = "button";
    col.className = "column";
    col.dataset.col = String(c);
    col.setAttribute("aria-label", `column ${c + 1}`);
    col.disabled = !legal(board, c);
    col.addEventListener("click", () => humanMove(c));
    for (let r = h - 1; r >= 0; r--) {
      const cell = document.createElement("span");
      cell.className = "cell";
      cell.dataset.cell = `${c},${r}`;
      const owner = board.grid[c][r] || 0;
      if (owner) {
        const disc = document.createElement("span");
        disc.className = `disc p${owner}`;
        if (board.winCells.has(`${c},${r}`)) { disc.classList.add("win"); cell.classList.add("win"); }
        if (board.last && board.last[0] === c && board.last[1] === r) {
          disc.classList.add("last");
          cell.classList.add("last");
          if (state.lastDrop === board.ply) {
            disc.style.setProperty("--fall", String(h - r));
            disc.classList.add("drop");
          }
        }
        cell.append(disc);
      }
      col.append(cell);
    }
    boardEl.append(col);
  }
}

function renderTicTacToe(board, boardEl) {
  for (const base of [6, 3, 0]) {
    for (let i = 0; i < 3; i++) {
      const k = base + i;
      const cell = document.createElement("button");
      cell.type = "button";
      cell.className = "ttt-cell";
      cell.dataset.col = String(k);
      cell.setAttribute("aria-label", `cell ${k + 1}`);
      cell.disabled = !legal(board, k);
      const owner = board.cells[k];
      cell.textContent = owner ? "XO"[owner - 1] : "";
      if (owner) cell.classList.add(`p${owner}`);
      if (board.winCells.has(String(k))) cell.classList.add("win");
      if (board.last === k) cell.classList.add("last");
      if (state.lastDrop === board.ply && board.last === k) cell.classList.add("pop");
      cell.addEventListener("click", () => humanMove(k));
      boardEl.append(cell);
    }
  }
}

function shareUrl() {
  const params = new URLSearchParams();
  params.set("pos", state.moves);
  if (state.game !== "connect4") params.set("game", state.game);
  if (state.rules !== "standard") params.set("rules", state.rules);
  if (state.game === "connect4" && (state.width !== 7 || state.height !== 6)) {
    params.set("width", state.width); params.set("height", state.height);
  }
  params.set("p1", playerSpec(1));
  params.set("p2", playerSpec(2));
  return `?${params.toString()}`;
}

function syncUrl() {
  history.replaceState(null, "", shareUrl());
}

// ------------------------------------------------------------------ moves
function humanMove(move) {
  const board = replay(state.moves);
  if (state.thinking || board.over || !isHuman(board.toMove) || !legal(board, move)) return;
  play(move);
  state.paused = false;
  afterChange(true);
}

function play(move) {
  state.moves += label(move);
  state.redo = [];
  state.lastDrop = state.moves.length;
}

function afterChange(letAiMove) {
  state.generation += 1;
  syncUrl();
  const board = render();
  if (letAiMove && !board.over && !board.error && !isHuman(board.toMove)) aiMove();
}

async function api(path, options) {
  const response = await fetch(path, options);
  let body;
  try { body = await response.json(); } catch (e) { body = { error: `HTTP ${response.status}` }; }
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

function showError(message) {
  const el = $("error");
  el.textContent = message || "";
  el.hidden = !message;
}

async function aiMove() {
  const board = replay(state.moves);
  const side = board.toMove;
  const spec = playerSpec(side);
  const generation = state.generation;
  setThinking(true, `${NAMES[state.game][side - 1]} (${spec}) is thinking…`);
  showError("");
  try {
    const body = {
      pos: state.moves, player: spec, game: state.game, rules: state.rules,
      width: state.width, height: state.height, tree: true,
    };
    const answer = await api("/api/move", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    if (generation !== state.generation) return;  // the game changed meanwhile
    setThinking(false);
    state.moves += answer.move_label;
    state.redo = [];
    state.lastDrop = state.moves.length;
    showStats(answer, spec, side);
    showTree(answer.tree, answer.pos);
    // Two AIs play on by themselves, with a short pause to watch.
    const next = replay(state.moves);
    if (!next.over && !isHuman(next.toMove)) {
      state.generation += 1;
      syncUrl();
      render();
      const gen = state.generation;
      setTimeout(() => { if (gen === state.generation && !state.thinking) aiMove(); }, 400);
      return;
    }
    afterChange(false);
  } catch (error) {
    if (generation !== state.generation) return;
    setThinking(false);
    state.paused = true;
    showError(`AI move failed: ${error.message}`);
    render();
  }
}

function setThinking(on, text) {
  state.thinking = on;
  $("thinking").hidden = !on;
  if (text) $("thinking-text").textContent = text;
  $("board").classList.toggle("blocked", on);
  $("board").setAttribute("aria-busy", on ? "true" : "false");
  if (!on) return;
  document.querySelectorAll("#board button").forEach((b) => { b.disabled = true; });
}

function undo() {
  if (!state.moves.length) return;
  cancelThinking();
  do {
    state.redo.push(state.moves.slice(-1));
    state.moves = state.moves.slice(0, -1);
  } while (state.moves.length && !isHuman(replay(state.moves).toMove) && (isHuman(1) || isHuman(2)));
  state.paused = true;
  afterChange(false);
}

function redo() {
  if (!state.redo.length) return;
  cancelThinking();
  state.moves += state.redo.pop();
  state.lastDrop = state.moves.length;
  state.paused = true;
  afterChange(false);
}

function cancelThinking() {
  state.generation += 1;
  setThinking(false);
}

function newGame() {
  cancelThinking();
  state.moves = "";
  state.redo = [];
  state.paused = false;
  clearAiPanel();
  afterChange(true);
}

// ------------------------------------------------------------------ stats and tree
function clearAiPanel() {
  $("stats").innerHTML = '<p class="note">No AI move yet.</p>';
  $("tree").innerHTML = "";
}

const MATE = 1e9;

function fmt(value) {
  if (typeof value === "number" && Math.abs(value) > MATE - 1000) {
    return `${value > 0 ? "win" : "loss"} at ply ${MATE - Math.abs(value)}`;
  }
  if (typeof value === "number") {
    if (Number.isInteger(value)) return value.toLocaleString("en");
    return Math.abs(value) < 10 ? value.toFixed(4) : value.toFixed(1);
  }
  return value === null || value === undefined ? "–" : String(value);
}

function showStats(answer, spec, side) {
  const stats = answer.stats || {};
  const rows = [
    ["player", `${NAMES[state.game][side - 1]}: ${spec}`],
    ["move", answer.move_label],
    ["value", answer.value === null ? "–" : fmt(answer.value) + (answer.proven ? " (proven)" : "")],
    ["nodes", fmt(stats.nodes)],
    ["time", stats.seconds !== undefined ? `${(Number(stats.seconds) * 1000).toFixed(1)} ms` : "–"],
    ["depth", fmt(stats.depth)],
  ];
  for (const [key, value] of Object.entries(stats)) {
    if (!["nodes", "seconds", "depth"].includes(key)) rows.push([key, fmt(value)]);
  }
  const table = document.createElement("table");
  table.className = "stats";
  for (const [key, value] of rows) {
    const tr = table.insertRow();
    const th = document.createElement("th");
    th.textContent = key;
    tr.append(th);
    tr.insertCell().textContent = value;
    tr.dataset.stat = key;
  }
  $("stats").innerHTML = "";
  $("stats").append(table);
}

// The tree explorer: nested lists; a node shows move, value and the window.
function showTree(tree, rootPos) {
  const box = $("tree");
  box.innerHTML = "";
  if (!tree) {
    box.innerHTML = '<p class="note">This player records no search tree.</p>';
    return;
  }
  // connect4.classic.tree's JSON wraps the root node with the search's figures.
  const root = tree.tree && typeof tree.tree === "object" ? tree.tree : tree;
  const start = typeof tree.root === "string" ? tree.root : rootPos;
  pruning = tree.algorithm !== "minimax";
  const summary = document.createElement("p");
  summary.className = "note";
  const facts = [];
  if (tree.algorithm) facts.push(tree.algorithm);
  if (tree.heuristic) facts.push(`heuristic ${tree.heuristic}`);
  if (tree.depth !== undefined) facts.push(`depth ${tree.depth}`);
  facts.push(`${fmt(tree.node_count ?? "?")} nodes searched`);
  if (tree.pruned_count) facts.push(`${fmt(tree.pruned_count)} branches pruned (grey)`);
  if (tree.truncated || hasTruncated(root)) facts.push("recording capped");
  summary.textContent = facts.join(", ") + ". Values are from the searching player's view.";
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
  list.append(treeNode(root, start, true));
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

let pruning = true;  // whether the shown tree comes from alpha-beta (show the windows)

function hasTruncated(node) {
  return Boolean(node.truncated) || (node.children || []).some(hasTruncated);
}

function nodeMoves(node, rootPos) {
  // `path` is the moves from the searched position, as a string or a list of moves.
  const path = node.path;
  if (Array.isArray(path)) return rootPos + path.map((m) => (typeof m === "number" ? label(m) : String(m))).join("");
  if (typeof path === "string") return rootPos + path;
  return rootPos;
}

function treeNode(node, rootPos, open) {
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
  const move = node.move === null || node.move === undefined ? "root" : `move ${typeof node.move === "number" ? label(node.move) : node.move}`;
  const bits = [move, node.pruned ? "not searched" : `value ${fmt(node.value)}`];
  if (pruning && !node.pruned) {
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
  const moves = nodeMoves(node, rootPos);
  row.addEventListener("mouseenter", (e) => showMini(moves, e));
  row.addEventListener("focus", (e) => showMini(moves, e));
  row.addEventListener("mouseleave", hideMini);
  row.addEventListener("blur", hideMini);
  if (children.length) {
    const ul = document.createElement("ul");
    let built = false;
    const build = () => {
      if (built) return;
      built = true;
      for (const child of children) ul.append(treeNode(child, rootPos, false));
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

function showMini(moves, event) {
  const mini = $("mini");
  const b = replay(moves);
  mini.innerHTML = "";
  const caption = document.createElement("div");
  caption.className = "mini-caption";
  caption.textContent = moves || "(empty)";
  const grid = document.createElement("div");
  grid.className = "mini-grid";
  if (state.game === "tictactoe") {
    grid.style.setProperty("--cols", 3);
    for (const base of [6, 3, 0]) for (let i = 0; i < 3; i++) {
      const s = document.createElement("span");
      const owner = b.cells[base + i];
      s.className = `mini-cell ${owner ? "p" + owner : ""}`;
      s.textContent = owner ? "XO"[owner - 1] : "";
      grid.append(s);
    }
  } else {
    grid.style.setProperty("--cols", state.width);
    for (let r = state.height - 1; r >= 0; r--) for (let c = 0; c < state.width; c++) {
      const s = document.createElement("span");
      const owner = b.grid[c][r] || 0;
      s.className = `mini-cell ${owner ? "p" + owner : ""}`;
      if (b.last && b.last[0] === c && b.last[1] === r && moves.length) s.classList.add("last");
      grid.append(s);
    }
  }
  mini.append(caption, grid);
  mini.hidden = false;
  const rect = event.target.getBoundingClientRect();
  mini.style.top = `${window.scrollY + rect.top}px`;
  mini.style.left = `${Math.max(8, window.scrollX + rect.left - 190)}px`;
}

function hideMini() {
  $("mini").hidden = true;
}

// ------------------------------------------------------------------ solution
// Tic-tac-toe is solved here in the browser (a few thousand positions); Connect
// Four asks the server's solver. Scores follow Pons' convention.
function solveTicTacToe(cells, ply) {
  const player = 1 + (ply % 2);
  let best = -Infinity;
  for (let k = 0; k < 9; k++) {
    if (cells[k]) continue;
    cells[k] = player;
    let score;
    if (TTT_LINES.some((line) => line.every((i) => cells[i] === player))) score = Math.floor((9 + 1 - ply) / 2);
    else if (ply + 1 === 9) score = 0;
    else score = -solveTicTacToe(cells, ply + 1);
    cells[k] = 0;
    if (score > best) best = score;
  }
  return best;
}

function scoreText(score, ply, size) {
  if (score === null || score === undefined) return "unknown";
  if (score === 0) return "draw";
  const stone = Math.floor((size + 1) / 2) + 1 - Math.abs(score);
  const mine = Math.floor(ply / 2);
  return score > 0 ? `win in ${Math.max(1, stone - mine)}` : `loss in ${Math.max(1, stone - (ply - mine))}`;
}

let solutionRequest = 0;

async function renderSolution(board) {
  const box = $("solution"), note = $("solution-note");
  const on = $("show-solution").checked;
  box.hidden = !on;
  note.hidden = true;
  if (!on) return;
  box.innerHTML = "";
  if (board.over || board.error) { box.hidden = true; return; }
  if (state.game === "tictactoe") {
    const scores = [];
    for (let k = 0; k < 9; k++) {
      if (board.cells[k]) { scores.push(null); continue; }
      const cells = board.cells.slice();
      const player = board.toMove;
      cells[k] = player;
      let s;
      if (TTT_LINES.some((line) => line.every((i) => cells[i] === player))) s = Math.floor((10 - board.ply) / 2);
      else if (board.ply + 1 === 9) s = 0;
      else s = -solveTicTacToe(cells, board.ply + 1);
      scores.push(s);
    }
    drawSolution(scores, scores.map((s) => (s === null ? null : scoreText(s, board.ply, 9))), board);
    return;
  }
  if (state.rules !== "standard") {
    box.hidden = true;
    note.hidden = false;
    note.textContent = "The solver plays the standard rules only: no solution for count-fours.";
    return;
  }
  const request = ++solutionRequest;
  box.innerHTML = '<span class="note"><span class="spinner small" aria-hidden="true"></span> solving…</span>';
  try {
    const params = new URLSearchParams({ pos: state.moves, width: state.width, height: state.height });
    const answer = await api(`/api/analyze?${params}`);
    if (request !== solutionRequest || answer.pos !== state.moves) return;
    drawSolution(answer.column_scores, answer.column_texts, board, answer);
  } catch (error) {
    if (request !== solutionRequest) return;
    box.innerHTML = "";
    note.hidden = false;
    note.textContent = `No solution: ${error.message}`;
  }
}

function drawSolution(scores, texts, board, answer) {
  const box = $("solution");
  box.innerHTML = "";
  box.className = state.game;
  box.style.setProperty("--cols", state.game === "tictactoe" ? 3 : state.width);
  const known = scores.filter((s) => s !== null);
  const best = known.length ? Math.max(...known) : null;
  const order = state.game === "tictactoe" ? [6, 7, 8, 3, 4, 5, 0, 1, 2] : scores.map((_, i) => i);
  for (const k of order) {
    const s = scores[k];
    const cell = document.createElement("div");
    cell.className = "score";
    cell.dataset.col = String(k);
    if (s === null) {
      cell.classList.add("full");
      cell.innerHTML = `<span class="num">—</span><span class="words">${state.game === "tictactoe" ? "taken" : "full"}</span>`;
    } else {
      const sign = s > 0 ? "win" : s < 0 ? "loss" : "draw";
      cell.classList.add(sign);
      if (s === best) cell.classList.add("best");
      const num = document.createElement("span");
      num.className = "num";
      num.textContent = s > 0 ? `+${s}` : s < 0 ? `−${-s}` : "0";
      const words = document.createElement("span");
      words.className = "words";
      words.textContent = texts[k];
      cell.append(num, words);
      if (s === best) {
        const star = document.createElement("span");
        star.className = "best-mark";
        star.textContent = "★ best";
        cell.append(star);
      }
    }
    cell.title = `${state.game === "tictactoe" ? "cell" : "column"} ${k + 1}`;
    box.append(cell);
  }
  const note = $("solution-note");
  if (answer) {
    note.hidden = false;
    note.textContent = `Solver: ${answer.score_text} for ${NAMES[state.game][board.toMove - 1]} (score ${answer.score}); solved in ${fmt(answer.nodes)} nodes, ${(answer.seconds * 1000).toFixed(1)} ms.`;
  }
}

// ------------------------------------------------------------------ set-up
function readUrl() {
  const params = new URLSearchParams(location.search);
  const game = params.get("game");
  if (game === "tictactoe" || game === "connect4") state.game = game;
  const rules = params.get("rules");
  if (rules === "standard" || rules === "count-fours") state.rules = rules;
  const w = Number(params.get("width")), h = Number(params.get("height"));
  if (state.game === "connect4" && w >= 4 && h >= 4 && w * (h + 1) <= 64 && w <= 35) { state.width = w; state.height = h; }
  if (state.game === "tictactoe") { state.width = 3; state.height = 3; }
  state.moves = (params.get("pos") || "").trim();
  return [params.get("p1") || params.get("red"), params.get("p2") || params.get("yellow")];
}

function syncControls() {
  $("game").value = state.game;
  $("rules").value = state.rules;
  const size = `${state.width}x${state.height}`;
  if (![...$("size").options].some((o) => o.value === size)) $("size").add(new Option(`${state.width} × ${state.height}`, size));
  $("size").value = size;
  const c4 = state.game === "connect4";
  $("rules-label").hidden = !c4;
  $("size-label").hidden = !c4;
  document.querySelectorAll(".side-name").forEach((el, i) => { el.textContent = NAMES[state.game][i]; });
  document.querySelectorAll(".disc-icon").forEach((el) => el.classList.toggle("ttt", !c4));
}

function onSettingsChanged() {
  state.game = $("game").value;
  state.rules = state.game === "connect4" ? $("rules").value : "standard";
  if (state.game === "tictactoe") { state.width = 3; state.height = 3; }
  else { [state.width, state.height] = $("size").value.split("x").map(Number); }
  syncControls();
  fillKinds();
  if (!isHuman(2) || !kindInfo(playerSpec(2).split(":")[0])) setSpec(2, defaultAi());
  newGame();
}

function onPlayersChanged() {
  cancelThinking();  // an answer for the old players is dropped
  state.paused = false;
  clearAiPanel();
  afterChange(true);
}

async function start() {
  const [p1, p2] = readUrl();
  syncControls();
  try {
    const info = await api("/api/players");
    state.kinds = info.players;
    state.solverAvailable = info.solver;
  } catch (error) {
    showError(`Cannot load the player list: ${error.message}`);
  }
  fillKinds();
  setSpec(1, p1 || "human");
  setSpec(2, p2 || defaultAi());
  for (const side of [1, 2]) {
    $(`p${side}-kind`).addEventListener("change", () => { fillOptions(side); onPlayersChanged(); });
  }
  $("game").addEventListener("change", onSettingsChanged);
  $("rules").addEventListener("change", onSettingsChanged);
  $("size").addEventListener("change", onSettingsChanged);
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("continue").addEventListener("click", () => { state.paused = false; render(); aiMove(); });
  $("show-solution").addEventListener("change", () => render());
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); undo(); }
    if ((e.ctrlKey || e.metaKey) && e.key === "y") { e.preventDefault(); redo(); }
  });
  const board = replay(state.moves);
  if (board.error) showError(`Bad position in the URL: ${board.error}`);
  state.paused = !board.error && !board.over && !isHuman(board.toMove) && state.moves.length > 0;
  afterChange(!state.paused && !board.error);
  document.body.dataset.ready = "1";
}

document.addEventListener("DOMContentLoaded", start);
