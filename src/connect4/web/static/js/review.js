// The move list beside the board and the game review (GET /api/review): every ply
// with its mover and move, the verdict marks, each player's figures, the decisive
// move and the evaluation graph. main.js owns the state; this module draws it and
// reports clicks: `onJump(ply)` shows the position after `ply` moves.

const SVG = "http://www.w3.org/2000/svg";

// Each verdict's mark, word and meaning (the legend); null = not proven.
export const VERDICTS = [
  { key: "best", mark: "★", word: "best", meaning: "kept the best score" },
  { key: "good", mark: "✓", word: "good", meaning: "kept the result, not the fastest way" },
  { key: "mistake", mark: "?", word: "mistake", meaning: "a win became a draw, or a draw a loss" },
  { key: "blunder", mark: "??", word: "blunder", meaning: "a win became a loss" },
  { key: "unproven", mark: "·", word: "not proven", meaning: "not solved within the server's time" },
];
const BY_KEY = Object.fromEntries(VERDICTS.map((v) => [v.key, v]));

export function verdictOf(row) {
  return BY_KEY[row.verdict || "unproven"];
}

// The plies of `review` that still describe `line` (the game may have changed since).
export function agreement(review, line) {
  if (!review) return 0;
  let n = 0;
  while (n < line.length && n < review.moves.length && line[n] === review.moves[n]) n++;
  return n;
}

// A review row whose move lost something, for the position shown after `cursor` plies:
// the move played next there, graded mistake or blunder. The board marks its
// alternatives: best moves ★, the move played ✗.
export function hintsAt(review, line, cursor) {
  if (!review || cursor >= agreement(review, line)) return null;
  const row = review.plies[cursor];
  if (!row || (row.verdict !== "mistake" && row.verdict !== "blunder")) return null;
  // The board marks columns (cells) from 0; the API numbers moves from 1.
  return { best: row.best_move_numbers.map((n) => n - 1), played: row.move_number - 1, row };
}

