"""Calendar Board routes: a match through the commands route, and the modifier queries."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

SETUP: dict[str, Any] = {
    "players": [
        {
            "id": "A",
            "pieces": [
                {
                    "id": "a1",
                    "location": {"kind": "pathway", "space": 3},
                    "facing": "E",
                    "adaptability": 1,
                }
            ],
        },
        {"id": "B", "pieces": [{"id": "b1", "location": {"kind": "pathway", "space": 7}}]},
        {"id": "C", "pieces": [{"id": "c1", "location": {"kind": "home"}}]},
    ],
    "starting_token": "A",
}


def match(client: FlaskClient, **house: Any) -> str:
    body = client.post(
        "/campaigns",
        json={"game": "calendar-board", "name": "m", "setup": SETUP, "house_rules": house},
    )
    assert body.status_code == 201, body.json
    cid: str = body.json["id"]
    return cid


def test_cb22_cb32_modifiers_for_a_piece(client: FlaskClient) -> None:
    cid = match(client)
    normal = client.get(f"/campaigns/{cid}/modifiers?player=A&piece=a1&range=4").json
    assert normal["weather"]["tackle"] == 0
    assert normal["weather"]["sight_range"] == 4
    assert normal["wind"]["relation"] == "none"


def test_modifier_query_names_the_bad_field(client: FlaskClient) -> None:
    cid = match(client)
    assert "player" in client.get(f"/campaigns/{cid}/modifiers?player=Z&piece=a1").json["errors"]
    assert "piece" in client.get(f"/campaigns/{cid}/modifiers?player=A&piece=zz").json["errors"]
    assert client.get(f"/campaigns/{cid}/modifiers").status_code == 422


def test_the_modifier_query_schema_owns_facing_and_range(client: FlaskClient) -> None:
    cid = match(client)
    for query, field in (("facing=NE", "facing"), ("range=-1", "range"), ("range=x", "range")):
        response = client.get(f"/campaigns/{cid}/modifiers?player=A&piece=a1&{query}")
        assert response.status_code == 422, query
        assert field in response.json["errors"], query


def test_cb01_a_night_through_the_api_with_reported_dice(client: FlaskClient) -> None:
    cid = match(client)
    for player in ("A", "B"):
        ok = client.post(f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": player})
        assert ok.status_code == 201, ok.json
    out_of_turn = client.post(
        f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": "A"}
    )
    assert out_of_turn.status_code == 409
    assert out_of_turn.json["rule"] == "CB-01"
    night = client.post(f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": "C"}).json
    holder = night["state"]["god_token"]
    types: list[str] = []
    for kind, faces in (("basketball", [14, 17]), ("calendar", [2]), ("wind", [17])):
        # CB-06, CB-09, CB-30: each of the night's rolls is asked of the god-token holder
        assert (night["pending"]["decision"], night["pending"]["who"]) == ("night_roll", holder)
        assert night["pending"]["context"]["roll"] == kind
        body = {"type": "roll_night", "player": holder, "roll": kind, "faces": faces}
        night = client.post(f"/campaigns/{cid}/commands", json=body).json
        types += [e["type"] for e in night["events"]]
    assert "cb.BasketballShotRolled" in types
    assert night["state"]["board"]["god_piece"] == 2
    assert night["state"]["weather"]["pending"] == "rain"
    assert night["state"]["wind"] == {"speed": "heavy", "direction": "north"}
    assert night["pending"]["decision"] == "night_action"
    assert night["pending"]["who"] == "A"
    wrong = client.post(
        f"/campaigns/{cid}/commands",
        json={"type": "night_action", "player": "B", "action": "sleep"},
    )
    assert wrong.status_code == 409
    for player in ("A", "B", "C"):
        done = client.post(
            f"/campaigns/{cid}/commands",
            json={"type": "night_action", "player": player, "action": "sleep"},
        )
        assert done.status_code == 201, done.json
    state = done.json["state"]
    assert state["round"] == 2
    assert state["weather"]["current"] == "rain"
    assert "wet" in state["parties"]["A"]["pieces"]["a1"]["conditions"]
    rain = client.get(f"/campaigns/{cid}/modifiers?player=A&piece=a1").json
    assert rain["weather"]["tackle"] == -3
    assert rain["weather"]["movement_six_bonus_roll"] is False
    assert rain["wind"]["relation"] == "sideways"


def test_modifiers_are_for_matches_only(client: FlaskClient, campaign: dict[str, Any]) -> None:
    response = client.get(f"/campaigns/{campaign['id']}/modifiers?player=A&piece=a1")
    assert response.status_code == 409
