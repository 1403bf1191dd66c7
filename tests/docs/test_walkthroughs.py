"""Each game's walkthrough plays from start to finish as its doc writes it, on both stores.

Every walkthrough region of every doc is played on its own (a doc may have several; the test
ids read ``calendar-board.md#2``). The region's requests are sent in page order to a fresh app
(access control off, as on a loopback `questlog serve`); each answer must have the status and
every field the doc shows (``tests/docs/examples.py``). A doc that drifts from the code fails here.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from domain.service.questlog import Questlog
from tests.docs.examples import mismatches, played, walkthrough
from webapi.app import create_app
from webapi.doctools.walkthrough import walkthrough as parse_first
from webapi.doctools.walkthrough import walkthroughs as parse_all

PLACEHOLDER = re.compile(r"\{((?:token:)?[\w-]+)\}")
"""``{admin}`` or ``{token:NAME}`` in a header: the secret of that token."""
PLAYED = played()
"""Every walkthrough of docs/*.md; each is played on its own, from a fresh app."""


def test_each_region_is_read_on_its_own() -> None:
    fence = "```"
    region = (
        "<!-- walkthrough:begin -->\n**{n}.**\n\n{f}http\nGET /{n}\n{f}\n\n"
        '{f}http\nHTTP/1.1 200 OK\n\n{{"n": {n}}}\n{f}\n\n<!-- walkthrough:end -->\n'
    )
    text = "intro\n" + region.format(n=1, f=fence) + "between\n" + region.format(n=2, f=fence)
    found = parse_all(text)
    assert [[(e.path, e.step, e.status, e.shown) for e in w] for w in found] == [
        [("/1", 1, 200, {"n": 1})],
        [("/2", 2, 200, {"n": 2})],
    ]
    assert parse_first(text) == found[0]
    with pytest.raises(ValueError, match="not closed"):
        parse_all(region.format(n=1, f=fence).replace("<!-- walkthrough:end -->", "") * 2)
    with pytest.raises(ValueError, match="no begin"):
        parse_all(text + "<!-- walkthrough:end -->")


def test_the_game_docs_have_walkthroughs() -> None:
    docs = {doc for doc, _ in PLAYED}
    assert {"quest-calendar.md", "calendar-board.md"} <= docs, docs


@pytest.mark.parametrize(("doc", "number"), PLAYED, ids=[f"{d}#{n}" for d, n in PLAYED])
def test_the_walkthrough_plays_as_written(app: Questlog, doc: str, number: int) -> None:
    examples = walkthrough(doc, number)
    # A walkthrough that sends tokens runs with access control on, as `questlog serve` does.
    auth = any("Authorization" in example.headers for example in examples)
    client = create_app(app, auth=auth, rate_limit=0, TESTING=True).test_client()
    secrets = {"admin": app.access.create_token("admin", admin=True)[1]} if auth else {}
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
