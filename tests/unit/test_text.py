"""Text from outside: ASCII numbers, control characters and quoting (domain.model.text), and the
view cursors and pointers read with them."""

from __future__ import annotations

import unicodedata

import pytest

from domain.model.patch import resolve
from domain.model.text import MAX_DIGITS, ascii_number, has_control_characters, quoted
from projections.view import split_cursor


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), ("42", 42), ("9" * MAX_DIGITS, int("9" * MAX_DIGITS)), ("007", 7)],
)
def test_ascii_digits_read_as_a_number(text: str, number: int) -> None:
    assert ascii_number(text) == number


@pytest.mark.parametrize(
    "text", ["", "²", "³", "٣", "1²", "-1", "+1", " 1", "1 ", "1_000", "9" * (MAX_DIGITS + 1)]
)
def test_anything_else_is_no_number(text: str) -> None:
    assert ascii_number(text) is None


def test_control_characters_are_exactly_unicode_category_cc() -> None:
    for code in range(0x3000):
        char = chr(code)
        control = unicodedata.category(char) == "Cc"
        assert has_control_characters(f"a{char}b") is control, hex(code)
        in_free_text = control and char not in "\t\n\r"
        assert has_control_characters(f"a{char}b", free_text=True) is in_free_text, hex(code)


def test_a_long_value_is_quoted_cut_short_with_an_ellipsis() -> None:
    assert quoted("abc") == "'abc'"
    long = quoted("x" * 5000)
    assert len(long) == 200 and long.endswith("…")


@pytest.mark.parametrize("cursor", ["²-0", "٣-0", "1-²", "1---1", "-1", "x-1"])
def test_a_view_cursor_of_other_digits_is_refused(cursor: str) -> None:
    with pytest.raises(ValueError, match="not a view cursor"):
        split_cursor(cursor)


def test_a_view_cursor_reads_its_event_id_and_index() -> None:
    assert split_cursor("12-3") == (12, 3)
    assert split_cursor("12--1") == (12, -1)
    assert split_cursor(None) == (0, -1)


def test_a_pointer_into_a_list_takes_ascii_indexes_only() -> None:
    document = {"hero": {"items": ["a", "b", "c"]}}
    assert resolve(document, "/hero/items/2") == "c"
    assert resolve(document, "/hero/items/3") is None
    assert resolve(document, "/hero/items/²") is None
    assert resolve(document, "/hero/items/٣") is None
