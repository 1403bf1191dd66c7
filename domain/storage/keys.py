"""The signing key ring: the service's Ed25519 keys, the current one and the retired ones.

Where the ring is kept (``KeyRing.open``):

- ``QUESTLOG_SIGNING_KEY=<path>`` names a JSON file, on either store;
- else, beside a SQLite store, the file ``<db file>.keys.json``;
- else (PostgreSQL) the table ``questlog_signing_keys`` of the store, so that every worker and
  every host on the store signs with the same key.

The file is written with mode 0600, whole and at once (a temporary file renamed over it). The
ring is made the first time it is needed, with the log name ``QUESTLOG_LOG_NAME`` (else
``questlog-<8 random hex digits>``), which is also every key's name and stays with the ring.

A rotation (``rotate``) retires the current key and adds a new one; every key stays listed with
the dates it was created and retired, so checkpoints signed before still verify. A running
process sees a rotation without a restart: it looks at the file's identity (inode, size and
modification time, one ``stat``) at most every ``FILE_RECHECK_SECONDS`` before a signature, and
re-reads the table at most every ``TABLE_RECHECK_SECONDS``.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import (
    Checkpoint,
    NoteSigner,
    VerifierKey,
    parse_verifier_key,
    valid_name,
)
from domain.storage.store import StoreConfig, file_lock

RING_FORMAT = "questlog-keys/1"
TABLE_RECHECK_SECONDS = 10.0
FILE_RECHECK_SECONDS = 1.0
"""How long a reading of the key file is trusted before it is ``stat``-ed again for a rotation
(signing is on every append: a ``stat`` each time would cost more than the signature's rest)."""
"""How stale a worker's copy of a ring kept in the store's table may be (after a rotation)."""


class KeyRingError(Exception):
    """The key ring cannot be read, made or rotated; the message says why."""


@dataclass(frozen=True)
class ListedKey:
    """One key of the ring: its verifier key, when it was made and when it was retired."""

    verifier: VerifierKey
    created: str
    retired: str | None

    def as_dict(self) -> dict[str, Any]:
        """The public facts of the key (never the private key)."""
        return {"key": self.verifier.text, "created": self.created, "retired": self.retired}


@dataclass(frozen=True)
class Ring:
    """One reading of the ring: its log name, current signer and every key, oldest first."""

    log_name: str
    signer: NoteSigner
    keys: tuple[ListedKey, ...]

    @classmethod
    def from_json(cls, data: Any) -> Ring:
        """Read a ring from its JSON document."""
        try:
            if data["format"] != RING_FORMAT:
                raise KeyRingError(f"the key ring's format is not {RING_FORMAT!r}")
            log_name = str(data["log_name"])
            listed: list[ListedKey] = []
            signer: NoteSigner | None = None
            for entry in data["keys"]:
                verifier = parse_verifier_key(entry["verifier"])
                listed.append(ListedKey(verifier, str(entry["created"]), entry.get("retired")))
                if entry.get("retired") is None:
                    raw = base64.b64decode(entry["private"], validate=True)
                    signer = NoteSigner(log_name, Ed25519PrivateKey.from_private_bytes(raw))
                    if signer.verifier != verifier:
                        raise KeyRingError("the current private key is not its verifier key's")
        except (KeyError, TypeError, ValueError) as error:
            raise KeyRingError(f"the key ring is not readable: {error}") from None
        if signer is None:
            raise KeyRingError("the key ring has no current key")
        return cls(log_name, signer, tuple(listed))


def new_entry(log_name: str, now: str) -> dict[str, Any]:
    """A fresh key, as the ring's JSON keeps it."""
    private = Ed25519PrivateKey.generate()
    signer = NoteSigner(log_name, private)
    raw = private.private_bytes_raw()
    return {
        "verifier": signer.verifier.text,
        "private": base64.b64encode(raw).decode(),
        "created": now,
        "retired": None,
    }


def new_ring(log_name: str | None) -> dict[str, Any]:
    """A new ring's JSON, with one key."""
    name = log_name or f"questlog-{secrets.token_hex(4)}"
    if not valid_name(name):
        raise KeyRingError(
            f"QUESTLOG_LOG_NAME {name!r} is not a valid key name (no spaces, no '+')"
        )
    return {"format": RING_FORMAT, "log_name": name, "keys": [new_entry(name, now_text())]}


def rotated(data: dict[str, Any]) -> dict[str, Any]:
    """The ring's JSON with its current key retired and a new one current."""
    now = now_text()
    keys = [
        {**entry, "retired": entry.get("retired") or now, "private": None} for entry in data["keys"]
    ]
    return {**data, "keys": [*keys, new_entry(data["log_name"], now)]}


def now_text() -> str:
    """The time now, as the ring writes it (UTC, seconds)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class RingStore(Protocol):
    """Where a ring's JSON is kept."""

    where: str

    def read(self) -> dict[str, Any] | None:
        """The ring's JSON, or None if there is none yet."""

    def changed(self) -> bool:
        """Whether the ring may have changed since it was last read (cheap)."""

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold off every other writer of the ring."""
        yield

    def write(self, data: dict[str, Any]) -> None:
        """Replace the ring's JSON (inside ``exclusive``)."""


class RingFile:
    """A ring kept in a JSON file, mode 0600."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self._seen: tuple[int, int, int] | None = None
        self._checked_at = -FILE_RECHECK_SECONDS

    def _identity(self) -> tuple[int, int, int] | None:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns)

    def read(self) -> dict[str, Any] | None:
        """The file's JSON, or None if the file does not exist."""
        identity = self._identity()
        if identity is None:
            return None
        try:
            data: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise KeyRingError(f"cannot read the key file {self.path}: {error}") from None
        self._seen = identity
        return data

    def changed(self) -> bool:
        """Whether the file is another one, or was written, since it was read (asked of the
        file at most every ``FILE_RECHECK_SECONDS``)."""
        now = time.monotonic()
        if now - self._checked_at < FILE_RECHECK_SECONDS:
            return False
        self._checked_at = now
        return self._identity() != self._seen

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """An exclusive ``flock`` on ``<file>.lock``, across processes."""
        with file_lock(self.path):
            yield

    def write(self, data: dict[str, Any]) -> None:
        """Write a temporary file (0600) and rename it over the ring's file."""
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)


