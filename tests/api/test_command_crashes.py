"""Valid JSON that crashed the server (500), and the small validation gaps beside them.

Each defect found by generating commands from their schemas (tests/api/test_command_fuzz.py) is
pinned here by name, on SQLite and PostgreSQL: the body that failed, the answer it gets now, and
that a refused body stores nothing.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.model import samples
from tests.api.conftest import stored_state
from tests.browser import game_plan as plan

Json = dict[str, Any]
SURROGATE = "\ud800"
"""A lone surrogate: JSON carries it as the escape "\\ud800", but it is not Unicode text."""
NOT_UNICODE = ["must be valid Unicode text (no lone surrogates)"]

FOCUS_PILL: Json = {
    "id": "focus-pill",
    "name": "Focus Pill",
    "kind": "consumable",
    "effect": {"kind": "booster", "trait": "INT", "amount": 2},
}
"""A booster of a flat amount: no dice (QC-18)."""


def hero_on_a_page(client: FlaskClient, **hero: Any) -> str:
    """A Quest Calendar campaign whose hero (the Vanguard wearing nothing, changed by ``hero``)
    has a page open."""
    created = client.post("/campaigns", json={**plan.QC_CAMPAIGN, "name": "i27"})
    assert created.status_code == 201, created.json
    cid: str = created.json["id"]
    chosen = {**samples.VANGUARD, "equipped": [], **hero}  # its gear may be left out
    body = {"type": "select_hero", "phase": "main", "hero": chosen}
    for command in (body, {"type": "start_page", "date": "2027-01-04"}):
        response = client.post(f"/campaigns/{cid}/commands", json=command)
        assert response.status_code == 201, response.json
    return cid


def refused(client: FlaskClient, cid: str, body: Json) -> Json:
    """POST a command that must be a 422 and store nothing; its problem body."""
    before = stored_state(client, cid)
    response = client.post(f"/campaigns/{cid}/commands", json=body)
    assert response.status_code == 422, response.json
    assert stored_state(client, cid) == before
    problem: Json = response.json
    return problem


def match(**changes: Any) -> Json:
    """The three-player match, with ``changes`` to its first party and its house rules."""
    body = copy.deepcopy(plan.CB_CAMPAIGN)
    body["setup"]["players"][0].update(changes.pop("party", {}))
    body["house_rules"].update(changes.pop("house", {}))
    return body


def not_created(client: FlaskClient, body: Json) -> Json:
    """POST /campaigns that must be a 422 and create nothing; its problem body."""
    before = len(client.get("/campaigns?limit=1000").json["items"])
    response = client.post("/campaigns", json=body)
    assert response.status_code == 422, response.json
    assert len(client.get("/campaigns?limit=1000").json["items"]) == before
    problem: Json = response.json
    return problem


# -- an event field declared as a string, emitted as None ---------------------------------------


def test_qc18_a_flat_amount_booster_is_recorded_with_null_dice(store_client: FlaskClient) -> None:
    """A booster with an amount and no dice: TraitBoosterApplied's ``dice`` was declared a string
    and emitted as None, so using the item was a 500. It is declared ``string|null`` now."""
    cid = hero_on_a_page(store_client, inventory=[FOCUS_PILL])
    response = store_client.post(
        f"/campaigns/{cid}/commands", json={"type": "use_item", "item": "focus-pill"}
    )
    assert response.status_code == 201, response.json
    [boost] = [e for e in response.json["events"] if e["type"].endswith("TraitBoosterApplied")]
    details = boost["data"]["details"]
    assert (details["dice"], details["bonus"], details["booster_after"]) == (None, 2, 2)
    assert boost["summary"] == "Focus Pill boosts INT by +2 (booster 0 → 2)"
    assert response.json["state"]["page"]["boosters"] == {"INT": 2}


# -- a lone surrogate anywhere in a command, a setup or a house rule ----------------------------

COMMANDS_WITH_A_SURROGATE = [
    ({"type": "gain_credits", "amount": 1, "cause": SURROGATE}, "cause"),
    ({"type": "hire_crew", "crew": {"id": SURROGATE, "name": "Vex"}, "fee": 0}, "crew.id"),
    (
        {
            "type": "start_combat",
            "kind": "one_enemy",
            "rounds": [plan.printed_round(SURROGATE, 1, 1, 1, 1, 1)],
        },
        "rounds[0].enemy",
    ),
    ({"type": "pay", "purpose": f"toll {SURROGATE}", "cost": 1}, "purpose"),
    ({"type": "gain_credits", "amount": 1, SURROGATE: 1}, "\\ud800"),
    ({"type": "gain_credits", "amount": 1, "faces": [{"tens": SURROGATE}]}, "faces[0].tens"),
]


@pytest.mark.parametrize(
    ("body", "path"),
    COMMANDS_WITH_A_SURROGATE,
    ids=["cause", "crew-id", "round-enemy", "purpose", "a-key", "a-face"],
)
def test_a_lone_surrogate_in_a_command_is_a_422_naming_its_path(
    store_client: FlaskClient, body: Json, path: str
) -> None:
    """The chain hashed the body and failed (500); now the whole body is checked first."""
    cid = hero_on_a_page(store_client)
    problem = refused(store_client, cid, body)
    assert problem["errors"] == {
        path: NOT_UNICODE if path != "\\ud800" else ["a key " + NOT_UNICODE[0]]
    }


def test_a_lone_surrogate_in_a_setup_is_a_422_naming_its_path(store_client: FlaskClient) -> None:
    body = match()
    body["setup"]["players"][0]["weapons"][0]["id"] = SURROGATE
    problem = not_created(store_client, body)
    # every body is checked whole at the door, so the path starts at the body's root
    assert problem["errors"] == {"setup.players[0].weapons[0].id": NOT_UNICODE}


@pytest.mark.parametrize(
    ("house_rules", "path"),
    [
        ({"qc.equipment.types": ["weapon", SURROGATE]}, "house_rules.qc.equipment.types[1]"),
        ({"qc.prologue.endPage": SURROGATE}, "house_rules.qc.prologue.endPage"),
    ],
    ids=["list-item", "text"],
)
def test_a_lone_surrogate_in_a_house_rule_is_a_422_naming_it(
    store_client: FlaskClient, house_rules: Json, path: str
) -> None:
    body = {"game": "quest-calendar", "name": "i27", "house_rules": house_rules}
    assert not_created(store_client, body)["errors"] == {path: NOT_UNICODE}


def test_a_lone_surrogate_in_a_house_rule_change_is_a_422_naming_it(
    store_client: FlaskClient,
) -> None:
    cid = hero_on_a_page(store_client)
    before = stored_state(store_client, cid)
    change = {"key": "qc.equipment.types", "value": ["weapon", SURROGATE]}
    response = store_client.post(f"/campaigns/{cid}/house-rules", json=change)
    assert response.status_code == 422, response.json
    assert response.json["errors"] == {"value[1]": NOT_UNICODE}
    assert stored_state(store_client, cid) == before


def test_odd_but_valid_unicode_is_stored_as_sent(store_client: FlaskClient) -> None:
    """Only text UTF-8 cannot encode is refused: a surrogate pair (one emoji), right-to-left
    marks, zero-width and combining characters are text like any other."""
    cid = hero_on_a_page(store_client)
    cause = "\ud83d\ude00 \u202eevil\u200b e\u0301"
    response = store_client.post(
        f"/campaigns/{cid}/commands", json={"type": "gain_credits", "amount": 1, "cause": cause}
    )
    assert response.status_code == 201, response.json
    assert response.json["events"][0]["data"]["command"]["cause"] == "😀 \u202eevil\u200b e\u0301"


# -- a weapon's ammunition given as null --------------------------------------------------------


def test_a_weapon_with_ammo_null_has_its_default_ammo(store_client: FlaskClient) -> None:
    """``"ammo": null`` (the schema declares it nullable) crashed the capacity check with a
    TypeError; null counts as left out, so it is the default, 0."""
    body = match()
    body["setup"]["players"][0]["weapons"][0]["ammo"] = None
    response = store_client.post("/campaigns", json=body)
    assert response.status_code == 201, response.json
    assert response.json["state"]["parties"]["A"]["weapons"]["bow"]["ammo"] == 0


def test_a_weapon_with_ammo_max_null_holds_no_ammunition(store_client: FlaskClient) -> None:
    """``"ammo_max": null`` is the default capacity, 0: the bow's 1 ammunition does not fit."""
    body = match()
    body["setup"]["players"][0]["weapons"][0]["ammo_max"] = None
    problem = not_created(store_client, body)
    assert problem["errors"] == {"players[0].weapons[0].ammo": ["must not exceed ammo_max"]}


