// The two player menus: a kind per side and its spec options, read back as a
// spec string ("alphabeta:depth=5"), the notation the API and the URL use.
import { facts, gameFacts } from "./api.js";

const $ = (id) => document.getElementById(id);
const fieldsetOf = (side) => document.querySelector(`fieldset.player[data-side="${side}"]`);

export function playerSpec(side) {
  const fieldset = fieldsetOf(side);
  const kind = fieldset.querySelector(".kind").value;
  const parts = [];
  fieldset.querySelectorAll(".options [data-key]").forEach((input) => {
    const value = input.value.trim();
    if (value !== "" && value !== (input.dataset.default || "")) parts.push(`${input.dataset.key}=${value}`);
  });
  return parts.length ? `${kind}:${parts.join(",")}` : kind;
}

export function isHuman(side) {
  return playerSpec(side) === "human";
}

export function kindInfo(name) {
  return facts.kinds.find((k) => k.kind === name);
}

// The kinds that play `gameKind` in both menus, keeping each side's choice if it can.
export function fillKinds(gameKind, onChange) {
  for (const side of [1, 2]) {
    const select = $(`p${side}-kind`);
    const previous = select.value;
    select.innerHTML = "";
    select.add(new Option("human (click to move)", "human"));
    for (const kind of facts.kinds) {
      if (!kind.games.includes(gameKind)) continue;
      const option = new Option(kind.kind, kind.kind);
      option.title = kind.description;
      select.add(option);
    }
    if ([...select.options].some((o) => o.value === previous)) select.value = previous;
    fillOptions(side, {}, onChange);
  }
}

// The option inputs of a side's kind, filled with `values` (else the defaults).
export function fillOptions(side, values, onChange) {
  const fieldset = fieldsetOf(side);
  const box = fieldset.querySelector(".options");
  box.innerHTML = "";
  const kind = fieldset.querySelector(".kind").value;
  const info = kindInfo(kind);
  if (!info) return;
  if ((kind === "alphabeta" || kind === "minimax") && kindInfo("alphabeta") && kindInfo("minimax")) {
    box.append(pruningToggle(side, fieldset, kind, onChange));
  }
  for (const [key, option] of Object.entries(info.options)) {
    if (key === "seed") continue;
    const wrap = document.createElement("label");
    wrap.title = option.description;
    wrap.append(`${key} `);
    let input;
    if (option.choices && option.choices.length) {
      input = document.createElement("select");
      if (!option.default) input.add(new Option("(default)", ""));
      for (const choice of option.choices) input.add(new Option(choice, choice));
    } else {
      input = document.createElement("input");
      input.size = 4;
      input.placeholder = option.default || "";
    }
    input.dataset.key = key;
    input.dataset.default = option.default || "";
    input.value = values[key] !== undefined ? values[key] : (option.default || "");
    input.addEventListener("change", onChange);
    wrap.append(input);
    box.append(wrap);
  }
}

// Pruning on = alpha-beta, off = plain minimax (same depth and heuristic).
function pruningToggle(side, fieldset, kind, onChange) {
  const wrap = document.createElement("label");
  wrap.title = "alpha-beta pruning: same value, far fewer nodes";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.className = "pruning";
  box.checked = kind === "alphabeta";
  box.addEventListener("change", () => {
    const kept = {};
    fieldset.querySelectorAll(".options [data-key]").forEach((el) => { if (el.value) kept[el.dataset.key] = el.value; });
    fieldset.querySelector(".kind").value = box.checked ? "alphabeta" : "minimax";
    const other = kindInfo(fieldset.querySelector(".kind").value);
    for (const key of Object.keys(kept)) if (!(key in other.options)) delete kept[key];
    fillOptions(side, kept, onChange);
    onChange();
  });
  wrap.append(box, " pruning");
  return wrap;
}

