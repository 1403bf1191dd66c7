"""A campaign bundle: everything needed to verify a campaign offline, in one JSON file.

``Bundles.build`` writes one from the store; ``check`` verifies one without any store, with the
same chain and roll checks as the audit (``domain.service.audit.public.audit_public_events``);
``Bundles.load`` imports one into this instance after checking it whole
(``domain.service.importing``). ``Questlog.bundles`` is this instance's ``Bundles``. The format
is described in docs/table-page.md ("The bundle"), moving a campaign in docs/moving-campaigns.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from domain.model import chain
from domain.model.errors import InvalidInput
from domain.model.signed_note import NoteError, VerifierKey, parse_verifier_key
from domain.service.audit.checkpoints import CheckpointVerdict, check_checkpoint, hashes_by_version
from domain.service.audit.public import audit_public_events
from domain.service.audit.stored import AuditReport
from domain.service.command_results import CommandResult
from domain.service.commands_service import CommandService
from domain.service.importing import CampaignImport, refusal
from domain.service.reading import Reading

FORMAT = "questlog-bundle/1"
MAX_BUNDLE_BYTES = 64 * 1024 * 1024
"""The largest bundle ``questlog import`` and ``POST /campaigns/import`` take (64 MiB)."""


@dataclass
class BundleCheck:
    """What checking a bundle found: the audit of its events and the bundle's own problems."""

    report: AuditReport
    problems: list[dict[str, Any]] = field(default_factory=list)
    checkpoints: list[CheckpointVerdict] = field(default_factory=list)
    """The verdict on each checkpoint the bundle carries (an older bundle carries none)."""
    keys_source: str | None = None
    """Whose keys checked them: ``given`` (the caller's), ``bundle`` (the bundle's own list,
    which proves only that the bundle is consistent with itself), or None (no checkpoints)."""

    @property
    def ok(self) -> bool:
        """Chain intact, no roll mismatch, the bundle agrees with its events, and every
        checkpoint verifies and is in the chain."""
        return self.report.ok and not self.problems and all(v.ok for v in self.checkpoints)

    def all_problems(self) -> list[dict[str, Any]]:
        """Every problem, the log's first, each with the version it concerns (None: the file),
        then each checkpoint that failed (at the version it names, if it names one)."""
        return [*self.report.problems, *self.problems, *self.checkpoint_problems()]

    def checkpoint_problems(self) -> list[dict[str, Any]]:
        """Each checkpoint that failed, as a problem: its verdict and why."""
        return [
            {
                "version": verdict.checkpoint.version if verdict.checkpoint else None,
                "problem": f"checkpoint ({verdict.verdict}): {verdict.message}",
            }
            for verdict in self.checkpoints
            if not verdict.ok
        ]


def check(bundle: Any, keys: list[VerifierKey] | None = None) -> BundleCheck:
    """Verify a bundle offline: its format, the hash chain, every roll, its head and seeds, and
    its checkpoints against ``keys`` (default: the keys the bundle lists)."""
    if not isinstance(bundle, Mapping) or bundle.get("format") != FORMAT:
        raise ValueError(f"not a Questlog bundle: its format must be {FORMAT!r}")
    events = bundle.get("events")
    if not isinstance(events, list) or not all(isinstance(e, Mapping) for e in events):
        raise ValueError("not a Questlog bundle: 'events' must be a list of events")
    report, revealed = audit_public_events(str(bundle.get("campaign_id")), events)
    result = BundleCheck(report)
    head = bundle.get("head")
    head = head if isinstance(head, Mapping) else {}
    if head.get("version") != report.head_version:
        result.problems.append(
            {
                "version": head.get("version"),
                "problem": f"the head names version {head.get('version')} but the events end "
                f"at version {report.head_version}",
            }
        )
    elif head.get("hash") != report.head_hash:
        result.problems.append(
            {"version": report.head_version, "problem": "the head hash is not the last event's"}
        )
    if bundle.get("revealed_seeds") != revealed:
        result.problems.append(
            {"version": None, "problem": "revealed_seeds are not the seeds the events reveal"}
        )
    check_checkpoints(bundle, events, keys, result)
    return result


