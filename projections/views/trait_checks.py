"""Trait checks: a row per d20 + trait roll of a Quest Calendar hero (QC-10, QC-31, QC-33).

Three events record a trait roll, and each is a row (``check_kind``):

- ``check``: ``qc.CheckRolled``, a trait check of the page (QC-10), with its target if the page
  gives one. An ability used on it afterwards (QC-14, ``qc.AbilityUsed`` naming the check as
  ``target_check``) changes the check's ``total`` and ``success``: the row then holds them as the
  last such ability left them (the event records both), ``ability`` names that ability and
  ``abilities`` every one used on it; ``rolled_total`` keeps the total as first rolled.
- ``condition``: ``qc.ConditionCheckRolled``, a combat round's check against Frightened,
  Restrained, Weakened or Confused (QC-33); ``success`` is that the condition did not take hold.
- ``infection``: ``qc.InfectionTicked``, the end-of-page roll of an infected hero (QC-31, d20 +
  CON); ``success`` is that it cost no HP. The event records no target.

The hero, their level and the page's date are the figures at the roll (``GameView``). A rollback
marks the rows of the versions it undid (``undone_by``); an ability the rollback undid no longer
counts in the row of a check it did not undo (the view remembers each page's checks and the
abilities used on them, and reads them on the active history, so a redo brings them back).

The page being played is remembered in the campaign's state; a page left behind goes to the
view's own table ``trait_checks_pages``, read again only by a rollback (the pages whose checks had
an ability used on them, and the page it returns to). So an event costs what its page holds, never
what the campaign's earlier pages hold.
"""

from __future__ import annotations

import json
from typing import Any

from domain.facade import Absent, Timeline, qc_fight_events, qc_hero_events, qc_page_events
from projections.events import Recorded
from projections.schema import table
from projections.view import ROW_COLUMNS, ROW_DEFAULTS, ROW_KEY, ROW_KINDS, RolledBack, recorders_of
from projections.views.game_view import (
    HERO,
    LEVEL,
    PAGE_DATE,
    QC_NAMES,
    ROW_NAMES,
    GameView,
    active,
    doc,
    history,
)

TRAIT_CHECKS = table(
    *ROW_COLUMNS,
    "game TEXT NOT NULL",
    "page_date TEXT",
    "level INTEGER",
    "hero_id TEXT",
    "check_kind TEXT NOT NULL",
    "purpose TEXT",
    "trait TEXT",
    "d20 INTEGER",
    "faces TEXT",
    "malfunction INTEGER",
    "trait_mod INTEGER",
    "booster INTEGER",
    "bonus INTEGER",
    "rolled_total INTEGER",
    "target INTEGER",
    "total INTEGER",
    "success INTEGER",
    "ability TEXT",
    "abilities TEXT NOT NULL",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc=doc(
        {
            "check_kind": "Which roll: check (a page's trait check, QC-10), condition (a combat "
            "round's condition check, QC-33) or infection (the end-of-page Infected roll, QC-31).",
            "purpose": "What the check was for, as the command gave it (a check), or the "
            "condition checked against (a condition check).",
            "trait": "The trait rolled: STR, DEX, CON, INT, WIS or CHA.",
            "d20": "The d20 kept (the lower of two while malfunctioning, QC-32); empty for an "
            "infection roll, whose event records only its total.",
            "faces": "The d20 faces rolled (JSON list); empty for an infection roll.",
            "malfunction": "Whether Malfunction made it two d20s keeping the lower (QC-32).",
            "trait_mod": "The hero's trait modifier added.",
            "booster": "The trait booster added (QC-18).",
            "bonus": "The bonus the player chose to add when rolling.",
            "rolled_total": "The total as first rolled, before any ability used on it later.",
            "target": "The number to reach (total >= target succeeds); empty if the page gave "
            "none and for an infection roll.",
            "total": "The total: d20 + trait modifier + booster + bonus, as the last ability used "
            "on the check left it (QC-14).",
            "success": "Whether it succeeded: the total reached the target (check), the condition "
            "did not take hold (condition), the roll cost no HP (infection); empty for a check "
            "without a target.",
            "ability": "The ability used on the check after the roll (the last, if several); "
            "empty if none.",
            "abilities": "Every ability used on the check after the roll, in order (JSON list).",
        },
        *ROW_NAMES,
        *QC_NAMES,
    ),
    kinds={
        **ROW_KINDS,
        "page_date": "date",
        "faces": "json",
        "malfunction": "bool",
        "success": "bool",
        "abilities": "json",
    },
    defaults={**ROW_DEFAULTS, "ability": None},
)


