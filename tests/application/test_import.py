"""Moving a campaign between hosts: a bundle from instance A imported into instance B.

Each test runs on SQLite and on PostgreSQL: A is the test's store, B another of the same kind.
The bundle goes through JSON text with sorted keys, as a download would carry it.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.facade import bundles
from domain.model import chain
from domain.model.access import acting_as
from domain.model.dice.draw import derive_faces
from domain.model.errors import ConcurrencyConflict, InvalidInput, RuleViolation
from domain.model.signed_note import parse_verifier_key
from domain.service.command_results import CommandResult
from domain.service.importing import CAMPAIGN_EXISTS
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.application.moving import exported, played
from tests.conftest import RawStore, StoreFactory


@pytest.fixture
def other_store(stores: StoreFactory) -> StoreConfig:
    """Instance B's store."""
    return stores.new()


@pytest.fixture
def make_other(other_store: StoreConfig) -> Iterator[Callable[[], Questlog]]:
    """Opens applications on instance B's store (another process of B, say)."""
    opened: list[Questlog] = []

    def make() -> Questlog:
        opened.append(Questlog(other_store))
        return opened[-1]

    yield make
    for app in reversed(opened):
        app.close()


@pytest.fixture
def other(make_other: Callable[[], Questlog]) -> Questlog:
    """Instance B: a second application on a store of its own."""
    return make_other()


def table_bytes(app: Questlog) -> dict[str, bytes]:
    """Every table of a store, as bytes: what a refused import must leave as it was."""
    raw = RawStore(app)
    return {table: raw.table_bytes(table) for table in raw.tables()}


def test_a_campaign_moves_to_another_instance_with_every_event_unchanged(
    app: Questlog, other: Questlog
) -> None:
    """Events, versions, timestamps, hashes, actors, proofs and revealed seeds arrive as they
    were, one CampaignImported event follows, and the audit and re-export verify."""
    cid = played(app)
    source = exported(app, cid)

    result = other.bundles.load(source)

    head = source["head"]["version"]
    assert (result.campaign_id, result.first_version, result.version) == (cid, 1, head + 1)
    assert result.value["awaiting_reveal"] == 2  # the source's last rolls, never revealed
    moved = other.bundles.build(cid)["events"]
    assert json.dumps(moved[:head], sort_keys=True) == json.dumps(source["events"], sort_keys=True)
    imported = moved[head]
    assert imported["type"] == "questlog.CampaignImported"
    assert imported["prev_hash"] == source["head"]["hash"]
    assert imported["data"]["bundle_head"] == source["head"]
    assert imported["data"]["unrevealed_commitment"] == app.campaign(cid).dice["commitment"]
    assert imported["data"]["commitment"] == other.campaign(cid).dice["commitment"]
    assert other.campaign(cid).dice["nonce"] == 0
    assert other.campaign(cid).state == app.campaign(cid).state
    report = other.reading.audit(cid)
    assert report.ok, report.problems
    assert report.rolls["verified"] == 1 and report.rolls["reported"] == 1
    assert bundles.check(exported(other, cid)).ok


def test_stored_rows_are_the_encoding_the_code_writes(app: Questlog, other: Questlog) -> None:
    """Each rebuilt row decodes to the source's stored fields, and re-encodes to its own bytes
    (what ``questlog verify`` checks of every stored byte)."""
    cid = played(app)
    other.bundles.load(exported(app, cid))

    for mine, theirs in zip(app.stored_events(cid), other.stored_events(cid), strict=False):
        assert theirs.topic == mine.topic
        assert other.mapper.transcoder.decode(theirs.state) == app.mapper.transcoder.decode(
            mine.state
        )
        assert list(json.loads(theirs.state)) == list(json.loads(mine.state))


