"""The Questlog application: handles commands against campaigns and answers queries on the log."""

from __future__ import annotations

import logging
import random
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from copy import deepcopy
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

import domain.calendar_board
import domain.quest_calendar
from domain import dice as dicelib
from domain.access import (
    Membership,
    Token,
    actor_label,
    current_actor,
    new_token_secret,
    token_hash,
)
from domain.audit import AuditReport, audit_stream, roll_verdict
from domain.campaign import Campaign, project_campaign
from domain.errors import (
    ConcurrencyConflict,
    InvalidInput,
    NotFound,
    QuestlogError,
    StaleVersion,
    StoreUnavailable,
)
from domain.es_compat import ApplicationHooks
from domain.games import rules_for
from domain.house_rules import book
from domain.store import (
    TRANSIENT_ERRORS,
    IdempotencyRecord,
    SeedRecord,
    SideTables,
    StoreConfig,
    limit_retries,
    never_sent,
    server_refused,
)
from domain.text import ascii_number, check_characters
from domain.timeline import Timeline

# Importing the game packages registers their commands, house rules and event types.
GAME_PACKAGES = (domain.calendar_board, domain.quest_calendar)
T = TypeVar("T")
Response = dict[str, Any]
Respond = Callable[[Campaign, Any], Response]

MAX_PURPOSE_LENGTH = 500
MAX_NAME_LENGTH = 200
MAX_CLIENT_SEED_LENGTH = 128
COMMAND_ATTEMPTS = 8
MAX_VERSION = 2**62
SNAPSHOT_INTERVAL = 100
MAX_PAGE = 1000
STORE_RETRY_SECONDS = 2.0
"""How long a command keeps trying through store failures that stored nothing, before a 503."""
DISK_FULL_RETRY_AFTER = 30
log = logging.getLogger("questlog.store")


class WriteNotStored(Exception):
    """The store failed during a command's write, and the command is certainly not stored."""


@dataclass(frozen=True)
class Idempotency:
    """An ``Idempotency-Key``: its scope (route and caller), key and request fingerprint."""

    scope: str
    key: str
    fingerprint: str


@dataclass(frozen=True)
class Outcome:
    """What a command produced: the response to send, and whether it is a stored replay."""

    response: Response
    replayed: bool = False


class ReportedDice:
    """Faces the player rolled by hand, used in draw order across a command's rolls (QC-08/09)."""

    def __init__(self, faces: Sequence[object]) -> None:
        if not isinstance(faces, list):
            raise InvalidInput.field("faces", "must be a list of faces")
        self.faces = list(faces)
        self.used = 0
        self.drawn: list[str] = []

    def draw(self, sides: Sequence[int]) -> dicelib.Draw:
        """Read the next reported faces for these dice."""
        wanted = list(sides)
        remaining = self.faces[self.used :]
        if len(remaining) < len(wanted):
            dice = "+".join(f"d{n}" for n in wanted)
            raise InvalidInput.field(
                "faces",
                f"not enough faces: the next roll needs {len(wanted)} ({dice}), "
                f"{len(remaining)} left after the {self.used} already used"
                + self._so_far([*self.drawn, *(f"d{n}" for n in wanted)]),
            )
        shown = remaining[: len(wanted)]
        read = dicelib.read_reported_faces(wanted, shown)
        self.used += len(wanted)
        self.drawn.extend(f"d{n}" for n in wanted)
        return dicelib.Draw(
            faces=read, source="reported", proof=None, raw=dicelib.shown_faces(shown)
        )

    def check_all_used(self) -> None:
        """Refuse faces the command never needed."""
        extra = len(self.faces) - self.used
        if extra:
            raise InvalidInput.field(
                "faces",
                f"{extra} face(s) left over: this command used {self.used}"
                + self._so_far(self.drawn),
            )

    @staticmethod
    def _so_far(dice: list[str]) -> str:
        """The dice the command has asked for, in draw order."""
        return f"; the dice in draw order: {', '.join(dice)}" if dice else ""


