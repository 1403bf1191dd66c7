"""Calendar Board state: the match set-up, parties, pieces and weapons, and shared helpers.

The state is plain JSON in the campaign aggregate. Every piece has a location:
``{"kind": "pathway", "space": n}``, ``{"kind": "home"}``, ``{"kind": "elsewhere"}`` or
``{"kind": "eliminated"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.model import decisions
from domain.model.calendar_board.state_types import Location, Party, Piece, Weapon
from domain.model.errors import InvalidInput, NoSuchDecision, NotHeld, RuleViolation
from domain.model.events.payload import figure
from domain.model.patch import pointer_token
from domain.model.rules_engine import Context, Figures, decision_summary

FACINGS = ("N", "E", "S", "W")
PARTNERS = ("catgirlGirlfriend", "catboyBoyfriend")
WEAPON_KINDS = ("melee", "ranged", "hybrid")
WEATHERS = ("normal", "rain", "snow", "fog", "hail")
LOCATION_KINDS = ("pathway", "home", "elsewhere", "eliminated")


def party_figures(players: Iterable[str]) -> dict[str, str]:
    """The figures of these players' parties, by name, and where the state keeps each."""
    return {f"party.{p}.exhaustion": f"/parties/{pointer_token(p)}/exhaustion" for p in players}


def _figure_places(state: Mapping[str, Any]) -> dict[str, str]:
    parties = state.get("parties")
    if not isinstance(parties, dict):
        return {}
    players = [p for p in state.get("players") or () if p in parties]
    return party_figures(players + sorted(p for p in parties if p not in players))


FIGURES = Figures(
    (figure("party.<player>.exhaustion", int | None, "the exhaustion of a player's party"),),
    _figure_places,
)
"""The figures every Calendar Board event records when it changes them (docs/events.md)."""


def read_piece(loaded: Mapping[str, Any]) -> Piece:
    """A party member: id, location, facing and adaptability modifier."""
    location: Location = {"kind": loaded["location"]["kind"]}
    if location["kind"] == "pathway":
        location["space"] = loaded["location"]["space"]
    return {
        "id": loaded["id"],
        "location": location,
        "facing": loaded["facing"],
        "adaptability": loaded["adaptability"],
        "conditions": [],
    }


def read_weapon(loaded: Mapping[str, Any]) -> Weapon:
    """A weapon: kind, ammunition, capacity, regeneration and the looted flag."""
    return {
        "id": loaded["id"],
        "kind": loaded["kind"],
        "uses_ammo": loaded["uses_ammo"],
        "ammo": loaded["ammo"],
        "ammo_max": loaded["ammo_max"],
        "ammo_regen": loaded["ammo_regen"],
        "looted": loaded["looted"],
    }


def read_player(loaded: Mapping[str, Any]) -> dict[str, Any]:
    """A player and their party."""
    partner = loaded["partner"]
    fate_rerolls = loaded.get("fate_rerolls")  # None: not counted (G-CB-01)
    pieces = [read_piece(piece) for piece in loaded["pieces"]]
    weapons = [read_weapon(weapon) for weapon in loaded["weapons"]]
    return {
        "id": loaded["id"],
        "party": {
            "exhaustion": loaded["exhaustion"],
            "partner": partner,
            "relationship": loaded["relationship"] if partner is not None else None,
            "reactions_locked": False,
            "bonus_locked": False,
            "luck_mod": loaded["luck_mod"],
            "int_mod": loaded["int_mod"],
            "fate_rerolls": fate_rerolls,
            "fate_rerolls_given": fate_rerolls,
            "pieces": {p["id"]: p for p in pieces},
            "weapons": {w["id"]: w for w in weapons},
        },
    }


def party_bounds(
    players: Iterable[Mapping[str, Any]], house: Mapping[str, Any]
) -> Iterable[tuple[str, list[str]]]:
    """The parties of a setup that the house rules bound: exhaustion at most
    ``cb.exhaustion.max`` (CB-34, G-CB-26), a partner's relationship at least
    ``cb.relationship.floor`` (G-CB-06); each by its field's path."""
    most, floor = house["cb.exhaustion.max"], house["cb.relationship.floor"]
    for index, player in enumerate(players):
        if player["exhaustion"] > most:
            yield (
                f"players[{index}].exhaustion",
                [f"must be at most {most} (house rule cb.exhaustion.max, G-CB-26)"],
            )
        if player["partner"] is not None and player["relationship"] < floor:
            yield (
                f"players[{index}].relationship",
                [f"must be at least {floor} (house rule cb.relationship.floor, G-CB-06)"],
            )


