"""Every event type declares its payload, and a game can only emit what it declared."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from domain.model.campaign import Campaign
from domain.model.chain import ENVELOPE_FIELDS
from domain.model.engine import PAYLOAD_TYPES, Context, Figures, GameRules, event_type
from domain.model.games import RULES

COMMAND_FIELDS = {"command_id", "command_versions"}


class NoDice:
    def draw(self, sides: Any) -> Any:
        raise AssertionError("no dice here")


def game() -> GameRules:
    rules = GameRules("test")
    rules.declare(
        event_type(
            "Paid",
            "Credits were paid.",
            {"amount": "integer: credits paid", "shop_id": "string?: the shop, when in one"},
        )
    )
    return rules


def context(rules: GameRules) -> Context:
    return Context({}, {}, NoDice(), declared=rules.event_types)


def test_details_that_match_the_declaration_are_emitted() -> None:
    ctx = context(game())
    ctx.emit("Paid", amount=3)
    ctx.emit("Paid", amount=3, shop_id="s1")
    assert [e.details for e in ctx.close()] == [{"amount": 3}, {"amount": 3, "shop_id": "s1"}]


@pytest.mark.parametrize(
    ("event", "details", "message"),
    [
        ("Bought", {"amount": 3}, "not a declared event type"),
        ("Paid", {"amount": 3, "price": 4}, "undeclared field(s) ['price']"),
        ("Paid", {"shop_id": "s1"}, "without declared field(s) ['amount']"),
    ],
)
def test_an_undeclared_type_or_field_or_a_missing_field_is_a_programming_error(
    event: str, details: dict[str, Any], message: str
) -> None:
    with pytest.raises(RuntimeError, match=re.escape(message)):
        context(game()).emit(event, **details)


@pytest.mark.parametrize(
    "fields",
    [{"amount": "integer"}, {"amount": "money: credits"}, {"amount": "integer: "}],
)
def test_a_field_is_declared_with_a_json_type_and_a_description(fields: dict[str, str]) -> None:
    with pytest.raises(RuntimeError, match="type: description"):
        event_type("Paid", "Credits were paid.", fields)


def test_a_type_is_declared_once_or_again_the_same() -> None:
    rules = game()
    rules.declare(rules.event_types["Paid"])
    with pytest.raises(RuntimeError, match="twice"):
        rules.declare(event_type("Paid", "Paid again.", {"amount": "integer: credits"}))


def test_a_payload_version_above_1_needs_its_upcasters() -> None:
    with pytest.raises(RuntimeError, match="upcaster"):
        event_type("Paid", "Credits were paid.", {"amount": "integer: credits"}, version=2)


@pytest.mark.parametrize("event_class", Campaign.EVENT_TYPES, ids=lambda c: c.TOPIC)
def test_each_campaign_event_declares_exactly_the_fields_it_stores(event_class: Any) -> None:
    stored = {f.name for f in dataclasses.fields(event_class)}
    declared = [f.name for f in event_class.PAYLOAD.fields]
    assert set(declared) == stored - ENVELOPE_FIELDS - COMMAND_FIELDS
    assert len(declared) == len(set(declared))
    assert event_class.PAYLOAD.version == getattr(event_class, "class_version", 1)


@pytest.mark.parametrize("game_name", sorted(RULES))
def test_every_game_event_type_declares_a_described_payload(game_name: str) -> None:
    declared = RULES[game_name].event_types
    assert declared
    for name, payload in declared.items():
        assert payload.name == name and payload.summary.endswith(".")
        for field in payload.fields:
            assert set(field.type.split("|")) <= PAYLOAD_TYPES and field.description


def test_an_event_records_the_tracked_figures_it_changed_with_their_values_after() -> None:
    figures = Figures(
        {"hero.hp": "integer|null: hit points", "party.<player>.gold": "integer: gold"},
        lambda state: {
            "hero.hp": "/hero/hp",
            **{f"party.{p}.gold": f"/parties/{p}/gold" for p in state.get("parties", {})},
        },
    )
    ctx = Context(
        {"hero": {"hp": 5}, "parties": {"A": {"gold": 1}, "B": {"gold": 2}}},
        {},
        NoDice(),
        declared=game().event_types,
        figures=figures,
    )
    ctx.state["hero"]["hp"] = 3
    ctx.emit("Paid", amount=1)
    ctx.emit("Paid", amount=0)
    ctx.state["hero"] = None
    del ctx.state["parties"]["B"]
    ctx.state["parties"]["A"]["gold"] = 0
    ctx.emit("Paid", amount=1)

    assert [e.figures for e in ctx.close()] == [
        {"hero.hp": 3},
        {},
        {"hero.hp": None, "party.A.gold": 0, "party.B.gold": None},
    ]


@pytest.mark.parametrize("game_name", sorted(RULES))
def test_every_game_declares_its_tracked_figures(game_name: str) -> None:
    figures = RULES[game_name].figures
    assert figures is not None and figures.fields
    for text in figures.fields.values():
        kind, _, description = text.partition(": ")
        assert set(kind.split("|")) <= PAYLOAD_TYPES and description
