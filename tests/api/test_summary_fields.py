"""Every event and roll the API returns carries ``summary``, its line in words.

The summary is computed when the event is read (``domain.model.events.summaries``) and never
stored: it is outside the hashed body, not in an idempotency row, and not in a bundle.
"""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from domain.model.events.summaries import fallback
from tests.api.conftest import TokenClient
from tests.api.test_command_routes import qc_campaign
from tests.api.test_live_stream import Reader, open_stream

Json = dict[str, Any]


def has_summary(event: Json) -> bool:
    """An event shown with a summary of its own type (not the generic fallback)."""
    summary = event.get("summary")
    return isinstance(summary, str) and bool(summary) and summary != fallback(event["type"])


def played(client: FlaskClient) -> tuple[str, Json]:
    """A Quest Calendar campaign with a hero, a page, a trait check on faces 13 and a plain roll;
    the check's 201 answer."""
    cid = qc_campaign(client)
    assert (
        client.post(
            f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "2027-01-04"}
        ).status_code
        == 201
    )
    check = client.post(
        f"/campaigns/{cid}/commands",
        json={"type": "trait_check", "trait": "INT", "target": 12, "faces": [13]},
    )
    assert check.status_code == 201, check.json
    return cid, check.json


def test_a_command_s_answer_lists_each_event_with_its_summary(client: FlaskClient) -> None:
    _, answer = played(client)

    (event,) = answer["events"]
    assert event["type"] == "qc.CheckRolled"
    details = event["data"]["details"]
    modifier = details["total"] - 13
    assert event["summary"] == (
        f"INT check: 13 + {modifier} = {details['total']} against 12: "
        f"{'success' if details['success'] else 'failed'}"
    )
    assert "summary" not in event["data"]


def test_the_event_list_the_replay_and_the_stream_show_every_event_with_its_summary(
    client: TokenClient,
) -> None:
    cid, _ = played(client)
    client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20+2", "purpose": "open the door"})

    events = client.get(f"/campaigns/{cid}/events").json["items"]
    replayed = [step["event"] for step in client.get(f"/campaigns/{cid}/replay").json["items"]]
    reader = Reader(open_stream(client, cid), want=len(events))
    reader.start()
    streamed = [message["data"] for message in reader.done()]

    assert len(events) == 5 and all(has_summary(e) for e in events), events
    assert replayed == events
    assert streamed == events
    assert events[0]["summary"] == (
        "quest-calendar campaign “cmd” started, committed to its first dice seed"
    )
    assert events[-1]["summary"].startswith("open the door: ")


def test_each_roll_has_its_summary_with_the_outcome_of_the_game_event_that_made_it(
    client: FlaskClient,
) -> None:
    cid, answer = played(client)
    posted = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20+2", "purpose": "door"})
    assert posted.status_code == 201
    face = posted.json["dice"][0]["face"]
    assert posted.json["summary"] == f"door: {face} + 2 = {face + 2} (1d20+2)"

    rolls = client.get(f"/campaigns/{cid}/rolls").json["items"]
    check_roll, door = rolls
    event_summary = answer["events"][0]["summary"]
    assert check_roll["summary"] == f"INT check: 13 (1d20) — {event_summary}"
    assert door["summary"] == posted.json["summary"]
    one = client.get(f"/campaigns/{cid}/rolls/{check_roll['roll_id']}").json
    assert one["summary"] == check_roll["summary"]


def test_the_other_appends_are_summarised_in_the_event_list(client: FlaskClient) -> None:
    cid, _ = played(client)
    client.post(f"/campaigns/{cid}/house-rules", json={"key": "qc.combat.mode", "value": "easy"})
    client.post(f"/campaigns/{cid}/dice/client-seed", json={"client_seed": "lucky"})
    client.post(f"/campaigns/{cid}/dice/rotate")
    rolled_back = client.post(
        f"/campaigns/{cid}/rollback", json={"to_version": 3, "reason": "oops"}
    )
    assert rolled_back.status_code == 201, rolled_back.json

    events = client.get(f"/campaigns/{cid}/events?after=4").json["items"]

    assert [e["type"].split(".")[1] for e in events] == [
        "HouseRuleConfigured",
        "ClientSeedChanged",
        "SeedRotated",
        "RolledBack",
    ]
    assert all(has_summary(e) for e in events), events
    assert events[0]["summary"].startswith("House rule combat mode: standard → easy")
    assert events[-1]["summary"].startswith("Rolled back to version 3 by ")


def test_a_bundle_stays_as_it_was_without_summaries(client: FlaskClient) -> None:
    cid, _ = played(client)

    bundle = client.get(f"/campaigns/{cid}/bundle").json

    assert bundle["events"] and all("summary" not in e for e in bundle["events"])


def test_a_replayed_command_answer_carries_the_summary_although_its_row_does_not(
    client: FlaskClient,
) -> None:
    cid = qc_campaign(client)
    body = {"type": "start_page", "date": "2027-01-04"}
    headers = {"Idempotency-Key": "page-1"}

    first = client.post(f"/campaigns/{cid}/commands", json=body, headers=headers)
    again = client.post(f"/campaigns/{cid}/commands", json=body, headers=headers)

    assert first.status_code == again.status_code == 201
    assert first.json["events"] == again.json["events"]
    assert first.json["events"][0]["summary"] == "Page 2027-01-04 (Monday) begins"


def test_the_openapi_document_declares_the_summaries(client: FlaskClient) -> None:
    schemas = client.get("/openapi.json").json["components"]["schemas"]

    assert schemas["Event"]["properties"]["summary"]["type"] == "string"
    assert schemas["Roll"]["properties"]["summary"]["type"] == "string"
