"""Each game's walkthrough plays from start to finish as its doc writes it, on both stores.

The doc's requests are sent in page order to a fresh app (access control off, as on a loopback
`questlog serve`); each answer must have the status and every field the doc shows
(``tests/docs/examples.py``). A doc that drifts from the code fails here.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.service.application import Questlog
from tests.docs.examples import mismatches, walkthrough
from webapi.app import create_app

WALKTHROUGHS = [
    "quest-calendar.md",
    "calendar-board.md",
    "time-travel.md",
    "dice-verification.md",
    "projections.md",
]


@pytest.mark.parametrize("doc", WALKTHROUGHS)
def test_the_walkthrough_plays_as_written(app: Questlog, doc: str) -> None:
    client = create_app(app, auth=False, rate_limit=0, TESTING=True).test_client()
    campaign: str | None = None
    for example in walkthrough(doc):
        path = example.path
        if "{id}" in path:
            assert campaign is not None, f"{example.where(doc)}: no campaign created before"
            path = path.replace("{id}", campaign)
        answer = client.open(path, method=example.method, json=example.body)
        body: Any = answer.get_json(silent=True)
        assert example.status is not None, f"{example.where(doc)}: the doc shows no answer"
        assert answer.status_code == example.status, (example.where(doc), body)
        problems = mismatches(example.shown, body)
        assert not problems, f"{example.where(doc)}:\n" + "\n".join(problems)
        if example.method == "POST" and example.path == "/campaigns":
            campaign = body["id"]
