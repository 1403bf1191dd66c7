"""The document is the contract: command bodies generated from the served OpenAPI document alone
are refused with 422 only for causes the document cannot state.

For every command schema in ``/openapi.json`` (the oneOf of POST /campaigns/{campaign}/commands),
Schemathesis generates bodies from that schema alone, seeded so that a run is stable; each body
is checked against the document (a body the document refuses is not counted) and sent to a
fresh campaign of the command's game, and for Quest Calendar also to one with a hero on an open
page. A stored command is rolled back, so every body meets the same campaign.

Answers: 201 (stored), 409 (a rule refuses it in this state: fine), 422. A 422 must have a cause
on ``CANNOT_SAY``: a check JSON Schema (OpenAPI 3.0) cannot state, which the field's description
states in words (this file checks that it does). What the campaign does not hold (a player, an
item, an ability...) is the state's refusal, a 409 under the core rule ``known-names``, never a
422. The share of document-valid bodies refused with 422 must stay under ``MAX_SHARE``.
``QUESTLOG_DOC_BODIES=n`` sends n bodies per command and campaign (default ``CI_BODIES``); ``-s``
prints the figures per command and per cause.
"""

from __future__ import annotations

import copy
import os
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from openapi_schema_validator import OAS30Validator

from domain.model import samples
from tests.api.refusal_causes import COMMAND_CAUSES as CANNOT_SAY
from tests.api.refusal_causes import CommandCause as Cause
from tests.api.refusal_causes import errors
from webapi.schemas.catalogue import COMMANDS

Json = dict[str, Any]
PATH = "/campaigns/{campaign}/commands"
CI_BODIES = 25
"""Bodies per command and campaign in CI: the whole test stays well under a minute."""
MAX_SHARE = 0.05
"""At most this share of document-valid bodies may be refused with 422."""
ROLLBACK_ALLOWED = {"rollback_over_server_rolls": "allow"}


def per_command() -> int:
    """How many bodies each command gets per campaign."""
    return int(os.environ.get("QUESTLOG_DOC_BODIES", CI_BODIES))


def one_command_document(document: Json, component: str) -> Json:
    """The document with the commands route alone, its body this one command's schema."""
    single = copy.deepcopy(document)
    operation = single["paths"][PATH]["post"]
    operation["requestBody"]["content"]["application/json"] = {
        "schema": {"$ref": f"#/components/schemas/{component}"}
    }
    single["paths"] = {PATH: {"post": operation}}
    return single


def bodies(document: Json, component: str, count: int) -> list[Json]:
    """``count`` bodies Schemathesis generates from the command's schema, derandomized."""
    operation = schemathesis.openapi.from_dict(one_command_document(document, component))
    made: list[Json] = []

    @given(case=operation[PATH]["POST"].as_strategy())
    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    def draw(case: Any) -> None:
        made.append(case.body)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        draw()
    return made


def validator(document: Json, component: str) -> OAS30Validator:
    """A validator of the command's schema as the document states it."""
    schema = {"$ref": f"#/components/schemas/{component}", "components": document["components"]}
    return OAS30Validator(schema)


@dataclass
class Campaign:
    """A campaign the bodies are sent to, and the version a stored command goes back to."""

    name: str
    game: str
    id: str
    base: int


def new_campaign(client: FlaskClient, name: str, game: str, *commands: Json) -> Campaign:
    """A campaign of ``game`` (rollbacks allowed) after ``commands``."""
    setup: Json = {"players": [{"id": "A"}, {"id": "B"}]}
    if game == "quest-calendar":
        setup = {"prologue_complete": True}
    body = {"game": game, "name": name, "setup": setup, "house_rules": ROLLBACK_ALLOWED}
    response = client.post("/campaigns", json=body)
    assert response.status_code == 201, response.json
    cid, version = response.json["id"], response.json["version"]
    for command in commands:
        answer = client.post(f"/campaigns/{cid}/commands", json=command)
        assert answer.status_code == 201, answer.json
        version = answer.json["version"]
    return Campaign(name, game, cid, version)


def campaigns(client: FlaskClient) -> list[Campaign]:
    """A fresh campaign of each game, and a hero on an open page."""
    hero = {"type": "select_hero", "phase": "main", "hero": samples.VANGUARD}
    page = {"type": "start_page", "date": "2027-01-04"}
    return [
        new_campaign(client, "fresh", "quest-calendar"),
        new_campaign(client, "on a page", "quest-calendar", hero, page),
        new_campaign(client, "fresh", "calendar-board"),
    ]


