// The opening explorer beside the board: every legal move of the position on screen
// with its exact score (Pons' convention, the mover's view), how often the server's
// game collection played it from here, and the best line (GET /api/explore).
import { requestExplore } from "./api.js";

const $ = (id) => document.getElementById(id);

// Show (when `on`) the explorer of the position `moves`; `current()` tells whether
// the answer still belongs to the position on screen when it arrives; `play(move)`
// plays a move (0-based) picked in the table, as a click on the board does.
export async function showExplorer(game, board, moves, on, current, play) {
  const box = $("explorer");
  box.hidden = !on;
  if (!on) return;
  if (board.error) { box.hidden = true; return; }
  if (board.over) { box.innerHTML = '<p class="note">The game is over: no move to explore.</p>'; return; }
  if (game.rules !== "standard") {
    box.innerHTML = '<p class="note">The explorer needs the solver, which plays the standard rules only.</p>';
    return;
  }
  box.innerHTML = '<p class="note"><span class="spinner small" aria-hidden="true"></span> exploring…</p>';
  try {
    const answer = await requestExplore(game, moves);
    if (!current() || answer.pos !== moves) return;
    drawExplorer(game, answer, play);
  } catch (error) {
    if (!current()) return;
    box.innerHTML = "";
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = `No exploration: ${error.message}`;
    box.append(note);
  }
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.append(td);
}

function drawExplorer(game, answer, play) {
  const box = $("explorer");
  box.innerHTML = "";
  const head = document.createElement("p");
  head.className = "explorer-head";
  head.textContent = `Explorer: ${answer.score_text} for the side to move (score ${answer.score}); `
    + (answer.games ? `${answer.games} game${answer.games === 1 ? "" : "s"} went on from here.` : "no game of the server's collection reached this position.");
  const table = document.createElement("table");
  table.className = "explorer-table";
  const place = game.kind === "tictactoe" ? "Cell" : "Column";
  table.innerHTML = `<thead><tr><th>${place}</th><th>Score</th><th>Games</th><th>Share</th><th title="for the side that played it">Won / drawn / lost</th></tr></thead>`;
  const body = document.createElement("tbody");
  for (const move of answer.moves) {
    const row = document.createElement("tr");
    row.dataset.col = String(move.column - 1);
    const sign = move.score > 0 ? "win" : move.score < 0 ? "loss" : "draw";
    row.className = sign + (move.score === answer.score ? " best" : "");
    const pick = document.createElement("button");
    pick.type = "button";
    pick.className = "explorer-play";
    pick.textContent = String(move.column) + (move.score === answer.score ? " ★" : "");
    pick.title = `play ${place.toLowerCase()} ${move.column}`;
    pick.addEventListener("click", () => play(move.column - 1));
    const first = document.createElement("td");
    first.append(pick);
    row.append(first);
    const number = move.score > 0 ? `+${move.score}` : move.score < 0 ? `−${-move.score}` : "0";
    cell(row, `${move.score_text} (${number})`, "words");
    cell(row, String(move.games));
    cell(row, answer.games ? `${Math.round((100 * move.games) / answer.games)} %` : "–");
    cell(row, move.games ? `${move.wins} / ${move.draws} / ${move.losses}` : "–");
    body.append(row);
  }
  table.append(body);
  const line = document.createElement("p");
  line.className = "explorer-line";
  line.textContent = `Best line: ${answer.line || "–"}` + (answer.line_complete ? "" : " (cut short by the time limit)");
  box.append(head, table, line);
}
