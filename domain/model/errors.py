"""The one family of errors the domain raises; the web layer maps each to one HTTP status."""

from __future__ import annotations

from typing import Any


class QuestlogError(Exception):
    """Base class of every error the domain raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(QuestlogError):
    """The campaign, roll or version asked for does not exist."""


class NotLoggedYet(QuestlogError):
    """The campaign has no event in a signed checkpoint of the host's log yet: it waits for the
    next one (``retry_after`` seconds at most, when the host publishes on its own)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class InvalidInput(QuestlogError):
    """Malformed input: each key of ``errors`` names a field, each value says what is wrong."""

    def __init__(self, errors: dict[str, list[str]], message: str = "Invalid input.") -> None:
        super().__init__(message)
        self.errors = errors

    @classmethod
    def field(cls, name: str, message: str) -> InvalidInput:
        """One error on one field."""
        return cls({name: [message]}, message=f"{name}: {message}")

    @classmethod
    def of(cls, errors: dict[str, list[str]]) -> InvalidInput:
        """Errors by field; a single error is also the message, as ``field`` words it."""
        if len(errors) == 1 and len(next(iter(errors.values()))) == 1:
            name, [message] = next(iter(errors.items()))
            return cls.field(name, message)
        return cls(errors)


class RuleViolation(QuestlogError):
    """A game rule forbids the command; ``rule_id`` names it (QC-xx, CB-xx or a core rule).

    ``pending`` is the decision that blocks every other command (its type, who decides and the
    commands accepted now), when that is the reason; ``also`` then names the rule that would
    refuse the command on its own once the decision is made, if one would.
    """

    def __init__(
        self,
        rule_id: str,
        message: str,
        *,
        pending: dict[str, Any] | None = None,
        also: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{rule_id}: {message}")
        self.rule_id = rule_id
        self.reason = message
        self.pending = pending
        self.also = also


class NoSuchDecision(RuleViolation):
    """A command answers a decision that is not the one pending (or none is)."""


class StaleVersion(QuestlogError):
    """The client expected another version than the one stored (If-Match)."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"Expected version {expected}, but the campaign is at version {actual}.")
        self.expected = expected
        self.actual = actual


class ConcurrencyConflict(QuestlogError):
    """Concurrent writers kept winning; the command was not stored and may be sent again."""


class TokenRefused(QuestlogError):
    """The token a request was let in by (from this process's cache of live tokens) was found
    revoked or gone when its append was stored: nothing was stored, and the answer is a 401."""


class StoreUnavailable(QuestlogError):
    """The store failed in a way the client may retry: a lost connection, a database restarting,
    a lock timeout, a full disk.

    ``stored`` says what became of the command: False (nothing was stored), True (it was, but its
    answer could not be built) or None (it could not be found out: retry with the same
    ``Idempotency-Key`` to be safe). ``disk_full`` marks the store's disk as full.
    """

    def __init__(
        self, message: str, *, stored: bool | None, disk_full: bool = False, retry_after: int = 1
    ) -> None:
        super().__init__(message)
        self.stored = stored
        self.disk_full = disk_full
        self.retry_after = retry_after


KNOWN_NAMES = "known-names"
"""The core rule of a command that names what the campaign does not hold (now)."""


class NotHeld(RuleViolation, InvalidInput):
    """A well-formed request names what the campaign or the store does not hold now: a player,
    piece, weapon, item, ability, upgrade, crew member or injury; a version past the head; a
    name already taken. The state refuses it (409, problem ``not-held``, rule ``known-names``),
    not its shape: a 422 is for what the request itself gets wrong, which the OpenAPI document
    states. Like invalid input it names its field (``errors``), so a caller that reads which
    field was wrong reads it the same way."""

    def __init__(self, field: str, message: str) -> None:
        RuleViolation.__init__(self, KNOWN_NAMES, f"{field}: {message}")
        self.errors = {field: [message]}
        self.field_name = field
