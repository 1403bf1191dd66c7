"""The campaign aggregate's rollback, proposal and approval events, decided and applied."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest
from eventsourcing.domain import Snapshot

from domain.model.campaign import Campaign
from domain.model.dice.draw import ScriptedDice
from domain.model.errors import InvalidInput, NotFound, NotHeld, RuleViolation
from domain.model.house_rules import ROLLBACK_OVER_SERVER_ROLLS, book
from tests.unit.calendar_board.harness import Match
from tests.unit.quest_calendar.harness import RULES_QC, Table


def at_version(history: list[Any], version: int) -> Campaign:
    """The campaign rebuilt from its first ``version`` events."""
    rebuilt = None
    for event in history[:version]:
        rebuilt = event.mutate(rebuilt)
    assert isinstance(rebuilt, Campaign)
    return rebuilt


def roll_back(table: Table | Match, to_version: int, **kwargs: Any) -> Campaign.RolledBack:
    """Roll the table back as the application would: the state at the target given as data."""
    history = [*table.history, *table.campaign.pending_events]
    restored = at_version(history, to_version)
    rolls = [
        record for event in history[to_version:] for record in getattr(event, "rolls", None) or []
    ]
    kwargs.setdefault("reason", "a test")
    kwargs.setdefault("actor", None)
    event = table.campaign.roll_back(
        to_version=to_version,
        restored_state=restored.state,
        restored_house_rules=restored.house_rules,
        undone_rolls=rolls,
        **kwargs,
    )
    table.history.extend(table.campaign.collect_events())
    return event


def test_the_rollback_house_rule_defaults_to_allow_solo_and_forbid_at_a_table() -> None:
    assert book("quest-calendar").rules[ROLLBACK_OVER_SERVER_ROLLS].default == "allow"
    assert book("calendar-board").rules[ROLLBACK_OVER_SERVER_ROLLS].default == "forbid"
    for game in ("quest-calendar", "calendar-board"):
        assert book(game).rules[ROLLBACK_OVER_SERVER_ROLLS].choices == ("allow", "flag", "forbid")


def test_a_rollback_assigns_the_state_and_house_rules_at_the_target_but_never_the_dice() -> None:
    table = Table()
    table.run({"type": "trait_check", "trait": "STR", "target": 12}, faces=[15])
    target = table.campaign.version
    table.run({"type": "gain_credits", "amount": 5})
    table.run({"type": "trait_check", "trait": "DEX", "target": 12}, faces=[3])
    dice_before = deepcopy(table.campaign.dice)
    state_at_target = at_version(table.history, target).state

    event = roll_back(table, target, reason="misread the page", actor="me")

    assert table.campaign.state == state_at_target
    assert table.campaign.dice == dice_before
    assert event.undone_versions == [target + 1, target + 2]
    assert event.undone_rolls == [f"{target + 2}-1"]
    assert event.server_rolls_undone == 1
    assert (event.policy, event.flagged, event.proposal_id) == ("allow", False, None)
    assert table.campaign.rollbacks == [[target + 3, target]]
    table.check_replay()


@pytest.mark.parametrize("to_version", [0, -1])
def test_a_rollback_below_version_1_is_invalid(to_version: int) -> None:
    table = Table()
    with pytest.raises(InvalidInput) as invalid:
        table.campaign.check_rollback_target(to_version)
    assert "to_version" in invalid.value.errors


def test_a_rollback_to_the_current_or_a_later_version_is_not_held() -> None:
    """The head (nothing to undo) and past it are the log's answer: 409 not-held, naming the
    field as invalid input does."""
    table = Table()
    head = table.campaign.version
    for target in (head, head + 1, 10**6):
        with pytest.raises(NotHeld) as invalid:
            table.campaign.check_rollback_target(target)
        assert "to_version" in invalid.value.errors


def test_forbid_refuses_a_rollback_over_server_rolls_and_names_the_rule() -> None:
    table = Table({ROLLBACK_OVER_SERVER_ROLLS: "forbid"})
    target = table.campaign.version
    table.run({"type": "trait_check", "trait": "STR", "target": 12}, faces=[15])
    with pytest.raises(RuleViolation) as refused:
        roll_back(table, target)
    assert refused.value.rule_id == ROLLBACK_OVER_SERVER_ROLLS
    assert table.campaign.collect_events() == []


def test_forbid_allows_a_rollback_over_reported_rolls_only() -> None:
    table = Table({ROLLBACK_OVER_SERVER_ROLLS: "forbid"})
    target = table.campaign.version
    check = {"type": "trait_check", "trait": "STR", "target": 12}
    table.campaign.run_command(RULES_QC, check, ScriptedDice([15], "reported"))
    table.history.extend(table.campaign.collect_events())
    event = roll_back(table, target)
    assert event.undone_rolls == [f"{target + 1}-1"]
    assert (event.policy, event.server_rolls_undone, event.flagged) == ("forbid", 0, False)


def test_flag_allows_it_and_flags_only_a_rollback_that_undoes_server_rolls() -> None:
    table = Table({ROLLBACK_OVER_SERVER_ROLLS: "flag"})
    target = table.campaign.version
    table.run({"type": "gain_credits", "amount": 2})
    assert roll_back(table, target).flagged is False
    table.run({"type": "trait_check", "trait": "STR", "target": 12}, faces=[15])
    flagged = roll_back(table, target)
    assert (flagged.policy, flagged.flagged, flagged.server_rolls_undone) == ("flag", True, 1)


def test_a_proposal_needs_every_player_and_the_proposer_agrees_by_proposing() -> None:
    match = Match()
    match.run({"type": "raise_annustar", "amount": 3, "cause": "strike"})
    campaign = match.campaign
    campaign.propose_rollback(
        proposal_id="p1", to_version=1, reason="r", proposer="A", players=["A", "B", "C"]
    )
    assert match.types(campaign.pending_events) == ["RollbackProposed", "RollbackApproved"]
    assert campaign.missing_approvals("p1") == ["B", "C"]
    campaign.approve_rollback("p1", "B", moved_on_at=None)
    assert campaign.missing_approvals("p1") == ["C"]
    with pytest.raises(RuleViolation) as twice:
        campaign.approve_rollback("p1", "B", moved_on_at=None)
    assert twice.value.rule_id == "rollback-already-approved"
    with pytest.raises(NotHeld) as stranger:  # not one of the proposal's players: the state's
        campaign.approve_rollback("p1", "Z", moved_on_at=None)
    assert "player" in stranger.value.errors
    with pytest.raises(RuleViolation) as stale:
        campaign.approve_rollback("p1", "C", moved_on_at=7)
    assert stale.value.rule_id == "rollback-proposal-stale"
    with pytest.raises(NotFound):
        campaign.approve_rollback("nope", "C", moved_on_at=None)


def test_an_agreed_proposal_may_undo_server_rolls_under_forbid_and_is_then_closed() -> None:
    match = Match()
    match.run({"type": "raise_annustar", "amount": 3, "cause": "strike"})
    campaign = match.campaign
    campaign.propose_rollback(
        proposal_id="p1", to_version=1, reason="r", proposer="A", players=["A", "B"]
    )
    campaign.approve_rollback("p1", "B", moved_on_at=None)
    event = roll_back(match, 1, proposal_id="p1", reason="r", actor="A")
    assert event.policy == "forbid"
    assert campaign.proposal("p1")["status"] == "executed"
    assert campaign.proposal("p1")["executed_at"] == event.originator_version
    with pytest.raises(RuleViolation) as closed:
        campaign.approve_rollback("p1", "B", moved_on_at=None)
    assert closed.value.rule_id == "rollback-proposal-closed"


def test_a_snapshot_taken_before_time_travel_loads_with_no_rollbacks_or_proposals() -> None:
    table = Table()
    snapshot = Snapshot.take(table.campaign)
    old_state = {
        k: v
        for k, v in snapshot.state.items()
        if k not in ("rollbacks", "proposals", "class_version")
    }
    old = Snapshot(
        originator_id=snapshot.originator_id,
        originator_version=snapshot.originator_version,
        timestamp=snapshot.timestamp,
        topic=snapshot.topic,
        state=old_state,
    )
    loaded = old.mutate(None)
    assert isinstance(loaded, Campaign)
    assert (loaded.rollbacks, loaded.proposals) == ([], {})
    assert loaded.state == table.campaign.state
