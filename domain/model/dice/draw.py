"""Dice: the verifiable server draw and hand-rolled (reported) faces (notation and evaluation are
in ``domain.model.dice.notation``).

The server draw is the public algorithm of docs/dice-verification.md: anyone holding the revealed
seed, the client seed and the nonce can derive a roll's faces again. Standard library only.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from domain.model.errors import InvalidInput

_WORD_SPACE = 2**32
_HEX_SEED = re.compile(r"[0-9a-f]{64}")
ENTROPY = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The player's entropy: 1 to 64 characters from ``[A-Za-z0-9_-]``, chosen when rolling."""


# --- the verifiable server draw -------------------------------------------------------------


@dataclass(frozen=True)
class Draw:
    """The faces of one roll in draw order, where they came from, and the proof of a server roll."""

    faces: list[int]
    source: str  # "server" | "reported"
    proof: dict[str, Any] | None
    raw: list[Any] | None = None
    """The faces as the player reported them, where a reading differs (QC-08, QC-09): a lone
    d10's 0 (read 10), a d100's ``{"tens", "units"}`` pair."""


class DiceSource(Protocol):
    """Anything that rolls dice; one call is one roll (one nonce for the server)."""

    def draw(self, sides: Sequence[int]) -> Draw:
        """Roll one die per entry of ``sides``, in that order."""
        ...


def new_server_seed() -> str:
    """A fresh secret server seed: 32 bytes from ``secrets`` as 64 lowercase hex digits."""
    return secrets.token_hex(32)


def new_client_seed() -> str:
    """A fresh default client seed: 16 lowercase hex digits."""
    return secrets.token_hex(8)


def _seed_bytes(server_seed_hex: str) -> bytes:
    # bytes.fromhex would also take upper case and spaces; a seed has exactly one spelling.
    if not isinstance(server_seed_hex, str) or not _HEX_SEED.fullmatch(server_seed_hex):
        raise ValueError("a server seed is exactly 64 lowercase hex digits")
    return bytes.fromhex(server_seed_hex)


def commitment_of(server_seed_hex: str) -> str:
    """The public commitment to a seed: SHA-256 of its 32 bytes, in hex."""
    return hashlib.sha256(_seed_bytes(server_seed_hex)).hexdigest()


def _check_sides(sides: Sequence[int]) -> list[int]:
    checked = list(sides)
    for n in checked:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= _WORD_SPACE:
            raise ValueError(f"a die has 1..2**32 sides, not {n!r}")
    return checked


def _check_client_seed_and_nonce(client_seed: str, nonce: int) -> None:
    if not isinstance(client_seed, str):
        raise ValueError("the client seed is a string")
    try:
        client_seed.encode()
    except UnicodeEncodeError:
        raise ValueError("the client seed must be valid UTF-8 text (no lone surrogates)") from None
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise ValueError(f"the nonce is a whole number >= 0, not {nonce!r}")


def check_entropy(entropy: object) -> str:
    """The player's entropy, checked: 1 to 64 characters from ``[A-Za-z0-9_-]``."""
    if not isinstance(entropy, str) or not ENTROPY.fullmatch(entropy):
        raise InvalidInput.field(
            "entropy", "must be 1 to 64 characters, each a letter, a digit, '_' or '-'"
        )
    return entropy


def _words(key: bytes, client_seed: str, nonce: int, entropy: str | None) -> Iterator[int]:
    suffix = "" if entropy is None else f":{entropy}"
    block = 0
    while True:
        message = f"{client_seed}:{nonce}:{block}{suffix}".encode()
        # hmac.digest: the same HMAC-SHA256 as hmac.new(...).digest(), in one call
        yield from struct.unpack(">8I", hmac.digest(key, message, "sha256"))
        block += 1


def derive_faces(
    server_seed_hex: str,
    client_seed: str,
    nonce: int,
    sides: Sequence[int],
    entropy: str | None = None,
) -> list[int]:
    """The faces of one server roll, by the public algorithm (HMAC-SHA256 stream, rejection).

    With the player's ``entropy``, each HMAC message is ``client_seed:nonce:k:entropy``.
    """
    key = _seed_bytes(server_seed_hex)
    _check_client_seed_and_nonce(client_seed, nonce)
    if entropy is not None and (not isinstance(entropy, str) or not ENTROPY.fullmatch(entropy)):
        raise ValueError("the entropy is 1 to 64 characters from [A-Za-z0-9_-]")
    return _draw(key, client_seed, nonce, _check_sides(sides), entropy)