def test_the_imported_campaign_plays_on_under_a_fresh_commitment(
    app: Questlog, other: Questlog
) -> None:
    """A server roll after the import draws nonce 0 of the new seed held here; a rotation
    reveals that seed and the audit verifies the roll; the source's last rolls stay awaiting
    reveal."""
    cid = played(app)
    other.bundles.load(exported(app, cid))
    commitment = other.campaign(cid).dice["commitment"]

    roll = other.dice.roll(cid, notation="d20", purpose="on the new host").value
    other.dice.rotate_seed(cid)

    assert roll["proof"]["commitment"] == commitment and roll["proof"]["nonce"] == 0
    report = other.reading.audit(cid)
    assert report.ok, report.problems
    assert report.rolls["verified"] == 2
    assert report.rolls["awaiting_reveal"] == 2  # under the source's unrevealed commitment
    assert other.reading.find_roll(cid, roll["roll_id"])["verified"] is True


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param("face", id="an edited face"),
        pytest.param("hash", id="an edited hash"),
        pytest.param("drop", id="a dropped event"),
    ],
)
def test_a_bundle_with_one_edit_is_refused_naming_the_first_bad_version(
    app: Questlog, other: Questlog, edit: str
) -> None:
    """One edited byte is refused with the version it broke and its problem; no table of the
    importing store changes."""
    cid = played(app)
    source = exported(app, cid)
    rolled = next(e for e in source["events"] if e["data"].get("rolls") and e["version"] > 2)
    version = rolled["version"]
    if edit == "face":
        die = rolled["data"]["rolls"][0]["dice"][0]
        die["face"] = die["face"] % die["sides"] + 1
        problem = "the event's hash does not match its contents"
    elif edit == "hash":
        rolled["hash"] = rolled["hash"][:-1] + ("0" if rolled["hash"][-1] != "0" else "1")
        problem = "the event's hash does not match its contents"
    else:
        source["events"].remove(rolled)
        problem = f"version {version} is missing"
    before = table_bytes(other)

    with pytest.raises(InvalidInput) as refused:
        other.bundles.load(source)

    first = refused.value.errors["bundle"][0]
    assert first == f"version {version}: {problem}"
    assert f"({first})" in refused.value.message
    assert table_bytes(other) == before


def test_a_campaign_already_here_is_refused_naming_the_first_differing_version(
    app: Questlog, other: Questlog
) -> None:
    """The same bundle twice, or a bundle the source moved on from after its import here: 409,
    and nothing stored."""
    cid = played(app)
    first = exported(app, cid)
    other.bundles.load(first)
    app.dice.roll(cid, notation="d4", purpose="the source plays on")
    later = exported(app, cid)
    before = table_bytes(other)

    with pytest.raises(RuleViolation) as again:
        other.bundles.load(first)
    with pytest.raises(RuleViolation) as moved_on:
        other.bundles.load(later)

    head = first["head"]["version"]
    assert again.value.rule_id == moved_on.value.rule_id == CAMPAIGN_EXISTS
    assert f"at version {head + 1}, the bundle ends at version {head}" in again.value.reason
    assert f"differs from the bundle at version {head + 1}" in moved_on.value.reason
    assert table_bytes(other) == before


def test_a_bundle_that_extends_the_campaign_here_appends_its_new_events(
    app: Questlog, other: Questlog
) -> None:
    """The campaign moves A -> B, plays on at B, and moves back to A, which still holds it:
    A appends B's new events and its own import event, and its next command (from the cached
    campaign) goes on from the imported state."""
    cid = played(app)
    held = app.campaign(cid).version
    other.bundles.load(exported(app, cid))
    other.dice.roll(cid, notation="d6", purpose="at B")
    back = exported(other, cid)

    result = app.bundles.load(back)

    assert result.value["extended"] is True
    assert result.first_version == held + 1
    assert result.value["imported_events"] == back["head"]["version"] - held
    cached = app.cached_aggregate(cid)
    assert cached is not None and cached.version == result.version
    roll = app.dice.roll(cid, notation="d6", purpose="back at A").value
    assert roll["version"] == back["head"]["version"] + 2
    assert roll["proof"]["nonce"] == 0
    assert roll["proof"]["commitment"] == result.value["commitment"]
    assert app.reading.audit(cid).ok
    assert [e["hash"] for e in app.bundles.build(cid)["events"][: len(back["events"])]] == [
        e["hash"] for e in back["events"]
    ]


