"""Text from outside: numbers written in ASCII digits, control characters, quoting in messages.

``str.isdigit`` is true of "²" and "٣", which ``int`` refuses or reads; and ``int`` of thousands
of digits is slow or refused. Numbers in headers, ids and cursors are therefore read here, from
ASCII digits only and at most ``MAX_DIGITS`` of them.
"""

from __future__ import annotations

import re

from domain.model.errors import InvalidInput

MAX_DIGITS = 18
"""The most digits a number in text may have (any 18 digits fit a 64-bit integer)."""
MAX_NAME_LENGTH = 200
"""The longest name of a campaign or a token."""
QUOTE_LIMIT = 200
"""How much of a value an error message quotes; longer values end in an ellipsis."""
_DIGITS = re.compile(r"[0-9]+")
# Unicode category Cc is exactly U+0000-U+001F and U+007F-U+009F.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINE_BREAKS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def ascii_number(text: str, max_digits: int = MAX_DIGITS) -> int | None:
    """The whole number ``text`` is written as in ASCII digits (at most ``max_digits``), or None."""
    if len(text) > max_digits or not _DIGITS.fullmatch(text):
        return None
    return int(text)


def has_control_characters(text: str, *, free_text: bool = False) -> bool:
    """Whether ``text`` holds a control character (Unicode Cc); free text may hold tabs and line
    breaks (\\t, \\n, \\r), never NUL."""
    pattern = _CONTROL_BUT_LINE_BREAKS if free_text else _CONTROL
    return pattern.search(text) is not None


def check_characters(field: str, text: str, *, free_text: bool = False) -> None:
    """Refuse a control character in a field (422 naming it)."""
    if has_control_characters(text, free_text=free_text):
        allowed = " other than tab, line feed and carriage return" if free_text else ""
        raise InvalidInput.field(field, f"must not contain control characters{allowed}")


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A value as an error message quotes it: its repr, cut to ``limit`` characters with '…'."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


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
