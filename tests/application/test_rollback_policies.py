"""The ``rollback_over_server_rolls`` policies, the approval flow and the audit's reroll count,
on SQLite and on PostgreSQL."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.model.errors import InvalidInput, NotFound, RuleViolation
from domain.model.house_rules import ROLLBACK_OVER_SERVER_ROLLS
from domain.service.command_results import CommandResult
from domain.service.questlog import Questlog
from tests.application.test_rollback import (
    cb_campaign,
    command,
    qc_campaign,
    rollback,
    stored_mark,
    undone,
    without_dice,
)


def propose(app: Questlog, cid: UUID, to_version: int, proposer: str) -> dict[str, Any]:
    """Propose a rollback; returns ``{"proposal", "rollback"}``."""
    outcome = app.time_travel.propose_rollback(
        cid, to_version=to_version, reason="the hail goal was wrong", proposer=proposer
    )
    return with_stored_rollback(app, outcome)


def approve(app: Questlog, cid: UUID, proposal_id: str, player: str) -> dict[str, Any]:
    """One player's agreement; returns ``{"proposal", "rollback"}``."""
    outcome = app.time_travel.approve_rollback(cid, proposal_id, player=player)
    return with_stored_rollback(app, outcome)


def with_stored_rollback(app: Questlog, outcome: CommandResult) -> dict[str, Any]:
    """The result's value, its rollback (if one was carried out) as the stored event."""
    value: dict[str, Any] = dict(outcome.value)
    if value["rollback"] is not None:
        [event] = app.campaign_events(outcome.campaign_id, after=outcome.version - 1)
        assert value["rollback"]["version"] == event.originator_version
        value["rollback"] = event
    return value


# -- allow and flag -----------------------------------------------------------------------------


def test_allow_is_the_quest_calendar_default_and_needs_nothing_more(app: Questlog) -> None:
    cid = qc_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="x")
    event = rollback(app, cid, 3)
    assert (event.policy, event.flagged, event.server_rolls_undone) == ("allow", False, 1)
    assert app.reading.audit(cid).flagged_rolls == []


def test_flag_allows_the_rollback_and_flags_it_and_its_server_rolls_in_the_audit(
    app: Questlog,
) -> None:
    cid = qc_campaign(app, {ROLLBACK_OVER_SERVER_ROLLS: "flag"})
    app.dice.roll(cid, notation="d20", purpose="x")
    app.dice.roll(cid, notation="d20", purpose="y", faces=[3])
    app.dice.roll(cid, notation="2d6", purpose="z")

    event = rollback(app, cid, 3)

    assert (event.policy, event.flagged, event.server_rolls_undone) == ("flag", True, 2)
    report = app.reading.audit(cid).as_dict()
    assert report["ok"]
    assert report["flagged_rolls"] == ["4-1", "6-1"]
    assert report["rollbacks"][0]["flagged"] is True


def test_flag_does_not_flag_a_rollback_that_undoes_no_server_roll(app: Questlog) -> None:
    cid = qc_campaign(app, {ROLLBACK_OVER_SERVER_ROLLS: "flag"})
    app.dice.roll(cid, notation="d20", purpose="y", faces=[3])
    assert rollback(app, cid, 3).flagged is False


# -- forbid ---------------------------------------------------------------------------------------


def test_forbid_is_the_calendar_board_default_and_refuses_a_direct_rollback_over_server_rolls(
    app: Questlog,
) -> None:
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail")
    mark = stored_mark(app)
    with pytest.raises(RuleViolation) as refused:
        rollback(app, cid, 1)
    assert refused.value.rule_id == ROLLBACK_OVER_SERVER_ROLLS
    assert stored_mark(app) == mark


def test_forbid_allows_a_direct_rollback_that_undoes_no_server_roll(app: Questlog) -> None:
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail", faces=[12])
    command(app, cid, {"type": "raise_annustar", "amount": 3, "cause": "strike"})
    event = rollback(app, cid, 1)
    assert (event.policy, event.server_rolls_undone, event.undone_rolls) == ("forbid", 0, ["2-1"])


