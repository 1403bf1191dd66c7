"""Campaigns for the analyst views, played through the application with hand-rolled faces, and
what their tests read: a campaign's rows of a table, its events and active history.

Each plays what one of the analyst views records (trait checks and an ability used on one,
combats won and ended by a death, an infection roll, a house rule changed, nights of the board)
and rolls back part of it: directly on the Quest Calendar, by an agreed proposal on the board.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain.facade import Timeline
from domain.model import samples
from domain.service.questlog import Questlog
from projections.store import ViewStore
from projections.views import BoardNights, Combats, HouseRules, Rollbacks, TraitChecks
from tests.projections.scenarios import calendar_board_match, run

HERO: dict[str, Any] = {**samples.BARE_VANGUARD, "abilities": [samples.KEEN_MIND]}
"""The Vanguard (20 HP, DEF 12, ATK +3, 1d8+1, INT +2, STR +2, CON +1) with Keen Mind (+3 to a
check already rolled, once per page)."""
TWO_DRONES = [
    {
        "enemy": name,
        "hit_target": 13,
        "damage_needed": 6,
        "enemy_attack": 13,
        "damage_reduced": 4,
        "damage_full": 7,
    }
    for name in ("Scrap drone", "Rust drone")
]
BRUTE = [
    {
        "enemy": "Void brute",
        "hit_target": 13,
        "damage_needed": 6,
        "enemy_attack": 13,
        "damage_reduced": 4,
        "damage_full": 15,
    }
] * 2


def quest_calendar_days(app: Questlog) -> tuple[UUID, int]:
    """A page of checks and combats, then a direct rollback: returns the campaign and the
    rollback's target.

    INT 11 + 2 = 13 against 12 (QC-10); STR 10 + 2 = 12 against 15, then Keen Mind makes it 15
    (QC-14); two drones, both rounds won (18 to hit, 7 damage): won; house rule qc.combat.mode set
    to easy; the brute over two rounds (QC-22), missed twice: 15 damage, then 15 more kill the
    hero (5 HP left), who is cloned with result 4 (QC-47) at 10 HP: ended by death; infected, the
    end-of-page roll 5 + 1 = 6 costs 1 HP (QC-31). Then back to just after the drones, a CON check
    without a target, the page's end, and qc.combat.mode set to hard.
    """
    cid = app.campaigns.create_campaign(
        game="quest-calendar", name="Analyst", setup={"prologue_complete": True}
    ).campaign_id
    run(app, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    run(app, cid, {"type": "start_page", "date": "2027-01-04"})
    run(app, cid, {"type": "trait_check", "trait": "INT", "purpose": "decode", "target": 12}, [11])
    run(app, cid, {"type": "trait_check", "trait": "STR", "purpose": "lift", "target": 15}, [10])
    run(app, cid, {"type": "use_ability", "ability": "keen-mind", "on_roll": 1})
    run(app, cid, {"type": "start_combat", "kind": "several_enemies", "rounds": TWO_DRONES})
    run(app, cid, {"type": "combat_round"}, [15, 6])
    target = run(app, cid, {"type": "combat_round"}, [15, 6])
    app.campaigns.configure_house_rule(cid, "qc.combat.mode", "easy")
    run(app, cid, {"type": "start_combat", "kind": "one_enemy", "rounds": BRUTE})
    run(app, cid, {"type": "combat_round"}, [2, 1, 2, 1, 4])
    run(app, cid, {"type": "apply_condition", "condition": "infected", "source": "bite"})
    run(app, cid, {"type": "end_page"}, [5])
    app.time_travel.rollback(cid, to_version=target, reason="misread", actor="owner#1")
    run(app, cid, {"type": "trait_check", "trait": "CON", "purpose": "endure"}, [20])
    run(app, cid, {"type": "end_page"})
    app.campaigns.configure_house_rule(cid, "qc.combat.mode", "hard")
    return cid, target


def calendar_board_rolled_back(app: Questlog) -> tuple[UUID, int]:
    """The two-night match, night 2 rolled back by an agreed proposal and played again with
    both players sleeping: returns the match and the rollback's target (night 1's end)."""
    cid = calendar_board_match(app)
    events = app.campaign_events(cid)
    # The end of the command that ended night 1 (a rollback resumes between commands).
    target = next(e.command_versions[1] for e in events if type(e).TOPIC == "cb.NightPhaseEnded")
    travel = app.time_travel
    proposal = travel.propose_rollback(cid, to_version=target, reason="redo", proposer="A")
    travel.approve_rollback(cid, proposal.value["proposal"]["proposal_id"], player="B")
    run(app, cid, {"type": "end_turn", "player": "A"})
    run(app, cid, {"type": "end_turn", "player": "B"}, [3, 20])
    run(app, cid, {"type": "night_action", "player": "A", "action": "sleep"})
    run(app, cid, {"type": "night_action", "player": "B", "action": "sleep"})
    return cid, target


ANALYST_VIEWS = (TraitChecks, Combats, Rollbacks, HouseRules, BoardNights)
DAY = "2027-01-04"


def rows(views: ViewStore, table: str, campaign_id: UUID, *columns: str) -> list[tuple[Any, ...]]:
    """A campaign's rows of a table in key order, as tuples of these columns."""
    order = "rule" if table == "house_rules" else "event_id, n"
    with views.read() as cursor:
        found = views.rows(
            cursor,
            f"SELECT * FROM {{{table}}} WHERE campaign_id = ? ORDER BY {order}",
            [str(campaign_id)],
        )
    return [tuple(row[c] for c in columns) for row in found]


class Played:
    """A campaign's events and active history, as the application records them."""

    def __init__(self, app: Questlog, campaign_id: UUID) -> None:
        self.events = app.campaign_events(campaign_id)
        head = app.campaign(campaign_id)
        self.head = head
        self.timeline = Timeline.of(head.rollbacks, head.version)

    def versions(self, topic: str) -> list[int]:
        """The versions of the events of a type, in order."""
        return [e.originator_version for e in self.events if topic == type(e).TOPIC]

    def event(self, version: int) -> Any:
        """The event at a version."""
        return self.events[version - 1]

    def undone_by(self, version: int) -> int | None:
        """The rollback that took a version off the active history."""
        return self.timeline.undone_by(version)
