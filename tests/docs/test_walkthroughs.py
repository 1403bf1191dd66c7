"""Each game's walkthrough plays from start to finish as its doc writes it, on both stores.

The doc's requests are sent in page order to a fresh app (access control off, as on a loopback
`questlog serve`); each answer must have the status and every field the doc shows
(``tests/docs/examples.py``). A doc that drifts from the code fails here.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from domain.service.application import Questlog
from tests.docs.examples import mismatches, walkthrough
from webapi.app import create_app

PLACEHOLDER = re.compile(r"\{((?:token:)?[\w-]+)\}")
"""``{admin}`` or ``{token:NAME}`` in a header: the secret of that token."""
WALKTHROUGHS = [
    "access.md",
    "quest-calendar.md",
    "calendar-board.md",
    "time-travel.md",
    "dice-verification.md",
    "projections.md",
    "table-page.md",
    "reliability.md",
]


@pytest.mark.parametrize("doc", WALKTHROUGHS)
def test_the_walkthrough_plays_as_written(app: Questlog, doc: str) -> None:
    examples = walkthrough(doc)
    # A walkthrough that sends tokens runs with access control on, as `questlog serve` does.
    auth = any("Authorization" in example.headers for example in examples)
    client = create_app(app, auth=auth, rate_limit=0, TESTING=True).test_client()
    secrets = {"admin": app.create_token("admin", admin=True)[1]} if auth else {}
    campaign: str | None = None
    for example in examples:
        path = example.path
        if "{id}" in path:
            assert campaign is not None, f"{example.where(doc)}: no campaign created before"
            path = path.replace("{id}", campaign)
        headers = {
            name: PLACEHOLDER.sub(lambda m: secrets[m.group(1)], value)
            for name, value in example.headers.items()
            if name != "Content-Type"
        }
        answer = client.open(path, method=example.method, json=example.body, headers=headers)
        body: Any = answer.get_json(silent=True)
        assert example.status is not None, f"{example.where(doc)}: the doc shows no answer"
        assert answer.status_code == example.status, (example.where(doc), body)
        problems = mismatches(example.shown, body)
        assert not problems, f"{example.where(doc)}:\n" + "\n".join(problems)
        if example.method == "POST" and example.path == "/campaigns":
            campaign = body["id"]
        if example.method == "POST" and example.path == "/admin/tokens":
            secrets[f"token:{body['name']}"] = body["token"]
        if example.method == "POST" and example.path.endswith("/share") and "token" in body:
            secrets[f"token:{example.body['name']}"] = body["token"]
