"""``GET /campaigns/{id}/actions`` and ``GET /samples``, on SQLite and on PostgreSQL.

The actions route says what the state accepts by the rules: QC-02 (a hero first), QC-17 (a page
for most commands), a pending decision accepting exactly its commands; in a match CB-01 (whose
turn), CB-33 (a night action only when asked); and the undo of the last command by the rollback
policy (``rollback_over_server_rolls``; a match always proposes).
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from domain.model import samples
from tests.api.conftest import TokenClient, client_as

Json = dict[str, Any]


def actions(client: FlaskClient, cid: str) -> Json:
    """The actions of a campaign (200 expected)."""
    response = client.get(f"/campaigns/{cid}/actions")
    assert response.status_code == 200, response.json
    body: Json = response.json
    return body


def command(client: FlaskClient, cid: str, body: Json, faces: list[int] | None = None) -> Json:
    """Run a command (201 expected); with ``faces`` the dice are hand-rolled."""
    sent = body if faces is None else {**body, "faces": faces}
    response = client.post(f"/campaigns/{cid}/commands", json=sent)
    assert response.status_code == 201, response.json
    result: Json = response.json
    return result


def hero(index: int) -> Json:
    """A sample hero's select_hero body (without type)."""
    body: Json = samples.samples()["heroes"][index]["hero"]
    return body


def by_name(body: Json) -> dict[str, Json]:
    """The commands of an actions answer by name."""
    return {entry["name"]: entry for entry in body["commands"]}


def test_a_new_campaign_offers_a_hero_first(store_client: TokenClient) -> None:
    """QC-02: before a hero, trait checks are refused; nothing to undo yet."""
    cid = store_client.post("/campaigns", json={"game": "quest-calendar", "name": "A"}).json["id"]
    body = actions(store_client, cid)
    assert body["version"] == 1
    assert body["pending"] is None and body["turn"] is None and body["undo"] is None
    commands = by_name(body)
    assert commands["select_hero"] == {"name": "select_hero", "available": True}
    assert commands["trait_check"]["available"] is False
    assert commands["trait_check"]["rule"] == "QC-02"
    assert commands["start_page"]["available"] is True
    assert commands["resolve_round"]["rule"] == "pending-decision"


def test_undo_names_the_last_command_and_the_policy(store_client: TokenClient) -> None:
    """The last command's events are undone together; allow is direct, forbid with a server
    roll undone needs a proposal (docs/time-travel.md)."""
    cid = store_client.post("/campaigns", json={"game": "quest-calendar", "name": "B"}).json["id"]
    command(store_client, cid, {"type": "select_hero", **hero(0)})
    command(store_client, cid, {"type": "start_page", "date": "01-04"})
    body = actions(store_client, cid)
    assert body["undo"] == {
        "to_version": 2,
        "command": "start_page",
        "from_version": 3,
        "policy": "direct",
        "reason": "rollback_over_server_rolls is allow",
    }
    assert by_name(body)["trait_check"] == {"name": "trait_check", "available": True}
    assert by_name(body)["buy"]["rule"] == "QC-57"
    rule = {"key": "rollback_over_server_rolls", "value": "forbid"}
    assert store_client.post(f"/campaigns/{cid}/house-rules", json=rule).status_code == 200
    command(store_client, cid, {"type": "trait_check", "trait": "STR", "target": 12})
    undo = actions(store_client, cid)["undo"]
    assert (undo["command"], undo["policy"]) == ("trait_check", "proposal")
    assert "1 server roll" in undo["reason"]


def test_a_pending_decision_accepts_exactly_its_commands(store_client: TokenClient) -> None:
    """QC-39: a pickpocket 4 waits for decide_pickpocket; every other command names QC-39."""
    cid = store_client.post("/campaigns", json={"game": "quest-calendar", "name": "C"}).json["id"]
    command(store_client, cid, {"type": "select_hero", **hero(0)})
    command(store_client, cid, {"type": "start_page", "date": "01-04"})
    command(store_client, cid, {"type": "pickpocket", "icon_id": "p1"}, [4])
    body = actions(store_client, cid)
    assert body["pending"]["decision"] == "pickpocket_four"
    assert body["pending"]["commands"] == ["decide_pickpocket"]
    assert body["pending"]["context"]["d4"] == 4
    available = [e["name"] for e in body["commands"] if e["available"]]
    assert available == ["decide_pickpocket"]
    assert {e["rule"] for e in body["commands"] if not e["available"]} == {"QC-39"}
    # The undo covers the whole pickpocket command (its roll and its decision).
    assert body["undo"]["command"] == "pickpocket"
    assert body["undo"]["to_version"] == 3


def match(client: FlaskClient) -> str:
    """A three-player match from the samples."""
    setup = samples.SETUPS[0]
    body = {"game": "calendar-board", "name": "M", **setup}
    response = client.post("/campaigns", json=body)
    assert response.status_code == 201, response.json
    cid: str = response.json["id"]
    return cid


