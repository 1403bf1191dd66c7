"""A Quest Calendar week played end to end through the HTTP API, on SQLite and on PostgreSQL.

The pages of Monday 2027-01-04 to Sunday 2027-01-10 after the prologue, each
command a ``POST /campaigns/{id}/commands`` with hand-rolled ``faces`` (so every outcome is fixed),
a few with server dice (only invariants are asserted), and house rules changed by event between
the three combats. Rules exercised, by day:

- set-up: QC-02, QC-04, QC-05 (main hero with per-page, per-rest and surge abilities, a pool,
  equipment and consumables); QC-01 (house rules changed by a recorded event);
- Monday: QC-10 trait checks, QC-14 an ability on a check already rolled, QC-32 Malfunction (two
  d20s, the lower kept) and its cure; standard combat QC-20, QC-21, QC-22, QC-28 with the
  ``combat_round_abilities`` decision (it blocks other commands), QC-23 no Med Kit between rounds
  but QC-24 a healing ability is fine, QC-16 a per-rest ability with no use left, QC-17 per-page
  abilities reset at the page end;
- Tuesday: QC-66 no lottery on a weekday; shops QC-57, QC-58 (sell back at the shop's price, only
  what it stocks), QC-59 (no buying after leaving), QC-65 rations bought; QC-60 a required payment
  into debt with the G-QC-19 penalty, QC-62 an optional payment refused, QC-61 a partial repayment;
- Wednesday: QC-61 debt paid off; easy combat QC-29 (every round rolled, then
  ``combat_assign_abilities``), QC-33/QC-34 Frightened; death QC-41..QC-44 with clone result 1;
  QC-31 Infected, QC-65 missing rations cost HP, the end-of-page Infected roll kills: clone result
  2 (QC-45 injury), QC-49 conditions cleared;
- Thursday: QC-51 no Rest on an ordinary page; hard combat QC-30 (``boost_attack`` before any
  damage die, then ``boost_damage``), death with clone result 2 and a d10 read as 10 (QC-08);
  starvation death with clone result 3 and the ``clone_loot`` decision (QC-46);
- Friday: crew QC-78, QC-79 (a crew member never moves; none goes to a compartment at Integrity
  0); dogfight QC-69..QC-76 with a d100 reported as tens and units (QC-09): Aim hit, Evasion
  tiers, Shield, d6 compartment hits, the crewed Bridge destroyed (CompartmentDestroyed, CrewDied,
  QC-80), overflow to the hero; death by overflow, a clone roll of 1 rerolled for want of credits
  (QC-43), then 4 with the QC-48 decision answered "keep the clone" (QC-47);
- Saturday: QC-53 no level-up on an ordinary page; Rest QC-51, QC-52 (``rest_injury`` decision
  between two injured stats), QC-16, QC-19; QC-64 equipment changed on a Rest day;
- Sunday: level-up QC-53..QC-56; a pickpocket icon (QC-38); the Sunday lottery QC-66..QC-68, once,
  its loss stopping at 0 credits; commands on server dice (only invariants asserted).

Across the week: every refusal (409 naming the rule, 422 naming the field) leaves the version and
head hash unchanged; ``GET /campaigns/{id}?version=N`` shows the state each response showed; the
audit at the end has an intact chain and counts the reported and server rolls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.application.qc_week_data import (
    DOGFIGHT_ROUNDS,
    HERO,
    MONDAY_ROUNDS,
    SHOP,
    THURSDAY_ROUNDS,
    VEX,
    WEDNESDAY_ROUNDS,
    Json,
)
from tests.application.summarised import check_summaries
from webapi.app import create_app

Faces = list[Any]


class Week:
    """One Quest Calendar campaign played through the API's test client."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.id = ""
        self.seen: dict[int, Json] = {}
        """The state each appending response showed, by the version it reported."""
        self.marks: dict[str, int] = {}
        """Versions of events worth loading again later, by a name."""
        self.sent: set[str] = set()
        """Every command type posted, accepted or not."""

    # -- requests ------------------------------------------------------------------------------

    def create(self) -> Json:
        """POST /campaigns: a quest-calendar campaign past its prologue."""
        response = self.client.post(
            "/campaigns",
            json={
                "game": "quest-calendar",
                "name": "A week in January",
                "house_rules": {},
                "setup": {"prologue_complete": True},
            },
        )
        assert response.status_code == 201, response.get_json()
        body: Json = response.get_json()
        self.id = body["id"]
        self.seen[body["version"]] = body["state"]
        return body

    def show(self, version: int | None = None) -> Json:
        """GET /campaigns/{id}, now or at ?version=N."""
        query = "" if version is None else f"?version={version}"
        response = self.client.get(f"/campaigns/{self.id}{query}")
        assert response.status_code == 200, response.get_json()
        body: Json = response.get_json()
        return body

    def head(self) -> tuple[int, str]:
        """The version and head hash now."""
        body = self.show()
        return body["version"], body["head_hash"]

    def post(self, body: Json) -> Any:
        """POST a command and return the raw test response."""
        self.sent.add(str(body["type"]))
        return self.client.post(f"/campaigns/{self.id}/commands", json=body)

    def run(self, command: Json, faces: Faces | None = None) -> Json:
        """Run a command with these hand-rolled faces (none: it must roll nothing); 201 expected."""
        before, _ = self.head()
        response = self.post({**command, "faces": list(faces or [])})
        body: Json = response.get_json()
        assert response.status_code == 201, body
        assert body["version"] == before + len(body["events"])
        assert [e["version"] for e in body["events"]] == list(
            range(before + 1, body["version"] + 1)
        )
        self.seen[body["version"]] = body["state"]
        return body

    def run_on_server_dice(self, command: Json) -> Json:
        """Run a command on the campaign's verifiable server dice (no ``faces``)."""
        response = self.post(command)
        body: Json = response.get_json()
        assert response.status_code == 201, body
        self.seen[body["version"]] = body["state"]
        return body

    def refused(
        self,
        command: Json,
        *,
        rule: str | None = None,
        status: int = 409,
        faces: Faces | None = None,
    ) -> Json:
        """A command the service must refuse: the status, the rule named, and nothing stored."""
        before = self.head()
        response = self.post({**command, "faces": list(faces or [])})
        body: Json = response.get_json()
        assert response.status_code == status, body
        if rule is not None:
            assert body["rule"] == rule, body
        assert self.head() == before, "a refused command changed the campaign"
        return body

    def house_rule(self, key: str, value: Any) -> Json:
        """POST /campaigns/{id}/house-rules: one rule changed by a recorded event."""
        before, _ = self.head()
        response = self.client.post(
            f"/campaigns/{self.id}/house-rules", json={"key": key, "value": value}
        )
        body: Json = response.get_json()
        assert response.status_code == 200, body
        assert body["version"] == before + 1
        assert body["house_rules"][key] == value
        return body

    # -- reading responses ---------------------------------------------------------------------

    @staticmethod
    def types(reply: Json) -> list[str]:
        """The event types a command stored, in order."""
        return [event["type"].removeprefix("qc.") for event in reply["events"]]

    @staticmethod
    def of(reply: Json, event_type: str) -> list[Json]:
        """The details of every event of one type in a reply."""
        return [e["data"]["details"] for e in reply["events"] if e["type"] == f"qc.{event_type}"]

    @classmethod
    def one(cls, reply: Json, event_type: str) -> Json:
        """The details of the one event of this type in a reply."""
        [details] = cls.of(reply, event_type)
        return details

    @staticmethod
    def version_of(reply: Json, event_type: str, index: int = 0) -> int:
        """The version of the index-th event of this type in a reply."""
        found = [e["version"] for e in reply["events"] if e["type"] == f"qc.{event_type}"]
        return int(found[index])

    @staticmethod
    def rolls(reply: Json) -> list[Json]:
        """Every roll record of a reply, in order."""
        return [roll for event in reply["events"] for roll in event["data"]["rolls"]]


