// Heroes and match setups to start from: the server's samples (GET /samples) and the heroes this
// player saved on this device (localStorage "questlog.heroes", kept until removed; "Forget this
// device" leaves them, as they hold no secret). The select_hero form offers savedHeroes().
import { optional } from "./api.js";

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

// Every hero to choose from: [{name, hero, source: "sample" | "mine"}], the samples first.
export async function savedHeroes() {
  const { heroes } = await samples();
  return [
    ...heroes.map((x) => ({ name: x.name, hero: x.hero, source: "sample" })),
    ...myHeroes().map((x) => ({ name: x.name, hero: x.hero, source: "mine" })),
  ];
}
