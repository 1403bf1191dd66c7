// proposals.js: a rollback proposal in words, the same for every reader.
import assert from "node:assert/strict";
import { test } from "node:test";

import { proposalWords, seatName } from "../../webapi/static/proposals.js";

const proposal = { proposer: "A", to_version: 41, reason: "misread the rule" };

test("who proposes, where to, why, who agreed and whom it waits for", () => {
  assert.equal(
    proposalWords(proposal, ["A"], ["B", "owner"]),
    "A proposes going back to version 41: “misread the rule”. Agreed: A. Waiting for B, the owner to agree.",
  );
});

test("the owner is named as such; every seat agreed says so; nobody yet", () => {
  const byOwner = { ...proposal, proposer: "owner" };
  assert.equal(
    proposalWords(byOwner, ["owner", "B"], []),
    "The owner proposes going back to version 41: “misread the rule”. Agreed: the owner, B. Every seat has agreed.",
  );
  assert.match(proposalWords(proposal, [], ["A"]), /Agreed: nobody yet\. Waiting for A to agree\.$/);
  assert.equal(seatName("owner"), "the owner");
  assert.equal(seatName(2), "2");
});
