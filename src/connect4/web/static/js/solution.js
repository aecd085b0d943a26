// The solution row under the board: every move's exact score from the server's
// solver (Pons' convention), in numbers and words, the best ones starred.
import { requestAnalysis, requestPolicy } from "./api.js";
import { displayOrder } from "./board.js";
import { fmt } from "./format.js";

const $ = (id) => document.getElementById(id);

// Show (when `on`) the solution of `board`; `current()` tells whether the answer
// still belongs to the position on screen when it arrives.
export async function showSolution(game, board, moves, on, current) {
  const box = $("solution"), note = $("solution-note");
  box.hidden = !on;
  note.hidden = true;
  if (!on) return;
  box.innerHTML = "";
  if (board.over || board.error) { box.hidden = true; return; }
  if (game.rules !== "standard") {
    box.hidden = true;
    note.hidden = false;
    note.textContent = "The solver plays the standard rules only: no solution for count-fours.";
    return;
  }
  box.innerHTML = '<span class="note"><span class="spinner small" aria-hidden="true"></span> solving…</span>';
  try {
    const answer = await requestAnalysis(game, moves);
    if (!current() || answer.pos !== moves) return;
    drawSolution(game, board, answer);
    if (game.kind === "connect4" && game.rules === "standard") {
      const policy = await requestPolicy(game, moves);
      if (policy && current() && policy.pos === moves) drawPolicy(game, board, answer, policy);
    }
  } catch (error) {
    if (!current()) return;
    box.innerHTML = "";
    if (error.name === "AbortError") return;  // an AI's move gave it up; its answer is solved next
    note.hidden = false;
    note.textContent = `No solution: ${error.message}`;
  }
}

function drawSolution(game, board, answer) {
  const box = $("solution");
  const scores = answer.column_scores, texts = answer.column_texts;
  const place = game.kind === "tictactoe" ? "cell" : "column";
  box.innerHTML = "";
  box.className = game.kind;
  const known = scores.filter((s) => s !== null);
  const best = known.length ? Math.max(...known) : null;
  for (const k of displayOrder(game)) {
    const s = scores[k];
    const cell = document.createElement("div");
    cell.className = "score";
    cell.dataset.col = String(k);
    if (s === null) {
      cell.classList.add("full");
      cell.innerHTML = `<span class="num">—</span><span class="words">${game.kind === "tictactoe" ? "taken" : "full"}</span>`;
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
    cell.title = `${place} ${k + 1}`;
    box.append(cell);
  }
  const note = $("solution-note");
  note.hidden = false;
  note.textContent = `Solver: ${answer.score_text} for ${game.sides[board.toMove - 1]} (score ${answer.score}); solved in ${fmt(answer.nodes)} nodes, ${(answer.seconds * 1000).toFixed(1)} ms.`;
}

// The learned network beside the solver: a bar per column (its policy) and its value, so
// the page shows where the network agrees with perfect play and where it is fooled.
function drawPolicy(game, board, answer, policy) {
  const box = $("solution");
  for (const cell of box.querySelectorAll(".score")) {
    const k = Number(cell.dataset.col), p = policy.policy[k];
    if (answer.column_scores[k] === null) continue;
    const bar = document.createElement("span");
    bar.className = "policy";
    bar.innerHTML = `<span class="policy-bar" style="width:${Math.round(p * 100)}%"></span>`;
    bar.title = `the network's policy: ${(p * 100).toFixed(1)} %`;
    cell.append(bar);
  }
  const pick = policy.policy.indexOf(Math.max(...policy.policy));
  const right = answer.best_moves.includes(pick + 1);
  const [loss, draw, win] = policy.wdl.map((x) => `${Math.round(x * 100)} %`);
  const note = $("solution-note");
  note.textContent += ` Network (bars): plays column ${pick + 1}, ${right ? "a best move" : "not a best move"}; expects win ${win}, draw ${draw}, loss ${loss}.`;
}
