"""What the analyst's views share: each campaign's game, and the figures their rows carry.

Every row of ``trait_checks``, ``combats``, ``rollbacks`` and ``board_nights`` names its game and
where the game stood: the hero, their level and HP and the page's date (Quest Calendar), or each
party's exhaustion and the night (Calendar Board). ``GameView`` keeps those per campaign the way
the ``stats`` view does: from the campaign's first state (``questlog.CampaignCreated``), then from
the figures each game event records (``projections.figures``), and from a rollback's restored
state. The night number comes from ``cb.NightPhaseStarted`` (and the states' ``nights``).

A view says which game events it records with ``recorders`` (``projections.view.recorders``, by
payload class): each gets the event, its payload (decoded), the campaign's remembered state and the
figures as they were before the event.
"""

from __future__ import annotations

from typing import Any, ClassVar

from domain.facade import Payload, Timeline, cb_board_events, topic_of
from projections.events import Recorded
from projections.figures import apply_figures, cb_places, qc_places, remember
from projections.view import (
    ANY,
    ROW_DOC,
    CampaignCreated,
    Recorder,
    RolledBack,
    View,
    handles,
)

QC_FIGURES = qc_places("hero.id", "hero.level", "hero.hp", "page.date")
HERO, LEVEL, HP, PAGE_DATE = (
    QC_FIGURES[name] for name in ("hero.id", "hero.level", "hero.hp", "page.date")
)
"""Where a campaign's memory keeps the hero's id, level and HP and the page's date."""

GAME_DOC = {
    "game": "The game, as the code names it: quest-calendar or calendar-board.",
    "page_date": "The date of the Quest Calendar page being played (ISO date); empty for the "
    "Calendar Board.",
    "level": "The hero's level at the time (Quest Calendar); empty for the Calendar Board.",
    "hero_id": "The hero's id (Quest Calendar).",
}
"""What the common game columns hold, for a table's ``doc``."""
ROW_NAMES = ("campaign_id", "event_id", "n", "version", "recorded_at", "undone_by")
"""The common columns of a row table (``ROW_DOC``)."""
QC_NAMES = ("game", "page_date", "level", "hero_id")
"""The common columns of a Quest Calendar row (``GAME_DOC``)."""

NightPhaseStarted = cb_board_events.NightPhaseStarted
NIGHT_STARTED = topic_of(NightPhaseStarted)


def exhaustion_place(player: str) -> str:
    """Where a campaign's memory keeps a player's party's exhaustion."""
    return cb_places([player])[f"party.{player}.exhaustion"]


def figure_places(state: dict[str, Any]) -> dict[str, str]:
    """The figures a campaign's memory keeps: each party's exhaustion, or the hero's."""
    players = state.get("players")
    return QC_FIGURES if players is None else cb_places(players)


def doc(table_doc: dict[str, str], *names: str) -> dict[str, str]:
    """The common columns' words (``ROW_DOC``, ``GAME_DOC``) for ``names``, and ``table_doc``."""
    common = {**ROW_DOC, **GAME_DOC}
    return {**{name: common[name] for name in names}, **table_doc}


class GameView(View):
    """A view that knows each campaign's game and follows the figures its rows carry."""

    recorders: ClassVar[dict[str, tuple[type[Payload], Recorder]]] = {}
    """What the view records, by topic (``projections.view.recorders``)."""

    @handles(CampaignCreated)
    def created(self, event: Recorded, created: CampaignCreated) -> None:
        """Remember the campaign's game, its players (Calendar Board) and its first figures."""
        state = self.state(event.campaign_id)
        game_state = created.state
        state["game"] = created.game
        parties = game_state.get("parties")
        if isinstance(parties, dict):
            state["players"] = list(game_state.get("players") or sorted(parties))
        state["mirror"] = remember(game_state, figure_places(state))
        state["nights"] = game_state.get("nights")
        self.started(event, state)

    def started(self, event: Recorded, state: dict[str, Any]) -> None:
        """Hook: what else a view remembers from a campaign's creation."""

    @handles(ANY)
    def followed(self, event: Recorded) -> None:
        """Take in the event's figures, then let the view record what it keeps of the event."""
        if event.game is None:
            return
        state = self.state(event.campaign_id)
        state.setdefault("game", event.game)
        mirror = state.setdefault("mirror", {})
        found = self.recorders.get(event.topic)
        # Only an event the view records needs the figures as they were before it.
        before = dict(mirror) if found is not None else mirror
        apply_figures(event, mirror, figure_places(state))
        payload = None if found is None else event.payload(found[0])
        if event.topic == NIGHT_STARTED:
            if not isinstance(payload, NightPhaseStarted):
                payload = event.payload(NightPhaseStarted)
            state["nights"] = payload.night_number
        if found is not None:
            found[1](self, event, payload, state, before)

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """Follow the restored state from here; the view's hook sees the figures before."""
        before = {"mirror": dict(state.get("mirror") or {}), "nights": state.get("nights")}
        restored = rollback.restored_state
        state["mirror"] = remember(restored, figure_places(state))
        state["nights"] = restored.get("nights")
        self.restored(event, rollback, state, timeline, before)

    def restored(
        self,
        event: Recorded,
        rollback: RolledBack,
        state: dict[str, Any],
        timeline: Timeline,
        before: dict[str, Any],
    ) -> None:
        """Hook: what else a view does on a rollback (``before``: the mirror and night before)."""


def history(state: dict[str, Any], version: int) -> Timeline:
    """A campaign's active history at ``version``, from the rollbacks its memory keeps."""
    return Timeline.of(state.get("rollbacks") or [], version)


def active(entries: list[Any], timeline: Timeline) -> list[Any]:
    """The entries (each starting with the version that recorded it) still on the history."""
    return [entry for entry in entries if timeline.undone_by(int(entry[0])) is None]