@pytest.fixture
def week(store_config: StoreConfig) -> Iterator[Week]:
    """A fresh store, the API around it, and an empty week (the Questlog is closed after)."""
    questlog = Questlog(store_config)
    try:
        yield Week(create_app(questlog, auth=False, rate_limit=0, TESTING=True).test_client())
    finally:
        questlog.close()


# -- the days ------------------------------------------------------------------------------------


def setup_hero(week: Week) -> None:
    """Create the campaign and select the main hero (QC-02, QC-04, QC-05)."""
    created = week.create()
    assert created["version"] == 1
    assert created["state"]["hero"] is None
    assert created["state"]["calendar"]["prologue_complete"] is True
    assert created["state"]["house_rules"]["qc.combat.mode"] == "standard"

    reply = week.run({"type": "select_hero", "phase": "main", "hero": HERO})
    assert week.types(reply) == ["HeroSelected"]
    assert week.one(reply, "HeroSelected") == {
        "hero_id": "vanguard",
        "level": 1,
        "phase": "main",
        "credits": 3,
    }
    hero = reply["state"]["hero"]
    assert (hero["hp"], hero["hp_max"], hero["def"], hero["atk"]) == (20, 20, 12, 3)
    assert hero["abilities"]["smite"]["usage"] == "per_page"
    assert hero["abilities"]["second-wind"]["uses"] == 1
    assert hero["pool"] == {"name": "surges", "max": 2, "spent": 0}
    assert [item["id"] for item in hero["inventory"]] == [
        "plasma-blade",
        "visor",
        "flak-vest",
        "med-kit",
        "repair-kit",
    ]
    assert reply["state"]["ship"]["compartments"]["2"]["integrity"] == 3
    # QC-02: the hero is chosen once.
    week.refused({"type": "select_hero", "phase": "main", "hero": HERO}, rule="QC-02")


