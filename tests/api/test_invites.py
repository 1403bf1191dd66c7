"""Invitations (``POST /campaigns/{id}/invites``) and removing a member
(``DELETE /campaigns/{id}/members/{token_id}``), docs/access.md.

An invitation is a token the server makes for one campaign, with a role and, for a player in a
match, a seat among the match's players (CB-01: a player acts for its own seat only).
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.model import samples
from tests.api.conftest import client_as

Json = dict[str, Any]


@pytest.fixture
def match(client: FlaskClient) -> str:
    """A three-player match (A, B, C) owned by the admin client's token."""
    body = {"game": "calendar-board", "name": "M", **samples.SETUPS[0]}
    response = client.post("/campaigns", json=body)
    assert response.status_code == 201, response.json
    cid: str = response.json["id"]
    return cid


def members(client: FlaskClient, cid: str) -> list[Json]:
    """The campaign's members."""
    items: list[Json] = client.get(f"/campaigns/{cid}/members").json["items"]
    return items


def test_an_invitation_seats_a_player(flask_app: Flask, client: FlaskClient, match: str) -> None:
    """The token acts for its seat only, on this campaign only; the link carries it."""
    response = client.post(
        f"/campaigns/{match}/invites", json={"role": "player", "seat": "B", "name": "Bea"}
    )
    assert response.status_code == 201, response.json
    invite = response.json
    assert set(invite) == {"token_id", "name", "role", "seat", "token", "url"}
    assert (invite["name"], invite["role"], invite["seat"]) == ("Bea", "player", "B")
    assert invite["url"] == f"/app/campaigns/{match}#token={invite['token']}"
    bea = client_as(flask_app, invite["token"])
    me = bea.get(f"/campaigns/{match}/me").json
    assert (me["role"], me["seat"], me["can_manage"]) == ("player", "B", False)
    assert [c["id"] for c in bea.get("/campaigns").json["items"]] == [match]
    turn = bea.post(f"/campaigns/{match}/commands", json={"type": "end_turn", "player": "A"})
    assert turn.status_code == 403  # not its seat
    listed = {m["token_id"]: m for m in members(client, match)}
    assert listed[invite["token_id"]] == {
        "token_id": invite["token_id"],
        "role": "player",
        "seat": "B",
        "name": "Bea",
    }


@pytest.mark.parametrize(
    ("body", "field", "status"),
    [
        ({"role": "owner"}, "role", 422),
        ({"role": "player"}, "seat", 409),  # a match's player needs a seat: the game's
        ({"role": "player", "seat": "Z"}, "seat", 409),  # the match holds no player Z
        ({"role": "viewer", "seat": "A"}, "seat", 422),
        ({"role": "player", "seat": "B", "name": ""}, "name", 422),
    ],
)
def test_a_bad_invitation_names_the_field_and_creates_nothing(
    client: FlaskClient, match: str, body: Json, field: str, status: int
) -> None:
    """422 naming the field (409 not-held for a seat the match does not have); no token, no
    membership."""
    tokens = client.get("/admin/tokens").json["items"]
    before = members(client, match)
    response = client.post(f"/campaigns/{match}/invites", json=body)
    assert response.status_code == status, response.json
    assert field in response.json["errors"]
    assert client.get("/admin/tokens").json["items"] == tokens
    assert members(client, match) == before


def test_a_solo_campaign_invites_without_a_seat(client: FlaskClient, campaign: Json) -> None:
    """Quest Calendar has one hero: its player has no seat."""
    cid = campaign["id"]
    response = client.post(f"/campaigns/{cid}/invites", json={"role": "player"})
    assert response.status_code == 201, response.json
    assert response.json["seat"] is None
    seat = client.post(f"/campaigns/{cid}/invites", json={"role": "player", "seat": "A"})
    assert seat.status_code == 409 and "seat" in seat.json["errors"]  # the game has no seats


