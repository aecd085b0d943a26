// Everything the page asks the server: JSON requests, and the facts about games,
// rules, players and search values that the server owns (loaded once, read-only).

// GET (or `options`) a JSON answer; a non-2xx answer throws its `error` message.
export async function getJson(path, options) {
  const response = await fetch(path, options);
  let body;
  try { body = await response.json(); } catch (e) { body = { error: `HTTP ${response.status}` }; }
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

// The server runs one deep job per client at a time and refuses a second at once
// with this message; the page's own deep requests wait for their turn instead.
const BUSY = "this client already has";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// `getJson`, asked again (every 150 ms, for up to `patience` ms) while the server
// says this page's previous deep job is still running (it ends within ~0.1 s of
// being given up: see `analysis` below).
async function deepJson(path, options, patience = 5000) {
  const until = Date.now() + patience;
  for (;;) {
    try {
      return await getJson(path, options);
    } catch (error) {
      if (!error.message.startsWith(BUSY) || Date.now() > until || options?.signal?.aborted) throw error;
      await sleep(150);
    }
  }
}

// The solution row's request in flight: a newer one, or an AI's move, gives it up
// (the server stops a job whose client went away), so a stale solve never holds
// this page's deep place.
let analysis = null;

function giveUpAnalysis() {
  if (analysis) analysis.abort();
  analysis = null;
}

// An AI's move in a position: POST /api/move.
export function requestMove(body) {
  giveUpAnalysis();
  return deepJson("/api/move", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
}

// Every move's exact score: GET /api/analyze. Rejects with an AbortError when a newer
// analysis or an AI's move gave it up.
export function requestAnalysis(game, moves) {
  giveUpAnalysis();
  analysis = new AbortController();
  const params = new URLSearchParams({ pos: moves, game: game.kind, width: game.width, height: game.height });
  return deepJson(`/api/analyze?${params}`, { signal: analysis.signal });
}

// The shipped network's policy and value (GET /api/policy): one forward pass, answered at once.
// Null when no network plays this board: the solution shows alone.
export async function requestPolicy(game, moves) {
  const params = new URLSearchParams({ pos: moves, width: game.width, height: game.height });
  try { return await getJson(`/api/policy?${params}`); } catch (error) { return null; }
}

// The opening explorer of a position: GET /api/explore (every move's exact score, the
// games of the server's collection that played it, the best line).
export function requestExplore(game, moves) {
  const params = new URLSearchParams({ pos: moves, game: game.kind, width: game.width, height: game.height });
  return deepJson(`/api/explore?${params}`);
}

// Every move of a game graded by exact scores: GET /api/review.
export function requestReview(game, moves) {
  const params = new URLSearchParams({
    pos: moves, game: game.kind, width: game.width, height: game.height, rules: game.rules,
  });
  return deepJson(`/api/review?${params}`);
}

// Each side's threats and the rule, if one, that explains the verdict: GET /api/threats
// (answered at once: no solver).
export function requestThreats(game, moves) {
  const params = new URLSearchParams({ pos: moves, width: game.width, height: game.height, rules: game.rules });
  return getJson(`/api/threats?${params}`);
}

// A reviewed game's mistakes as exercises, every answer graded by the server:
// GET /api/practice (`side`: red, yellow, x, o or both).
export function requestPractice(game, moves, side) {
  const params = new URLSearchParams({
    pos: moves, side, game: game.kind, width: game.width, height: game.height, rules: game.rules,
  });
  return deepJson(`/api/practice?${params}`);
}

async function loadFacts() {
  try {
    const [info, players] = await Promise.all([getJson("/api/info"), getJson("/api/players")]);
    return { ...info, kinds: players.players, error: null };
  } catch (error) {
    return { games: [], rules: [], kinds: [], mate: null, mate_window: 0, solver: false, error: error.message };
  }
}

// games (kind, title, sides, default size, notation), rules, kinds (player menus),
// mate and mate_window (how the classic search scores a finished game), solver.
export const facts = Object.freeze(await loadFacts());

export function gameFacts(kind) {
  return facts.games.find((g) => g.kind === kind);
}