def monday(week: Week) -> None:
    """Checks, Malfunction, a standard-mode combat with its decision, healing after it."""
    reply = week.run({"type": "start_page", "date": "2027-01-04"})
    assert week.one(reply, "PageStarted")["weekday"] == "Monday"
    assert reply["state"]["page"]["date"] == "2027-01-04"

    # QC-10: d20 + INT against the page's target.
    reply = week.run(
        {"type": "trait_check", "trait": "INT", "purpose": "decode the panel", "target": 12}, [11]
    )
    check = week.one(reply, "CheckRolled")
    assert (check["d20"], check["trait_mod"], check["total"], check["success"]) == (11, 2, 13, True)
    [roll] = week.rolls(reply)
    assert roll["source"] == "reported"
    assert roll["dice"][0]["face"] == 11

    # 409 not-held: a face too many for the dice this check draws now is refused and names the
    # field; nothing is stored.
    problem = week.refused(
        {"type": "trait_check", "trait": "STR", "target": 15}, status=409, faces=[10, 4]
    )
    assert "faces" in problem["errors"]

    # QC-14: a failed STR check, then Keen Mind applied to it after seeing the roll.
    reply = week.run({"type": "trait_check", "trait": "STR", "target": 15}, [10])
    assert week.one(reply, "CheckRolled")["success"] is False
    reply = week.run({"type": "use_ability", "ability": "keen-mind", "on_roll": 1})
    used = week.one(reply, "AbilityUsed")
    assert used["target_check"] == 1
    assert (used["bonus"], used["total_before"], used["total"], used["success"]) == (
        3,
        12,
        15,
        True,
    )
    assert reply["state"]["page"]["checks"][1]["success"] is True
    week.refused({"type": "use_ability", "ability": "keen-mind", "on_roll": 0}, rule="QC-17")

    # QC-32: Malfunction rolls the d20 twice and keeps the lower; a Repair Kit cures it.
    reply = week.run({"type": "apply_condition", "condition": "malfunction", "source": "EMP"})
    assert week.types(reply) == ["ConditionApplied"]
    assert reply["state"]["hero"]["conditions"] == ["malfunction"]
    reply = week.run({"type": "trait_check", "trait": "DEX", "target": 12}, [17, 6])
    check = week.one(reply, "CheckRolled")
    assert check["malfunction"] is True
    assert check["faces"] == [17, 6]
    assert (check["d20"], check["total"], check["success"]) == (6, 7, False)
    assert len(week.rolls(reply)) == 2
    assert "Malfunction" in week.rolls(reply)[1]["purpose"]
    reply = week.run({"type": "use_item", "item": "repair-kit"})
    assert week.types(reply) == ["ItemUsed", "ConditionCleared"]
    assert week.one(reply, "ConditionCleared")["cause"] == "repair_kit"
    assert reply["state"]["hero"]["conditions"] == []

    # Standard mode (QC-28): one round rolled, then the ability decision, then the next round.
    reply = week.run({"type": "start_combat", "kind": "several_enemies", "rounds": MONDAY_ROUNDS})
    assert week.one(reply, "CombatStarted")["mode"] == "standard"
    reply = week.run({"type": "combat_round"}, [5, 2])
    assert week.types(reply) == ["AttackRolled", "DamageRolled", "DecisionRequested"]
    assert week.one(reply, "AttackRolled")["hit"] is False
    assert {option["id"] for option in reply["pending"]["options"]} == {"smite", "power-strike"}
    # Keep Smite for later (the QC-28 example): the round is lost, DEF 12 < 13 takes the full 6.
    reply = week.run({"type": "resolve_round", "abilities": []})
    assert week.types(reply) == ["CombatRoundResolved", "HeroDamaged"]
    resolved = week.one(reply, "CombatRoundResolved")
    assert (resolved["won"], resolved["enemy_outcome"], resolved["defense_tier"]) == (
        False,
        "unharmed",
        "full",
    )
    assert week.one(reply, "HeroDamaged")["hp_after"] == 14
    assert reply["state"]["page"]["combat"]["status"] == "in_progress"

    # Between rounds: no Med Kit (QC-23), but a healing ability is fine (QC-24), once (QC-16).
    problem = week.refused({"type": "use_item", "item": "med-kit"}, rule="QC-23")
    assert "between rounds" in problem["detail"]
    reply = week.run({"type": "use_ability", "ability": "second-wind"}, [4])
    assert week.types(reply) == ["AbilityUsed", "HeroHealed"]
    used = week.one(reply, "AbilityUsed")
    assert (used["context"], used["uses_left"]) == ("combat", 0)
    assert week.one(reply, "HeroHealed")["hp_after"] == 18
    week.refused({"type": "use_ability", "ability": "second-wind"}, rule="QC-16", faces=[6])

    reply = week.run({"type": "combat_round"}, [12, 4])
    assert week.types(reply) == ["AttackRolled", "DamageRolled", "DecisionRequested"]
    attack = week.one(reply, "AttackRolled")
    assert (attack["d20"], attack["total"], attack["hit"]) == (12, 15, True)
    damage = week.one(reply, "DamageRolled")
    assert (damage["dice_total"], damage["flat_mods"], damage["total"]) == (4, 1, 5)
    pending = reply["pending"]
    assert pending["decision"] == "combat_round_abilities"
    assert pending["commands"] == ["resolve_round"]
    assert pending["rule"] == "QC-28"
    assert {option["id"] for option in pending["options"]} == {"smite", "power-strike"}
    assert (pending["context"]["round"], pending["context"]["won"]) == (2, False)
    assert reply["state"]["pending"] == pending

    # The decision blocks every other command (409 naming its rule).
    problem = week.refused({"type": "trait_check", "trait": "STR"}, rule="QC-28", faces=[5])
    assert "resolve_round" in problem["detail"]

    reply = week.run({"type": "resolve_round", "abilities": ["smite"]}, [3])
    assert week.types(reply) == ["AbilityUsed", "CombatRoundResolved", "CombatEnded"]
    used = week.one(reply, "AbilityUsed")
    assert (used["ability_id"], used["bonus"], used["damage_total"]) == ("smite", 3, 8)
    resolved = week.one(reply, "CombatRoundResolved")
    assert (resolved["won"], resolved["enemy_outcome"], resolved["damage_taken"]) == (
        True,
        "killed",
        0,
    )
    ended = week.one(reply, "CombatEnded")
    assert (ended["ended_by"], ended["rounds_won"], ended["enemies_remaining"]) == (
        "all_rounds_played",
        1,
        1,
    )
    assert reply["pending"] is None
    assert reply["state"]["hero"]["abilities"]["smite"]["used_this_page"] is True

    # After the last round the Med Kit is allowed; HP stops at max (G-QC-22).
    reply = week.run({"type": "use_item", "item": "med-kit"})
    assert week.one(reply, "ItemUsed")["timing"] == "after_last_round"
    healed = week.one(reply, "HeroHealed")
    assert (healed["amount"], healed["hp_after"]) == (2, 20)

    reply = week.run({"type": "end_page"})
    assert week.types(reply) == ["PageEnded"]
    state = reply["state"]
    assert state["page"] is None
    assert state["calendar"]["pages_played"] == 1
    assert state["hero"]["abilities"]["smite"]["used_this_page"] is False
    assert state["hero"]["abilities"]["keen-mind"]["used_this_page"] is False
    assert state["hero"]["abilities"]["second-wind"]["used"] == 1


