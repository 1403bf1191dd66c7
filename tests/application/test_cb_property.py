"""Calendar Board property: random matches played with random commands rebuild to the live state.

Hypothesis draws a 3- or 4-player set-up (pieces on the pathway, at home or eliminated, weapons
with ammunition and looted flags, exhaustion, partners, creatures, the Annustar value, the
options), a few house rules (a short board, the night steps, token timing, weather activation,
hail and supply variants), then commands that mostly fit the state: the pending decision's command
for the right player with one of the legal options in ``state["pending"]["options"]``, else the
current player's ``end_turn``, ``day_sleep``, ``start_acting``, ``roll_movement``, ``fate_reroll``
or ``declare_action``, or ``raise_annustar``; now and then a command that may not fit at all.
Every die face is drawn too, so a failing match shrinks to a short one.

The rules exercised are those of the whole chapter: turns and the night (CB-01..CB-03), creatures
(CB-04), decay and partners (CB-05, G-CB-06), basketball (CB-06), the Annustar value (CB-07),
the calendar, supply, laps and ceasefire (CB-08..CB-16), weather, Wet and hail (CB-17..CB-29),
the wind (CB-30, CB-31), night actions, exhaustion and elimination (CB-33..CB-39), day sleep
(CB-40, CB-41), movement rolls (CB-23), Fog (CB-27) and fate rerolls (CB-10).

A refused command (409 or 422 in the API) changes nothing; each accepted command is saved to the
real store; then the campaign loaded at the version each accepted command ended on equals the live
state of that moment (the store holds well over 100 events in long matches, so snapshots are read
too), and a fresh application on the same store agrees with the head.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from typing import Any
from uuid import uuid4

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import domain.model.calendar_board  # noqa: F401  (registers the game)
from domain.model.calendar_board.fate import REROLLABLE
from domain.model.calendar_board.house_rules import DEFAULT_LAYOUT, NIGHT_STEPS
from domain.model.calendar_board.state import FACINGS, PARTNERS, WEATHERS
from domain.model.campaign import Campaign
from domain.model.dice.draw import Draw, commitment_of, new_server_seed
from domain.model.errors import InvalidInput, RuleViolation
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD, book
from domain.service.questlog import Questlog

RULES_CB = RULES[CALENDAR_BOARD]
Json = dict[str, Any]

SPACE_TYPES = ("normal", "rain", "snow", "fog", "hail", "supply", "event")
CREATURE_TYPES = ("Zombie", "Zombie", "Ophanim", "Bat")


class DrawnDice:
    """Dice whose faces Hypothesis draws, so failures shrink and replay exactly."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def draw(self, sides: Sequence[int]) -> Draw:
        """One face per die, each in range."""
        faces = [self.data.draw(st.integers(1, n), label=f"d{n}") for n in sides]
        return Draw(faces=faces, source="reported", proof=None)


# -- set-ups ----------------------------------------------------------------------------------


# Ids are keys of the state, so they become JSON Pointer tokens in the events' patches: "~" and
# "/" must be escaped there and come back unchanged.
PLAYER_IDS = st.lists(
    st.text(alphabet="AB~/0", min_size=1, max_size=3), min_size=3, max_size=4, unique=True
)


@st.composite
def locations(draw: st.DrawFn) -> Json:
    """A piece's location: mostly the pathway, sometimes home, rarely elsewhere or eliminated."""
    kind = draw(
        st.sampled_from(["pathway"] * 6 + ["home"] * 3 + ["elsewhere", "eliminated"]),
        label="location",
    )
    if kind == "pathway":
        # The pathway is the main board, not the calendar: a short stretch makes ambushes hit.
        return {"kind": kind, "space": draw(st.integers(0, 12), label="space")}
    return {"kind": kind}