def seated(flask_app: Flask, client: FlaskClient, cid: str, seat: str) -> TokenClient:
    """A client whose invitation seats it at ``seat``."""
    invite = client.post(f"/campaigns/{cid}/invites", json={"role": "player", "seat": seat})
    assert invite.status_code == 201, invite.json
    return client_as(flask_app, invite.json["token"])


def test_a_match_says_whose_turn_it_is(store_app: Flask, store_client: TokenClient) -> None:
    """CB-01: A plays first; B's seat sees "yours" once A ends the turn; a night action waits
    for its decision (CB-33); a match undoes by proposal."""
    cid = match(store_client)
    b = seated(store_app, store_client, cid, "B")
    first = actions(b, cid)
    assert first["turn"] == {"player": "A", "phase": "day", "step": None, "yours": False}
    assert by_name(first)["end_turn"]["available"] is True
    assert by_name(first)["night_action"]["rule"] == "CB-33"
    command(store_client, cid, {"type": "end_turn", "player": "A"})
    after = actions(b, cid)
    assert after["turn"]["player"] == "B" and after["turn"]["yours"] is True
    assert after["undo"]["policy"] == "proposal"
    assert after["undo"]["command"] == "end_turn"
    assert actions(store_client, cid)["turn"]["yours"] is False  # the admin holds no seat


def test_a_viewer_or_a_solo_player_may_read_the_actions_but_not_undo(
    store_app: Flask, store_client: TokenClient
) -> None:
    """A viewer reads (GET is read access) and its undo is forbidden; so is a quest-calendar
    player's, which may neither roll back nor propose as a seat."""
    cid = store_client.post("/campaigns", json={"game": "quest-calendar", "name": "V"}).json["id"]
    command(store_client, cid, {"type": "select_hero", **hero(1)})
    invite = store_client.post(f"/campaigns/{cid}/invites", json={"role": "viewer"})
    viewer = client_as(store_app, invite.json["token"])
    assert actions(viewer, cid)["undo"]["policy"] == "forbidden"
    # A solo game's player has no seat to propose as, and may not roll back directly.
    invite = store_client.post(f"/campaigns/{cid}/invites", json={"role": "player"})
    player = client_as(store_app, invite.json["token"])
    assert actions(player, cid)["undo"]["policy"] == "forbidden"
    assert actions(store_client, cid)["undo"]["policy"] == "direct"


def test_unknown_campaign_is_404(client: FlaskClient) -> None:
    """An unknown campaign is a 404."""
    response = client.get("/campaigns/00000000-0000-0000-0000-000000000000/actions")
    assert response.status_code == 404


def test_the_samples_are_accepted_by_the_rules(client: FlaskClient) -> None:
    """Every sample hero is a select_hero body (QC-02, QC-04, QC-05) and every sample set-up
    starts a match with its house rules."""
    body = client.get("/samples").json
    assert [h["name"] for h in body["heroes"]] == [h["name"] for h in samples.HEROES]
    for hero in body["heroes"]:
        cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "H"}).json["id"]
        done = command(client, cid, {"type": "select_hero", **hero["hero"]})
        assert done["state"]["hero"]["name"] == hero["name"]
    for setup in body["setups"]:
        payload = {"game": "calendar-board", "name": setup["name"], **setup}
        response = client.post("/campaigns", json=payload)
        assert response.status_code == 201, (setup["name"], response.json)
        players = [p["id"] for p in setup["setup"]["players"]]
        assert response.json["state"]["players"] == players


def test_undo_skips_rollback_proposals_and_votes(
    store_app: Flask, store_client: TokenClient
) -> None:
    """Trial snag 12: after B proposes undoing end_turn and C agrees, undo still names end_turn
    and the version before it, never the proposal or one's own agreement."""
    cid = match(store_client)
    b, c = (seated(store_app, store_client, cid, seat) for seat in ("B", "C"))
    command(store_client, cid, {"type": "end_turn", "player": "A"})
    before = actions(b, cid)["undo"]
    proposal = {"to_version": before["to_version"], "reason": "misclick", "proposer": "B"}
    proposed = b.post(f"/campaigns/{cid}/rollback/proposals", json=proposal)
    assert proposed.status_code == 201, proposed.json
    pid = proposed.json["proposal"]["proposal_id"]
    agreed = c.post(f"/campaigns/{cid}/rollback/proposals/{pid}/approve", json={"player": "C"})
    assert agreed.status_code == 200, agreed.json
    after = actions(b, cid)["undo"]
    assert (after["command"], after["to_version"]) == ("end_turn", before["to_version"])
    assert after["from_version"] == before["from_version"]


def test_undo_of_a_plain_dice_roll_names_a_roll(store_client: TokenClient) -> None:
    """A roll of the dice (no game command) is undone as "roll", not as its event type."""
    cid = store_client.post("/campaigns", json={"game": "quest-calendar", "name": "R"}).json["id"]
    rolled = store_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20", "purpose": "x"})
    assert rolled.status_code == 201, rolled.json
    assert actions(store_client, cid)["undo"]["command"] == "roll"
