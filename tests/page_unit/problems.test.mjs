// problems.js: a refusal of the API in one sentence.
import assert from "node:assert/strict";
import { test } from "node:test";

import { explain } from "../../webapi/static/problems.js";

test("the rule, the detail and each field's messages, in that order", () => {
  const refusal = {
    message: "HTTP 422",
    problem: {
      rule: "shop-closed",
      detail: "the shop is closed today",
      errors: { gold: ["must be at least 0."], "stock[0]": { price: ["missing"] } },
    },
  };
  assert.equal(
    explain(refusal),
    '[shop-closed] the shop is closed today gold: must be at least 0.; stock[0]: {"price":["missing"]}',
  );
});

test("nothing is said twice: a rule the detail names, a field's line the detail holds", () => {
  const refusal = {
    problem: {
      rule: "partner-missing",
      detail: "partner-missing: partner: name the partner",
      errors: { partner: ["name the partner"] },
    },
  };
  assert.equal(explain(refusal), "partner-missing: partner: name the partner");
});

test("an error that is not an API refusal is its message", () => {
  assert.equal(explain(new Error("Failed to fetch")), "Failed to fetch");
  assert.equal(explain({}), "");
});
