// Drawing boards: the big board the players click, and the small one the tree
// explorer shows on hover. `game` is { kind, width, height, sides, notation }.

// Tic-tac-toe cells as drawn, row by row from the top (numpad: 7 8 9 / 4 5 6 / 1 2 3);
// Connect Four columns left to right.
export function displayOrder(game) {
  if (game.kind === "tictactoe") return [6, 7, 8, 3, 4, 5, 0, 1, 2];
  return Array.from({ length: game.width }, (_, c) => c);
}

// Fill `boardEl` with the board; `legal(move)` enables a move, `onMove(move)` plays it,
// `animate` marks the last stone as just played. `hints` (from a review), when given,
// marks where the best moves `best` would land (★) and the move `played` instead (✗).
export function drawBoard(boardEl, game, board, { legal, onMove, animate, hints = null }) {
  boardEl.innerHTML = "";
  boardEl.className = game.kind;
  if (game.kind === "tictactoe") drawTicTacToe(boardEl, game, board, legal, onMove, animate, hints);
  else drawConnect4(boardEl, game, board, legal, onMove, animate, hints);
}

// The review's mark for a move: "best", "played" or "" (none).
function hintOf(hints, move) {
  if (!hints) return "";
  if (hints.best.includes(move)) return "best";
  return hints.played === move ? "played" : "";
}

const HINT_TEXT = { best: ["★", "best move"], played: ["✗", "move played"] };

// A ghost stone showing a review's mark where a move would go.
function ghost(kind) {
  const g = document.createElement("span");
  g.className = `ghost ${kind}`;
  g.textContent = HINT_TEXT[kind][0];
  g.setAttribute("aria-hidden", "true");
  return g;
}

// The button that plays move `k` (a column, or a tic-tac-toe cell): its label names
// the move and the review's mark on it (`hint`, if any); disabled where illegal.
function moveButton(className, noun, k, hint, legal, onMove) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = className;
  node.dataset.col = String(k);
  node.setAttribute("aria-label", `${noun} ${k + 1}${hint ? ` (${HINT_TEXT[hint][1]})` : ""}`);
  if (hint) node.classList.add(`hint-${hint}`);
  node.disabled = !legal(k);
  node.addEventListener("click", () => onMove(k));
  return node;
}

function drawConnect4(boardEl, game, board, legal, onMove, animate, hints) {
  const w = game.width, h = game.height;
  for (const c of displayOrder(game)) {
    const hint = hintOf(hints, c);
    const col = moveButton("column", "column", c, hint, legal, onMove);
    for (let r = h - 1; r >= 0; r--) {
      const cell = document.createElement("span");
      cell.className = "cell";
      cell.dataset.cell = `${c},${r}`;
      const owner = board.grid[c][r] || 0;
      if (hint && r === board.grid[c].length) cell.append(ghost(hint));
      if (owner) {
        const disc = document.createElement("span");
        disc.className = `disc p${owner}`;
        if (board.winCells.has(`${c},${r}`)) { disc.classList.add("win"); cell.classList.add("win"); }
        if (board.last && board.last[0] === c && board.last[1] === r) {
          disc.classList.add("last");
          cell.classList.add("last");
          if (animate) {
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

function drawTicTacToe(boardEl, game, board, legal, onMove, animate, hints) {
  for (const k of displayOrder(game)) {
    const hint = hintOf(hints, k);
    const cell = moveButton("ttt-cell", "cell", k, hint, legal, onMove);
    const owner = board.cells[k];
    cell.textContent = owner ? game.sides[owner - 1] : "";
    if (hint) cell.append(ghost(hint));
    if (owner) cell.classList.add(`p${owner}`);
    if (board.winCells.has(String(k))) cell.classList.add("win");
    if (board.last === k) cell.classList.add("last");
    if (animate && board.last === k) cell.classList.add("pop");
    boardEl.append(cell);
  }
}

// A small picture of `board` (replayed from `moves`): a caption and a grid of cells.
export function drawMini(miniEl, game, board, moves) {
  miniEl.innerHTML = "";
  const caption = document.createElement("div");
  caption.className = "mini-caption";
  caption.textContent = moves || "(empty)";
  const grid = document.createElement("div");
  grid.className = "mini-grid";
  const cell = (owner, text) => {
    const s = document.createElement("span");
    s.className = `mini-cell ${owner ? "p" + owner : ""}`;
    s.textContent = text;
    grid.append(s);
    return s;
  };
  if (game.kind === "tictactoe") {
    grid.style.setProperty("--cols", 3);
    for (const k of displayOrder(game)) {
      const owner = board.cells[k];
      cell(owner, owner ? game.sides[owner - 1] : "");
    }
  } else {
    grid.style.setProperty("--cols", game.width);
    for (let r = game.height - 1; r >= 0; r--) for (let c = 0; c < game.width; c++) {
      const s = cell(board.grid[c][r] || 0, "");
      if (board.last && board.last[0] === c && board.last[1] === r && moves.length) s.classList.add("last");
    }
  }
  miniEl.append(caption, grid);
}
