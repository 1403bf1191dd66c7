"""Undo by rollback, on SQLite and on PostgreSQL: one new event, the state at the target, the
events after it kept and marked undone, the dice stream never rolled back, redo, pending
decisions restored, the chain and the audit still valid.

The helpers at the top are shared with the other time-travel tests.
"""

from __future__ import annotations

import json
from copy import deepcopy
from dataclasses import replace
from typing import Any
from uuid import UUID

import pytest

from domain.model import samples
from domain.model.campaign import Campaign
from domain.model.errors import InvalidInput, NotFound, NotHeld, RuleViolation, StaleVersion
from domain.model.house_rules import ROLLBACK_OVER_SERVER_ROLLS
from domain.service.command_results import Idempotency
from domain.service.questlog import Questlog
from tests.application.test_qc_property import PLAY_HERO, ROUND
from tests.conftest import RawStore
from tests.unit.calendar_board.harness import three_players

# -- shared helpers ---------------------------------------------------------------------------


def created(app: Questlog, game: str, setup: dict[str, Any], house: dict[str, Any] | None) -> UUID:
    """A new campaign's id."""
    outcome = app.campaigns.create_campaign(
        game=game,
        name="time travel",
        house_rules=house,
        setup=setup,
    )
    return outcome.campaign_id


def qc_campaign(app: Questlog, house: dict[str, Any] | None = None) -> UUID:
    """A Quest Calendar campaign with a hero (abilities, items) and the first page open."""
    cid = created(app, "quest-calendar", {"prologue_complete": True}, house)
    command(app, cid, {"type": "select_hero", "phase": "main", "hero": deepcopy(PLAY_HERO)})
    command(app, cid, {"type": "start_page", "date": "2027-01-04"})
    return cid


def cb_campaign(app: Questlog, house: dict[str, Any] | None = None) -> UUID:
    """A Calendar Board match of three players, A, B and C (the rule-test set-up)."""
    return created(app, "calendar-board", three_players(), {**samples.ONE_SCREEN, **(house or {})})


def command(
    app: Questlog, cid: UUID, body: dict[str, Any], faces: list[int] | None = None
) -> list[Any]:
    """Run a game command (server dice unless ``faces``); returns the events it stored."""
    if faces is not None:
        body = {**body, "faces": faces}
    result = app.campaigns.command(cid, body)
    return app.campaign_events(cid, after=result.first_version - 1)


def rollback(app: Questlog, cid: UUID, to_version: int, **kwargs: Any) -> Campaign.RolledBack:
    """Roll back and return the stored RolledBack event."""
    kwargs.setdefault("reason", "a test")
    result = app.time_travel.rollback(cid, to_version=to_version, **kwargs)
    [event] = app.campaign_events(cid, after=result.version - 1)
    assert isinstance(event, Campaign.RolledBack)
    assert result.value["rollback"]["version"] == event.originator_version
    return event


def without_dice(view: dict[str, Any]) -> dict[str, Any]:
    """A campaign view without the dice stream, which a rollback never restores."""
    return {k: v for k, v in view.items() if k not in ("dice", "rolls")}


def stored_mark(app: Questlog) -> int:
    """The id of the last stored event: unchanged means nothing was stored."""
    return app.recorder.max_notification_id() or 0


def undone(app: Questlog, cid: UUID) -> dict[int, int | None]:
    """Each version's ``undone_by``, from the campaign's timeline."""
    campaign = app.campaign(cid)
    timeline = app.reading.timeline(campaign)
    return {v: timeline.undone_by(v) for v in range(1, campaign.version + 1)}


# -- rollback ---------------------------------------------------------------------------------