def tuesday(week: Week) -> None:
    """No weekday lottery; a shop with a sale; a required payment into debt; a repayment."""
    reply = week.run({"type": "start_page", "date": "2027-01-05"})
    assert week.one(reply, "PageStarted")["is_sunday"] is False
    problem = week.refused({"type": "play_lottery"}, rule="QC-66", faces=[6])
    assert "played on Sundays" in problem["detail"]

    reply = week.run(SHOP)
    assert week.one(reply, "ShopEntered")["stock"] == {"med-kit": 4, "visor": 6, "ration": 2}
    week.refused({"type": "sell", "item": "plasma-blade"}, rule="QC-58")

    # QC-58: sold back at the shop's price, because the shop stocks it.
    reply = week.run({"type": "sell", "item": "visor"})
    assert week.types(reply) == ["ItemSold", "CreditsChanged"]
    assert week.one(reply, "ItemSold")["price"] == 6
    assert week.one(reply, "CreditsChanged") == {
        "from": 3,
        "to": 9,
        "delta": 6,
        "cause": "sale",
        "shop_id": "dock-market",
        "item_id": "visor",
    }
    assert "visor" not in [item["id"] for item in reply["state"]["hero"]["inventory"]]

    reply = week.run({"type": "buy", "item": "med-kit"})
    assert week.types(reply) == ["ItemBought", "CreditsChanged"]
    assert week.one(reply, "ItemBought")["credits_after"] == 5
    reply = week.run({"type": "buy", "item": "ration"})
    assert week.one(reply, "ItemBought")["to_rations"] is True
    assert (reply["state"]["hero"]["credits"], reply["state"]["hero"]["rations"]) == (3, 1)

    reply = week.run({"type": "leave_shop"})
    assert week.one(reply, "ShopLeft") == {"shop_id": "dock-market", "reason": "left"}
    problem = week.refused({"type": "buy", "item": "ration"}, rule="QC-59")
    assert "closed" in problem["detail"]

    # QC-60 / G-QC-19: credits 3, a required cost of 5: -2, then the penalty of 2: -4.
    reply = week.run({"type": "pay", "purpose": "docking toll", "cost": 5, "required": True})
    assert week.types(reply) == ["PaymentMade", "CreditsChanged", "DebtIncurred", "CreditsChanged"]
    assert week.one(reply, "PaymentMade")["credits_after"] == -2
    week.marks["payment_before_penalty"] = week.version_of(reply, "PaymentMade")
    debt = week.one(reply, "DebtIncurred")
    assert (debt["shortfall"], debt["penalty"], debt["credits_after"]) == (2, 2, -4)
    assert [c["cause"] for c in week.of(reply, "CreditsChanged")] == ["payment", "debtPenalty"]
    assert reply["state"]["hero"]["credits"] == -4

    # QC-62: an optional payment never creates debt.
    problem = week.refused({"type": "pay", "purpose": "tip", "cost": 1, "required": False})
    assert problem["rule"] == "QC-62"
    assert "debt" in problem["detail"]

    # QC-61: a gain pays the debt back first.
    reply = week.run({"type": "gain_credits", "amount": 3, "cause": "salvage"})
    assert week.types(reply) == ["CreditsChanged", "DebtPaid"]
    assert week.one(reply, "DebtPaid") == {
        "amount": 3,
        "credits_after": -1,
        "cleared": False,
        "cause": "salvage",
    }
    week.run({"type": "end_page"})


