"""Questlog: the one object callers use, the campaign service with its use cases built on it.

``CampaignService`` (``domain.service.application``) is the core: the store, campaigns, their
commands and dice, tokens, reading and the audit. The use cases above it each take that core, and
``Questlog`` builds each once, when it is opened, so every caller reaches them the same way:

- ``time_travel``: the state at a time, replay, rollbacks, proposals and forks (``TimeTravel``);
- ``table``: what a campaign's head accepts now, for a caller (``TableActions``);
- ``imports``: storing a campaign from another instance's checked bundle (``CampaignImport``);
- ``bundles``: building and loading campaign bundles (``Bundles``).
"""

from __future__ import annotations

from domain.service.actions import TableActions
from domain.service.application import CampaignService
from domain.service.bundles import Bundles
from domain.service.importing import CampaignImport
from domain.service.timetravel import TimeTravel
from domain.storage.store import StoreConfig


class Questlog(CampaignService):
    """The campaign service and its use cases, each built once for this application."""

    name = "Questlog"
    """As the core's: eventsourcing names the store and its environment (``QUESTLOG_...``) by it."""

    time_travel: TimeTravel
    table: TableActions
    imports: CampaignImport
    bundles: Bundles

    def __init__(self, config: StoreConfig | None = None, env: dict[str, str] | None = None):
        super().__init__(config, env)
        self.time_travel = TimeTravel(self)
        self.table = TableActions(self, self.time_travel)
        self.imports = CampaignImport(self)
        self.bundles = Bundles(self, self.imports)
