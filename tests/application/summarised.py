"""The check the scripted campaigns run at their end: every event and roll reads in words.

Each event the API returns has a ``summary`` of its own type (not the generic fallback
of ``domain.model.events.summaries``), and each roll a ``summary`` too.
"""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient

from domain.model.events.summaries import fallback

CODE_WORDS = re.compile(r"\b(None|True|False)\b|(?<![\w-])\d+-\d+(?![\w-])")
"""What a summary in words never shows: a Python value or a roll
id such as ``72-1`` (a date such as 2026-01-05 is no roll id)."""


def code_words(lines: list[str]) -> list[str]:
    """The lines that show a Python value or a roll id."""
    return [line for line in lines if CODE_WORDS.search(line)]


def check_summaries(client: FlaskClient, campaign_id: str) -> int:
    """Every event and roll of a campaign has its summary; the number of events checked."""
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = client.get(f"/campaigns/{campaign_id}/events?after={after}&limit=1000").get_json()
        events += page["items"]
        after = page["next_after"]
    plain = [e for e in events if e.get("summary") in (None, "", fallback(e["type"]))]
    assert not plain, [(e["version"], e["type"], e["data"].get("details")) for e in plain[:5]]
    rolls = client.get(f"/campaigns/{campaign_id}/rolls?limit=1000").get_json()["items"]
    assert all(isinstance(r["summary"], str) and r["summary"] for r in rolls)
    shown = code_words([e["summary"] for e in events] + [r["summary"] for r in rolls])
    assert not shown, shown[:10]
    return len(events)
