"""Forks, on SQLite and on PostgreSQL: a new campaign from the state at a version, with its own
seed and its origin in its creation event; the original untouched."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.model.campaign import Campaign
from domain.model.errors import InvalidInput, NotFound, StaleVersion
from domain.model.house_rules import ROLLBACK_OVER_SERVER_ROLLS
from domain.service.command_results import Idempotency
from domain.service.questlog import Questlog
from tests.application.test_rollback import (
    cb_campaign,
    command,
    qc_campaign,
    rollback,
    stored_mark,
    without_dice,
)


def fork(app: Questlog, cid: UUID, at_version: int, **kwargs: Any) -> UUID:
    """Fork and return the new campaign's id."""
    outcome = app.time_travel.fork(
        cid,
        at_version=at_version,
        name=kwargs.pop("name", "what if"),
        **kwargs,
    )
    return outcome.campaign_id


def test_a_fork_starts_from_the_state_at_the_version_with_its_own_seed(app: Questlog) -> None:
    cid = qc_campaign(app, {"qc.combat.mode": "hard"})
    command(app, cid, {"type": "gain_credits", "amount": 4})
    at = app.campaign(cid)
    app.dice.roll(cid, notation="d20", purpose="later")
    original = app.campaign(cid)

    fid = fork(app, cid, at.version, name="what if I fled")

    forked = app.campaign(fid)
    assert forked.version == 1
    assert forked.name == "what if I fled"
    assert forked.game == at.game
    assert forked.state == at.state
    assert forked.house_rules == at.house_rules
    assert forked.origin == {
        "campaign_id": str(cid),
        "version": at.version,
        "head_hash": at.head_hash,
    }
    [created] = app.campaign_events(fid)
    assert isinstance(created, Campaign.Created)
    assert created.origin == forked.origin
    assert forked.dice["commitment"] != at.dice["commitment"]
    assert forked.dice["client_seed"] != at.dice["client_seed"]
    assert (forked.dice["nonce"], forked.dice["rolls"], forked.dice["revealed"]) == (0, 0, {})
    assert forked.rollbacks == [] and forked.proposals == {}
    # The original is untouched.
    after = app.campaign(cid)
    assert (after.version, after.head_hash, after.view()) == (
        original.version,
        original.head_hash,
        original.view(),
    )
    assert app.reading.audit(fid).ok and app.reading.audit(cid).ok


def test_a_fork_rolls_on_its_own_verifiable_seed(app: Questlog) -> None:
    cid = qc_campaign(app)
    fid = fork(app, cid, 2, client_seed="my own")
    record = app.dice.roll(fid, notation="d20", purpose="x").value
    assert record["proof"]["client_seed"] == "my own"
    assert record["proof"]["nonce"] == 0
    app.dice.rotate_seed(fid)
    assert app.reading.audit(fid).rolls["verified"] == 1


def test_the_original_lists_its_forks_and_a_fork_its_origin(app: Questlog) -> None:
    cid = qc_campaign(app)
    unrelated = qc_campaign(app)
    first = fork(app, cid, 2, name="one")
    second = fork(app, cid, 3, name="two")
    fork(app, unrelated, 2)
    grandchild = fork(app, first, 1, name="three")

    forks = app.time_travel.forks(cid)

    assert [(f["id"], f["name"], f["at_version"]) for f in forks] == [
        (str(first), "one", 2),
        (str(second), "two", 3),
    ]
    assert [f["id"] for f in app.time_travel.forks(first)] == [str(grandchild)]
    assert app.time_travel.forks(grandchild) == []


def test_a_fork_at_the_head_is_allowed(app: Questlog) -> None:
    cid = cb_campaign(app)
    head = app.campaign(cid)
    fid = fork(app, cid, head.version)
    assert app.campaign(fid).state == head.state


@pytest.mark.parametrize("at_version", [0, -1, 4, 2**70])
def test_a_fork_beyond_the_head_or_below_1_is_invalid_and_stores_nothing(
    app: Questlog, at_version: int
) -> None:
    cid = qc_campaign(app)  # head 3
    mark = stored_mark(app)
    with pytest.raises(InvalidInput) as invalid:
        fork(app, cid, at_version)
    assert list(invalid.value.errors) == ["at_version"]
    assert stored_mark(app) == mark


def test_a_fork_of_an_unknown_campaign_is_not_found(app: Questlog) -> None:
    with pytest.raises(NotFound):
        fork(app, UUID(int=1), 1)


def test_a_fork_honours_the_expected_version_and_the_idempotency_key(app: Questlog) -> None:
    cid = qc_campaign(app)
    with pytest.raises(StaleVersion):
        fork(app, cid, 2, expected_version=2)
    key = Idempotency("POST /fork", "fork-1", "body")
    first = fork(app, cid, 2, expected_version=3, idempotency=key)
    mark = stored_mark(app)
    app.dice.roll(cid, notation="d20", purpose="moves the head on")
    again = fork(app, cid, 2, expected_version=3, idempotency=key)
    assert again == first
    assert stored_mark(app) == mark + 1


def test_a_fork_of_an_undone_version_starts_from_that_version(app: Questlog) -> None:
    cid = qc_campaign(app)
    command(app, cid, {"type": "gain_credits", "amount": 4})
    undone_view = app.campaign(cid).view()
    rollback(app, cid, 3)
    fid = fork(app, cid, 4)
    assert without_dice(app.campaign(fid).view()) == without_dice(undone_view)


def test_the_same_command_on_a_fork_and_on_the_rolled_back_campaign_gives_the_same_state(
    app: Questlog,
) -> None:
    cid = cb_campaign(app, {ROLLBACK_OVER_SERVER_ROLLS: "allow"})
    command(app, cid, {"type": "end_turn", "player": "A"})
    command(app, cid, {"type": "end_turn", "player": "B"})
    target = app.campaign(cid).version
    command(app, cid, {"type": "end_turn", "player": "C"})
    fid = fork(app, cid, target)
    rollback(app, cid, target)

    body = {"type": "roll_movement", "player": "C", "piece": "c1"}
    command(app, cid, body, faces=[3])
    command(app, fid, body, faces=[3])

    assert app.campaign(cid).state == app.campaign(fid).state
