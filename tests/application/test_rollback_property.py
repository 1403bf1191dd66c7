"""Rollback property, for both games, on SQLite and on PostgreSQL.

Hypothesis plays a random valid command sequence (the Quest Calendar generators of
``test_qc_property``; for Calendar Board the turn commands of the current player and the answer
to whatever ``state["pending"]`` asks, with the three-player set-up of the rule tests), with a
rollback now and then along the way. Then, for a random earlier version N:

- a rollback to N gives exactly ``app.campaign(id, version=N).view()``, except the dice stream,
  which goes on (the nonce never goes back);
- further commands behave as they would have at N: the same commands with the same reported
  faces on a fork at N and on the rolled-back campaign give the same game state;
- the chain and the audit stay valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from itertools import pairwise
from typing import Any
from uuid import UUID, uuid4

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from domain.model.campaign import Campaign
from domain.model.dice.draw import Draw, commitment_of, new_server_seed
from domain.model.errors import InvalidInput, RuleViolation
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD, QUEST_CALENDAR, book
from domain.service.questlog import Questlog
from domain.service.timetravel import same_command
from tests.application.test_qc_property import PLAY_HERO
from tests.application.test_qc_property import next_command as qc_next_command
from tests.unit.calendar_board.harness import three_players

Json = dict[str, Any]
PARTNERS = ("catgirlGirlfriend", "catboyBoyfriend")


class RecordedDice:
    """Faces drawn by Hypothesis (reported dice), remembered so they can be reported again."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.faces: list[int] = []

    def draw(self, sides: Sequence[int]) -> Draw:
        """One face per die, each in range."""
        faces = [self.data.draw(st.integers(1, n), label=f"d{n}") for n in sides]
        self.faces.extend(faces)
        return Draw(faces=faces, source="reported", proof=None)


def cb_answer(data: st.DataObject, pending: Json) -> Json:
    """The pending decision's command, from the right player, with one of its options."""
    who, options, command = pending["who"], pending["options"], pending["commands"][0]
    body: Json = {"type": command, "player": who}
    if pending["decision"] == "fate_reroll":  # G-CB-12: reroll the party's own roll, or keep it
        if data.draw(st.booleans(), label="fate reroll"):
            body["roll"] = pending["context"]["roll"]
        else:
            body["type"] = "decline_fate_reroll"
    elif command == "night_action":
        body["action"] = data.draw(st.sampled_from(options))
        if body["action"] == "rizz":
            body["partner"] = data.draw(st.sampled_from(PARTNERS))
    elif command == "choose_ambush":
        option = data.draw(st.sampled_from(options))
        body.update(piece=option["piece"], target=option["target"], form="surprise attack")
    elif command == "choose_supply_weapon":
        may_decline = pending["context"].get("may_decline", False)
        body["weapon"] = data.draw(st.sampled_from([*options, *([None] if may_decline else [])]))
    elif command == "order_creatures":
        body["order"] = data.draw(st.permutations(options))
    elif command == "assign_hail_damage":
        body["piece"] = data.draw(st.sampled_from(options))
    return body


def cb_next_command(data: st.DataObject, state: Json) -> Json:
    """The answer to a pending decision, else a turn command of the current player."""
    if state["pending"]:
        return cb_answer(data, state["pending"])
    player = state["turn"]["player"] or "A"
    pieces = sorted(state["parties"][player]["pieces"])
    return data.draw(
        st.one_of(
            st.just({"type": "end_turn", "player": player}),
            st.just({"type": "end_turn", "player": player}),
            st.just({"type": "start_acting", "player": player}),
            st.just({"type": "day_sleep", "player": player}),
            st.builds(
                lambda p: {"type": "roll_movement", "player": player, "piece": p},
                st.sampled_from(pieces),
            ),
            st.builds(
                lambda n: {"type": "raise_annustar", "amount": n, "cause": "effect"},
                st.integers(-3, 5),
            ),
        ),
        label="command",
    )


def next_command(data: st.DataObject, game: str, state: Json, step: int) -> Json:
    """A command that mostly fits the state."""
    if game == QUEST_CALENDAR:
        return data.draw(qc_next_command(state, step), label="command")
    return cb_next_command(data, state)


def start(app: Questlog, game: str, data: st.DataObject) -> Campaign:
    """A stored campaign of the game, ready to play."""
    overrides: Json = {"rollback_over_server_rolls": "allow"}
    if game == QUEST_CALENDAR:
        overrides["qc.combat.mode"] = data.draw(st.sampled_from(["standard", "easy", "hard"]))
        setup: Json = {"prologue_complete": True}
    else:
        setup = three_players()
        setup["creatures"] = [{"id": "z1", "type": "Zombie"}, {"id": "z2", "type": "Zombie"}]
    house = book(game).resolve(overrides)
    campaign = Campaign.start(
        campaign_id=uuid4(),
        game=game,
        name="rollback property",
        house_rules=house,
        commitment=commitment_of(new_server_seed()),
        client_seed="property",
        state=RULES[game].initial_state(setup, house),
    )
    if game == QUEST_CALENDAR:
        hero = {"type": "select_hero", "phase": "main", "hero": deepcopy(PLAY_HERO)}
        campaign.run_command(RULES[game], hero, RecordedDice(data))
    app.save(campaign)
    return campaign


