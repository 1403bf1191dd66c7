"""Campaigns in many states, reached through the API, for the schema-generated command tests.

The game plans (tests/browser/game_plan.py) are played on server dice; after every command
the state is named (``qc_situations``, ``cb_situations``): a new campaign, a hero with an open
page, mid-combat, in a shop, after a death, a match by day, a night waiting on each kind of
decision... The first version of each situation is forked into a campaign of its own, a
``Scene``. A test sends a command to a scene and, if it is stored, rolls the scene back to where
it started, so every command meets the situation it was aimed at.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask.testing import FlaskClient

from domain.model import samples
from tests.api.api_calls import ApiTable
from tests.browser import game_plan as plan

Json = dict[str, Any]
Situations = Callable[[Json, list[str]], list[str]]
"""(state, types of the events just stored) -> the situations the state is in."""

ROLLBACK_ALLOWED = {"rollback_over_server_rolls": "allow"}
"""A scene goes back after every stored command; under 'allow' that needs no one's agreement."""


@dataclass
class Scene:
    """A campaign forked at one situation; ``base`` is the version it goes back to."""

    situation: str
    game: str
    campaign: str
    base: int
    state: Json = field(repr=False)
    version: int = 0
    head: str = ""
    rollbacks: int = 0

    def url(self, tail: str = "") -> str:
        """A URL of this scene's campaign."""
        return f"/campaigns/{self.campaign}{tail}"

    def stored(self, client: FlaskClient) -> tuple[int, str]:
        """The version and head hash the store now has for this campaign."""
        body = client.get(self.url()).json
        return body["version"], body["head_hash"]

    def go_back(self, client: FlaskClient) -> None:
        """Undo whatever was stored since the fork: a rollback to ``base``."""
        response = client.post(
            self.url("/rollback"), json={"to_version": self.base, "reason": "fuzz: back"}
        )
        assert response.status_code == 201, response.json
        self.version, self.head = response.json["version"], response.json["head_hash"]
        self.rollbacks += 1


class Recorder(ApiTable):
    """A plan's table over the API that notes the first version of each situation it meets;
    its scenes may bring their own faces (a dogfight's sure hit)."""

    server_dice_only = False

    def __init__(self, client: FlaskClient, created: Json, situations: Situations) -> None:
        super().__init__(client, created)
        self.situations = situations
        self.seen: dict[str, int] = {}
        self.note(created["state"], [])

    def note(self, state: Json, types: list[str]) -> None:
        for situation in self.situations(state, types):
            self.seen.setdefault(situation, self.version)

    def send(self, body: Json) -> Json:
        """POST the command (it must be stored) and note the situations it leads to."""
        stored = len(self.events)
        state = super().send(body)
        self.note(state, [e["type"].split(".", 1)[-1] for e in self.events[stored:]])
        return state


def qc_situations(state: Json, types: list[str]) -> list[str]:
    """The Quest Calendar situations a state is in (the well-equipped hero's named apart)."""
    if state.get("hero") and state["hero"]["id"] == EQUIPPED_HERO["id"]:
        return [f"{situation} (well-equipped)" for situation in qc_plain(state, types)]
    return qc_plain(state, types)


def qc_plain(state: Json, types: list[str]) -> list[str]:
    """The Quest Calendar situations a state is in, whoever the hero."""
    found = []
    hero, page, pending = state.get("hero"), state.get("page"), state.get("pending")
    if hero is None:
        found.append("a new campaign")
    elif page is None:
        found.append("a hero between pages")
    elif (page.get("combat") or {}).get("status") == "in_progress":
        found.append("mid-combat")
    elif (page.get("dogfight") or {}).get("status") == "in_progress":
        found.append("mid-dogfight")
    elif page.get("shop") is not None:
        found.append("in a shop")
    else:
        found.append("a hero with an open page")
    if pending:
        found.append(f"waiting on {pending['decision']}")
    if "Died" in types:
        found.append("after a death")
    return found


def cb_situations(state: Json, types: list[str]) -> list[str]:
    """The Calendar Board situations a state is in."""
    pending = state.get("pending")
    if state.get("night") is not None:
        return [f"a night waiting on {pending['decision']}"] if pending else ["a night"]
    found = ["a match by day" if not state.get("nights") else "a day after a night"]
    if pending:
        found.append(f"a day waiting on {pending['decision']}")
    return found


def with_rollback(campaign: Json) -> Json:
    """A plan's campaign whose scenes may go back (house rule ``rollback_over_server_rolls``)."""
    body = copy.deepcopy(campaign)
    body["house_rules"] = {**body.get("house_rules", {}), **ROLLBACK_ALLOWED}
    return body


