"""The application's store: opening it, the campaign repository, the log, saving and snapshots.

``CampaignStore`` is the eventsourcing ``Application`` every use case reads and writes through:
the store the configuration names, the campaign at a version (the repository's get), a stream's
stored events, the log's head and order, the shared rate buckets, the signing key ring beside the
store, and saving campaigns with their side rows and their due snapshots. Running a command on it
(``domain.service.commands_service``) builds on it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, ClassVar
from uuid import UUID

import orjson
from eventsourcing.application import AggregateNotFoundError

from domain.model.access import actor_label, current_actor
from domain.model.campaign import Campaign
from domain.model.errors import InvalidInput, NotFound
from domain.model.event_records import project_campaign
from domain.storage.es_compat import ApplicationHooks
from domain.storage.keys import KeyRing
from domain.storage.log_order import LogPosition, position_of
from domain.storage.retries import TRANSIENT_ERRORS
from domain.storage.side_tables import SideTables
from domain.storage.store import StoreConfig

MAX_VERSION = 2**62
SNAPSHOT_INTERVAL = 100
"""A campaign's snapshot is due every this many versions while its state is small."""
SNAPSHOT_BYTES = 64 * 1024
"""A state this large or larger is snapshot at a stride as many times the interval as it is times
this size (a power of two): a snapshot copies the whole state, so a state that grows with the
events (a long page's checks) would make the snapshots grow with the square of the campaign."""
log = logging.getLogger("questlog.store")


def snapshot_due(version: int, state: Any) -> bool:
    """Whether a campaign's snapshot is due at ``version``: every ``SNAPSHOT_INTERVAL`` versions,
    and for a state of twice ``SNAPSHOT_BYTES`` or more at a stride doubled for each doubling of
    its size (measured on the state in hand), so the snapshots' bytes grow as the events' do, and
    a load applies at most as many events as the snapshot it starts from is large."""
    if version % SNAPSHOT_INTERVAL:
        return False
    try:
        size = len(orjson.dumps(state))
    except (TypeError, orjson.JSONEncodeError):  # an int beyond 64 bits: sized as a small state
        size = 0
    stride = SNAPSHOT_INTERVAL << max(0, (size // SNAPSHOT_BYTES).bit_length() - 1)
    return version % stride == 0


class CampaignStore(ApplicationHooks):
    """The store and the campaign repository; saving campaigns with their side rows.

    Its ``name`` is ``Questlog``: eventsourcing names the store's tables and reads the
    environment (``QUESTLOG_...``) by it, so stores written before keep loading."""

    name = "Questlog"
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = {Campaign: SNAPSHOT_INTERVAL}
    snapshotting_projectors: ClassVar[dict[type[Any], Any]] = {Campaign: project_campaign}
    env: ClassVar[dict[str, str]] = {"AGGREGATE_CACHE_MAXSIZE": "500"}

    def __init__(self, config: StoreConfig | None = None, env: dict[str, str] | None = None):
        self.config = config or StoreConfig.from_environ()
        full_env = self.config.application_env(self.name.upper())
        full_env.update(env or {})
        with self.config.creation_lock():
            super().__init__(env=full_env)
        self._key_ring: KeyRing | None = None

    @property
    def side_tables(self) -> SideTables:
        """The recorder's seed, idempotency, token and access tables."""
        recorder = self.recorder
        assert isinstance(recorder, SideTables)
        return recorder

    @property
    def key_ring(self) -> KeyRing:
        """The signing keys (``domain.storage.keys``), made the first time they are needed."""
        if self._key_ring is None:
            self._key_ring = KeyRing.open(self.config, self.recorder)
        return self._key_ring

    # -- the repository and the log ---------------------------------------------------------

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

    def stored_events(
        self, campaign_id: UUID, *, after: int = 0, limit: int | None = None
    ) -> list[Any]:
        """The campaign's stored (encoded) events after a version."""
        if after >= MAX_VERSION:
            return []
        return self.side_tables.stored_events_after(campaign_id, after, limit)

    def campaign_events(
        self, campaign_id: UUID, *, after: int = 0, limit: int | None = None
    ) -> list[Any]:
        """The campaign's decoded events after a version."""
        stored = self.stored_events(campaign_id, after=after, limit=limit)
        return [self.mapper.to_domain_event(s) for s in stored]

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

    # -- saving -----------------------------------------------------------------------------

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        """Save campaigns: eventsourcing's save without its two runtime Protocol checks."""
        if not all(isinstance(obj, Campaign) for obj in objs):
            return super().save(*objs, **kwargs)
        # Every event's actor is recorded beside it (its hash covers it, see Campaign._trigger).
        kwargs.setdefault("actor", actor_label(current_actor()))
        return self.record_aggregates(objs, **kwargs)

    def after_record(self, events: Sequence[Any], aggregates: dict[UUID, Any]) -> None:
        """Take due snapshots; the events are stored already, so a failure here fails nothing."""
        try:
            self.take_due_snapshots(events, aggregates)
        except TRANSIENT_ERRORS as error:
            log.warning("snapshot not taken (the events are stored): %s", error)

    def take_due_snapshots(self, events: Sequence[Any], aggregates: dict[UUID, Any]) -> None:
        """Take each snapshot from the campaign in hand, not by re-reading the log.

        eventsourcing's ``take_snapshot`` rebuilds the aggregate from the previous snapshot and
        100 events although the saved aggregate is right here; it is used only when a command's
        events straddle the snapshot version (the aggregate in hand is then past it).
        """
        snapshots = self.snapshots
        if snapshots is None:
            return
        for event in events:
            campaign = aggregates.get(event.originator_id)
            if not isinstance(campaign, Campaign) or not snapshot_due(
                event.originator_version, campaign.state
            ):
                continue
            if campaign.version == event.originator_version:
                snapshot_class: Any = Campaign.Snapshot
                snapshots.put([snapshot_class.take(campaign)])
            else:
                self.take_snapshot(event.originator_id, event.originator_version, project_campaign)