def wednesday(week: Week) -> None:
    """Debt cleared; easy-mode combat kills (clone 1); Infected kills at the page end (clone 2)."""
    week.house_rule("qc.combat.mode", "easy")
    week.run({"type": "start_page", "date": "2027-01-06"})
    reply = week.run({"type": "gain_credits", "amount": 5, "cause": "bounty"})
    assert week.one(reply, "DebtPaid") == {
        "amount": 1,
        "credits_after": 4,
        "cleared": True,
        "cause": "bounty",
    }

    reply = week.run(
        {"type": "start_combat", "kind": "several_enemies", "rounds": WEDNESDAY_ROUNDS}
    )
    assert week.one(reply, "CombatStarted")["mode"] == "easy"
    # QC-29: every round rolled first (round 2's Frightened check, QC-34 keep the lower d20).
    reply = week.run({"type": "combat_round"}, [14, 5, 3, 15, 4, 6])
    assert week.types(reply) == [
        "AttackRolled",
        "DamageRolled",
        "ConditionCheckRolled",
        "AttackRolled",
        "DamageRolled",
        "DecisionRequested",
    ]
    frightened = week.one(reply, "ConditionCheckRolled")
    assert (frightened["condition"], frightened["total"], frightened["afflicted"]) == (
        "frightened",
        3,
        True,
    )
    second = week.of(reply, "AttackRolled")[1]
    assert (second["frightened"], second["d20_faces"], second["d20"], second["hit"]) == (
        True,
        [15, 4],
        4,
        False,
    )
    pending = reply["pending"]
    assert (pending["decision"], pending["commands"]) == (
        "combat_assign_abilities",
        ["resolve_rounds"],
    )
    assert [r["round"] for r in pending["context"]["rounds"]] == [1, 2]
    week.refused({"type": "gain_credits", "amount": 1}, rule="QC-29")

    # Round 1 won with Smite; round 2 lost for 20 damage: death, clone cost 1 (QC-44).
    reply = week.run({"type": "resolve_rounds", "assignments": {"1": ["smite"]}}, [2, 1])
    assert week.types(reply) == [
        "AbilityUsed",
        "CombatRoundResolved",
        "CombatRoundResolved",
        "HeroDamaged",
        "Died",
        "CloneRollMade",
        "CreditsChanged",
        "Cloned",
        "CombatEnded",
    ]
    first, second = week.of(reply, "CombatRoundResolved")
    assert (first["won"], first["damage_dealt"]) == (True, 8)
    assert (second["won"], second["damage_taken"]) == (False, 20)
    died = week.one(reply, "Died")
    assert (died["cause"], died["hp_after"], died["encounters_ended"]) == ("combat", 10, ["combat"])
    assert week.one(reply, "CloneRollMade") == {
        "d4": 1,
        "applied": True,
        "rerolled": False,
        "reason": None,
    }
    assert week.one(reply, "CreditsChanged") == {
        "from": 4,
        "to": 2,
        "delta": -2,
        "cause": "cloning",
    }
    assert week.one(reply, "Cloned")["outcome"] == 1
    assert week.one(reply, "CombatEnded")["ended_by"] == "death"
    hero = reply["state"]["hero"]
    assert (hero["hp"], hero["credits"]) == (10, 2)
    assert reply["state"]["page"]["combat"]["status"] == "finished"

    # QC-31 and QC-65: infected, then one ration for a page that asks for ten: 9 HP lost.
    week.run({"type": "apply_condition", "condition": "infected", "source": "rat bite"})
    reply = week.run({"type": "eat_rations", "count": 10})
    assert week.one(reply, "RationsConsumed") == {
        "required": 10,
        "available": 1,
        "consumed": 1,
        "missing": 9,
        "hp_lost": 9,
    }
    assert (reply["state"]["hero"]["hp"], reply["state"]["hero"]["rations"]) == (1, 0)
    # The end-of-page CON roll fails at HP 1: death, clone cost 2, a d10 injury to STR.
    reply = week.run({"type": "end_page"}, [5, 2, 1])
    assert week.types(reply) == [
        "InfectionTicked",
        "HeroDamaged",
        "Died",
        "CloneRollMade",
        "InjurySuffered",
        "ConditionCleared",
        "Cloned",
        "PageEnded",
    ]
    assert week.one(reply, "InfectionTicked")["total"] == 6
    assert week.one(reply, "Died")["cause"] == "infection"
    assert week.one(reply, "InjurySuffered") == {
        "d10_face": 1,
        "d10_value": 1,
        "stat": "STR",
        "amount": 1,
    }
    assert week.one(reply, "Cloned")["conditions_cleared"] == ["infected"]
    hero = reply["state"]["hero"]
    assert (hero["hp"], hero["traits"]["STR"], hero["conditions"]) == (10, 1, [])
    assert hero["injuries"] == [{"stat": "STR", "amount": 1}]


def thursday(week: Week) -> None:
    """A hard-mode combat (boosts asked before damage dice) that kills; a starvation death."""
    week.house_rule("qc.combat.mode", "hard")
    week.run({"type": "start_page", "date": "2027-01-07"})
    week.refused({"type": "rest"}, rule="QC-51")

    reply = week.run({"type": "start_combat", "kind": "one_enemy", "rounds": THURSDAY_ROUNDS})
    assert week.one(reply, "CombatStarted")["mode"] == "hard"
    # QC-30: the attack alone is rolled, then "boost the attack?" before any damage die.
    reply = week.run({"type": "combat_round"}, [10])
    assert week.types(reply) == ["AttackRolled", "DecisionRequested"]
    assert len(week.rolls(reply)) == 1
    assert week.one(reply, "AttackRolled")["hit"] is False
    pending = reply["pending"]
    assert (pending["decision"], pending["commands"]) == ("combat_boost_attack", ["boost_attack"])
    assert [option["id"] for option in pending["options"]] == ["power-strike"]
    week.refused({"type": "boost_damage", "abilities": []}, rule="QC-30")

    reply = week.run({"type": "boost_attack", "abilities": ["power-strike"]}, [4])
    assert week.types(reply) == ["SurgeSpent", "AbilityUsed", "DamageRolled", "DecisionRequested"]
    assert week.one(reply, "SurgeSpent")["remaining"] == 1
    assert week.one(reply, "AbilityUsed")["hit"] is True
    assert week.one(reply, "DamageRolled")["total"] == 5
    assert reply["pending"]["decision"] == "combat_boost_damage"
    assert [option["id"] for option in reply["pending"]["options"]] == ["smite"]

    reply = week.run({"type": "boost_damage", "abilities": ["smite"]}, [3])
    assert week.types(reply) == ["AbilityUsed", "CombatRoundResolved"]
    resolved = week.one(reply, "CombatRoundResolved")
    assert (resolved["won"], resolved["enemy_outcome"], resolved["damage_dealt"]) == (
        True,
        "stunned",
        8,
    )

    # Round 2: no boost taken; 12 damage at HP 10 kills; clone cost 2, the d10 shows 0 = 10.
    reply = week.run({"type": "combat_round"}, [2])
    assert reply["pending"]["decision"] == "combat_boost_attack"
    reply = week.run({"type": "boost_attack", "abilities": []}, [3, 2, 0])
    assert week.types(reply) == [
        "DamageRolled",
        "CombatRoundResolved",
        "HeroDamaged",
        "Died",
        "CloneRollMade",
        "InjurySuffered",
        "Cloned",
        "CombatEnded",
    ]
    assert week.one(reply, "CombatRoundResolved")["damage_taken"] == 12
    injury = week.one(reply, "InjurySuffered")
    assert (injury["d10_value"], injury["stat"]) == (10, "damage_mod")
    hero = reply["state"]["hero"]
    assert (hero["hp"], hero["damage_mod"]) == (10, 0)
    assert week.one(reply, "CombatEnded")["ended_by"] == "death"

    # QC-65 with no rations left: 10 HP lost, death, clone cost 3 and the loot decision.
    reply = week.run({"type": "eat_rations", "count": 10}, [3])
    assert week.types(reply) == [
        "RationsConsumed",
        "HeroDamaged",
        "Died",
        "CloneRollMade",
        "DecisionRequested",
    ]
    assert week.one(reply, "Died")["cause"] == "starvation"
    pending = reply["pending"]
    assert (pending["decision"], pending["rule"], pending["commands"]) == (
        "clone_loot",
        "QC-46",
        ["choose_loot"],
    )
    assert [option["item"] for option in pending["options"]] == ["plasma-blade", "flak-vest"]
    week.refused({"type": "trait_check", "trait": "CON"}, rule="QC-46", faces=[10])
    # an item the decision does not offer: the state's answer, naming the field
    problem = week.refused({"type": "choose_loot", "item": "med-kit"}, rule="known-names")
    assert "item" in problem["errors"]
    reply = week.run({"type": "choose_loot", "item": "plasma-blade"})
    assert week.types(reply) == ["EquipmentSacrificed", "Cloned"]
    assert week.one(reply, "EquipmentSacrificed")["item_id"] == "plasma-blade"
    assert week.one(reply, "Cloned")["outcome"] == 3
    hero = reply["state"]["hero"]
    assert [item["id"] for item in hero["inventory"]] == ["flak-vest", "med-kit"]
    assert hero["hp"] == 10
    assert reply["pending"] is None
    week.run({"type": "end_page"})


