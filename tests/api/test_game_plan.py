"""The game plan (tests/browser/game_plan.py) played through the API on server dice only,
many times, before the page test replays it by clicks: whatever the dice give, every campaign
reaches every situation the issue asks for, and after the owner reveals the seed the audit
verifies every roll.

Quest Calendar: trait checks (QC-10), plain combat rounds (QC-20, QC-21, QC-28), a shop (QC-57,
QC-59), a mistaken payment (QC-60) undone by a rollback, a death (QC-41) with the clone cost
(QC-43, QC-45) and the clone decision (QC-48), and a Rest that asks which stat (QC-51, QC-52).
Calendar Board: a day and a night of three players (CB-01, CB-02), the creatures' order (CB-04),
a supply choice (CB-15), a fate reroll (CB-10, G-CB-12), a rizz with a partner (CB-37, CB-38)
and day sleep (CB-40, CB-41).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.api.api_calls import ApiTable
from tests.browser import game_plan as plan
from webapi.app import create_app
from webapi.http.view_store import close_views

Json = dict[str, Any]
CAMPAIGNS = 30
"""Campaigns of each game: with server dice each one meets other faces."""
TIMES: dict[str, float] = {}


@dataclass
class Played:
    """One campaign played to the end of its plan."""

    table: ApiTable
    trace: plan.Trace
    state: Json
    types: Counter[str] = field(default_factory=Counter)

    def details(self, event_type: str) -> list[Json]:
        """The details of this campaign's events of one type, in order."""
        return [
            e["data"]["details"]
            for e in self.table.events
            if e["type"].split(".", 1)[-1] == event_type
        ]


def play(
    client: FlaskClient, campaign: Json, steps: list[plan.Step], answer: plan.Answer
) -> Played:
    """Create the campaign, play the plan, reveal the seed; the events of the commands played."""
    response = client.post("/campaigns", json=campaign)
    assert response.status_code == 201, response.json
    table = ApiTable(client, response.json)
    trace = plan.play(steps, table, answer)
    state = client.get(f"/campaigns/{table.cid}").json["state"]
    rotated = client.post(f"/campaigns/{table.cid}/dice/rotate")
    assert rotated.status_code == 200, rotated.json
    types = Counter(e["type"].split(".", 1)[-1] for e in table.events)
    return Played(table, trace, state, types)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    path: Path = tmp_path_factory.mktemp("plan") / "plan.db"
    app = Questlog(StoreConfig(sqlite_path=path))
    flask_app: Flask = create_app(app, auth=False, rate_limit=0, TESTING=True)
    yield flask_app.test_client()
    close_views(flask_app)
    app.close()


@pytest.fixture(scope="module")
def campaigns(client: FlaskClient) -> list[Played]:
    """CAMPAIGNS Quest Calendar campaigns; every other one answers the clone decision with a
    replacement hero (QC-48), the others keep the rushed clone (QC-47)."""
    started = time.monotonic()
    played = []
    for index in range(CAMPAIGNS):
        replace = index % 2 == 1

        def answer(pending: Json, state: Json, replace: bool = replace) -> Json:
            return plan.qc_answer(pending, state, replace=replace)

        played.append(play(client, plan.QC_CAMPAIGN, plan.qc_steps(), answer))
    TIMES["quest-calendar"] = time.monotonic() - started
    return played


@pytest.fixture(scope="module")
def matches(client: FlaskClient) -> list[Played]:
    """CAMPAIGNS three-player Calendar Board matches, one day and one night each."""
    started = time.monotonic()
    steps = plan.cb_steps()
    played = [play(client, plan.CB_CAMPAIGN, steps, plan.cb_answer) for _ in range(CAMPAIGNS)]
    TIMES["calendar-board"] = time.monotonic() - started
    return played


def test_qc10_qc20_qc28_trait_checks_and_a_combat_of_plain_rounds(campaigns: list[Played]) -> None:
    """Two checks, then two rounds without a condition check; no ability in any round."""
    for game in campaigns:
        assert game.types["CheckRolled"] == 2
        assert game.types["ConditionCheckRolled"] == 0
        plain = game.details("CombatStarted")[0]
        assert all(r["condition"] is None for r in plain["enemies"])
        resolved = game.details("CombatRoundResolved")
        assert [r["round"] for r in resolved[:2]] == [1, 2]
        assert all(r["abilities"] == [] for r in resolved)


def test_qc57_qc59_a_shop_entered_bought_from_and_left(campaigns: list[Played]) -> None:
    for game in campaigns:
        assert (game.types["ShopEntered"], game.types["ItemBought"]) == (1, 1)
        assert game.types["ShopLeft"] >= 1
        assert any(i["id"] == "med-kit" for i in game.state["hero"]["inventory"])


def test_qc60_a_mistaken_payment_is_undone_by_a_rollback(
    client: FlaskClient, campaigns: list[Played]
) -> None:
    """The payment was stored, then rolled back: its debt is not in the state."""
    for game in campaigns[:5]:
        assert game.trace.undone == 1
        events = client.get(f"/campaigns/{game.table.cid}/events?limit=1000").json["items"]
        assert [e["type"].split(".")[-1] for e in events].count("RolledBack") == 1
        assert game.types["PaymentMade"] == 1
    for game in campaigns:
        # No credits left after the Med Kit; the toll would have made them -4 (QC-60).
        assert game.state["hero"]["credits"] >= 0


