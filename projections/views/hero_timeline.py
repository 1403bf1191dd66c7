"""HP and virtue timelines of Quest Calendar heroes, and their deaths and clones.

The view reads the figures every game event records when it changes them (``hero.hp``,
``hero.hp_max``, ``hero.virtue``, ``hero.id``, ``page.date``; ``projections.figures``), so any rule
that changes them (damage, healing, starvation, infection, injuries, level-ups, a new hero) yields
a row: the page date, the stat, its value and the value before, the maximum HP, and the cause (the
event's ``cause`` if it has one, else its type). Events of an older store, which record no
figures, are followed through their JSON Patch instead.
``Died`` and ``Cloned`` events also go to ``hero_lives``. A rollback sets ``undone_by`` on the rows
of the versions it undid and follows the restored state from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.facade import Payload, Timeline, qc_hero_events
from projections.events import Recorded
from projections.figures import apply_figures, qc_places, remember
from projections.schema import table
from projections.store import ViewStore
from projections.view import (
    ANY,
    ROW_COLUMNS,
    ROW_DEFAULTS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    CampaignCreated,
    Caused,
    RolledBack,
    View,
    handles,
    page,
    row_basics,
)

TIMELINE = table(
    *ROW_COLUMNS,
    "hero_id TEXT",
    "page_date TEXT",
    "stat TEXT NOT NULL",
    "value INTEGER",
    "previous INTEGER",
    "maximum INTEGER",
    "cause TEXT",
    "event_type TEXT NOT NULL",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    defaults=ROW_DEFAULTS,
    doc={
        **ROW_DOC,
        "hero_id": "The hero.",
        "page_date": "The date of the calendar page being played then.",
        "stat": "The stat that changed: hp or virtue.",
        "value": "Its value after the event.",
        "previous": "Its value before (empty for a new hero).",
        "maximum": "hp: the hero's maximum HP then.",
        "cause": "The event's cause if it records one, else its type.",
        "event_type": "The type of the event that changed it, e.g. DamageTaken.",
    },
    kinds={**ROW_KINDS, "page_date": "date"},
)
LIVES = table(
    *ROW_COLUMNS,
    "hero_id TEXT",
    "page_date TEXT",
    "kind TEXT NOT NULL",
    "cause TEXT",
    "outcome INTEGER",
    "replaced INTEGER",
    "hp_after INTEGER",
    "hp_max INTEGER",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    defaults=ROW_DEFAULTS,
    doc={
        **ROW_DOC,
        "hero_id": "The hero who died (or whose clone it is).",
        "page_date": "The date of the calendar page being played then.",
        "kind": "died or cloned.",
        "cause": "The cause of death.",
        "outcome": "cloned: the clone roll's result (the d4); empty for a death.",
        "replaced": "cloned: whether the clone replaced the hero with a new one.",
        "hp_after": "The hero's HP the event recorded: on a death, the HP the clone came "
        "back with (QC-42), not 0.",
        "hp_max": "The hero's maximum HP after the event.",
    },
    kinds={**ROW_KINDS, "page_date": "date", "replaced": "bool"},
)
Died = qc_hero_events.Died
Cloned = qc_hero_events.Cloned
FIGURES = qc_places("hero.id", "hero.hp", "hero.hp_max", "hero.virtue", "page.date")
STATS = {"hero.hp": "hp", "hero.virtue": "virtue"}


class HeroTimeline(View):
    """HP and virtue over the pages, per campaign and hero; deaths and clones."""

    name = "hero_timeline"
    tables = {"hero_timeline": TIMELINE, "hero_lives": LIVES}
    undoable = ("hero_timeline", "hero_lives")

    @handles(CampaignCreated)
    def created(self, event: Recorded, created: CampaignCreated) -> None:
        """Follow the campaign's first state."""
        self._restore(event.campaign_id, created.state)

    def _restore(self, campaign_id: str, game_state: Mapping[str, Any]) -> None:
        state = self.state(campaign_id)
        state["mirror"] = remember(game_state, FIGURES)
        if state["mirror"][FIGURES["page.date"]] is not None:
            state["page_date"] = state["mirror"][FIGURES["page.date"]]

    @handles(ANY)
    def followed(self, event: Recorded) -> None:
        """Rows for the stats the event changed."""
        if event.topic.startswith("qc."):
            self._follow(event, None)

    def _follow(self, event: Recorded, payload: Payload | None) -> None:
        """Rows for the stats a game event changed, with its cause (from its payload, decoded
        here if not given)."""
        state = self.state(event.campaign_id)
        mirror = state.setdefault("mirror", {})
        before = dict(mirror)
        changed = apply_figures(event, mirror, FIGURES)
        if "page.date" in changed and mirror[FIGURES["page.date"]] is not None:
            state["page_date"] = mirror[FIGURES["page.date"]]
        if not any(name in changed for name in STATS):
            return
        if payload is None:
            payload = event.decoded()
        cause = payload.cause if isinstance(payload, Caused) else None
        for n, (name, stat) in enumerate(STATS.items()):
            if name not in changed:
                continue
            at = FIGURES[name]
            self.insert(
                "hero_timeline",
                campaign_id=event.campaign_id,
                event_id=event.id,
                n=n,
                version=event.version,
                hero_id=mirror.get(FIGURES["hero.id"]),
                page_date=state.get("page_date"),
                stat=stat,
                value=mirror[at],
                previous=before.get(at),
                maximum=mirror.get(FIGURES["hero.hp_max"]) if stat == "hp" else None,
                cause=cause if isinstance(cause, str) else event.kind,
                event_type=event.kind,
                recorded_at=event.timestamp,
            )

    @handles(Died, Cloned)
    def life(self, event: Recorded, life: Died | Cloned) -> None:
        """A death or a clone (and its HP row)."""
        self._follow(event, life)
        state = self.state(event.campaign_id)
        died = isinstance(life, Died)
        page_date = life.page_date if isinstance(life, Died) else state.get("page_date")
        self.insert(
            "hero_lives",
            campaign_id=event.campaign_id,
            event_id=event.id,
            n=0,
            version=event.version,
            hero_id=state.get("mirror", {}).get(FIGURES["hero.id"]),
            page_date=page_date,
            kind="died" if died else "cloned",
            cause=life.cause,
            outcome=None if isinstance(life, Died) else life.outcome,
            replaced=None if isinstance(life, Died) else int(life.replaced),
            hp_after=life.hp_after,
            hp_max=life.hp_max,
            recorded_at=event.timestamp,
        )

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """Follow the restored state from here."""
        self._restore(event.campaign_id, rollback.restored_state)