# -- set-ups the house rules bound --------------------------------------------------------------


def test_g_cb26_a_setup_exhaustion_above_the_house_maximum_is_refused(
    store_client: FlaskClient,
) -> None:
    """CB-34, G-CB-26: exhaustion is kept within 0..cb.exhaustion.max; a set-up of 20 under a
    maximum of 5 was accepted."""
    body = match(party={"exhaustion": 20}, house={"cb.exhaustion.max": 5})
    problem = not_created(store_client, body)
    assert problem["errors"] == {
        "players[0].exhaustion": ["must be at most 5 (house rule cb.exhaustion.max, G-CB-26)"]
    }
    allowed = match(party={"exhaustion": 20}, house={"cb.exhaustion.max": 20})
    response = store_client.post("/campaigns", json=allowed)
    assert response.status_code == 201, response.json
    assert response.json["state"]["parties"]["A"]["exhaustion"] == 20


def test_g_cb06_a_setup_relationship_below_the_floor_is_refused(store_client: FlaskClient) -> None:
    """G-CB-06: a relationship never goes below cb.relationship.floor, from the start either."""
    body = match(
        party={"partner": "catboyBoyfriend", "relationship": 3},
        house={"cb.relationship.floor": 5},
    )
    problem = not_created(store_client, body)
    assert problem["errors"] == {
        "players[0].relationship": [
            "must be at least 5 (house rule cb.relationship.floor, G-CB-06)"
        ]
    }


# -- resolve_rounds' round numbers --------------------------------------------------------------


@pytest.mark.parametrize("key", ["banana", "0", "01", "51", "-1", " 2", "2.0"])
def test_qc29_resolve_rounds_round_numbers_are_checked_by_the_schema(
    store_client: FlaskClient, key: str
) -> None:
    """Any string was accepted as a round number and the command refused later, with a 409 (no
    decision pending): the schema now refuses it first, a 422 naming the key."""
    cid = hero_on_a_page(store_client)
    body = {"type": "resolve_rounds", "assignments": {key: ["smite"]}}
    problem = refused(store_client, cid, body)
    assert problem["errors"] == {"assignments": [f"{key!r} is not a round number (1 to 50)"]}


def test_qc29_a_round_number_the_schema_accepts_meets_the_rules(
    store_client: FlaskClient,
) -> None:
    cid = hero_on_a_page(store_client)
    body = {"type": "resolve_rounds", "assignments": {"2": ["smite"]}}
    response = store_client.post(f"/campaigns/{cid}/commands", json=body)
    assert response.status_code == 409, response.json
    assert response.json["rule"] == "QC-20"  # no combat is open
