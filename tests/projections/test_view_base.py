"""What the base of the views holds a view to: handlers by payload class, rows by column name."""

from __future__ import annotations

from typing import Any

import pytest

from domain.facade import cb_action_events, topic_of
from projections.events import Recorded
from projections.view import ROW_DEFAULTS, View, handles
from projections.views.exhaustion import EXHAUSTION, ExhaustionHistory

ExhaustionChanged = cb_action_events.ExhaustionChanged
ROW = {
    "campaign_id": "c",
    "event_id": 7,
    "n": 0,
    "version": 3,
    "party": "A",
    "night": 1,
    "round": 2,
    "from_value": 0,
    "to_value": 1,
    "cause": "rizz",
    "recorded_at": "2026-12-01T00:00:00+00:00",
}


def test_a_row_is_made_by_column_name_in_the_table_s_order() -> None:
    row = EXHAUSTION.row(**ROW)
    assert row == tuple(
        {**ROW, "eliminations": 0, "eliminated": "[]", **ROW_DEFAULTS}[c] for c in EXHAUSTION.names
    )
    assert EXHAUSTION.row(**{**ROW, "undone_by": 9})[-1] == 9


def test_a_missing_or_unknown_column_is_an_error_naming_it() -> None:
    view = ExhaustionHistory(store=Any, cursor=None)  # type: ignore[arg-type]
    without_party = {k: v for k, v in ROW.items() if k != "party"}
    with pytest.raises(TypeError, match=r"exhaustion.*'party'"):
        view.insert("exhaustion", **without_party)
    with pytest.raises(TypeError, match=r"exhaustion.*'nigth'"):
        view.insert("exhaustion", **ROW, nigth=1)


def test_a_handler_gets_its_event_s_payload_decoded() -> None:
    class Changes(View):
        name = "changes"

        def __init__(self) -> None:
            self.seen: list[ExhaustionChanged] = []

        @handles(ExhaustionChanged)
        def changed(self, event: Recorded, change: ExhaustionChanged) -> None:
            self.seen.append(change)

    details = {"party": "B", "from": 2, "to": 3, "cause": "rizz"}
    event = Recorded(1, "c", 2, topic_of(ExhaustionChanged), "", {"details": details})
    view = Changes()
    Changes._handlers[topic_of(ExhaustionChanged)](view, event)
    assert view.seen == [ExhaustionChanged(party="B", from_=2, to=3, cause="rizz")]


def test_a_handler_of_a_topic_by_name_is_refused() -> None:
    with pytest.raises(TypeError, match="payload class or ANY"):

        class ByName(View):
            @handles("cb.ExhaustionChanged")
            def changed(self, event: Recorded) -> None:
                """A handler of a string topic."""
