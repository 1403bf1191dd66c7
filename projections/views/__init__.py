"""The views: each module holds its tables, its event handlers and its query functions."""

from __future__ import annotations

from collections.abc import Iterable

from projections.view import View
from projections.views.board_nights import BoardNights
from projections.views.campaigns import CampaignSummary
from projections.views.combats import Combats
from projections.views.debt_ledger import DebtLedger
from projections.views.exhaustion import ExhaustionHistory
from projections.views.hero_timeline import HeroTimeline
from projections.views.house_rules import HouseRules
from projections.views.roll_log import RollLog
from projections.views.rollbacks import Rollbacks
from projections.views.ship import ShipHistory
from projections.views.stats import CampaignStats
from projections.views.trait_checks import TraitChecks
from projections.views.weather import WeatherHistory

ALL_VIEWS: tuple[type[View], ...] = (
    CampaignSummary,
    RollLog,
    ExhaustionHistory,
    WeatherHistory,
    DebtLedger,
    HeroTimeline,
    ShipHistory,
    CampaignStats,
    TraitChecks,
    Combats,
    Rollbacks,
    HouseRules,
    BoardNights,
)
BY_NAME = {view.name: view for view in ALL_VIEWS}


def resolve(views: Iterable[type[View] | str] | None = None) -> tuple[type[View], ...]:
    """View classes from classes or names (every view when None); unknown names raise KeyError."""
    if views is None:
        return ALL_VIEWS
    chosen: list[type[View]] = []
    for view in views:
        if isinstance(view, str):
            if view not in BY_NAME:
                raise KeyError(f"no view named {view!r}; the views are {', '.join(BY_NAME)}")
            view = BY_NAME[view]
        if view not in chosen:
            chosen.append(view)
    return tuple(chosen)