def initial_state(setup: Mapping[str, Any], house: Mapping[str, Any]) -> dict[str, Any]:
    """A new match from its loaded ``Setup``: players in seating order, their parties, the token
    holders and options."""
    players = [read_player(raw) for raw in setup["players"]]
    ids = [p["id"] for p in players]
    starting = setup["starting_token"] if setup["starting_token"] is not None else ids[0]
    options = setup["options"]
    event = options["active_event"]
    settings = {
        "ceasefire_rule": options["ceasefire_rule"],
        "event_rules": options["event_rules"],
        "active_event": (
            None
            if event is None
            else {"id": event["id"], "special_weather": event["special_weather"]}
        ),
    }
    creatures = [
        {"id": c["id"], "type": c["type"], "night_active": c["night_active"]}
        for c in setup["creatures"]
    ]
    # These bounds are house rules, so the schema cannot hold them.
    errors = dict(party_bounds(setup["players"], house))
    most = house["cb.annustaria.max"]
    if setup["annustar"] > most:
        errors["annustar"] = [f"must be at most {most}"]
    if errors:
        raise InvalidInput.of(errors)
    return {
        "players": ids,
        "parties": {p["id"]: p["party"] for p in players},
        "creatures": creatures,
        "round": 1,
        "turn": {"player": starting, "started": False, "done": []},
        "starting_token": starting,
        "god_token": starting,  # G-CB-04: the starting-token holder also holds the god token
        "board": {"god_piece": 0, "laps": 0},
        "weather": {"current": "normal", "pending": None},
        "wind": {"speed": "none", "direction": None},
        "ceasefire": 0,
        "annustar": setup["annustar"],
        "options": settings,
        "night": None,
        "nights": 0,
        "pending": None,
    }


# -- helpers ------------------------------------------------------------------------------------


def next_player(state: Mapping[str, Any], player: str) -> str:
    """The seat on the player's right: the next player in turn order (G-CB-04)."""
    players: list[str] = state["players"]
    return players[(players.index(player) + 1) % len(players)]


def turn_order_from(state: Mapping[str, Any], first: str) -> list[str]:
    """Every player once, in turn order, starting with ``first``."""
    players: list[str] = state["players"]
    start = players.index(first)
    return players[start:] + players[:start]


def party(ctx: Context, player: str) -> Party:
    """A player's party, or invalid input naming ``player``."""
    parties: dict[str, Party] = ctx.state["parties"]
    if player not in parties:
        raise NotHeld("player", f"no player {player!r} in this match")
    return parties[player]


def pathway_pieces(party_state: Party) -> list[Piece]:
    """The party's pieces on the pathway."""
    return [p for p in party_state["pieces"].values() if p["location"]["kind"] == "pathway"]


def require_decision(ctx: Context, decision: str, player: str, rule: str) -> dict[str, Any]:
    """The pending decision, checked to be ``decision`` and to belong to ``player``."""
    pending = ctx.state.get("pending")
    if not pending or pending["decision"] != decision:
        raise NoSuchDecision(rule, f"no {decision} decision is pending")
    if pending["who"] != player:
        raise RuleViolation(
            rule,
            f"it is {pending['who']}'s decision, not {player}'s",
            pending=decision_summary(pending),
        )
    ctx.state["pending"] = None
    result: dict[str, Any] = pending
    return result


def ask(
    ctx: Context,
    *,
    decision: str,
    who: str,
    rule: str,
    commands: list[str],
    options: Any,
    context: Mapping[str, Any] | None = None,
) -> None:
    """Wait for a player's decision and record ``DecisionRequested``; only ``commands`` are
    accepted until it is made. The pending decision also notes the night step it stopped in."""
    decisions.ask(
        ctx,
        decision=decision,
        who=who,
        rule=rule,
        commands=commands,
        options=options,
        context=context,
        step=(ctx.state.get("night") or {}).get("step"),
    )
