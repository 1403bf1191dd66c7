"""Every event type either game (and the campaign itself) declares has a timeline heading in words
in the table page's ``headings.js``; no heading is a bare class name, and none is left over for a
type nobody declares."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.test_summaries import TOPICS

HEADINGS_JS = Path(__file__).resolve().parents[2] / "webapi" / "static" / "headings.js"
ENTRY = re.compile(r'^\s*"([a-z]+\.[A-Za-z]+)": "([^"]+)",$', re.MULTILINE)


def headings() -> dict[str, str]:
    """The page's headings by event type, as headings.js lists them."""
    return dict(ENTRY.findall(HEADINGS_JS.read_text(encoding="utf-8")))


HEADINGS = headings()


@pytest.mark.parametrize("topic", TOPICS)
def test_every_declared_event_type_has_a_heading_in_words(topic: str) -> None:
    assert topic in HEADINGS, f"{topic} has no heading in webapi/static/headings.js"
    heading = HEADINGS[topic]
    name = topic.split(".", 1)[1]
    assert heading != name
    assert not re.fullmatch(r"(?:[A-Z][a-z]+){2,}", heading), heading
    assert heading[0].isupper() and not heading.endswith(".")


def test_no_heading_is_left_for_an_undeclared_type() -> None:
    assert set(HEADINGS) == set(TOPICS)


def test_a_missing_heading_is_found() -> None:
    assert "qc.NoSuchEvent" not in HEADINGS
    assert len(HEADINGS) == len(TOPICS) > 100
