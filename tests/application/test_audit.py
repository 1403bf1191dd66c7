"""The audit of a campaign's log: clean chains pass, and any edited stored byte is caught.

The tampering tests edit rows behind the application's back with plain SQL (``sqlite3`` on the
SQLite file, ``psycopg`` on the PostgreSQL schema), as anyone with a database shell could.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from domain.model import chain
from domain.model.campaign import Campaign
from domain.service.audit.stored import AuditReport
from domain.service.questlog import Questlog

NewCampaign = Callable[..., UUID]
SERVER_ROLLS = 5  # versions 2..6
MIDDLE = 4
LAST = SERVER_ROLLS + 1
FACE = re.compile(rb'"face":(\d+)')


def audit(app: Questlog, campaign_id: UUID) -> AuditReport:
    """Audit the campaign's stored events."""
    return app.reading.audit(campaign_id)


def rolled(app: Questlog, new_campaign: NewCampaign) -> UUID:
    """A campaign with SERVER_ROLLS server d20 rolls and a clean audit."""
    campaign_id = new_campaign()
    for n in range(SERVER_ROLLS):
        app.dice.roll(campaign_id, notation="d20", purpose=f"roll {n}")
    assert audit(app, campaign_id).chain_ok
    return campaign_id


def rehashed(app: Questlog, raw: Any, campaign_id: UUID, event: Any, **changes: Any) -> None:
    """Store ``event`` (the campaign's event at its version) with ``changes``, hashed again as a
    forger would: the chain stays intact, only what the audit checks inside an event can tell."""
    kind = type(event)
    fields = {**event.__dict__, **changes}
    fields["hash"] = chain.event_hash(
        campaign_id=campaign_id,
        version=event.originator_version,
        event_type=kind.TOPIC,
        timestamp=event.timestamp,
        data=chain.split_event_fields(fields),
        prev_hash=event.prev_hash,
        actor="system",
    )
    forged = app.mapper.to_stored_event(kind(**fields))
    raw.set_event_state(campaign_id, event.originator_version, forged.state)


def with_other_face(state: bytes) -> bytes:
    """The same JSON with the first die's face changed to another face of a d20."""
    match = FACE.search(state)
    assert match is not None, state
    face = int(match.group(1))
    # Keep the byte length (9 -> 8, not 10) so only the digit changes.
    other = face + 1 if face < 20 and len(str(face + 1)) == len(str(face)) else face - 1
    edited = state[: match.start(1)] + str(other).encode() + state[match.end(1) :]
    assert len(edited) == len(state) and edited != state
    return edited


# -- a clean log --------------------------------------------------------------------------------