// A score in Pons' convention as the page prints it: +3, −2, 0.
export function signed(score) {
  if (score === null || score === undefined) return "?";
  return score > 0 ? `+${score}` : score < 0 ? `−${-score}` : "0";
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ------------------------------------------------------------------ move list
// `line` is the whole game (moves after the shown position included), `cursor` the
// number of moves shown on the board. Clicking a move shows the position after it;
// a graded mistake or blunder shows the position before it, where the board marks
// the best moves.
export function drawMoveList(listEl, game, line, cursor, review, onJump) {
  const agree = agreement(review, line);
  const hinted = hintsAt(review, line, cursor);
  listEl.replaceChildren();
  const start = el("li");
  const startButton = el("button", "ply start", "Start");
  startButton.type = "button";
  startButton.dataset.ply = "0";
  startButton.setAttribute("aria-label", "the start: no move played");
  startButton.addEventListener("click", () => onJump(0));
  start.append(startButton);
  listEl.append(start);
  for (let i = 0; i < line.length; i++) {
    const ply = i + 1, side = 1 + (i % 2);
    const row = i < agree ? review.plies[i] : null;
    const item = el("li");
    const button = el("button", "ply");
    button.type = "button";
    button.dataset.ply = String(ply);
    const name = game.sides[side - 1];
    button.append(el("span", "num", `${ply}.`), el("span", `disc-icon p${side}${game.kind === "tictactoe" ? " ttt" : ""}`), " ",
      el("span", "who", name), " ", el("b", "move", line[i]));
    let spoken = `move ${ply}: ${name} ${line[i]}`;
    if (row) {
      const v = verdictOf(row);
      button.classList.add(`v-${v.key}`);
      button.dataset.verdict = v.key;
      const mark = el("span", "verdict", `${v.mark} ${v.word}`);
      button.append(" ", mark);
      spoken += `, ${v.word}`;
      if (v.key === "mistake" || v.key === "blunder") spoken += " (shows the position before it, best moves marked)";
    }
    if (ply > cursor) button.classList.add("future");
    const current = ply === cursor;
    button.classList.toggle("current", current);
    if (current) button.setAttribute("aria-current", "step");
    const examined = hinted && hinted.row.ply === ply;
    button.classList.toggle("examined", Boolean(examined));
    button.setAttribute("aria-label", spoken);
    const lost = row && (row.verdict === "mistake" || row.verdict === "blunder");
    button.addEventListener("click", () => onJump(lost ? ply - 1 : ply));
    item.append(button);
    listEl.append(item);
  }
  if (cursor === 0) { startButton.classList.add("current"); startButton.setAttribute("aria-current", "step"); }
  const shown = listEl.querySelector(".examined") || listEl.querySelector(".current");
  if (shown) scrollIntoList(listEl, shown);
}

// Scroll the list (not the page) so `item` is visible.
function scrollIntoList(listEl, item) {
  const top = item.offsetTop - listEl.offsetTop, bottom = top + item.offsetHeight;
  if (top < listEl.scrollTop) listEl.scrollTop = top;
  else if (bottom > listEl.scrollTop + listEl.clientHeight) listEl.scrollTop = bottom - listEl.clientHeight;
}

// ------------------------------------------------------------------ review panel
export function drawLegend(legendEl) {
  legendEl.replaceChildren(...VERDICTS.map((v) => {
    const item = el("li", `v-${v.key}`);
    item.append(el("span", "verdict", `${v.mark} ${v.word}`), `: ${v.meaning}`);
    return item;
  }));
}

// Each player's figures, the result and the decisive move.
export function drawSummary(summaryEl, game, review, onJump) {
  summaryEl.replaceChildren();
  const table = el("table", "review-players");
  const head = el("tr");
  for (const text of ["", "accuracy", "best", "good", "mistakes", "blunders"]) head.append(el("th", "", text));
  table.append(head);
  for (const p of review.players) {
    const tr = el("tr");
    const who = el("th");
    who.append(el("span", `disc-icon p${p.player}${game.kind === "tictactoe" ? " ttt" : ""}`), ` ${game.sides[p.player - 1]}`);
    const accuracy = p.accuracy === null ? "–" : `${Math.round(p.accuracy * 1000) / 10} %`;
    tr.append(who, el("td", "", accuracy), el("td", "", p.best), el("td", "", p.good),
      el("td", "", p.mistakes), el("td", "", p.blunders));
    tr.dataset.player = String(p.player);
    table.append(tr);
  }
  const result = el("p", "review-result", `Result: ${review.result}.`);
  const decisive = el("p", "review-decisive");
  if (review.decisive_ply) {
    const row = review.plies[review.decisive_ply - 1];
    const v = verdictOf(row);
    const link = el("button", `linklike v-${v.key}`, `${row.ply}. ${game.sides[row.player - 1]} ${row.label} (${v.mark} ${v.word})`);
    link.type = "button";
    link.id = "decisive-move";
    const lost = row.verdict === "mistake" || row.verdict === "blunder";
    link.addEventListener("click", () => onJump(lost ? row.ply - 1 : row.ply));
    decisive.append("Decisive move: ", link, " — the last move that changed the result.");
  } else {
    decisive.textContent = "No decisive move: the game ended as the first position's value says.";
  }
  summaryEl.append(table, result, decisive);
}

// The evaluation graph: the exact score after every ply from the first player's view
// (above the line: the first player wins; below: the second; a square-root scale),
// each point coloured by
// its move's verdict, the decisive ply marked, the shown position's ply a vertical
// line. Clicking (or Enter on) a point shows that position.
export function drawGraph(graphEl, game, review, cursor, onJump) {
  const values = review.evaluation;
  const n = values.length - 1;
  const width = 360, height = 150, left = 28, right = 8, top = 8, bottom = 20;
  const span = Math.max(1, ...values.filter((v) => v !== null).map(Math.abs));
  const x = (ply) => left + (n ? (ply * (width - left - right)) / n : 0);
  // A square-root scale: a slow win (+1) stands apart from a draw next to a quick one (+18).
  const y = (v) => top + ((1 - Math.sign(v) * Math.sqrt(Math.abs(v) / span)) * (height - top - bottom)) / 2;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", `evaluation graph: the exact score after each move, ${game.sides[0]}'s view`);
  const add = (tag, attrs, parent = svg) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    parent.append(node);
    return node;
  };
  add("rect", { x: left, y: top, width: width - left - right, height: (height - top - bottom) / 2, class: "ahead-1" });
  add("rect", { x: left, y: y(0), width: width - left - right, height: (height - top - bottom) / 2, class: "ahead-2" });
  add("line", { x1: left, x2: width - right, y1: y(0), y2: y(0), class: "zero" });
  add("text", { x: left - 4, y: top + 10, class: "axis", "text-anchor": "end" }).textContent = `+${span}`;
  add("text", { x: left - 4, y: y(0) + 4, class: "axis", "text-anchor": "end" }).textContent = "0";
  add("text", { x: left - 4, y: height - bottom, class: "axis", "text-anchor": "end" }).textContent = `−${span}`;
  add("text", { x: left + 4, y: top + 11, class: "axis side" }).textContent = `${game.sides[0]} wins ↑`;
  add("text", { x: left + 4, y: height - bottom - 4, class: "axis side" }).textContent = `${game.sides[1]} wins ↓`;
  add("text", { x: width - right, y: height - 6, class: "axis", "text-anchor": "end" }).textContent = `ply ${n}`;
  add("line", { x1: x(cursor), x2: x(cursor), y1: top, y2: height - bottom, class: "cursor" });
  if (review.decisive_ply) {
    const d = review.decisive_ply;
    add("line", { x1: x(d), x2: x(d), y1: top, y2: height - bottom, class: "decisive" });
    add("text", { x: x(d) + 3, y: height - bottom + 14, class: "axis decisive-label" }).textContent = `decisive: ${d}`;
  }
  let path = "";
  values.forEach((v, ply) => {
    if (v === null) return;
    path += `${path && values[ply - 1] !== null ? "L" : "M"}${x(ply).toFixed(1)},${y(v).toFixed(1)}`;
  });
  add("path", { d: path, class: "eval" });
  values.forEach((v, ply) => {
    if (v === null) return;
    const row = ply ? review.plies[ply - 1] : null;
    const verdict = row ? verdictOf(row) : null;
    const point = add("circle", {
      cx: x(ply), cy: y(v), r: ply === review.decisive_ply ? 6 : 4.5,
      class: `point ${verdict ? `v-${verdict.key}` : "start"}${ply === cursor ? " current" : ""}`,
      tabindex: 0, role: "button", "data-ply": ply,
    });
    const what = row ? `after move ${ply} (${game.sides[row.player - 1]} ${row.label}, ${verdict.word})` : "the start";
    const label = `${what}: ${signed(v)}`;
    point.setAttribute("aria-label", label);
    add("title", {}, point).textContent = label;
    point.addEventListener("click", () => onJump(ply));
    point.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onJump(ply); } });
  });
  graphEl.replaceChildren(svg);
}

// The line under the board when it marks a review's alternatives.
export function hintText(game, hints) {
  const row = hints.row, v = verdictOf(row);
  const place = game.kind === "tictactoe" ? "cell" : "column";
  const best = row.best_move_numbers.map((n) => game.notation[n - 1]).join(" or ");
  return `Move ${row.ply}: ${game.sides[row.player - 1]} played ${place} ${row.label} (✗, score ${signed(row.played_score)}), `
    + `a ${v.word}; best: ${place} ${best} (★, score ${signed(row.best_score)}).`;
}
