// Bodies the document forbids: tsc --strict must reject every line marked "rejected", and
// nothing else (tests/clients/test_typescript.py).
import type { components } from "./questlog-api";

type Schemas = components["schemas"];

export const check: Schemas["TraitCheckCommand"] = {
  type: "trait_check",
  trait: "INT",
  target: "12", // rejected: an integer, not a string
};

export const trait: Schemas["TraitCheckCommand"] = {
  type: "trait_check",
  trait: "LUCK", // rejected: not one of the six traits
};

export const unknown: Schemas["EndPageCommand"] = {
  type: "end_page",
  pages: 2, // rejected: no such field
};

export const missing: Schemas["EndTurnCommand"] = { type: "end_turn" }; // rejected: no player

export const fine: Schemas["EndTurnCommand"] = { type: "end_turn", player: "A" };
