"""Importing a campaign from another instance's bundle (docs/moving-campaigns.md).

The caller checks the bundle whole first (``domain.service.bundles.check``: the chain, the seeds,
every roll, the head). Here each public event is rebuilt into the event this code stores: its class
from its topic (only a campaign event or one of its game's declared events), its fields back in
their stored types, its payload version as it was written. The rebuilt rows are audited again as
``questlog verify`` audits a store (``audit_stream``), so what is stored is exactly what verifies.
The campaign is then stored with one more event, ``CampaignImported``, which commits to a new
server seed held here: events, actors, seed, owner and access flag in one transaction, so a
failure stores nothing.

A campaign that already exists here is refused unless the bundle extends it (the same events up
to its head): then only the bundle's newer events are appended, with the import event.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.persistence import IntegrityError, StoredEvent

from domain.model.access import Membership, actor_label, current_actor
from domain.model.campaign import Campaign, GameEvent
from domain.model.dice import draw as dicelib
from domain.model.dice.notation import ALLOWED_SIDES
from domain.model.errors import ConcurrencyConflict, InvalidInput, RuleViolation
from domain.model.event_records import event_class_of
from domain.model.events.payload import json_type_matches
from domain.model.games import rules_for
from domain.model.house_rules import GAMES, book
from domain.model.text import MAX_NAME_LENGTH, check_text, has_control_characters
from domain.service.audit.read import encoded
from domain.service.audit.rolls import roll_verdict
from domain.service.audit.stored import AuditReport, audit_stream
from domain.service.command_results import CommandResult, unavailable
from domain.service.commands_service import CommandService
from domain.service.reading import Reading
from domain.service.seeds import MAX_CLIENT_SEED_LENGTH
from domain.storage.forks import ForkRecord
from domain.storage.retries import TRANSIENT_ERRORS, never_sent, server_refused
from domain.storage.side_tables import SeedRecord

CAMPAIGN_EXISTS = "campaign-exists"
"""The rule an import breaks when the campaign is here already and the bundle does not extend it."""
ENVELOPE = ("originator_id", "originator_version")
"""Fields of a rebuilt event that are the row's columns, not its stored state."""


def refusal(problems: Sequence[Mapping[str, Any]], first: int | None = None) -> InvalidInput:
    """The 422 for a bundle that does not verify: its first bad version and that problem first
    (a problem of the file as a whole, with no version, after every event's), then the others.

    ``first`` is the first version whose stored content is broken (the chain's first bad
    version), when there is one: an edited event comes before the rolls it makes fail, which
    may lie earlier (an edited seed reveal fails the rolls made under that seed)."""

    def order(problem: Mapping[str, Any]) -> tuple[bool, bool, int]:
        version = problem.get("version")
        return (version is None, version != first, version or 0)

    ordered = sorted(problems, key=order)
    messages = [
        f"{'bundle' if p.get('version') is None else 'version ' + str(p['version'])}: "
        f"{p['problem']}"
        for p in ordered
    ]
    return InvalidInput(
        {"bundle": messages},
        message=f"The bundle does not verify ({messages[0]}); nothing was stored.",
    )


def bad_event(version: object, problem: str) -> InvalidInput:
    """The 422 for one event that cannot be rebuilt."""
    return refusal([{"version": version, "problem": problem}])


