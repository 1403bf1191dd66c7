"""Text from outside: numbers written in ASCII digits, control characters, quoting in messages.

``str.isdigit`` is true of "²" and "٣", which ``int`` refuses or reads; and ``int`` of thousands
of digits is slow or refused. Numbers in headers, ids and cursors are therefore read here, from
ASCII digits only and at most ``MAX_DIGITS`` of them.
"""

from __future__ import annotations

import re
from typing import Any

from domain.model.errors import InvalidInput

NOT_UNICODE = "must be valid Unicode text (no lone surrogates)"
"""What a string that UTF-8 cannot encode is told: JSON may escape a lone surrogate ("\\ud800"),
but no hash, store or page can take it."""
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
    if not is_unicode(value):
        raise InvalidInput.field(field, NOT_UNICODE)
    check_characters(field, value, free_text=free_text)


def is_unicode(text: str) -> bool:
    """Whether UTF-8 can encode ``text`` (it holds no lone surrogate, U+D800..U+DFFF)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_key(key: str) -> str:
    """An object's key as a path names it: a code point UTF-8 cannot encode as ``\\udxxx``."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def not_unicode(value: Any, path: str = "") -> dict[str, list[str]]:
    """Every string in a JSON value, an object's keys included, that is not valid Unicode text,
    named by its path as the schemas name fields (``rounds[0].enemy``; ``path`` is the value's
    own name): the check of a whole body, before any field of it is read."""
    found: dict[str, list[str]] = {}
    if isinstance(value, str):
        if not is_unicode(value):
            found[path or "body"] = [NOT_UNICODE]
    elif isinstance(value, dict):
        for key, member in value.items():
            name = shown_key(str(key))
            inner = f"{path}.{name}" if path else name
            if isinstance(key, str) and not is_unicode(key):
                found[inner] = [f"a key {NOT_UNICODE}"]
            found.update(not_unicode(member, inner))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.update(not_unicode(item, f"{path}[{index}]"))
    return found