class Questlog(ApplicationHooks):
    """Appends commands to campaign streams and reads them back."""

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
        limit_retries(self.recorder)
        if self.snapshots is not None:
            limit_retries(self.snapshots.recorder)
        self._seeds: dict[str, str] = {}
        self._locks: weakref.WeakValueDictionary[UUID, threading.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._locks_guard = threading.Lock()
        self._shared: set[UUID] = set()
        """Campaigns another process has written lately (see ``_working_copy``)."""

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
            if not isinstance(campaign, Campaign) or event.originator_version % SNAPSHOT_INTERVAL:
                continue
            if campaign.version == event.originator_version:
                snapshot_class: Any = Campaign.Snapshot
                snapshots.put([snapshot_class.take(campaign)])
            else:
                self.take_snapshot(event.originator_id, event.originator_version, project_campaign)

    @property
    def side_tables(self) -> SideTables:
        """The recorder's seed and idempotency tables."""
        recorder = self.recorder
        assert isinstance(recorder, SideTables)
        return recorder

    # -- commands -------------------------------------------------------------------------

    def create_campaign(
        self,
        *,
        game: str,
        name: str,
        house_rules: dict[str, Any] | None = None,
        client_seed: str | None = None,
        setup: dict[str, Any] | None = None,
        origin: dict[str, Any] | None = None,
        respond: Respond | None = None,
        idempotency: Idempotency | None = None,
        public: bool | None = None,
    ) -> Outcome:
        """Start a campaign with its house rules, its game's setup and a committed server seed."""
        rules = book(game).resolve(house_rules)
        state = rules_for(game).initial_state(setup or {}, rules)
        return self.start_campaign(
            game=game,
            name=name,
            house_rules=rules,
            state=state,
            client_seed=client_seed,
            origin=origin,
            respond=respond,
            idempotency=idempotency,
            public=public,
        )

    def start_campaign(
        self,
        *,
        game: str,
        name: str,
        house_rules: dict[str, Any],
        state: dict[str, Any],
        client_seed: str | None = None,
        origin: dict[str, Any] | None = None,
        respond: Respond | None = None,
        idempotency: Idempotency | None = None,
        public: bool | None = None,
    ) -> Outcome:
        """Start a campaign from the house rules in force and a game state (creation, forks).

        ``public`` (if given) is stored with the creation event, in the same transaction.
        """
        check_text("name", name, MAX_NAME_LENGTH)
        if client_seed is not None:
            check_text("client_seed", client_seed, MAX_CLIENT_SEED_LENGTH)

        def start() -> Outcome:
            replay = self.replayed(idempotency)
            if replay is not None:
                return replay
            campaign_id = uuid4()
            seed = dicelib.new_server_seed()
            campaign = Campaign.start(
                campaign_id=campaign_id,
                game=game,
                name=name,
                house_rules=house_rules,
                commitment=dicelib.commitment_of(seed),
                client_seed=client_seed or dicelib.new_client_seed(),
                origin=origin,
                state=deepcopy(state),
            )
            seed_record = SeedRecord(str(campaign_id), dicelib.commitment_of(seed), seed)
            return self._save(campaign, None, respond, idempotency, seed=seed_record, public=public)

        return self._through_store_failures(start)

    def roll(
        self,
        campaign_id: UUID,
        *,
        notation: str,
        purpose: str,
        faces: Sequence[object] | None = None,
        expected_version: int | None = None,
        respond: Respond | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Roll dice on the server, or record faces the player rolled by hand."""
        expression = dicelib.parse(notation)
        check_text("purpose", purpose, MAX_PURPOSE_LENGTH, allow_empty=True, free_text=True)

        def decide(campaign: Campaign) -> dict[str, Any]:
            if faces is None:
                return campaign.roll(expression, purpose, self.server_dice(campaign))
            reported = ReportedDice(faces)
            record = campaign.roll(expression, purpose, reported)
            reported.check_all_used()
            return record

        return self.execute(campaign_id, decide, respond, expected_version, idempotency)

    def command(
        self,
        campaign_id: UUID,
        body: dict[str, Any],
        *,
        expected_version: int | None = None,
        respond: Respond | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Run a game command (``body["type"]``); faces in ``body["faces"]`` are hand-rolled."""
        if not isinstance(body, dict):
            raise InvalidInput.field("command", "must be a JSON object")

        def decide(campaign: Campaign) -> list[Any]:
            game = rules_for(campaign.game)
            faces = body.get("faces")
            if faces is None:
                return campaign.run_command(game, body, self.server_dice(campaign))
            reported = ReportedDice(faces)
            events = campaign.run_command(game, body, reported)
            reported.check_all_used()
            return events

        return self.execute(campaign_id, decide, respond, expected_version, idempotency)

    def configure_house_rule(
        self,
        campaign_id: UUID,
        key: str,
        value: Any,
        *,
        expected_version: int | None = None,
        respond: Respond | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Change a house rule by a recorded event (QC-01)."""

        def decide(campaign: Campaign) -> None:
            campaign.configure_house_rule(key, value)

        return self.execute(campaign_id, decide, respond, expected_version, idempotency)

    def set_client_seed(
        self,
        campaign_id: UUID,
        client_seed: str,
        *,
        expected_version: int | None = None,
        respond: Respond | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Set the client seed used by the server rolls that follow."""
        check_text("client_seed", client_seed, MAX_CLIENT_SEED_LENGTH)

        def decide(campaign: Campaign) -> None:
            campaign.set_client_seed(client_seed)

        return self.execute(campaign_id, decide, respond, expected_version, idempotency)

    def rotate_seed(
        self,
        campaign_id: UUID,
        *,
        expected_version: int | None = None,
        respond: Respond | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Reveal the current server seed and commit to a new one (nonce back to 0)."""
        holder: dict[str, SeedRecord] = {}

        def decide(campaign: Campaign) -> str:
            old_seed = self.secret_seed(campaign.dice["commitment"])
            new_seed = dicelib.new_server_seed()
            commitment = dicelib.commitment_of(new_seed)
            campaign.rotate_seed(revealed_seed=old_seed, new_commitment=commitment)
            holder["seed"] = SeedRecord(str(campaign.id), commitment, new_seed)
            return commitment

        return self.execute(
            campaign_id, decide, respond, expected_version, idempotency, seed_holder=holder
        )

    def execute(
        self,
        campaign_id: UUID,
        decide: Callable[[Campaign], Any],
        respond: Respond | None,
        expected_version: int | None,
        idempotency: Idempotency | None,
        *,
        seed_holder: dict[str, SeedRecord] | None = None,
    ) -> Outcome:
        """Load, decide, save; retry when a concurrent writer took the version first."""
        with self._command_lock(campaign_id), self.side_tables.campaign_write_lock(campaign_id):
            return self._through_store_failures(
                lambda: self._execute(
                    campaign_id, decide, respond, expected_version, idempotency, seed_holder
                )
            )

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
        decide: Callable[[Campaign], Any],
        respond: Respond | None,
        expected_version: int | None,
        idempotency: Idempotency | None,
        seed_holder: dict[str, SeedRecord] | None,
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
            campaign = self._working_copy(campaign_id, optimistic=attempt == 0)
            if expected_version is not None and campaign.version != expected_version:
                campaign = self.campaign(campaign_id)
                if campaign.version != expected_version:
                    raise StaleVersion(expected_version, campaign.version)
            try:
                value = decide(campaign)
            except QuestlogError:
                # A refusal must come from the stored state, never from a stale cached copy.
                if attempt == 0 and self.campaign(campaign_id).version != campaign.version:
                    continue
                raise
            seed = seed_holder.get("seed") if seed_holder else None
            try:
                return self._save(campaign, value, respond, idempotency, seed=seed)
            except IntegrityError:
                self._shared.add(campaign_id)
                if expected_version is not None:
                    latest = self.campaign(campaign_id).version
                    raise StaleVersion(expected_version, latest) from None
                continue
        raise ConcurrencyConflict(
            f"Campaign {campaign_id} kept changing under this command; nothing was stored."
        )

    def _working_copy(self, campaign_id: UUID, *, optimistic: bool) -> Campaign:
        """The campaign a command decides on.

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
                return deepcopy(cached)
            current = self.campaign(campaign_id)
            if current.version == cached.version:
                self._shared.discard(campaign_id)
            return current
        return self.campaign(campaign_id)

    def _save(
        self,
        campaign: Campaign,
        value: Any,
        respond: Respond | None,
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
        response = respond(campaign, value) if respond else {"value": value}
        record = None
        if idempotency is not None:
            record = IdempotencyRecord(
                idempotency.scope, idempotency.key, idempotency.fingerprint, response
            )
        actor = current_actor()
        owner = None
        if actor is not None and campaign.version == len(campaign.pending_events):
            owner = Membership(str(campaign.id), actor.id, "owner")
        attempt = uuid4().hex
        try:
            self.save(
                campaign,
                seed=seed,
                idempotency=record,
                actor=actor_label(actor),
                owner=owner,
                public=public,
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
        return Outcome(response)

    def _attempt_stored(self, attempt: str, error: Exception) -> bool:
        """Whether a failed write's attempt is stored; a 503 (stored: unknown) if nobody knows."""
        try:
            return self.side_tables.attempt_stored(attempt)
        except TRANSIENT_ERRORS as lookup_error:
            raise unavailable(error, stored=None) from lookup_error

    # -- tokens ---------------------------------------------------------------------------

    def create_token(self, name: str, *, admin: bool = False) -> tuple[Token, str]:
        """A new token and its secret (shown once; only its hash is stored)."""
        check_text("name", name, MAX_NAME_LENGTH)
        if self.side_tables.find_token(name) is not None:
            raise InvalidInput.field("name", f"a token named {name!r} exists already")
        token = Token(id=uuid4().hex[:12], name=name, admin=admin)
        secret = new_token_secret()
        self.side_tables.add_token(token, token_hash(secret))
        return token, secret

    def authenticate(self, secret: str) -> Token | None:
        """The live token with this secret, or None (unknown or revoked)."""
        token = self.side_tables.token_by_hash(token_hash(secret))
        return None if token is None or token.revoked else token

    def revoke_token(self, name_or_id: str) -> Token:
        """Revoke a token by name or id (404 if there is none)."""
        token = self.side_tables.find_token(name_or_id)
        if token is None:
            raise NotFound(f"No token named or numbered {name_or_id!r}.")
        self.side_tables.revoke_token(token.id)
        return token

    def replayed(self, idempotency: Idempotency | None) -> Outcome | None:
        """The stored outcome of a repeated ``Idempotency-Key`` (422 if the body differs)."""
        if idempotency is None:
            return None
        found = self.side_tables.idempotent_response(idempotency.scope, idempotency.key)
        if found is None:
            return None
        fingerprint, response = found
        if fingerprint != idempotency.fingerprint:
            raise InvalidInput.field(
                "Idempotency-Key",
                "this key was already used with a different request body",
            )
        return Outcome(response, replayed=True)

    # -- dice -----------------------------------------------------------------------------

    def secret_seed(self, commitment: str) -> str:
        """The server seed behind a commitment (kept out of every event until revealed)."""
        seed = self._seeds.get(commitment)
        if seed is None:
            seed = self.side_tables.seed_for(commitment)
            if seed is None:
                raise LookupError(f"no stored server seed for commitment {commitment}")
            self._seeds[commitment] = seed
        return seed

    def server_dice(self, campaign: Campaign) -> dicelib.ServerDice:
        """The verifiable dice at the campaign's current seed, client seed and nonce."""
        return dicelib.ServerDice(
            self.secret_seed(campaign.dice["commitment"]),
            campaign.dice["client_seed"],
            campaign.dice["nonce"],
        )

    # -- queries --------------------------------------------------------------------------

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
        notifications = self.recorder.select_notifications(
            start=after + 1, limit=limit + 1, topics=[Campaign.Created.TOPIC]
        )
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
        return list(self.recorder.select_events(campaign_id, gt=after, limit=limit))

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
                    found.append(with_verdict(record, revealed, timeline))
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
                    return with_verdict(record, campaign.dice["revealed"], self.timeline(campaign))
        raise NotFound(f"Roll {roll_id!r} does not exist in campaign {campaign_id}.")

    def audit(self, campaign_id: UUID) -> AuditReport:
        """Re-check the chain and every revealed server roll; list rollbacks and rerolls."""
        self.campaign(campaign_id)
        actors = self.side_tables.actors(str(campaign_id))
        return audit_stream(self.mapper, self.stored_events(campaign_id), actors)

    def timeline(self, campaign: Campaign) -> Timeline:
        """The campaign's active history: which versions its rollbacks undid."""
        return Timeline.of(campaign.rollbacks, campaign.version)


def is_disk_full(error: BaseException | None) -> bool:
    """Whether a store error (or its cause) says the disk is full (PostgreSQL or SQLite)."""
    while error is not None:
        if getattr(error, "sqlstate", None) == "53100":
            return True
        if getattr(error, "sqlite_errorname", None) == "SQLITE_FULL":
            return True
        if "No space left on device" in str(error):
            return True
        error = error.__cause__ or error.__context__
    return False


def unavailable(error: BaseException | None, *, stored: bool | None) -> StoreUnavailable:
    """The retryable failure to answer for a store error."""
    if is_disk_full(error):
        return StoreUnavailable(
            "The store's disk is full." + (" Nothing was stored." if stored is False else ""),
            stored=stored,
            disk_full=True,
            retry_after=DISK_FULL_RETRY_AFTER,
        )
    what = {
        False: "Nothing was stored; the request may be sent again.",
        True: "The command was stored.",
        None: "Whether the command was stored could not be found out; send it again with "
        "the same Idempotency-Key to be safe.",
    }[stored]
    return StoreUnavailable(f"The store is unavailable. {what}", stored=stored)


def with_verdict(
    record: dict[str, Any], revealed: dict[str, str], timeline: Timeline | None = None
) -> dict[str, Any]:
    """A roll record with ``verified``, ``proof.server_seed`` once revealed, and ``undone``."""
    result = dict(record)
    if timeline is not None:
        result["undone_by"] = timeline.undone_by(int(record["version"]))
        result["undone"] = result["undone_by"] is not None
    if "proof" in record:
        proof = dict(record["proof"])
        seed = revealed.get(proof["commitment"])
        if seed is not None:
            proof["server_seed"] = seed
        result["proof"] = proof
    result["verified"] = roll_verdict(record, revealed)
    return result


def check_text(
    field: str, value: str, max_length: int, *, allow_empty: bool = False, free_text: bool = False
) -> None:
    """Refuse text that is not a string, is blank (unless allowed), too long, not Unicode or
    holds a control character (``free_text``, such as a purpose, may hold tabs and line breaks).
    """
    if not isinstance(value, str):
        raise InvalidInput.field(field, "must be a string")
    if not allow_empty and not value.strip():
        raise InvalidInput.field(field, "must not be empty")
    if len(value) > max_length:
        raise InvalidInput.field(field, f"must be at most {max_length} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput.field(field, "must be valid Unicode text (no lone surrogates)") from None
    check_characters(field, value, free_text=free_text)
