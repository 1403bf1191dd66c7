"""Playing a dishonest host: remove an event from a stopped store and re-chain the rest.

The host holds the database, so nothing stops them from deleting a roll they dislike, moving every
later event down one version and recomputing each hash with the public chain algorithm
(``domain.model.chain``, docs/events.md). The chain then checks clean; what gives the rewrite
away is the nonce the deleted roll used, and any checkpoint a player kept (docs/trust.md).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.model import chain
from domain.service.audit.read import encoded, stored_fields
from domain.service.questlog import Questlog
from tests.conftest import RawStore


def _moved(value: Any, deleted: int) -> Any:
    """A version number as it reads once the event at ``deleted`` is gone."""
    return value - 1 if isinstance(value, int) and value > deleted else value


def _renumber(fields: dict[str, Any], deleted: int) -> None:
    """Move every version the event's fields name, as a careful host would."""
    if "command_id" in fields:
        fields["command_id"] = _moved(fields["command_id"], deleted)
    if isinstance(fields.get("command_versions"), list):
        fields["command_versions"] = [_moved(v, deleted) for v in fields["command_versions"]]
    for record in fields.get("rolls") or []:
        if "version" in record:
            record["version"] = _moved(record["version"], deleted)
            _, _, n = str(record["roll_id"]).partition("-")
            record["roll_id"] = f"{record['version']}-{n}"


def delete_and_rechain(app: Questlog, campaign_id: UUID, version: int) -> None:
    """Delete the event at ``version`` and rewrite every later one so that the chain is whole.

    The application must be stopped (closed) first: the host works on the database alone. Its
    snapshots of the campaign are deleted too, so that the next start reads the rewritten log.
    """
    raw = RawStore(app)
    key = raw._id(campaign_id)
    rows = raw._run(
        f"SELECT originator_version, topic, state FROM {raw.events_table} "
        "WHERE originator_id = ? AND originator_version >= ? ORDER BY originator_version",
        (key, version),
    )
    actors = {
        int(v): str(a)
        for v, a in raw._run(
            "SELECT version, actor FROM questlog_actors WHERE campaign_id = ?", (str(campaign_id),)
        )
    }
    previous = raw._run(
        f"SELECT state FROM {raw.events_table} WHERE originator_id = ? AND originator_version = ?",
        (key, version - 1),
    )
    prev_hash = str(_decode(app, campaign_id, version - 1, "", bytes(previous[0][0]))["hash"])
    raw.delete_event(campaign_id, version)
    raw._run(
        "DELETE FROM questlog_actors WHERE campaign_id = ? AND version = ?",
        (str(campaign_id), version),
    )
    for old_version, topic, state in rows[1:]:
        new_version = int(old_version) - 1
        fields = _decode(app, campaign_id, int(old_version), str(topic), bytes(state))
        _renumber(fields, version)
        fields["prev_hash"] = prev_hash
        actor = actors.get(int(old_version))
        fields["hash"] = chain.event_hash(
            campaign_id=campaign_id,
            version=new_version,
            event_type=str(topic),
            timestamp=fields["timestamp"],
            data=chain.split_event_fields(fields),
            prev_hash=prev_hash,
            actor=actor,
        )
        prev_hash = fields["hash"]
        raw._run(
            f"UPDATE {raw.events_table} SET originator_version = ?, state = ? "
            "WHERE originator_id = ? AND originator_version = ?",
            (new_version, encoded(app.mapper, fields), key, int(old_version)),
        )
        if actor is not None:
            raw._run(
                "UPDATE questlog_actors SET version = ? WHERE campaign_id = ? AND version = ?",
                (new_version, str(campaign_id), int(old_version)),
            )
    raw._run(f"DELETE FROM {raw.snapshots_table} WHERE originator_id = ?", (key,))


def _decode(app: Questlog, campaign_id: UUID, version: int, topic: str, state: bytes) -> Any:
    item = StoredEvent(
        originator_id=campaign_id, originator_version=version, topic=topic, state=state
    )
    return stored_fields(app.mapper, item)