def test_a_rollback_appends_one_event_and_restores_exactly_the_state_at_the_target(
    app: Questlog,
) -> None:
    cid = qc_campaign(app)
    command(app, cid, {"type": "trait_check", "trait": "STR", "target": 12})
    target = app.campaign(cid).version
    expected = app.campaign(cid, version=target).view()
    command(app, cid, {"type": "gain_credits", "amount": 5})
    app.campaigns.configure_house_rule(cid, "dice_mode", "server")
    app.dice.roll(cid, notation="d20", purpose="look around")
    command(app, cid, {"type": "trait_check", "trait": "DEX", "target": 12})
    before = app.campaign(cid)
    mark = stored_mark(app)

    event = rollback(app, cid, target, reason="misread the page", actor="Sam")

    after = app.campaign(cid)
    assert after.version == before.version + 1
    assert stored_mark(app) == mark + 1
    assert without_dice(after.view()) == without_dice(expected)
    assert after.house_rules["dice_mode"] == "either"
    # The dice stream goes on: nonce, roll count and seed as before the rollback.
    assert after.dice == before.dice
    assert event.to_version == target
    assert event.reason == "misread the page"
    assert event.actor == "Sam"
    assert event.undone_versions == list(range(target + 1, before.version + 1))
    assert event.undone_rolls == [f"{target + 3}-1", f"{target + 4}-1"]
    assert event.server_rolls_undone == 2
    assert undone(app, cid) == {
        v: (after.version if target < v < after.version else None)
        for v in range(1, after.version + 1)
    }


def test_new_commands_continue_from_the_restored_state(app: Questlog) -> None:
    cid = qc_campaign(app)
    target = app.campaign(cid).version
    credits = app.campaign(cid).state["hero"]["credits"]
    command(app, cid, {"type": "gain_credits", "amount": 5})
    rollback(app, cid, target)

    command(app, cid, {"type": "gain_credits", "amount": 2})

    assert app.campaign(cid).state["hero"]["credits"] == credits + 2


@pytest.mark.parametrize("to_version", [0, -1, -(2**70)])
def test_a_rollback_below_version_1_is_invalid_and_stores_nothing(
    app: Questlog, to_version: int
) -> None:
    cid = qc_campaign(app)
    mark = stored_mark(app)
    with pytest.raises(InvalidInput) as invalid:
        rollback(app, cid, to_version)
    assert list(invalid.value.errors) == ["to_version"]
    assert stored_mark(app) == mark


@pytest.mark.parametrize("beyond", [0, 1, 2**70])
def test_a_rollback_to_the_current_or_a_missing_version_is_invalid_and_stores_nothing(
    app: Questlog, beyond: int
) -> None:
    cid = qc_campaign(app)
    head = app.campaign(cid).version
    mark = stored_mark(app)
    with pytest.raises(InvalidInput) as invalid:
        rollback(app, cid, head + beyond)
    assert list(invalid.value.errors) == ["to_version"]
    assert stored_mark(app) == mark


def test_a_rollback_of_an_unknown_campaign_is_not_found(app: Questlog) -> None:
    with pytest.raises(NotFound):
        rollback(app, UUID(int=7), 1)


@pytest.mark.parametrize("field", ["reason", "actor"])
def test_a_blank_reason_or_actor_is_invalid(app: Questlog, field: str) -> None:
    cid = qc_campaign(app)
    kwargs = {"reason": "fine", "actor": "fine", field: "  "}
    with pytest.raises(InvalidInput) as invalid:
        app.time_travel.rollback(cid, to_version=1, **kwargs)
    assert list(invalid.value.errors) == [field]


def test_a_rollback_of_a_rollback_is_a_redo(app: Questlog) -> None:
    cid = qc_campaign(app)
    target = app.campaign(cid).version
    app.dice.roll(cid, notation="d20", purpose="search")
    command(app, cid, {"type": "gain_credits", "amount": 5})
    undone_head = app.campaign(cid)
    first = rollback(app, cid, target)
    assert undone(app, cid)[target + 1] == first.originator_version

    redo = rollback(app, cid, first.originator_version - 1, reason="redo")

    after = app.campaign(cid)
    assert without_dice(after.view()) == without_dice(undone_head.view())
    assert redo.undone_versions == [first.originator_version]
    assert redo.undone_rolls == []
    marks = undone(app, cid)
    assert marks[target + 1] is None and marks[target + 2] is None
    assert marks[first.originator_version] == redo.originator_version
    rolls, _ = app.reading.rolls(cid)
    assert [r["undone"] for r in rolls] == [False]


