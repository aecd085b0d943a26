// Building the page's elements: the few helpers every panel (puzzles, practice,
// threats) draws with, written once.

// A new element: its class (none when empty) and its text (none when undefined).
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A plain button (not a form's submit) with its id, its label and what a click does.
export function button(id, text, onClick) {
  const node = element("button", "", text);
  node.type = "button";
  node.id = id;
  node.addEventListener("click", onClick);
  return node;
}
