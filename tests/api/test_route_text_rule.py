"""One text rule on every route: a lone surrogate or a control character in any string a route
takes (members, tokens, invites, forks, house rules, share names, the library, rollbacks, analytics
filters) is a 422 naming the field, never a 5xx, and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.model import samples

Json = dict[str, Any]
BAD = {"lone surrogate": "a\ud800b", "control character": "a\x07b"}
CAMPAIGN = "{campaign}"
PLACES: list[tuple[str, str, Json]] = [
    # (route, field, a body right but for this field)
    ("/admin/tokens", "name", {"name": "X"}),
    ("/admin/tokens", "role", {"name": "t", "role": "X"}),
    (f"/campaigns/{CAMPAIGN}/members", "token_name", {"token_name": "X", "role": "player"}),
    (f"/campaigns/{CAMPAIGN}/members", "token_id", {"token_id": "X", "role": "player"}),
    (f"/campaigns/{CAMPAIGN}/members", "seat", {"token_name": "t", "role": "player", "seat": "X"}),
    (f"/campaigns/{CAMPAIGN}/invites", "name", {"role": "player", "name": "X"}),
    (f"/campaigns/{CAMPAIGN}/invites", "seat", {"role": "player", "seat": "X"}),
    (f"/campaigns/{CAMPAIGN}/fork", "name", {"name": "X"}),
    (f"/campaigns/{CAMPAIGN}/fork", "client_seed", {"name": "f", "client_seed": "X"}),
    (f"/campaigns/{CAMPAIGN}/house-rules", "key", {"key": "X", "value": 1}),
    (f"/campaigns/{CAMPAIGN}/share", "name", {"name": "X"}),
    (f"/campaigns/{CAMPAIGN}/rollback", "actor", {"to_version": 1, "reason": "r", "actor": "X"}),
    (f"/campaigns/{CAMPAIGN}/rollback/proposals", "proposer", {"reason": "r", "proposer": "X"}),
    ("/campaigns", "name", {"game": "quest-calendar", "name": "X"}),
    ("/campaigns", "client_seed", {"game": "quest-calendar", "name": "n", "client_seed": "X"}),
    ("/library/heroes", "name", {"name": "X", "hero": samples.VANGUARD}),
    ("/library/items", "item.id", {"item": {"id": "X", "kind": "consumable"}}),
]


def put_bad(body: Json, field: str, bad: str) -> Json:
    """The body with ``bad`` where it held the placeholder ``X`` (at a dotted path)."""
    text = json.dumps(body).replace('"X"', json.dumps(bad))
    loaded: Json = json.loads(text)
    return loaded


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize(("route", "field", "body"), PLACES, ids=[f"{r} {f}" for r, f, _ in PLACES])
def test_bad_text_in_a_route_field_is_a_422_naming_it(
    client: FlaskClient, campaign: Json, kind: str, route: str, field: str, body: Json
) -> None:
    client.post("/admin/tokens", json={"name": "t"})
    path = route.replace(CAMPAIGN, campaign["id"])
    sent = put_bad(body, field, BAD[kind])
    # the raw bytes: the test client's encoder would refuse a lone surrogate
    data = json.dumps(sent).encode()
    response = client.post(path, data=data, content_type="application/json")
    assert response.status_code == 422, (path, sent, response.json)
    assert field in (response.json.get("errors") or {}), response.json


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_text_in_an_analytics_filter_is_a_422_naming_it(client: FlaskClient, kind: str) -> None:
    bad = BAD[kind].replace("\ud800", "%ED%A0%80").replace("\x07", "%07")
    response = client.get(f"/analytics/dice?house_rule=dice_mode={bad}")
    assert response.status_code == 422, response.json
    assert "house_rule" in (response.json.get("errors") or {}), response.json
