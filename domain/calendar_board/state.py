"""Calendar Board state: the match set-up, parties, pieces and weapons, and shared helpers.

The state is plain JSON in the campaign aggregate. Every piece has a location:
``{"kind": "pathway", "space": n}``, ``{"kind": "home"}``, ``{"kind": "elsewhere"}`` or
``{"kind": "eliminated"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import decisions
from domain.engine import Args, Context, decision_summary
from domain.errors import InvalidInput, NoSuchDecision, RuleViolation

FACINGS = ("N", "E", "S", "W")
PARTNERS = ("catgirlGirlfriend", "catboyBoyfriend")
WEAPON_KINDS = ("melee", "ranged", "hybrid")
WEATHERS = ("normal", "rain", "snow", "fog", "hail")
LOCATION_KINDS = ("pathway", "home", "elsewhere", "eliminated")


def _nested(prefix: str, error: InvalidInput) -> InvalidInput:
    return InvalidInput({f"{prefix}.{k}": v for k, v in error.errors.items()}, error.message)


def _read(prefix: str, raw: Any, reader: Any) -> Any:
    if not isinstance(raw, dict):
        raise InvalidInput.field(prefix, "must be an object")
    args = Args(raw)
    args.used.discard("faces")
    try:
        value = reader(args)
        args.finish()
    except InvalidInput as error:
        raise _nested(prefix, error) from None
    return value


def read_location(args: Args) -> dict[str, Any]:
    """A piece's location."""
    kind = args.text("kind", choices=LOCATION_KINDS)
    location: dict[str, Any] = {"kind": kind}
    if kind == "pathway":
        location["space"] = args.integer("space", minimum=0, maximum=10_000)
    return location


def read_piece(args: Args) -> dict[str, Any]:
    """A party member: id, location, facing and adaptability modifier."""
    return {
        "id": args.text("id", max_length=80),
        "location": _read("location", args.mapping("location"), read_location),
        "facing": args.text("facing", "N", choices=FACINGS),
        "adaptability": args.integer("adaptability", 0, minimum=-20, maximum=20),
        "conditions": [],
    }


def read_weapon(args: Args) -> dict[str, Any]:
    """A weapon: kind, ammunition, capacity, regeneration and the looted flag."""
    weapon = {
        "id": args.text("id", max_length=80),
        "kind": args.text("kind", choices=WEAPON_KINDS),
        "uses_ammo": args.flag("uses_ammo", False),
        "ammo": args.integer("ammo", 0, minimum=0, maximum=10_000),
        "ammo_max": args.integer("ammo_max", 0, minimum=0, maximum=10_000),
        "ammo_regen": args.integer("ammo_regen", 0, minimum=0, maximum=10_000),
        "looted": args.flag("looted", False),
    }
    if weapon["ammo"] > weapon["ammo_max"]:
        raise InvalidInput.field("ammo", "must not exceed ammo_max")
    return weapon


def read_player(args: Args) -> dict[str, Any]:
    """A player and their party."""
    player_id = args.text("id", max_length=80)
    pieces = [
        _read(f"pieces[{n}]", raw, read_piece)
        for n, raw in enumerate(args.items("pieces", [], max_items=50))
    ]
    weapons = [
        _read(f"weapons[{n}]", raw, read_weapon)
        for n, raw in enumerate(args.items("weapons", [], max_items=50))
    ]
    weapon_ids = [w["id"] for w in weapons]
    if len(set(weapon_ids)) != len(weapon_ids):
        raise InvalidInput.field("weapons", "weapon ids must be unique within a party")
    partner = args.text("partner", None, choices=PARTNERS)
    relationship = args.integer("relationship", None, minimum=0, maximum=1000)
    if partner is not None and relationship is None:
        raise InvalidInput.field("relationship", "a party with a partner needs a relationship")
    return {
        "id": player_id,
        "party": {
            "exhaustion": args.integer("exhaustion", 0, minimum=0, maximum=20),
            "partner": partner,
            "relationship": relationship if partner is not None else None,
            "reactions_locked": False,
            "bonus_locked": False,
            "luck_mod": args.integer("luck_mod", 0, minimum=-20, maximum=20),
            "int_mod": args.integer("int_mod", 0, minimum=-20, maximum=20),
            "pieces": {p["id"]: p for p in pieces},
            "weapons": {w["id"]: w for w in weapons},
        },
    }


def read_creature(args: Args) -> dict[str, Any]:
    """A creature in play: id, type, and whether it acts at night."""
    return {
        "id": args.text("id", max_length=80),
        "type": args.text("type", max_length=80),
        "night_active": args.flag("night_active", True),
    }


def initial_state(args: Args, house: Mapping[str, Any]) -> dict[str, Any]:
    """A new match: players in seating order, their parties, the token holders and options."""
    raw_players = args.items("players", max_items=8)
    if len(raw_players) < 2:
        raise InvalidInput.field("players", "a match needs at least 2 players")
    players = [_read(f"players[{n}]", raw, read_player) for n, raw in enumerate(raw_players)]
    ids = [p["id"] for p in players]
    if len(set(ids)) != len(ids):
        raise InvalidInput.field("players", "player ids must be unique")
    piece_ids = [pid for p in players for pid in p["party"]["pieces"]]
    if len(set(piece_ids)) != len(piece_ids):
        raise InvalidInput.field("players", "piece ids must be unique across the match")
    starting = args.text("starting_token", ids[0], choices=ids)
    options = args.mapping("options", {})
    option_args = Args(options)
    option_args.used.discard("faces")
    active_event = option_args.mapping("active_event", None)
    if active_event is not None:
        event_args = Args(active_event)
        active_event = {
            "id": event_args.text("id", max_length=80),
            "special_weather": event_args.text("special_weather", "normal", choices=WEATHERS),
        }
        event_args.finish()
    settings = {
        "ceasefire_rule": option_args.flag("ceasefire_rule", False),
        "event_rules": option_args.flag("event_rules", False),
        "active_event": active_event,
    }
    option_args.finish()
    creatures = [
        _read(f"creatures[{n}]", raw, read_creature)
        for n, raw in enumerate(args.items("creatures", [], max_items=100))
    ]
    creature_ids = [c["id"] for c in creatures]
    if len(set(creature_ids)) != len(creature_ids):
        raise InvalidInput.field("creatures", "creature ids must be unique")
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
        "annustar": args.integer("annustar", 0, minimum=0, maximum=house["cb.annustaria.max"]),
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


def party(ctx: Context, player: str) -> dict[str, Any]:
    """A player's party, or invalid input naming ``player``."""
    parties: dict[str, Any] = ctx.state["parties"]
    if player not in parties:
        raise InvalidInput.field("player", f"no player {player!r} in this match")
    result: dict[str, Any] = parties[player]
    return result


def pathway_pieces(party_state: Mapping[str, Any]) -> list[dict[str, Any]]:
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
