"""Reading the log: the campaigns, their events and rolls as shown, the audit, signed checkpoints.

``Reading`` is a use case on the core (``domain.service.commands_service``): the queries the
routes and the other use cases ask, on the store's repository and log.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain.model.campaign import Campaign
from domain.model.errors import InvalidInput, NotFound, NotHeld
from domain.model.event_records import event_record
from domain.model.event_summaries import roll_summary
from domain.model.events.summaries import decoded
from domain.model.signed_note import VerifierKey
from domain.model.text import ascii_number
from domain.service.audit.checkpoints import CheckpointVerdict, check_checkpoint
from domain.service.audit.read import collection_paused, stored_fields
from domain.service.audit.resume import ResumePoint, resumed_audit
from domain.service.audit.rolls import with_verdict
from domain.service.audit.stored import AuditReport, audit_stream
from domain.service.campaign_store import MAX_VERSION
from domain.service.commands_service import CommandService
from domain.service.timeline import Timeline

MAX_PAGE = 1000


class Reading:
    """The queries on the core's store: campaigns, events, rolls, the audit, checkpoints."""

    def __init__(self, app: CommandService) -> None:
        self.app = app

    def checkpoint(self, campaign_id: UUID, version: int, head_hash: str) -> str:
        """The signed checkpoint of a campaign's head (a C2SP signed note)."""
        return self.app.key_ring.sign_checkpoint(campaign_id, version, head_hash)

    def head_checkpoint(self, campaign_id: UUID) -> tuple[Campaign, str]:
        """The campaign now and the signed checkpoint of its head."""
        campaign = self.app.campaign(campaign_id)
        return campaign, self.checkpoint(campaign.id, campaign.version, campaign.head_hash)

    def hash_at(self, campaign_id: UUID, version: int) -> str | None:
        """The stored hash of a campaign's event at a version (None past its head)."""
        if not 1 <= version <= MAX_VERSION:
            return None
        events = self.app.campaign_events(campaign_id, after=version - 1, limit=1)
        return str(events[0].hash) if events else None

    def check_checkpoint(
        self, campaign_id: UUID, note: str, keys: list[VerifierKey] | None = None
    ) -> CheckpointVerdict:
        """Check a signed checkpoint of a campaign against ``keys`` (default: every key this
        store lists, and then its log name too) and against the log."""
        self.app.campaign(campaign_id)
        own = keys is None
        return check_checkpoint(
            note,
            self.app.key_ring.verifier_keys() if keys is None else keys,
            campaign_id=campaign_id,
            hash_at=lambda version: self.hash_at(campaign_id, version),
            log_name=self.app.key_ring.log_name if own else None,
        )

    def list_campaigns(self, *, after: int = 0, limit: int = 50) -> tuple[list[Any], int | None]:
        """Campaigns in creation order, a page at a time; returns the page and the next cursor."""
        if not 1 <= limit <= MAX_PAGE:
            raise InvalidInput.field("limit", f"must be from 1 to {MAX_PAGE}")
        if after < 0:
            raise InvalidInput.field("after", "must be 0 or more")
        if after >= MAX_VERSION:
            return [], None
        # Through the index of creation events: the page's rows, however many events lie
        # between them (domain.storage.creations).
        notifications = self.app.side_tables.campaign_creations(after, limit + 1)
        page = list(notifications[:limit])
        next_cursor = page[-1].id if len(notifications) > limit else None
        items = [(n.id, self.app.mapper.to_domain_event(n)) for n in page]
        return items, next_cursor

    def event_records(
        self, campaign_id: UUID, *, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The campaign's events after a version, each as the API shows it: its fields as stored
        (an event of an older payload version as it was written, which is what its hash covers;
        ``event_record``) and who caused it (``actor``, null before actors were recorded)."""
        stored = self.app.stored_events(campaign_id, after=after, limit=limit)
        if not stored:
            return []
        mapper = self.app.mapper
        # the actors of these events only: as many rows as events, however long the campaign
        last = stored[-1].originator_version
        actors = self.app.side_tables.actors(str(campaign_id), after=after, up_to=last)
        return [
            {
                **event_record(mapper.to_domain_event(s), stored_fields(mapper, s)),
                "actor": actors.get(s.originator_version),
            }
            for s in stored
        ]

    def actors(self, campaign_id: UUID) -> dict[int, str]:
        """Who caused each event of a campaign (the token's ``name#id``, or ``system``), by
        version; events stored before actors were recorded are absent."""
        return self.app.side_tables.actors(str(campaign_id))

    def rolls(
        self, campaign_id: UUID, *, after: int = 0, limit: int = 100
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Roll records after a version, with verdicts; returns them and the next cursor."""
        campaign = self.app.campaign(campaign_id)
        revealed = campaign.dice["revealed"]
        timeline = self.timeline(campaign)
        found: list[dict[str, Any]] = []
        cursor = after
        while len(found) < limit and cursor < campaign.version:
            batch = self.app.campaign_events(campaign_id, after=cursor, limit=500)
            if not batch:
                break
            for event in batch:
                cursor = event.originator_version
                for record in getattr(event, "rolls", None) or []:
                    found.append(self._roll(record, event, revealed, timeline))
                if len(found) >= limit:
                    break
        more = cursor < campaign.version
        return found, (cursor if more else None)

    def find_roll(self, campaign_id: UUID, roll_id: str) -> dict[str, Any]:
        """One roll by id ("<version>-<n>"), with its proof and, once revealed, the seed."""
        campaign = self.app.campaign(campaign_id)
        version = ascii_number(roll_id.partition("-")[0])
        if version is None:
            raise NotFound(f"Roll {roll_id!r} does not exist in campaign {campaign_id}.")
        for event in self.app.campaign_events(campaign_id, after=version - 1, limit=1):
            for record in getattr(event, "rolls", None) or []:
                if record.get("roll_id") == roll_id:
                    revealed = campaign.dice["revealed"]
                    return self._roll(record, event, revealed, self.timeline(campaign))
        raise NotFound(f"Roll {roll_id!r} does not exist in campaign {campaign_id}.")

    @staticmethod
    def _roll(
        record: dict[str, Any], event: Any, revealed: dict[str, str], timeline: Timeline
    ) -> dict[str, Any]:
        """A roll as the roll routes show it: its verdict, and its summary in words (with the
        outcome of the game event that made it; computed now, never stored)."""
        shown = with_verdict(record, revealed, timeline)
        shown["summary"] = roll_summary(record, decoded(event))
        return shown

    def audit(self, campaign_id: UUID, *, after: ResumePoint | None = None) -> AuditReport:
        """Re-check the chain and every revealed server roll; list rollbacks and rerolls.

        ``after``: a version and head hash the verifier has verified already; the audit then
        reads only what it needs from there on (``domain.service.audit.resume``)."""
        campaign = self.app.campaign(campaign_id)
        if after is None:
            # Up to the head read above (the store's, the cache fast-forwarded): its events and
            # their actors were stored together before either read, so an append between the
            # two reads is left to the next audit, never audited without its actor (its hash
            # covers it). The actors are read first, the events after: in that order the pages
            # the events leave are given back after the audit (docs/performance-results.md).
            # The collector is paused from before the reads: the rows read are a hundred thousand
            # objects, each allocation a step towards a collection that would walk them all.
            head = campaign.version
            with collection_paused():
                actors = self.app.side_tables.actors(str(campaign_id), up_to=head)
                stored = self.app.stored_events(campaign_id, limit=head)
                while stored and stored[-1].originator_version > head:  # (a version deleted)
                    stored.pop()
                return audit_stream(self.app.mapper, stored, actors)
        if after.version < 1:
            raise InvalidInput.field("after", "must be a version, 1 or more")
        if after.version > campaign.version:
            raise NotHeld("after", f"no version {after.version}: the head is {campaign.version}")

        def read(version: int, limit: int | None) -> list[Any]:
            return self.app.stored_events(campaign_id, after=version, limit=limit)

        def actors_after(version: int) -> dict[int, str]:
            return self.app.side_tables.actors(str(campaign_id), after=version)

        report, first = resumed_audit(self.app.mapper, read, after, actors_after)
        report.resumed = {
            "after": after.version,
            "after_hash": after.head_hash,
            "read_from": first,
        }
        return report

    def shown_events(
        self, campaign_id: UUID, *, after: int = 0, limit: int | None = None
    ) -> tuple[Campaign, list[dict[str, Any]]]:
        """The campaign now and its events after a version, each as ``GET /events`` shows it
        (``event_records``, marked undone or not by the timeline): the stream and the bundle send
        exactly these items."""
        found = self.app.campaign(campaign_id)
        timeline = self.timeline(found)
        records = self.event_records(campaign_id, after=after, limit=limit)
        return found, [timeline.marked(record) for record in records]

    def timeline(self, campaign: Campaign) -> Timeline:
        """The campaign's active history: which versions its rollbacks undid."""
        return Timeline.of(campaign.rollbacks, campaign.version)
