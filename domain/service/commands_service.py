"""The command service: run a command once, through conflicts, store failures and repeated keys.

Every command of ``Questlog`` goes through ``execute`` (or, for a new campaign, ``store_new``):
load the campaign, decide, save the events with their side rows in one transaction, retry when
another writer took the version first, decide again while the store fails without storing
anything, and answer a repeated ``Idempotency-Key`` from what the first request stored.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from copy import deepcopy
from typing import Any
from uuid import UUID, uuid4

import orjson
from eventsourcing.persistence import IntegrityError

from domain.model.access import Membership, Token, actor_label, current_actor
from domain.model.campaign import Campaign
from domain.model.errors import (
    ConcurrencyConflict,
    InvalidInput,
    QuestlogError,
    StaleVersion,
)
from domain.model.event_records import project_campaign
from domain.service.command_results import (
    CommandCounters,
    CommandResult,
    Idempotency,
    Outcome,
    WriteNotStored,
    is_disk_full,
    stored_outcome,
    unavailable,
)
from domain.service.reading import Reading
from domain.storage.forks import ForkRecord
from domain.storage.retries import TRANSIENT_ERRORS, limit_retries, never_sent, server_refused
from domain.storage.side_tables import IdempotencyRecord, SeedRecord
from domain.storage.store import StoreConfig

Decide = Callable[[Campaign], Any]
"""A command's decision on the campaign: it triggers the events and returns the facts (JSON)."""

COMMAND_ATTEMPTS = 8
CONTENDED_SECONDS = 30.0
"""How long after a write conflict on a campaign this process takes its cross-process lock
before each command on it (``CommandService.execute``)."""
MAX_CONTENDED = 10_000
"""Contention marks kept before the expired ones are swept out."""
SNAPSHOT_INTERVAL = 100
"""A campaign's snapshot is due every this many versions while its state is small."""
SNAPSHOT_BYTES = 64 * 1024
"""A state this large or larger is snapshot at a stride as many times the interval as it is times
this size (a power of two): a snapshot copies the whole state, so a state that grows with the
events (a long page's checks) would make the snapshots grow with the square of the campaign."""
STORE_RETRY_SECONDS = 2.0
"""How long a command keeps trying through store failures that stored nothing, before a 503."""
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


class MetAnotherProcess(Exception):
    """A command run without the campaign's store lock met another process's write: it is
    decided again under the lock (``CommandService.execute``). Never leaves the service."""


