// @ts-check
// A pending decision and its answers. Every option the rules offer gets an answer that carries
// what the rules need: a button when the option says everything, a short form when the rules
// need more (an ambush's form, a new hero, a rizz's partner, an order of creatures). Which
// fields an answer fills comes from the decision (`who`, `context`, `options`) and the
// catalogue (`choices`, `picks`, `required_when`), never from a list of field names here.
import { commandTitle } from "./commandtitles.js";
import { abilityPicker, idWords } from "./abilityuse.js";
import { diceChoice, diceFromText, diceOf } from "./dice.js";
import { clear, h } from "./dom.js";
import { savedHeroes } from "./heroes.js";
import { nightQuestion, nightRollForm, nightWaiting } from "./nightroll.js";
import { commandForm } from "./play.js";
import { explain } from "./problems.js";
import { toast } from "./ui.js";

/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */

const words = (name) => String(name).replaceAll("_", " ");
const SKIP = new Set(["faces", "entropy"]);

// How an option reads: known shapes in words, anything else as its members.
function optionLabel(option) {
  if (option === null || typeof option !== "object") return words(option);
  if (option.replace === false) return "Keep the rushed clone";
  if (option.replace === true) return `Switch to a new hero${option.level ? ` (level ${option.level})` : ""}`;
  if (option.piece && option.target)
    return (
      `${option.piece} ambushes ${option.target}` +
      `${option.to !== undefined ? ` (space ${option.from} → ${option.to})` : ""}`
    );
  if (option.item)
    return (
      `${option.name || nameOf(option.item)}` +
      `${option.slot ? ` (${option.slot}${option.equipped ? ", equipped" : ""})` : ""}`
    );
  return objectWords(option) || "this one";
}

// A decision's context in words: a round reads "hit, won, 3 damage dealt"; nothing unset, no
// "false", no ids or indexes meant for the engine (a roll id, an order index).
const HIDDEN = /(^|_)(id|index)$/;
function valueWords(key, value) {
  if (value === null || value === undefined || value === false || value === "" || HIDDEN.test(key)) return null;
  if (value === true) return key === "may_decline" ? "you may decline" : words(key);
  if (key === "condition" && typeof value === "object" && value.name)
    return (
      `condition ${words(value.name)}` +
      `${value.afflicted ? " (afflicted)" : value.afflicted === false ? " (resisted)" : ""}`
    );
  if (Array.isArray(value)) {
    const parts = value.map((v) => (v && typeof v === "object" ? objectWords(v) : nameOf(v))).filter(Boolean);
    return parts.length ? `${words(key)}: ${parts.join("; ")}` : null;
  }
  if (typeof value === "object") {
    const inner = objectWords(value);
    return inner ? `${words(key)}: ${inner}` : null;
  }
  if (typeof value === "number") return key === "round" ? `round ${value}` : `${words(key)} ${value}`;
  return `${words(key)} ${nameOf(value)}`;
}

// An id the card shows is shown by its name: the hero's item or ability, else the id in words
// ("catgirlGirlfriend" -> "catgirl girlfriend"). `names` is the shown state's (answerPending).
let names = new Map();
function namesIn(state) {
  const hero = state?.hero || {};
  const entries = [...Object.values(hero.abilities || {}), ...(hero.inventory || [])];
  return new Map(entries.filter((e) => e && e.id && e.name).map((e) => [String(e.id), e.name]));
}
const nameOf = (value) => names.get(String(value)) || idWords(value);
const objectWords = (object) => Object.entries(object).map(([k, v]) => valueWords(k, v)).filter(Boolean).join(", ");
function roundWords(round) {
  const rest = Object.fromEntries(Object.entries(round).filter(([k]) => k !== "round"));
  return objectWords({ missed: round.hit === false, ...rest }) || "rolled";
}

