"""Combats: a row per finished Quest Calendar combat (QC-20..QC-22, QC-27, G-QC-05, G-QC-12).

Dogfights, the ship's combat (``qc.DogfightStarted`` .. ``qc.DogfightEnded``), are not in it.

``qc.CombatStarted`` records the combat's difficulty mode, kind and rounds as the page prints them
(one entry per round, each naming its enemy); ``qc.CombatEnded`` records how it ended (``ended_by``:
``all_rounds_played``, or ``death`` when the hero died in a round, G-QC-12), the rounds played and
won and the enemies not beaten. The row is written at the end, with the figures followed in
between (``GameView``): the hero's HP when the combat started and when it ended, whether the hero
died in it (``qc.Died``) and the HP the hero lost in it (``qc.HeroDamaged``).

A death between rounds (starvation, say) also ends the combat (G-QC-12), but no
``qc.CombatEnded`` records it: the ``qc.Died`` names the combat among the encounters it ended.
Its row is then keyed by that death and written when the death's command ends (every event
records its command's versions): ``ended_by`` is ``death``, the rounds played and won are the
``qc.CombatRoundResolved`` before it, and ``enemies_remaining`` is empty (nothing records it).

``won`` is read from how the combat ended, with no rule decided again: the combat was won when
every one of its rounds was played and won (``ended_by`` is ``all_rounds_played`` and
``rounds_won`` equals ``rounds``): against several enemies every enemy was killed, against one
enemy it was stunned in every round (QC-22), and the hero took no combat damage (QC-21). A combat
ended by a death is never won (G-QC-12: it ends unresolved); one that lost a round is not won
either, whatever the page's resolution then makes of it (G-QC-05).

A death inside the combat clones the hero at once (QC-41..QC-49), so ``hp_after`` is the clone's
HP (half the maximum, rounded up) and ``hp_lost`` (``hp_before - hp_after``) is then less than the
HP lost, or negative: ``died`` says so, and ``hp_damage`` counts the HP lost to every
``qc.HeroDamaged`` while the combat was open. A rollback marks the rows of the versions it undid.
The view remembers every combat with the versions of what happened in it and reads them on the
active history when it writes a row, so a rollback into the middle of a combat (or a redo that
brings one back) leaves the row written when it ends again with what stands then.
"""

from __future__ import annotations

import json
from typing import Any

from domain.facade import Timeline, qc_fight_events, qc_hero_events
from projections.events import Recorded
from projections.schema import table
from projections.view import (
    ANY,
    ROW_COLUMNS,
    ROW_DEFAULTS,
    ROW_KEY,
    ROW_KINDS,
    handles,
    recorders_of,
)
from projections.views.game_view import (
    HERO,
    HP,
    LEVEL,
    QC_NAMES,
    ROW_NAMES,
    GameView,
    active,
    doc,
    history,
)

