"""Reading the log: campaigns now or at a version, their events, rolls with verdicts, the audit."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from domain.model.campaign import Campaign
from domain.model.errors import InvalidInput, NotFound, NotHeld
from domain.model.event_records import event_record, project_campaign
from domain.model.event_summaries import roll_summary
from domain.model.events.summaries import decoded
from domain.model.signed_note import VerifierKey
from domain.model.text import ascii_number
from domain.service.audit.checkpoints import CheckpointVerdict, check_checkpoint
from domain.service.audit.read import collection_paused, stored_fields
from domain.service.audit.resume import ResumePoint, resumed_audit
from domain.service.audit.rolls import with_verdict
from domain.service.audit.stored import AuditReport, audit_stream
from domain.service.timeline import Timeline
from domain.storage.es_compat import ApplicationHooks
from domain.storage.keys import KeyRing
from domain.storage.log_order import LogPosition, position_of
from domain.storage.side_tables import SideTables
from domain.storage.store import StoreConfig

MAX_VERSION = 2**62
MAX_PAGE = 1000


class Reading(ApplicationHooks):
    """The application's store and the queries on it; the services above add the commands."""

    def __init__(self, config: StoreConfig | None = None, env: dict[str, str] | None = None):
        self.config = config or StoreConfig.from_environ()
        full_env = self.config.application_env(self.name.upper())
        full_env.update(env or {})
        with self.config.creation_lock():
            super().__init__(env=full_env)
        self._key_ring: KeyRing | None = None

    @property
    def key_ring(self) -> KeyRing:
        """The signing keys (``domain.storage.keys``), made the first time they are needed."""
        if self._key_ring is None:
            self._key_ring = KeyRing.open(self.config, self.recorder)
        return self._key_ring

    def log_head(self) -> int:
        """The position (notification id) of the last event stored; 0 in an empty store."""
        return int(self.recorder.max_notification_id() or 0)

    def readable_head(self) -> LogPosition:
        """The position, in the log's order, of the last event a reader can read now."""
        recorder: Any = self.recorder
        head: LogPosition = recorder.readable_head()
        return head

    def readable_version(self, campaign_id: UUID) -> int | None:
        """The last version of a campaign a reader of the log can see now; None where every
        committed event can be read (SQLite: one writer at a time)."""
        read = getattr(self.recorder, "readable_version", None)
        return None if read is None else int(read(campaign_id))

    def log_after(self, after: LogPosition, limit: int) -> list[tuple[LogPosition, UUID]]:
        """Up to ``limit`` events after a position, in the log's order
        (``domain.storage.log_order``): each one's position and campaign."""
        recorder: Any = self.recorder
        return [
            (position_of(row), UUID(str(row[2]))) for row in recorder.ordered_rows(after, limit)
        ]

    def shares_rate_buckets(self) -> bool:
        """Whether the store keeps rate-limit buckets that every process on it shares."""
        return bool(self.side_tables.shares_rate_buckets)

    def take_rate_token(self, key: str, rate: float, burst: float) -> float:
        """Take one token from ``key``'s bucket in the store: 0 if there was one, else the
        seconds until there is (only a store that ``shares_rate_buckets`` keeps them)."""
        return self.side_tables.take_rate_token(key, rate, burst)

    def checkpoint(self, campaign_id: UUID, version: int, head_hash: str) -> str:
        """The signed checkpoint of a campaign's head (a C2SP signed note)."""
        return self.key_ring.sign_checkpoint(campaign_id, version, head_hash)

    def head_checkpoint(self, campaign_id: UUID) -> tuple[Campaign, str]:
        """The campaign now and the signed checkpoint of its head."""
        campaign = self.campaign(campaign_id)
        return campaign, self.checkpoint(campaign.id, campaign.version, campaign.head_hash)

    def hash_at(self, campaign_id: UUID, version: int) -> str | None:
        """The stored hash of a campaign's event at a version (None past its head)."""
        if not 1 <= version <= MAX_VERSION:
            return None
        events = self.campaign_events(campaign_id, after=version - 1, limit=1)
        return str(events[0].hash) if events else None

    def check_checkpoint(
        self, campaign_id: UUID, note: str, keys: list[VerifierKey] | None = None
    ) -> CheckpointVerdict:
        """Check a signed checkpoint of a campaign against ``keys`` (default: every key this
        store lists, and then its log name too) and against the log."""
        self.campaign(campaign_id)
        own = keys is None
        return check_checkpoint(
            note,
            self.key_ring.verifier_keys() if keys is None else keys,
            campaign_id=campaign_id,
            hash_at=lambda version: self.hash_at(campaign_id, version),
            log_name=self.key_ring.log_name if own else None,
        )

    @property
    def side_tables(self) -> SideTables:
        """The recorder's seed, idempotency, token and access tables."""
        recorder = self.recorder
        assert isinstance(recorder, SideTables)
        return recorder

    def campaign(self, campaign_id: UUID, version: int | None = None) -> Campaign:
        """The campaign now, or as it was at ``version``."""
        if version is not None and not 1 <= version <= MAX_VERSION:
            raise InvalidInput.field("version", f"must be from 1 to {MAX_VERSION}")
        try:
            campaign: Any = self.repository.get(
                campaign_id, version=version, projector_func=project_campaign
            )
        except AggregateNotFoundError:
            raise NotFound(f"Campaign {campaign_id} does not exist.") from None
        if not isinstance(campaign, Campaign):
            raise NotFound(f"Campaign {campaign_id} does not exist.")
        if version is not None and campaign.version != version:
            raise NotFound(
                f"Campaign {campaign_id} has no version {version}; its head is {campaign.version}."
            )
        return campaign

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
        notifications = self.side_tables.campaign_creations(after, limit + 1)
        page = list(notifications[:limit])
        next_cursor = page[-1].id if len(notifications) > limit else None
        items = [(n.id, self.mapper.to_domain_event(n)) for n in page]
        return items, next_cursor

    def stored_events(
        self, campaign_id: UUID, *, after: int = 0, limit: int | None = None
    ) -> list[Any]:
        """The campaign's stored (encoded) events after a version."""
        if after >= MAX_VERSION:
            return []
        return self.side_tables.stored_events_after(campaign_id, after, limit)

    def event_records(
        self, campaign_id: UUID, *, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The campaign's events after a version, each as the API shows it: its fields as stored
        (an event of an older payload version as it was written, which is what its hash covers;
        ``event_record``) and who caused it (``actor``, null before actors were recorded)."""
        stored = self.stored_events(campaign_id, after=after, limit=limit)
        if not stored:
            return []
        # the actors of these events only: as many rows as events, however long the campaign
        last = stored[-1].originator_version
        actors = self.side_tables.actors(str(campaign_id), after=after, up_to=last)
        return [
            {
                **event_record(self.mapper.to_domain_event(s), stored_fields(self.mapper, s)),
                "actor": actors.get(s.originator_version),
            }
            for s in stored
        ]

    def actors(self, campaign_id: UUID) -> dict[int, str]:
        """Who caused each event of a campaign (the token's ``name#id``, or ``system``), by
        version; events stored before actors were recorded are absent."""
        return self.side_tables.actors(str(campaign_id))

    def campaign_events(
        self, campaign_id: UUID, *, after: int = 0, limit: int | None = None
    ) -> list[Any]:
        """The campaign's decoded events after a version."""
        stored = self.stored_events(campaign_id, after=after, limit=limit)
        return [self.mapper.to_domain_event(s) for s in stored]

    def rolls(
        self, campaign_id: UUID, *, after: int = 0, limit: int = 100
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Roll records after a version, with verdicts; returns them and the next cursor."""
        campaign = self.campaign(campaign_id)
        revealed = campaign.dice["revealed"]
        timeline = self.timeline(campaign)
        found: list[dict[str, Any]] = []
        cursor = after
        while len(found) < limit and cursor < campaign.version:
            batch = self.campaign_events(campaign_id, after=cursor, limit=500)
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
        campaign = self.campaign(campaign_id)
        version = ascii_number(roll_id.partition("-")[0])
        if version is None:
            raise NotFound(f"Roll {roll_id!r} does not exist in campaign {campaign_id}.")
        for event in self.campaign_events(campaign_id, after=version - 1, limit=1):
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
        campaign = self.campaign(campaign_id)
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
                actors = self.side_tables.actors(str(campaign_id), up_to=head)
                stored = self.stored_events(campaign_id, limit=head)
                while stored and stored[-1].originator_version > head:  # (a version deleted)
                    stored.pop()
                return audit_stream(self.mapper, stored, actors)
        if after.version < 1:
            raise InvalidInput.field("after", "must be a version, 1 or more")
        if after.version > campaign.version:
            raise NotHeld("after", f"no version {after.version}: the head is {campaign.version}")

        def read(version: int, limit: int | None) -> list[Any]:
            return self.stored_events(campaign_id, after=version, limit=limit)

        def actors_after(version: int) -> dict[int, str]:
            return self.side_tables.actors(str(campaign_id), after=version)

        report, first = resumed_audit(self.mapper, read, after, actors_after)
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
        found = self.campaign(campaign_id)
        timeline = self.timeline(found)
        records = self.event_records(campaign_id, after=after, limit=limit)
        return found, [timeline.marked(record) for record in records]

    def timeline(self, campaign: Campaign) -> Timeline:
        """The campaign's active history: which versions its rollbacks undid."""
        return Timeline.of(campaign.rollbacks, campaign.version)
