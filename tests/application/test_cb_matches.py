"""Calendar Board matches end to end through the HTTP API, on SQLite and on PostgreSQL.

Two matches are played for several full rounds with reported dice, so every outcome is scripted:

* three players on a seven-space board (house rule ``cb.calendar.layout``): a supply pass with a
  weapon choice (CB-13..CB-16), a successful rizz (CB-37, CB-38) and the nights of decay after it
  (CB-05), a day sleep whose locks last through the next night (CB-40, CB-41, G-CB-30), a hail
  night with a failed save and the damage choice (CB-28), an elimination at exhaustion 5 (CB-34,
  CB-36), a lap that ends on End and restarts with the ceasefire rule on (CB-11, CB-12), and a
  landing on a supply space;
* four players on the default board with an event in play: the creature order (CB-04), a partner
  lost to decay (G-CB-06), an ambush (CB-35), Rain and Wet (CB-21), a supply pass with looted and
  single weapons (CB-14..CB-16), event weather (CB-29), Snow (CB-24, CB-25) and a hail night
  with automatic damage (CB-28), a failed rizz at exhaustion 4 that eliminates (CB-36, CB-38).

Along the way: the token handover (CB-03), basketball (CB-06), the Annustar countdown (CB-07),
the calendar roll (CB-09), weather timing (CB-18, CB-19), the wind (CB-30..CB-32), movement rolls
(CB-23), Fog (CB-26, CB-27) and fate rerolls (CB-10). Every out-of-turn or out-of-step command is
a 409 naming the rule and stores nothing; the modifier route answers under the weather in effect,
and the audit of the finished log finds the chain intact.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from domain.model import samples
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.application.cb_match_data import (
    FOUR_HOUSE_RULES,
    FOUR_PLAYERS,
    SHORT_END,
    THREE_HOUSE_RULES,
    THREE_PLAYERS,
)
from tests.application.summarised import check_summaries
from webapi.app import create_app

Json = dict[str, Any]


@pytest.fixture
def client(store_config: StoreConfig) -> Iterator[FlaskClient]:
    """The API over a fresh store of this test's kind."""
    questlog = Questlog(store_config)
    try:
        yield create_app(questlog, auth=False, rate_limit=0, TESTING=True).test_client()
    finally:
        questlog.close()


def body(response: TestResponse) -> Json:
    """A response's JSON body."""
    result = response.get_json()
    assert isinstance(result, dict), response.data
    return result


@dataclass
class Reply:
    """A stored command's response: its events, the state after it and the pending decision."""

    body: Json

    @property
    def state(self) -> Json:
        """The match state after the command."""
        result: Json = self.body["state"]
        return result

    @property
    def pending(self) -> Json | None:
        """The decision the match now waits for, if any."""
        result: Json | None = self.body["pending"]
        return result

    def types(self) -> list[str]:
        """The event types, without the ``cb.`` prefix, in order."""
        return [e["type"].removeprefix("cb.") for e in self.body["events"]]

    def all(self, event_type: str) -> list[Json]:
        """The details of every event of a type, in order."""
        return [
            e["data"]["details"] for e in self.body["events"] if e["type"] == f"cb.{event_type}"
        ]

    def one(self, event_type: str) -> Json:
        """The details of the one event of a type."""
        found = self.all(event_type)
        assert len(found) == 1, f"{len(found)} {event_type} events in {self.types()}"
        return found[0]

    def pending_roll_id(self) -> str:
        """The roll a pending fate-reroll decision is about."""
        assert self.pending is not None
        roll_id: str = self.pending["context"]["roll_id"]
        return roll_id

    def rolls(self) -> list[tuple[str, list[int]]]:
        """Every roll the command made: (purpose, faces), in order."""
        return [
            (r["purpose"], [d["face"] for d in r["dice"]])
            for e in self.body["events"]
            for r in e["data"]["rolls"]
        ]


