"""Debt ledger: every credit movement of a Quest Calendar hero, with the balance after it.

Entries, in log order (``entry``):

- ``movement``: a ``CreditsChanged`` (purchases, sales, payments, the debt penalty, repayments,
  pickpocketing, the lottery, theft, cloning losses), a ``CrewHired`` fee or an ``UpgradeSold``
  price (those two carry their own before and after). ``cause`` is the domain's cause.
- ``opening``: a hero is selected or replaced (or the campaign starts with one, as a fork does);
  its balance is the hero's credits, as ``HeroSelected`` and ``HeroReplaced`` record them (payload
  version 2; for older events, the ``hero.credits`` figure, followed through the patch for an
  event that records no figures).
- ``reversal`` / ``reinstatement``: a rollback undid a movement (its negation is appended; the
  original stays, with ``undone_by``), or a redo brought one back. ``reverses`` names the entry.
- ``adjustment``: after a rollback, whatever still separates the running balance from the
  restored hero's credits (normally nothing).

The ledger is append-only: the sum of every entry's ``delta`` is the hero's balance now. Debt
spans (from the first entry below 0 to the first back at 0 or above) are worked out over the
active entries, and worked out again when a rollback changes which entries are active. The hero
and the page of an entry come from the figures events record (``hero.id``, ``page.date``;
``projections.figures``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from domain.facade import Timeline, qc_fight_events, qc_hero_events, qc_page_events
from projections.events import Recorded
from projections.figures import apply_figures, qc_places, remember
from projections.schema import table
from projections.store import ViewStore
from projections.view import (
    ROW_COLUMNS,
    ROW_DEFAULTS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    CampaignCreated,
    RolledBack,
    View,
    campaign_rows,
    handles,
    page,
    row_basics,
)

LEDGER = table(
    *ROW_COLUMNS,
    "hero_id TEXT",
    "page_date TEXT",
    "entry TEXT NOT NULL",
    "cause TEXT",
    "delta BIGINT NOT NULL",
    "balance_before BIGINT",
    "balance_after BIGINT NOT NULL",
    "event_type TEXT NOT NULL",
    "context TEXT NOT NULL",
    "reverses TEXT",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc={
        **ROW_DOC,
        "hero_id": "The hero whose credits moved.",
        "page_date": "The date of the calendar page being played then.",
        "entry": "movement, opening, reversal, reinstatement or adjustment (docs/projections.md).",
        "cause": "The domain's cause of the movement (e.g. payment, purchase, heroSelected).",
        "delta": (
            "The change of the balance (credits; negative: spent). The balance is the sum of "
            "every row's delta, undone rows included: a rollback appends a reversal."
        ),
        "balance_before": "The hero's balance before (empty for an opening).",
        "balance_after": "The hero's balance after (below 0: in debt).",
        "event_type": "The type of the event that moved the credits, e.g. CreditsChanged.",
        "context": "What else the event says about the movement (e.g. the purpose), as JSON.",
        "reverses": "A reversal or reinstatement: the entry it reverses (<event_id>-<n>).",
    },
    kinds={**ROW_KINDS, "page_date": "date", "context": "json"},
    defaults=ROW_DEFAULTS,
    by_cause=("cause",),
)
SPANS = table(
    *ROW_COLUMNS,
    "hero_id TEXT",
    "started_page TEXT",
    "started_at TEXT NOT NULL",
    "ended_version BIGINT",
    "ended_page TEXT",
    "ended_at TEXT",
    "deepest BIGINT NOT NULL",
    "penalties BIGINT NOT NULL",
    "entries INTEGER NOT NULL",
    key=ROW_KEY,
    doc={
        **{k: ROW_DOC[k] for k in ("campaign_id", "n")},
        "event_id": "The notification id of the entry that opened the span.",
        "version": "The version of the event that opened the span.",
        "hero_id": "The hero in debt.",
        "started_page": "The page date the debt started on.",
        "started_at": "When the debt started (UTC).",
        "ended_version": "The version of the event that ended it; empty while in debt.",
        "ended_page": "The page date the debt ended on.",
        "ended_at": "When the debt ended (UTC); empty while in debt.",
        "deepest": "The lowest balance of the span.",
        "penalties": "The credits charged as debt penalties during the span (a sum, not a count).",
        "entries": "The ledger entries within the span.",
    },
    kinds={
        "started_page": "date",
        "started_at": "timestamp",
        "ended_page": "date",
        "ended_at": "timestamp",
    },
)
FIGURES = qc_places("hero.id", "hero.credits", "page.date")
HERO, CREDITS, PAGE = (FIGURES[name] for name in ("hero.id", "hero.credits", "page.date"))
"""Where the view's memory keeps each figure."""
LEDGER_FIELDS = ("from", "to", "delta", "cause")
"""The stored facts of a ``CreditsChanged`` its columns hold (the others are its context)."""
CreditsChanged = qc_hero_events.CreditsChanged
HeroReplaced = qc_hero_events.HeroReplaced
HeroSelected = qc_page_events.HeroSelected
PageStarted = qc_page_events.PageStarted
CrewHired = qc_fight_events.CrewHired
UpgradeSold = qc_fight_events.UpgradeSold
ORIGINALS = ("movement", "opening")


