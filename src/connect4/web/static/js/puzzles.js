// Puzzles: a puzzle of the server's collection (GET /api/puzzle) set on the board,
// "find the best move", each click looked up among the server's right moves for that
// step (the solution's move, and at the last step any four), the opponent's reply
// played after a right move, the solution on request, the rating and themes once it
// is over, and the player's streak kept in localStorage. main.js owns the session (in
// its state) and the board; this module keeps the session and draws the panel.

import { getJson } from "./api.js";

const $ = (id) => document.getElementById(id);
const STREAK = "connect4.puzzleStreak";

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(id, text, onClick) {
  const node = element("button", "", text);
  node.type = "button";
  node.id = id;
  node.addEventListener("click", onClick);
  return node;
}

// The puzzle `id` names, else one near the player's level (the server's median).
export function requestPuzzle(id) {
  return getJson(id ? `/api/puzzle?id=${encodeURIComponent(id)}` : "/api/puzzle");
}

export function streak() {
  try { return Number(localStorage.getItem(STREAK)) || 0; } catch (e) { return 0; }
}

function keepStreak(value) {
  try { localStorage.setItem(STREAK, String(value)); } catch (e) { /* not kept */ }
}

// A session over the server's answer: the moves played from the puzzle's position,
// the step of the solver's side asked now, the last message, and how it ended.
export function newPuzzle(answer) {
  return { answer, played: "", step: 0, message: "", wrong: false, done: false, revealed: false };
}

// The position the puzzle asks about now (a move string from the empty board).
export function puzzlePosition(session) {
  return session.answer.position + session.played;
}

// Whether the board asks the puzzle's question now (the user answers on it).
export function asking(session, moves) {
  return !!session && !session.done && moves === puzzlePosition(session);
}

// Grade `column` (1-based): a right move is played with the opponent's reply after
// it; at the last step the puzzle is solved. A wrong move is said and breaks the streak.
export function gradePuzzle(session, column) {
  const { right, solution } = session.answer;
  if (!right[session.step].includes(column)) {
    if (!session.wrong) keepStreak(0);
    session.wrong = true;
    session.message = `${column} is not the move: try again.`;
    return false;
  }
  session.played += String(column);
  if (session.step + 1 === right.length) {
    session.done = true;
    if (!session.wrong) keepStreak(streak() + 1);
    session.message = session.wrong ? "Right, solved after a miss." : "Right! Solved.";
    return true;
  }
  const reply = solution[2 * session.step + 1];
  session.played += reply;
  session.step += 1;
  session.message = `Right! The reply is ${reply}: find the next move.`;
  return true;
}

// Play out the whole solution; a revealed puzzle is not solved.
export function revealPuzzle(session) {
  if (!session.done && !session.wrong) keepStreak(0);
  session.played = session.answer.solution;
  session.done = true;
  session.revealed = true;
  session.message = `The solution: ${session.answer.solution}.`;
}

// Draw the panel; `actions`: reveal, next, close. `sides`: the sides' names.
export function drawPuzzle(session, sides, actions) {
  const box = $("puzzle");
  box.hidden = !session;
  if (!session) return;
  const { answer } = session;
  const who = sides[answer.to_move - 1];
  const head = element("p", "puzzle-head");
  head.append(element("b", "", `Puzzle ${answer.id}: `), `Find the best move for ${who.toLowerCase()} (${answer.outcome === "win" ? "to win" : "to draw"}).`);
  const parts = [head];
  if (session.message) {
    const said = element("p", `puzzle-grade ${session.done && !session.revealed ? "grade-right" : session.wrong && !session.done ? "grade-wrong" : ""}`, session.message);
    said.setAttribute("role", "status");
    parts.push(said);
  }
  if (session.done) {
    parts.push(element("p", "puzzle-facts", `Rating ${answer.rating} · themes: ${answer.themes.join(", ") || "none"}`));
  }
  parts.push(element("p", "puzzle-streak note", `Streak: ${streak()} · keys: 1-7 play, s solution, n next`));
  const row = element("div", "row buttons");
  if (!session.done) row.append(button("puzzle-reveal", "Show solution", actions.reveal));
  row.append(button("puzzle-next", "Next puzzle", actions.next), button("puzzle-close", "Close", actions.close));
  parts.push(row);
  box.replaceChildren(...parts);
}