def _draw(
    key: bytes, client_seed: str, nonce: int, sides: list[int], entropy: str | None
) -> list[int]:
    """The faces of checked dice (``derive_faces`` checks them first)."""
    words = _words(key, client_seed, nonce, entropy)
    faces = []
    for n in sides:
        # Words at or above the largest multiple of n would make the low faces more likely.
        limit = _WORD_SPACE - _WORD_SPACE % n
        x = next(words)
        while x >= limit:
            x = next(words)
        faces.append(x % n + 1)
    return faces


def verify_faces(
    server_seed_hex: str, proof: Mapping[str, Any], sides: Sequence[int], faces: Sequence[int]
) -> bool:
    """Whether a revealed seed matches the proof's commitment and derives exactly these faces.

    The one roll verifier: the audit, the roll routes and the roll log view all come here
    (through ``domain.service.audit.rolls.roll_verdict``).
    """
    try:
        if not hmac.compare_digest(commitment_of(server_seed_hex), str(proof["commitment"])):
            return False
        entropy = proof.get("entropy")
        derived = derive_faces(
            server_seed_hex,
            str(proof["client_seed"]),
            int(proof["nonce"]),
            sides,
            None if entropy is None else str(entropy),
        )
    except (KeyError, TypeError, ValueError):
        return False
    return derived == list(faces)


class SeedVerifier:
    """``verify_faces`` for the many rolls of one audit: each revealed seed's bytes, and whether
    it hashes to the commitment it was revealed for, worked out once instead of once a roll
    (every roll is still derived again from its seed, client seed and nonce)."""

    def __init__(self) -> None:
        self._keys: dict[tuple[str, str], bytes | None] = {}

    def verify(
        self,
        server_seed_hex: str,
        commitment: str,
        client_seed: str,
        nonce: int,
        entropy: str | None,
        sides: Sequence[int],
        faces: Sequence[int],
    ) -> bool:
        """``verify_faces(server_seed_hex, proof, sides, faces)`` for a proof of this
        ``commitment``, ``client_seed``, ``nonce`` and ``entropy`` (absent: None)."""
        key = self._key(server_seed_hex, commitment)
        if key is None:
            return False
        try:
            _check_client_seed_and_nonce(client_seed, nonce)
            if entropy is not None and not ENTROPY.fullmatch(entropy):
                return False
            checked = _check_sides(sides)
        except ValueError:
            return False
        return _draw(key, client_seed, nonce, checked, entropy) == list(faces)

    def _key(self, server_seed_hex: str, commitment: str) -> bytes | None:
        """The seed's bytes if it is a seed and hashes to ``commitment``, else None."""
        pair = (server_seed_hex, commitment)
        if pair not in self._keys:
            try:
                key: bytes | None = _seed_bytes(server_seed_hex)
                matches = hmac.compare_digest(commitment_of(server_seed_hex), commitment)
            except (TypeError, ValueError):  # not a seed; a commitment that is not ASCII
                key, matches = None, False
            self._keys[pair] = key if matches else None
        return self._keys[pair]


class ServerDice:
    """The verifiable dice source: draws from one seed and client seed, one nonce per roll,
    mixing in the player's entropy when one is given (it then goes in every roll's proof)."""

    def __init__(
        self, server_seed_hex: str, client_seed: str, nonce: int, entropy: str | None = None
    ) -> None:
        _check_client_seed_and_nonce(client_seed, nonce)
        self.__seed = server_seed_hex
        self._commitment = commitment_of(server_seed_hex)
        self._client_seed = client_seed
        self._nonce = nonce
        self._entropy = None if entropy is None else check_entropy(entropy)

    @property
    def commitment(self) -> str:
        """The public commitment to this source's seed."""
        return self._commitment

    @property
    def client_seed(self) -> str:
        """The client seed mixed into every draw."""
        return self._client_seed

    @property
    def nonce(self) -> int:
        """The nonce the next draw will use."""
        return self._nonce

    def draw(self, sides: Sequence[int]) -> Draw:
        """Roll the dice with the current nonce, then move the nonce on by one."""
        checked = _check_sides(sides)
        if not checked:
            raise ValueError("a roll needs at least one die")
        nonce = self._nonce
        faces = derive_faces(self.__seed, self._client_seed, nonce, checked, self._entropy)
        self._nonce = nonce + 1
        proof: dict[str, Any] = {
            "commitment": self._commitment,
            "client_seed": self._client_seed,
            "nonce": nonce,
        }
        if self._entropy is not None:
            proof["entropy"] = self._entropy
        return Draw(faces=faces, source="server", proof=proof)

    def __repr__(self) -> str:
        # Never the seed: reprs end up in logs and tracebacks.
        return (
            f"ServerDice(commitment={self._commitment!r}, client_seed={self._client_seed!r}, "
            f"nonce={self._nonce})"
        )