@st.composite
def weapons(draw: st.DrawFn, wid: str) -> Json:
    """A weapon; ranged and hybrid ones with ammunition are the ones supply refills."""
    ammo_max = draw(st.integers(0, 6))
    return {
        "id": wid,
        "kind": draw(st.sampled_from(["ranged", "ranged", "hybrid", "melee"])),
        "uses_ammo": draw(st.integers(0, 3)) > 0,
        "ammo": draw(st.integers(0, ammo_max)),
        "ammo_max": ammo_max,
        "ammo_regen": draw(st.integers(0, 4)),
        "looted": draw(st.integers(0, 3)) == 0,
    }


@st.composite
def players(draw: st.DrawFn, pid: str) -> Json:
    """A player and their party."""
    pieces = [
        {
            "id": f"{pid}.{n}",
            "location": draw(locations()),
            "facing": draw(st.sampled_from(FACINGS)),
            "adaptability": draw(st.integers(-2, 3)),
        }
        for n in range(draw(st.integers(0, 4), label="pieces"))
    ]
    arms = [draw(weapons(f"{pid}:w{n}")) for n in range(draw(st.integers(0, 3), label="weapons"))]
    entry: Json = {
        "id": pid,
        "pieces": pieces,
        "weapons": arms,
        "luck_mod": draw(st.integers(-4, 2)),
        "int_mod": draw(st.integers(-2, 6)),
        "exhaustion": draw(st.integers(0, 5)),
    }
    if draw(st.integers(0, 3)) == 0:
        entry["partner"] = draw(st.sampled_from(PARTNERS))
        entry["relationship"] = draw(st.integers(1, 13))
    return entry


@st.composite
def layouts(draw: st.DrawFn) -> list[str]:
    """The default board, or a short one so that laps, supply and hail come round quickly."""
    if draw(st.booleans(), label="default layout"):
        return list(DEFAULT_LAYOUT)
    middle = draw(st.lists(st.sampled_from(SPACE_TYPES), min_size=1, max_size=8))
    return ["start", *middle, "end"]


@st.composite
def house_rules(draw: st.DrawFn) -> Json:
    """A few house rules that change the night's course."""
    house: Json = {"cb.calendar.layout": draw(layouts())}
    if draw(st.integers(0, 4)) == 0:
        steps = draw(st.lists(st.sampled_from(NIGHT_STEPS), unique=True, max_size=8))
        house["cb.night.steps"] = steps
    choices: dict[str, list[Any]] = {
        "cb.godToken.passTiming": ["nightStart", "afterWind"],
        "cb.calendar.resetTiming": ["immediate", "beforeNextRoll"],
        "cb.weather.activation": ["startingTurn", "immediate"],
        "cb.weather.nightGap": ["normal", "previous", "new"],
        "cb.weather.wetSnapshot": [True, False],
        "cb.hail.successIf": ["total>=goal", "total>goal"],
        "cb.hail.retriggerOnRepeat": [True, False],
        "cb.supply.firePerSpace": [True, False],
        "cb.supply.mayDecline": [False, True],
        "cb.rizz.tieGoesTo": ["defender", "offender"],
        "cb.rizz.exhaustionOnFail": [True, False],
        "cb.ceasefire.max": [None, 1],
        "cb.relationship.breakupAt": [0, None, 10],
        "cb.annustaria.checksPerNight": [1, 2, 0],
        "cb.night.rolls": ["automatic", "players"],
        "cb.fateReroll.offer": ["useful", "always"],
        "cb.movement.rollsPerTurn": [None, 1, 2],
        "cb.movement.movesPiece": [False, True],
    }
    for key, values in choices.items():
        if draw(st.integers(0, 2), label=key) == 0:
            house[key] = draw(st.sampled_from(values), label=key)
    return house


@st.composite
def setups(draw: st.DrawFn) -> Json:
    """A match: 3 or 4 players, the token holder, creatures, the Annustar value and options."""
    ids = draw(PLAYER_IDS, label="players")
    event_weather = draw(st.none() | st.sampled_from(WEATHERS), label="event")
    return {
        "players": [draw(players(pid)) for pid in ids],
        "starting_token": draw(st.sampled_from(ids)),
        "creatures": [
            {
                "id": f"cr{n}",
                "type": draw(st.sampled_from(CREATURE_TYPES)),
                "night_active": draw(st.integers(0, 4)) > 0,
            }
            for n in range(draw(st.integers(0, 4), label="creatures"))
        ],
        "annustar": draw(st.sampled_from([0, 0, 1, 3, 19, 20])),
        "options": {
            "ceasefire_rule": draw(st.booleans()),
            "event_rules": draw(st.booleans()),
            "active_event": None
            if event_weather is None
            else {"id": "storm", "special_weather": event_weather},
        },
    }


