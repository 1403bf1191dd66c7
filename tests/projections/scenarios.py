"""Scripted campaigns of both games, played through ``Questlog.campaigns.command`` with
hand-rolled faces.

Every outcome is fixed by the faces, so the tests can state each view's rows exactly.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain.model import samples
from domain.model.dice.notation import parse
from domain.service.questlog import Questlog

Json = dict[str, Any]

HERO: Json = samples.variant(samples.BARE_VANGUARD, damage_mod=0)
VEX: Json = {"id": "vex", "name": "Vex the Mechanic", "abilities": []}
MED_KIT: Json = {"id": "med-kit", "name": "Med Kit", "kind": "consumable"}
DOGFIGHT_ROUND: Json = {
    "evasion_target": 60,
    "enemy_aim": 45,
    "damage_reduced": 1,
    "damage_max": 5,
}
RIZZ = "catgirlGirlfriend"
SHORT_BOARD = ["start", "rain", "fog", "hail", "snow", "normal", "end"]
CB_HOUSE_RULES: Json = {
    **samples.ONE_SCREEN,
    "cb.night.steps": ["calendar", "wind", "token", "actions"],
    "cb.calendar.layout": SHORT_BOARD,
}
CB_SETUP: Json = {
    "players": [
        {
            "id": "A",
            "pieces": [
                {"id": "a1", "location": {"kind": "pathway", "space": 3}},
                {"id": "a2", "location": {"kind": "home"}},
            ],
        },
        {
            "id": "B",
            "exhaustion": 4,
            "pieces": [
                {"id": "b1", "location": {"kind": "pathway", "space": 5}},
                {"id": "b2", "location": {"kind": "pathway", "space": 6}},
            ],
        },
    ],
    "starting_token": "A",
}


def run(app: Questlog, campaign_id: UUID, command: Json, faces: list[int] | None = None) -> int:
    """Run a game command with these faces (none: it must roll nothing); returns the version."""
    outcome = app.campaigns.command(
        campaign_id,
        {**command, "faces": list(faces or [])},
    )
    return outcome.version


def quest_calendar_week(app: Questlog) -> UUID:
    """Two pages: debt and repayment, theft, hunger, a crewed Bridge destroyed; then a Sunday
    of lottery, shopping and pickpocketing, and death by starvation with clone result 1."""
    outcome = app.campaigns.create_campaign(
        game="quest-calendar", name="Week", setup={"prologue_complete": True}
    )
    cid = outcome.campaign_id
    run(app, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    run(app, cid, {"type": "start_page", "date": "2027-01-04"})
    run(app, cid, {"type": "pay", "purpose": "toll", "cost": 5, "required": True})
    run(app, cid, {"type": "gain_credits", "amount": 6, "cause": "reward"})
    run(app, cid, {"type": "theft", "amount": 1})
    run(app, cid, {"type": "change_virtue", "delta": 2, "cause": "spared the smuggler"})
    run(app, cid, {"type": "eat_rations", "count": 2})
    run(app, cid, {"type": "hire_crew", "crew": VEX, "fee": 1})
    run(app, cid, {"type": "assign_crew", "crew": "vex", "compartment": 2})
    run(app, cid, {"type": "dogfight", "rounds": [DOGFIGHT_ROUND]}, [10, 10, 2, 2, 2, 2])
    run(app, cid, {"type": "end_page"})
    run(app, cid, {"type": "start_page", "date": "2027-01-10"})
    run(app, cid, {"type": "play_lottery"}, [6])
    stock = [{"item": MED_KIT, "price": 2}]
    run(app, cid, {"type": "enter_shop", "shop_id": "dock-market", "stock": stock})
    run(app, cid, {"type": "buy", "item": "med-kit"})
    run(app, cid, {"type": "sell", "item": "med-kit"})
    run(app, cid, {"type": "pickpocket", "icon_id": "alley"}, [3])
    run(app, cid, {"type": "eat_rations", "count": 18}, [1])
    return cid


def calendar_board_match(app: Questlog, house_rules: Json | None = None) -> UUID:
    """Two nights: rain set and activated, light then strong wind; B's failed rizz at exhaustion
    4 (B keeps it rather than spend a fate reroll, G-CB-12) eliminates both of B's pathway
    pieces; A sleeps, then B sleeps through a day; A's failed rizz is kept too."""
    outcome = app.campaigns.create_campaign(
        game="calendar-board",
        name="Match",
        house_rules={**CB_HOUSE_RULES, **(house_rules or {})},
        setup=CB_SETUP,
    )
    cid = outcome.campaign_id
    run(app, cid, {"type": "end_turn", "player": "A"})
    run(app, cid, {"type": "end_turn", "player": "B"}, [1, 10])
    run(app, cid, {"type": "night_action", "player": "A", "action": "sleep"})
    run(app, cid, {"type": "night_action", "player": "B", "action": "rizz", "partner": RIZZ}, [1])
    run(app, cid, {"type": "decline_fate_reroll", "player": "B"})
    run(app, cid, {"type": "end_turn", "player": "A"})
    run(app, cid, {"type": "day_sleep", "player": "B"}, [3, 20])
    run(app, cid, {"type": "night_action", "player": "A", "action": "rizz", "partner": RIZZ}, [1])
    run(app, cid, {"type": "decline_fate_reroll", "player": "A"})
    run(app, cid, {"type": "night_action", "player": "B", "action": "sleep"})
    return cid


def many_rolls(app: Questlog, count: int, *, per_save: int = 500) -> UUID:
    """A campaign with ``count`` server rolls, saved ``per_save`` events per transaction."""
    outcome = app.campaigns.create_campaign(game="quest-calendar", name="Dice")
    cid = outcome.campaign_id
    expression = parse("2d20kh1+3")
    campaign = app.campaign(cid)
    for n in range(count):
        campaign.roll(expression, "stress", app.dice.server_dice(campaign))
        if (n + 1) % per_save == 0:
            app.save(campaign)
    app.save(campaign)
    return cid
