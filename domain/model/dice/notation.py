"""Dice notation and roll evaluation: ``parse`` reads "2d6+1", "4d6kh3" or "d%" into a
``DiceExpression``, and ``evaluate`` applies keep-highest/lowest, signs and the modifier to faces
in draw order. Standard library only."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.model.errors import InvalidInput

ALLOWED_SIDES = (4, 6, 8, 10, 12, 20, 100)
MAX_DICE = 100
MAX_MODIFIER = 1000
MAX_NOTATION_LENGTH = 200

_DIE_PATTERN = r"([1-9]|[1-4][0-9]|50)?[dD]([468]|1[02]|20|100|%)([kK][hHlL][1-9])?"
PATTERN = rf"^[+-]?{_DIE_PATTERN}([+-]{_DIE_PATTERN})?([+-][0-9]{{1,3}})?$"
"""Dice notation as the OpenAPI document states it: one or two dice terms of the allowed sides
(at most 50 dice each), then a whole number to add or subtract, such as 2d6+d4-1 or 2d20kh1+5
(``parse`` also reads more terms, spaces and leading zeros, within the same sums)."""
RULES_IN_WORDS = (
    "Dice notation such as 1d6, 2d6+d4-1 or 2d20kh1+5: one or two dice terms, then a whole "
    f"number; at most {MAX_DICE} dice in all, and a keep (kh/kl) no larger than its term's dice."
)
"""What the pattern cannot say: a keep against its term's dice, and the sum of longer forms."""
_SIDES_TEXT = ", ".join(str(s) for s in ALLOWED_SIDES[:-1]) + f" or {ALLOWED_SIDES[-1]}"

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


def is_int(value: object) -> bool:
    """Whether a value is an integer (a bool is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


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
        if not is_int(face) or not 1 <= face <= n:
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
