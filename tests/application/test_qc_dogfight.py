"""A dogfight played round by round through the HTTP API, on SQLite and on PostgreSQL.

``start_dogfight``, ``dogfight_round`` and the ``dogfight_round_abilities``
decision answered by ``resolve_dogfight_round``, each a ``POST /campaigns/{id}/commands`` with
hand-rolled faces (a d100 reported as tens and units, QC-09). Rules: QC-14 (abilities after seeing
the roll; the decision blocks other commands), QC-15 (a combat ability is refused in a dogfight),
QC-16/QC-17/QC-19 (uses spent), QC-69..QC-76 (the rounds), QC-20 (no page end mid-dogfight); the
one-shot ``dogfight`` body still plays every round at once.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.application.qc_week_data import HERO, Json
from tests.application.test_qc_week import Week
from webapi.app import create_app

LOCK_ON: Json = {
    "id": "lock-on",
    "name": "Lock-on",
    "usage": "per_page",
    "context": "dogfight",
    "effect": {"kind": "aim_bonus", "amount": 15},
}
JINK: Json = {
    "id": "jink",
    "name": "Jink",
    "usage": "surge",
    "cost": 1,
    "context": "dogfight",
    "effect": {"kind": "evasion_bonus", "dice": "1d10"},
}
ROUNDS: list[Json] = [
    {"evasion_target": 60, "enemy_aim": 45, "damage_reduced": 2, "damage_max": 4},
    {"evasion_target": 70, "enemy_aim": 50, "damage_reduced": 2, "damage_max": 5},
]


@pytest.fixture
def week(store_config: StoreConfig) -> Iterator[Week]:
    """A fresh store, the API around it, and an empty campaign client."""
    questlog = Questlog(store_config)
    try:
        yield Week(create_app(questlog, auth=False, rate_limit=0, TESTING=True).test_client())
    finally:
        questlog.close()


def test_qc_dogfight_round_by_round_with_abilities_through_the_api(week: Week) -> None:
    week.create()
    hero = {**HERO, "abilities": [*HERO["abilities"], LOCK_ON, JINK]}
    week.run({"type": "select_hero", "phase": "main", "hero": hero})
    week.run({"type": "start_page", "date": "2027-01-08"})

    reply = week.run({"type": "start_dogfight", "enemies": ["raider"], "rounds": ROUNDS})
    assert week.types(reply) == ["DogfightStarted"]
    assert week.rolls(reply) == []
    assert reply["state"]["page"]["dogfight"]["mode"] == "rounds"
    week.refused({"type": "end_page"}, rule="QC-20")

    # Round 1: Aim 40 + 10 = 50 < 60, a miss; the player sees it and is asked (QC-14).
    reply = week.run({"type": "dogfight_round"}, [{"tens": 40, "units": 0}])
    assert week.types(reply) == ["AimRolled", "DecisionRequested"]
    pending = reply["pending"]
    assert pending["decision"] == "dogfight_round_abilities"
    assert (pending["rule"], pending["commands"]) == ("QC-14", ["resolve_dogfight_round"])
    assert [option["id"] for option in pending["options"]] == ["lock-on"]
    assert (pending["context"]["roll"], pending["context"]["aim"]["total"]) == ("aim", 50)
    assert reply["state"]["pending"] == pending
    aim_roll = week.rolls(reply)[0]
    assert aim_roll["source"] == "reported"
    # The decision blocks every other command; a combat ability is refused in a dogfight.
    week.refused({"type": "end_page"}, rule="QC-14")
    week.refused({"type": "dogfight_round"}, rule="QC-14")
    week.refused({"type": "resolve_dogfight_round", "abilities": ["smite"]}, rule="QC-15")
    problem = week.refused(
        {"type": "resolve_dogfight_round", "abilities": ["jink"]}, rule="known-names", faces=[5]
    )
    assert "abilities[0]" in problem["errors"]

    # Lock-on: 50 + 15 = 65 >= 60, a hit; no Evasion is rolled.
    reply = week.run({"type": "resolve_dogfight_round", "roll": "aim", "abilities": ["lock-on"]})
    assert week.types(reply) == ["AbilityUsed", "DogfightRoundResolved"]
    used = week.one(reply, "AbilityUsed")
    assert (used["round"], used["roll"], used["total"], used["hit"]) == (1, "aim", 65, True)
    assert week.one(reply, "DogfightRoundResolved")["enemy_outcome"] == "destroyed"
    assert reply["pending"] is None
    assert reply["state"]["hero"]["abilities"]["lock-on"]["used_this_page"] is True
    week.refused({"type": "end_page"}, rule="QC-20")

    # Round 2: Aim 30 + 10 < 70 and Lock-on is spent, so the Evasion is rolled at once:
    # 25 + 10 = 35 < 50, the maximum damage; Jink (a surge) is offered.
    reply = week.run({"type": "dogfight_round"}, [30, 25])
    assert week.types(reply) == ["AimRolled", "EvasionRolled", "DecisionRequested"]
    assert reply["pending"]["context"]["roll"] == "evasion"
    assert [option["id"] for option in reply["pending"]["options"]] == ["jink"]
    # Jink d10 = 9: 44 < 50, still the maximum 5, less Shield 1: four d6 compartment hits.
    reply = week.run(
        {"type": "resolve_dogfight_round", "roll": "evasion", "abilities": ["jink"]},
        [9, 1, 2, 3, 1],
    )
    assert week.types(reply) == [
        "SurgeSpent",
        "AbilityUsed",
        "DogfightRoundResolved",
        "ShipDamageTaken",
        "CompartmentHit",
        "CompartmentHit",
        "CompartmentHit",
        "CompartmentHit",
        "DogfightEnded",
    ]
    assert week.one(reply, "AbilityUsed")["tier"] == "max"
    assert week.one(reply, "ShipDamageTaken") == {"round": 2, "raw": 5, "shield": 1, "net": 4}
    assert week.one(reply, "DogfightEnded") == {
        "page_date": "2027-01-08",
        "rounds_played": 2,
        "hero_died": False,
    }
    state = reply["state"]
    assert state["hero"]["pool"]["spent"] == 1
    assert state["page"]["dogfight"]["status"] == "finished"
    assert state["ship"]["compartments"]["1"]["integrity"] == 1

    # The one-shot body plays every round in one command, as before, and asks nothing.
    reply = week.run(
        {"type": "dogfight", "enemies": ["raider"], "rounds": ROUNDS[:1]},
        [{"tens": 50, "units": 7}],
    )
    assert week.types(reply) == [
        "DogfightStarted",
        "AimRolled",
        "DogfightRoundResolved",
        "DogfightEnded",
    ]
    week.run({"type": "end_page"})

    # Every stored version loads back as the response showed it.
    for version, state in week.seen.items():
        assert week.show(version)["state"] == state