def test_qc41_qc43_qc48_a_death_and_the_clone_decision(campaigns: list[Played]) -> None:
    """Every campaign dies in the hopeless fight, which ends it (G-QC-12), then starves until
    the clone decision came (QC-65); a clone d4 of 1 or 3 is rolled again when the hero has no
    credits and no equipment (QC-44, QC-46), so the d4 counts only on 2 (QC-45) and 4 (QC-48)."""
    replaced = kept = 0
    for game in campaigns:
        died = game.details("Died")
        assert died[0]["cause"] == "combat" and died[0]["encounters_ended"] == ["combat"]
        assert {d["cause"] for d in died[1:]} <= {"starvation"}
        assert game.details("CombatEnded")[-1]["ended_by"] == "death"
        assert game.trace.answered.count(plan.CLONE_DECISION) >= 1
        assert game.types["Cloned"] == len(died)
        rolls = game.details("CloneRollMade")
        assert all(r["applied"] == (r["d4"] in (2, 4)) for r in rolls)
        assert sum(r["applied"] for r in rolls) == len(died)
        assert game.types["HeroReplaced"] <= 1
        replaced += game.types["HeroReplaced"] > 0
        kept += game.types["PerRestAbilitiesExhausted"] > 0
    assert replaced and kept  # both answers of the clone decision were given


def test_qc51_qc52_a_rest_that_asks_which_injured_stat(campaigns: list[Played]) -> None:
    for game in campaigns:
        assert game.trace.answered.count("rest_injury") == 1
        assert game.types["Rested"] == 1
        assert len(plan.injured_stats(game.state)) >= 1  # one stat restored, one still injured
        assert game.state["page"] is None
        assert game.types["PageEnded"] == 3


def test_cb01_cb02_a_day_and_a_night_every_decision_answered(matches: list[Played]) -> None:
    for game in matches:
        assert game.state["round"] == 2
        assert game.state["night"] is None and game.state["pending"] is None
        assert (game.types["NightPhaseStarted"], game.types["NightPhaseEnded"]) == (1, 1)
        assert game.types["MovementRolled"] == 1
        assert game.types["NightActionTaken"] == 3


def test_cb04_cb15_cb40_creatures_ordered_supply_chosen_day_slept(matches: list[Played]) -> None:
    for game in matches:
        assert game.types["CreatureOrderChosen"] == 1
        assert "supply_weapon" in game.trace.answered
        assert game.types["SleptDuringDay"] == 1


def test_cb10_gcb12_a_fate_reroll_every_night(matches: list[Played]) -> None:
    """A's ambush always has a reroll on offer; the answer takes it."""
    for game in matches:
        used = game.details("FateRerollUsed")
        assert any(u["player"] == "A" and u["roll"] == "ambush" for u in used)


def test_cb37_cb38_a_rizz_with_a_partner(matches: list[Played]) -> None:
    for game in matches:
        rizz = game.details("RizzAttempted")
        assert rizz and rizz[-1]["player"] == "B"
        sent = [b for b in game.trace.sent if b.get("action") == "rizz"]
        assert sent == [
            {
                "type": "night_action",
                "player": "B",
                "action": "rizz",
                "partner": "catgirlGirlfriend",
            }
        ]
        assert game.state["parties"]["C"]["partner"] == "catboyBoyfriend"  # CB-37: no rizz


def test_every_roll_is_a_server_roll_verified_once_the_seed_is_revealed(
    client: FlaskClient, campaigns: list[Played], matches: list[Played]
) -> None:
    for game in [*campaigns[:3], *matches[:3]]:
        audit = client.get(f"/campaigns/{game.table.cid}/audit").json
        assert audit["ok"] is True, audit


def test_sixty_campaigns_play_to_the_end(
    campaigns: list[Played], matches: list[Played], record_property: Any
) -> None:
    """Both fixtures ran: CAMPAIGNS of each game. How long they took is a figure, recorded and
    never asserted (a busy machine is slower, not wrong): speed is the benchmarks' business."""
    assert len(campaigns) == len(matches) == CAMPAIGNS
    for game, seconds in TIMES.items():
        record_property(f"{game}-seconds", round(seconds, 1))


def stored_commands(client: FlaskClient, cid: str) -> list[Json]:
    """The command each stored command's events record, once per command, in order."""
    items = client.get(f"/campaigns/{cid}/events?limit=1000").json["items"]
    commands: dict[int, Json] = {}
    for event in items:
        data = event["data"]
        if "command" in data:
            commands.setdefault(data["command_id"], data["command"])
    return list(commands.values())


def test_the_log_holds_exactly_the_bodies_the_plan_sent(
    client: FlaskClient, campaigns: list[Played], matches: list[Played]
) -> None:
    """Nothing written that nobody chose. Each stored command is the body sent, with
    no default filled in (a plain round has no condition, a hero no field it was not given);
    the rolled-back payment stays in the log, as a rollback deletes nothing."""
    for game in [*campaigns[:5], *matches[:5]]:
        assert stored_commands(client, game.table.cid) == game.trace.sent
