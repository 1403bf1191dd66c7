// What a TypeScript author writes against Questlog's OpenAPI document: the types come from
// openapi-typescript run with --default-non-nullable false (docs/api-clients.md), into
// questlog-api.d.ts beside this file; tests/clients/test_typescript.py compiles it with
// tsc --strict.
import type { components, operations } from "./questlog-api";

type Schemas = components["schemas"];
type CommandRoute = operations["sendCommand"]; // POST /campaigns/{campaign}/commands
export type Command = CommandRoute["requestBody"]["content"]["application/json"];
export type Result = CommandRoute["responses"][201]["content"]["application/json"];
export type Problem = Schemas["Problem"];

export const hero: Schemas["Hero"] = {
  id: "vanguard",
  name: "The Vanguard",
  traits: { STR: 2, DEX: 1, CON: 1, INT: 2, WIS: 0, CHA: -1 },
  hp_max: 20,
  def: 12,
  atk: 3,
  damage_dice: "1d8",
  abilities: [
    {
      id: "smite",
      usage: "per_page",
      context: "combat",
      effect: { kind: "damage_bonus", dice: "1d4" },
    },
  ],
};

export const newPage: Schemas["CampaignCreate"] = {
  game: "quest-calendar",
  name: "A page",
  setup: { prologue_complete: true },
};

// Only what each command needs: every field with a default may be left out.
export const page: Command[] = [
  { type: "select_hero", phase: "main", hero },
  { type: "start_page", date: "2027-01-04" },
  { type: "trait_check", trait: "INT", purpose: "decode the beacon", target: 12 },
  { type: "gain_item", item: { id: "med-kit", kind: "consumable", effect: { kind: "heal", amount: 5 } } },
  { type: "resolve_rounds" },
  { type: "end_page" },
];

export const newMatch: Schemas["CampaignCreate"] = {
  game: "calendar-board",
  name: "A match",
  setup: {
    players: [
      { id: "A", pieces: [{ id: "a1", location: { kind: "pathway", space: 3 }, facing: "E" }] },
      { id: "B", pieces: [{ id: "b1", location: { kind: "home" } }] },
    ],
    creatures: [{ id: "z1", type: "Zombie" }],
  },
};

/** The reply to a decision a night asks for (GET /campaigns/{id}/actions names it). */
export function answer(pending: Schemas["PendingDecision"]): Command {
  const player = pending.who ?? "";
  const options = (pending.options ?? []) as unknown[];
  switch (pending.decision) {
    case "night_action":
      return { type: "night_action", player, action: "sleep" };
    case "fate_reroll":
      return { type: "decline_fate_reroll", player };
    case "creature_order":
      return { type: "order_creatures", player, order: options as string[] };
    case "supply_weapon":
      return { type: "choose_supply_weapon", player, weapon: String(options[0]) };
    case "hail_damage":
      return { type: "assign_hail_damage", player, piece: String(options[0]) };
    case "ambush_target": {
      const [first] = options as { piece: string; target: string }[];
      if (first === undefined) throw new Error("an ambush with no target");
      return { type: "choose_ambush", player, piece: first.piece, target: first.target, form: "raid" };
    }
    default:
      throw new Error(`a decision this client does not know: ${pending.decision}`);
  }
}

/** A command's discriminator narrows it to its own fields. */
export function described(command: Command): string {
  switch (command.type) {
    case "trait_check":
      return `${command.trait} check against ${command.target ?? "no target"}`;
    case "end_turn":
      return `${command.player} ends the turn`;
    default:
      return command.type;
  }
}

/** POST a command; a 201 is the result, anything else a problem (RFC 9457). */
export async function send(
  base: string,
  token: string,
  campaign: string,
  command: Command,
): Promise<Result | Problem> {
  const answered = await fetch(`${base}/campaigns/${campaign}/commands`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(command),
  });
  return (await answered.json()) as Result | Problem;
}