def _point(row: dict[str, Any]) -> dict[str, Any]:
    item = row_basics(row)
    item.update(
        hero_id=row["hero_id"],
        page_date=row["page_date"],
        stat=row["stat"],
        value=row["value"],
        previous=row["previous"],
        maximum=row["maximum"],
        cause=row["cause"],
        event_type=row["event_type"],
        recorded_at=row["recorded_at"],
    )
    return item


def _life(row: dict[str, Any]) -> dict[str, Any]:
    item = row_basics(row)
    replaced = row["replaced"]
    item.update(
        hero_id=row["hero_id"],
        page_date=row["page_date"],
        kind=row["kind"],
        cause=row["cause"],
        outcome=row["outcome"],
        replaced=None if replaced is None else bool(replaced),
        hp_after=row["hp_after"],
        hp_max=row["hp_max"],
        recorded_at=row["recorded_at"],
    )
    return item


def _conditions(
    campaign_id: str, hero_id: str | None, include_undone: bool
) -> tuple[list[str], list[Any]]:
    conditions = ["campaign_id = ?"]
    params: list[Any] = [campaign_id]
    if hero_id is not None:
        conditions.append("hero_id = ?")
        params.append(hero_id)
    if not include_undone:
        conditions.append("undone_by IS NULL")
    return conditions, params


def hero_timeline(
    store: ViewStore,
    campaign_id: str,
    *,
    stat: str | None = None,
    hero_id: str | None = None,
    include_undone: bool = True,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """A campaign's HP and virtue changes in order (``stat``: ``hp`` or ``virtue``)."""
    conditions, params = _conditions(campaign_id, hero_id, include_undone)
    if stat is not None:
        conditions.append("stat = ?")
        params.append(stat)
    template = "SELECT * FROM {hero_timeline} WHERE " + " AND ".join(conditions)
    return page(store, HeroTimeline.name, template, params, after=after, limit=limit, item=_point)


def hero_lives(
    store: ViewStore,
    campaign_id: str,
    *,
    hero_id: str | None = None,
    include_undone: bool = True,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """A campaign's deaths and clones in order."""
    conditions, params = _conditions(campaign_id, hero_id, include_undone)
    template = "SELECT * FROM {hero_lives} WHERE " + " AND ".join(conditions)
    return page(store, HeroTimeline.name, template, params, after=after, limit=limit, item=_life)
