"""Every event type declares its payload, and a game can only emit what it declared."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from domain.model.campaign import Campaign
from domain.model.chain import ENVELOPE_FIELDS
from domain.model.events.payload import (
    ABSENT,
    PAYLOAD_TYPES,
    Absent,
    Payload,
    declaration,
    event,
    fact,
    figure,
)
from domain.model.games import RULES
from domain.model.rules_engine import Context, Figures, GameRules

COMMAND_FIELDS = {"command_id", "command_versions"}


class NoDice:
    def draw(self, sides: Any) -> Any:
        raise AssertionError("no dice here")


@event
class Paid(Payload):
    """Credits were paid."""

    amount: int = fact("credits paid")
    shop_id: str | Absent = fact("the shop, when in one", default=ABSENT)
    from_: int | None = fact("credits before", default=None, stored_as="from")


@event
class Bought(Payload):
    """Something was bought."""

    item: str = fact("the item")


def game() -> GameRules:
    rules = GameRules("test")
    rules.declare(Paid)
    return rules


def context(rules: GameRules) -> Context:
    return Context({}, {}, NoDice(), declared=rules.event_types)


def test_details_that_match_the_declaration_are_emitted() -> None:
    ctx = context(game())
    ctx.emit(Paid(amount=3))
    ctx.emit(Paid(amount=3, shop_id="s1", from_=4))
    assert [e.details for e in ctx.close()] == [
        {"amount": 3, "from": None},
        {"amount": 3, "shop_id": "s1", "from": 4},
    ]
    assert [e.event_type for e in context(game()).events] == []


def test_an_undeclared_type_or_a_value_of_the_wrong_type_is_a_programming_error() -> None:
    with pytest.raises(RuntimeError, match="not a declared event type"):
        context(game()).emit(Bought(item="x"))
    with pytest.raises(RuntimeError, match=re.escape("Paid.amount is declared integer")):
        context(game()).emit(Paid(amount="3"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="price"):
        Paid(amount=3, price=4)  # type: ignore[call-arg]


def test_a_payload_is_declared_from_its_class() -> None:
    declared = declaration(Paid)
    assert (declared.name, declared.summary, declared.version) == ("Paid", "Credits were paid.", 1)
    assert [(f.name, f.type, f.optional) for f in declared.fields] == [
        ("amount", "integer", False),
        ("shop_id", "string", True),
        ("from", "integer|null", False),
    ]


def test_every_fact_is_described_and_of_a_json_type() -> None:
    @event
    class Undescribed(Payload):
        """Something happened."""

        amount: int = fact("")

    @event
    class NotJson(Payload):
        """Something happened."""

        when: complex = fact("when")

    with pytest.raises(RuntimeError, match="fact\\('what it means'\\)"):
        declaration(Undescribed)
    with pytest.raises(RuntimeError, match="not a JSON type"):
        declaration(NotJson)


def test_a_type_is_declared_once_or_again_the_same() -> None:
    rules = game()
    rules.declare(Paid)

    @event
    class Paid2(Payload):
        """Paid again."""

        amount: int = fact("credits")

    Paid2.__name__ = "Paid"
    with pytest.raises(RuntimeError, match="twice"):
        rules.declare(Paid2)


def test_a_payload_version_above_1_needs_its_upcasters() -> None:
    @event
    class Paid3(Payload):
        """Credits were paid."""

        VERSION = 2
        amount: int = fact("credits")

    with pytest.raises(RuntimeError, match="upcaster"):
        declaration(Paid3)


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
        assert payload.cls is not None and payload.cls.__name__ == name
        for field in payload.fields:
            assert set(field.type.split("|")) <= PAYLOAD_TYPES and field.description


def test_an_event_records_the_tracked_figures_it_changed_with_their_values_after() -> None:
    figures = Figures(
        (figure("hero.hp", int | None, "hit points"), figure("party.<player>.gold", int, "gold")),
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
    ctx.emit(Paid(amount=1))
    ctx.emit(Paid(amount=0))
    ctx.state["hero"] = None
    del ctx.state["parties"]["B"]
    ctx.state["parties"]["A"]["gold"] = 0
    ctx.emit(Paid(amount=1))

    assert [e.figures for e in ctx.close()] == [
        {"hero.hp": 3},
        {},
        {"hero.hp": None, "party.A.gold": 0, "party.B.gold": None},
    ]


@pytest.mark.parametrize("game_name", sorted(RULES))
def test_every_game_declares_its_tracked_figures(game_name: str) -> None:
    figures = RULES[game_name].figures
    assert figures is not None and figures.fields
    for each in figures.fields:
        assert set(each.type.split("|")) <= PAYLOAD_TYPES and each.description


def test_the_payload_class_docs_events_md_shows_is_the_code() -> None:
    """docs/events.md quotes ``VirtueChanged`` from page_events.py: each line it shows is there."""
    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs/events.md").read_text(encoding="utf-8")
    block = doc.split("```python\n@event\nclass VirtueChanged(Payload):", 1)[1].split("```", 1)[0]
    source = (root / "domain/model/quest_calendar/page_events.py").read_text(encoding="utf-8")
    shown = [line for line in block.splitlines() if line.strip() not in ("", "...")]
    assert shown and all(line in source.splitlines() for line in shown), shown


def test_a_payload_decodes_from_what_it_stored() -> None:
    """``decode`` is ``details``' inverse: stored keys back to names, absent facts ABSENT."""
    paid = Paid(amount=3, from_=5)
    assert paid.details() == {"amount": 3, "from": 5}
    assert Paid.decode(paid.details()) == paid
    assert Paid.decode({"amount": 3, "shop_id": "s1", "later": True}).shop_id == "s1"
    assert Paid.decode({"amount": 3}).shop_id is ABSENT


def test_a_stored_shape_that_is_not_the_class_s_does_not_decode() -> None:
    with pytest.raises(TypeError):
        Paid.decode({"from": 5})
    with pytest.raises(ValueError, match=r"Paid\.amount"):
        Paid.decode({"amount": "three"})


def test_every_stored_topic_names_its_payload_class() -> None:
    """Each campaign event type and each game's event type maps to its payload class and back."""
    from domain.model.events.payload import payload_class, topic_of

    for event_class in Campaign.EVENT_TYPES:
        declared = event_class.PAYLOAD.cls
        assert declared is not None
        assert payload_class(topic_of(declared)) is declared
    for prefix, rules in (("qc", RULES["quest-calendar"]), ("cb", RULES["calendar-board"])):
        for name, declared_type in rules.event_types.items():
            assert declared_type.cls is not None
            assert topic_of(declared_type.cls) == f"{prefix}.{name}"
            assert payload_class(f"{prefix}.{name}") is declared_type.cls
    assert payload_class("qc.NoSuchEvent") is None
