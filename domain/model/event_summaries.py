"""Each stored event in words by its topic: the topic's payload class (``payload.payload_class``)
and that class's summary (``domain.model.events.summaries``).

The summaries are registered by payload class, below the campaign; the campaign registers each
stored topic's class (``payload.register_payload``). This module, above it, reads a stored
event's topic as its class, so the API, the page and the CLI summarise an event as
stored (``type`` and ``data``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model import campaign  # noqa: F401  (registers the campaign events' topics)
from domain.model.events import campaign_summaries  # noqa: F401  (registers the campaign events' summaries)
from domain.model.events.payload import payload_class
from domain.model.events.summaries import (
    decoded,
    fallback,
    one_line,
    roll_words,
    summarise_as,
)


def summarise(event: Mapping[str, Any]) -> str:
    """One event as the API shows it (``type`` and ``data``) in one line; never raises."""
    topic = event.get("type")
    return summarise_as(event, payload_class(topic) if isinstance(topic, str) else None)


def summarise_decoded(event: Any) -> str:
    """A decoded domain event in one line."""
    return summarise(decoded(event))


def roll_summary(roll: Mapping[str, Any], event: Mapping[str, Any] | None = None) -> str:
    """A roll in words, and when a game event made it, that event's summary (its outcome):
    ``decode the panel: 11 = 11 (1d20) — INT check …: 11 + 2 = 13 against 12: success``."""
    try:
        line = roll_words(roll)
    except Exception:  # a roll record of an odd shape still gets a line
        return fallback("roll")
    if event is None or not str(event.get("type", "")).startswith(("qc.", "cb.")):
        return one_line(line)
    return one_line(f"{line} — {summarise(event)}")