def track_span(span: dict[str, Any] | None, entry: dict[str, Any]) -> dict[str, Any] | None:
    """The debt span after an entry: opened below 0, deepened, charged a penalty, or closed."""
    before, after = entry["balance_before"], entry["balance_after"]
    if span is None:
        if after >= 0 or (before is not None and before < 0):
            return None
        span = {
            "campaign_id": entry["campaign_id"],
            "event_id": entry["event_id"],
            "n": entry["n"],
            "version": entry["version"],
            "hero_id": entry["hero_id"],
            "started_page": entry["page_date"],
            "started_at": entry["recorded_at"],
            "ended_version": None,
            "ended_page": None,
            "ended_at": None,
            "deepest": after,
            "penalties": 0,
            "entries": 0,
        }
    span["entries"] += 1
    span["deepest"] = min(span["deepest"], after)
    if entry["cause"] == "debtPenalty":
        span["penalties"] += -int(entry["delta"])
    if after >= 0:
        span.update(
            ended_version=entry["version"],
            ended_page=entry["page_date"],
            ended_at=entry["recorded_at"],
        )
    return span


class DebtLedger(View):
    """Credit movements per campaign and hero, and the spans in debt."""

    name = "debt_ledger"
    tables = {"ledger": LEDGER, "debt_spans": SPANS}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spans: dict[tuple[str, int, int], dict[str, Any]] = {}

    @handles(CampaignCreated)
    def created(self, event: Recorded, created: CampaignCreated) -> None:
        """Follow the campaign's first state; a hero it starts with (a fork) opens the ledger."""
        state = self._restore(event.campaign_id, created.state)
        credits = state["balance"]
        if credits is not None:
            self._entry(event, 0, "opening", "campaignStarted", credits, None, credits, {})

    def _restore(self, campaign_id: str, game_state: Mapping[str, Any]) -> dict[str, Any]:
        state = self.state(campaign_id)
        mirror = remember(game_state, FIGURES)
        state["mirror"] = mirror
        state["balance"] = mirror[CREDITS]
        if mirror[PAGE] is not None:
            state["page_date"] = mirror[PAGE]
        return state

    @handles(PageStarted)
    def page_started(self, event: Recorded, started: PageStarted) -> None:
        """Entries from now on are on this page."""
        self.state(event.campaign_id)["page_date"] = started.page_date

    @handles(HeroSelected, HeroReplaced)
    def hero_changed(self, event: Recorded, hero: HeroSelected | HeroReplaced) -> None:
        """An opening entry at the new hero's credits."""
        state = self.state(event.campaign_id)
        mirror = state.setdefault("mirror", {})
        before = state.get("balance")
        apply_figures(event, mirror, FIGURES)
        after = hero.credits
        if after is None:
            # An older store's event records no credits: the figure does.
            after = mirror.get(CREDITS)
        if after is None:
            return
        cause = "heroReplaced" if isinstance(hero, HeroReplaced) else "heroSelected"
        delta = after - (before or 0)
        self._entry(event, 0, "opening", cause, delta, before, after, {})

    @handles(CreditsChanged)
    def credits_changed(self, event: Recorded, change: CreditsChanged) -> None:
        """A movement as the domain recorded it (its other facts are the context)."""
        context = {k: v for k, v in change.details().items() if k not in LEDGER_FIELDS}
        self._entry(
            event, 0, "movement", change.cause, change.delta, change.from_, change.to, context
        )

    @handles(CrewHired, UpgradeSold)
    def own_movement(self, event: Recorded, movement: CrewHired | UpgradeSold) -> None:
        """A crew fee or an upgrade sale, which carry their balance themselves."""
        before, after = movement.credits_before, movement.credits_after
        if before == after:
            return
        cause = "crewFee" if isinstance(movement, CrewHired) else "sale"
        context = {
            k: v
            for k, v in movement.details().items()
            if k not in ("credits_before", "credits_after")
        }
        self._entry(event, 0, "movement", cause, after - before, before, after, context)

    def _entry(
        self,
        event: Recorded,
        n: int,
        entry: str,
        cause: str | None,
        delta: int,
        before: int | None,
        after: int,
        context: dict[str, Any],
        *,
        hero_id: str | None = None,
        reverses: str | None = None,
    ) -> None:
        state = self.state(event.campaign_id)
        mirror = state.setdefault("mirror", {})
        row = {
            "campaign_id": event.campaign_id,
            "event_id": event.id,
            "n": n,
            "version": event.version,
            "hero_id": hero_id or mirror.get(HERO),
            "page_date": state.get("page_date"),
            "cause": cause,
            "delta": delta,
            "balance_before": before,
            "balance_after": after,
            "recorded_at": event.timestamp,
        }
        self.insert(
            "ledger",
            **row,
            entry=entry,
            event_type=event.kind,
            context=json.dumps(context, sort_keys=True),
            reverses=reverses,
        )
        state["balance"] = after
        mirror[CREDITS] = after
        if entry in ORIGINALS:
            self._track(state, row)

    def _track(self, state: dict[str, Any], row: dict[str, Any]) -> None:
        span = track_span(state.get("span"), row)
        if span is not None:
            self.spans[(span["campaign_id"], span["event_id"], span["n"])] = span
        state["span"] = span if span is not None and span["ended_version"] is None else None

    def flush(self) -> None:
        """Write buffered entries, then the spans this batch opened, deepened or closed."""
        super().flush()
        if self.spans:
            rows = [SPANS.row(**span) for span in self.spans.values()]
            self.spans.clear()
            self.write_rows("debt_spans", rows, upsert=True)

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """Reverse what the rollback undid (reinstate what a redo restored); redo the spans."""
        originals = self.query(
            "SELECT * FROM {ledger} WHERE campaign_id = ? AND entry IN ('movement', 'opening') "
            "ORDER BY event_id, n",
            (event.campaign_id,),
        )
        balance = state.get("balance") or 0
        n, changed = 0, []
        for row in originals:
            now, was = timeline.undone_by(int(row["version"])), row["undone_by"]
            if now == was:
                continue
            changed.append((now, event.campaign_id, row["event_id"], row["n"]))
            if (now is None) == (was is None):
                continue
            delta = int(row["delta"]) if now is None else -int(row["delta"])
            kind = "reinstatement" if now is None else "reversal"
            reverses = f"{row['event_id']}-{row['n']}"
            context = {"to_version": rollback.to_version}
            self._entry(
                event,
                n,
                kind,
                row["cause"],
                delta,
                balance,
                balance + delta,
                context,
                hero_id=row["hero_id"],
                reverses=reverses,
            )
            balance, n = balance + delta, n + 1
            row["undone_by"] = now
        if changed:
            self.cursor.executemany(
                self.sql(
                    "UPDATE {ledger} SET undone_by = ? "
                    "WHERE campaign_id = ? AND event_id = ? AND n = ?"
                ),
                changed,
            )
        restored = rollback.restored_state
        credits = remember(restored, FIGURES)[CREDITS]
        if credits is not None and credits != balance:
            context = {"to_version": rollback.to_version}
            self._entry(
                event, n, "adjustment", "rollback", credits - balance, balance, credits, context
            )
        self._restore(event.campaign_id, restored)
        self._respan(event.campaign_id, state, [r for r in originals if r["undone_by"] is None])

    def _respan(
        self, campaign_id: str, state: dict[str, Any], active: list[dict[str, Any]]
    ) -> None:
        """Work the campaign's debt spans out again over its active entries."""
        self.spans.clear()
        self.execute("DELETE FROM {debt_spans} WHERE campaign_id = ?", (campaign_id,))
        state["span"] = None
        for row in active:
            self._track(state, row)


