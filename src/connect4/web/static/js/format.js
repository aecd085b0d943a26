// Numbers and search values as the page prints them.
import { facts } from "./api.js";

// A classic search value: a finished game (within mate_window of +-mate) becomes
// "win at ply n" / "loss at ply n"; other numbers get thousands separators.
export function fmt(value) {
  if (typeof value === "number" && facts.mate !== null && Math.abs(value) > facts.mate - facts.mate_window) {
    return `${value > 0 ? "win" : "loss"} at ply ${facts.mate - Math.abs(value)}`;
  }
  if (typeof value === "number") {
    if (Number.isInteger(value)) return value.toLocaleString("en");
    return Math.abs(value) < 10 ? value.toFixed(4) : value.toFixed(1);
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  return value === null || value === undefined ? "–" : String(value);
}