class CampaignImport:
    """Stores a verified bundle's campaign here, unchanged, and lets it play on."""

    def __init__(self, app: CommandService, reading: Reading) -> None:
        self.app = app
        self.reading = reading

    def load(
        self,
        bundle: Mapping[str, Any],
        *,
        public: bool = False,
        source: Mapping[str, Any] | None = None,
    ) -> CommandResult:
        """Import a bundle (already checked by ``domain.service.bundles.check``); ``public`` is the
        access flag of a campaign new here (an extended one keeps its own); ``source`` what the
        import event records of the source (its log name, verifier keys and verified
        checkpoint)."""
        campaign_id = _campaign_id(bundle.get("campaign_id"))
        events = bundle.get("events")
        if not isinstance(events, list) or not events:
            raise InvalidInput.field("events", "must be a non-empty list of events")
        stored, actors, report, decoded = self.checked(campaign_id, events)
        campaign = _project(decoded)
        held = self.held_seeds(decoded, campaign)
        forged = rolls_not_from(decoded, held)
        if forged:
            raise refusal(forged)
        with self.app.campaign_locks(campaign_id):
            local_head = self.local_head(campaign_id, events)
            imported, seed = self.record_import(campaign, bundle, held, source or {})
            actor = current_actor()
            actors.update({event.originator_version: actor_label(actor) for event in imported})
            rows = [*stored[local_head:], *map(self.app.mapper.to_stored_event, imported)]
            new = local_head == 0
            self._insert(
                rows,
                actors={v: a for v, a in actors.items() if v > local_head},
                seed=seed,
                owner=Membership(str(campaign_id), actor.id, "owner") if new and actor else None,
                public=public if new else None,
                fork=ForkRecord.of(decoded[0]) if new else None,
            )
            # The next command here starts from the imported campaign, not a cached older copy.
            self.app.cache_aggregate(campaign)
        self.app.after_record([*decoded[local_head:], *imported], {campaign_id: campaign})
        self.app.counters.stored(campaign.game, [type(e).__name__ for e in imported])
        return CommandResult(
            campaign_id=campaign_id,
            first_version=local_head + 1,
            version=campaign.version,
            head_hash=campaign.head_hash,
            value={
                "game": campaign.game,
                "name": campaign.name,
                "extended": not new,
                "imported_events": len(stored) - local_head,
                "bundle_head": {"version": report.head_version, "hash": report.head_hash},
                "commitment": seed.commitment,
                "client_seed": campaign.dice["client_seed"],
                "unrevealed_commitment": imported[-1].unrevealed_commitment,
                "revealed_commitments": sorted(held),
                "awaiting_reveal": app_audit_awaiting(report.rolls, decoded, held),
            },
        )

    def checked(
        self, campaign_id: UUID, events: list[Any]
    ) -> tuple[list[StoredEvent], dict[int, str], AuditReport, list[Any]]:
        """A bundle's events rebuilt as stored events, with their actors, its audit report and the
        decoded events, or a refusal naming the first event that fails the audit or the rules."""
        stored, actors = self.rebuild(campaign_id, events)
        report = audit_stream(self.app.mapper, stored, actors)
        if not report.ok:
            raise refusal(report.problems, report.first_bad_version)
        decoded = [self.app.mapper.to_domain_event(item) for item in stored]
        game = str(getattr(decoded[0], "game", ""))
        for event in decoded:
            problem = event_problem(event, game)
            if problem:
                raise bad_event(event.originator_version, problem)
        return stored, actors, report, decoded

    def held_seeds(self, events: Sequence[Any], campaign: Campaign) -> dict[str, str]:
        """The seeds this instance holds for commitments of the log that it has not revealed
        (its own, when a campaign comes back after playing elsewhere), by commitment."""
        named: set[str] = set()
        for event in events:
            for key in ("commitment", "unrevealed_commitment"):
                value = getattr(event, key, None)
                if isinstance(value, str):
                    named.add(value)
            for record in getattr(event, "rolls", None) or []:
                proof = record.get("proof") if isinstance(record, Mapping) else None
                if isinstance(proof, Mapping) and isinstance(proof.get("commitment"), str):
                    named.add(proof["commitment"])
        held = {}
        for commitment in sorted(named - set(campaign.dice["revealed"])):
            # Only this campaign's own seeds: a bundle naming another campaign's commitment
            # must never make this instance reveal that campaign's secret.
            seed = self.app.side_tables.seed_for(commitment, str(campaign.id))
            if seed is not None:
                held[commitment] = seed
        return held

    @staticmethod
    def record_import(
        campaign: Campaign,
        bundle: Mapping[str, Any],
        held: Mapping[str, str],
        source: Mapping[str, Any],
    ) -> tuple[list[Any], SeedRecord]:
        """Trigger the import event on the campaign the bundle makes, revealing the seeds held
        here and committing to a new server seed; returns the event and the seed to store."""
        seed = dicelib.new_server_seed()
        commitment = dicelib.commitment_of(seed)
        checkpoint = source.get("checkpoint")
        exported_at = bundle.get("exported_at")
        campaign.record_import(
            exported_at=exported_at if isinstance(exported_at, str) else None,
            checkpoint=checkpoint if isinstance(checkpoint, str) else None,
            source={
                "log_name": source.get("log_name"),
                "verifier_keys": list(source.get("verifier_keys") or []),
                "checkpoint_keys": source.get("checkpoint_keys"),
            },
            new_commitment=commitment,
            revealed_seeds=dict(held),
        )
        return list(campaign.collect_events()), SeedRecord(str(campaign.id), commitment, seed)

    def rebuild(
        self, campaign_id: UUID, events: Sequence[Any]
    ) -> tuple[list[StoredEvent], dict[int, str]]:
        """Each public event as the row this code stores, and the actor of each version."""
        first = events[0]
        data = first.get("data") if isinstance(first, Mapping) else None
        game = data.get("game") if isinstance(data, Mapping) else None
        if not isinstance(first, Mapping) or first.get("type") != Campaign.Created.TOPIC:
            raise bad_event(1, f"the first event must be a {Campaign.Created.TOPIC}")
        if game not in GAMES:
            raise bad_event(1, f"{game!r} is not a game this service plays ({', '.join(GAMES)})")
        stored: list[StoredEvent] = []
        actors: dict[int, str] = {}
        for number, event in enumerate(events, start=1):
            stored.append(self.rebuild_event(campaign_id, str(game), number, event))
            actor = event.get("actor")
            if actor is not None:
                if not isinstance(actor, str) or has_control_characters(actor):
                    raise bad_event(number, "its actor must be a string (no control characters)")
                actors[number] = actor
        return stored, actors

    def rebuild_event(self, campaign_id: UUID, game: str, number: int, event: Any) -> StoredEvent:
        """One public event (``GET /events``) as its stored row, or a 422 naming its version."""
        if not isinstance(event, Mapping) or event.get("version") != number:
            raise bad_event(number, f"version {number} is missing")
        topic = event.get("type")
        event_class = event_class_of(game, topic) if isinstance(topic, str) else None
        if event_class is None:
            raise bad_event(number, f"{topic!r} is not an event type of a {game} campaign")
        if (event_class is Campaign.Created) != (number == 1):
            raise bad_event(number, f"only version 1 is a {Campaign.Created.TOPIC}")
        data = event.get("data")
        if not isinstance(data, Mapping):
            raise bad_event(number, "its data must be an object")
        fields = {k: v for k, v in data.items() if k not in (*ENVELOPE, "timestamp")}
        class_version = fields.pop("class_version", None)
        fields.update(
            timestamp=_timestamp(number, event.get("timestamp")),
            prev_hash=event.get("prev_hash"),
            hash=event.get("hash"),
        )
        # The order the code stores an event's fields in: its class's, as the mapper writes them.
        declared = [f.name for f in dataclasses.fields(event_class) if f.name not in ENVELOPE]
        state = {name: fields.pop(name) for name in declared if name in fields}
        state.update(fields)
        if class_version is not None:
            state["class_version"] = class_version
        try:
            state_bytes = encoded(self.app.mapper, state)
        except (TypeError, ValueError) as error:
            raise bad_event(number, f"its data cannot be stored: {error}") from None
        return StoredEvent(
            originator_id=campaign_id,
            originator_version=number,
            topic=str(topic),
            state=state_bytes,
        )

    def local_head(self, campaign_id: UUID, events: Sequence[Mapping[str, Any]]) -> int:
        """The version this instance holds the campaign at (0: not at all), if the bundle
        extends it; a 409 naming the first version where they differ, if not."""
        local = self.reading.event_records(campaign_id)
        for record in local:
            version = record["version"]
            if version > len(events):
                raise RuleViolation(
                    CAMPAIGN_EXISTS,
                    f"campaign {campaign_id} already holds every event of the bundle here, and "
                    f"more: it is at version {len(local)}, the bundle ends at version "
                    f"{len(events)}; nothing was stored",
                )
            if record["hash"] != events[version - 1].get("hash"):
                raise RuleViolation(
                    CAMPAIGN_EXISTS,
                    f"campaign {campaign_id} already exists here and differs from the bundle "
                    f"at version {version}; nothing was stored",
                )
        if local and len(local) == len(events):
            raise RuleViolation(
                CAMPAIGN_EXISTS,
                f"campaign {campaign_id} already holds every event of the bundle here (head "
                f"version {len(events)}); nothing was stored",
            )
        return len(local)

    def _insert(self, rows: list[StoredEvent], **side_rows: Any) -> None:
        """Store the rows and their side rows in one transaction; a failure stores nothing."""
        attempt = uuid4().hex
        try:
            self.app.recorder.insert_events(rows, attempt=attempt, **side_rows)
        except IntegrityError:
            raise ConcurrencyConflict(
                f"Campaign {rows[0].originator_id} was written here while the import ran; "
                "nothing was stored. Import again."
            ) from None
        except TRANSIENT_ERRORS as error:
            if never_sent(error) or server_refused(error):
                raise unavailable(error, stored=False) from error
            try:
                stored = self.app.side_tables.attempt_stored(attempt)
            except TRANSIENT_ERRORS as lookup_error:
                raise unavailable(error, stored=None) from lookup_error
            if not stored:
                raise unavailable(error, stored=False) from error


