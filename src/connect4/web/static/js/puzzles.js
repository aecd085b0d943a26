// Puzzles: a puzzle of the server's collection (GET /api/puzzle) set on the board,
// "find the best move", each click looked up among the server's right moves for that
// step (the solution's move, and at the last step any four), the opponent's reply
// played after a right move, the solution on request, the rating and themes once it
// is over, and the player's streak kept in localStorage. main.js owns the session (in
// its state) and the board; this module keeps the session and draws the panel.
//
// Ratings: the player's Glicko-2 rating is kept in localStorage and each finished
// attempt (solved without a miss or a hint; failed at the first wrong move, the hint or
// the solution asked for, as lichess counts them) is sent to POST /api/puzzle/attempt, which answers the player's and
// the puzzle's new ratings (Glicko-2 is computed by the server only). The hint is the
// threat map (hidden otherwise while a puzzle asks, like the solution). A puzzle is
// rated once: the ids tried are kept too, and a reload or a replay of one is not sent.
// The next puzzle is asked near the player's rating.

import { getJson } from "./api.js";
import { button, element } from "./dom.js";

const $ = (id) => document.getElementById(id);
const STREAK = "connect4.puzzleStreak";
const PLAYER = "connect4.puzzlePlayer";  // {rating, deviation, volatility}
const TRIED = "connect4.puzzlesTried";   // the ids of the puzzles rated, oldest first
const MOST_TRIED = 5000;                 // ids kept (the oldest are forgotten)
const NEW_PLAYER = Object.freeze({ rating: 1500, deviation: 350, volatility: 0.06 });
const MOST_ASKED = 2800;                 // the highest rating GET /api/puzzle takes

function readJson(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch (e) { return fallback; }
}

function writeJson(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* not kept */ }
}

// The player's rating as kept (a new player's where none is, or a damaged one).
export function playerRating() {
  const kept = readJson(PLAYER, null);
  const ok = kept && ["rating", "deviation", "volatility"].every((k) => Number.isFinite(kept[k]));
  return ok ? { rating: kept.rating, deviation: kept.deviation, volatility: kept.volatility } : { ...NEW_PLAYER };
}

function triedIds() {
  const ids = readJson(TRIED, []);
  return Array.isArray(ids) ? ids : [];
}

function wasTried(id) {
  return triedIds().includes(id);
}

function keepTried(id, tried) {
  const ids = triedIds().filter((other) => other !== id);
  if (tried) ids.push(id);
  writeJson(TRIED, ids.slice(-MOST_TRIED));
}

// The puzzle `id` names, else one near the player's rating: one tried before is asked
// again, up to REASKS more times (the server draws among the closest).
const REASKS = 3;

export async function requestPuzzle(id) {
  if (id) return getJson(`/api/puzzle?id=${encodeURIComponent(id)}`);
  const near = Math.min(MOST_ASKED, Math.max(0, Math.round(playerRating().rating)));
  let answer = await getJson(`/api/puzzle?rating=${near}`);
  for (let ask = 0; ask < REASKS && wasTried(answer.id); ask++) {
    answer = await getJson(`/api/puzzle?rating=${near}`);
  }
  return answer;
}

// The attempts are sent one after another: each starts from the rating the last answered.
let sending = Promise.resolve();

// Rate the session's attempt once (`solved`: without a miss); `redraw` when answered.
// A puzzle tried before (this page kept its id) is not rated again.
function rate(session, solved, redraw) {
  if (session.rating) return;
  const { id } = session.answer;
  if (session.triedBefore) { session.rating = { again: true }; return; }
  session.rating = { sending: true };
  keepTried(id, true);
  sending = sending.then(async () => {
    try {
      const answer = await getJson("/api/puzzle/attempt", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ id, solved, player: playerRating() }),
      });
      writeJson(PLAYER, answer.player);
      session.rating = answer;
    } catch (error) {
      keepTried(id, false);
      session.rating = { error: error.message };
    }
    redraw();
  });
}

export function streak() {
  try { return Number(localStorage.getItem(STREAK)) || 0; } catch (e) { return 0; }
}