COMBATS = table(
    *ROW_COLUMNS,
    "game TEXT NOT NULL",
    "page_date TEXT",
    "level INTEGER",
    "hero_id TEXT",
    "mode TEXT",
    "kind TEXT",
    "enemies TEXT NOT NULL",
    "enemy_count INTEGER NOT NULL",
    "rounds INTEGER",
    "rounds_played INTEGER",
    "rounds_won INTEGER",
    "enemies_remaining INTEGER",
    "won INTEGER NOT NULL",
    "ended_by TEXT",
    "died INTEGER NOT NULL",
    "hp_before INTEGER",
    "hp_after INTEGER",
    "hp_lost INTEGER",
    "hp_damage INTEGER NOT NULL",
    "started_version BIGINT",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc=doc(
        {
            "level": "The hero's level when the combat started.",
            "hero_id": "The hero who fought (the one at the start of the combat).",
            "mode": "The difficulty mode: standard, easy or hard (QC-27).",
            "kind": "several_enemies (one enemy per round, a won round kills it) or one_enemy "
            "(one enemy over every round, a won round stuns it) (QC-22).",
            "enemies": "The enemies' names as the page prints them (JSON list): one per round "
            "against several enemies, the one enemy against one.",
            "enemy_count": "How many enemies: the length of enemies.",
            "rounds": "The rounds the page gives the combat.",
            "rounds_played": "The rounds played before it ended.",
            "rounds_won": "The rounds won: the attack hit and dealt enough damage (QC-21).",
            "enemies_remaining": "The enemies not killed when it ended (always 1 against one "
            "enemy, which a won round only stuns); empty when a death between rounds ended it.",
            "won": "Whether the combat was won: every round was played and won (ended_by "
            "all_rounds_played and rounds_won = rounds); never when the hero died in it.",
            "ended_by": "How it ended: all_rounds_played, or death (the hero died in a round, or "
            "between rounds, and the combat ended unresolved, G-QC-12).",
            "died": "Whether the hero died (and was cloned) while the combat was open.",
            "hp_before": "The hero's HP when the combat started.",
            "hp_after": "The hero's HP when it ended; after a death in it, the clone's HP.",
            "hp_lost": "hp_before - hp_after; after a death the clone's HP makes it smaller than "
            "the HP lost, even negative (see died and hp_damage). Healing between rounds lowers "
            "it too.",
            "hp_damage": "The HP the hero lost while the combat was open, summed over its "
            "qc.HeroDamaged events (down to 0 at a death).",
            "started_version": "The version of the qc.CombatStarted that opened the combat.",
        },
        *ROW_NAMES,
        *QC_NAMES,
    ),
    kinds={**ROW_KINDS, "page_date": "date", "enemies": "json", "won": "bool", "died": "bool"},
    defaults=ROW_DEFAULTS,
)
CombatStarted = qc_fight_events.CombatStarted
CombatRoundResolved = qc_fight_events.CombatRoundResolved
CombatEnded = qc_fight_events.CombatEnded
HeroDamaged = qc_hero_events.HeroDamaged
Died = qc_hero_events.Died


def enemy_names(kind: Any, entries: Any) -> list[Any]:
    """The enemies of a combat, from the rounds ``qc.CombatStarted`` records: one per round
    against several enemies, one (the first named) against one enemy."""
    names = [e.get("enemy") if isinstance(e, dict) else e for e in entries or []]
    return names if kind != "one_enemy" else names[:1]