def described(document: Json, cause: Cause) -> str:
    """The description of the field a cause names."""
    schema = document["components"]["schemas"][cause.component]
    field: Json = schema["properties"][cause.prop]
    return str(field.get("description", ""))


class Tally:
    """What the bodies got, per command and per cause."""

    def __init__(self) -> None:
        self.answers: dict[str, Counter[int]] = {}
        self.causes: Counter[str] = Counter()
        self.findings: dict[tuple[str, str, str], Json] = {}
        self.not_document_valid = 0

    def note(self, command: str, body: Json, status: int, answer: Json) -> None:
        """Count one answer; name a 422's causes, or keep it as a finding."""
        self.answers.setdefault(command, Counter())[status] += 1
        if status != 422:
            return
        named = [
            next((c for c in CANNOT_SAY if c.matches(command, p, m)), None)
            for p, m in errors(answer)
        ]
        for (path, message), cause in zip(errors(answer), named, strict=True):
            if cause is None:
                self.findings.setdefault((command, path, message), body)
            else:
                self.causes[f"{command} {path}: {cause.message}"] += 1

    def total(self, status: int | None = None) -> int:
        """Answers in all, or of one status."""
        return sum(sum(c.values()) if status is None else c[status] for c in self.answers.values())

    def refused(self) -> int:
        """422s in all."""
        return self.total(422)

    def report(self) -> str:
        """The figures, per command and per cause."""
        lines = [f"{'command':<24} {'201':>5} {'409':>5} {'422':>5}"]
        for command, counts in sorted(self.answers.items()):
            lines.append(f"{command:<24} {counts[201]:>5} {counts[409]:>5} {counts[422]:>5}")
        sent = max(1, self.total())
        lines.append(
            f"{self.total()} document-valid bodies ({self.not_document_valid} generated bodies "
            f"the document refuses were not sent): 422 share {self.refused() / sent:.1%}"
        )
        lines += [f"  {count:>4} {cause}" for cause, count in self.causes.most_common()]
        lines += [f"  FINDING {c} {p}: {m} <- {b}" for (c, p, m), b in self.findings.items()]
        return "\n".join(lines)


def test_every_listed_cause_is_said_in_its_field_description(client: FlaskClient) -> None:
    """What the document cannot state as a schema it states in words, where the field is."""
    document = client.get("/openapi.json").json
    for cause in CANNOT_SAY:
        assert cause.words in described(document, cause), cause


def test_document_valid_command_bodies_are_refused_only_for_causes_it_cannot_state(
    client: FlaskClient,
) -> None:
    document = client.get("/openapi.json").json
    places = campaigns(client)
    tally = Tally()
    count = per_command()
    for name, entry in sorted(COMMANDS.items()):
        check = validator(document, entry.component)
        generated = bodies(document, entry.component, count)
        for body in generated:
            if not check.is_valid(body):
                tally.not_document_valid += 1
                continue
            for place in (p for p in places if p.game == entry.game):
                response = client.post(f"/campaigns/{place.id}/commands", json=body)
                assert response.status_code in (201, 409, 422), (name, body, response.json)
                tally.note(name, body, response.status_code, response.json)
                if response.status_code == 201:
                    back = {"to_version": place.base, "reason": "document bodies: back"}
                    undone = client.post(f"/campaigns/{place.id}/rollback", json=back)
                    assert undone.status_code == 201, undone.json
    print("\n" + tally.report())
    assert tally.total() >= len(COMMANDS) * count // 2  # the document's bodies mostly validate
    assert not tally.findings, tally.report()
    assert tally.refused() < MAX_SHARE * tally.total(), tally.report()