// Select a spec string's kind and options in a side's menu (unknown kinds are ignored).
export function setSpec(side, spec, onChange) {
  const [kind, rest] = spec.includes(":") ? [spec.slice(0, spec.indexOf(":")), spec.slice(spec.indexOf(":") + 1)] : [spec, ""];
  const select = $(`p${side}-kind`);
  if (![...select.options].some((o) => o.value === kind)) return;
  select.value = kind;
  const values = {};
  for (const item of rest.split(",")) {
    const [k, v] = item.split("=");
    if (k && v !== undefined) values[k.trim()] = v.trim();
  }
  fillOptions(side, values, onChange);
}

// Numbers as the server reads them (ASCII digits; no "inf", "nan" or "1_0").
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

// Why a spec (from a link) cannot be selected for `gameKind`: "" when it can.
export function specProblem(spec, gameKind) {
  const colon = spec.indexOf(":");
  const [kind, rest] = colon < 0 ? [spec.trim(), ""] : [spec.slice(0, colon).trim(), spec.slice(colon + 1)];
  if (kind === "human") return "";
  const playable = facts.kinds.filter((k) => k.games.includes(gameKind)).map((k) => k.kind);
  if (kind === "cmd" || kind === "kaggle") {
    return `${kind} players run programs, which this web app never does`;
  }
  const info = kindInfo(kind);
  if (!info) return `there is no player '${kind}' (players: human, ${playable.join(", ")})`;
  if (!info.games.includes(gameKind)) return `${kind} does not play ${gameFacts(gameKind).title}`;
  for (const item of rest.split(",")) {
    if (!item.trim()) continue;
    const [key, value] = item.split("=").map((part) => (part || "").trim());
    const option = info.options[key];
    if (!option) return `${kind} has no option '${key}' (options: ${Object.keys(info.options).join(", ")})`;
    if (option.choices && option.choices.length && !option.choices.includes(value)) {
      return `${kind}'s ${key} is one of ${option.choices.join(", ")}, not '${value}'`;
    }
    if (option.low !== null && option.low !== undefined && !(option.integer ? INTEGER : NUMBER).test(value)) {
      return `${kind}'s ${key} is ${option.integer ? "a whole number" : "a number"}, not '${value}'`;
    }
  }
  return "";
}

// A spec (from a link) within what this server allows: each number within its
// option's bounds (/api/players), a time within the server's move time (/api/info's
// limits). Returns [spec, notes], a note for each value changed, e.g. "time clamped
// to 19.5 s, the server's limit (the link asked for 3600 s)".
export function clampSpec(spec) {
  const colon = spec.indexOf(":");
  const info = kindInfo(spec.slice(0, colon).trim());
  if (colon < 0 || !info) return [spec, []];
  const notes = [];
  const items = spec.slice(colon + 1).split(",").map((item) => {
    const [key, value] = item.split("=").map((part) => (part || "").trim());
    const option = info.options[key];
    if (!option || option.low === null || option.high === null || value === "") return item;
    const unit = key === "time" ? " s" : "";
    const serverMost = key === "time" && facts.limits ? facts.limits.move_seconds : Infinity;
    const [most, why] = serverMost < option.high ? [serverMost, "the server's limit"] : [option.high, `the most ${info.kind} takes`];
    const number = Number(value);
    let bound = null;
    if (number > most) { bound = most; notes.push(`${key} clamped to ${most}${unit}, ${why} (the link asked for ${value}${unit})`); }
    if (number < option.low) { bound = option.low; notes.push(`${key} raised to ${option.low}${unit}, the least ${info.kind} takes (the link asked for ${value}${unit})`); }
    return bound === null ? item : `${key}=${bound}`;
  });
  return [`${spec.slice(0, colon)}:${items.join(",")}`, notes];
}

// The strongest AI that plays this game and rule set.
export function defaultAi(gameKind, rules) {
  const names = facts.kinds.filter((k) => k.games.includes(gameKind)).map((k) => k.kind);
  if (gameKind === "connect4" && rules === "standard" && names.includes("perfect")) return "perfect";
  for (const name of ["alphabeta", "minimax", "random"]) if (names.includes(name)) return name;
  return "human";
}