DOGFIGHT_ABILITY: Json = {
    "id": "lock-on",
    "name": "Lock-on",
    "usage": "per_page",
    "context": "dogfight",
    "effect": {"kind": "aim_bonus", "amount": 15},
}
DOGFIGHT_ROUNDS: list[Json] = [
    {"evasion_target": 60, "enemy_aim": 45, "damage_reduced": 2, "damage_max": 4},
    {"evasion_target": 70, "enemy_aim": 50, "damage_reduced": 2, "damage_max": 5},
]


def play_dogfight(recorder: Recorder) -> None:
    """A hero in a dogfight (QC-69..QC-76), then waiting on the abilities after a missed Aim
    (QC-14): the d100 is hand-rolled so the miss is certain."""
    hero = {**plan.HERO, "abilities": [*plan.HERO.get("abilities", []), DOGFIGHT_ABILITY]}
    recorder.send({"type": "select_hero", "phase": "main", "hero": hero})
    recorder.send({"type": "start_page", "date": "2027-01-08"})
    recorder.send({"type": "start_dogfight", "enemies": ["raider"], "rounds": DOGFIGHT_ROUNDS})
    recorder.send({"type": "dogfight_round", "faces": [{"tens": 40, "units": 0}]})


def consumable(item_id: str, **effect: Any) -> Json:
    """A consumable item with this effect."""
    return {
        "id": item_id,
        "name": item_id.replace("-", " ").title(),
        "kind": "consumable",
        "effect": effect,
    }


def ability(ability_id: str, usage: str, context: str, **effect: Any) -> Json:
    """An ability with this effect."""
    return {
        "id": ability_id,
        "name": ability_id.replace("-", " ").title(),
        "usage": usage,
        "context": context,
        "effect": effect,
    }


EQUIPPED_HERO: Json = {
    **copy.deepcopy(samples.VANGUARD),
    "id": "well-equipped",
    "credits": 40,
    "rations": 2,
    "abilities": [
        *samples.VANGUARD["abilities"],
        ability("keen-mind", "per_page", "outside", kind="check_bonus", amount=3),
        ability("second-look", "per_page", "both", kind="reroll", keep="better"),
        ability("power-strike", "surge", "combat", kind="attack_bonus", amount=2),
        ability("cleave", "per_rest", "combat", kind="double_damage"),
        ability("flurry", "surge", "combat", kind="extra_attack"),
        ability("patch-up", "per_page", "dogfight", kind="repair", amount=1),
        ability("lock-on", "per_page", "dogfight", kind="aim_bonus", amount=15),
        ability("jink", "surge", "dogfight", kind="evasion_bonus", dice="1d10"),
    ],
    "inventory": [
        *samples.VANGUARD["inventory"],
        samples.REPAIR_KIT,
        consumable("stim", kind="heal", dice="1d6"),
        consumable("splint", kind="remove_injury"),
        consumable("strengthener", kind="booster", trait="STR", dice="1d4"),
        consumable("focus-pill", kind="booster", trait="INT", amount=2),
        {"id": "ration", "name": "Meal Ration", "kind": "other", "effect": {"kind": "ration"}},
        {"id": "parts", "name": "Ship Parts", "kind": "ship_parts"},
        {
            "id": "targeting-array",
            "name": "Targeting Array",
            "kind": "upgrade",
            "compartments": [1, 2],
            "effect": {"kind": "ship_stat", "stat": "aim", "amount": 5},
        },
    ],
}
"""A hero with an item or ability of every kind the rules apply, so that generated commands that
use, equip, sell or install them meet each kind."""

EQUIPPED_ROUNDS: list[Json] = [
    plan.printed_round("Void hound", 12, 5, 11, 2, 4),
    {
        **plan.printed_round("Void titan", 14, 9, 14, 6, 12),
        "condition": {"name": "frightened", "target": 12},
    },
]


def play_equipped(recorder: Recorder) -> None:
    """The well-equipped hero: a page, a shop, a combat with abilities offered, a dogfight."""
    recorder.send({"type": "select_hero", "phase": "main", "hero": EQUIPPED_HERO})
    recorder.send({"type": "start_page", "date": "2027-01-04"})
    shop = {
        "type": "enter_shop",
        "shop_id": "dock-market",
        "stock": [{"item": samples.MED_KIT, "price": 4}, {"item": samples.VISOR, "price": 6}],
    }
    recorder.send(shop)
    recorder.send({"type": "leave_shop"})
    answer = plan.settle
    recorder.send({"type": "start_combat", "kind": "several_enemies", "rounds": EQUIPPED_ROUNDS})
    for _ in range(len(EQUIPPED_ROUNDS)):
        answer(recorder.send({"type": "combat_round"}), recorder, plan.qc_answer, plan.Trace())
    recorder.send({"type": "start_dogfight", "enemies": ["raider"], "rounds": DOGFIGHT_ROUNDS})
    recorder.send({"type": "dogfight_round", "faces": [{"tens": 40, "units": 0}]})