def test_forbid_counts_only_rolls_still_active(app: Questlog) -> None:
    cid = cb_campaign(app, {ROLLBACK_OVER_SERVER_ROLLS: "allow"})
    app.dice.roll(cid, notation="d20", purpose="hail")  # 2, undone at 3
    rollback(app, cid, 1)
    app.campaigns.configure_house_rule(cid, ROLLBACK_OVER_SERVER_ROLLS, "forbid")  # 4
    # Back to 1 again: the server roll at 2 is already undone, so nothing forbids this.
    event = rollback(app, cid, 1)
    assert (event.server_rolls_undone, event.undone_rolls) == (0, [])
    assert event.undone_versions == [2, 3, 4]


def test_every_player_agrees_through_events_then_the_rollback_is_carried_out(
    app: Questlog,
) -> None:
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail")
    expected = app.campaign(cid, version=1).view()

    proposed = propose(app, cid, 1, "A")
    proposal = proposed["proposal"]
    assert proposed["rollback"] is None
    assert (proposal["players"], proposal["approvals"], proposal["status"]) == (
        ["A", "B", "C"],
        ["A"],
        "open",
    )
    assert approve(app, cid, proposal["proposal_id"], "B")["rollback"] is None
    done = approve(app, cid, proposal["proposal_id"], "C")

    event = done["rollback"]
    assert done["proposal"]["status"] == "executed"
    assert done["proposal"]["executed_at"] == event.originator_version
    assert (event.policy, event.proposal_id, event.actor) == (
        "forbid",
        proposal["proposal_id"],
        "A",
    )
    assert event.server_rolls_undone == 1
    assert without_dice(app.campaign(cid).view()) == without_dice(expected)
    types = [type(e).__name__ for e in app.campaign_events(cid)]
    assert types == [
        "Created",
        "DiceRolled",
        "RollbackProposed",
        "RollbackApproved",
        "RollbackApproved",
        "RollbackApproved",
        "RolledBack",
    ]
    [listed] = app.reading.audit(cid).as_dict()["rollbacks"]
    assert listed["approved_by"] == ["A", "B", "C"]
    assert listed["undone_rolls"] == ["2-1"]


def test_a_proposer_who_is_not_a_player_needs_every_player(app: Questlog) -> None:
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail")
    proposal = propose(app, cid, 1, "referee")["proposal"]
    assert proposal["approvals"] == []
    for player in ("A", "B"):
        assert approve(app, cid, proposal["proposal_id"], player)["rollback"] is None
    assert approve(app, cid, proposal["proposal_id"], "C")["rollback"] is not None


def test_a_solo_proposal_by_the_owner_is_carried_out_at_once(app: Questlog) -> None:
    cid = qc_campaign(app, {ROLLBACK_OVER_SERVER_ROLLS: "forbid"})
    app.dice.roll(cid, notation="d20", purpose="x")
    with pytest.raises(RuleViolation):
        rollback(app, cid, 3)
    done = propose(app, cid, 3, "owner")
    assert done["proposal"]["players"] == ["owner"]
    assert done["rollback"].to_version == 3


def test_a_proposal_is_stale_once_the_campaign_moves_on(app: Questlog) -> None:
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail")
    app.dice.roll(cid, notation="d20", purpose="hail")
    proposal = propose(app, cid, 1, "A")["proposal"]
    other = propose(app, cid, 2, "B")["proposal"]  # another proposal does not move it on
    approve(app, cid, proposal["proposal_id"], "B")
    app.dice.roll(cid, notation="d20", purpose="wind")
    mark = stored_mark(app)

    with pytest.raises(RuleViolation) as stale:
        approve(app, cid, proposal["proposal_id"], "C")

    assert stale.value.rule_id == "rollback-proposal-stale"
    assert stored_mark(app) == mark
    with pytest.raises(RuleViolation):
        approve(app, cid, other["proposal_id"], "C")


def test_a_second_proposal_to_the_version_an_open_one_asks_for_is_refused(app: Questlog) -> None:
    """Trial snag: the same rollback could be proposed twice. While a current proposal to that
    version is open, another is refused (409 naming it, nothing stored); once the campaign has
    moved on and the first is stale, proposing again is how to ask."""
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail")
    first = propose(app, cid, 1, "A")["proposal"]
    mark = stored_mark(app)
    with pytest.raises(RuleViolation) as twice:
        propose(app, cid, 1, "B")
    assert twice.value.rule_id == "rollback-proposal-open"
    assert first["proposal_id"] in str(twice.value) and "agreed: A" in str(twice.value)
    assert stored_mark(app) == mark
    app.dice.roll(cid, notation="d20", purpose="wind")
    again = propose(app, cid, 1, "B")["proposal"]
    assert again["proposal_id"] != first["proposal_id"]


