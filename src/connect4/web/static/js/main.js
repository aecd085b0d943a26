// connect4 browser app: plain JavaScript modules, no build step.
// The page keeps the game as a move string (the same notation as the API and the
// URL: ?pos=4453), replays it locally to draw the board, and asks the server
// for AI moves (POST /api/move) and solutions (GET /api/analyze).
// This module owns the page's one mutable state and the controls that change it.
import { facts, gameFacts, requestMove, requestPractice, requestReview } from "./api.js";
import { drawBoard } from "./board.js";
import { keysHelp, moveForKey, stepFocus } from "./keys.js";
import { clampSpec, defaultAi, fillKinds, fillOptions, isHuman, kindInfo, playerSpec, setSpec, specProblem } from "./players.js";
import { bindAppearance, preference, setPreference } from "./prefs.js";
import { drawGraph, drawLegend, drawMoveList, drawSummary, hintText, hintsAt, agreement } from "./review.js";
import { label, legal, replay } from "./rules.js";
import { showSolution } from "./solution.js";
import { showExplorer } from "./explorer.js";
import { showThreats } from "./threats.js";
import { asking, drawPuzzle, gradePuzzle, hintPuzzle, newPuzzle, puzzlePosition, requestPuzzle, revealPuzzle, threatsShown } from "./puzzles.js";
import { currentExercise, drawPractice, grade, hidesAnswers, leave, newSession, next, practiceHints, reveal } from "./practice.js";
import { clearAiPanel, showStats, showTree } from "./tree.js";

const state = {
  game: "connect4",
  rules: "standard",
  width: 7,
  height: 6,
  moves: "",        // move string in the game's notation
  redo: [],         // undone moves, most recent last
  thinking: false,
  paused: false,
  generation: 0,    // bumps on every change, so stale answers are dropped
  lastDrop: null,   // index of the move to animate
  solutionRequest: 0,
  aiLog: [],        // the AI answers on the current line of play: {answer, who, game}
  review: null,     // the last /api/review answer for this game (its `moves` may lag the line)
  reviewing: 0,     // the review request in flight (0: none); a newer one drops older answers
  reviewError: "",
  keyFocus: null,   // the board's move that had the keyboard's focus, given back after a redraw
  practice: null,   // "Practise your mistakes": the session (practice.js), or null
  practising: 0,    // the practice request in flight (0: none)
  puzzle: null,     // the puzzle on the board (puzzles.js), or null
  puzzleRequest: 0, // bumps on every puzzle asked for or closed: a stale answer is dropped
};

const $ = (id) => document.getElementById(id);

// The game being played, as the rules, board and solution modules take it.
function currentGame() {
  const { sides, notation } = gameFacts(state.game);
  return { kind: state.game, rules: state.rules, width: state.width, height: state.height, sides, notation };
}

// The whole game: the moves on the board and those after them (the redo stack), which
// the move list shows and a click or an arrow key brings back.
function line() {
  return state.moves + [...state.redo].reverse().join("");
}