def attempt(campaign: Campaign, command: Json, dice: RecordedDice) -> str | None:
    """Run a command on the aggregate; returns why it was refused, or None."""
    before = deepcopy(campaign.state)
    try:
        campaign.run_command(RULES[campaign.game], command, dice)
    except (RuleViolation, InvalidInput) as refused:
        assert campaign.collect_events() == []
        assert campaign.state == before
        return getattr(refused, "rule_id", None) or type(refused).__name__
    return None


def app_attempt(app: Questlog, cid: UUID, command: Json, faces: list[int]) -> str | None:
    """Run a command through the application with reported faces; returns why it was refused."""
    try:
        app.campaigns.command(cid, {**command, "faces": faces})
    except (RuleViolation, InvalidInput) as refused:
        return getattr(refused, "rule_id", None) or type(refused).__name__
    return None


def between_commands(app: Questlog, cid: UUID) -> list[int]:
    """The versions below the head at which no command is half done (where play can resume)."""
    events = app.campaign_events(cid)
    return [
        event.originator_version
        for event, following in pairwise(events)
        if not same_command(event, following)
    ]


def comparable(state: Json) -> Json:
    """A state as a rolled-back campaign and its fork share it.

    A pending fate-reroll decision (G-CB-12) names the roll it is about by its id, and a roll id
    is "<version>-<n>" in its own campaign's log: the same roll has another id in the fork.
    """
    pending = state.get("pending")
    if not pending or "roll_id" not in pending.get("context", {}):
        return state
    context = {k: v for k, v in pending["context"].items() if k != "roll_id"}
    return {**state, "pending": {**pending, "context": context}}


def without_dice(view: Json) -> Json:
    """A campaign view without the dice stream, which a rollback never restores."""
    return {k: v for k, v in view.items() if k not in ("dice", "rolls")}


@pytest.mark.parametrize("game", [QUEST_CALENDAR, CALENDAR_BOARD])
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_rollback_to_a_random_version_restores_it_and_play_goes_on_from_there(
    app: Questlog, game: str, data: st.DataObject
) -> None:
    travel = app.time_travel
    campaign = start(app, game, data)
    cid = campaign.id
    for step in range(data.draw(st.integers(3, 25), label="steps")):
        if campaign.version > 2 and data.draw(st.integers(0, 9), label="rollback?") == 0:
            back_to = data.draw(st.sampled_from(between_commands(app, cid)), label="along")
            travel.rollback(cid, to_version=back_to, reason="along the way")
            campaign = app.campaign(cid)
            continue
        command = next_command(data, game, campaign.state, step)
        if attempt(campaign, command, RecordedDice(data)) is None:
            app.save(campaign)
    head = app.campaign(cid)
    event(f"{game}: versions {min(head.version // 10 * 10, 30)}+, rollbacks {len(head.rollbacks)}")
    if head.version < 2:
        return
    resumable = between_commands(app, cid)
    for halfway in sorted(set(range(1, head.version)) - set(resumable))[:3]:
        with pytest.raises(InvalidInput):
            travel.rollback(cid, to_version=halfway, reason="in the middle of a command")
    target = data.draw(st.sampled_from(resumable), label="N")
    at_target = app.campaign(cid, version=target)

    rolled_back = travel.rollback(cid, to_version=target, reason="property").value

    after = app.campaign(cid)
    assert after.version == head.version + 1
    assert without_dice(after.view()) == without_dice(at_target.view())
    assert after.dice == head.dice  # the dice stream goes on: the nonce never goes back
    assert rolled_back["rollback"]["undone_versions"] == list(range(target + 1, head.version + 1))
    event(f"{game}: a pending decision restored: {after.state.get('pending') is not None}")

    fork_id = travel.fork(cid, at_version=target, name="fork").campaign_id
    for step in range(data.draw(st.integers(1, 4), label="further")):
        scratch = app.campaign(cid)
        command = next_command(data, game, scratch.state, 100 + step)
        dice = RecordedDice(data)
        expected = attempt(scratch, command, dice)
        assert app_attempt(app, cid, command, dice.faces) == expected
        assert app_attempt(app, fork_id, command, dice.faces) == expected
        assert comparable(app.campaign(cid).state) == comparable(app.campaign(fork_id).state)
        assert app.campaign(cid).house_rules == app.campaign(fork_id).house_rules

    report = app.reading.audit(cid)
    assert report.ok and report.chain_ok
    assert report.head_hash == app.campaign(cid).head_hash
