"""The group's library (``/library/heroes``, ``/library/items``) on both stores: what is saved is
read back exactly, by every token; a refused body names its field and stores nothing; who may add
and who may remove."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.model.samples import SCOUT
from domain.service.questlog import Questlog
from tests.api.conftest import client_as

Json = dict[str, Any]

MIRA: Json = {
    "id": "mira",
    "name": "Mira",
    "traits": {"STR": 2, "DEX": 1, "CON": 0, "INT": 1, "WIS": 0, "CHA": -1},
    "hp_max": 18,
    "def": 12,
    "atk": 2,
    "damage_dice": "1d6",
    "abilities": [
        {
            "id": "second-wind",
            "name": "Second Wind",
            "usage": "per_rest",
            "uses": 2,
            "context": "both",
            "effect": {"kind": "heal", "dice": "1d6"},
        },
        {
            "id": "lucky",
            "name": "Lucky",
            "usage": "surge",
            "cost": 1,
            "context": "combat",
            "effect": {"kind": "reroll", "keep": "better"},
        },
    ],
    "pool": {"name": "charges", "max": 3},
}
STIM: Json = {
    "id": "stim-pack",
    "name": "Stim Pack",
    "kind": "consumable",
    "effect": {"kind": "heal", "dice": "1d4"},
}


@pytest.fixture
def questlog(app: Questlog) -> Questlog:
    """The application on a fresh store of each kind (SQLite and PostgreSQL)."""
    return app


def token(questlog: Questlog, name: str, **kwargs: Any) -> str:
    """A new token's secret."""
    return questlog.access.create_token(name, **kwargs)[1]


def as_new(flask_app: Flask, questlog: Questlog, name: str, **kwargs: Any) -> FlaskClient:
    """A client acting as a new token."""
    return client_as(flask_app, token(questlog, name, **kwargs))


def test_a_saved_hero_is_read_back_exactly_by_every_token(
    flask_app: Flask, questlog: Questlog
) -> None:
    alice = as_new(flask_app, questlog, "alice")
    bob = as_new(flask_app, questlog, "bob")
    saved = alice.post("/library/heroes", json={"name": "Mira the Bold", "hero": MIRA})
    assert saved.status_code == 201, saved.json
    assert saved.json["hero"] == MIRA and saved.json["mine"] is True
    [seen] = bob.get("/library/heroes").json["heroes"]
    assert seen["hero"] == MIRA
    assert (seen["name"], seen["added_by"], seen["mine"]) == ("Mira the Bold", "alice", False)
    assert alice.get("/library/heroes").json["heroes"][0]["mine"] is True


def test_qc02_a_saved_hero_starts_a_campaign_as_select_hero_takes_it(
    flask_app: Flask, questlog: Questlog
) -> None:
    """QC-02: the library's hero is a select_hero body the campaign accepts as it was saved."""
    alice = as_new(flask_app, questlog, "alice")
    alice.post("/library/heroes", json={"name": "Mira", "hero": MIRA})
    [entry] = alice.get("/library/heroes").json["heroes"]
    cid = alice.post("/campaigns", json={"game": "quest-calendar", "name": "Mira's year"}).json[
        "id"
    ]
    body = {"type": "select_hero", "phase": "prologue", "hero": entry["hero"]}
    chosen = alice.post(f"/campaigns/{cid}/commands", json=body)
    assert chosen.status_code == 201, chosen.json
    hero = chosen.json["state"]["hero"]
    assert hero["id"] == "mira" and hero["pool"]["max"] == 3
    assert sorted(hero["abilities"]) == ["lucky", "second-wind"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "Bad", "hero": {**MIRA, "traits": {"STR": "lots"}}}, "hero.traits.STR"),
        ({"name": "Bad", "hero": {**MIRA, "damage_dice": "a sword"}}, "hero.damage_dice"),
        ({"name": "Bad", "hero": {k: v for k, v in MIRA.items() if k != "hp_max"}}, "hero.hp_max"),
        (
            {
                "name": "Bad",
                "hero": {**MIRA, "abilities": [{**MIRA["abilities"][0], "usage": "x"}]},
            },
            "hero.abilities[0].usage",
        ),
        ({"name": "", "hero": MIRA}, "name"),
        ({"hero": MIRA}, "name"),
        ({"name": "Bad", "hero": "Mira"}, "hero"),
        ({"name": "Bad", "hero": MIRA, "colour": "red"}, "colour"),
    ],
)
def test_a_refused_hero_names_its_field_and_stores_nothing(
    client: FlaskClient, body: Json, field: str
) -> None:
    response = client.post("/library/heroes", json=body)
    assert response.status_code == 422, response.json
    assert response.headers["Content-Type"].startswith("application/problem+json")
    assert field in response.json["errors"], response.json
    assert client.get("/library/heroes").json["heroes"] == []


