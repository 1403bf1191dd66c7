// timeline.js's words without the DOM: an actor by the name a person gave, a type without a
// heading in words, and a hero's death with its cloning as the lines the hero card shows.
import assert from "node:assert/strict";
import { test } from "node:test";

import { actorName, deathMoment, eventSummary, momentLines, recentDeath } from "../../webapi/static/timeline.js";
import { heading } from "../../webapi/static/headings.js";
import { commandTitle } from "../../webapi/static/commandtitles.js";

test("an actor is the name before '#'; an invitation's or a share link's token says what it is", () => {
  assert.equal(actorName("ana#tok-1"), "ana");
  assert.equal(actorName("invite-3f2a#tok-9"), "an invited member");
  assert.equal(actorName("share-77#tok-2"), "a viewer link");
  assert.equal(actorName("#tok-5"), "#tok-5"); // no name at all: the whole actor
});

test("an event's summary: the server's when it sends one, else the page's own words", () => {
  assert.equal(eventSummary({ type: "x.Y", summary: "said by the server" }), "said by the server");
  assert.equal(
    eventSummary({
      type: "questlog.RolledBack",
      data: { to_version: 4, reason: "oops", undone_versions: [5, 6, 7], undone_rolls: ["r1"], flagged: true },
    }),
    "rolled back to version 4: “oops”; undid 3 event(s) (5–7) and rolls r1 (flagged: server rolls undone)",
  );
  assert.equal(eventSummary({ type: "questlog.RollbackApproved", data: { player: "B" } }), "B agreed to the rollback");
  assert.equal(eventSummary({ type: "qc.Something", data: { purpose: "hail save" } }), "hail save");
  assert.equal(eventSummary({ type: "qc.Something" }), "");
});

test("headings and command titles: in words, even for a type or command the page does not know", () => {
  assert.equal(heading("questlog.CampaignCreated"), "Campaign started");
  assert.equal(heading("qc.DragonWoke2Times"), "Dragon woke2 times");
  assert.equal(heading("cb.NewThingHappened"), "New thing happened");
  assert.equal(commandTitle("some_new_command"), "some new command");
  assert.equal(commandTitle("apply_condition"), "Apply a condition"); // a known command: its own title
});

const at = "2026-03-01T20:00:00Z";
const events = [
  { version: 8, type: "qc.PageStarted", timestamp: "2026-03-01T19:00:00Z" },
  { version: 9, type: "qc.Died", timestamp: at, data: { details: { cause: "fireBreath", page_date: "03-01" } } },
  { version: 10, type: "qc.CloneRollMade", timestamp: at, summary: "Clone roll: d6 4" },
  { version: 11, type: "qc.CreditsChanged", timestamp: at, summary: "The hero loses 10 credits" },
  { version: 12, type: "qc.ConditionCleared", timestamp: at, summary: "The hero is no longer poisoned" },
  { version: 13, type: "qc.Cloned", timestamp: at, data: { details: { hp_after: 3, hp_max: 10, replaced: false } } },
  { version: 14, type: "qc.Died", timestamp: "2026-03-02T20:00:00Z", data: { details: {} } },
];

test("a death's moment is the cloning events of the same instant after it, up to Cloned", () => {
  const moment = deathMoment(events, 1);
  assert.deepEqual(
    moment.after.map((e) => e.version),
    [10, 11, 12, 13],
  );
  assert.equal(deathMoment(events, 0), null); // not a death
  assert.deepEqual(momentLines(moment), [
    "Killed by fire breath on 03-01.",
    "Clone roll: d6 4.",
    "The price: The hero loses 10 credits.",
    "Also: the hero is no longer poisoned.",
    "Cloned back to life with HP 3 of 10.",
  ]);
  assert.deepEqual(momentLines(deathMoment(events, 6)), ["Killed by something unnamed."]);
});

test("the recent death is the newest one no page has begun since and no rollback undid", () => {
  assert.equal(recentDeath(events).died.version, 14);
  assert.equal(recentDeath(events.slice(0, 6)).died.version, 9);
  const undone = events.map((e) => (e.version === 14 ? { ...e, undone: true } : e));
  assert.equal(recentDeath(undone).died.version, 9);
  assert.equal(recentDeath([...events, { version: 15, type: "qc.PageStarted" }]), null);
  assert.equal(recentDeath([]), null);
});
