"""What a command answers and counts: its result (``CommandResult``), an earlier release's stored
response, an ``Idempotency-Key``'s record, the per-game counters, and the failure to answer when
the store is unavailable or its disk is full."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from domain.model.campaign import Campaign
from domain.model.errors import (
    StoreUnavailable,
)

DISK_FULL_RETRY_AFTER = 30
log = logging.getLogger("questlog.store")


class CommandCounters:
    """Hooks the service calls as commands are stored and conflicts retried.

    The domain counts nothing itself and knows no metrics library: whoever serves the
    application (the API's ``/metrics``) adds callbacks here and turns each call into a counter.
    A callback must be quick and must not raise; one that does is logged and ignored, because a
    stored command has succeeded whatever its counting does.
    """

    def __init__(self) -> None:
        self.on_stored: list[Callable[[str, Sequence[str]], None]] = []
        """Called with the campaign's game and the stored events' type names, once per command."""
        self.on_conflict: list[Callable[[str], None]] = []
        """Called with the game each time a command is decided again after another writer won."""

    def stored(self, game: str, events: Sequence[str]) -> None:
        """A command of ``game`` stored ``events``."""
        for callback in self.on_stored:
            _call_safely(callback, game, events)

    def conflict(self, game: str) -> None:
        """A command of ``game`` lost its version to another writer and is being retried."""
        for callback in self.on_conflict:
            _call_safely(callback, game)


def _call_safely(callback: Callable[..., None], *args: Any) -> None:
    """Run a counting callback; its failure is logged, never the command's."""
    try:
        callback(*args)
    except Exception:
        log.exception("a command counter failed (the command stands)")


class WriteNotStored(Exception):
    """The store failed during a command's write, and the command is certainly not stored."""


@dataclass(frozen=True)
class Idempotency:
    """An ``Idempotency-Key``: its scope (route and caller), key and request fingerprint.

    ``fingerprint`` covers the request but the player's ``entropy``, which has a fingerprint of
    its own (``entropy``), so that a retry with other entropy is refused by name: a failure must
    never become a reroll.
    """

    scope: str
    key: str
    fingerprint: str
    entropy: str | None = None
    """The fingerprint of the request's entropy, if it carries one."""

    @property
    def stored_fingerprint(self) -> str:
        """What the idempotency row keeps: the request's fingerprint, then the entropy's."""
        return self.fingerprint if self.entropy is None else f"{self.fingerprint}:{self.entropy}"


@dataclass(frozen=True)
class CommandResult:
    """What a command did, in domain facts: the API renders it into a response.

    ``value`` is the command's own facts in plain JSON types (a roll record, the events' facts
    and the state after them, a proposal...). The result is what an ``Idempotency-Key`` stores
    (``stored``), so that a repeated request is answered from the same facts.
    """

    campaign_id: UUID
    first_version: int
    """The version of the first event the command appended."""
    version: int
    """The campaign's version after the command (its last event)."""
    head_hash: str
    value: Any
    replayed: bool = False

    @classmethod
    def of(cls, campaign: Campaign, value: Any) -> CommandResult:
        """The result of a decided command whose events are still pending on ``campaign``."""
        return cls(
            campaign_id=campaign.id,
            first_version=campaign.version - len(campaign.pending_events) + 1,
            version=campaign.version,
            head_hash=campaign.head_hash,
            value=value,
        )

    def stored(self) -> dict[str, Any]:
        """The result as an idempotency row keeps it (JSON)."""
        return {
            "result": {
                "campaign_id": str(self.campaign_id),
                "first_version": self.first_version,
                "version": self.version,
                "head_hash": self.head_hash,
                "value": self.value,
            }
        }


@dataclass(frozen=True)
class EarlierResponse:
    """An idempotency row written by an earlier release, which stored the HTTP response itself
    (``{"status", "body", "headers"}``); it is replayed exactly as stored."""

    response: dict[str, Any]
    replayed: bool = True


Outcome = CommandResult | EarlierResponse
"""What a command answers: its result, or an earlier release's stored response to a replay."""


def stored_outcome(stored: dict[str, Any]) -> Outcome:
    """A replayed outcome from an idempotency row, of this release or an earlier one."""
    result = stored.get("result")
    if not isinstance(result, dict):
        return EarlierResponse(stored)
    return CommandResult(
        campaign_id=UUID(result["campaign_id"]),
        first_version=int(result["first_version"]),
        version=int(result["version"]),
        head_hash=str(result["head_hash"]),
        value=result["value"],
        replayed=True,
    )


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