// ------------------------------------------------------------------ drawing
function render() {
  const game = currentGame();
  const board = replay(game, state.moves);
  const boardEl = $("board");
  const exercise = practiceExercise() || asking(state.puzzle, state.moves);
  const hints = board.error ? null : exercise ? (state.practice ? practiceHints(state.practice) : null) : hintsAt(state.review, line(), state.moves.length);
  sizeBoardPanel(game);
  drawBoard(boardEl, game, board, {
    legal: (move) => legal(game, board, move),
    onMove: humanMove,
    animate: state.lastDrop === board.ply,
    hints,
  });
  const reviewHint = hints && !exercise;  // an exercise's marks speak in its panel
  $("review-hint").hidden = !reviewHint;
  $("review-hint").textContent = reviewHint ? hintText(game, hints) : "";
  renderMoves(game);
  boardEl.classList.toggle("blocked", state.thinking || board.over || (!isHuman(board.toMove) && !exercise));
  restoreKeyFocus(boardEl);
  state.lastDrop = null;

  const names = game.sides;
  let status;
  if (board.error) status = board.error;
  else if (board.over) {
    const score = board.score ? ` (${board.score[0]}–${board.score[1]} fours)` : "";
    status = board.winner ? `${names[board.winner - 1]} wins${score}!` : `Draw${score}.`;
  } else {
    const who = names[board.toMove - 1];
    const spec = exercise ? "human" : playerSpec(board.toMove);  // an exercise: the user answers
    if (asking(state.puzzle, state.moves)) status = `Find the best move for ${who} — click a column.`;
    else status = spec === "human" ? `${who} to move — click a ${game.kind === "tictactoe" ? "cell" : "column"}.` : `${who} (${spec}) to move.`;
    if (board.score) status += ` Fours so far: ${board.score[0]}–${board.score[1]}.`;
  }
  $("status").textContent = status;
  $("status").dataset.over = board.over ? "1" : "0";
  $("undo").disabled = state.moves.length === 0;
  $("redo").disabled = state.redo.length === 0;
  $("continue").hidden = !(state.paused && !board.over && !isHuman(board.toMove) && !state.thinking);
  $("pos-text").textContent = state.moves || "(empty)";
  $("keys-help").textContent = keysHelp(game);
  $("settings-summary").textContent = `· ${names[0]}: ${playerSpec(1)} · ${names[1]}: ${playerSpec(2)}`
    + (game.kind === "connect4" ? ` · ${game.width} × ${game.height}` : ` · ${gameFacts(game.kind).title}`);
  $("share").href = shareUrl();
  document.querySelectorAll("fieldset.player").forEach((fs) => {
    fs.classList.toggle("to-move", !board.over && Number(fs.dataset.side) === board.toMove);
  });
  const request = ++state.solutionRequest;
  const moves = state.moves;
  const current = () => request === state.solutionRequest && moves === state.moves;
  const hide = hidesAnswers(state.practice) || asking(state.puzzle, state.moves);  // an exercise asked: no score gives it away
  showSolution(game, board, moves, $("show-solution").checked && !hide, current);
  showExplorer(game, board, moves, $("show-explorer").checked && !hide, current, humanMove);
  showThreats(game, board, moves, threatsShown(state.puzzle, moves, $("show-threats").checked), current);
  drawPractice(game, state.practice, PRACTICE_ACTIONS);
  drawPuzzle(state.puzzle, names, PUZZLE_ACTIONS);
  return board;
}

// The board's size in cells for the style sheet (tic-tac-toe's cells are one and a half
// cells wide, with gaps): the cell fits the panel's width and the screen's height.
function sizeBoardPanel(game) {
  const panel = $("board-panel");
  const [cols, rows] = game.kind === "tictactoe" ? [4.8, 5] : [game.width, game.height];
  panel.style.setProperty("--cols", String(cols));
  panel.style.setProperty("--rows", String(rows));
}

// The keyboard's focus in the board survives the redraw after a move (and the AI's
// turn, while the board's buttons are disabled); a mouse click elsewhere ends it.
function restoreKeyFocus(boardEl) {
  if (state.keyFocus === null) return;
  const button = boardEl.querySelector(`[data-col="${state.keyFocus}"]`);
  if (button && !button.disabled && document.activeElement !== button) button.focus({ preventScroll: true });
}

// The move list and the review panel.
function renderMoves(game) {
  const full = line();
  drawMoveList($("move-list"), game, full, state.moves.length, state.review, jumpTo);
  $("review").disabled = full.length === 0 || state.reviewing !== 0;
  $("practice-start").disabled = !state.review || state.review.moves !== full || state.practising !== 0;
  const status = $("review-status");
  const stale = state.review && state.review.moves !== full;
  let text = "";
  if (state.reviewing) text = "Reviewing every move…";
  else if (state.reviewError) text = `Review failed: ${state.reviewError}`;
  else if (stale) text = `The game changed after the review (which covers ${agreement(state.review, full)} of its moves): press Review again.`;
  status.hidden = !text;
  status.classList.toggle("error", Boolean(state.reviewError) && !state.reviewing);
  status.replaceChildren();
  if (state.reviewing) {
    const spin = document.createElement("span");
    spin.className = "spinner small";
    spin.setAttribute("aria-hidden", "true");
    status.append(spin, " ");
  }
  status.append(text);
  $("review-panel").hidden = !state.review;
  if (state.review) {
    drawSummary($("review-summary"), game, state.review, jumpTo);
    drawGraph($("eval-graph"), game, state.review, state.moves.length, jumpTo);
  }
}

