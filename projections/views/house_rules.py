"""House rules in force: a row per campaign and house rule, with its value now (QC-01).

The set in force starts as ``questlog.CampaignCreated`` records it (every house rule, defaults
included), changes with each ``questlog.HouseRuleConfigured`` and is replaced by a rollback's
``restored_house_rules`` (the set at its target). So the table is not undoable: it never keeps a
value a rollback took back, it holds the values in force after the campaign's last event. Each row
says whether the value is the game's default and which version set it in force: the creation, the
configuration, or, after a rollback, the event that had set the restored value (the view keeps
each campaign's settings, and takes the latest one still on the active history that set that
value), else the rollback itself. The history of changes is in the event log.
"""

from __future__ import annotations

from typing import Any

from domain.facade import GAMES, Timeline, book, campaign_events
from projections.events import Recorded
from projections.filters import house_rule_value
from projections.schema import table
from projections.view import ROW_DOC, CampaignCreated, RolledBack, View, handles

HouseRuleConfigured = campaign_events.HouseRuleConfigured

HOUSE_RULES = table(
    "campaign_id TEXT NOT NULL",
    "game TEXT",
    "rule TEXT NOT NULL",
    "value TEXT",
    "is_default INTEGER",
    "default_value TEXT",
    "gap TEXT",
    "version BIGINT NOT NULL",
    "recorded_at TEXT NOT NULL",
    key=("campaign_id", "rule"),
    doc={
        "campaign_id": ROW_DOC["campaign_id"],
        "game": "The game, as the code names it: quest-calendar or calendar-board.",
        "rule": "The house rule's key, e.g. qc.combat.mode or cb.weather.nightGap.",
        "value": "Its value in force now (JSON).",
        "is_default": "Whether the value equals the game's default for the rule (as this "
        "release defines it); empty for a key this release does not know.",
        "default_value": "The game's default for the rule (JSON); empty for an unknown key.",
        "gap": "The gap of docs/rules.md the rule settles (G-QC-xx, G-CB-xx), if any.",
        "version": "The version of the event that set this value in force: the campaign's "
        "creation (1), a HouseRuleConfigured, or the rollback that restored it.",
        "recorded_at": "When that event was recorded (UTC).",
    },
    kinds={
        "value": "json",
        "is_default": "bool",
        "default_value": "json",
        "recorded_at": "timestamp",
    },
)


_json = house_rule_value


class HouseRules(View):
    """Per campaign and house rule: the value in force, whether default, and who set it."""

    name = "house_rules"
    tables = {"house_rules": HOUSE_RULES}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.changed: dict[tuple[str, str], tuple[Any, ...]] = {}

    @handles(CampaignCreated)
    def created(self, event: Recorded, created: CampaignCreated) -> None:
        """Every house rule in force at the start, defaults included."""
        state = self.state(event.campaign_id)
        state["game"] = created.game
        state["set"] = {}
        for rule, value in sorted(created.house_rules.items()):
            self._set(event, state, rule, value, event.version, event.timestamp)

    @handles(HouseRuleConfigured)
    def configured(self, event: Recorded, configured: HouseRuleConfigured) -> None:
        """A house rule changed after creation."""
        state = self.state(event.campaign_id)
        state.setdefault("set", {})
        self._set(
            event, state, configured.key, configured.new_value, event.version, event.timestamp
        )

    def _set(
        self,
        event: Recorded,
        state: dict[str, Any],
        rule: str,
        value: Any,
        version: int,
        recorded_at: str,
    ) -> None:
        history = state["set"].setdefault(rule, [])
        if not history or history[-1][0] < version:
            history.append([version, _json(value), recorded_at])
        self._write(event.campaign_id, state.get("game"), rule, value, version, recorded_at)

    def _write(
        self, campaign_id: str, game: Any, rule: str, value: Any, version: int, recorded_at: str
    ) -> None:
        known = book(str(game)).rules.get(rule) if game in GAMES else None
        default = None if known is None else _json(known.default)
        self.changed[(campaign_id, rule)] = HOUSE_RULES.row(
            campaign_id=campaign_id,
            game=game,
            rule=rule,
            value=_json(value),
            is_default=None if default is None else int(_json(value) == default),
            default_value=default,
            gap=None if known is None else known.gap,
            version=version,
            recorded_at=recorded_at,
        )

    def flush(self) -> None:
        """Write the rows set since the last statement (before any other statement)."""
        super().flush()
        changed, self.changed = self.changed, {}
        if changed:
            self.write_rows("house_rules", list(changed.values()), upsert=True)

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """The house rules at the target are in force again."""
        restored = rollback.restored_house_rules
        settings = state.setdefault("set", {})
        for rule in sorted(set(settings) - set(restored)):
            self.execute(
                "DELETE FROM {house_rules} WHERE campaign_id = ? AND rule = ?",
                (event.campaign_id, rule),
            )
            del settings[rule]
        for rule, value in sorted(restored.items()):
            # Every setting stays remembered: a redo can bring back one a rollback undid.
            history = settings.get(rule) or []
            standing = [h for h in history if timeline.undone_by(int(h[0])) is None]
            if standing and standing[-1][1] == _json(value):
                version, _, recorded_at = standing[-1]
            else:
                version, recorded_at = event.version, event.timestamp
            self._set(event, state, rule, value, version, recorded_at)