class Table:
    """One match played through the API; every command reports its dice, so nothing is random."""

    def __init__(self, client: FlaskClient, setup: Json, house_rules: Json, name: str) -> None:
        self.client = client
        created = client.post(
            "/campaigns",
            json={
                "game": "calendar-board",
                "name": name,
                "house_rules": {**samples.ONE_SCREEN, **house_rules},
                "setup": deepcopy(setup),
            },
        )
        assert created.status_code == 201, body(created)
        self.id: str = body(created)["id"]
        self.state: Json = body(created)["state"]
        self.seen: dict[int, Json] = {body(created)["version"]: body(created)["state"]}

    def run(self, command: Json, faces: Sequence[int] = ()) -> Reply:
        """Run a command with these reported faces (all of them must be used)."""
        response = self.client.post(
            f"/campaigns/{self.id}/commands", json={**command, "faces": list(faces)}
        )
        assert response.status_code == 201, (command, body(response))
        reply = Reply(body(response))
        self.state = reply.state
        self.seen[reply.body["version"]] = reply.state
        return reply

    def end_turns(self, *players: str, faces: Sequence[int] = ()) -> Reply:
        """End these players' turns in order; the last one's command gets the faces."""
        reply = None
        for n, player in enumerate(players):
            last = n == len(players) - 1
            reply = self.run({"type": "end_turn", "player": player}, faces if last else ())
        assert reply is not None
        return reply

    def act(self, player: str, action: str, faces: Sequence[int] = (), **extra: Any) -> Reply:
        """A night action."""
        command = {"type": "night_action", "player": player, "action": action, **extra}
        return self.run(command, faces)

    def decline(self, player: str, faces: Sequence[int] = ()) -> Reply:
        """G-CB-12: keep the result of a party's own night roll (the offered fate reroll)."""
        return self.run({"type": "decline_fate_reroll", "player": player}, faces)

    def head(self) -> tuple[int, str]:
        """The stored version and head hash."""
        head = body(self.client.get(f"/campaigns/{self.id}"))
        return head["version"], head["head_hash"]

    def refused(self, command: Json, rule: str, faces: Sequence[int] = ()) -> str:
        """A command a rule forbids: 409 naming the rule, nothing stored. Returns the detail."""
        before = self.head()
        response = self.client.post(
            f"/campaigns/{self.id}/commands", json={**command, "faces": list(faces)}
        )
        assert response.status_code == 409, (command, body(response))
        assert body(response)["rule"] == rule, body(response)
        assert self.head() == before
        detail: str = body(response)["detail"]
        return detail

    def invalid(self, command: Json, field: str) -> None:
        """A malformed command: 422 naming the field, nothing stored."""
        before = self.head()
        response = self.client.post(f"/campaigns/{self.id}/commands", json=command)
        assert response.status_code == 422, (command, body(response))
        assert field in body(response)["errors"], body(response)
        assert self.head() == before

    def not_held(self, command: Json, field: str) -> None:
        """A command naming what the state does not offer now: 409 not-held naming the field,
        nothing stored."""
        before = self.head()
        response = self.client.post(f"/campaigns/{self.id}/commands", json=command)
        assert response.status_code == 409, (command, body(response))
        assert body(response)["rule"] == "known-names", body(response)
        assert field in body(response)["errors"], body(response)
        assert self.head() == before

    def modifiers(self, player: str, piece: str, **query: Any) -> Json:
        """The modifier query for a piece as the match stands."""
        extra = "".join(f"&{k}={v}" for k, v in query.items())
        response = self.client.get(
            f"/campaigns/{self.id}/modifiers?player={player}&piece={piece}{extra}"
        )
        assert response.status_code == 200, body(response)
        result: Json = body(response)
        return result

    def party(self, player: str) -> Json:
        """A party as the last response showed it."""
        result: Json = self.state["parties"][player]
        return result

    def location(self, player: str, piece: str) -> Json:
        """Where a piece is, as the last response showed it."""
        result: Json = self.party(player)["pieces"][piece]["location"]
        return result

    def check_history(self, store_config: StoreConfig) -> None:
        """Every state a response showed loads back from the log at its version, and a fresh
        application on the same store rebuilds the same state now."""
        for version, state in self.seen.items():
            found = self.client.get(f"/campaigns/{self.id}?version={version}")
            assert found.status_code == 200, body(found)
            assert body(found)["state"] == state, f"version {version}"
        fresh = Questlog(store_config)
        try:
            assert fresh.campaign(UUID(self.id)).view() == self.state
        finally:
            fresh.close()
        check_summaries(self.client, self.id)  # every event and roll reads in words

    def audit(self) -> Json:
        """The audit of the whole log."""
        response = self.client.get(f"/campaigns/{self.id}/audit")
        assert response.status_code == 200, body(response)
        result: Json = body(response)
        return result


def night_steps(reply: Reply) -> list[str]:
    """The night-step markers of a response, in order (to check CB-02's order)."""
    markers = {
        "GodTokenPassed": "token",
        "NightCreatureActed": "creatures",
        "BasketballShotRolled": "basketball",
        "CalendarRolled": "calendar",
        "WindRolled": "wind",
        "AnnustarDamageValueChanged": "annustaria",
        "NightActionTaken": "actions",
    }
    steps = [markers[t] for t in reply.types() if t in markers]
    return list(dict.fromkeys(steps))


def asks(reply: Reply, decision: str, who: str, options: Any) -> None:
    """The response stops at this decision, with these legal options."""
    assert reply.pending is not None, reply.types()
    assert (reply.pending["decision"], reply.pending["who"]) == (decision, who)
    assert reply.pending["options"] == options
    assert reply.types()[-1] == "DecisionRequested"


# -- three players -----------------------------------------------------------------------------