class ScriptedDice:
    """A dice source for tests: hands out the given faces in order and checks each fits its die."""

    def __init__(
        self,
        faces: Iterable[int],
        source: str = "server",
        *,
        commitment: str = "scripted",
        client_seed: str = "scripted",
        nonce: int = 0,
    ) -> None:
        if source not in ("server", "reported"):
            raise ValueError(f"source is 'server' or 'reported', not {source!r}")
        self._faces = list(faces)
        self._source = source
        self._draws = nonce
        self.commitment = commitment
        self.client_seed = client_seed

    @property
    def remaining(self) -> int:
        """How many scripted faces have not been drawn yet."""
        return len(self._faces)

    def draw(self, sides: Sequence[int]) -> Draw:
        """Take the next scripted faces, one per die; nothing is used up if the draw fails."""
        wanted = list(sides)
        if len(wanted) > len(self._faces):
            raise ValueError(
                f"scripted dice ran out: this roll needs {len(wanted)} faces "
                f"({', '.join(f'd{n}' for n in wanted)}), {len(self._faces)} left"
            )
        faces = self._faces[: len(wanted)]
        for index, (n, face) in enumerate(zip(wanted, faces, strict=True)):
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= n:
                raise ValueError(f"scripted face {face!r} (die {index} of this roll) is not 1..{n}")
        del self._faces[: len(wanted)]
        proof = None
        if self._source == "server":
            proof = {
                "commitment": self.commitment,
                "client_seed": self.client_seed,
                "nonce": self._draws,
            }
        self._draws += 1
        return Draw(faces=faces, source=self._source, proof=proof)


# --- faces rolled by hand --------------------------------------------------------------------


def _d100_from_pair(where: str, pair: Mapping[Any, object]) -> int | str:
    """QC-09: tens (00..90) plus units (0..9), with 00 + 0 reading 100; a str is the error."""
    if set(pair) != {"tens", "units"}:
        return f"{where}: a d100 pair has exactly the keys 'tens' and 'units'"
    tens, units = pair["tens"], pair["units"]
    if isinstance(tens, bool) or not isinstance(tens, int) or tens not in range(0, 100, 10):
        return f"{where}: tens {tens!r} is not a face of the tens die (0, 10, 20, ..., 90)"
    if isinstance(units, bool) or not isinstance(units, int) or units not in range(10):
        return f"{where}: units {units!r} is not a face of the units die (0..9)"
    value = tens + units
    return value or 100


def _read_face(where: str, n: int, face: object) -> int | str:
    """One reported face read for a die of n sides; a str is the error message."""
    if n == 100 and isinstance(face, Mapping):
        return _d100_from_pair(where, face)
    if isinstance(face, bool) or not isinstance(face, int):
        shown = "true" if face is True else "false" if face is False else repr(face)
        return f"{where}: {shown} is not a whole number"
    if n == 10 and face == 0:
        return 10  # QC-08: a lone d10 shows 0..9 and the 0 reads 10
    if 1 <= face <= n:
        return face
    if n == 10:
        return f"{where}: {face} is not a face of a d10 (0..9, or 1..10; a 0 reads as 10)"
    if n == 100:
        return (
            f'{where}: {face} is not a face of a d100 (1..100, or {{"tens": 0..90, "units": 0..9}};'
            f" 00 + 0 reads as 100)"
        )
    return f"{where}: {face} is not a face of a d{n} (1..{n})"


def shown_faces(faces: Sequence[object]) -> list[Any]:
    """The reported faces as stored beside their readings: plain JSON copies."""
    return [dict(face) if isinstance(face, Mapping) else face for face in faces]


def read_reported_faces(sides: Sequence[int], faces: Sequence[object]) -> list[int]:
    """Check the faces a player rolled by hand, one per die in draw order, and read them."""
    if isinstance(faces, str | bytes | Mapping) or not isinstance(faces, Sequence):
        raise InvalidInput.field("faces", "give a list of faces, one per die in draw order")
    wanted = list(sides)
    if len(faces) != len(wanted):
        dice = ", ".join(f"d{n}" for n in wanted)
        raise InvalidInput.field(
            "faces",
            f"expected {len(wanted)} face{'s' if len(wanted) != 1 else ''}, one per die in draw "
            f"order ({dice}), got {len(faces)}",
        )
    read: list[int] = []
    errors: list[str] = []
    for index, (n, face) in enumerate(zip(wanted, faces, strict=True)):
        result = _read_face(f"faces[{index}]", n, face)
        if isinstance(result, str):
            errors.append(result)
        else:
            read.append(result)
    if errors:
        raise InvalidInput({"faces": errors}, message="faces: " + "; ".join(errors))
    return read