// Each decision's question in plain words, from what it carries (its `who`, `options` and
// `context`) and the state: what happened, what is asked, and what each answer does. A decision
// this table does not know reads as its name and its context (below).
const seatName = (who) => who || "the player";
const luck = (n) => (n ? ` (luck ${n > 0 ? "+" : ""}${n})` : "");
function rerollsLeft(state, who) {
  const party = state?.parties?.[who];
  const left = party?.fate_rerolls;
  if (left === null || left === undefined) return "";
  return ` ${seatName(who)} has ${left} fate reroll${left === 1 ? "" : "s"} left.`;
}
const FATE_WHAT = {
  hail: (c) =>
    `failed the hail save: the d20 did not reach ${c.goal}${luck(c.luck_mod)}. ` +
    `Keep the roll, and the hail's damage follows`,
  rizz: (c) =>
    `lost the rizz with ${idWords(c.partner || "the partner")}: the roll (d20 + INT) ` +
    `did not beat ${c.defender_value}. Keep the roll, and the attempt stays lost`,
  ambush: (c) =>
    `rolled ${c.d6} on the ambush d6, which reaches no target. Keep the roll, and the ambush misses`,
};
const QUESTIONS = {
  fate_reroll: (p, state) => {
    const c = p.context || {};
    const what = (FATE_WHAT[c.roll] || (() => `may reroll the ${words(c.roll || "roll")}`))(c);
    return (
      `${seatName(p.who)} ${what}; or spend a fate reroll to roll it ` +
      `again (the new roll stands).${rerollsLeft(state, p.who)}`
    );
  },
  ambush_target: (p, state) => {
    const c = p.context || {};
    const again = (p.commands || []).includes("fate_reroll")
      ? `, or spend a fate reroll to roll the d6 again.${rerollsLeft(state, p.who)}`
      : ".";
    return (
      `${seatName(p.who)} rolled ${c.d6} on the ambush d6. Choose ` +
      `which piece strikes which target, with the form it takes${again}`
    );
  },
  night_action: (p) =>
    `${seatName(p.who)}'s night action: ` +
    `${(p.options || []).map(words).join(", ") || "none left"}. Each ` +
    `party takes one, in turn order.`,
  hail_damage: (p) =>
    `Hail hits ${seatName(p.who)}: the d4 rolled ${p.context?.d4}. Choose which piece takes the damage.`,
  supply_weapon: (p) =>
    `${seatName(p.who)} stands on a supply space: choose the supply ` +
    `weapon, the one whose ammunition refills` +
    `${p.context?.may_decline ? ", or decline" : ""}.`,
  creature_order: (p) =>
    `${seatName(p.who)} holds the god token: choose the order in which ` +
    `the ${words(p.context?.creature_type || "creatures")} act.`,
  rest_injury: () => "Rest: choose which injured stat to restore.",
  clone_loot: (p) => `The hero died (${words(p.context?.cause || "death")}). Choose what the clone keeps.`,
  clone_replace_hero: (p) =>
    `The hero died (${words(p.context?.cause || "death")}). Keep the rushed clone, or switch to a new hero.`,
  combat_round_abilities: (p) =>
    `${roundLine(p.context)}. Use abilities on this round before it closes, or none.`,
  combat_boost_attack: (p) =>
    `${roundLine(p.context)}. Boost the attack before the damage is rolled, or not.`,
  combat_boost_damage: (p) => `${roundLine(p.context)}. Boost the damage, or not; then the round closes.`,
  combat_assign_abilities: () =>
    "Every round is rolled: choose the abilities to use in each round (none is an answer too); " +
    "then the rounds are resolved in order.",
  night_roll: (p, state) => nightQuestion(p, state),
  pickpocket_four: () =>
    "The pickpocket rolled a 4: accept the credits and lose 1 virtue, or refuse them and keep your virtue.",
};
// "Round 2, the extra attack: hit, damage dealt 4, won".
function roundLine(context = {}) {
  const { round, attempt, ...rest } = context;
  const which = attempt === "extra" ? ", the extra attack" : "";
  return `Round ${round ?? "?"}${which}: ${roundWords(rest)}`;
}

function questionWords(pending, state) {
  const asked = QUESTIONS[pending.decision];
  try {
    return asked ? asked(pending, state) : null;
  } catch {
    return null;
  }
}

function contextView(context) {
  const entries = Object.entries(context || {});
  if (Array.isArray(context?.rounds)) {
    const others = objectWords(Object.fromEntries(entries.filter(([k]) => k !== "rounds")));
    return h(
      "div",
      { class: "hint context" },
      others ? h("p", {}, others) : null,
      h(
        "ul",
        {},
        context.rounds.map((r) => h("li", {}, `Round ${r.round}: ${roundWords(r)}`)),
      ),
    );
  }
  const text = objectWords(context || {});
  return text ? h("p", { class: "hint context" }, text) : null;
}