HERO: Json = {
    "id": "h",
    "traits": {},
    "hp_max": 10,
    "def": 1,
    "atk": 1,
    "damage_dice": "1d6",
}
EQUIPMENT: Json = {"id": "visor", "kind": "equipment", "slot": "helmet"}
STATED: list[tuple[str, Json, Json]] = [
    # (field or rule, a body both refuse, the same body put right, which both accept)
    (
        "entropy with faces",
        {"type": "trait_check", "trait": "INT", "faces": [], "entropy": "abc"},
        {"type": "trait_check", "trait": "INT", "faces": None, "entropy": "abc"},
    ),
    (
        "faces where no dice are drawn",
        {"type": "gain_credits", "amount": 1, "faces": [3]},
        {"type": "gain_credits", "amount": 1, "faces": []},
    ),
    (
        "date",
        {"type": "start_page", "date": "4 January"},
        {"type": "start_page", "date": "01-04"},
    ),
    (
        "option labels",
        {"type": "make_choice", "choice": "c", "options": ["2_B"], "selected": []},
        {"type": "make_choice", "choice": "c", "options": ["2-B"], "selected": []},
    ),
    (
        "no options",
        {"type": "make_choice", "choice": "c", "options": [], "selected": []},
        {"type": "make_choice", "choice": "c", "options": ["1"], "selected": []},
    ),
    (
        "parts and ability",
        {"type": "repair_ship", "compartment": 1, "parts": 1, "ability": "fix"},
        {"type": "repair_ship", "compartment": 1, "parts": 1, "ability": None},
    ),
    (
        "neither parts nor ability",
        {"type": "repair_ship", "compartment": 1},
        {"type": "repair_ship", "compartment": 1, "ability": "fix"},
    ),
    (
        "rizz without a partner",
        {"type": "night_action", "player": "A", "action": "rizz"},
        {"type": "night_action", "player": "A", "action": "rizz", "partner": "catboyBoyfriend"},
    ),
    (
        "a partner without rizz",
        {"type": "night_action", "player": "A", "action": "sleep", "partner": "catboyBoyfriend"},
        {"type": "night_action", "player": "A", "action": "sleep", "partner": None},
    ),
    (
        "a new hero without replace",
        {"type": "choose_clone_outcome", "replace": False, "hero": HERO},
        {"type": "choose_clone_outcome", "replace": True, "hero": HERO},
    ),
    (
        "replace without a new hero",
        {"type": "choose_clone_outcome", "replace": True},
        {"type": "choose_clone_outcome", "replace": False},
    ),
    (
        "an upgrade of another kind",
        {"type": "install_upgrade", "compartment": 1, "upgrade": EQUIPMENT},
        {"type": "install_upgrade", "compartment": 1, "upgrade": "visor"},
    ),
    (
        "equipment without a slot",
        {"type": "gain_item", "item": {"id": "visor", "kind": "equipment"}},
        {"type": "gain_item", "item": EQUIPMENT},
    ),
    (
        "a trait that is not one",
        {"type": "level_up", "trait_points": {"LUCK": 2}},
        {"type": "level_up", "trait_points": {"CHA": 2}},
    ),
    (
        "a round that is not one",
        {"type": "resolve_rounds", "assignments": {"51": []}},
        {"type": "resolve_rounds", "assignments": {"50": []}},
    ),
    (
        "a nested object of other fields",
        {"type": "select_hero", "phase": "main", "hero": {**HERO, "pool": {"size": 3}}},
        {"type": "select_hero", "phase": "main", "hero": {**HERO, "pool": None}},
    ),
    (
        "dice notation",
        {"type": "select_hero", "phase": "main", "hero": {**HERO, "damage_dice": "1d7"}},
        {"type": "select_hero", "phase": "main", "hero": {**HERO, "damage_dice": "2d6+d4-1"}},
    ),
]
"""Bodies the server refuses with 422 for a cause the document states, each beside the body put
right: the document refuses the one and takes the other."""


@pytest.mark.parametrize(("cause", "wrong", "right"), STATED, ids=[c for c, _, _ in STATED])
def test_the_document_refuses_what_the_server_refuses_for_a_cause_it_states(
    client: FlaskClient, cause: str, wrong: Json, right: Json
) -> None:
    document = client.get("/openapi.json").json
    check = validator(document, COMMANDS[wrong["type"]].component)
    game = COMMANDS[wrong["type"]].game
    place = new_campaign(client, cause, game)
    answer = client.post(f"/campaigns/{place.id}/commands", json=wrong)
    assert answer.status_code == 422, answer.json
    assert not check.is_valid(wrong)
    assert check.is_valid(right), list(check.iter_errors(right))
    assert client.post(f"/campaigns/{place.id}/commands", json=right).status_code != 422
