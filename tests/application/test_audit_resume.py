"""Re-auditing from a point the verifier holds (``Questlog.reading.audit(after=...)``): only what
the new events need is read, every check still holds for them, and a point the chain does not
have fails. Runs on SQLite and PostgreSQL (the ``app`` fixture)."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

import pytest

import domain.service.audit.stored as audit_module
from domain.service.audit.resume import ResumePoint
from domain.service.questlog import Questlog
from tests.application.test_audit import with_other_face
from tests.conftest import RawStore
from tests.host_rewrite import delete_and_rechain

NewCampaign = Callable[..., UUID]


def rolls(app: Questlog, campaign_id: UUID, count: int) -> None:
    for n in range(count):
        app.dice.roll(campaign_id, notation="d20", purpose=f"roll {n}")


def point(app: Questlog, campaign_id: UUID) -> ResumePoint:
    """What a verifier keeps after a full audit: the head it verified."""
    report = app.reading.audit(campaign_id)
    assert report.ok, report.problems
    return ResumePoint(report.head_version, report.head_hash)


def test_a_resumed_audit_reads_the_new_events_and_checks_them_all(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    rolls(app, campaign_id, 30)
    held = point(app, campaign_id)
    rolls(app, campaign_id, 10)

    report = app.reading.audit(campaign_id, after=held)

    assert report.ok, report.problems
    # The window starts at the last roll before the point: its nonce is where the new continue.
    assert report.resumed == {"after": 31, "after_hash": held.head_hash, "read_from": 31}
    assert report.rolls["server"] == 11
    assert report.head_version == 41
    assert report.head_hash == app.reading.audit(campaign_id).head_hash


def test_a_point_the_chain_does_not_have_fails_the_audit(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    rolls(app, campaign_id, 5)
    held = point(app, campaign_id)
    rolls(app, campaign_id, 3)

    report = app.reading.audit(campaign_id, after=ResumePoint(held.version, "0" * 64))

    assert not report.ok
    assert any("not the one the verifier holds" in p["problem"] for p in report.problems)


def test_an_edit_after_the_point_is_caught_and_one_before_it_needs_the_full_audit(
    app: Questlog, new_campaign: NewCampaign, raw: RawStore
) -> None:
    campaign_id = new_campaign()
    rolls(app, campaign_id, 20)
    held = point(app, campaign_id)
    rolls(app, campaign_id, 5)

    original = raw.event_state(campaign_id, 24)
    raw.set_event_state(campaign_id, 24, with_other_face(original))
    after_edit = app.reading.audit(campaign_id, after=held)
    assert not after_edit.ok
    assert after_edit.first_bad_version == 24

    raw.set_event_state(campaign_id, 24, original)
    raw.set_event_state(campaign_id, 5, with_other_face(raw.event_state(campaign_id, 5)))
    # Version 5 was verified before the point, and the resumed audit does not read it again;
    # the full audit, the default, does.
    assert app.reading.audit(campaign_id, after=held).ok
    assert app.reading.audit(campaign_id).first_bad_version == 5


def test_a_seed_revealed_after_the_point_re_derives_the_rolls_before_it(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    rolls(app, campaign_id, 6)
    held = point(app, campaign_id)
    app.dice.rotate_seed(campaign_id)
    rolls(app, campaign_id, 2)

    report = app.reading.audit(campaign_id, after=held)

    assert report.ok, report.problems
    assert report.resumed is not None and report.resumed["read_from"] == 1
    assert report.rolls["verified"] == 6
    assert report.rolls["awaiting_reveal"] == 2


def test_a_rollback_after_the_point_makes_it_a_full_audit(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    rolls(app, campaign_id, 4)
    held = point(app, campaign_id)
    rolls(app, campaign_id, 2)
    app.time_travel.rollback(campaign_id, to_version=3, reason="a misread die")

    report = app.reading.audit(campaign_id, after=held)

    assert report.ok, report.problems
    assert report.resumed is not None and report.resumed["read_from"] == 1
    assert len(report.rollbacks) == 1


def test_an_old_hole_cannot_pull_a_host_controlled_event_into_the_nonce_seed(
    app: Questlog, make_app: Callable[[], Questlog], new_campaign: NewCampaign, raw: RawStore
) -> None:
    """Found in review: reading back "the next 100 events" past a deleted old event reached past
    the point, so a roll the host controls set the nonce the window continued from."""
    cid = new_campaign()
    rolls(app, cid, 10)  # versions 2..11, nonces 0..9
    app.dice.set_client_seed(cid, "a new client seed")  # version 12: no roll
    held = point(app, cid)
    rolls(app, cid, 4)  # versions 13..16, nonces 10..13
    app.close()
    delete_and_rechain(app, cid, 13)  # the host hides nonce 10 and re-chains the rest
    app = make_app()
    app.take_snapshot(cid)
    raw.delete_event(cid, 5)  # and drops an old event, before the point

    assert app.reading.audit(cid).nonce_gaps
    resumed = app.reading.audit(cid, after=held)
    assert not resumed.ok
    assert resumed.resumed is not None and resumed.resumed["read_from"] == 1


def test_a_roll_at_the_point_and_none_after_it_continues_its_nonces(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    cid = new_campaign()
    rolls(app, cid, 3)
    held = point(app, cid)
    app.dice.set_client_seed(cid, "another client seed")

    resumed = app.reading.audit(cid, after=held)

    assert resumed.ok, resumed.problems
    assert resumed.resumed is not None and resumed.resumed["read_from"] == held.version


def test_a_stored_timestamp_with_a_key_the_hash_does_not_cover_fails_on_both_paths(
    app: Questlog, new_campaign: NewCampaign, raw: RawStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in review: the fast path hashed the timestamp's text only, so another key beside it
    was stored without being covered; the exact path crashed on it instead of reporting it."""
    cid = new_campaign()
    app.dice.roll(cid, notation="d20", purpose="a roll")
    state = raw.event_state(cid, 2)
    raw.set_event_state(cid, 2, state.replace(b'"},', b'","note":"unhashed"},', 1))

    assert app.reading.audit(cid).first_bad_version == 2
    monkeypatch.setattr(audit_module, "fast_read", lambda item, actor, campaign_id=None: None)
    assert app.reading.audit(cid).first_bad_version == 2