def test_a_redo_under_forbid_needs_no_agreement_because_it_undoes_no_roll(
    app: Questlog,
) -> None:
    cid = cb_campaign(app)
    target = app.campaign(cid).version
    app.dice.roll(cid, notation="d20", purpose="hail")
    proposal = app.time_travel.propose_rollback(cid, to_version=target, reason="r", proposer="A")
    pid = proposal.value["proposal"]["proposal_id"]
    app.time_travel.approve_rollback(cid, pid, player="B")
    executed = app.time_travel.approve_rollback(cid, pid, player="C").value

    redo = rollback(app, cid, executed["rollback"]["version"] - 1)

    assert redo.policy == "forbid"
    assert redo.server_rolls_undone == 0
    assert app.reading.rolls(cid)[0][0]["undone"] is False


def test_the_nonce_never_goes_back_and_an_undone_roll_is_never_repeated(app: Questlog) -> None:
    cid = qc_campaign(app)
    target = app.campaign(cid).version
    first = app.dice.roll(cid, notation="3d20", purpose="x").value
    rollback(app, cid, target)

    again = app.dice.roll(cid, notation="3d20", purpose="x").value

    assert again["proof"]["commitment"] == first["proof"]["commitment"]
    assert again["proof"]["nonce"] == first["proof"]["nonce"] + 1
    app.dice.rotate_seed(cid)
    report = app.reading.audit(cid)
    assert report.ok
    assert report.rolls["verified"] == 2
    rolls, _ = app.reading.rolls(cid)
    assert [(r["undone"], r["verified"]) for r in rolls] == [(True, True), (False, True)]


def test_a_revealed_seed_is_never_used_again_after_a_rollback(app: Questlog) -> None:
    cid = qc_campaign(app)
    target = app.campaign(cid).version
    old = app.campaign(cid).dice["commitment"]
    app.dice.rotate_seed(cid)
    rollback(app, cid, target)

    after = app.campaign(cid)
    assert after.dice["commitment"] != old
    assert old in after.dice["revealed"]
    record = app.dice.roll(cid, notation="d20", purpose="x").value
    assert record["proof"]["commitment"] == after.dice["commitment"]


def test_the_chain_and_the_audit_stay_valid_through_rollbacks_and_redos(
    app: Questlog, make_app: Any
) -> None:
    cid = qc_campaign(app)
    for n in range(3):
        app.dice.roll(cid, notation="d20", purpose=f"roll {n}")
    rollback(app, cid, 3)
    app.dice.roll(cid, notation="d20", purpose="roll 0")
    rollback(app, cid, 5)
    redo = rollback(app, cid, app.campaign(cid).version - 1)
    command(app, cid, {"type": "gain_credits", "amount": 1})

    report = app.reading.audit(cid)
    assert report.ok and report.chain_ok
    assert report.head_version == app.campaign(cid).version
    assert report.head_hash == app.campaign(cid).head_hash
    assert [r["version"] for r in report.rollbacks] == [7, 9, redo.originator_version]
    assert report.rollbacks[1]["undone_by"] == redo.originator_version
    fresh = make_app()
    assert fresh.campaign(cid).view() == app.campaign(cid).view()
    assert fresh.campaign(cid).rollbacks == app.campaign(cid).rollbacks


def test_a_rollback_across_snapshots_restores_the_state_and_the_snapshot_keeps_the_rollbacks(
    app: Questlog, raw: RawStore, make_app: Any
) -> None:
    cid = qc_campaign(app)  # versions 1..3
    for n in range(96):  # versions 4..99
        app.dice.roll(cid, notation="d6", purpose=f"roll {n}")
    expected = app.campaign(cid, version=10).view()

    rollback(app, cid, 10)  # version 100: a snapshot is taken

    assert 100 in raw.snapshot_versions(cid)
    fresh = make_app().campaign(cid)
    assert without_dice(fresh.view()) == without_dice(expected)
    assert fresh.rollbacks == [[100, 10]]
    assert fresh.dice["nonce"] == 96