HAIL_PARTY: Json = {
    "id": "B",
    "luck_mod": -20,
    "pieces": [
        {"id": "b1", "location": {"kind": "pathway", "space": 3}},
        {"id": "b2", "location": {"kind": "pathway", "space": 4}},
    ],
}
"""A party whose hail save always fails (CB-28) with two pieces out: it chooses which is hit."""


def hail_campaign() -> Json:
    """The match with B as ``HAIL_PARTY``: a night on hail waits on the damage choice."""
    body = copy.deepcopy(plan.CB_CAMPAIGN)
    body["setup"]["players"][1] = HAIL_PARTY
    body["name"] = "Calendar Board, hail"
    return body


QC_WANTED = {
    "a hero with an open page (well-equipped)",
    "in a shop (well-equipped)",
    "mid-combat (well-equipped)",
    "mid-dogfight (well-equipped)",
    "a new campaign",
    "a hero between pages",
    "a hero with an open page",
    "mid-combat",
    "in a shop",
    "after a death",
    "mid-dogfight",
    "waiting on clone_replace_hero",
    "waiting on rest_injury",
    "waiting on dogfight_round_abilities",
}
CB_WANTED = {
    "a match by day",
    "a day after a night",
    "a night waiting on night_action",
    "a night waiting on ambush_target",
    "a night waiting on creature_order",
    "a night waiting on supply_weapon",
    "a night waiting on fate_reroll",
    "a night waiting on hail_damage",
}
"""The situations the scenes must include (server dice may add more)."""


def explore(client: FlaskClient, game: str, attempts: int = 24) -> dict[str, tuple[str, int]]:
    """Play the game's plans until every wanted situation was met (or ``attempts`` plays):
    each situation -> (campaign, version) where it was first met.

    Server dice decide whether the god piece reaches hail in a play: 8 plays (4 on the hail
    campaign) missed it in one CI run, so up to 24 are played; the loop stops as soon as
    every situation was met, so the extra plays cost only a run that needs them."""
    found: dict[str, tuple[str, int]] = {}

    def run(campaign: Json, situations: Situations, play: Callable[[Recorder], None]) -> None:
        response = client.post("/campaigns", json=with_rollback(campaign))
        assert response.status_code == 201, response.json
        recorder = Recorder(client, response.json, situations)
        play(recorder)
        for situation, version in recorder.seen.items():
            found.setdefault(situation, (recorder.cid, version))

    if game == "quest-calendar":
        run(plan.QC_CAMPAIGN, qc_situations, play_dogfight)
        run(plan.QC_CAMPAIGN, qc_situations, play_equipped)
        wanted, situations = QC_WANTED, qc_situations

        def play(recorder: Recorder) -> None:
            plan.play(plan.qc_steps(), recorder, plan.qc_answer)

        campaigns = [plan.QC_CAMPAIGN]
    else:
        wanted, situations = CB_WANTED, cb_situations

        def play(recorder: Recorder) -> None:
            plan.play(plan.cb_steps(), recorder, plan.cb_answer)

        campaigns = [plan.CB_CAMPAIGN, hail_campaign()]
    for attempt in range(attempts):
        run(campaigns[attempt % len(campaigns)], situations, play)
        if wanted <= set(found) and attempt + 1 >= len(campaigns):
            break
    missing = wanted - set(found)
    assert not missing, f"the plans never reached {sorted(missing)}"
    return found


def scenes(client: FlaskClient, game: str) -> list[Scene]:
    """One forked campaign per situation of ``game`` that its plans reach."""
    made = []
    for situation, (cid, version) in sorted(explore(client, game).items()):
        body = {"at_version": version, "name": f"fuzz: {situation}"}
        response = client.post(f"/campaigns/{cid}/fork", json=body)
        assert response.status_code == 201, response.json
        fork = response.json
        made.append(
            Scene(
                situation,
                game,
                fork["id"],
                fork["version"],
                fork["state"],
                fork["version"],
                fork["head_hash"],
            )
        )
    return made