PAGES = table(
    "campaign_id TEXT NOT NULL",
    "page BIGINT NOT NULL",
    "used INTEGER NOT NULL",
    "entries TEXT NOT NULL",
    key=("campaign_id", "page"),
)
"""A page left behind: its version, whether an ability was used on one of its checks, and its
checks as the view remembers them (JSON)."""


PageStarted = qc_page_events.PageStarted
CheckRolled = qc_page_events.CheckRolled
InfectionTicked = qc_page_events.InfectionTicked
AbilityUsed = qc_hero_events.AbilityUsed
ConditionCheckRolled = qc_fight_events.ConditionCheckRolled


class TraitChecks(GameView):
    """Per trait roll of a hero: the trait, target, total, success and the ability used on it."""

    name = "trait_checks"
    tables = {"trait_checks": TRAIT_CHECKS}
    internal = {"trait_checks_pages": PAGES}
    undoable = ("trait_checks",)

    def _common(
        self, event: Recorded, before: dict[str, Any], page_date: str | None = None
    ) -> dict[str, Any]:
        """The common columns of a check's row: the page's date is the event's, or the one
        the figures had before it."""
        return {
            "campaign_id": event.campaign_id,
            "event_id": event.id,
            "n": 0,
            "version": event.version,
            "game": event.game,
            "page_date": before.get(PAGE_DATE) if page_date is None else page_date,
            "level": before.get(LEVEL),
            "hero_id": before.get(HERO),
            "recorded_at": event.timestamp,
        }

    def _page_started(
        self, event: Recorded, _: PageStarted, state: dict[str, Any], before: dict[str, Any]
    ) -> None:
        self._leave_pages(event.campaign_id, state)
        state["page"] = str(event.version)
        state["checks"] = {str(event.version): []}

    def _leave_pages(self, campaign_id: str, state: dict[str, Any]) -> None:
        """Move the pages the state holds to ``trait_checks_pages`` (a state an earlier release
        wrote holds every page of the campaign: they move at its first page)."""
        pages = state.pop("checks", None) or {}
        self._write_pages(campaign_id, pages)

    def _write_pages(self, campaign_id: str, pages: dict[str, list[dict[str, Any]]]) -> None:
        rows = [
            PAGES.row(
                campaign_id=campaign_id,
                page=int(key),
                used=int(any(e["uses"] for e in entries)),
                entries=json.dumps(entries),
            )
            for key, entries in pages.items()
        ]
        if rows:
            self.write_rows("trait_checks_pages", rows, upsert=True)

    def _read_pages(
        self, campaign_id: str, condition: str, params: tuple[Any, ...] = ()
    ) -> dict[str, list[dict[str, Any]]]:
        found = self.query(
            "SELECT page, entries FROM {trait_checks_pages} WHERE campaign_id = ? AND " + condition,
            (campaign_id, *params),
        )
        return {str(row["page"]): json.loads(row["entries"]) for row in found}

    def _check_rolled(
        self, event: Recorded, check: CheckRolled, state: dict[str, Any], before: dict[str, Any]
    ) -> None:
        row = {
            **self._common(event, before),
            "check_kind": "check",
            "purpose": check.purpose,
            "trait": check.trait,
            "d20": check.d20,
            "faces": json.dumps(check.faces),
            "malfunction": _flag(check.malfunction),
            "trait_mod": check.trait_mod,
            "booster": check.booster,
            "bonus": check.bonus,
            "rolled_total": check.total,
            "target": check.target,
            "total": check.total,
            "success": _flag(check.success),
            "abilities": "[]",
        }
        self.insert("trait_checks", **row)
        page = (state.get("checks") or {}).get(state.get("page") or "")
        if page is not None:
            # What an ability used on it later needs: its key, the roll, the abilities so far.
            page.append(
                {
                    "version": event.version,
                    "event_id": event.id,
                    "rolled": [row["rolled_total"], row["success"]],
                    "uses": [],
                    "shown": [row["rolled_total"], row["success"], []],
                }
            )

    def _ability_used(
        self, event: Recorded, used: AbilityUsed, state: dict[str, Any], before: dict[str, Any]
    ) -> None:
        index, total = used.target_check, used.total
        page = (state.get("checks") or {}).get(state.get("page") or "")
        if not isinstance(index, int) or isinstance(total, Absent) or page is None:
            return
        # The page's checks on the active history, in the order they were rolled (the index).
        timeline = history(state, event.version)
        standing = [e for e in page if timeline.undone_by(int(e["version"])) is None]
        if not 0 <= index < len(standing):
            return
        entry = standing[index]
        success = None if isinstance(used.success, Absent) else used.success
        use = [event.version, used.ability_id, total, success]
        entry["uses"].append(use)
        self._settle(event.campaign_id, entry, timeline)

    def _settle(self, campaign_id: str, entry: dict[str, Any], timeline: Timeline) -> bool:
        """The check's row as the abilities on the active history leave it (updated if changed);
        whether it changed."""
        uses = active(entry["uses"], timeline)
        last = uses[-1] if uses else None
        total, success = entry["rolled"] if last is None else (last[2], _flag(last[3]))
        shown = [total, success, [use[1] for use in uses]]
        if shown == entry["shown"]:
            return False
        entry["shown"] = shown
        self.execute(
            "UPDATE {trait_checks} SET total = ?, success = ?, ability = ?, abilities = ? "
            "WHERE campaign_id = ? AND event_id = ? AND n = 0",
            (
                total,
                success,
                None if last is None else last[1],
                json.dumps(shown[2]),
                campaign_id,
                entry["event_id"],
            ),
        )
        return True

    def _condition_checked(
        self,
        event: Recorded,
        check: ConditionCheckRolled,
        state: dict[str, Any],
        before: dict[str, Any],
    ) -> None:
        self.insert(
            "trait_checks",
            **self._common(event, before),
            check_kind="condition",
            purpose=check.condition,
            trait=check.trait,
            d20=check.d20,
            faces=json.dumps(check.faces),
            malfunction=_flag(check.malfunction),
            trait_mod=check.trait_mod,
            booster=check.booster,
            bonus=check.bonus,
            rolled_total=check.total,
            target=check.target,
            total=check.total,
            success=int(not check.afflicted),
            abilities="[]",
        )

    def _infection(
        self, event: Recorded, tick: InfectionTicked, state: dict[str, Any], before: dict[str, Any]
    ) -> None:
        self.insert(
            "trait_checks",
            **self._common(event, before, tick.page_date),
            check_kind="infection",
            purpose="infection",
            trait="CON",
            d20=None,
            faces=None,
            malfunction=None,
            trait_mod=None,
            booster=None,
            bonus=None,
            rolled_total=tick.total,
            target=None,
            total=tick.total,
            success=int(tick.hp_lost == 0),
            abilities="[]",
        )

    def restored(
        self,
        event: Recorded,
        rollback: RolledBack,
        state: dict[str, Any],
        timeline: Timeline,
        before: dict[str, Any],
    ) -> None:
        """Recount the abilities on the checks left standing; the page is the restored one."""
        campaign_id = event.campaign_id
        self._leave_pages(campaign_id, state)
        # Only a page with an ability used on one of its checks can have a row to recount.
        used = self._read_pages(campaign_id, "used = 1")
        changed = {}
        for key, entries in used.items():
            settled = [
                self._settle(campaign_id, entry, timeline)
                for entry in entries
                if timeline.undone_by(int(entry["version"])) is None
            ]
            if any(settled):
                changed[key] = entries
        self._write_pages(campaign_id, changed)
        restored = rollback.restored_state
        keys = self.query(
            "SELECT page FROM {trait_checks_pages} WHERE campaign_id = ?", (campaign_id,)
        )
        standing = [
            int(row["page"]) for row in keys if timeline.undone_by(int(row["page"])) is None
        ]
        if standing and restored.get("page"):
            page = max(standing)
            state["page"] = str(page)
            state["checks"] = self._read_pages(campaign_id, "page = ?", (page,))
        else:
            state["page"] = None

    recorders = recorders_of(
        {
            PageStarted: _page_started,
            CheckRolled: _check_rolled,
            AbilityUsed: _ability_used,
            ConditionCheckRolled: _condition_checked,
            InfectionTicked: _infection,
        }
    )


def _flag(value: Any) -> int | None:
    """A boolean as a 0/1 flag (None stays None)."""
    return None if value is None else int(bool(value))
