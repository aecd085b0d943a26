// Play by keyboard: a move's key (its symbol in the game's notation: 1-9, then letters
// on wider boards; tic-tac-toe's cells as on a numeric keypad) plays it, and in the
// board the arrow keys move between the columns (cells) and Enter or Space plays.
import { displayOrder } from "./board.js";

// The move (0-based column or cell) a key names in `game`, else -1.
export function moveForKey(game, key) {
  if (typeof key !== "string" || key.length !== 1) return -1;
  const move = game.notation.indexOf(key.toLowerCase());
  const moves = game.kind === "tictactoe" ? 9 : game.width;
  return move >= 0 && move < moves ? move : -1;
}

// The keys' help line under the board.
export function keysHelp(game) {
  const first = game.notation[0], last = game.notation[(game.kind === "tictactoe" ? 9 : game.width) - 1];
  const what = game.kind === "tictactoe" ? `${first}–${last} mark a cell (as on a numeric keypad)` : `${first}–${last} drop a disc in that column`;
  return `Keys: ${what}; in the board (Tab to it) the arrow keys choose and Enter plays; Ctrl+Z / Ctrl+Y undo / redo.`;
}

// Move the focus from the board's button `from` by an arrow key: ← → through the
// display order (wrapping, skipping full columns and taken cells), ↑ ↓ a tic-tac-toe
// row. True when the key was the board's.
export function stepFocus(boardEl, game, from, key) {
  const order = displayOrder(game);
  const steps = game.kind === "tictactoe" ? { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -3, ArrowDown: 3 } : { ArrowLeft: -1, ArrowRight: 1 };
  const step = steps[key];
  if (step === undefined) return false;
  const buttons = order.map((move) => boardEl.querySelector(`[data-col="${move}"]`));
  let at = buttons.indexOf(from);
  for (let tries = 0; tries < buttons.length; tries++) {
    at = (at + step + buttons.length) % buttons.length;
    if (buttons[at] && !buttons[at].disabled) { buttons[at].focus(); break; }
  }
  return true;
}
