// The page's remembered preferences (localStorage): colour-blind-safe discs, bigger
// text, and the solution row shown as hints. Each is a checkbox whose value is kept
// and applied on every change; a browser that keeps nothing (private mode) still works.

const PREFIX = "connect4.";

function stored(name) {
  try { return localStorage.getItem(PREFIX + name); } catch (e) { return null; }
}

function store(name, on) {
  try { localStorage.setItem(PREFIX + name, on ? "1" : "0"); } catch (e) { /* not kept */ }
}

// Bind `input` (a checkbox) to the preference `name`: its kept value first (else the
// box's own), then `apply(on)` now and after every change.
export function preference(input, name, apply = () => {}) {
  const kept = stored(name);
  if (kept !== null) input.checked = kept === "1";
  apply(input.checked);
  input.addEventListener("change", () => { store(name, input.checked); apply(input.checked); });
}

// Set a bound preference's box from code (kept, applied by its listeners).
export function setPreference(input, on) {
  if (input.checked === on) return;
  input.checked = on;
  input.dispatchEvent(new Event("change"));
}

// The appearance options: classes on the root element the style sheet reads.
export function bindAppearance(patterns, bigText) {
  const root = document.documentElement;
  preference(patterns, "patterns", (on) => root.classList.toggle("patterns", on));
  preference(bigText, "big-text", (on) => root.classList.toggle("big-text", on));
}