class CommandService(Reading):
    """Runs commands: load, decide, save; retries, store failures and idempotency."""

    def __init__(self, config: StoreConfig | None = None, env: dict[str, str] | None = None):
        super().__init__(config, env)
        limit_retries(self.recorder)
        if self.snapshots is not None:
            limit_retries(self.snapshots.recorder)
        self._locks: weakref.WeakValueDictionary[UUID, threading.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._locks_guard = threading.Lock()
        self._shared: set[UUID] = set()
        """Campaigns another process has written lately (see ``_working_copy``)."""
        self._contended: dict[UUID, float] = {}
        """Until when (monotonic seconds) each campaign's commands take the campaign lock."""
        self.counters = CommandCounters()
        """Hooks for stored commands and retried conflicts (the API's metrics read them)."""

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

    def execute(
        self,
        campaign_id: UUID,
        decide: Decide,
        expected_version: int | None,
        idempotency: Idempotency | None,
        *,
        seed_holder: dict[str, SeedRecord] | None = None,
        shape: Callable[[Campaign], None] | None = None,
    ) -> Outcome:
        """Load, decide, save; retry when a concurrent writer took the version first.

        ``shape`` checks the request's own form against the campaign (a command body against its
        game's schema) before ``If-Match`` is: a malformed request is a 422 whatever the version
        it names, never a 412 that a corrected retry would meet again as a 422.

        Commands on one campaign in this process take turns (``_command_lock``). Processes take
        turns through the store's campaign lock only where they have lately met (a write
        conflict in the last ``CONTENDED_SECONDS``): the lock is for fairness, not correctness
        (the unique version key refuses a stale write), and a campaign one process writes alone,
        the usual case, does not pay for it on every command.
        """

        def run(locked: bool) -> Outcome:
            return self._through_store_failures(
                lambda: self._execute(
                    campaign_id,
                    decide,
                    expected_version,
                    idempotency,
                    seed_holder,
                    locked=locked,
                    shape=shape,
                )
            )

        with self._command_lock(campaign_id):
            if not self._is_contended(campaign_id):
                try:
                    return run(locked=False)
                except MetAnotherProcess:
                    pass  # now marked: decided again below, taking turns with the other
            with self.side_tables.campaign_write_lock(campaign_id):
                return run(locked=True)

    @contextmanager
    def campaign_locks(self, campaign_id: UUID) -> Iterator[None]:
        """Hold the campaign's lock in this process and its store lock across processes, as a
        contended command does, for a write that is not a command (an import)."""
        with self._command_lock(campaign_id), self.side_tables.campaign_write_lock(campaign_id):
            yield

    def _through_store_failures(self, run: Callable[[], Outcome]) -> Outcome:
        """Run a command, and run it again while the store fails without storing it.

        Running it again decides it again from the stored state: server dice are drawn at the
        stored nonce, so the same faces come up and nothing is rerolled. After
        ``STORE_RETRY_SECONDS`` (or at once for a full disk) the failure is a
        ``StoreUnavailable`` saying the command was not stored. A read that fails (eventsourcing
        has already retried it) stored nothing either.
        """
        deadline = time.monotonic() + STORE_RETRY_SECONDS
        delay = 0.05
        while True:
            try:
                return run()
            except WriteNotStored as failed:
                cause = failed.__cause__
                if is_disk_full(cause) or time.monotonic() + delay > deadline:
                    raise unavailable(cause, stored=False) from cause
                log.warning("write failed and is not stored; deciding again: %s", cause)
            except TRANSIENT_ERRORS as error:
                raise unavailable(error, stored=False) from error
            time.sleep(random.uniform(delay / 2, delay))
            delay *= 2

    def _is_contended(self, campaign_id: UUID) -> bool:
        """Whether another process has lately written this campaign under our feet."""
        until = self._contended.get(campaign_id)
        return until is not None and until > time.monotonic()

    def _mark_contended(self, campaign_id: UUID) -> None:
        """Take the campaign's store lock for its next commands; forget marks long expired."""
        now = time.monotonic()
        with self._locks_guard:
            if len(self._contended) > MAX_CONTENDED:
                for expired in [key for key, until in self._contended.items() if until <= now]:
                    del self._contended[expired]
            self._contended[campaign_id] = now + CONTENDED_SECONDS

    def _command_lock(self, campaign_id: UUID) -> threading.Lock:
        """One lock per campaign, so this process's commands on it never race each other."""
        with self._locks_guard:
            lock = self._locks.get(campaign_id)
            if lock is None:
                lock = threading.Lock()
                self._locks[campaign_id] = lock
            return lock

    def _execute(
        self,
        campaign_id: UUID,
        decide: Decide,
        expected_version: int | None,
        idempotency: Idempotency | None,
        seed_holder: dict[str, SeedRecord] | None,
        *,
        locked: bool,
        shape: Callable[[Campaign], None] | None = None,
    ) -> Outcome:
        # Another process may still take the version first: reload and decide again. The first
        # retry goes at once (the usual conflict is this process's cached copy being behind the
        # store; the campaign lock keeps others out meanwhile); later ones back off with jitter.
        for attempt in range(COMMAND_ATTEMPTS):
            if attempt > 1:
                time.sleep(random.uniform(0, 0.005 * 2**attempt))
            replay = self.replayed(idempotency)
            if replay is not None:
                return replay
            campaign, from_cache = self._working_copy(campaign_id, optimistic=attempt == 0)
            if shape is not None:
                shape(campaign)
            if expected_version is not None and campaign.version != expected_version:
                campaign, from_cache = self.campaign(campaign_id), False
                if campaign.version != expected_version:
                    raise StaleVersion(expected_version, campaign.version)
            try:
                value = decide(campaign)
            except QuestlogError:
                # A refusal must come from the stored state, never from a stale cached copy.
                if attempt == 0 and self.campaign(campaign_id).version != campaign.version:
                    continue
                raise
            if attempt == 0 and not campaign.pending_events and self._moved_on(campaign):
                continue
            seed = seed_holder.get("seed") if seed_holder else None
            try:
                return self._save(campaign, value, idempotency, seed=seed)
            except IntegrityError:
                self._shared.add(campaign_id)
                # A cached copy that was behind (another process wrote the campaign once, say
                # a client that moved to this worker) is not contention: decide again on the
                # stored state, without the lock. A copy read from the store that still loses
                # is: take turns under the lock from now on.
                behind = from_cache and not locked
                if not behind:
                    self._mark_contended(campaign_id)
                if expected_version is not None:
                    latest = self.campaign(campaign_id).version
                    raise StaleVersion(expected_version, latest) from None
                self.counters.conflict(campaign.game)
                if not locked and not behind:
                    raise MetAnotherProcess(campaign_id) from None
                continue
        raise ConcurrencyConflict(
            f"Campaign {campaign_id} kept changing under this command; nothing was stored."
        )

    def _working_copy(self, campaign_id: UUID, *, optimistic: bool) -> tuple[Campaign, bool]:
        """The campaign a command decides on, and whether it is this process's cached copy.

        The first attempt trusts this process's cached campaign without asking the store for
        newer events: commands here are serialised per campaign and every save puts the saved
        campaign back in the cache, so only another process can have moved it on, and then the
        save's unique (campaign, version) key refuses it and the retry reloads from the store.

        A campaign another process has written lately (a save of ours conflicted) is read up to
        date first instead, until a read finds nothing new: two processes taking turns on one
        campaign would otherwise pay a refused write on every command.
        """
        cached = self.cached_aggregate(campaign_id) if optimistic else None
        if isinstance(cached, Campaign):
            if campaign_id not in self._shared:
                return deepcopy(cached), True
            current = self.campaign(campaign_id)
            if current.version == cached.version:
                self._shared.discard(campaign_id)
            return current, False
        return self.campaign(campaign_id), False

    def _moved_on(self, campaign: Campaign) -> bool:
        """Whether the store holds a newer version than this (cached) copy of the campaign.

        A command that appends nothing is never checked by the events' unique key, so its
        answer must not come from a copy another process has moved past.
        """
        return self.campaign(campaign.id).version != campaign.version

    def _save(
        self,
        campaign: Campaign,
        value: Any,
        idempotency: Idempotency | None,
        *,
        seed: SeedRecord | None = None,
        public: bool | None = None,
    ) -> Outcome:
        """Store the command's events with their side rows; find out what a lost commit did.

        Each save carries a new attempt id, stored in the events' transaction. If the store fails
        (a connection lost, perhaps after the commit), ``attempt_stored`` tells whether this
        attempt is in the store: then the command succeeded, and is never decided again.
        """
        result = CommandResult.of(campaign, value)
        record = None
        if idempotency is not None:
            record = IdempotencyRecord(
                idempotency.scope,
                idempotency.key,
                idempotency.stored_fingerprint,
                result.stored(),
            )
        actor = current_actor()
        owner, fork = starting_rows(campaign, actor)
        attempt = uuid4().hex
        event_types = [type(event).__name__ for event in campaign.pending_events]
        try:
            self.save(
                campaign,
                seed=seed,
                idempotency=record,
                actor=actor_label(actor),
                owner=owner,
                public=public,
                fork=fork,
                attempt=attempt,
            )
        except IntegrityError:
            replay = self.replayed(idempotency)
            if replay is not None:
                return replay
            raise
        except TRANSIENT_ERRORS as error:
            if (
                never_sent(error)
                or server_refused(error)
                or not self._attempt_stored(attempt, error)
            ):
                raise WriteNotStored(str(error)) from error
            log.warning("the store failed after committing attempt %s: %s", attempt, error)
        # The next command on this campaign starts from the saved aggregate instead of reading
        # back and re-applying the events it just wrote (fast-forward still picks up other
        # processes' events; this process's commands on a campaign are serialised).
        self.cache_aggregate(campaign)
        self.counters.stored(campaign.game, event_types)
        return result

    def _attempt_stored(self, attempt: str, error: Exception) -> bool:
        """Whether a failed write's attempt is stored; a 503 (stored: unknown) if nobody knows."""
        try:
            return self.side_tables.attempt_stored(attempt)
        except TRANSIENT_ERRORS as lookup_error:
            raise unavailable(error, stored=None) from lookup_error

    def replayed(self, idempotency: Idempotency | None) -> Outcome | None:
        """The stored outcome of a repeated ``Idempotency-Key`` (422 if the body differs)."""
        if idempotency is None:
            return None
        found = self.side_tables.idempotent_response(idempotency.scope, idempotency.key)
        if found is None:
            return None
        fingerprint, stored = found
        if fingerprint != idempotency.stored_fingerprint:
            if fingerprint.partition(":")[0] == idempotency.fingerprint:
                raise InvalidInput.field(
                    "entropy",
                    "this Idempotency-Key was first used with other entropy (or none): a retry "
                    "must carry the same entropy and gets the same answer, so that a failed "
                    "request never becomes a reroll",
                )
            raise InvalidInput.field(
                "Idempotency-Key",
                "this key was already used with a different request body",
            )
        return stored_outcome(stored)


def starting_rows(
    campaign: Campaign, actor: Token | None
) -> tuple[Membership | None, ForkRecord | None]:
    """The side rows of a campaign's first save: its owner (the token that creates it, if any)
    and, for a fork, its row of the fork index; (None, None) for any later save."""
    if campaign.version != len(campaign.pending_events):
        return None, None
    owner = Membership(str(campaign.id), actor.id, "owner") if actor is not None else None
    return owner, ForkRecord.of(campaign.pending_events[0])