HEX_64 = re.compile(r"[0-9a-f]{64}")


def event_problem(event: Any, game: str) -> str | None:
    """Why an event from a bundle is not one this code could have stored, or None.

    The chain proves only that the source stored it; what this instance stores must also be
    what its own commands could have written, or later reads of the campaign would fail. So each
    event's fields are held to their declared types (a game event's ``details`` to its game's
    declaration), its rolls to the shape of a roll, and the core events' values to the checks
    their commands make.
    """
    if isinstance(event, GameEvent):
        declared = rules_for(game).event_types.get(type(event).__name__)
        if declared is None:
            return f"{type(event).__name__} is not declared by its game"
        try:
            declared.check(event.details)
        except RuntimeError as error:
            return f"its details do not match their declaration: {error}"
    else:
        payload = getattr(type(event), "PAYLOAD", None)
        for field in payload.fields if payload is not None else ():
            value = getattr(event, field.name, None)
            if not json_type_matches(value, field.type):
                return f"{field.name} must be {field.type.replace('|', ' or ')}"
    return _values_problem(event, game) or _rolls_problem(event)


def _values_problem(event: Any, game: str) -> str | None:
    """What a core event holds that its command would have refused, or None."""
    try:
        if isinstance(event, Campaign.Created):
            check_text("name", event.name, MAX_NAME_LENGTH)
            check_text("client_seed", event.client_seed, MAX_CLIENT_SEED_LENGTH)
            rules = book(game).rules
            for key, value in event.house_rules.items():
                rule = rules.get(key)
                if rule is None or rule.check(value) is not None:
                    return f"house rule {key} = {value!r} is not one this service knows"
            if not HEX_64.fullmatch(event.commitment):
                return "its commitment is not 64 lowercase hex digits"
        elif isinstance(event, Campaign.ClientSeedChanged):
            check_text("client_seed", event.client_seed, MAX_CLIENT_SEED_LENGTH)
        elif isinstance(event, Campaign.HouseRuleConfigured):
            rule = book(game).rules.get(event.key)
            if rule is None or rule.check(event.new_value) is not None:
                return f"house rule {event.key} = {event.new_value!r} is not one this service knows"
        elif isinstance(event, Campaign.SeedRotated):
            if not all(
                HEX_64.fullmatch(str(v))
                for v in (event.revealed_seed, event.revealed_commitment, event.commitment)
            ):
                return "its seeds and commitments must be 64 lowercase hex digits"
        elif isinstance(event, Campaign.RolledBack) and not (
            1 <= event.to_version < event.originator_version
        ):
            return f"it rolls back to version {event.to_version}, not an earlier version"
    except InvalidInput as error:
        return error.message
    return None


