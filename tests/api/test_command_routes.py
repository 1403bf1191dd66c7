"""Game command routes: the commands route, the catalogue, and house-rule changes as events."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.api.conftest import stored_state
from tests.unit.quest_calendar.harness import HERO

SHOP = {
    "shop_id": "dock-market",
    "stock": [{"item": {"id": "med-kit", "name": "Med Kit", "kind": "consumable"}, "price": 5}],
}

PROBLEM = "application/problem+json"


def qc_campaign(client: FlaskClient, **house: Any) -> str:
    body = client.post(
        "/campaigns",
        json={
            "game": "quest-calendar",
            "name": "cmd",
            "house_rules": house,
            "setup": {"prologue_complete": True},
        },
    ).json
    cid: str = body["id"]
    ok = client.post(
        f"/campaigns/{cid}/commands", json={"type": "select_hero", "phase": "main", "hero": HERO}
    )
    assert ok.status_code == 201, ok.json
    return cid


def test_command_appends_events_and_returns_state(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    started = client.post(
        f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-03"}
    )
    assert started.status_code == 201
    assert started.json["state"]["page"]["weekday"] == "Sunday"
    check = client.post(
        f"/campaigns/{cid}/commands", json={"type": "trait_check", "trait": "INT", "target": 5}
    ).json
    (event,) = check["events"]
    assert event["type"] == "qc.CheckRolled"
    roll = event["data"]["rolls"][0]
    assert roll["roll_id"] == f"{event['version']}-1"
    assert roll["source"] == "server"
    shown = client.get(f"/campaigns/{cid}/rolls/{roll['roll_id']}").json
    assert shown["proof"]["nonce"] == roll["proof"]["nonce"]
    assert client.get(f"/campaigns/{cid}").json["state"]["hero"]["id"] == HERO["id"]


def test_reported_faces_drive_a_command(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    client.post(f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-04"})
    check = client.post(
        f"/campaigns/{cid}/commands",
        json={"type": "trait_check", "trait": "STR", "faces": [15]},
    ).json
    assert check["events"][0]["data"]["details"]["total"] == 17
    assert check["events"][0]["data"]["rolls"][0]["source"] == "reported"
    before = stored_state(client, cid)
    for faces in ([], [15, 3], [21]):
        refused = client.post(
            f"/campaigns/{cid}/commands",
            json={"type": "trait_check", "trait": "STR", "faces": faces},
        )
        assert refused.status_code == 409, faces  # the dice the command draws are the state's
        assert "faces" in refused.json["errors"]
    assert stored_state(client, cid) == before


def test_rule_refusal_is_409_naming_the_rule_and_stores_nothing(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    before = stored_state(client, cid)
    refused = client.post(
        f"/campaigns/{cid}/commands", json={"type": "trait_check", "trait": "STR"}
    )
    assert refused.status_code == 409
    assert refused.mimetype == PROBLEM
    assert refused.json["rule"] == "QC-17"
    assert stored_state(client, cid) == before


def test_malformed_commands_are_422_naming_the_field(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    client.post(f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-04"})
    for body, field in (
        ({"type": "teleport"}, "type"),
        ({}, "type"),
        ({"type": "trait_check"}, "trait"),
        ({"type": "trait_check", "trait": "LUCK"}, "trait"),
        ({"type": "end_page", "extra": 1}, "extra"),
    ):
        response = client.post(f"/campaigns/{cid}/commands", json=body)
        assert response.status_code == 422, body
        assert field in response.json["errors"], (body, response.json)


def test_a_command_of_the_other_game_is_not_held_here(client: FlaskClient) -> None:
    """The document lists both games' commands: which one a campaign takes is its game's, the
    state's answer (409 not-held naming ``type``); a name no game has is the body's (422)."""
    cid = qc_campaign(client)
    before = stored_state(client, cid)
    response = client.post(f"/campaigns/{cid}/commands", json={"type": "end_turn"})
    assert response.status_code == 409
    assert response.json["type"] == "urn:questlog:problem:not-held"
    assert list(response.json["errors"]) == ["type"]
    said = response.json["errors"]["type"][0]
    assert said.startswith("not a command of quest-calendar; it knows: ")
    assert "end_turn" not in said.split(": ", 1)[1]
    nowhere = client.post(f"/campaigns/{cid}/commands", json={"type": "fly_away"})
    assert nowhere.status_code == 422
    assert nowhere.json["errors"]["type"][0].startswith("unknown command; this game knows: ")
    assert stored_state(client, cid) == before


def test_every_invalid_command_body_is_one_problem_type_in_the_domain_wording(
    client: FlaskClient,
) -> None:
    cid = qc_campaign(client)
    client.post(f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-04"})
    for body, field, message in (
        ({}, "type", "unknown command"),
        ([1, 2], "command", "must be a JSON object"),
        ("trait_check", "command", "must be a JSON object"),
        ({"type": "trait_check", "target": 5}, "trait", "is required"),
        ({"type": "trait_check", "trait": "INT", "target": "5"}, "target", "must be an integer"),
        ({"type": "end_page", "faces": "six"}, "faces", "must be a list of faces"),
    ):
        response = client.post(f"/campaigns/{cid}/commands", json=body)
        assert response.status_code == 422, body
        assert response.mimetype == PROBLEM
        assert response.json["type"] == "urn:questlog:problem:invalid-input", body
        assert response.json["errors"][field][0].startswith(message), (body, response.json)
        wording = str(response.json)
        assert "Missing data" not in wording and "Invalid input type" not in wording


def test_an_empty_or_broken_command_body(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    empty = client.post(f"/campaigns/{cid}/commands")
    assert empty.status_code == 422
    assert empty.json["errors"] == {"command": ["must be a JSON object"]}
    broken = client.post(
        f"/campaigns/{cid}/commands", data="{not json", content_type="application/json"
    )
    assert broken.status_code == 400
    assert broken.json["detail"] == "The request body is not valid JSON."


def test_catalogue_lists_every_command_with_an_example(client: FlaskClient) -> None:
    body = client.get("/commands?game=quest-calendar").json
    names = {c["name"] for c in body["commands"]}
    assert {"select_hero", "start_page", "end_page", "trait_check"} <= names
    for command in body["commands"]:
        assert command["example"]["type"] == command["name"]
        assert command["summary"]
    document = client.get("/openapi.json").json
    examples = document["paths"]["/campaigns/{campaign}/commands"]["post"]["requestBody"]
    assert "quest-calendar:trait_check" in examples["content"]["application/json"]["examples"]


def test_house_rule_change_is_a_recorded_event(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    changed = client.post(
        f"/campaigns/{cid}/house-rules", json={"key": "qc.combat.mode", "value": "easy"}
    )
    assert changed.status_code == 200
    assert changed.json["house_rules"]["qc.combat.mode"] == "easy"
    last = client.get(f"/campaigns/{cid}/events?after={changed.json['version'] - 1}").json
    event = last["items"][0]
    assert event["type"] == "questlog.HouseRuleConfigured"
    assert event["data"]["old_value"] == "standard"
    assert event["data"]["gap"] == "G-QC-08"
    before = stored_state(client, cid)
    for body, status in (
        ({"key": "qc.combat.mode", "value": "brutal"}, 422),
        ({"key": "qc.nope", "value": 1}, 422),
        ({"key": "qc.combat.mode", "value": "easy"}, 409),
    ):
        assert client.post(f"/campaigns/{cid}/house-rules", json=body).status_code == status
    assert stored_state(client, cid) == before


def test_a_wrong_number_of_faces_lists_the_dice_expected(client: FlaskClient) -> None:
    created = client.post(
        "/campaigns",
        json={"game": "quest-calendar", "name": "faces", "setup": {"prologue_complete": True}},
    ).json
    path = f"/campaigns/{created['id']}/rolls"
    few = client.post(path, json={"dice": "d20+d6", "faces": [4]})
    assert few.status_code == 422
    assert "d20, d6" in few.json["errors"]["faces"][0]
    many = client.post(path, json={"dice": "d20", "faces": [4, 5]})
    assert many.status_code == 422
    assert "the dice in draw order: d20" in many.json["errors"]["faces"][0]


def test_a_command_answer_shows_its_events_as_the_event_list_does(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    client.post(f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-04"})
    client.post(f"/campaigns/{cid}/commands", json={"type": "enter_shop", **SHOP})
    answer = client.post(f"/campaigns/{cid}/commands", json={"type": "end_page"}).json
    assert len(answer["events"]) > 1
    first = answer["events"][0]["version"]

    listed = client.get(f"/campaigns/{cid}/events?after={first - 1}").json["items"]

    assert answer["events"] == listed
    assert listed[0]["data"]["command_versions"] == [first, answer["version"]]
