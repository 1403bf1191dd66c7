// @ts-check
// Heroes and match setups to start from: the server's samples (GET /samples), the group's heroes
// (GET /library/heroes: saved by the people of this server, for everyone) and the heroes this
// player saved on this device before (localStorage "questlog.heroes", kept until removed; "Forget
// this device" leaves them, as they hold no secret). The select_hero form offers savedHeroes().
import { optional, post } from "./api.js";

const MINE = "questlog.heroes";
let cached = null;

// GET /samples, once per page; a server without the route has none.
export async function samples() {
  if (!cached)
    cached = optional("/samples")
      .then((s) => ({ heroes: s?.heroes || [], setups: s?.setups || [] }))
      .catch(() => ({ heroes: [], setups: [] }));
  return cached;
}

export function myHeroes() {
  try {
    const list = JSON.parse(localStorage.getItem(MINE) || "[]");
    return Array.isArray(list) ? list.filter((x) => x && typeof x.name === "string" && x.hero) : [];
  } catch {
    return [];
  }
}

// Keep a hero (the select_hero body without its type) under a name; the same name replaces it.
export function saveHero(name, hero) {
  const list = myHeroes().filter((x) => x.name !== name);
  list.push({ name, hero, saved_at: new Date().toISOString() });
  localStorage.setItem(MINE, JSON.stringify(list));
}

export function forgetHero(name) {
  localStorage.setItem(MINE, JSON.stringify(myHeroes().filter((x) => x.name !== name)));
}

// The group's heroes (GET /library/heroes), read afresh; none if the server has no library.
export async function groupHeroes() {
  try {
    return (await optional("/library/heroes"))?.heroes || [];
  } catch {
    return [];
  }
}

// Save a hero (as select_hero takes it) for the group under a name: the entry saved.
export const saveForGroup = (name, hero) => post("/library/heroes", { name, hero });

// Every hero to choose from: [{name, hero: {phase, hero}, source: "sample" | "group" | "mine"}],
// the samples first, then the group's, then this device's.
export async function savedHeroes() {
  const [{ heroes }, group] = await Promise.all([samples(), groupHeroes()]);
  return [
    ...heroes.map((x) => ({ name: x.name, hero: x.hero, source: "sample" })),
    ...group.map((x) => ({ name: x.name, hero: { phase: "prologue", hero: x.hero }, source: "group", id: x.id })),
    ...myHeroes().map((x) => ({ name: x.name, hero: x.hero, source: "mine" })),
  ];
}
