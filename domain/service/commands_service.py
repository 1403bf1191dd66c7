"""The command service: run a command once, through conflicts, store failures and repeated keys.

``CommandService`` is the core every use case takes: the store (``CampaignStore``, which it
extends) and the running of commands on it. Every command of ``Questlog`` goes through
``execute`` with its ``Decision`` (or, for a new campaign, ``store_new`` with its ``Opening``):
load the campaign, apply the decision, save the events with their side rows in one transaction,
load and decide again when another writer took the version first, decide again while the store
fails without storing anything, and answer a repeated ``Idempotency-Key`` from what the first
request stored.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from copy import deepcopy
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.persistence import IntegrityError

from domain.model.access import Membership, Token, actor_label, current_actor
from domain.model.campaign import Campaign
from domain.model.errors import (
    ConcurrencyConflict,
    InvalidInput,
    QuestlogError,
    StaleVersion,
)
from domain.service.campaign_store import CampaignStore
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
from domain.storage.forks import ForkRecord
from domain.storage.retries import TRANSIENT_ERRORS, limit_retries, never_sent, server_refused
from domain.storage.side_tables import IdempotencyRecord, SeedRecord
from domain.storage.store import StoreConfig

COMMAND_ATTEMPTS = 8
CONTENDED_SECONDS = 30.0
"""How long after a write conflict on a campaign this process takes its cross-process lock
before each command on it (``CommandService.execute``)."""
MAX_CONTENDED = 10_000
"""Contention marks kept before the expired ones are swept out."""
STORE_RETRY_SECONDS = 2.0
"""How long a command keeps trying through store failures that stored nothing, before a 503."""
log = logging.getLogger("questlog.store")


@dataclass(frozen=True)
class Decided:
    """What deciding a command gave: its facts (plain JSON, the result's), and the secret seed
    to store with its events, if it committed to a new one (a seed rotation)."""

    facts: Any
    seed: SeedRecord | None = None


class Decision(ABC):
    """A command to decide on a loaded campaign: what it was asked (its fields) and how that
    applies to the campaign's state (``decide``).

    ``CommandService.execute`` applies it to the campaign it loads, and after a conflict or a
    store failure to the campaign it loads again: a decision keeps nothing between attempts (no
    dice, no state), so each attempt decides anew on the campaign in hand, its server dice drawn
    at that campaign's nonce (the losing attempt's dice were never stored, so no published nonce
    is reused, and a store failure's retry draws the same faces again)."""

    def check(self, campaign: Campaign) -> None:  # noqa: B027 (a hook: most check nothing)
        """Check the request's own form against the campaign (a command body against its game's
        schema), before ``If-Match`` is: a malformed request is a 422 whatever the version it
        names. Nothing to check by default."""

    @abstractmethod
    def decide(self, campaign: Campaign) -> Decided:
        """Trigger the command's events on the campaign (or refuse it); what it decided."""


class Opening(ABC):
    """A new campaign to store: what it was asked (its fields) and how it opens.

    ``CommandService.store_new`` opens it on each attempt: an attempt the store failed stored
    nothing, so the next one opens a new campaign (its own id and secret seed)."""

    @abstractmethod
    def open(self) -> tuple[Campaign, Decided]:
        """The new campaign with its creation event pending, its facts and its secret seed."""


class MetAnotherProcess(Exception):
    """A command run without the campaign's store lock met another process's write: it is
    decided again under the lock (``CommandService.execute``). Never leaves the service."""


class CommandService(CampaignStore):
    """The core: the store, and commands run on it (load, decide, save; retries, store
    failures and idempotency)."""

    name = "Questlog"
    """As the store's (``CampaignStore``): eventsourcing gives each subclass its own name."""

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

    def execute(
        self,
        campaign_id: UUID,
        decision: Decision,
        expected_version: int | None,
        idempotency: Idempotency | None,
    ) -> Outcome:
        """Load, decide, save; retry when a concurrent writer took the version first.

        The decision's ``check`` runs before ``If-Match`` is compared: a malformed request is a
        422 whatever the version it names, never a 412 that a corrected retry would meet again
        as a 422.

        Commands on one campaign in this process take turns (``_command_lock``). Processes take
        turns through the store's campaign lock only where they have lately met (a write
        conflict in the last ``CONTENDED_SECONDS``): the lock is for fairness, not correctness
        (the unique version key refuses a stale write), and a campaign one process writes alone,
        the usual case, does not pay for it on every command.
        """

        def run(locked: bool) -> Outcome:
            return self._through_store_failures(
                lambda: self._execute(
                    campaign_id, decision, expected_version, idempotency, locked=locked
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

    def store_new(
        self, opening: Opening, idempotency: Idempotency | None, *, public: bool | None = None
    ) -> Outcome:
        """Store a new campaign with its facts and its secret seed, through store failures; a
        repeated ``Idempotency-Key`` is answered from what the first request stored. ``public``
        (if given) is stored with the creation event, in the same transaction."""
        return self._through_store_failures(lambda: self._open(opening, idempotency, public))

    def _open(
        self, opening: Opening, idempotency: Idempotency | None, public: bool | None
    ) -> Outcome:
        """One attempt of ``store_new``."""
        replay = self.replayed(idempotency)
        if replay is not None:
            return replay
        campaign, decided = opening.open()
        return self._save(campaign, decided.facts, idempotency, seed=decided.seed, public=public)

    def _execute(
        self,
        campaign_id: UUID,
        decision: Decision,
        expected_version: int | None,
        idempotency: Idempotency | None,
        *,
        locked: bool,
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
            decision.check(campaign)
            if expected_version is not None and campaign.version != expected_version:
                campaign, from_cache = self.campaign(campaign_id), False
                if campaign.version != expected_version:
                    raise StaleVersion(expected_version, campaign.version)
            try:
                decided = decision.decide(campaign)
            except QuestlogError:
                # A refusal must come from the stored state, never from a stale cached copy.
                if attempt == 0 and self.campaign(campaign_id).version != campaign.version:
                    continue
                raise
            if attempt == 0 and not campaign.pending_events and self._moved_on(campaign):
                continue
            try:
                return self._save(campaign, decided.facts, idempotency, seed=decided.seed)
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