function keepStreak(value) {
  try { localStorage.setItem(STREAK, String(value)); } catch (e) { /* not kept */ }
}

// A session over the server's answer: the moves played from the puzzle's position,
// the step of the solver's side asked now, the last message, and how it ended.
// `rating`: null until the attempt is over, then how it was rated; `triedBefore`: the
// page rated this puzzle before (it is not rated again).
export function newPuzzle(answer) {
  return {
    answer, played: "", step: 0, message: "", wrong: false, hinted: false, done: false,
    revealed: false, rating: null, triedBefore: wasTried(answer.id),
  };
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
// it; at the last step the puzzle is solved. A wrong move is said, breaks the streak
// and fails the attempt (rated at once; `redraw` when the rating is answered).
export function gradePuzzle(session, column, redraw) {
  const { right, solution } = session.answer;
  if (!right[session.step].includes(column)) {
    if (!session.wrong) keepStreak(0);
    rate(session, false, redraw);
    session.wrong = true;
    session.message = `${column} is not the move: try again.`;
    return false;
  }
  session.played += String(column);
  if (session.step + 1 === right.length) {
    session.done = true;
    if (!session.wrong && !session.hinted) keepStreak(streak() + 1);
    rate(session, true, redraw);
    session.message = session.wrong ? "Right, solved after a miss." : session.hinted ? "Right, solved with a hint." : "Right! Solved.";
    return true;
  }
  const reply = solution[2 * session.step + 1];
  session.played += reply;
  session.step += 1;
  session.message = `Right! The reply is ${reply}: find the next move.`;
  return true;
}

// The hint: the threat map shown on the board; the attempt fails and the streak breaks.
export function hintPuzzle(session, redraw) {
  if (session.done || session.hinted) return;
  if (!session.wrong) keepStreak(0);
  rate(session, false, redraw);
  session.hinted = true;
  session.message = "Hint: the threat map (the attempt counts as failed).";
}

// Whether the threat map is shown now: the toggle's, but while the puzzle asks only as its hint.
export function threatsShown(session, moves, toggled) {
  return asking(session, moves) ? session.hinted : toggled;
}

// Play out the whole solution; a revealed puzzle is not solved (the attempt fails).
export function revealPuzzle(session, redraw) {
  if (!session.done && !session.wrong && !session.hinted) keepStreak(0);
  if (!session.done) rate(session, false, redraw);
  session.played = session.answer.solution;
  session.done = true;
  session.revealed = true;
  session.message = `The solution: ${session.answer.solution}.`;
}

function signed(change) {
  return change > 0 ? `+${change}` : change < 0 ? `−${-change}` : "±0";
}

// "Your rating 1523 (+23)": the kept rating, and what the attempt did to it.
function playerLine(session) {
  const shown = `Your rating ${Math.round(playerRating().rating)}`;
  const { rating } = session;
  if (rating?.player) return `${shown} (${signed(rating.change)})`;
  if (rating?.sending) return `${shown} (rating…)`;
  if (rating?.error) return `${shown} (not rated: ${rating.error})`;
  if (session.triedBefore) return `${shown} (tried before: not rated again)`;
  return shown;
}

// Draw the panel; `actions`: hint, reveal, next, close. `sides`: the sides' names.
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
    const rated = session.rating?.puzzle;
    const rating = rated ? `${Math.round(rated.rating)} (${signed(session.rating.puzzle_change)})` : answer.rating;
    parts.push(element("p", "puzzle-facts", `Rating ${rating} · themes: ${answer.themes.join(", ") || "none"}`));
  }
  parts.push(element("p", "puzzle-player", playerLine(session)));
  parts.push(element("p", "puzzle-streak note", `Streak: ${streak()} · keys: 1-7 play, h hint, s solution, n next`));
  const row = element("div", "row buttons");
  if (!session.done && !session.hinted) row.append(button("puzzle-hint", "Hint", actions.hint));
  if (!session.done) row.append(button("puzzle-reveal", "Show solution", actions.reveal));
  row.append(button("puzzle-next", "Next puzzle", actions.next), button("puzzle-close", "Close", actions.close));
  parts.push(row);
  box.replaceChildren(...parts);
}
