"""Dice: notation, the verifiable server draw, hand-rolled (reported) faces and roll evaluation.

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

ALLOWED_SIDES = (4, 6, 8, 10, 12, 20, 100)
MAX_DICE = 100
MAX_MODIFIER = 1000
MAX_NOTATION_LENGTH = 200

_SIDES_TEXT = ", ".join(str(s) for s in ALLOWED_SIDES[:-1]) + f" or {ALLOWED_SIDES[-1]}"
_WORD_SPACE = 2**32
_HEX_SEED = re.compile(r"[0-9a-f]{64}")
ENTROPY = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The player's entropy: 1 to 64 characters from ``[A-Za-z0-9_-]``, chosen when rolling."""

# Tokens are signs and "words" (runs of anything but whitespace and signs); each word must then be
# a die or a number in full, so whitespace can separate terms but never split one.
_TOKEN = re.compile(r"[+-]|[^\s+-]+")
_DIE = re.compile(r"([0-9]*)d([0-9]+|%)(?:(kh|kl)([0-9]+))?", re.ASCII | re.IGNORECASE)
_NUMBER = re.compile(r"[0-9]+")
_DIE_WITHOUT_SIDES = re.compile(r"[0-9]*d", re.ASCII | re.IGNORECASE)
_KEEP_WITHOUT_COUNT = re.compile(r"[0-9]*d[0-9]+k[hl]", re.ASCII | re.IGNORECASE)


# --- notation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiceTerm:
    """``NdS`` with an optional keep-highest/keep-lowest, added (sign +1) or subtracted (-1)."""

    count: int
    sides: int
    sign: int
    keep: str | None = None
    keep_count: int | None = None

    @property
    def notation(self) -> str:
        """This term without its sign, in canonical spelling (e.g. ``2d20kh1``)."""
        keep = f"{self.keep}{self.keep_count}" if self.keep is not None else ""
        return f"{self.count}d{self.sides}{keep}"


@dataclass(frozen=True)
class DiceExpression:
    """A parsed roll: its dice terms in written order, the summed flat modifier, canonical text."""

    terms: tuple[DiceTerm, ...]
    modifier: int
    notation: str

    @property
    def sides(self) -> list[int]:
        """The sides of every die in draw order (``2d6+d4-1`` gives ``[6, 6, 4]``)."""
        return [term.sides for term in self.terms for _ in range(term.count)]


def _bad(message: str) -> InvalidInput:
    return InvalidInput.field("dice", message)


def _canonical(terms: Sequence[DiceTerm], modifier: int) -> str:
    parts = []
    for index, term in enumerate(terms):
        sign = "-" if term.sign < 0 else ("+" if index else "")
        parts.append(sign + term.notation)
    if modifier:
        parts.append(f"{modifier:+d}")
    return "".join(parts)


def _die_term(word: str, sign: int) -> DiceTerm | None:
    match = _DIE.fullmatch(word)
    if match is None:
        return None
    count_text, sides_text, keep, keep_text = match.groups()
    count = int(count_text) if count_text else 1
    sides = 100 if sides_text == "%" else int(sides_text)  # d% is the d100 (G-QC-02)
    if sides not in ALLOWED_SIDES:
        raise _bad(f"{word}: a die must have {_SIDES_TEXT} sides")
    if count < 1:
        raise _bad(f"{word}: roll at least one die")
    if count > MAX_DICE:
        raise _bad(f"{word}: at most {MAX_DICE} dice in one roll, this term asks for {count}")
    keep_count = None
    if keep is not None:
        keep = keep.lower()
        keep_count = int(keep_text)
        if keep_count < 1:
            raise _bad(f"{word}: keep at least one die")
        if keep_count > count:
            raise _bad(f"{word}: cannot keep {keep_count} of {count} dice")
    return DiceTerm(count=count, sides=sides, sign=sign, keep=keep, keep_count=keep_count)


def _unknown_word(word: str) -> InvalidInput:
    if _DIE_WITHOUT_SIDES.fullmatch(word):
        return _bad(f"{word}: say how many sides the die has, e.g. {word}6")
    if _KEEP_WITHOUT_COUNT.fullmatch(word):
        return _bad(f"{word}: say how many dice to keep, e.g. {word}1")
    return _bad(f"{word}: not a die (such as d20, 2d6 or 2d20kh1) or a whole number")