# -- commands ---------------------------------------------------------------------------------


def answer(data: st.DataObject, pending: Json) -> Json:
    """The pending decision's command from the right player, with one of the legal options."""
    who, options = pending["who"], pending["options"]
    decision = pending["decision"]
    if decision == "creature_order":
        order = data.draw(st.permutations(options), label="creature order")
        return {"type": "order_creatures", "player": who, "order": list(order)}
    if decision == "supply_weapon":
        choices = [*options, None] if pending["context"]["may_decline"] else options
        weapon = data.draw(st.sampled_from(choices), label="supply weapon")
        return {"type": "choose_supply_weapon", "player": who, "weapon": weapon}
    if decision == "hail_damage":
        piece = data.draw(st.sampled_from(options), label="hail piece")
        return {"type": "assign_hail_damage", "player": who, "piece": piece}
    if decision == "night_roll":  # CB-06, CB-09, CB-28, CB-30, G-CB-08: that player's own roll
        return {"type": "roll_night", "player": who, "roll": pending["context"]["roll"]}
    if decision == "fate_reroll":  # G-CB-12: reroll the party's own night roll, or keep it
        if data.draw(st.booleans(), label="fate reroll"):
            return {"type": "fate_reroll", "player": who, "roll": pending["context"]["roll"]}
        return {"type": "decline_fate_reroll", "player": who}
    if decision == "ambush_target":
        if "fate_reroll" in pending["commands"] and data.draw(st.integers(0, 3)) == 0:
            return {"type": "fate_reroll", "player": who, "roll": "ambush"}
        option = data.draw(st.sampled_from(options), label="ambush option")
        return {
            "type": "choose_ambush",
            "player": who,
            "piece": option["piece"],
            "target": option["target"],
            "form": "surprise attack",
        }
    assert decision == "night_action", pending
    action = data.draw(st.sampled_from(options), label="night action")
    command = {"type": "night_action", "player": who, "action": action}
    if action == "rizz":
        command["partner"] = data.draw(st.sampled_from(PARTNERS), label="partner")
    return command


def day_command(data: st.DataObject, state: Json) -> Json:
    """A command of the day for the player whose turn it is (mostly ending the turn)."""
    player = state["turn"]["player"]
    kind = data.draw(
        st.sampled_from(
            ["end_turn"] * 6
            + ["day_sleep", "start_acting", "roll_movement", "fate_reroll", "declare_action"]
            + ["raise_annustar"]
        ),
        label="day command",
    )
    if kind == "roll_movement":
        pieces = sorted(state["parties"][player]["pieces"]) or ["none"]
        return {"type": kind, "player": player, "piece": data.draw(st.sampled_from(pieces))}
    if kind == "fate_reroll":
        return {"type": kind, "player": player, "roll": data.draw(st.sampled_from(REROLLABLE))}
    if kind == "declare_action":
        action = data.draw(st.sampled_from(["sight_spell", "fortify"]))
        return {"type": kind, "player": player, "action": action}
    if kind == "raise_annustar":
        return {"type": kind, "amount": data.draw(st.integers(-5, 25)), "cause": "strike"}
    return {"type": kind, "player": player}