def test_a_stored_snapshot_from_before_time_travel_still_loads(
    app: Questlog, raw: RawStore, make_app: Any
) -> None:
    cid = qc_campaign(app)
    for n in range(97):  # versions 4..100: a snapshot at 100
        app.dice.roll(cid, notation="d6", purpose=f"roll {n}")
    expected = app.campaign(cid).view()
    # Rewrite the stored snapshot in the shape it had before time travel (class version 1).
    table, key = raw.snapshots_table, raw._id(cid)
    where = "WHERE originator_id = ? AND originator_version = 100"
    [(stored,)] = raw._run(f"SELECT state FROM {table} {where}", (key,))
    document = json.loads(bytes(stored))  # type: ignore[arg-type]
    for name in ("rollbacks", "proposals", "class_version"):
        document["state"].pop(name, None)
    raw._run(f"UPDATE {table} SET state = ? {where}", (json.dumps(document).encode(), key))

    loaded = make_app().campaign(cid)

    assert (loaded.rollbacks, loaded.proposals) == ([], {})
    assert loaded.view() == expected
    assert rollback(make_app(), cid, 3).to_version == 3


# -- pending decisions ------------------------------------------------------------------------


def test_a_rollback_in_the_middle_of_a_night_phase_restores_the_pending_decision(
    app: Questlog,
) -> None:
    cid = cb_campaign(app, {ROLLBACK_OVER_SERVER_ROLLS: "allow"})
    for player in ("A", "B", "C"):
        command(app, cid, {"type": "end_turn", "player": player})
    night = app.campaign(cid)
    assert night.state["night"] is not None
    pending = night.state["pending"]
    assert pending["decision"] == "night_action" and pending["who"] == "A"
    command(app, cid, {"type": "night_action", "player": "A", "action": "sleep"})
    assert app.campaign(cid).state["pending"]["who"] == "B"

    rollback(app, cid, night.version, reason="A meant to ambush")

    after = app.campaign(cid)
    assert after.state["pending"] == pending
    assert after.state["night"] == night.state["night"]
    assert without_dice(after.view()) == without_dice(night.view())
    with pytest.raises(RuleViolation) as wrong_player:
        app.campaigns.command(cid, {"type": "night_action", "player": "B", "action": "sleep"})
    assert wrong_player.value.rule_id == "CB-33"
    command(app, cid, {"type": "night_action", "player": "A", "action": "sleep"})
    assert app.campaign(cid).state["pending"]["who"] == "B"


COMBAT_FACES = {"standard": [15, 8], "easy": [15, 8, 15, 8], "hard": [15, 8]}
ANSWERS = {
    "resolve_round": {"type": "resolve_round", "abilities": []},
    "resolve_rounds": {"type": "resolve_rounds", "assignments": {}},
    "boost_damage": {"type": "boost_damage", "abilities": []},
}


@pytest.mark.parametrize("mode", ["easy", "standard", "hard"])
def test_a_rollback_in_the_middle_of_a_combat_page_restores_the_pending_decision(
    app: Questlog, mode: str
) -> None:
    cid = qc_campaign(app, {"qc.combat.mode": mode})
    command(app, cid, {"type": "start_combat", "kind": "several_enemies", "rounds": [ROUND] * 2})
    command(app, cid, {"type": "combat_round"}, faces=COMBAT_FACES[mode])
    fight = app.campaign(cid)
    pending = fight.state["pending"]
    assert pending is not None
    answer = ANSWERS[pending["commands"][0]]
    command(app, cid, answer, faces=[])
    answered = app.campaign(cid)
    assert answered.state["pending"] != pending

    rollback(app, cid, fight.version, reason="wrong ability list")

    after = app.campaign(cid)
    assert after.state["pending"] == pending
    assert after.state["page"]["combat"] == fight.state["page"]["combat"]
    command(app, cid, answer, faces=[])
    assert app.campaign(cid).state == answered.state


# -- If-Match and Idempotency-Key ---------------------------------------------------------------


def test_a_stale_expected_version_refuses_the_rollback_and_stores_nothing(app: Questlog) -> None:
    cid = qc_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="x")
    head = app.campaign(cid).version
    mark = stored_mark(app)
    with pytest.raises(StaleVersion):
        app.time_travel.rollback(cid, to_version=2, reason="r", expected_version=head - 1)
    assert stored_mark(app) == mark
    app.time_travel.rollback(cid, to_version=2, reason="r", expected_version=head)
    assert app.campaign(cid).version == head + 1