def friday(week: Week) -> None:
    """Crew on the Bridge; a dogfight destroys it (crew lost) and overflow kills (clone 4)."""
    week.run({"type": "start_page", "date": "2027-01-08"})
    reply = week.run({"type": "hire_crew", "crew": VEX, "fee": 2})
    assert week.one(reply, "CrewHired")["credits_after"] == 0
    reply = week.run({"type": "assign_crew", "crew": "vex", "compartment": 2})
    assigned = week.one(reply, "CrewAssigned")
    assert (assigned["integrity_after"], assigned["integrity_max_after"]) == (4, 4)
    bridge = reply["state"]["ship"]["compartments"]["2"]
    assert bridge["crew"]["id"] == "vex"
    assert reply["state"]["hero"]["abilities"]["patch-up"]["granted_by"] == "vex"
    week.refused({"type": "assign_crew", "crew": "vex", "compartment": 3}, rule="QC-79")

    week.house_rule("qc.death.replaceHeroOnFour", True)
    faces: Faces = [
        {"tens": 60, "units": 0},  # round 1 Aim: 60 + 10 = 70 >= 60, the raider is destroyed
        15,  # round 2 Aim: 25, a miss
        20,  # round 2 Evasion: 30 < 50, the maximum damage 6, less Shield 1: 5 points
        *[2] * 5,  # all on the Bridge (4 Integrity): destroyed, the fifth overflows to the hero
        5,  # round 3 Aim: a miss
        30,  # round 3 Evasion: 40 < 50, damage 10 - 1 = 9 points
        *[2] * 9,  # the Bridge is at 0: every point overflows, the ninth kills
        1,  # clone cost roll: 1, but the hero has no credits (QC-44), so it is rolled again
        4,  # clone cost roll: 4
    ]
    reply = week.run({"type": "dogfight", "enemies": ["raider"], "rounds": DOGFIGHT_ROUNDS}, faces)
    types = week.types(reply)
    assert types[:3] == ["DogfightStarted", "AimRolled", "DogfightRoundResolved"]
    assert week.of(reply, "AimRolled")[0]["hit"] is True
    assert week.of(reply, "AimRolled")[0]["d100_faces"] == {"tens": 60, "units": 0}
    assert [e["tier"] for e in week.of(reply, "EvasionRolled")] == ["max", "max"]
    assert [e["net"] for e in week.of(reply, "ShipDamageTaken")] == [5, 9]
    hits = week.of(reply, "CompartmentHit")
    assert len(hits) == 14
    assert {hit["compartment"] for hit in hits} == {"2"}
    assert [hit["integrity_after"] for hit in hits[:4]] == [3, 2, 1, 0]
    assert sum(hit["overflow_to_hero"] for hit in hits) == 10
    assert week.one(reply, "CompartmentDestroyed") == {
        "compartment": "2",
        "name": "Bridge",
        "crew_lost": "vex",
        "upgrade_lost": None,
    }
    assert week.one(reply, "CrewDied") == {
        "crew_id": "vex",
        "compartment": "2",
        "integrity_bonus_lost": 1,
        "integrity_max_after": 3,
        "abilities_lost": ["patch-up"],
    }
    assert types.index("CrewDied") == types.index("CompartmentDestroyed") + 1
    damaged = week.of(reply, "HeroDamaged")
    assert [d["cause"] for d in damaged] == ["shipOverflow"] * 10
    assert damaged[-1]["hp_after"] == 0
    assert types[-5:] == [
        "Died",
        "CloneRollMade",
        "CloneRollMade",
        "DecisionRequested",
        "DogfightEnded",
    ]
    assert week.of(reply, "CloneRollMade") == [
        {"d4": 1, "applied": False, "rerolled": True, "reason": "noCredits"},
        {"d4": 4, "applied": True, "rerolled": False, "reason": None},
    ]
    assert week.one(reply, "Died")["encounters_ended"] == ["dogfight"]
    assert week.one(reply, "DogfightEnded") == {
        "page_date": "2027-01-08",
        "rounds_played": 3,
        "hero_died": True,
    }
    state = reply["state"]
    bridge = state["ship"]["compartments"]["2"]
    assert (bridge["integrity"], bridge["integrity_max"], bridge["crew"]) == (0, 3, None)
    assert "patch-up" not in state["hero"]["abilities"]
    assert state["pending"]["decision"] == "clone_replace_hero"
    week.marks["crew_died"] = week.version_of(reply, "CrewDied")
    week.marks["hp_zero"] = week.version_of(reply, "HeroDamaged", -1)
    week.marks["died"] = week.version_of(reply, "Died")

    # QC-48: keep the rushed clone; QC-47 then marks every per-rest ability used.
    reply = week.run({"type": "choose_clone_outcome", "replace": False})
    assert week.types(reply) == ["PerRestAbilitiesExhausted", "Cloned"]
    assert week.one(reply, "PerRestAbilitiesExhausted")["abilities"] == ["second-wind"]
    assert week.one(reply, "Cloned")["outcome"] == 4
    hero = reply["state"]["hero"]
    assert hero["abilities"]["second-wind"]["used"] == hero["abilities"]["second-wind"]["uses"]
    assert hero["hp"] == 10

    # QC-79: no crew member goes to a compartment at Integrity 0.
    week.run({"type": "hire_crew", "crew": {"id": "juno", "name": "Juno"}, "fee": 0})
    problem = week.refused({"type": "assign_crew", "crew": "juno", "compartment": 2})
    assert (problem["rule"], "Integrity 0" in problem["detail"]) == ("QC-79", True)
    reply = week.run({"type": "assign_crew", "crew": "juno", "compartment": 5})
    assert reply["state"]["ship"]["compartments"]["5"]["integrity"] == 4
    week.run({"type": "end_page"})