def any_command(data: st.DataObject, state: Json) -> Json:
    """A command that may well not fit: any type, any player, any option."""
    player = data.draw(st.sampled_from([*state["players"], "nobody"]), label="anyone")
    pieces = [p for party in state["parties"].values() for p in party["pieces"]]
    arms = [w for party in state["parties"].values() for w in party["weapons"]]
    piece = data.draw(st.sampled_from([*pieces, "nothing"]), label="any piece")
    return data.draw(
        st.sampled_from(
            [
                {"type": "end_turn", "player": player},
                {"type": "day_sleep", "player": player},
                {"type": "start_acting", "player": player},
                {"type": "roll_movement", "player": player, "piece": piece},
                {"type": "night_action", "player": player, "action": "sleep"},
                {"type": "night_action", "player": player, "action": "ambush"},
                {
                    "type": "night_action",
                    "player": player,
                    "action": "rizz",
                    "partner": PARTNERS[0],
                },
                {"type": "order_creatures", "player": player, "order": ["cr0", "cr1"]},
                {
                    "type": "choose_supply_weapon",
                    "player": player,
                    "weapon": data.draw(st.sampled_from([*arms, None]), label="any weapon"),
                },
                {"type": "assign_hail_damage", "player": player, "piece": piece},
                {"type": "choose_ambush", "player": player, "piece": piece, "target": piece},
                {"type": "fate_reroll", "player": player, "roll": "hail"},
                {"type": "decline_fate_reroll", "player": player},
                {"type": "declare_action", "player": player, "action": "fortify"},
            ]
        ),
        label="any command",
    )


def next_command(data: st.DataObject, state: Json) -> Json:
    """Mostly the command the state asks for; one in twelve may be anything."""
    if data.draw(st.integers(0, 11), label="wild") == 0:
        return any_command(data, state)
    if state["pending"]:
        return answer(data, state["pending"])
    assert state["night"] is None, "a night without a pending decision must have ended"
    return day_command(data, state)


def check_invariants(state: Json, house: Json) -> None:
    """What holds between commands whatever happened."""
    assert (state["night"] is None) == (state["turn"]["player"] is not None)
    assert (state["night"] is None) == (state["pending"] is None)
    if state["pending"]:
        assert state["pending"]["who"] in state["players"]
        assert state["pending"]["options"], state["pending"]
    assert 0 <= state["board"]["god_piece"] < len(house["cb.calendar.layout"])
    assert 0 <= state["annustar"] <= house["cb.annustaria.max"]
    for party in state["parties"].values():
        assert (party["partner"] is None) == (party["relationship"] is None)
        assert party["exhaustion"] >= 0
        for weapon in party["weapons"].values():
            assert 0 <= weapon["ammo"] <= weapon["ammo_max"]


# -- the property -----------------------------------------------------------------------------


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_cb_random_matches_rebuild_to_the_live_state_at_every_version(
    app: Questlog, data: st.DataObject
) -> None:
    house = book(CALENDAR_BOARD).resolve(data.draw(house_rules(), label="house rules"))
    setup = data.draw(setups(), label="setup")
    campaign = Campaign.start(
        campaign_id=uuid4(),
        game=CALENDAR_BOARD,
        name="property",
        house_rules=house,
        commitment=commitment_of(new_server_seed()),
        client_seed="property",
        state=RULES_CB.initial_state(deepcopy(setup), house),
    )
    app.save(campaign)
    live = {campaign.version: campaign.view()}
    refused = 0
    decided: set[str] = set()
    for _ in range(data.draw(st.integers(5, 60), label="steps")):
        command = next_command(data, campaign.state)
        if campaign.state["pending"]:
            decided.add(campaign.state["pending"]["decision"])
        before = deepcopy(campaign.state)
        try:
            campaign.run_command(RULES_CB, command, DrawnDice(data))
        except (RuleViolation, InvalidInput):
            assert campaign.collect_events() == []
            assert campaign.state == before
            refused += 1
            continue
        check_invariants(campaign.state, house)
        app.save(campaign)
        live[campaign.version] = campaign.view()
    event(f"nights: {min(campaign.state['nights'], 6)}+")
    event(f"refused: {min(refused // 5 * 5, 15)}+")
    for decision in sorted(decided):
        event(f"decision: {decision}")
    for version, view in live.items():
        assert app.campaign(campaign.id, version=version).view() == view, f"version {version}"
    fresh = Questlog(app.config)
    try:
        assert fresh.campaign(campaign.id).view() == live[campaign.version]
    finally:
        fresh.close()
