"""Board nights: a row per player per Calendar Board night (CB-01, CB-33..CB-41).

A night phase closes every round (CB-01): ``cb.NightPhaseStarted`` records its number (``night``)
and the round whose day it follows (``day``: the round number; night N follows the day of round
N). At ``cb.NightPhaseEnded`` the view writes one row per player, in seating order, with the
party's exhaustion at the end of the night and its change during the night (from the start of
the night phase to its end: the night actions' +1 or -1, CB-34; a day sleep comes before the night
and is not in it), whether the party slept through that day (``cb.SleptDuringDay`` in that round,
CB-40/CB-41), the pieces eliminated for exhaustion that night (CB-36), and the night actions the
player took (CB-33), each ``{"action", "result"}``:

- ``ambush`` (CB-35): ``ambushed`` (a piece moved the d6 exactly onto an enemy and ambushed it,
  ``cb.AmbushPerformed``) or ``missed`` (no piece could, nothing moved: ``cb.AmbushMissed``);
- ``rizz`` (CB-38): ``success`` (a partner won) or ``failure``, as the last ``cb.RizzAttempted``
  records it (a fate reroll's attempt replaces the first);
- ``sleep`` (CB-39): ``recovered`` (exhaustion went down by 1, ``cb.ExhaustionChanged`` with cause
  ``nightSleep``) or ``unchanged`` (the party was at 0).

The result is what the events recorded; none is decided here. A rollback marks the rows of the
nights whose end it undid (``undone_by``). The view remembers every night with the versions of
what happened in it and reads them on the active history when it writes a row, so the row
written when a night the rollback went back into ends again (or one a redo brought back) holds
what stands then.
"""

from __future__ import annotations

import json
from typing import Any

from domain.facade import Timeline, cb_action_events, cb_board_events
from projections.events import Recorded
from projections.schema import table
from projections.view import ROW_COLUMNS, ROW_DEFAULTS, ROW_KEY, ROW_KINDS, recorders_of
from projections.views.game_view import (
    ROW_NAMES,
    GameView,
    active,
    doc,
    exhaustion_place,
    history,
)

BOARD_NIGHTS = table(
    *ROW_COLUMNS,
    "game TEXT NOT NULL",
    "night INTEGER NOT NULL",
    "day INTEGER",
    "player TEXT NOT NULL",
    "party TEXT NOT NULL",
    "exhaustion INTEGER",
    "exhaustion_start INTEGER",
    "exhaustion_change INTEGER",
    "slept INTEGER NOT NULL",
    "eliminated INTEGER NOT NULL",
    "actions TEXT NOT NULL",
    "action_count INTEGER NOT NULL",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc=doc(
        {
            "n": "The player's place in the seating order (0 for the first).",
            "version": "The version of the cb.NightPhaseEnded that closed the night.",
            "game": "The game: calendar-board.",
            "night": "The night's number (1 for the match's first night phase).",
            "day": "The round whose day the night follows (its round number; night N closes "
            "round N, CB-01), as cb.NightPhaseStarted records it.",
            "player": "The player (as the match names its seat).",
            "party": "The player's party (the game names a party by its player).",
            "exhaustion": "The party's exhaustion at the end of the night (0..5, CB-34).",
            "exhaustion_start": "The party's exhaustion when the night phase started.",
            "exhaustion_change": "exhaustion - exhaustion_start: the change during the night.",
            "slept": "Whether the party slept through the day before the night (day sleep, "
            "CB-41, in the round the night follows).",
            "eliminated": "How many of the party's pieces were eliminated for exhaustion during "
            "the night (CB-36).",
            "actions": "The night actions the player took (JSON list, in order), each "
            '{"action": ambush | rizz | sleep, "result": ambushed | missed | success | failure | '
            "recovered | unchanged} (CB-33..CB-39).",
            "action_count": "How many night actions the player took (1 in a finished night).",
        },
        *ROW_NAMES,
    ),
    kinds={**ROW_KINDS, "slept": "bool", "actions": "json"},
    defaults=ROW_DEFAULTS,
)
NightPhaseStarted = cb_board_events.NightPhaseStarted
NightPhaseEnded = cb_board_events.NightPhaseEnded
NightActionTaken = cb_action_events.NightActionTaken
AmbushPerformed = cb_action_events.AmbushPerformed
AmbushMissed = cb_action_events.AmbushMissed
RizzAttempted = cb_action_events.RizzAttempted
ExhaustionChanged = cb_action_events.ExhaustionChanged
PieceEliminated = cb_action_events.PieceEliminated
SleptDuringDay = cb_action_events.SleptDuringDay
Result = AmbushPerformed | AmbushMissed | RizzAttempted | ExhaustionChanged
"""The events that give a player's night action its result."""