def saturday(week: Week) -> None:
    """A Rest day: the player picks which of two injured stats to restore; equipment changes."""
    week.run({"type": "start_page", "date": "2027-01-09", "rest_day": True})
    week.refused({"type": "level_up", "max_hp_gain": 4, "trait_points": {"STR": 2}}, rule="QC-53")
    reply = week.run({"type": "rest"})
    assert week.types(reply) == ["DecisionRequested"]
    pending = reply["pending"]
    assert (pending["decision"], pending["rule"], pending["options"]) == (
        "rest_injury",
        "QC-52",
        ["STR", "damage_mod"],
    )
    week.refused({"type": "equip", "item": "flak-vest"}, rule="QC-52")
    reply = week.run({"type": "choose_rest_stat", "stat": "damage_mod"})
    assert week.types(reply) == [
        "InjuryRemoved",
        "HeroHealed",
        "AbilityUsesReset",
        "SurgesRestored",
        "Rested",
    ]
    rested = week.one(reply, "Rested")
    assert rested["injury_stat_restored"] == "damage_mod"
    assert (rested["hp_restored"], rested["uses_reset"], rested["pool_restored"]) == (
        10,
        ["second-wind"],
        1,
    )
    hero = reply["state"]["hero"]
    assert (hero["hp"], hero["damage_mod"], hero["traits"]["STR"]) == (20, 1, 1)
    assert hero["injuries"] == [{"stat": "STR", "amount": 1}]
    assert hero["pool"]["spent"] == 0
    reply = week.run({"type": "equip", "item": "flak-vest"})
    assert week.one(reply, "EquipmentEquipped")["timing"] == "rest"
    assert reply["state"]["hero"]["equipped"] == {"armor": "flak-vest"}
    week.run({"type": "end_page"})