function shareUrl() {
  const params = new URLSearchParams();
  params.set("pos", state.moves);
  if (state.redo.length) params.set("next", [...state.redo].reverse().join(""));
  if (state.game !== "connect4") params.set("game", state.game);
  if (state.rules !== "standard") params.set("rules", state.rules);
  if (state.game === "connect4" && (state.width !== 7 || state.height !== 6)) {
    params.set("width", state.width); params.set("height", state.height);
  }
  params.set("p1", playerSpec(1));
  params.set("p2", playerSpec(2));
  if (state.review || state.reviewing) params.set("review", "1");
  if (state.puzzle) params.set("puzzle", state.puzzle.answer.id);
  return `?${params.toString()}`;
}

function syncUrl() {
  history.replaceState(null, "", shareUrl());
}

function showError(message) {
  const el = $("error");
  el.textContent = message || "";
  el.hidden = !message;
}

// ------------------------------------------------------------------ moves
function humanMove(move) {
  if (practiceExercise()) {  // an answer to the exercise on the board: the server's grade
    if (grade(state.practice, move)) render();
    return;
  }
  if (asking(state.puzzle, state.moves)) {  // an answer to the puzzle: the server's right moves
    gradePuzzle(state.puzzle, Number(label(currentGame(), move)), render);
    showPuzzleMoves();
    return;
  }
  const game = currentGame();
  const board = replay(game, state.moves);
  if (state.thinking || board.over || !isHuman(board.toMove) || !legal(game, board, move)) return;
  const played = label(game, move);
  state.moves += played;
  // The game's next move again keeps the moves after it; another move starts a new line.
  if (state.redo.length && state.redo[state.redo.length - 1] === played) state.redo.pop();
  else state.redo = [];
  state.lastDrop = state.moves.length;
  state.paused = false;
  afterChange(state.redo.length === 0);
}

function afterChange(letAiMove) {
  state.generation += 1;
  syncUrl();
  const board = render();
  if (letAiMove && !board.over && !board.error && !isHuman(board.toMove)) aiMove();
}