def _rolls_problem(event: Any) -> str | None:
    """Why a roll record of the event is not the shape of a roll, or None."""
    for record in getattr(event, "rolls", None) or []:
        dice = record.get("dice")
        if record.get("source") not in ("server", "reported"):
            return f"roll {record.get('roll_id')}: its source must be server or reported"
        if not isinstance(dice, list) or not dice or not all(_die_ok(d) for d in dice):
            return f"roll {record.get('roll_id')}: each die must have sides and a face on it"
        if not json_type_matches(record.get("total"), "integer"):
            return f"roll {record.get('roll_id')}: its total must be an integer"
        proof = record.get("proof")
        if record["source"] == "server" and not _proof_ok(proof):
            return f"roll {record.get('roll_id')}: a server roll's proof must be well formed"
    return None


def _die_ok(die: Any) -> bool:
    if not isinstance(die, Mapping):
        return False
    sides, face = die.get("sides"), die.get("face")
    if isinstance(sides, bool) or isinstance(face, bool):
        return False
    if not isinstance(sides, int) or not isinstance(face, int):
        return False
    return sides in ALLOWED_SIDES and 1 <= face <= sides


def _proof_ok(proof: Any) -> bool:
    if not isinstance(proof, Mapping):
        return False
    nonce, entropy = proof.get("nonce"), proof.get("entropy")
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        return False
    return (
        isinstance(proof.get("commitment"), str)
        and HEX_64.fullmatch(proof["commitment"]) is not None
        and isinstance(proof.get("client_seed"), str)
        and (
            entropy is None
            or (isinstance(entropy, str) and bool(dicelib.ENTROPY.fullmatch(entropy)))
        )
    )