def test_removing_an_invited_member_revokes_its_token(
    flask_app: Flask, client: FlaskClient, match: str
) -> None:
    """The invited token held nothing else: it stops working at once."""
    invite = client.post(f"/campaigns/{match}/invites", json={"role": "auditor"}).json
    guest = client_as(flask_app, invite["token"])
    assert guest.get(f"/campaigns/{match}").status_code == 200
    removed = client.delete(f"/campaigns/{match}/members/{invite['token_id']}")
    assert removed.status_code == 200, removed.json
    assert removed.json == {
        "token_id": invite["token_id"],
        "role": "auditor",
        "seat": None,
        "revoked": True,
    }
    assert guest.get(f"/campaigns/{match}").status_code == 401
    assert invite["token_id"] not in {m["token_id"] for m in members(client, match)}


def test_a_share_link_is_revoked_with_its_membership(
    flask_app: Flask, client: FlaskClient, campaign: Json
) -> None:
    """A share link's token is made for the campaign too."""
    cid = campaign["id"]
    shared = client.post(f"/campaigns/{cid}/share", json={}).json
    removed = client.delete(f"/campaigns/{cid}/members/{shared['token_id']}")
    assert removed.json["revoked"] is True
    assert client_as(flask_app, shared["token"]).get(f"/campaigns/{cid}").status_code == 401


def test_removing_a_token_made_elsewhere_keeps_the_token(
    flask_app: Flask, client: FlaskClient, match: str, campaign: Json
) -> None:
    """A token the admin made may hold other roles: only this membership goes."""
    secret = client.post("/admin/tokens", json={"name": "bob"}).json["token"]
    for cid in (match, campaign["id"]):
        added = client.post(
            f"/campaigns/{cid}/members", json={"token_name": "bob", "role": "viewer"}
        )
        assert added.status_code == 201
    bob_id = client.get(f"/campaigns/{match}/members").json["items"]
    token_id = next(m["token_id"] for m in bob_id if m["name"] == "bob")
    removed = client.delete(f"/campaigns/{match}/members/{token_id}")
    assert removed.json["revoked"] is False
    bob = client_as(flask_app, secret)
    assert bob.get(f"/campaigns/{match}").status_code == 404
    assert bob.get(f"/campaigns/{campaign['id']}").status_code == 200


def test_unknown_member_and_last_owner(client: FlaskClient, match: str) -> None:
    """404 naming an unknown member; the last owner membership stays (409)."""
    unknown = client.delete(f"/campaigns/{match}/members/nobody")
    assert unknown.status_code == 404 and "nobody" in unknown.json["detail"]
    owner = next(m for m in members(client, match) if m["role"] == "owner")
    refused = client.delete(f"/campaigns/{match}/members/{owner['token_id']}")
    assert refused.status_code == 409 and refused.json["rule"] == "last-owner"
    assert owner in members(client, match)


def test_a_player_may_neither_invite_nor_remove(
    flask_app: Flask, client: FlaskClient, match: str
) -> None:
    """Both routes need the manage action (the owner's)."""
    invite = client.post(f"/campaigns/{match}/invites", json={"role": "player", "seat": "C"}).json
    player = client_as(flask_app, invite["token"])
    assert player.post(f"/campaigns/{match}/invites", json={"role": "viewer"}).status_code == 403
    gone = player.delete(f"/campaigns/{match}/members/{invite['token_id']}")
    assert gone.status_code == 403


def test_an_unnamed_invitation_is_called_by_what_it_is_for(
    flask_app: Flask, client: FlaskClient, match: str
) -> None:
    """Trial snag 11: "seat B", "viewer", "auditor", with a suffix only when the name is taken;
    the members list and the actor of the token's events read it."""
    made = [
        client.post(f"/campaigns/{match}/invites", json=body).json
        for body in (
            {"role": "player", "seat": "B"},
            {"role": "viewer"},
            {"role": "auditor"},
            {"role": "player", "seat": "B"},
        )
    ]
    assert [m["name"] for m in made] == ["seat B", "viewer", "auditor", "seat B (2)"]
    listed = {m["token_id"]: m["name"] for m in members(client, match)}
    assert listed[made[0]["token_id"]] == "seat B"
    b = client_as(flask_app, made[0]["token"])
    client.post(f"/campaigns/{match}/commands", json={"type": "end_turn", "player": "A"})
    ended = b.post(f"/campaigns/{match}/commands", json={"type": "end_turn", "player": "B"})
    assert ended.status_code == 201, ended.json
    events = client.get(f"/campaigns/{match}/events?limit=1000").json["items"]
    assert events[-1]["actor"] == f"seat B#{made[0]['token_id']}"
