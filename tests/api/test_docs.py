"""The generated reference tables in the game docs match the registries (no drift)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webapi import reference

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize(
    ("game", "doc"),
    [("quest-calendar", "quest-calendar.md"), ("calendar-board", "calendar-board.md")],
)
def test_generated_tables_are_up_to_date(game: str, doc: str) -> None:
    path = DOCS / doc
    if not path.exists():
        pytest.fail(f"docs/{doc} is missing")
    text = path.read_text()
    for begin in (reference.COMMANDS_BEGIN, reference.RULES_BEGIN):
        assert begin in text
    assert text == reference.update(game, text), (
        f"run: questlog reference {game} --write docs/{doc}"
    )


def test_events_doc_lists_every_game_event_type() -> None:
    text = (DOCS / "events.md").read_text()
    expected = reference.splice(
        text, reference.EVENTS_BEGIN, reference.EVENTS_END, reference.game_events_markdown()
    )
    assert text == expected, "run: questlog reference quest-calendar --write docs/events.md"