def sunday(week: Week) -> None:
    """A level-up day and a Sunday: level-up, the lottery once, and some server dice."""
    reply = week.run({"type": "start_page", "date": "2027-01-10", "level_up_day": True})
    assert week.one(reply, "PageStarted")["is_sunday"] is True
    reply = week.run(
        {
            "type": "level_up",
            "max_hp_gain": 4,
            "trait_points": {"STR": 1, "DEX": 1},
            "new_uses": {"second-wind": 2},
            "pool_max": 3,
        }
    )
    assert week.types(reply) == ["LevelledUp", "HeroHealed", "TraitPointsAllocated"]
    assert week.one(reply, "LevelledUp")["to_level"] == 2
    hero = reply["state"]["hero"]
    assert (hero["level"], hero["hp"], hero["hp_max"]) == (2, 24, 24)
    assert (hero["traits"]["STR"], hero["traits"]["DEX"]) == (2, 2)
    assert hero["abilities"]["second-wind"]["uses"] == 2
    assert hero["pool"]["max"] == 3

    # QC-38: a pickpocket icon gives 1 credit, then the lottery's -2 stops at 0 (QC-67, QC-68).
    reply = week.run({"type": "pickpocket", "icon_id": "market-stall"}, [1])
    assert week.one(reply, "Pickpocketed")["credits_after"] == 1
    reply = week.run({"type": "play_lottery"}, [1])
    assert week.types(reply) == ["LotteryPlayed", "CreditsChanged"]
    assert week.one(reply, "LotteryPlayed") == {
        "page_date": "2027-01-10",
        "d6": 1,
        "delta": -2,
        "applied": -1,
        "credits_after": 0,
    }
    assert week.one(reply, "CreditsChanged")["cause"] == "lottery"
    problem = week.refused({"type": "play_lottery"}, rule="QC-66", faces=[1])
    assert "already played" in problem["detail"]

    # Server dice: only invariants can be asserted.
    reply = week.run_on_server_dice({"type": "trait_check", "trait": "CHA", "target": 10})
    check = week.one(reply, "CheckRolled")
    [roll] = week.rolls(reply)
    assert roll["source"] == "server"
    assert roll["proof"]["commitment"] == reply["state"]["dice"]["commitment"]
    assert 1 <= check["d20"] <= 20
    assert check["total"] == check["d20"] - 1
    assert check["success"] is (check["total"] >= 10)
    reply = week.run_on_server_dice(
        {"type": "pickpocket", "icon_id": "market-crowd", "accept_four": True}
    )
    picked = week.one(reply, "Pickpocketed")
    assert 1 <= picked["d4"] <= 4
    assert picked["credits_gained"] == picked["d4"]
    assert reply["state"]["hero"]["credits"] == picked["d4"]
    assert reply["state"]["hero"]["virtue"] == (-1 if picked["d4"] == 4 else 0)
    reply = week.run({"type": "end_page"})
    assert reply["state"]["calendar"]["pages_played"] == 7


# -- the tests -----------------------------------------------------------------------------------


def test_qc_week_monday_and_tuesday_checks_standard_combat_shop_and_debt(week: Week) -> None:
    setup_hero(week)
    monday(week)
    tuesday(week)
    hero = week.show()["state"]["hero"]
    assert (hero["hp"], hero["credits"], hero["rations"]) == (20, -1, 1)


def test_qc_week_through_thursday_easy_and_hard_combat_and_three_deaths(week: Week) -> None:
    setup_hero(week)
    for day in (monday, tuesday, wednesday, thursday):
        day(week)
    state = week.show()["state"]
    assert state["house_rules"]["qc.combat.mode"] == "hard"
    assert state["calendar"]["pages_played"] == 4


def test_qc_week_whole_week_with_dogfight_rest_level_up_lottery_and_audit(week: Week) -> None:
    setup_hero(week)
    for day in (monday, tuesday, wednesday, thursday, friday, saturday, sunday):
        day(week)

    # The state at earlier versions is the state each response showed then.
    now = week.show()
    versions = sorted(week.seen)
    assert len(versions) > 50
    for version in (versions[0], versions[1], versions[len(versions) // 2], versions[-2]):
        then = week.show(version)
        assert then["version"] == version
        assert then["state"] == week.seen[version]
    assert now["state"] == week.seen[now["version"]]
    assert week.show(versions[1])["state"]["hero"]["credits"] == 3
    # Versions inside one command's events load too.
    assert week.show(week.marks["payment_before_penalty"])["state"]["hero"]["credits"] == -2
    at_crew_death = week.show(week.marks["crew_died"])["state"]
    assert at_crew_death["ship"]["compartments"]["2"]["crew"] is None
    assert at_crew_death["hero"]["hp"] == 10
    assert at_crew_death["page"]["dogfight"]["status"] == "in_progress"
    assert week.show(week.marks["hp_zero"])["state"]["hero"]["hp"] == 0
    assert week.show(week.marks["died"])["state"]["hero"]["hp"] == 10

    # The house-rule changes are events in the log.
    response = week.client.get(f"/campaigns/{week.id}/events?limit=500")
    assert response.status_code == 200
    events = response.get_json()["items"]
    changes = [e["data"] for e in events if e["type"].endswith("HouseRuleConfigured")]
    assert [(c["key"], c["new_value"]) for c in changes] == [
        ("qc.combat.mode", "easy"),
        ("qc.combat.mode", "hard"),
        ("qc.death.replaceHeroOnFour", True),
    ]
    died = [e for e in events if e["type"] == "qc.Died"]
    assert len(died) == 5
    # Every event and roll of the week reads in words.
    assert check_summaries(week.client, week.id) == len(events)

    # Every command the week used is in the catalogue, with an example body and its rules.
    response = week.client.get("/commands?game=quest-calendar")
    assert response.status_code == 200
    catalogue = {c["name"]: c for c in response.get_json()["commands"]}
    assert len(week.sent) >= 30
    assert week.sent <= set(catalogue)
    for name in week.sent:
        assert catalogue[name]["example"]["type"] == name
        assert catalogue[name]["rules"], name

    response = week.client.get(f"/campaigns/{week.id}/audit")
    assert response.status_code == 200
    audit = response.get_json()
    assert audit["chain_ok"] is True
    assert audit["ok"] is True
    assert audit["head"]["version"] == now["version"]
    assert audit["rolls"]["reported"] > 0
    assert audit["rolls"]["server"] == 2
    assert audit["rolls"]["awaiting_reveal"] == 2
    assert audit["rolls"]["failed"] == 0

    # Revealing the server seed makes the two server rolls verifiable.
    response = week.client.post(f"/campaigns/{week.id}/dice/rotate")
    assert response.status_code == 200, response.get_json()
    audit = week.client.get(f"/campaigns/{week.id}/audit").get_json()
    assert (audit["chain_ok"], audit["ok"]) == (True, True)
    assert (audit["rolls"]["verified"], audit["rolls"]["failed"]) == (2, 0)