def result_of(result: Result) -> tuple[str, str] | None:
    """Whose night action an event gives a result, and the result (None: it gives none)."""
    if isinstance(result, ExhaustionChanged):
        return None if result.cause != "nightSleep" else (result.party, "recovered")
    if isinstance(result, AmbushPerformed):
        return result.player, "ambushed"
    if isinstance(result, AmbushMissed):
        return result.player, "missed"
    return result.player, "success" if result.success else "failure"


class BoardNights(GameView):
    """Per night and player: exhaustion, its change, day sleep and the night actions."""

    name = "board_nights"
    tables = {"board_nights": BOARD_NIGHTS}
    undoable = ("board_nights",)

    def _night_started(
        self, event: Recorded, started: NightPhaseStarted, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        mirror = state["mirror"]
        players = state.get("players") or []
        state.setdefault("played", []).append(
            {
                "version": event.version,
                "number": started.night_number,
                "day": started.round,
                "start": {p: mirror.get(exhaustion_place(p)) for p in players},
                "actions": [],
                "eliminated": [],
            }
        )

    def _action(
        self, event: Recorded, taken: NightActionTaken, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        night = _open(state, history(state, event.version))
        if night is None:
            return
        action = taken.action
        first = "unchanged" if action == "sleep" else None
        night["actions"].append([event.version, taken.player, action, []])
        if first is not None:
            night["actions"][-1][3].append([event.version, first])

    def _result(
        self, event: Recorded, outcome: Result, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        timeline = history(state, event.version)
        night = _open(state, timeline)
        found = result_of(outcome)
        if night is None or found is None:
            return
        who, result = found
        for entry in reversed(active(night["actions"], timeline)):
            if entry[1] == who:
                entry[3].append([event.version, result])
                return

    def _eliminated(
        self,
        event: Recorded,
        elimination: PieceEliminated,
        state: dict[str, Any],
        _: dict[str, Any],
    ) -> None:
        night = _open(state, history(state, event.version))
        if night is not None and elimination.cause == "exhaustion":
            night["eliminated"].append([event.version, elimination.party])

    def _slept(
        self, event: Recorded, sleep: SleptDuringDay, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        slept = state.setdefault("slept", [])
        slept.append([event.version, sleep.party, sleep.round])

    def _night_ended(
        self, event: Recorded, ended: NightPhaseEnded, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        timeline = history(state, event.version)
        night = _open(state, timeline)
        if night is None:
            return
        night.setdefault("ends", []).append([event.version])
        mirror = state["mirror"]
        day = night.get("day")
        slept = {p for _, p, round_ in active(state.get("slept") or [], timeline) if round_ == day}
        eliminated = [party for _, party in active(night["eliminated"], timeline)]
        for n, player in enumerate(state.get("players") or []):
            actions = [
                {"action": action, "result": standing[-1][1] if standing else None}
                for _, who, action, results in active(night["actions"], timeline)
                if who == player
                for standing in [active(results, timeline)]
            ]
            end, start = mirror.get(exhaustion_place(player)), night["start"].get(player)
            self.insert(
                "board_nights",
                campaign_id=event.campaign_id,
                event_id=event.id,
                n=n,
                version=event.version,
                game=event.game,
                night=ended.night_number,
                day=day,
                player=player,
                party=player,
                exhaustion=end,
                exhaustion_start=start,
                exhaustion_change=None if end is None or start is None else end - start,
                slept=int(player in slept),
                eliminated=eliminated.count(player),
                actions=json.dumps(actions),
                action_count=len(actions),
                recorded_at=event.timestamp,
            )

    recorders = recorders_of(
        {
            NightPhaseStarted: _night_started,
            NightActionTaken: _action,
            AmbushPerformed: _result,
            AmbushMissed: _result,
            RizzAttempted: _result,
            ExhaustionChanged: _result,
            PieceEliminated: _eliminated,
            SleptDuringDay: _slept,
            NightPhaseEnded: _night_ended,
        }
    )


def _open(state: dict[str, Any], timeline: Timeline) -> dict[str, Any] | None:
    """The night being played on the active history: the last one started on it, unless it
    ended on it too (None by day)."""
    for night in reversed(state.get("played") or []):
        if timeline.undone_by(int(night["version"])) is None:
            return None if active(night.get("ends") or [], timeline) else night
    return None
