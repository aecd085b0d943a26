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

// An AI's move in a position: POST /api/move.
export function requestMove(body) {
  return getJson("/api/move", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
}

// Every move's exact score: GET /api/analyze.
export function requestAnalysis(game, moves) {
  const params = new URLSearchParams({ pos: moves, game: game.kind, width: game.width, height: game.height });
  return getJson(`/api/analyze?${params}`);
}

// Every move of a game graded by exact scores: GET /api/review.
export function requestReview(game, moves) {
  const params = new URLSearchParams({
    pos: moves, game: game.kind, width: game.width, height: game.height, rules: game.rules,
  });
  return getJson(`/api/review?${params}`);
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