def test_a_repeated_idempotency_key_replays_the_rollback_and_appends_nothing(
    app: Questlog,
) -> None:
    cid = qc_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="x")
    key = Idempotency("POST /rollback", "undo-1", "same body")

    first = app.time_travel.rollback(cid, to_version=2, reason="r", idempotency=key)
    mark = stored_mark(app)
    again = app.time_travel.rollback(cid, to_version=2, reason="r", idempotency=key)
    assert again.replayed and replace(again, replayed=False) == first
    assert stored_mark(app) == mark


def test_the_audit_lists_who_rolled_back_when_why_and_which_rolls(app: Questlog) -> None:
    cid = qc_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="search")
    app.dice.roll(cid, notation="d20", purpose="search", faces=[4])
    event = rollback(app, cid, 3, reason="wrong room", actor="Sam")

    [listed] = app.reading.audit(cid).as_dict()["rollbacks"]

    assert listed == {
        "version": event.originator_version,
        "to_version": 3,
        "timestamp": event.timestamp.isoformat(),
        "actor": "Sam",
        "reason": "wrong room",
        "policy": "allow",
        "flagged": False,
        "proposal_id": None,
        "approved_by": None,
        "undone_rolls": ["4-1", "5-1"],
        "server_rolls_undone": 1,
        "undone_by": None,
    }
    report = app.reading.audit(cid)
    assert report.rollbacks == app.reading.audit(cid).rollbacks


# -- command boundaries ---------------------------------------------------------------------------


def test_a_version_in_the_middle_of_a_command_is_no_rollback_target_nor_fork_point(
    app: Questlog,
) -> None:
    cid = cb_campaign(app, {ROLLBACK_OVER_SERVER_ROLLS: "allow"})
    command(app, cid, {"type": "end_turn", "player": "A"})
    command(app, cid, {"type": "end_turn", "player": "B"})
    before = app.campaign(cid).version
    events = command(app, cid, {"type": "end_turn", "player": "C"})  # the night starts
    assert len(events) > 2
    first, last = before + 1, before + len(events)
    assert len({e.timestamp for e in events}) == 1
    travel = app.time_travel
    assert travel.command_span(cid, first) == (first, last)
    assert travel.command_span(cid, last) is None
    assert travel.command_span(cid, before) is None
    mark = stored_mark(app)

    for halfway in range(first, last):
        with pytest.raises(NotHeld) as invalid:
            rollback(app, cid, halfway)
        assert f"use {before} or {last}" in invalid.value.errors["to_version"][0]
        with pytest.raises(NotHeld) as fork_invalid:
            travel.fork(cid, at_version=halfway, name="f")
        assert list(fork_invalid.value.errors) == ["at_version"]
        with pytest.raises(NotHeld):
            travel.propose_rollback(cid, to_version=halfway, reason="r", proposer="A")
    assert stored_mark(app) == mark
    # The state in the middle can still be read, and ?at= lands at the end of the command.
    assert app.campaign(cid, version=first).version == first
    assert travel.version_at(cid, events[0].timestamp) == last
    rollback(app, cid, before)
    assert app.campaign(cid).state["night"] is None


def test_an_edited_rollback_is_caught_by_the_audit(app: Questlog, raw: RawStore) -> None:
    cid = qc_campaign(app)
    credits = app.campaign(cid).state["hero"]["credits"]
    app.dice.roll(cid, notation="d20", purpose="x")
    event = rollback(app, cid, 3, reason="honest")
    version = event.originator_version
    stored = raw.event_state(cid, version)
    richer = f'"credits":{credits}'.encode()
    assert richer in stored
    raw.set_event_state(cid, version, stored.replace(richer, f'"credits":{credits + 90}'.encode()))

    report = app.reading.audit(cid)

    assert not report.chain_ok
    assert report.first_bad_version == version
    assert [r["version"] for r in report.rollbacks] == [version]