def test_an_import_writes_nothing_when_the_store_fails_midway(
    app: Questlog, other: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure while the side rows are written (after the events' insert, in its transaction)
    leaves every table as it was: one transaction."""
    cid = played(app)
    source = exported(app, cid)
    before = table_bytes(other)
    tables = other.side_tables

    def fail(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the server died here")

    monkeypatch.setattr(tables, "insert_side_rows", fail)
    with pytest.raises(RuntimeError):
        other.bundles.load(source)
    monkeypatch.undo()

    assert table_bytes(other) == before
    assert other.bundles.load(source).version == source["head"]["version"] + 1


def test_an_import_by_a_token_makes_it_the_owner_of_a_private_campaign(
    app: Questlog, other: Questlog
) -> None:
    """The importing token owns the campaign here (tokens of the source mean nothing here), the
    campaign is private unless asked, and the import event names the importer as its actor."""
    cid = played(app)
    importer, _ = other.access.create_token("importer", admin=True)

    with acting_as(importer):
        other.bundles.load(exported(app, cid))

    member = other.side_tables.membership(str(cid), importer.id)
    assert member is not None and member.role == "owner"
    assert not other.side_tables.is_public(str(cid))
    records = other.reading.event_records(cid)
    assert records[-1]["actor"] == f"importer#{importer.id}"
    assert records[1]["actor"] == "gm#t1"


def test_a_campaign_of_a_game_this_service_does_not_play_is_refused(
    app: Questlog, other: Questlog
) -> None:
    cid = played(app)
    source = exported(app, cid)
    source["events"][0]["data"]["game"] = "chess"

    with pytest.raises(InvalidInput) as refused:
        other.imports.load(source)

    assert refused.value.errors["bundle"][0].startswith("version 1: 'chess' is not a game")


def test_an_unknown_event_type_is_refused_without_resolving_it(
    app: Questlog, other: Questlog
) -> None:
    """A topic that names no campaign event is never looked up as a module path, even by an
    import that skipped the bundle check."""
    cid = played(app)
    source = exported(app, cid)
    source["events"][1]["type"] = "os:system"

    with pytest.raises(InvalidInput) as refused:
        other.imports.load(source)

    assert refused.value.errors["bundle"] == [
        "version 2: 'os:system' is not an event type of a quest-calendar campaign"
    ]


def test_a_campaign_from_a_store_of_an_earlier_release_moves_unchanged(
    app: Questlog, tmp_path: Path
) -> None:
    """Events stored before events named their command (and any payload version since) are
    rebuilt as they were stored: the importing store audits them clean."""
    fixture = sorted((Path(__file__).parents[1] / "fixtures").glob("release-*.sqlite3"))[0]
    shutil.copy(fixture, tmp_path / "old.db")
    old = Questlog(StoreConfig(sqlite_path=tmp_path / "old.db"))
    try:
        campaigns = [created.originator_id for _, created in old.reading.list_campaigns()[0]]
        assert campaigns
        for cid in campaigns:
            source = exported(old, cid)
            assert app.bundles.load(source).value["imported_events"] == len(source["events"])
            assert app.reading.event_records(cid)[
                : len(source["events"])
            ] == old.reading.event_records(cid)
            assert app.reading.audit(cid).ok, app.reading.audit(cid).problems
    finally:
        old.close()


def test_a_long_campaign_is_snapshotted_as_it_is_imported(app: Questlog, other: Questlog) -> None:
    """An import of more than 100 events stores the snapshot a campaign played here would have,
    and the campaign loads from it to the same state."""
    cid = app.campaigns.create_campaign(game="quest-calendar", name="Long").campaign_id
    for face in range(120):
        app.dice.roll(cid, notation="d20", purpose="filler", faces=[face % 20 + 1])

    other.bundles.load(exported(app, cid))

    assert RawStore(other).snapshot_versions(cid) == [100]
    fresh = Questlog(other.config)
    try:
        assert fresh.campaign(cid).view() == other.campaign(cid).view()
        assert fresh.campaign(cid).version == 122
    finally:
        fresh.close()


def test_two_imports_of_one_bundle_at_once_store_it_once(
    app: Questlog, other: Questlog, make_other: Callable[[], Questlog]
) -> None:
    """Two processes importing the same bundle together: one stores it, the other is refused
    (the campaign is there, or its versions were taken), and the log holds one import."""
    cid = played(app)
    source = exported(app, cid)
    second = make_other()
    outcomes: list[object] = []

    def run(target: Questlog) -> None:
        try:
            outcomes.append(target.bundles.load(source))
        except (RuleViolation, ConcurrencyConflict) as refused:
            outcomes.append(refused)

    threads = [threading.Thread(target=run, args=(target,)) for target in (other, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    stored = [o for o in outcomes if isinstance(o, CommandResult)]
    assert len(stored) == 1 and len(outcomes) == 2
    assert other.campaign(cid).version == second.campaign(cid).version == stored[0].version
    assert other.reading.audit(cid).ok


def rechained(source: dict[str, Any]) -> dict[str, Any]:
    """The bundle with every hash and link computed again, as a forger would (who drops the
    signed checkpoints the rewrite would break)."""
    source.pop("checkpoints", None)
    previous = chain.GENESIS_HASH
    for event in source["events"]:
        event["prev_hash"] = previous
        body = {"campaign_id": source["campaign_id"], **{k: event[k] for k in BODY}}
        if event.get("actor") is not None:
            body["actor"] = event["actor"]
        event["hash"] = previous = chain.hash_body(body)
    source["head"] = {"version": source["events"][-1]["version"], "hash": previous}
    return source


BODY = ("version", "type", "timestamp", "data", "prev_hash")


def test_a_campaign_that_comes_back_reveals_the_seed_it_left_with(
    app: Questlog, other: Questlog
) -> None:
    """A -> B -> A: A held the seed of its last commitment, which B could not reveal; A's import
    event reveals it, so every roll A made can be checked, and only B's stay awaiting."""
    cid = played(app)
    left_with = app.campaign(cid).dice["commitment"]
    other.bundles.load(exported(app, cid))
    other.dice.roll(cid, notation="d6", purpose="at B")

    result = app.bundles.load(exported(other, cid))

    assert result.value["revealed_commitments"] == [left_with]
    imported = app.campaign_events(cid, after=result.version - 1)[0]
    assert imported.revealed_seeds == {left_with: app.side_tables.seed_for(left_with)}
    report = app.reading.audit(cid)
    assert report.ok, report.problems
    assert report.rolls["awaiting_reveal"] == 1  # the roll made at B
    assert report.rolls["verified"] == report.rolls["server"] - 1
    offline = bundles.check(exported(app, cid))
    assert offline.ok and offline.report.rolls["verified"] == report.rolls["verified"]


def test_a_roll_forged_under_a_commitment_held_here_is_refused(
    app: Questlog, other: Questlog
) -> None:
    """A bundle that 'extends' a campaign with a roll under this instance's own commitment,
    whose faces its seed does not give, is refused naming that version; nothing is stored."""
    cid = app.campaigns.create_campaign(game="quest-calendar", name="Held here").campaign_id
    for n in range(2):
        app.dice.roll(cid, notation="d20", purpose=f"real {n}")
    forged = exported(app, cid)
    last = json.loads(json.dumps(forged["events"][-1]))
    version = last["version"] + 1
    record = last["data"]["rolls"][0]
    commitment = record["proof"]["commitment"]
    true_face = derive_faces(
        app.side_tables.seed_for(commitment) or "", record["proof"]["client_seed"], 2, [20]
    )[0]
    face = true_face % 20 + 1
    record.update(roll_id=f"{version}-1", version=version, total=face)
    record["dice"][0]["face"] = face
    record["proof"]["nonce"] = 2
    last["data"].update(command_id=version, command_versions=[version, version], next_nonce=3)
    last["version"] = version
    forged["events"].append(last)
    before = table_bytes(app)

    with pytest.raises(InvalidInput) as refused:
        app.bundles.load(rechained(forged))

    assert refused.value.errors["bundle"][0].startswith(f"version {version}: roll {version}-1")
    assert "it was not drawn here" in refused.value.errors["bundle"][0]
    assert table_bytes(app) == before


def test_an_import_never_reveals_the_seed_of_another_campaign(
    app: Questlog, other: Questlog
) -> None:
    """A bundle that names another campaign's secret commitment does not make this instance
    reveal it."""
    secret = app.campaigns.create_campaign(game="quest-calendar", name="Someone else's").campaign_id
    commitment = app.campaign(secret).dice["commitment"]
    cid = other.campaigns.create_campaign(game="quest-calendar", name="Crafted").campaign_id
    other.dice.roll(cid, notation="d20", purpose="claims another commitment")
    crafted = exported(other, cid)
    crafted["events"][-1]["data"]["rolls"][0]["proof"]["commitment"] = commitment

    result = app.bundles.load(rechained(crafted))

    assert result.value["revealed_commitments"] == []
    imported = app.campaign_events(cid, after=result.version - 1)[0]
    assert imported.revealed_seeds == {}
    assert commitment not in app.campaign(cid).dice["revealed"]


def test_the_import_event_records_the_sources_checkpoint_and_keys(
    app: Questlog, other: Questlog
) -> None:
    """The bundle's last checkpoint (verified first) and the source's log name and verifier keys
    are kept in the import event; with the source's key given, the checkpoints must be its."""
    cid = played(app)
    source = exported(app, cid)
    source_key = parse_verifier_key(source["keys"][-1]["key"])
    stranger = other.key_ring.verifier_keys()[-1]
    before = table_bytes(other)

    with pytest.raises(InvalidInput) as refused:
        other.bundles.load(source, keys=[stranger])
    assert "checkpoint (unknown key)" in refused.value.errors["bundle"][0]
    assert table_bytes(other) == before

    result = other.bundles.load(source, keys=[source_key])
    imported = other.campaign_events(cid, after=result.version - 1)[0]
    assert imported.checkpoint == source["checkpoints"][-1]
    assert imported.source == {
        "log_name": source["log_name"],
        "verifier_keys": [k["key"] for k in source["keys"]],
        "checkpoint_keys": "given",
    }


def _first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    """The first event of a type (``type:reported``: the first whose roll was rolled by hand,
    which no verifier re-derives, so only the import's own checks see the edit)."""
    kind, _, source = kind.partition(":")
    return next(
        e
        for e in events
        if e["type"] == kind and (not source or e["data"]["rolls"][0]["source"] == source)
    )


CRAFTED = {
    "a rollback to a version that is no number": (
        "questlog.RolledBack",
        lambda d: d.update(to_version="x"),
        "to_version must be integer",
    ),
    "a rollback to a later version": (
        "questlog.RolledBack",
        lambda d: d.update(to_version=99),
        "not an earlier version",
    ),
    "a rollback to version 0": (
        "questlog.RolledBack",
        lambda d: d.update(to_version=0),
        "not an earlier version",
    ),
    "an unknown house rule": (
        "questlog.CampaignCreated",
        lambda d: d["house_rules"].update(dice_mode="bogus"),
        "house rule dice_mode = 'bogus'",
    ),
    "a name of 200,000 characters": (
        "questlog.CampaignCreated",
        lambda d: d.update(name="x" * 200_000),
        "name:",
    ),
    "an empty client seed": (
        "questlog.CampaignCreated",
        lambda d: d.update(client_seed=""),
        "client_seed:",
    ),
    "a die whose face is text": (
        "questlog.DiceRolled:reported",
        lambda d: d["rolls"][0]["dice"][0].update(face="6"),
        "each die must have sides and a face",
    ),
    "a game event's details of the wrong type": (
        "qc.HeroSelected",
        lambda d: d["details"].update(level="one"),
        "its details do not match their declaration",
    ),
}


@pytest.mark.parametrize("crafted", sorted(CRAFTED))
def test_an_event_this_code_could_not_have_stored_is_refused(
    app: Questlog, other: Questlog, crafted: str
) -> None:
    """A bundle whose chain is whole (recomputed by a forger) but whose event holds what no
    command of this service stores is refused naming its version, before anything is stored:
    such an event would break every later read of the campaign."""
    kind, change, message = CRAFTED[crafted]
    cid = played(app)
    source = exported(app, cid)
    event = _first(source["events"], kind)
    change(event["data"])
    before = table_bytes(other)

    with pytest.raises(InvalidInput) as refused:
        other.bundles.load(rechained(source))

    first = refused.value.errors["bundle"][0]
    assert first.startswith(f"version {event['version']}: "), first
    assert message in first
    assert table_bytes(other) == before