def _entry_item(row: dict[str, Any]) -> dict[str, Any]:
    item = row_basics(row)
    item.update(
        hero_id=row["hero_id"],
        page_date=row["page_date"],
        entry=row["entry"],
        cause=row["cause"],
        delta=int(row["delta"]),
        balance_before=row["balance_before"],
        balance_after=int(row["balance_after"]),
        event_type=row["event_type"],
        context=json.loads(row["context"]),
        reverses=row["reverses"],
        recorded_at=row["recorded_at"],
    )
    return item


def debt_ledger(
    store: ViewStore,
    campaign_id: str,
    *,
    hero_id: str | None = None,
    cause: str | None = None,
    entry: str | None = None,
    include_undone: bool = True,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """A campaign's ledger entries in order, optionally of one hero, cause or kind of entry."""
    filters = {"hero_id": hero_id, "cause": cause, "entry": entry}
    template, params = campaign_rows("ledger", campaign_id, filters, include_undone=include_undone)
    return page(
        store, DebtLedger.name, template, params, after=after, limit=limit, item=_entry_item
    )


def debt_spans(store: ViewStore, campaign_id: str, *, hero_id: str | None = None) -> dict[str, Any]:
    """The spans a campaign's hero was in debt (``ended_*`` null while still in debt)."""
    template = "SELECT * FROM {debt_spans} WHERE campaign_id = ?"
    params: list[Any] = [campaign_id]
    if hero_id is not None:
        template += " AND hero_id = ?"
        params.append(hero_id)
    with store.read() as cursor:
        rows = store.rows(cursor, template + " ORDER BY event_id, n", params)
        found = store.rows(
            cursor, "SELECT position FROM {positions} WHERE view = ?", [DebtLedger.name]
        )
    items = [
        {
            "hero_id": r["hero_id"],
            "started_version": int(r["version"]),
            "started_page": r["started_page"],
            "started_at": r["started_at"],
            "ended_version": r["ended_version"],
            "ended_page": r["ended_page"],
            "ended_at": r["ended_at"],
            "deepest": int(r["deepest"]),
            "penalties": int(r["penalties"]),
            "entries": int(r["entries"]),
        }
        for r in rows
    ]
    return {"items": items, "position": int(found[0]["position"]) if found else 0}