// The values an option gives the command's fields, or null if it names none of them.
function optionValues(option, open) {
  if (option !== null && typeof option === "object") {
    const values = Object.fromEntries(open.filter((f) => f.name in option).map((f) => [f.name, option[f.name]]));
    return Object.keys(values).length ? values : null;
  }
  const text = String(option);
  const field = open.find((f) => f.choices?.map(String).includes(text))
    || open.find((f) => f.picks?.source === "/pending/options")
    || (open.filter((f) => f.type === "string").length === 1 ? open.find((f) => f.type === "string") : null);
  if (!field) return null;
  return { [field.name]: field.choices?.find((c) => String(c) === text) ?? option };
}

// Fields still needed once `values` are given: the required ones, and those a check needs now.
function stillNeeded(open, values) {
  return open.filter(
    (f) =>
      !(f.name in values) &&
      (f.required || (f.required_when && Object.entries(f.required_when).every(([k, v]) => values[k] === v))),
  );
}

function answersFor(command, pending, ctx) {
  const preset = {};
  const context = pending.context || {};
  for (const field of command.fields) {
    if (field.name === "player" && pending.who && ctx.game === "calendar-board") preset.player = pending.who;
    else if (field.name in context && !SKIP.has(field.name)) preset[field.name] = context[field.name];
  }
  const open = command.fields.filter((f) => !(f.name in preset) && !SKIP.has(f.name));
  const button = (label, values, option) =>
    h(
      "button",
      {
        type: "button",
        class: "choice",
        dataset: { command: command.name, option: option ?? "" },
        onclick: () =>
          ctx
            .send({ type: command.name, ...preset, ...values })
            .catch((error) => error.shown || toast(explain(error), true)),
      },
      label,
    );
  // The card's own dice choice (below) stands for every form of it: none of their own.
  const form = (extra) =>
    commandForm(command, { seat: ctx.seat, state: ctx.state, send: ctx.send, preset, dice: false, ...extra });
  const options = pending.options || [];
  if (pending.decision === "night_roll") return nightRollForm(command, pending, ctx.send);
  const abilities = open.find((f) => f.name === "abilities" && f.type === "array");
  const byAbility = options.length && options.every((o) => o && o.id);
  if (abilities && byAbility) return { forms: [abilityForm(command, abilities, options, preset, ctx)] };
  // Easy mode (QC-29): a map of round number -> abilities, asked as checkboxes per rolled round.
  const perRound = open.find((f) => f.type === "object" && !f.fields);
  if (perRound && byAbility && Array.isArray(pending.context?.rounds))
    return { forms: [assignForm(command, perRound, pending.context.rounds, options, preset, ctx)] };
  const list = open.find((f) => f.required && f.type === "array");
  if (list && options.every((o) => typeof o !== "object"))
    return { forms: [form({ initial: { [list.name]: options } })] };
  const mapped = options.map((o) => [o, optionValues(o, open)]).filter(([, v]) => v);
  if (!mapped.length) {
    // The options name no field of this command: it answers as it is (a fate reroll, a
    // decline), with its form beside it when it has fields of its own to fill.
    if (open.some((f) => f.required)) return { forms: [form({})] };
    return {
      quick: [button(commandTitle(command.name), {}, command.name)],
      forms: open.length ? [form({ title: `${commandTitle(command.name)}, with details` })] : [],
    };
  }
  const quick = [];
  const rest = [];
  for (const [option, values] of mapped) {
    const needed = stillNeeded(open, values);
    const key = typeof option === "object" ? JSON.stringify(option) : String(option);
    if (option?.replace === true && needed.some((f) => f.name === "hero"))
      quick.push(heroButtons(option, values, button));
    if (!needed.length) quick.push(button(optionLabel(option), values, key));
    else if (needed.length === 1 && needed[0].choices)
      for (const c of needed[0].choices)
        quick.push(button(`${optionLabel(option)}: ${idWords(c)}`, { ...values, [needed[0].name]: c }, `${key}:${c}`));
    else rest.push({ label: optionLabel(option), values, needed });
  }
  if (pending.context?.may_decline) quick.push(button("Decline", {}, "decline"));
  // An option that says part of the answer: the rest is asked beside it (an ambush's form).
  const own = rest.some((r) => r.values.replace === true)
    ? { title: "Switch to a hero of my own", submit: "Switch to this hero" }
    : {};
  const forms = rest.length
    ? [form({ answers: rest, open: [...new Set(rest.flatMap((r) => r.needed.map((f) => f.name)))], ...own })]
    : [];
  return { quick, forms };
}