class RingTable:
    """A ring kept in the store's ``questlog_signing_keys`` table (PostgreSQL)."""

    def __init__(self, tables: Any) -> None:
        self.tables = tables
        self.where = "the store's table questlog_signing_keys"
        self._read_at = 0.0

    def read(self) -> dict[str, Any] | None:
        """The table's ring, or None."""
        self._read_at = time.monotonic()
        text = self.tables.signing_ring()
        return None if text is None else dict(json.loads(text))

    def changed(self) -> bool:
        """Whether the last reading is older than ``TABLE_RECHECK_SECONDS``."""
        return time.monotonic() - self._read_at > TABLE_RECHECK_SECONDS

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """The store's setup lock (every process on the store takes it to write the ring)."""
        with self.tables.ring_lock():
            yield

    def write(self, data: dict[str, Any]) -> None:
        """Upsert the ring's one row."""
        self.tables.write_signing_ring(json.dumps(data))


class KeyRing:
    """The signing keys of a store: signs checkpoints with the current key, lists them all.

    The current signer is kept in memory; before each signature the ring's store is asked
    whether it changed (a ``stat``, or nothing within ``TABLE_RECHECK_SECONDS``).
    """

    def __init__(self, store: RingStore, log_name: str | None = None) -> None:
        self.store = store
        self._log_name = log_name
        self._ring: Ring | None = None
        self._lock = threading.Lock()

    @classmethod
    def open(cls, config: StoreConfig, tables: Any) -> KeyRing:
        """The ring of a store, where ``config`` says (see the module's docstring)."""
        store: RingStore
        if config.signing_key is not None:
            store = RingFile(config.signing_key)
        elif config.sqlite_path is not None:
            store = RingFile(config.sqlite_path.with_name(config.sqlite_path.name + ".keys.json"))
        else:
            store = RingTable(tables)
        return cls(store, config.log_name)

    def current(self) -> Ring:
        """The ring as it is now (made if there is none yet)."""
        ring = self._ring
        if ring is not None and not self.store.changed():
            return ring
        # Asked once: the store answers "changed" at most once per recheck interval, so asking
        # again under the lock would say no and keep the old ring. Another thread that reloaded
        # meanwhile has replaced ``self._ring``; then its reading stands.
        with self._lock:
            if self._ring is ring:
                self._ring = self._load()
            assert self._ring is not None
            return self._ring

    def _load(self) -> Ring:
        data = self.store.read()
        if data is None:
            with self.store.exclusive():
                data = self.store.read()
                if data is None:
                    data = new_ring(self._log_name)
                    self.store.write(data)
                    data = self.store.read()
        return Ring.from_json(data)

    def rotate(self) -> Ring:
        """Retire the current key and sign with a new one from now on."""
        with self._lock, self.store.exclusive():
            data = self.store.read() or new_ring(self._log_name)
            self.store.write(rotated(data))
            self._ring = Ring.from_json(self.store.read())
            return self._ring

    @property
    def log_name(self) -> str:
        """The log's name: every checkpoint's first line starts with it; every key bears it."""
        return self.current().log_name

    def verifier_keys(self) -> list[VerifierKey]:
        """Every listed key, current and retired."""
        return [listed.verifier for listed in self.current().keys]

    def sign_checkpoint(self, campaign_id: UUID, version: int, head_hash: str) -> str:
        """The signed checkpoint of a campaign's head."""
        ring = self.current()
        return ring.signer.sign(Checkpoint(ring.log_name, campaign_id, version, head_hash).body())