def check_checkpoints(
    bundle: Mapping[str, Any],
    events: list[Any],
    keys: list[VerifierKey] | None,
    result: BundleCheck,
) -> None:
    """Check every checkpoint of a bundle: its signature, then the bundle's chain at its version."""
    notes = bundle.get("checkpoints") or []
    if not isinstance(notes, list):
        result.problems.append({"version": None, "problem": "'checkpoints' must be a list"})
        return
    if not notes:
        return
    log_name: str | None = None
    if keys is None:
        result.keys_source = "bundle"
        keys = bundle_keys(bundle, result)
        log_name = bundle.get("log_name") if isinstance(bundle.get("log_name"), str) else None
    else:
        result.keys_source = "given"
    try:
        campaign_id = UUID(str(bundle.get("campaign_id")))
    except ValueError:
        result.problems.append({"version": None, "problem": "campaign_id is not a UUID"})
        return
    hash_at = hashes_by_version(events)
    for note in notes:
        result.checkpoints.append(
            check_checkpoint(
                note if isinstance(note, str) else "",
                keys,
                campaign_id=campaign_id,
                hash_at=hash_at,
                log_name=log_name,
            )
        )


def bundle_keys(bundle: Mapping[str, Any], result: BundleCheck) -> list[VerifierKey]:
    """The verifier keys a bundle lists (a malformed one is a problem of the bundle)."""
    keys: list[VerifierKey] = []
    listed = bundle.get("keys")
    for entry in listed if isinstance(listed, list) else []:
        text = entry.get("key") if isinstance(entry, Mapping) else None
        try:
            keys.append(parse_verifier_key(str(text)))
        except NoteError as error:
            result.problems.append({"version": None, "problem": f"a listed key: {error}"})
    return keys


def checked(bundle: Any, keys: list[VerifierKey] | None = None) -> BundleCheck:
    """``check``, with any failure to read the bundle as a ``ValueError`` saying it is none."""
    try:
        return check(bundle, keys)
    except ValueError as error:
        if str(error).startswith("not a Questlog bundle"):
            raise
        raise _wrong_shape(error) from None
    except (TypeError, AttributeError, KeyError) as error:
        raise _wrong_shape(error) from None


def _wrong_shape(error: Exception) -> ValueError:
    """A value of the wrong shape inside an event (rolls that are no list of objects, say)."""
    return ValueError(f"not a Questlog bundle: an event has a value of the wrong shape ({error})")


class Bundles:
    """The bundles of this instance's campaigns: ``build`` one from the store, ``load`` one from
    another instance (``check`` needs no store: it is this module's function)."""

    def __init__(self, app: CommandService, reading: Reading, imports: CampaignImport) -> None:
        self.app = app
        self.reading = reading
        self.imports = imports

    def build(self, cid: UUID) -> dict[str, Any]:
        """The bundle of a campaign as it is now."""
        app, reading = self.app, self.reading
        found, events = reading.shown_events(cid)
        _, revealed = audit_public_events(str(cid), events)
        ring = app.key_ring.current()
        return {
            "format": FORMAT,
            "campaign_id": str(cid),
            "exported_at": datetime.now(UTC).isoformat(),
            "genesis_hash": chain.GENESIS_HASH,
            "head": {"version": found.version, "hash": found.head_hash},
            "checkpoints": [reading.checkpoint(found.id, found.version, found.head_hash)],
            "log_name": ring.log_name,
            "keys": [listed.as_dict() for listed in ring.keys],
            "revealed_seeds": revealed,
            "events": events,
        }

    def load(
        self, bundle: Any, *, public: bool = False, keys: list[VerifierKey] | None = None
    ) -> CommandResult:
        """Import a bundle from another instance: checked whole first (``check``, its
        checkpoints against ``keys``, default the bundle's own), refused with the first bad
        version and its problem if it does not verify, and then stored unchanged with its
        ``CampaignImported`` event (``domain.service.importing``), which records the source's
        last verified checkpoint, its log name and verifier keys."""
        try:
            found = checked(bundle, keys)
        except ValueError as error:
            raise InvalidInput.field("bundle", str(error)) from None
        if not found.ok:
            raise refusal(found.all_problems(), found.report.first_bad_version)
        return self.imports.load(bundle, public=public, source=source_of(bundle, found))


def source_of(bundle: Mapping[str, Any], found: BundleCheck) -> dict[str, Any]:
    """What the import event records of the source: its log name, its verifier keys, whose keys
    checked its checkpoints, and its last checkpoint (every one verified, or the import would
    have been refused)."""
    notes = [n for n in bundle.get("checkpoints") or [] if isinstance(n, str)]
    versions = [v.checkpoint.version if v.checkpoint else -1 for v in found.checkpoints]
    last = notes[versions.index(max(versions))] if notes and len(versions) == len(notes) else None
    keys = bundle.get("keys")
    listed: list[Any] = keys if isinstance(keys, list) else []
    log_name = bundle.get("log_name")
    return {
        "log_name": log_name if isinstance(log_name, str) else None,
        "verifier_keys": sorted(
            {
                str(k["key"])
                for k in listed
                if isinstance(k, Mapping) and isinstance(k.get("key"), str)
            }
        ),
        "checkpoint": last,
        "checkpoint_keys": found.keys_source,
    }
