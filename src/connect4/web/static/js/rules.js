// The game rules the page needs to draw a position without asking the server: replay
// a move string, say which moves are legal, and name a move. `game` is
// { kind, width, height, rules, notation }, the notation being the server's.

const TTT_LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

// A board replayed from a move string. Connect Four: grid[col][row], row 0 at the
// bottom. Tic-tac-toe: cells 0..8 with numpad numbering (cell 0 = key 1, bottom left).
export function replay(game, moves) {
  if (game.kind === "tictactoe") return replayTicTacToe(game, moves);
  const w = game.width, h = game.height;
  const grid = Array.from({ length: w }, () => []);
  const b = { grid, ply: 0, over: false, winner: 0, winCells: new Set(), last: null, error: null };
  for (let i = 0; i < moves.length; i++) {
    const col = game.notation.indexOf(moves[i].toLowerCase());
    if (col < 0 || col >= w) { b.error = `move ${i + 1} ('${moves[i]}'): not a column 1-${w}`; break; }
    if (b.over) { b.error = `move ${i + 1} ('${moves[i]}'): the game is already over`; break; }
    if (grid[col].length >= h) { b.error = `move ${i + 1} ('${moves[i]}'): column ${col + 1} is full`; break; }
    const player = 1 + (i % 2);
    grid[col].push(player);
    b.ply = i + 1;
    b.last = [col, grid[col].length - 1];
    const full = b.ply === w * h;
    if (game.rules === "standard") {
      const cells = fours(game, grid, player);
      if (cells.size) { b.over = true; b.winner = player; b.winCells = cells; }
      else if (full) b.over = true;
    } else if (full) {
      b.over = true;
      const red = countFours(game, grid, 1), yellow = countFours(game, grid, 2);
      if (red !== yellow) { b.winner = red > yellow ? 1 : 2; b.winCells = fours(game, grid, b.winner); }
    }
  }
  if (game.rules === "count-fours") b.score = [countFours(game, grid, 1), countFours(game, grid, 2)];
  b.toMove = 1 + (b.ply % 2);
  return b;
}

function at(grid, c, r) {
  return c >= 0 && c < grid.length && r >= 0 ? (grid[c][r] || 0) : 0;
}

// The cells of every four-in-a-row of `player`, as "c,r" strings.
function fours(game, grid, player) {
  const cells = new Set();
  forEachFour(game, grid, player, (line) => line.forEach(([c, r]) => cells.add(`${c},${r}`)));
  return cells;
}

function countFours(game, grid, player) {
  let n = 0;
  forEachFour(game, grid, player, () => { n += 1; });
  return n;
}

function forEachFour(game, grid, player, visit) {
  const w = game.width, h = game.height;
  for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    for (let c = 0; c < w; c++) {
      for (let r = 0; r < h; r++) {
        const line = [0, 1, 2, 3].map((k) => [c + k * dc, r + k * dr]);
        if (line.every(([x, y]) => y < h && at(grid, x, y) === player)) visit(line);
      }
    }
  }
}

function replayTicTacToe(game, moves) {
  const cells = Array(9).fill(0);
  const b = { cells, ply: 0, over: false, winner: 0, winCells: new Set(), last: null, error: null };
  for (let i = 0; i < moves.length; i++) {
    const cell = game.notation.indexOf(moves[i]);
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

export function legal(game, board, move) {
  if (board.over) return false;
  if (game.kind === "tictactoe") return board.cells[move] === 0;
  return board.grid[move].length < game.height;
}

// A move (0-based column or cell) in the game's notation.
export function label(game, move) {
  return game.notation[move];
}