def test_three_players_lap_a_short_board_with_supply_rizz_day_sleep_hail_and_elimination(
    client: FlaskClient, store_config: StoreConfig
) -> None:
    table = Table(client, THREE_PLAYERS, THREE_HOUSE_RULES, "Friday match")
    assert table.state["turn"] == {"player": "A", "started": False, "done": []}
    assert (table.state["starting_token"], table.state["god_token"]) == ("A", "A")
    assert table.state["board"] == {"god_piece": 0, "laps": 0}
    assert table.state["house_rules"]["cb.calendar.layout"][SHORT_END] == "end"
    table.refused({"type": "end_turn", "player": "B"}, "CB-01")
    table.refused({"type": "night_action", "player": "A", "action": "sleep"}, "CB-33")

    # Round 1. CB-01: the night starts when C, the last seat, ends the turn.
    table.end_turns("A", "B")
    night = table.end_turns("C", faces=[10, 12, 3])  # basketball 10+12; calendar d4 3
    assert table.state["round"] == 1
    assert night.state["turn"]["player"] is None
    assert night_steps(night) == ["token", "creatures", "basketball", "calendar"]
    assert night.one("GodTokenPassed")["to"] == "B"
    assert night.one("NightCreatureActed")["creature_id"] == "zed"
    assert night.one("BasketballShotRolled")["made"] is False
    assert night.one("GodPieceMoved")["passed_spaces"] == [1, 2]
    assert night.one("SupplySpaceTriggered") == {
        "space_index": 2,
        "how": "passed",
        "merged_spaces": [],
    }
    # CB-15/CB-16: A chooses between the two eligible weapons; the looted pistol is not offered.
    asks(night, "supply_weapon", "A", ["bow", "crossbow"])
    assert night.state["night"]["step"] == "calendar"
    table.refused({"type": "night_action", "player": "A", "action": "sleep"}, "CB-15")
    table.refused({"type": "end_turn", "player": "A"}, "CB-15")
    table.refused({"type": "choose_supply_weapon", "player": "B", "weapon": "sling"}, "CB-15")
    table.refused({"type": "choose_supply_weapon", "player": "A", "weapon": "pistol"}, "CB-16")
    table.refused({"type": "choose_supply_weapon", "player": "A", "weapon": "sword"}, "CB-14")
    table.refused({"type": "choose_supply_weapon", "player": "A", "weapon": None}, "CB-15")
    table.refused({"type": "fate_reroll", "player": "B", "roll": "hail"}, "CB-15")

    chosen = table.run({"type": "choose_supply_weapon", "player": "A", "weapon": "crossbow"}, [11])
    regenerated = chosen.all("AmmoRegenerated")
    assert [(r["player"], r["weapon_id"], r["after"], r["chosen_by"]) for r in regenerated] == [
        ("A", "crossbow", 3, "player"),
        ("B", "sling", 3, "automatic"),
    ]
    assert regenerated[1]["wasted"] == 1
    assert chosen.one("AmmoRegenerationSkipped") == {
        "player": "C",
        "reason": "noEligibleWeapon",
        "space_index": 2,
    }
    assert chosen.one("WeatherSet")["weather"] == "fog"
    assert chosen.state["weather"] == {"current": "normal", "pending": "fog"}
    assert chosen.state["wind"] == {"speed": "light", "direction": "east"}
    assert chosen.one("AnnustarDamageValueChanged") == {
        "from": 2,
        "to": 1,
        "cause": "nightlyDecrement",
    }
    assert table.party("A")["weapons"]["bow"]["ammo"] == 1
    assert table.party("A")["weapons"]["pistol"]["ammo"] == 0
    asks(chosen, "night_action", "A", ["ambush", "rizz", "sleep"])

    # CB-33: night actions in turn order from A. B's ambush d6 3 takes b1 from 5 onto c1 at 8.
    table.refused({"type": "night_action", "player": "B", "action": "sleep"}, "CB-33")
    assert table.act("A", "sleep").all("ExhaustionChanged") == []
    ambush = table.act("B", "ambush", [3])
    asks(
        ambush,
        "ambush_target",
        "B",
        [{"piece": "b1", "target": "c1", "from": 5, "to": 8}],
    )
    table.refused(
        {"type": "choose_ambush", "player": "B", "piece": "b1", "target": "a1", "form": "x"},
        "CB-35",
    )
    performed = table.run(
        {
            "type": "choose_ambush",
            "player": "B",
            "piece": "b1",
            "target": "c1",
            "form": "surprise attack",
        }
    )
    assert performed.one("AmbushPerformed")["to_space"] == 8
    assert performed.one("ExhaustionChanged") == {
        "party": "B",
        "from": 3,
        "to": 4,
        "cause": "ambush",
    }
    assert table.location("B", "b1") == {"kind": "pathway", "space": 8}
    asks(performed, "night_action", "C", ["ambush", "rizz", "sleep"])

    # CB-38: C's rizz, d20 15 + INT 1 = 16 against the chart's 10 at exhaustion 0: a partner.
    rizz = table.act("C", "rizz", [15], partner="catgirlGirlfriend")
    attempt = rizz.one("RizzAttempted")
    assert (attempt["defender_value"], attempt["total"], attempt["success"]) == (10, 16, True)
    assert rizz.one("PartnerGained") == {
        "party": "C",
        "partner_type": "catgirlGirlfriend",
        "relationship": 12,
    }
    assert rizz.one("ExhaustionChanged")["to"] == 1
    assert rizz.types()[-3:] == ["NightPhaseEnded", "TurnStarted", "WeatherActivated"]
    assert (table.party("C")["partner"], table.party("C")["relationship"]) == (
        "catgirlGirlfriend",
        12,
    )
    assert table.state["round"] == 2
    assert table.state["turn"]["player"] == "A"
    assert table.state["weather"] == {"current": "fog", "pending": None}

    # Round 2, in Fog (CB-26, CB-27): the modifiers of a1 (adaptability 1) and a light east wind.
    fog = table.modifiers("A", "a1", range=4)
    assert fog["weather"]["attack_offender"] == {"modifier": 0, "disadvantage": True}
    assert fog["weather"]["attack_defender"] == -3
    assert fog["weather"]["sight_spells_allowed"] is False
    assert fog["weather"]["fortify_allowed"] is False
    assert fog["weather"]["movement_six_bonus_roll"] is True
    assert fog["wind"] == {
        "facing": "E",
        "wind": {"speed": "light", "direction": "east"},
        "blows_towards": "E",
        "relation": "away",
        "modifier": 0,
    }
    assert "fog" in table.refused(
        {"type": "declare_action", "player": "A", "action": "fortify"}, "CB-27"
    )
    table.invalid({"type": "fate_reroll", "player": "A", "roll": "calendar"}, "roll")  # CB-10
    table.invalid({"type": "fate_reroll", "player": "A", "roll": "wind"}, "roll")
    table.refused({"type": "fate_reroll", "player": "A", "roll": "hail"}, "G-CB-12")
    assert "is not exhausted" in table.refused({"type": "day_sleep", "player": "A"}, "CB-40")
    table.refused({"type": "day_sleep", "player": "C"}, "CB-40")  # not C's turn
    six = table.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [6])
    assert six.one("MovementRolled")["bonus_roll_earned"] is True
    table.run({"type": "end_turn", "player": "A"})
    table.run({"type": "start_acting", "player": "B"})
    table.refused({"type": "start_acting", "player": "B"}, "CB-40")
    table.run({"type": "end_turn", "player": "B"})

    # CB-40/CB-41: C (exhaustion 1) sleeps through the day; the skipped turn starts night 2.
    # Decay takes the new partner to 11; A's hail save fails (d20 1 against 2 pieces) and A
    # keeps it rather than spend a fate reroll (G-CB-12); the damage d4 is 3.
    slept = table.run({"type": "day_sleep", "player": "C"}, [20, 20, 1, 1])
    assert slept.types()[:5] == [
        "SleptDuringDay",
        "ExhaustionChanged",
        "RestrictionApplied",
        "TurnSkipped",
        "NightPhaseStarted",
    ]
    assert slept.one("RestrictionApplied") == {
        "party": "C",
        "locks": ["reactions", "bonus"],
        "until": 2,
    }
    assert slept.one("RelationshipChanged") == {
        "party": "C",
        "partner_type": "catgirlGirlfriend",
        "from": 12,
        "to": 11,
        "cause": "nightlyDecay",
    }
    assert slept.one("BasketballShotRolled")["made"] is True
    assert slept.one("GodPieceMoved")["to_space"] == 4
    assert slept.one("WeatherSet")["hail_save"] is True
    assert slept.one("HailSaveRolled") == {
        "player": "A",
        "goal": 2,
        "die_value": 1,
        "luck_mod": 0,
        "total": 1,
        "success": False,
        "automatic": False,
    }
    asks(slept, "fate_reroll", "A", ["fate_reroll", "decline"])
    table.refused({"type": "assign_hail_damage", "player": "A", "piece": "a1"}, "G-CB-12")
    kept = table.decline("A", [3])
    asks(kept, "hail_damage", "A", ["a1", "a2"])
    assert kept.pending is not None
    assert kept.pending["context"] == {"d4": 3}
    locked = table.party("C")
    assert (locked["exhaustion"], locked["reactions_locked"], locked["bonus_locked"]) == (
        0,
        True,
        True,
    )
    table.refused({"type": "assign_hail_damage", "player": "B", "piece": "b1"}, "CB-28")
    # a piece the match does not hold: the state refuses it, under the core rule known-names
    detail = table.refused(
        {"type": "assign_hail_damage", "player": "A", "piece": "zz"}, "known-names"
    )
    assert detail.startswith("piece: ")

    hail = table.run({"type": "assign_hail_damage", "player": "A", "piece": "a2"}, [20, 2, 17])
    assert hail.one("HailDamageTaken") == {
        "player": "A",
        "piece_id": "a2",
        "d4": 3,
        "damage_type": "normal/natural",
        "chosen_by": "player",
    }
    saves = [(s["player"], s["total"], s["success"]) for s in hail.all("HailSaveRolled")]
    assert saves == [("B", 20, True), ("C", 2, True)]  # C: 2 >= goal 2 (G-CB-20)
    assert hail.state["wind"] == {"speed": "heavy", "direction": "north"}
    assert table.party("C")["reactions_locked"] is True  # locked through the night
    table.act("A", "sleep")

    # CB-36: B's ambush misses (d6 1 from 8): exhaustion 5 eliminates b1; b2 at home stays.
    missed = table.act("B", "ambush", [1])
    assert missed.one("AmbushMissed") == {"player": "B", "d6": 1}
    assert missed.one("ExhaustionChanged")["to"] == 5
    assert missed.one("PieceEliminated") == {
        "piece_id": "b1",
        "party": "B",
        "space": 8,
        "cause": "exhaustion",
    }
    assert table.location("B", "b1") == {"kind": "eliminated"}
    assert table.location("B", "b2") == {"kind": "home"}
    asks(missed, "night_action", "C", ["ambush", "sleep"])  # CB-37: C has a partner
    assert "already has a partner" in table.refused(
        {"type": "night_action", "player": "C", "action": "rizz", "partner": "catboyBoyfriend"},
        "CB-37",
    )
    ended = table.act("C", "sleep")
    assert ended.one("RestrictionLifted") == {"party": "C", "locks": ["reactions", "bonus"]}
    assert table.party("C")["reactions_locked"] is False
    assert table.state["weather"] == {"current": "hail", "pending": None}
    assert table.state["annustar"] == 0

    # Round 3, in Hail: -4 + adaptability to tackles, no bonus roll on a 6 (CB-22, CB-23);
    # the heavy north wind is sideways to a1 (facing E) and behind b2 (facing N) (CB-32).
    hail_mods = table.modifiers("A", "a1")
    assert hail_mods["weather"]["tackle"] == -3
    assert hail_mods["weather"]["movement_six_bonus_roll"] is False
    assert (hail_mods["wind"]["relation"], hail_mods["wind"]["modifier"]) == ("sideways", -1)
    behind = table.modifiers("B", "b2")
    assert (behind["wind"]["relation"], behind["wind"]["modifier"]) == ("away", 2)
    assert table.modifiers("C", "c1")["weather"]["tackle"] == -5
    moved = table.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [6])
    assert moved.one("MovementRolled")["bonus_roll_suppressed"] is True
    table.run({"type": "end_turn", "player": "A"})
    table.refused({"type": "roll_movement", "player": "B", "piece": "b1"}, "CB-36")
    table.run({"type": "end_turn", "player": "B"})

    # Night 3: decay 11 -> 10; d4 4 from 4 stops on End 6 (2 pips lost), the lap completes,
    # the piece restarts from Start and the ceasefire advances (CB-11, CB-12).
    lap = table.run({"type": "end_turn", "player": "C"}, [5, 6, 4, 3])
    assert lap.one("RelationshipChanged")["to"] == 10
    moved_to_end = lap.one("GodPieceMoved")
    assert (moved_to_end["to_space"], moved_to_end["pips_used"], moved_to_end["pips_lost"]) == (
        SHORT_END,
        2,
        2,
    )
    assert lap.one("WeatherSet")["source"] == "end"
    assert lap.one("CalendarLapCompleted") == {"lap_number": 1}
    assert lap.one("GodPieceReset")["to_space"] == 0
    assert lap.one("CeasefireAdvanced") == {"from": 0, "to": 1, "capped": False}
    order = lap.types()
    assert order.index("CalendarLapCompleted") < order.index("GodPieceReset")
    assert order.index("GodPieceReset") < order.index("CeasefireAdvanced")
    assert lap.state["board"] == {"god_piece": 0, "laps": 1}
    assert lap.state["ceasefire"] == 1
    assert lap.state["wind"] == {"speed": "none", "direction": None}
    assert lap.all("AnnustarDamageValueChanged") == []  # already 0
    # A's rizz fails (2 + 2 = 4 against 10); A spends a fate reroll on it (G-CB-12), which fails
    # again (5 + 2 = 7), and the contest still costs exhaustion once (G-CB-28).
    failed = table.act("A", "rizz", [2], partner="catboyBoyfriend")
    assert failed.one("RizzAttempted")["success"] is False
    asks(failed, "fate_reroll", "A", ["fate_reroll", "decline"])
    first = failed.rolls()[-1]
    failed = table.run({"type": "fate_reroll", "player": "A", "roll": "rizz"}, [5])
    assert failed.types()[:2] == ["FateRerollUsed", "RizzAttempted"]
    original = failed.one("FateRerollUsed")["roll_id"]
    assert failed.one("RizzAttempted")["fate_reroll_of"] == original
    assert failed.rolls()[0] == (f"rizz (fate reroll of {original})", [5])
    assert first == ("rizz", [2])
    assert failed.one("RizzAttempted")["success"] is False
    assert failed.one("ExhaustionChanged")["to"] == 1
    assert table.party("A")["partner"] is None
    assert table.act("B", "sleep").one("ExhaustionChanged")["to"] == 4
    table.act("C", "sleep")
    assert table.state["round"] == 4
    assert table.state["weather"]["current"] == "normal"
    assert table.modifiers("A", "a1")["weather"]["tackle"] == 0

    # Round 4: A sleeps through the day; night 4 lands on the supply space and A chooses again.
    skipped = table.run({"type": "day_sleep", "player": "A"})
    assert skipped.one("TurnSkipped") == {"player": "A", "round": 4, "reason": "daySleep"}
    assert skipped.state["turn"]["player"] == "B"
    table.end_turns("B")
    landed = table.end_turns("C", faces=[1, 1, 2])
    assert landed.one("RelationshipChanged")["to"] == 9
    assert landed.one("SupplySpaceTriggered")["how"] == "landed"
    asks(landed, "supply_weapon", "A", ["bow", "crossbow"])
    supplied = table.run({"type": "choose_supply_weapon", "player": "A", "weapon": "bow"}, [9])
    assert [(r["weapon_id"], r["before"], r["after"]) for r in supplied.all("AmmoRegenerated")] == [
        ("bow", 1, 3),
        ("sling", 3, 3),
    ]
    assert supplied.one("WeatherSet")["source"] == "supply"
    for player in ("A", "B", "C"):
        last = table.act(player, "sleep")
    assert last.one("RestrictionLifted") == {"party": "A", "locks": ["reactions", "bonus"]}
    assert table.state["round"] == 5
    assert table.state["nights"] == 4
    assert table.state["god_token"] == "B"  # A -> B -> C -> A -> B
    assert (table.party("A")["exhaustion"], table.party("B")["exhaustion"]) == (0, 3)

    audit = table.audit()
    assert audit["chain_ok"] is True
    assert audit["ok"] is True
    version, head_hash = table.head()
    assert audit["head"] == {"version": version, "hash": head_hash}
    table.check_history(store_config)