def test_approvals_are_checked(app: Questlog) -> None:
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail")
    proposal_id = propose(app, cid, 1, "A")["proposal"]["proposal_id"]
    with pytest.raises(NotFound):
        approve(app, cid, "no-such-proposal", "B")
    with pytest.raises(InvalidInput) as stranger:
        approve(app, cid, proposal_id, "Z")
    assert list(stranger.value.errors) == ["player"]
    with pytest.raises(RuleViolation) as twice:
        approve(app, cid, proposal_id, "A")
    assert twice.value.rule_id == "rollback-already-approved"
    approve(app, cid, proposal_id, "B")
    approve(app, cid, proposal_id, "C")
    with pytest.raises(RuleViolation) as closed:
        approve(app, cid, proposal_id, "C")
    assert closed.value.rule_id == "rollback-proposal-closed"


@pytest.mark.parametrize("to_version", [0, 3, 99])
def test_a_proposal_to_a_bad_version_is_invalid_and_stores_nothing(
    app: Questlog, to_version: int
) -> None:
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail")
    app.dice.roll(cid, notation="d20", purpose="hail")
    mark = stored_mark(app)
    with pytest.raises(InvalidInput) as invalid:
        propose(app, cid, to_version, "A")
    assert list(invalid.value.errors) == ["to_version"]
    assert stored_mark(app) == mark


def test_the_proposal_and_its_approvals_fall_in_the_undone_range(app: Questlog) -> None:
    cid = cb_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="hail")
    pid = propose(app, cid, 1, "A")["proposal"]["proposal_id"]
    approve(app, cid, pid, "B")
    done = approve(app, cid, pid, "C")["rollback"]
    assert done.undone_versions == [2, 3, 4, 5, 6]
    assert set(undone(app, cid).values()) == {None, done.originator_version}


# -- rerolls --------------------------------------------------------------------------------------


def test_the_audit_counts_an_undone_roll_followed_by_a_new_roll_for_the_same_purpose(
    app: Questlog,
) -> None:
    cid = qc_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="pick the lock")  # 4
    app.dice.roll(cid, notation="d20", purpose="bribe the guard")  # 5
    rollback(app, cid, 3)  # 6
    app.dice.roll(cid, notation="d20", purpose="pick the lock")  # 7
    app.dice.roll(cid, notation="d20", purpose="climb the wall")  # 8

    rerolls = app.reading.audit(cid).as_dict()["rerolls"]

    assert rerolls == {
        "count": 1,
        "items": [
            {
                "roll_id": "4-1",
                "purpose": "pick the lock",
                "source": "server",
                "undone_by": 6,
                "rerolled_as": "7-1",
            }
        ],
    }


def test_rolling_again_and_again_counts_each_undone_roll(app: Questlog) -> None:
    cid = qc_campaign(app)
    for _ in range(3):
        app.dice.roll(cid, notation="d20", purpose="attack")
        rollback(app, cid, 3)
    app.dice.roll(cid, notation="d20", purpose="attack")
    rerolls = app.reading.audit(cid).as_dict()["rerolls"]
    assert rerolls["count"] == 3
    assert {item["rerolled_as"] for item in rerolls["items"]} == {"10-1"}


def test_a_redone_roll_is_not_a_reroll(app: Questlog) -> None:
    cid = qc_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="attack")  # 4
    rollback(app, cid, 3)  # 5
    rollback(app, cid, 4)  # 6: redo
    app.dice.roll(cid, notation="d20", purpose="attack")  # 7
    assert app.reading.audit(cid).as_dict()["rerolls"]["count"] == 0


def test_an_undone_roll_with_no_later_roll_for_its_purpose_is_not_a_reroll(
    app: Questlog,
) -> None:
    cid = qc_campaign(app)
    app.dice.roll(cid, notation="d20", purpose="attack")
    rollback(app, cid, 3)
    app.dice.roll(cid, notation="d20", purpose="flee")
    assert app.reading.audit(cid).as_dict()["rerolls"]["count"] == 0
