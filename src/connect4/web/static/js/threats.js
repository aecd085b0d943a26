// The threat map on the board: each side's threats (empty cells that would complete a
// four) marked in their cells, with their row's parity and whether they are playable
// now, later or dead, and the sentence of the simple rule that explains the verdict
// (GET /api/threats; the page computes no threat itself). Where no rule does, the
// solver's line on request (GET /api/explore's best line).
import { requestExplore, requestThreats } from "./api.js";
import { element } from "./dom.js";

const $ = (id) => document.getElementById(id);

// The last answer, so a redraw of the same position marks the board at once.
let last = { key: "", answer: null };

// Show (when `on`) the threat map of the position `moves` on the board just drawn;
// `current()` tells whether the answer still belongs to the position on screen.
export async function showThreats(game, board, moves, on, current) {
  const box = $("threats");
  box.hidden = !on;
  if (!on) return;
  if (game.kind !== "connect4") return note(box, "The threat map is for Connect Four.");
  if (board.error) { box.hidden = true; return; }
  if (board.over) return note(box, "The game is over: no threat can be played.");
  const key = `${game.width}x${game.height}:${game.rules}:${moves}`;
  if (last.key === key) { drawThreats(game, last.answer, moves, current); return; }
  box.innerHTML = '<p class="note"><span class="spinner small" aria-hidden="true"></span> finding threats…</p>';
  try {
    const answer = await requestThreats(game, moves);
    if (!current() || answer.pos !== moves) return;
    last = { key, answer };
    drawThreats(game, answer, moves, current);
  } catch (error) {
    if (current()) note(box, `No threat map: ${error.message}`);
  }
}

function note(box, text) {
  box.replaceChildren(element("p", "note", text));
}

// Each threatened cell once: whose (red, yellow or both) and its state.
function threatCells(answer) {
  const cells = new Map();
  for (const side of ["red", "yellow"]) {
    for (const t of answer[side]) {
      const key = `${t.column - 1},${t.row - 1}`;
      const seen = cells.get(key);
      const state = t.playable ? "playable" : t.live ? "later" : "dead";
      cells.set(key, seen ? { ...seen, side: "both" } : { ...t, side, state });
    }
  }
  return cells;
}

const STATE_WORDS = { playable: "playable now", later: "later", dead: "dead: the game ends below it" };

function drawThreats(game, answer, moves, current) {
  const letters = { red: game.sides[0][0], yellow: game.sides[1][0], both: "B" };
  for (const [key, t] of threatCells(answer)) {
    const cell = document.querySelector(`#board .cell[data-cell="${key}"]`);
    if (!cell) continue;
    const mark = element("span", `threat ${t.side} ${t.state} ${t.odd ? "odd" : "even"}`);
    mark.dataset.threat = t.side;
    mark.dataset.state = t.state;
    mark.setAttribute("aria-hidden", "true");
    mark.title = `${t.side === "both" ? "both sides'" : `${t.side}'s`} threat, row ${t.row} (${t.odd ? "odd" : "even"}), ${STATE_WORDS[t.state]}`;
    mark.append(element("b", "", letters[t.side]), element("small", "", t.odd ? "odd" : "even"));
    cell.append(mark);
  }
  const box = $("threats");
  const lists = ["red", "yellow"].map((side, i) => {
    const cells = answer[side].map((t) => `column ${t.column} row ${t.row} (${t.odd ? "odd" : "even"}, ${t.playable ? "playable now" : t.live ? "later" : "dead"})`);
    const line = element("p", `threat-list ${side}`);
    line.append(element("b", "", `${game.sides[i]}'s threats: `), cells.length ? cells.join("; ") : "none");
    return line;
  });
  box.replaceChildren(...lists, why(game, answer, moves, current), legend(game));
}

// The rule's sentence, or where none explains the verdict, the solver's line on request.
function why(game, answer, moves, current) {
  const p = element("p", "threat-why");
  if (answer.explanation) {
    p.append(element("b", "", "Why: "), answer.explanation);
    return p;
  }
  if (game.rules !== "standard") {
    p.textContent = "Under count-fours a four does not end the game: no simple rule explains the verdict.";
    return p;
  }
  p.append(element("b", "", "Why: "), "no simple rule explains this. ");
  const button = element("button", "linklike", "Show the solver's line");
  button.type = "button";
  button.id = "threat-line";
  button.addEventListener("click", async () => {
    button.disabled = true;
    const out = element("span", "threat-solver-line", "solving…");
    button.replaceWith(out);
    try {
      const found = await requestExplore(game, moves);
      if (!current()) return;
      const who = game.sides[found.to_move - 1];
      out.textContent = `The solver's line: ${found.line}${found.line_complete ? "" : " …"} (${who}: ${found.score_text}, score ${found.score}).`;
    } catch (error) {
      if (current()) out.textContent = `No solver's line: ${error.message}`;
    }
  });
  p.append(button);
  return p;
}

// What the marks mean, in words and shapes as well as colours.
function legend(game) {
  const box = element("details", "threat-legend");
  box.open = true;
  box.append(element("summary", "", "What the marks mean"));
  const sample = (side, state, letter, parity) => {
    const mark = element("span", `threat sample ${side} ${state}`);
    mark.setAttribute("aria-hidden", "true");
    mark.append(element("b", "", letter), element("small", "", parity));
    return mark;
  };
  const [r, y] = [game.sides[0], game.sides[1]];
  const items = [
    [sample("red", "playable", r[0], "odd"), `${r[0]} / ${y[0]}: a cell that would complete a four for ${r} / ${y} (B: both); odd or even: its row, counted from 1 at the bottom (${r} wants odd rows, ${y} even)`],
    [sample("yellow", "playable", y[0], "even"), "solid ring: playable now (the lowest empty cell of its column)"],
    [sample("red", "later", r[0], "odd"), "dashed ring: playable later"],
    [sample("yellow", "dead", y[0], "even"), "dotted, struck through: dead (the game ends below it)"],
  ];
  const list = element("ul");
  for (const [mark, text] of items) {
    const item = element("li");
    item.append(mark, " ", text);
    list.append(item);
  }
  box.append(list);
  return box;
}