async function aiMove() {
  const game = currentGame();
  const side = replay(game, state.moves).toMove;
  const spec = playerSpec(side);
  const who = game.sides[side - 1];
  const generation = state.generation;
  setThinking(true, `${who} (${spec}) is thinking…`);
  showError("");
  try {
    const answer = await requestMove({
      pos: state.moves, player: spec, game: state.game, rules: state.rules,
      width: state.width, height: state.height, tree: true,
    });
    if (generation !== state.generation) return;  // the game changed meanwhile
    setThinking(false);
    state.moves += answer.move_label;
    state.redo = [];
    state.lastDrop = state.moves.length;
    state.aiLog = state.aiLog.filter((entry) => state.moves.startsWith(entry.answer.pos_after));
    state.aiLog.push({ answer, who: `${who}: ${spec}`, game });
    showStats(answer, `${who}: ${spec}`, game);
    showTree(answer.tree, answer.pos, game, answer.stats?.source);
    // Two AIs play on by themselves, with a short pause to watch.
    const next = replay(game, state.moves);
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
  const game = currentGame();
  do {
    state.redo.push(state.moves.slice(-1));
    state.moves = state.moves.slice(0, -1);
  } while (state.moves.length && !isHuman(replay(game, state.moves).toMove) && (isHuman(1) || isHuman(2)));
  state.paused = true;
  showLastAiMove();
  afterChange(false);
}

function redo() {
  if (!state.redo.length) return;
  cancelThinking();
  state.moves += state.redo.pop();
  state.lastDrop = state.moves.length;
  state.paused = true;
  showLastAiMove();
  afterChange(false);
}

// The AI panel after undo or redo: the last AI move still on the board, or none.
function showLastAiMove() {
  const shown = state.aiLog.filter((entry) => state.moves.startsWith(entry.answer.pos_after)).pop();
  if (!shown) { clearAiPanel(); return; }
  showStats(shown.answer, shown.who, shown.game);
  showTree(shown.answer.tree, shown.answer.pos, shown.game, shown.answer.stats?.source);
}

// Show the position after `ply` moves of the game (the moves after it stay in the list);
// the AI waits, as after undo.
function jumpTo(ply) {
  const full = line();
  const target = Math.max(0, Math.min(full.length, ply));
  if (target === state.moves.length) { render(); return; }
  cancelThinking();
  if (target === state.moves.length + 1) state.lastDrop = target;
  state.moves = full.slice(0, target);
  state.redo = [...full.slice(target)].reverse();
  state.paused = true;
  showLastAiMove();
  afterChange(false);
}

// Grade every move of the game (the whole line, also mid-game) by exact scores.
async function startReview() {
  const game = currentGame();
  const moves = line();
  if (!moves.length) return;
  const request = (state.reviewing = Date.now() + Math.random());
  state.reviewError = "";
  syncUrl();
  render();
  try {
    const answer = await requestReview(game, moves);
    if (request !== state.reviewing) return;
    state.review = answer;
    $("practice-side").value = defaultPracticeSide();
  } catch (error) {
    if (request !== state.reviewing) return;
    state.reviewError = error.message;
  }
  state.reviewing = 0;
  syncUrl();
  render();
}

function forgetReview() {
  state.practice = null;
  state.practising = 0;
  state.review = null;
  state.reviewing = 0;
  state.reviewError = "";
}

// ------------------------------------------------------------------ practice
// The exercise asked on the board now; a position stepped away from ends the practice.
function practiceExercise() {
  const exercise = currentExercise(state.practice);
  if (exercise && state.moves !== exercise.position) leave(state.practice);
  return currentExercise(state.practice);
}

// The reviewed side's mistakes as exercises, from the server; the board goes to the first.
async function startPractice() {
  const game = currentGame();
  const side = $("practice-side").value;
  const request = (state.practising = Date.now() + Math.random());
  const box = $("practice");
  box.hidden = false;
  box.replaceChildren("Preparing the exercises…");
  renderMoves(game);
  try {
    const answer = await requestPractice(game, state.review.moves, side);
    if (request !== state.practising) return;
    const name = side === "both" ? "either side" : game.sides[Number(side) - 1];
    state.practice = newSession(answer, name);
    showError("");
  } catch (error) {
    if (request !== state.practising) return;
    showError(`Practice failed: ${error.message}`);
  }
  state.practising = 0;
  showExercise();
}

// The board at the exercise's position (the game's moves after it kept), or as it is.
function showExercise() {
  const exercise = currentExercise(state.practice);
  if (exercise) {
    jumpTo(exercise.position.length);
    $("board-wrap").scrollIntoView({ block: "nearest" });
  } else render();
}

const PRACTICE_ACTIONS = {
  reveal: () => { reveal(state.practice); render(); },
  next: () => { next(state.practice); showExercise(); },
  stop: () => { leave(state.practice); render(); },
  close: () => { state.practice = null; render(); },
};

// ------------------------------------------------------------------ puzzles
async function startPuzzle(id) {
  const request = ++state.puzzleRequest;
  try {
    const answer = await requestPuzzle(id);
    if (request !== state.puzzleRequest) return;
    cancelThinking();
    forgetReview();
    Object.assign(state, { game: "connect4", rules: "standard", width: answer.width, height: answer.height, redo: [], paused: false });
    setSpec(1, "human", onPlayersChanged);  // the user plays the puzzle's side, the page the replies
    setSpec(2, "human", onPlayersChanged);
    state.puzzle = newPuzzle(answer);
    syncControls();
    state.moves = answer.position;
    showError("");
    state.generation += 1;
    syncUrl();
    render();
  } catch (error) {
    if (request === state.puzzleRequest) showError(`Puzzle failed: ${error.message}`);
  }
}

// The board at the puzzle's position after the moves played in it (no AI moves).
function showPuzzleMoves() {
  state.moves = puzzlePosition(state.puzzle);
  state.redo = [];
  state.lastDrop = state.moves.length;
  state.generation += 1;
  syncUrl();
  render();
}

const PUZZLE_ACTIONS = {
  hint: () => { hintPuzzle(state.puzzle, render); render(); },
  reveal: () => { revealPuzzle(state.puzzle, render); showPuzzleMoves(); },
  next: () => startPuzzle(null),
  close: () => { state.puzzle = null; state.puzzleRequest += 1; syncUrl(); render(); },
};

// The side a practice asks about first: the one human against an AI, else both.
function defaultPracticeSide() {
  const humans = [1, 2].filter((side) => isHuman(side));
  return humans.length === 1 ? String(humans[0]) : "both";
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
  state.aiLog = [];
  state.puzzle = null;
  state.puzzleRequest += 1;
  forgetReview();
  clearAiPanel();
  afterChange(true);
}

// ------------------------------------------------------------------ set-up
// The game, board and players a link names; what it names but the page cannot play is
// replaced by the default and listed in `notes`, with the reason.
function readUrl(notes) {
  const params = new URLSearchParams(location.search);
  const shown = (text) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
  const kind = params.get("game");
  if (gameFacts(kind)) state.game = kind;
  else if (kind) notes.push(`The link's game '${shown(kind)}' is unknown: playing ${gameFacts(state.game).title}.`);
  const rules = params.get("rules");
  if (facts.rules.includes(rules)) state.rules = rules;
  else if (rules) notes.push(`The link's rules '${shown(rules)}' are unknown (rules: ${facts.rules.join(", ")}): playing ${state.rules}.`);
  const { width, height, sizes } = gameFacts(state.game);
  [state.width, state.height] = [width, height];
  const size = `${params.get("width") || width}x${params.get("height") || height}`;
  if (state.game === "connect4" && (params.has("width") || params.has("height"))) {
    if ((sizes || []).includes(size)) [state.width, state.height] = size.split("x").map(Number);
    else notes.push(`The link's board ${shown(size)} is not one this server plays (${(sizes || []).join(", ")}): playing ${width}x${height}.`);
  }
  if (state.game !== "connect4") state.rules = "standard";
  state.moves = (params.get("pos") || "").trim();
  // The game's moves after the position shown: the move list offers them.
  state.redo = [...(params.get("next") || "").trim()].reverse();
  return [params.get("p1") || params.get("red"), params.get("p2") || params.get("yellow")];
}

// A link's moves are checked like the API checks them: a position that is not a game
// here (a character that is no move, a full column, a move after the end) is ignored,
// never listed as moves; so are the link's next moves that do not follow it. Returns
// the error to show ("" when the link's moves are a game).
function dropBadLine() {
  const game = currentGame();
  const shown = (text) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
  const position = replay(game, state.moves);
  if (position.error) {
    const bad = `Bad position in the URL ('${shown(state.moves)}'): ${position.error}; it was ignored.`;
    [state.moves, state.redo] = ["", []];
    return bad;
  }
  const whole = replay(game, line());
  if (!whole.error) return "";
  state.redo = [];
  return `Bad next moves in the URL: ${whole.error}; they were ignored.`;
}

// Each side's player: the link's spec if the page can play it, else the default with a note.
function choosePlayers(specs, notes) {
  const names = gameFacts(state.game).sides;
  for (const side of [1, 2]) {
    const spec = specs[side - 1];
    const fallback = side === 1 ? "human" : defaultAi(state.game, state.rules);
    const problem = spec ? specProblem(spec, state.game) : "";
    const shown = spec && spec.length > 60 ? `${spec.slice(0, 60)}…` : spec;
    if (problem) {
      notes.push(`${names[side - 1]}: the link's player '${shown}' was ignored (${problem}); ${names[side - 1]} is ${fallback}.`);
    }
    const [clamped, cuts] = spec && !problem ? clampSpec(spec) : [fallback, []];
    if (cuts.length) notes.push(`${names[side - 1]}'s ${cuts.join("; ")}: ${names[side - 1]} is ${clamped}.`);
    setSpec(side, clamped, onPlayersChanged);
  }
}

function showNotes(notes) {
  const box = $("notice");
  box.replaceChildren(...notes.map((note) => Object.assign(document.createElement("p"), { textContent: note })));
  box.hidden = notes.length === 0;
}

// The board menu: the sizes the server plays.
function fillSizes() {
  const sizes = gameFacts("connect4").sizes;
  if (!sizes || !sizes.length) return;
  $("size").replaceChildren(...sizes.map((size) => new Option(size.replace("x", " × "), size)));
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
  const names = gameFacts(state.game).sides;
  document.querySelectorAll(".side-name").forEach((el, i) => { el.textContent = names[i]; });
  $("practice-side").replaceChildren(new Option("both sides", "both"), new Option(names[0], "1"), new Option(names[1], "2"));
  document.querySelectorAll(".disc-icon").forEach((el) => el.classList.toggle("ttt", !c4));
}

function onSettingsChanged() {
  showNotes([]);  // the link's notice is about the link's settings
  state.game = $("game").value;
  state.rules = state.game === "connect4" ? $("rules").value : "standard";
  if (state.game === "connect4") [state.width, state.height] = $("size").value.split("x").map(Number);
  else ({ width: state.width, height: state.height } = gameFacts(state.game));
  syncControls();
  fillKinds(state.game, onPlayersChanged);
  if (!isHuman(2) || !kindInfo(playerSpec(2).split(":")[0])) setSpec(2, defaultAi(state.game, state.rules), onPlayersChanged);
  newGame();
}

// Both sides played on this page, every move's score shown as hints (kept on).
function twoHumans() {
  setSpec(1, "human", onPlayersChanged);
  setSpec(2, "human", onPlayersChanged);
  setPreference($("show-solution"), true);
  onPlayersChanged();
}

function onPlayersChanged() {
  showNotes([]);
  cancelThinking();  // an answer for the old players is dropped
  state.paused = false;
  state.aiLog = [];
  clearAiPanel();
  afterChange(true);
}

// Arrow keys belong to text fields and menus while they have the focus.
// Inputs a key goes to only as a click would (a ticked box keeps the focus): the page's keys still work there.
const KEYLESS_INPUTS = ["checkbox", "radio", "button", "submit", "reset", "range", "color"];

function typing(target) {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !KEYLESS_INPUTS.includes(target.type);
  return target.isContentEditable || ["SELECT", "TEXTAREA"].includes(target.tagName);
}

function start() {
  if (facts.error) {
    showError(`Cannot load the game facts from the server: ${facts.error}`);
    return;
  }
  const notes = [];
  const puzzleLink = new URLSearchParams(location.search).get("puzzle");  // before syncUrl drops it
  fillSizes();
  const specs = readUrl(notes);
  const badLink = dropBadLine();
  if (badLink) notes.push(badLink);
  syncControls();
  fillKinds(state.game, onPlayersChanged);
  choosePlayers(specs, notes);
  showNotes(notes);
  for (const side of [1, 2]) {
    $(`p${side}-kind`).addEventListener("change", () => { fillOptions(side, {}, onPlayersChanged); onPlayersChanged(); });
  }
  $("game").addEventListener("change", onSettingsChanged);
  $("rules").addEventListener("change", onSettingsChanged);
  $("size").addEventListener("change", onSettingsChanged);
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("continue").addEventListener("click", () => { state.paused = false; render(); aiMove(); });
  preference($("show-solution"), "hints");
  $("show-solution").addEventListener("change", () => render());
  $("show-explorer").addEventListener("change", () => render());
  $("show-threats").addEventListener("change", () => render());
  $("practice-start").addEventListener("click", startPractice);
  $("puzzle-start").addEventListener("click", () => startPuzzle(null));
  bindAppearance($("patterns"), $("big-text"));
  $("two-humans").addEventListener("click", twoHumans);
  // A phone shows the board first: the settings fold away (their summary stays).
  if (window.matchMedia("(max-width: 759px)").matches) $("settings").open = false;
  $("review").addEventListener("click", startReview);
  drawLegend($("review-legend"));
  $("board").addEventListener("focusin", (e) => {
    if (e.target.matches(":focus-visible")) state.keyFocus = e.target.dataset.col ?? null;
  });
  document.addEventListener("focusin", (e) => { if (!$("board").contains(e.target)) state.keyFocus = null; });
  document.addEventListener("mousedown", () => { state.keyFocus = null; });
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); undo(); }
    if ((e.ctrlKey || e.metaKey) && e.key === "y") { e.preventDefault(); redo(); }
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    const inBoard = e.target instanceof HTMLElement && $("board").contains(e.target);
    if (inBoard && stepFocus($("board"), currentGame(), e.target, e.key)) { e.preventDefault(); return; }
    if (state.puzzle && e.key === "n") { e.preventDefault(); PUZZLE_ACTIONS.next(); return; }
    if (state.puzzle && e.key === "s" && !state.puzzle.done) { e.preventDefault(); PUZZLE_ACTIONS.reveal(); return; }
    if (state.puzzle && e.key === "h" && !state.puzzle.done) { e.preventDefault(); PUZZLE_ACTIONS.hint(); return; }
    const move = moveForKey(currentGame(), e.key);
    if (move >= 0) { e.preventDefault(); humanMove(move); return; }
    const step = { ArrowLeft: state.moves.length - 1, ArrowRight: state.moves.length + 1, Home: 0, End: line().length }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    jumpTo(step);
  });
  const reviewLink = new URLSearchParams(location.search).get("review") === "1";
  const shown = replay(currentGame(), state.moves);
  state.paused = (!shown.over && !isHuman(shown.toMove) && state.moves.length > 0) || state.redo.length > 0;
  afterChange(!state.paused);
  if (reviewLink && line().length) startReview();
  if (puzzleLink) startPuzzle(puzzleLink);
  document.body.dataset.ready = "1";
}

// Modules run after the document is parsed (and after the server's facts arrived).
start();
