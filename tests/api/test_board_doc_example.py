"""Docs/calendar-board.md shows the /modifiers answer as it really is: the
walkthrough that ends with the /modifiers request is replayed and its last answer must equal the
documented JSON exactly (the walkthrough test compares answers field by field; here no field of
the real answer may be missing from the doc either)."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskClient

from webapi.doctools.walkthrough import walkthroughs

DOC = Path(__file__).resolve().parents[2] / "docs" / "calendar-board.md"


def test_the_documented_modifiers_answer_is_the_real_one(client: FlaskClient) -> None:
    (requests,) = [w for w in walkthroughs(DOC.read_text()) if "/modifiers" in w[-1].path]
    campaign = ""
    answer = None
    for example in requests:
        response = client.open(
            example.path.replace("{id}", campaign), method=example.method, json=example.body
        )
        assert response.status_code == example.status, (example.text, response.json)
        if example.path == "/campaigns":
            campaign = response.json["id"]
        answer = response.json
    assert answer == requests[-1].shown
