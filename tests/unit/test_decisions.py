"""The one pending-decision builder (``domain.model.decisions.ask``) that both games stop with."""

from __future__ import annotations

from typing import Any

from domain.model import calendar_board, decisions, quest_calendar  # noqa: F401 (the games)
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD, QUEST_CALENDAR
from domain.model.rules_engine import Context


class _NoDice:
    def draw(self, sides: Any) -> Any:
        raise AssertionError("no dice here")


def _ctx(game: str = QUEST_CALENDAR) -> Context:
    return Context({"pending": None}, {}, _NoDice(), declared=RULES[game].event_types)


def test_ask_sets_the_pending_decision_and_records_every_field() -> None:
    ctx = _ctx(CALENDAR_BOARD)
    context = {"d4": 3}

    decisions.ask(
        ctx,
        decision="hail",
        who="A",
        rule="CB-28",
        commands=["assign_hail_damage"],
        options=["p1", "p2"],
        context=context,
        step="weather",
    )

    assert ctx.state["pending"] == {
        "decision": "hail",
        "who": "A",
        "rule": "CB-28",
        "commands": ["assign_hail_damage"],
        "options": ["p1", "p2"],
        "context": {"d4": 3},
        "step": "weather",
    }
    assert ctx.state["pending"]["context"] is not context
    (event,) = ctx.close()
    assert event.event_type == "DecisionRequested"
    assert event.details == {
        "decision": "hail",
        "who": "A",
        "rule": "CB-28",
        "options": ["p1", "p2"],
        "context": {"d4": 3},
    }
    assert event.effects[0]["path"] == "/pending"


def test_ask_records_only_the_announced_fields() -> None:
    ctx = _ctx()

    decisions.ask(
        ctx,
        decision="rest_injury",
        who="player",
        rule="QC-52",
        commands=["choose_rest_stat"],
        options=["STR"],
        announce=("decision", "rule", "options"),
    )

    (event,) = ctx.close()
    assert sorted(event.details) == ["decision", "options", "rule"]
    assert ctx.state["pending"]["context"] == {}
    assert "step" not in ctx.state["pending"]


def test_ask_without_announcement_emits_nothing() -> None:
    ctx = _ctx()

    decisions.ask(
        ctx,
        decision="pickpocket_four",
        who="player",
        rule="QC-39",
        commands=["decide_pickpocket"],
        options=["accept", "decline"],
        announce=(),
    )

    assert ctx.events == []
    assert ctx.state["pending"]["decision"] == "pickpocket_four"