class Combats(GameView):
    """Per finished combat: mode, kind, enemies, rounds, how it ended, won, HP before and after."""

    name = "combats"
    tables = {"combats": COMBATS}
    undoable = ("combats",)

    def _started(
        self, event: Recorded, started: CombatStarted, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        mirror = state["mirror"]
        state.setdefault("combats", []).append(
            {
                "version": event.version,
                "mode": started.mode,
                "kind": started.kind,
                "enemies": enemy_names(started.kind, started.enemies),
                "rounds": started.rounds,
                "hero_id": mirror.get(HERO),
                "level": mirror.get(LEVEL),
                "hp_before": mirror.get(HP),
                "damage": [],
                "deaths": [],
            }
        )

    def _damaged(
        self, event: Recorded, damage: HeroDamaged, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        combat = _open(state, history(state, event.version))
        if combat is not None:
            combat["damage"].append([event.version, damage.amount])

    def _died(self, event: Recorded, death: Died, state: dict[str, Any], _: dict[str, Any]) -> None:
        combat = _open(state, history(state, event.version))
        if combat is None:
            return
        # The command's span is the envelope's (an older store's events have none).
        span = event.data.get("command_versions")
        last = span[1] if isinstance(span, list) and len(span) == 2 else None
        ended = "combat" in death.encounters_ended
        combat["deaths"].append(
            [event.version, ended, event.id, last, death.page_date, event.timestamp]
        )

    def _round(
        self, event: Recorded, played: CombatRoundResolved, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        combat = _open(state, history(state, event.version))
        if combat is not None:
            combat.setdefault("played", []).append([event.version, played.won])

    @handles(ANY)
    def followed(self, event: Recorded) -> None:
        """Record each event's facts; a combat a death ended between its rounds (starvation,
        say) records no ``qc.CombatEnded``: its row is written as the death's command ends."""
        super().followed(event)
        if event.game is None:
            return
        state = self.state(event.campaign_id)
        if not state.get("combats"):
            return
        timeline = history(state, event.version)
        combat = _open(state, timeline)
        if combat is None:
            return
        deaths = active(combat["deaths"], timeline)
        ending = next((d for d in deaths if d[1] and d[3] is not None), None)
        if ending is not None and event.version >= ending[3]:
            self._death_ended(event, state, combat, ending)

    def _death_ended(
        self, event: Recorded, state: dict[str, Any], combat: dict[str, Any], death: list[Any]
    ) -> None:
        """The row of a combat the hero's death ended with no ``qc.CombatEnded``, keyed by the
        death (``qc.Died``): the rounds resolved before it; no enemies_remaining recorded."""
        version, _, event_id, _, page_date, timestamp = death
        played = active(combat.get("played") or [], history(state, event.version))
        self._write(
            combat,
            state,
            campaign_id=event.campaign_id,
            event_id=event_id,
            n=0,
            version=version,
            game=event.game,
            page_date=page_date,
            rounds_played=len(played),
            rounds_won=sum(1 for _, won in played if won),
            enemies_remaining=None,
            ended_by="death",
            recorded_at=timestamp,
        )

    def _ended(
        self, event: Recorded, ended: CombatEnded, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        combat = _open(state, history(state, event.version))
        if combat is None:
            return
        self._write(
            combat,
            state,
            campaign_id=event.campaign_id,
            event_id=event.id,
            n=0,
            version=event.version,
            game=event.game,
            page_date=ended.page_date,
            rounds_played=ended.rounds_played,
            rounds_won=ended.rounds_won,
            enemies_remaining=ended.enemies_remaining,
            ended_by=ended.ended_by,
            recorded_at=event.timestamp,
        )

    def _write(self, combat: dict[str, Any], state: dict[str, Any], **ending: Any) -> None:
        """The combat's row, with how it ended (``ending``: the row's key and the end's facts)."""
        combat.setdefault("ends", []).append([ending["version"]])
        timeline = history(state, ending["version"])
        rounds = combat.get("rounds")
        hp_before, hp_after = combat.get("hp_before"), state["mirror"].get(HP)
        self.insert(
            "combats",
            **ending,
            level=combat.get("level"),
            hero_id=combat.get("hero_id"),
            mode=combat.get("mode"),
            kind=combat.get("kind"),
            enemies=json.dumps(combat["enemies"]),
            enemy_count=len(combat["enemies"]),
            rounds=rounds,
            won=int(ending["ended_by"] == "all_rounds_played" and ending["rounds_won"] == rounds),
            died=int(bool(active(combat["deaths"], timeline))),
            hp_before=hp_before,
            hp_after=hp_after,
            hp_lost=None if hp_before is None or hp_after is None else hp_before - hp_after,
            hp_damage=sum(amount for _, amount in active(combat["damage"], timeline)),
            started_version=combat["version"],
        )

    recorders = recorders_of(
        {
            CombatStarted: _started,
            HeroDamaged: _damaged,
            Died: _died,
            CombatRoundResolved: _round,
            CombatEnded: _ended,
        }
    )


def _open(state: dict[str, Any], timeline: Timeline) -> dict[str, Any] | None:
    """The combat under way on the active history: the last one started on it, unless it
    ended on it too (None between combats)."""
    for combat in reversed(state.get("combats") or []):
        if timeline.undone_by(int(combat["version"])) is None:
            return None if active(combat.get("ends") or [], timeline) else combat
    return None