def rolls_not_from(events: Sequence[Any], held: Mapping[str, str]) -> list[dict[str, Any]]:
    """The server rolls made under a commitment whose seed this instance holds that the seed
    does not give: only this instance could have drawn them, so the bundle forged them."""
    forged = []
    for event in events:
        for record in getattr(event, "rolls", None) or []:
            proof = record.get("proof") or {}
            seed = held.get(str(proof.get("commitment")))
            if seed is not None and roll_verdict(record, {proof["commitment"]: seed}) is False:
                forged.append(
                    {
                        "version": event.originator_version,
                        "problem": f"roll {record.get('roll_id')} is under commitment "
                        f"{str(proof['commitment'])[:12]}…, whose seed this instance holds, and "
                        "that seed does not give its faces: it was not drawn here",
                    }
                )
    return forged


def app_audit_awaiting(
    rolls: Mapping[str, int], events: Sequence[Any], held: Mapping[str, str]
) -> int:
    """The bundle's server rolls still awaiting a reveal once the held seeds are revealed."""
    now_revealed = sum(
        1
        for event in events
        for record in getattr(event, "rolls", None) or []
        if record.get("source") == "server"
        and (record.get("proof") or {}).get("commitment") in held
    )
    return int(rolls["awaiting_reveal"]) - now_revealed


def _campaign_id(value: object) -> UUID:
    """The bundle's campaign id, a UUID (the events' hashes cover it)."""
    try:
        return UUID(str(value))
    except ValueError:
        raise InvalidInput.field("campaign_id", "must be a campaign id (a UUID)") from None


def _timestamp(number: int, value: object) -> datetime:
    """An event's timestamp back as the datetime stored, written exactly as it was."""
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise bad_event(number, f"its timestamp {value!r} is not ISO 8601") from None
    if moment.tzinfo is None or moment.isoformat() != value:
        raise bad_event(number, f"its timestamp {value!r} is not as this service writes one")
    return moment


def _project(events: Sequence[Any]) -> Campaign:
    """The campaign the events make, or a 422 naming the first that does not apply."""
    campaign: Any = None
    for event in events:
        try:
            campaign = event.mutate(campaign)
        except Exception as error:  # an event from outside may fit no state this code holds
            raise bad_event(
                event.originator_version, f"the event does not apply: {type(error).__name__}"
            ) from None
    assert isinstance(campaign, Campaign)
    return campaign