def test_a_clean_campaign_audits_ok_with_every_roll_counted(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    app.dice.roll(campaign_id, notation="d20", purpose="")
    app.dice.roll(campaign_id, notation="2d6+d4", purpose="")
    app.dice.roll(campaign_id, notation="d10", purpose="", faces=[0])
    app.dice.roll(campaign_id, notation="d100", purpose="", faces=[{"tens": 0, "units": 0}])
    app.dice.roll(campaign_id, notation="4d20kh1", purpose="")

    before = audit(app, campaign_id)
    app.dice.rotate_seed(campaign_id)
    after = audit(app, campaign_id)
    app.dice.roll(campaign_id, notation="d8", purpose="")
    later = audit(app, campaign_id)

    campaign = app.campaign(campaign_id)
    for report in (before, after, later):
        assert report.chain_ok, report.problems
        assert report.first_bad_version is None
        assert report.ok
        assert report.problems == []
    expected_before = {
        "server": 3,
        "verified": 0,
        "awaiting_reveal": 3,
        "failed": 0,
        "reported": 2,
        "with_entropy": 0,
    }
    assert before.rolls == expected_before
    assert after.rolls == {**expected_before, "verified": 3, "awaiting_reveal": 0}
    assert later.rolls == {**expected_before, "server": 4, "verified": 3, "awaiting_reveal": 1}
    assert (later.head_version, later.head_hash) == (campaign.version, campaign.head_hash)
    as_json = later.as_dict()
    assert as_json["chain_ok"] is True
    assert as_json["first_bad_version"] is None
    assert as_json["rolls"] == later.rolls


def test_a_receipt_is_in_the_chain_and_a_made_up_one_is_not(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    app.dice.roll(campaign_id, notation="d20", purpose="")
    kept = app.campaign(campaign_id).head_hash
    app.dice.roll(campaign_id, notation="d20", purpose="")
    head = app.campaign(campaign_id).head_hash

    report = audit(app, campaign_id)

    assert report.as_dict(receipt=head)["receipt"]["in_chain"] is True
    assert report.as_dict(receipt=kept)["receipt"]["in_chain"] is True
    made_up = report.as_dict(receipt="ab" * 32)
    assert made_up["receipt"]["in_chain"] is False
    assert made_up["ok"] is False


# -- tampering ----------------------------------------------------------------------------------


def test_an_edited_face_in_a_middle_event_is_caught_at_that_version(
    app: Questlog, raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = rolled(app, new_campaign)
    [edited_roll] = app.campaign_events(campaign_id)[MIDDLE - 1].rolls
    app.dice.rotate_seed(campaign_id)

    raw.set_event_state(campaign_id, MIDDLE, with_other_face(raw.event_state(campaign_id, MIDDLE)))
    report = audit(app, campaign_id)

    assert report.chain_ok is False
    assert report.first_bad_version == MIDDLE
    assert report.as_dict()["first_bad_version"] == MIDDLE
    # The forged face no longer derives from the revealed seed either.
    assert report.rolls["failed"] == 1
    assert report.failed_rolls == [edited_roll["roll_id"]]


def test_white_space_added_to_a_stored_event_is_caught(
    app: Questlog, raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = rolled(app, new_campaign)
    state = raw.event_state(campaign_id, MIDDLE)
    spaced = state.replace(b'"purpose":', b'"purpose": ', 1)
    assert spaced != state

    raw.set_event_state(campaign_id, MIDDLE, spaced)
    report = audit(app, campaign_id)

    assert report.chain_ok is False
    assert report.first_bad_version == MIDDLE


def test_an_edit_to_the_last_event_is_caught(
    app: Questlog, raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = rolled(app, new_campaign)
    assert app.campaign(campaign_id).version == LAST

    raw.set_event_state(campaign_id, LAST, with_other_face(raw.event_state(campaign_id, LAST)))
    report = audit(app, campaign_id)

    assert report.chain_ok is False
    assert report.first_bad_version == LAST


def test_a_deleted_middle_event_is_caught_at_its_version(
    app: Questlog, raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = rolled(app, new_campaign)

    raw.delete_event(campaign_id, MIDDLE)
    report = audit(app, campaign_id)

    assert [s.originator_version for s in app.stored_events(campaign_id)] == [1, 2, 3, 5, 6]
    assert report.chain_ok is False
    assert report.first_bad_version == MIDDLE


def test_an_edited_creation_event_is_caught_at_version_one(
    app: Questlog, raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = rolled(app, new_campaign)
    state = raw.event_state(campaign_id, 1)
    forged = state.replace(b'"dice_mode":"either"', b'"dice_mode":"server"', 1)
    assert forged != state

    raw.set_event_state(campaign_id, 1, forged)
    report = audit(app, campaign_id)

    assert report.chain_ok is False
    assert report.first_bad_version == 1


def test_a_rehashed_forgery_of_the_last_event_breaks_the_clients_receipt(
    app: Questlog, raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = rolled(app, new_campaign)
    receipt = app.campaign(campaign_id).head_hash
    last = app.campaign_events(campaign_id)[-1]
    assert isinstance(last, Campaign.DiceRolled)
    rolls = [dict(r, total=r["total"] + 1) for r in last.rolls]
    rehashed(app, raw, campaign_id, last, rolls=rolls)
    report = audit(app, campaign_id)

    # A forger who re-hashes the head leaves a consistent chain; only the receipt exposes it.
    assert report.chain_ok is True
    assert report.as_dict(receipt=receipt)["receipt"]["in_chain"] is False
    assert report.as_dict(receipt=receipt)["ok"] is False


def test_an_edited_or_deleted_actor_row_breaks_the_chain(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = rolled(app, new_campaign)
    tables = app.side_tables
    mark = "%s" if tables.placeholder == "%s" else "?"
    actors = tables._table("questlog_actors")
    with tables.datastore.transaction(commit=True) as cursor:
        cursor.execute(
            f"UPDATE {actors} SET actor = {mark} WHERE campaign_id = {mark} AND version = 3",
            ("mallory#0", str(campaign_id)),
        )
        cursor.execute(
            f"DELETE FROM {actors} WHERE campaign_id = {mark} AND version = 5",
            (str(campaign_id),),
        )
    report = app.reading.audit(campaign_id)
    assert report.chain_ok is False
    assert report.first_bad_version == 3
    assert {p["version"] for p in report.problems} >= {3, 5}


def test_an_append_during_an_audit_is_left_for_the_next_one(
    app: Questlog, new_campaign: NewCampaign, monkeypatch: Any
) -> None:
    """The audit reads the actors and the events up to the head it read before them: a roll
    stored between its two reads is left for the next audit, not audited without its actor,
    which its hash covers, as a broken chain."""
    campaign_id = rolled(app, new_campaign)
    appended: list[str] = []

    def then_a_roll(name: str, read: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            found = read(*args, **kwargs)
            if not appended:
                appended.append(name)
                app.dice.roll(campaign_id, notation="d20", purpose="during the audit")
            return found

        return wrapped

    monkeypatch.setattr(app, "stored_events", then_a_roll("events", app.stored_events))
    tables = app.side_tables
    monkeypatch.setattr(tables, "actors", then_a_roll("actors", tables.actors))
    report = audit(app, campaign_id)
    assert len(appended) == 1  # after the first of the two reads, whichever it is
    assert report.ok, report.problems
    assert report.head_version == LAST
    assert audit(app, campaign_id).head_version == LAST + 1


NOT_ROLLS = [b"[1,2]", b"5", b'"2-1"', b'{"roll_id":"2-1"}', b'[{"roll_id":"2-1"},null]']
"""What a tampered event may hold where its list of roll objects was."""


@pytest.mark.parametrize("rolls", NOT_ROLLS)
def test_rolls_that_are_not_roll_objects_are_a_problem_at_their_version(
    app: Questlog, raw: Any, new_campaign: NewCampaign, rolls: bytes
) -> None:
    """Found in review: the audit failed (500) on such an event instead of reporting it."""
    campaign_id = rolled(app, new_campaign)
    state = raw.event_state(campaign_id, MIDDLE)
    start = state.index(b'"rolls":') + len(b'"rolls":')
    end = state.index(b',"next_nonce":', start)
    raw.set_event_state(campaign_id, MIDDLE, state[:start] + rolls + state[end:])

    report = audit(app, campaign_id)

    assert report.first_bad_version == MIDDLE
    assert not_a_list_of_rolls(MIDDLE) in report.problems
    assert report.as_dict()["ok"] is False


@pytest.mark.parametrize("rolls", [[1, 2], 5, "2-1", {"roll_id": "2-1"}])
def test_rolls_that_are_not_roll_objects_are_a_problem_even_in_a_rehashed_event(
    app: Questlog, raw: Any, new_campaign: NewCampaign, rolls: object
) -> None:
    """The head forged and hashed again (its chain intact, read on the fast path): still a
    problem at its version, and the other rolls are counted as before."""
    campaign_id = rolled(app, new_campaign)
    last = app.campaign_events(campaign_id)[LAST - 1]
    assert isinstance(last, Campaign.DiceRolled)
    rehashed(app, raw, campaign_id, last, rolls=rolls)

    report = audit(app, campaign_id)

    assert report.problems == [not_a_list_of_rolls(LAST)]
    assert report.first_bad_version == LAST
    assert report.rolls["server"] == report.rolls["awaiting_reveal"] == SERVER_ROLLS - 1
    assert report.rolls["failed"] == 0


def not_a_list_of_rolls(version: int) -> dict[str, Any]:
    return {"version": version, "problem": "the event's rolls are not a list of roll objects"}


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("undone_rolls", 5, "the rollback's undone_rolls are not a list of roll ids"),
        ("undone_rolls", [["2-1"]], "the rollback's undone_rolls are not a list of roll ids"),
        ("proposal_id", ["p"], "the rollback's proposal_id is not a text"),
        ("proposal_id", {"id": "p"}, "the rollback's proposal_id is not a text"),
    ],
)
def test_a_rehashed_rollback_with_fields_of_the_wrong_kind_is_a_problem_not_a_crash(
    app: Questlog, raw: Any, new_campaign: NewCampaign, field: str, value: object, problem: str
) -> None:
    """Found in review: a rollback whose undone rolls or proposal are not what a rollback
    records failed the audit (500) instead of being reported at its version."""
    campaign_id = rolled(app, new_campaign)
    app.time_travel.rollback(campaign_id, to_version=MIDDLE, reason="misread")
    head = LAST + 1
    last = app.campaign_events(campaign_id)[head - 1]
    assert isinstance(last, Campaign.RolledBack)
    rehashed(app, raw, campaign_id, last, **{field: value})

    report = audit(app, campaign_id)

    assert report.problems == [{"version": head, "problem": problem}]
    assert report.first_bad_version == head
    assert [r["version"] for r in report.rollbacks] == [head]