# -- four players ------------------------------------------------------------------------------


def test_four_players_play_five_nights_on_the_default_board(
    client: FlaskClient, store_config: StoreConfig
) -> None:
    table = Table(client, FOUR_PLAYERS, FOUR_HOUSE_RULES, "Saturday match")
    assert table.state["turn"]["player"] == "B"
    table.refused({"type": "end_turn", "player": "A"}, "CB-01")

    # Night 1: C now holds the god token and orders the two Zombies after the Ophanim (CB-04).
    night = table.end_turns("B", "C", "D", "A")
    assert night.one("GodTokenPassed") == {
        "from": "B",
        "to": "C",
        "night_number": 1,
        "timing": "nightStart",
    }
    assert [c["creature_id"] for c in night.all("NightCreatureActed")] == ["o1"]
    asks(night, "creature_order", "C", ["z1", "z2"])
    table.refused({"type": "order_creatures", "player": "B", "order": ["z1", "z2"]}, "CB-04")
    table.refused({"type": "night_action", "player": "B", "action": "sleep"}, "CB-04")
    table.not_held({"type": "order_creatures", "player": "C", "order": ["z1", "o1"]}, "order")
    # Basketball 14 + 17 = 31 is made; d4 2 lands on Rain 2; wind d20 13: moderate north.
    # Decay takes C's partner from 2 to 1.
    ordered = table.run(
        {"type": "order_creatures", "player": "C", "order": ["z2", "z1"]}, [14, 17, 2, 13]
    )
    acted = ordered.all("NightCreatureActed")
    assert [(c["creature_id"], c["order_index"], c.get("chosen_by")) for c in acted] == [
        ("z2", 2, "C"),
        ("z1", 3, "C"),
    ]
    assert ordered.one("RelationshipChanged")["to"] == 1
    assert ordered.one("BasketballShotRolled")["made"] is True
    assert ordered.one("WeatherSet")["weather"] == "rain"
    assert ordered.rolls() == [
        ("basketball", [14, 17]),
        ("calendar", [2]),
        ("wind", [13]),
    ]
    asks(ordered, "night_action", "B", ["ambush", "rizz", "sleep"])
    # B's rizz: 8 + INT 3 = 11 > 10.
    rizz = table.act("B", "rizz", [8], partner="catgirlGirlfriend")
    assert rizz.one("RizzAttempted")["success"] is True
    assert table.party("B")["relationship"] == 12
    # C's ambush d6 2 takes c1 from 9 onto d1 at 11.
    asks(
        table.act("C", "ambush", [2]),
        "ambush_target",
        "C",
        [{"piece": "c1", "target": "d1", "from": 9, "to": 11}],
    )
    table.run(
        {"type": "choose_ambush", "player": "C", "piece": "c1", "target": "d1", "form": "raid"}
    )
    # D's rizz at exhaustion 4 meets the chart's 18: 10 fails; D keeps it (no fate reroll,
    # G-CB-12), and exhaustion 5 eliminates d1, d2.
    failed = table.act("D", "rizz", [10], partner="catboyBoyfriend")
    attempt = failed.one("RizzAttempted")
    assert (attempt["exhaustion_before"], attempt["defender_value"]) == (4, 18)
    assert attempt["success"] is False
    asks(failed, "fate_reroll", "D", ["fate_reroll", "decline"])
    eliminated = table.decline("D")
    assert [e["piece_id"] for e in eliminated.all("PieceEliminated")] == ["d1", "d2"]
    assert table.location("D", "d3") == {"kind": "home"}
    dawn = table.act("A", "sleep")
    assert dawn.one("WeatherActivated") == {"weather": "rain", "round": 2, "at_turn_of": "B"}
    wet = {(c["player"], c["subject_id"]) for c in dawn.all("ConditionApplied")}
    assert wet == {("A", "a1"), ("A", "a2"), ("B", "b1"), ("C", "c1")}  # CB-21: pathway only
    assert table.party("A")["pieces"]["a3"]["conditions"] == []

    # Round 2 in Rain: tackles -4 + adaptability, no bonus roll on a 6 (CB-22, CB-23).
    rain = table.modifiers("A", "a1")
    assert (rain["weather"]["weather"], rain["weather"]["tackle"]) == ("rain", -2)
    assert (rain["wind"]["relation"], rain["wind"]["modifier"]) == ("away", 1)
    assert table.modifiers("C", "c1")["wind"]["relation"] == "sideways"
    six = table.run({"type": "roll_movement", "player": "B", "piece": "b1"}, [6])
    assert six.one("MovementRolled")["bonus_roll_suppressed"] is True
    table.refused({"type": "day_sleep", "player": "B"}, "CB-40")  # B's turn has started
    table.run({"type": "end_turn", "player": "B"})
    table.run({"type": "day_sleep", "player": "C"})  # exhaustion 1 from the ambush
    assert table.state["turn"]["player"] == "D"
    table.refused({"type": "roll_movement", "player": "D", "piece": "d1"}, "CB-36")
    table.run({"type": "end_turn", "player": "D"})

    # Night 2: Wet dries (CB-21); D orders the Zombies; C's partner reaches 0 and leaves.
    night = table.run({"type": "end_turn", "player": "A"})
    cleared = {c["subject_id"] for c in night.all("ConditionCleared")}
    assert cleared == {"a1", "a2", "b1", "c1"}
    assert night.types().index("ConditionCleared") < night.types().index("GodTokenPassed")
    asks(night, "creature_order", "D", ["z1", "z2"])
    ordered = table.run(
        {"type": "order_creatures", "player": "D", "order": ["z1", "z2"]}, [3, 4, 4, 20]
    )
    decay = [(r["party"], r["to"]) for r in ordered.all("RelationshipChanged")]
    assert decay == [("B", 11), ("C", 0)]
    assert ordered.one("PartnerLost") == {
        "party": "C",
        "partner_type": "catboyBoyfriend",
        "reason": "relationshipZero",
    }
    assert ordered.one("GodPieceMoved")["passed_spaces"] == [3, 4, 5]
    assert ordered.one("WeatherSet")["weather"] == "normal"
    assert ordered.state["wind"] == {"speed": "heavy", "direction": "east"}
    asks(table.act("B", "sleep"), "night_action", "C", ["ambush", "rizz", "sleep"])
    table.act("C", "sleep")
    table.act("D", "sleep")
    offered = table.act("A", "ambush", [1])  # a1 2 -> 3, a2 6 -> 7: nobody there
    asks(offered, "fate_reroll", "A", ["fate_reroll", "decline"])  # another face would hit
    assert offered.all("AmbushMissed") == []
    missed = table.decline("A")
    assert missed.one("AmbushMissed") == {"player": "A", "d6": 1}
    assert missed.one("ExhaustionChanged") == {"party": "A", "from": 0, "to": 1, "cause": "ambush"}
    assert missed.one("RestrictionLifted")["party"] == "C"

    # Night 3: d4 2 from 6 passes the supply space 7 (CB-13): B has no ammo weapon, C's bow is
    # looted, D's javelin refills by itself, and A chooses between rifle and shotgun.
    table.end_turns("B", "C", "D")
    night = table.end_turns("A")
    asks(night, "creature_order", "A", ["z1", "z2"])
    supply = table.run({"type": "order_creatures", "player": "A", "order": ["z2", "z1"]}, [1, 2, 2])
    assert supply.one("SupplySpaceTriggered")["space_index"] == 7
    skipped = [(s["player"], s["reason"]) for s in supply.all("AmmoRegenerationSkipped")]
    assert skipped == [("B", "noEligibleWeapon"), ("C", "looted")]
    assert supply.one("AmmoRegenerated")["weapon_id"] == "javelin"
    asks(supply, "supply_weapon", "A", ["rifle", "shotgun"])
    chosen = table.run({"type": "choose_supply_weapon", "player": "A", "weapon": "rifle"}, [7])
    assert chosen.one("AmmoRegenerated")["after"] == 4
    assert table.party("A")["weapons"]["shotgun"]["ammo"] == 1
    assert chosen.state["wind"] == {"speed": "light", "direction": "west"}
    for player in ("B", "C", "D", "A"):
        table.act(player, "sleep")
    assert table.party("B")["relationship"] == 10

    # Night 4: d4 2 lands on the event space 10; the blizzard week makes it Snow (CB-29).
    table.end_turns("B", "C", "D")
    table.end_turns("A")
    snow = table.run(
        {"type": "order_creatures", "player": "B", "order": ["z1", "z2"]}, [9, 9, 2, 1]
    )
    assert snow.one("WeatherSet") == {
        "space_index": 10,
        "space_type": "event",
        "weather": "snow",
        "source": "event",
        "pending": True,
        "in_force_tonight": "normal",
        "hail_save": False,
        "event_id": "blizzard-week",
    }
    for player in ("B", "C", "D", "A"):
        table.act(player, "sleep")
    assert table.state["weather"]["current"] == "snow"

    # Round 5 in Snow: both sides of an attack at -4 + adaptability, sight range -1 (CB-24/25).
    snowed = table.modifiers("A", "a1", range=4)["weather"]
    assert snowed["attack_offender"] == {"modifier": -2, "disadvantage": False}
    assert (snowed["attack_defender"], snowed["sight_range"]) == (-2, 3)
    table.run({"type": "declare_action", "player": "B", "action": "sight_spell"})

    # Night 5: d4 3 lands on Hail 13. Saves from B: B fails 1 against 2, spends a fate reroll
    # (G-CB-12), fails again with another 1 and picks the piece for the d4 2; C (1 - 1 < 1) keeps
    # the failure and takes the d4 4 on c1, the only counted piece; D and A (3 >= 3) succeed.
    table.end_turns("B", "C", "D")
    table.end_turns("A")
    hail = table.run(
        {"type": "order_creatures", "player": "C", "order": ["z1", "z2"]}, [2, 2, 3, 1]
    )
    asks(hail, "fate_reroll", "B", ["fate_reroll", "decline"])
    rerolled = table.run({"type": "fate_reroll", "player": "B", "roll": "hail"}, [1, 2])
    assert rerolled.one("FateRerollUsed")["roll_id"] == hail.pending_roll_id()
    assert rerolled.one("HailSaveRolled")["success"] is False
    asks(rerolled, "hail_damage", "B", ["b1", "b2"])
    damage = table.run({"type": "assign_hail_damage", "player": "B", "piece": "b2"}, [1])
    asks(damage, "fate_reroll", "C", ["fate_reroll", "decline"])
    kept = table.decline("C", [4, 20, 4, 5])
    taken = [
        (d["player"], d["piece_id"], d["d4"], d["chosen_by"])
        for reply in (damage, kept)
        for d in reply.all("HailDamageTaken")
    ]
    assert taken == [("B", "b2", 2, "player"), ("C", "c1", 4, "automatic")]
    goals = [
        (s["player"], s["goal"], s["success"])
        for reply in (damage, kept)
        for s in reply.all("HailSaveRolled")
    ]
    assert goals == [("C", 1, False), ("D", 1, True), ("A", 3, True)]
    for player in ("B", "C", "D", "A"):
        table.act(player, "sleep")
    assert table.state["round"] == 6
    assert table.state["weather"]["current"] == "hail"
    assert table.state["board"] == {"god_piece": 13, "laps": 0}
    assert table.party("B")["relationship"] == 8

    audit = table.audit()
    assert (audit["ok"], audit["chain_ok"]) == (True, True)
    assert audit["head"]["version"] == table.head()[0]
    table.check_history(store_config)