def parse(notation: str) -> DiceExpression:
    """Parse dice notation such as ``2d6+d4-1`` or ``2d20kh1+5``; refuse anything else."""
    if not isinstance(notation, str):
        raise _bad("dice notation must be a string such as d20+3")
    if len(notation) > MAX_NOTATION_LENGTH:
        raise _bad(f"the notation is longer than {MAX_NOTATION_LENGTH} characters")
    tokens = [(match.start(), match.group()) for match in _TOKEN.finditer(notation)]
    if not tokens:
        raise _bad("the notation is empty; write dice such as d20+3")

    terms: list[DiceTerm] = []
    modifier = 0
    total_dice = 0
    sign: str | None = None  # the sign waiting for its term
    previous: str | None = None  # the last term read, for "missing sign" messages
    for position, token in tokens:
        if token in "+-":
            if sign is not None:
                raise _bad(
                    f"{notation.strip()}: '{token}' at position {position + 1} comes right after "
                    "another sign"
                )
            sign = token
            continue
        if previous is not None and sign is None:
            raise _bad(f"{notation.strip()}: put + or - between {previous!r} and {token!r}")
        value = -1 if sign == "-" else 1
        term = _die_term(token, value)
        if term is not None:
            total_dice += term.count
            if total_dice > MAX_DICE:
                raise _bad(f"at most {MAX_DICE} dice in one roll, this notation has {total_dice}")
            terms.append(term)
        elif _NUMBER.fullmatch(token):
            number = int(token)
            if number > MAX_MODIFIER:
                raise _bad(f"{token}: a modifier can be at most {MAX_MODIFIER}")
            modifier += value * number
        else:
            raise _unknown_word(token)
        previous, sign = token, None
    if sign is not None:
        raise _bad(f"{notation.strip()}: the final '{sign}' has nothing after it")
    if not terms:
        raise _bad(f"{notation.strip()}: a roll needs at least one die, such as d20")
    if abs(modifier) > MAX_MODIFIER:
        raise _bad(f"the modifiers add up to {modifier}; the limit is \u00b1{MAX_MODIFIER}")
    return DiceExpression(
        terms=tuple(terms), modifier=modifier, notation=_canonical(terms, modifier)
    )


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
        yield from struct.unpack(">8I", hmac.new(key, message, hashlib.sha256).digest())
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
    words = _words(key, client_seed, nonce, entropy)
    faces = []
    for n in _check_sides(sides):
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
    (through ``domain.service.audit.roll_verdict``).
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


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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


# --- evaluation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RollOutcome:
    """Each die in draw order as ``{"sides", "face", "kept"}``, the flat modifier and the total."""

    dice: list[dict[str, Any]]
    modifier: int
    total: int


def _kept(term: DiceTerm, faces: Sequence[int]) -> list[bool]:
    if term.keep is None or term.keep_count is None:
        return [True] * len(faces)
    # Among equal faces the earliest drawn is kept, so the order of the sort key is the tie rule.
    if term.keep == "kh":
        order = sorted(range(len(faces)), key=lambda i: (-faces[i], i))
    else:
        order = sorted(range(len(faces)), key=lambda i: (faces[i], i))
    chosen = set(order[: term.keep_count])
    return [i in chosen for i in range(len(faces))]


def evaluate(expression: DiceExpression, faces: Sequence[int]) -> RollOutcome:
    """Apply keep-highest/lowest, signs and the modifier to faces given in draw order."""
    sides = expression.sides
    if len(faces) != len(sides):
        raise ValueError(f"{expression.notation} needs {len(sides)} faces, got {len(faces)}")
    for n, face in zip(sides, faces, strict=True):
        if not _is_int(face) or not 1 <= face <= n:
            raise ValueError(f"{face!r} is not a face of a d{n}")
    dice: list[dict[str, Any]] = []
    total = expression.modifier
    start = 0
    for term in expression.terms:
        term_faces = list(faces[start : start + term.count])
        start += term.count
        for face, kept in zip(term_faces, _kept(term, term_faces), strict=True):
            dice.append({"sides": term.sides, "face": face, "kept": kept})
            if kept:
                total += term.sign * face
    return RollOutcome(dice=dice, modifier=expression.modifier, total=total)