// The hard-mode decision names the roll it stops after; standard and easy mode close the round.
const STAGES = { boost_attack: "attack", boost_damage: "damage" };

// Easy mode: for each rolled round, the abilities to use in it (none at all is an answer too);
// sent as {"2": ["smite"]}, only the rounds that got one.
function assignForm(command, map, rounds, options, preset, ctx) {
  const field = map.name;
  const perRound = rounds.map((r) => [
    String(r.round),
    abilityPicker(options, {
      state: ctx.state(),
      prefix: `use-${command.name}-${r.round}`,
      name: `${field}.${r.round}`,
      fields: map.values?.items?.fields,
    }),
  ]);
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "command", dataset: { command: command.name } },
    h("h4", {}, "Abilities for each round (none is an answer too)"),
    rounds.map((r, i) =>
      h(
        "fieldset",
        { class: "nested", dataset: { round: String(r.round) } },
        h("legend", {}, `Round ${r.round}: ${roundWords(r)}`),
        perRound[i][1].els,
      ),
    ),
    h("button", { type: "submit" }, "Resolve the rounds"),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    let chosen;
    try {
      chosen = Object.fromEntries(
        perRound.map(([n, picker]) => [n, picker.read()]).filter(([, uses]) => uses.length),
      );
    } catch (problem) {
      error.textContent = problem.message;
      return;
    }
    try {
      await ctx.send({ type: command.name, ...preset, [field]: chosen });
    } catch (problem) {
      error.textContent = problem.shown ? "" : explain(problem);
    }
  });
  return form;
}

// QC-48: the sample and saved heroes (heroes.js) as one-button answers, each brought to the
// level the rules require of the new hero (the old hero's).
function heroButtons(option, values, button) {
  const slot = h("span", { class: "choices hero-choices" });
  savedHeroes().then((heroes) => slot.append(...heroes.map((x) => {
    const hero = { ...(x.hero?.hero ?? x.hero) };
    if (option.level !== undefined && option.level !== null) hero.level = option.level;
    return button(
      `Switch to ${x.name}` +
        `${{ mine: " (saved)", group: " (the group's)" }[x.source] ?? " (sample)"}` +
        `${option.level ? `, level ${option.level}` : ""}`,
      { ...values, hero },
      `hero:${x.name}`,
    );
  })));
  return slot;
}

// Abilities used on a roll: any of the offered ones, or none; each with what its use needs.
function abilityForm(command, list, options, preset, ctx) {
  const picker = abilityPicker(options, {
    stage: STAGES[command.name] ?? null,
    state: ctx.state(),
    prefix: `use-${command.name}`,
    name: list.name,
    fields: list.items?.fields,
  });
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "command", dataset: { command: command.name } },
    h("h4", {}, commandTitle(command.name)),
    h("fieldset", { class: "nested" }, h("legend", {}, "Abilities to use (none is an answer too)"), picker.els),
    h("button", { type: "submit" }, `Send: ${commandTitle(command.name)}`),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    let chosen;
    try {
      chosen = picker.read();
    } catch (problem) {
      error.textContent = problem.message;
      return;
    }
    try {
      await ctx.send({ type: command.name, ...preset, ...(chosen.length ? { [list.name]: chosen } : {}) });
    } catch (problem) {
      error.textContent = problem.shown ? "" : explain(problem);
    }
  });
  return form;
}

// The pending section: whose decision it is, what it asks and, for who may answer, the answers.
/**
 * @param {CampaignPage} page
 * @param {Record<string, any> | null | undefined} pending the state's pending decision
 * @param {boolean} past the page shows a past version
 * @param {(body: Record<string, any>) => Promise<any>} send an answer sent
 */