# -- set-ups and house rules the service must refuse -------------------------------------------

TWO_PLAYERS: Json = {"players": [{"id": "A"}, {"id": "B"}]}


def create(client: FlaskClient, setup: Json, house_rules: Json) -> TestResponse:
    """POST /campaigns for a calendar-board match."""
    body = {"game": "calendar-board", "name": "m", "setup": setup, "house_rules": house_rules}
    return client.post("/campaigns", json=body)


def test_g_cb_09_an_empty_calendar_layout_is_refused_when_the_match_is_created(
    client: FlaskClient,
) -> None:
    created = create(client, TWO_PLAYERS, {"cb.calendar.layout": []})
    if created.status_code == 201:
        cid = body(created)["id"]
        client.post(f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": "A"})
        night = client.post(
            f"/campaigns/{cid}/commands",
            json={"type": "end_turn", "player": "B", "faces": [1, 1, 1, 1]},
        )
        assert night.status_code != 500, "the first night of a match with no board crashed"
    assert created.status_code == 422
    assert "house_rules.cb.calendar.layout" in body(created)["errors"]


def test_cb03_a_night_step_listed_twice_is_refused(client: FlaskClient) -> None:
    steps = ["token", "token", "basketball", "calendar", "wind", "actions"]
    created = create(client, TWO_PLAYERS, {"cb.night.steps": steps})
    if created.status_code == 201:
        cid = body(created)["id"]
        client.post(f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": "A"})
        night = body(
            client.post(
                f"/campaigns/{cid}/commands",
                json={"type": "end_turn", "player": "B", "faces": [1, 1, 1, 1]},
            )
        )
        passed = [e for e in night["events"] if e["type"] == "cb.GodTokenPassed"]
        assert len(passed) == 1, "the god token passed twice in one night"
    assert created.status_code == 422
    assert "house_rules.cb.night.steps" in body(created)["errors"]


def test_cb14_two_weapons_with_one_id_in_a_party_are_refused(client: FlaskClient) -> None:
    bow = {"id": "bow", "kind": "ranged", "uses_ammo": True, "ammo_max": 6, "ammo_regen": 2}
    setup = {
        "players": [{"id": "A", "weapons": [{**bow, "ammo": 1}, {**bow, "ammo": 5}]}, {"id": "B"}]
    }
    created = create(client, setup, {})
    if created.status_code == 201:
        weapons = body(created)["state"]["parties"]["A"]["weapons"]
        assert len(weapons) == 2, f"one of the two weapons was dropped: {weapons}"
    assert created.status_code == 422
    assert any("players" in key for key in body(created)["errors"])
