"""Long campaigns shared by the page benchmark and the browser tests."""

from __future__ import annotations

from uuid import UUID

from domain.service.questlog import Questlog

LONG_EVENTS = 10_000
"""The size of campaign the page must open quickly, loading only what it shows."""


def long_campaign(app: Questlog, events: int) -> UUID:
    """A campaign of ``events`` events: server rolls, the seed revealed half-way."""
    cid = app.campaigns.create_campaign(
        game="quest-calendar", name="Ten thousand events"
    ).campaign_id
    for n in range(events - 2):
        if n == events // 2:
            app.dice.rotate_seed(cid)
        else:
            app.dice.roll(cid, notation="d20", purpose=f"roll {n + 1}")
    app.dice.roll(cid, notation="2d6", purpose="the last roll")
    return cid