export function answerPending(page, pending, past, send) {
  page.pending.hidden = !pending;
  if (!pending) {
    delete page.pending.dataset.shown;
    page.answered = false;
    return;
  }
  const solo = page.head.game === "quest-calendar";
  names = namesIn(page.head.state);
  // The banner's rule (turn.js): an owner without a seat answers for the player asked.
  const mine = page.who.canPlay && (solo || !pending.who || page.who.plays(pending.who));
  const actingFor = mine && !solo && pending.who && pending.who !== page.who.seat ? pending.who : null;
  const canAnswer = mine && !past;
  // The same decision shown again, at any version (a refresh that finds nothing new, a roll or
  // a command of someone else's that leaves the decision as it was): the section stays as it
  // is, so an answer half typed, and the focus, are not wiped under the player's fingers. The
  // decision is the same when what it asks is: its kind, who decides, its options and context
  // (a new decision of the same kind carries a new roll id), and what this page may do with it.
  // Only a decision gone or changed, or a page that may now answer or no longer may, rebuilds it.
  const shown = JSON.stringify([pending, mine, canAnswer, actingFor]);
  if (page.pending.dataset.shown === shown && page.pending.isConnected) return;
  page.pending.dataset.shown = shown;
  const catalogue = page.catalogue.filter((c) => (pending.commands || []).includes(c.name));
  const night = pending.decision === "night_roll";
  // One dice choice for the card: server dice, or the player's own faces for whichever of its
  // commands rolls (a fate reroll does, its decline does not).
  const dice = canAnswer && !night && catalogue.some(rolls) ? diceChoice(cardDice(pending, catalogue)) : null;
  const cardSend = async (body) => {
    const faces = dice && rolls(catalogue.find((c) => c.name === body.type) || {}) ? dice.read() : undefined;
    try {
      return await send(faces === undefined ? body : { ...body, faces });
    } catch (problem) {
      if (dice?.retry(problem)) problem.shown = true;
      throw problem;
    }
  };
  const ctx = { game: page.head.game, seat: page.who.seat, state: () => page.head.state || {}, send: cardSend };
  const quick = [];
  const forms = [];
  if (canAnswer) {
    for (const command of catalogue) {
      const found = answersFor(command, pending, ctx);
      quick.push(...(found.quick || []));
      forms.push(...(found.forms || []));
    }
  }
  const context = pending.context || {};
  const question = questionWords(pending, page.head.state);
  const as = actingFor ? ` (as ${actingFor})` : "";
  page.pending.dataset.decisionFor = mine ? "you" : "other";
  clear(
    page.pending,
    h(
      "h3",
      { class: "whose" },
      mine
        ? `${night ? "Your roll" : "Your decision"}${as}`
        : night
          ? nightWaiting(pending)
          : `Waiting for ${pending.who || "the player"}`,
    ),
    h(
      "p",
      { class: "question", title: pending.rule ? `Rule ${pending.rule}` : null },
      question || words(pending.decision),
    ),
    pending.rule
      ? h("details", { class: "rule-ref" }, h("summary", {}, "Which rule"), `Rule ${pending.rule}`)
      : null,
    question ? null : contextView(context),
    canAnswer
      ? [dice?.el, h("div", { class: "choices", role: "group", "aria-label": "Answers" }, quick), forms]
      : night
        ? null
        : h("p", {}, `Options: ${(pending.options || []).map(optionLabel).join("; ") || "see the commands"}`),
  );
  // a new decision after this page's own answer: in view and focused if it is this page's again
  if (page.answered) {
    page.answered = false;
    if (canAnswer) page.goToPlay("decision");
  }
}

const rolls = (command) => Boolean(command.dice) && !/^None\b/.test(command.dice);

// The dice a decision's answer rolls first, in words, for the labels of the first faces.
const FATE_DICE = { hail: [20, "hail save"], rizz: [20, "rizz"], ambush: [6, "ambush"] };
function cardDice(pending, catalogue) {
  const c = pending.context || {};
  if ((pending.commands || []).includes("fate_reroll") && FATE_DICE[c.roll])
    return [{ sides: FATE_DICE[c.roll][0], purpose: FATE_DICE[c.roll][1] }];
  if (pending.decision === "night_action")
    return [{ sides: 0, purpose: "", label: "d20 for a rizz, or d6 for an ambush" }];
  if (c.notation) return diceOf(c.notation, words(c.roll || "roll"));
  if ((pending.options || []).length && pending.options.every((o) => o && o.id))
    return [{ sides: 0, purpose: "", label: "the first die the abilities roll" }];
  return diceFromText(catalogue.find(rolls)?.dice);
}
