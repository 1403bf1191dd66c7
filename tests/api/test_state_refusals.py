"""A refusal that depends on the campaign's state is a 409, a 422 is for a body the document
itself could refuse, on both stores: rollbacks,
proposals' approvals, invitations' seats and house-rule changes. What the campaign does not hold
is a 409 ``not-held`` that names the field; nothing is stored either way."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from openapi_schema_validator import OAS30Validator

from tests.api.conftest import stored_state
from tests.api.test_time_travel import BOARD, rolled

Json = dict[str, Any]
NOT_HELD = "urn:questlog:problem:not-held"


def not_held(response: Any, field: str) -> None:
    """A 409 not-held naming ``field``."""
    assert response.status_code == 409, response.json
    assert response.json["type"] == NOT_HELD
    assert list(response.json["errors"]) == [field]


def test_a_rollback_to_the_current_version_is_the_logs_answer(
    store_client: FlaskClient, store_campaign: Json
) -> None:
    """Nothing to undo at the head: a version later it is a fine target, so the state refuses."""
    cid = store_campaign["id"]
    rolled(store_client, cid, 1)  # head 2
    before = stored_state(store_client, cid)
    body = {"to_version": 2, "reason": "x"}
    not_held(store_client.post(f"/campaigns/{cid}/rollback", json=body), "to_version")
    proposal = {**body, "proposer": "owner"}
    not_held(store_client.post(f"/campaigns/{cid}/rollback/proposals", json=proposal), "to_version")
    assert stored_state(store_client, cid) == before


def test_an_approval_by_someone_not_among_the_proposals_players_is_not_held(
    store_client: FlaskClient,
) -> None:
    cid = store_client.post("/campaigns", json=BOARD).json["id"]
    rolled(store_client, cid, 1)
    proposed = store_client.post(
        f"/campaigns/{cid}/rollback/proposals",
        json={"to_version": 1, "reason": "r", "proposer": "A"},
    ).json["proposal"]
    before = stored_state(store_client, cid)
    approve = f"/campaigns/{cid}/rollback/proposals/{proposed['proposal_id']}/approve"
    not_held(store_client.post(approve, json={"player": "Z"}), "player")
    assert stored_state(store_client, cid) == before


def test_a_seat_on_a_game_without_seats_is_not_held(
    store_client: FlaskClient, store_campaign: Json
) -> None:
    """Quest Calendar has no seats: the campaign's game decides it, not the body."""
    cid = store_campaign["id"]
    tokens = store_client.get("/admin/tokens").json["items"]
    answer = store_client.post(f"/campaigns/{cid}/invites", json={"role": "player", "seat": "A"})
    not_held(answer, "seat")
    assert store_client.get("/admin/tokens").json["items"] == tokens


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"key": "qc.nope", "value": 1}, "key"),  # no game's rule
        ({"key": "qc.combat.mode", "value": "brutal"}, "value"),  # no value the rule takes
    ],
)
def test_a_malformed_house_rule_change_is_a_422_whatever_version_if_match_names(
    store_client: FlaskClient, store_campaign: Json, body: Json, field: str
) -> None:
    """The body's own form first: a 412 would send the client to retry a body that is wrong."""
    cid = store_campaign["id"]
    before = stored_state(store_client, cid)
    answer = store_client.post(
        f"/campaigns/{cid}/house-rules", json=body, headers={"If-Match": '"999"'}
    )
    assert answer.status_code == 422, answer.json
    assert list(answer.json["errors"]) == [field]
    assert stored_state(store_client, cid) == before


def test_a_house_rule_of_the_other_game_is_not_held_and_one_in_force_is_a_rule(
    store_client: FlaskClient, store_campaign: Json
) -> None:
    cid = store_campaign["id"]
    path = f"/campaigns/{cid}/house-rules"
    before = stored_state(store_client, cid)
    not_held(store_client.post(path, json={"key": "cb.relationship.initial", "value": 10}), "key")
    stale = store_client.post(
        path, json={"key": "cb.relationship.initial", "value": 10}, headers={"If-Match": '"999"'}
    )
    assert stale.status_code == 412  # the body is one the document takes: the version is next
    assert stored_state(store_client, cid) == before
    assert (
        store_client.post(path, json={"key": "qc.combat.mode", "value": "easy"}).status_code == 200
    )
    again = store_client.post(path, json={"key": "qc.combat.mode", "value": "easy"})
    assert (again.status_code, again.json["rule"]) == (409, "QC-01")


def test_the_document_states_a_house_rule_changes_value_by_its_key(client: FlaskClient) -> None:
    """One branch per key: the value the server refuses as malformed, the document refuses."""
    document = client.get("/openapi.json").json
    schema = {"$ref": "#/components/schemas/HouseRuleChange", "components": document["components"]}
    check = OAS30Validator(schema)
    assert check.is_valid({"key": "qc.combat.mode", "value": "easy"})
    assert check.is_valid({"key": "cb.relationship.initial", "value": 10})
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "doc"}).json["id"]
    for wrong in (
        {"key": "qc.combat.mode", "value": "brutal"},
        {"key": "qc.combat.mode", "value": False},
        {"key": "qc.nope", "value": 1},
        {"key": "qc.combat.mode"},
    ):
        assert not check.is_valid(wrong), wrong
        assert client.post(f"/campaigns/{cid}/house-rules", json=wrong).status_code == 422