def test_the_known_items_are_the_rulebooks_then_the_groups(
    flask_app: Flask, questlog: Questlog
) -> None:
    """G-QC-01: the rulebook's items as data, each said in words; the group adds its own."""
    alice = as_new(flask_app, questlog, "alice")
    known = alice.get("/library/items").json
    by_id = {entry["id"]: entry for entry in known["items"]}
    assert {"med-kit", "antidote", "wound-sealant", "strengthener-rx", "ship-parts"} <= set(by_id)
    assert {entry["source"] for entry in known["items"]} == {"rulebook"}
    assert "Cures Infected" in by_id["antidote"]["words"]
    assert "Strength" in by_id["strengthener-rx"]["words"]
    kinds = {choice["value"]: choice["words"] for choice in known["words"]["effect_kinds"]}
    assert kinds["reroll"] == "Roll again" and "heal" in kinds
    added = alice.post("/library/items", json={"item": STIM})
    assert added.status_code == 201, added.json
    bob = as_new(flask_app, questlog, "bob")
    last = bob.get("/library/items").json["items"][-1]
    assert (last["item"], last["source"], last["mine"]) == (STIM, "group", False)
    assert last["words"] == "Consumable (used up); Restores 1d4 HP"


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({**STIM, "kind": "snack"}, "item.kind"),
        ({**STIM, "effect": {"kind": "booster", "dice": "1d4"}}, "item.effect.trait"),
        ({**STIM, "effect": {"kind": "heal"}}, "item.effect"),
        ({"name": "No id", "kind": "consumable"}, "item.id"),
        ({**STIM, "id": "med-kit"}, "item.id"),  # a rulebook item's id: 409 not-held
        ({"id": "helmet", "kind": "equipment"}, "item.slot"),
    ],
)
def test_a_refused_item_names_its_field_and_stores_nothing(
    client: FlaskClient, item: Json, field: str
) -> None:
    response = client.post("/library/items", json={"item": item})
    taken = item.get("id") == "med-kit"
    assert response.status_code == (409 if taken else 422), response.json
    assert any(key.startswith(field) for key in response.json["errors"]), response.json
    assert {entry["source"] for entry in client.get("/library/items").json["items"]} == {"rulebook"}


def test_an_items_id_names_one_item(client: FlaskClient) -> None:
    assert client.post("/library/items", json={"item": STIM}).status_code == 201
    again = client.post("/library/items", json={"item": {**STIM, "name": "Other"}})
    assert again.status_code == 409 and "item.id" in again.json["errors"]  # the id is taken
    group = [e for e in client.get("/library/items").json["items"] if e["source"] == "group"]
    assert [e["item"]["name"] for e in group] == ["Stim Pack"]


def test_an_unknown_query_parameter_is_refused(client: FlaskClient) -> None:
    for path in ("/library/heroes", "/library/items"):
        response = client.get(path, query_string={"mine": "1"})
        assert response.status_code == 422 and response.json["errors"] == {
            "mine": ["Unknown field."]
        }


def test_who_reads_adds_and_removes(
    flask_app: Flask, questlog: Questlog, client: FlaskClient
) -> None:
    """Any token reads; a token that may play adds; only whoever added an entry, or an admin,
    removes it; an analyst, a viewer's share link and no token at all add nothing."""
    assert client_as(flask_app, None).get("/library/heroes").status_code == 401
    analyst = as_new(flask_app, questlog, "ana", role="analyst")
    assert analyst.get("/library/items").status_code == 200
    assert analyst.post("/library/heroes", json={"name": "A", "hero": MIRA}).status_code == 403
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "Shared"}).json["id"]
    viewer = client_as(flask_app, client.post(f"/campaigns/{cid}/share", json={}).json["token"])
    assert viewer.get("/library/heroes").status_code == 200
    assert viewer.post("/library/items", json={"item": STIM}).status_code == 403
    invited = client.post(f"/campaigns/{cid}/invites", json={"role": "player"}).json["token"]
    player = client_as(flask_app, invited)
    assert player.post("/library/items", json={"item": STIM}).status_code == 201
    alice = as_new(flask_app, questlog, "alice")
    bob = as_new(flask_app, questlog, "bob")
    scout = deepcopy(SCOUT)
    hero_id = alice.post("/library/heroes", json={"name": "Scout", "hero": scout}).json["id"]
    assert bob.delete(f"/library/heroes/{hero_id}").status_code == 403
    assert bob.delete("/library/items/stim-pack").status_code == 403
    assert len(bob.get("/library/heroes").json["heroes"]) == 1
    assert alice.delete(f"/library/heroes/{hero_id}").status_code == 200
    assert alice.delete(f"/library/heroes/{hero_id}").status_code == 404
    assert alice.get("/library/heroes").json["heroes"] == []
    assert alice.delete("/library/items/med-kit").status_code == 404  # the rulebook's stay
    assert client.delete("/library/items/stim-pack").status_code == 200  # an admin's
    assert all(e["source"] == "rulebook" for e in bob.get("/library/items").json["items"])
