"""Questlog: the one object callers use, the core with its use cases built on it.

``CommandService`` (``domain.service.commands_service``, on ``domain.service.campaign_store``)
is the core, the one eventsourcing ``Application``: the store, the campaign repository
(``campaign(id)``), a stream's events, the log, the signing key ring, and running a command once
(retries, store failures, idempotency, snapshots). Every use case is a class that takes the core
(and the use cases it builds on) in its constructor, and ``Questlog`` builds each once, when it
is opened, so every caller reaches them the same way:

- ``reading``: the queries: campaigns, events and rolls as shown, the audit, checkpoints
  (``Reading``);
- ``dice``: free rolls, client seeds, seed rotations and the secret server seeds
  (``DiceService``);
- ``access``: tokens, their secrets and the campaigns' members (``TokenService``);
- ``library``: the group's saved heroes and known items (``LibraryService``);
- ``campaigns``: campaign creation and the game's commands (``Campaigns``);
- ``time_travel``: the state at a time, replay, rollbacks, proposals and forks (``TimeTravel``);
- ``table``: what a campaign's head accepts now, for a caller (``TableActions``);
- ``imports``: storing a campaign from another instance's checked bundle (``CampaignImport``);
- ``bundles``: building and loading campaign bundles (``Bundles``);
- ``transparency``: the host's Merkle log, its signed checkpoints, tiles, proofs and witnesses
  (``Transparency``).
"""

from __future__ import annotations

from domain.service.actions import TableActions
from domain.service.application import Campaigns
from domain.service.bundles import Bundles
from domain.service.commands_service import CommandService
from domain.service.importing import CampaignImport
from domain.service.library import LibraryService
from domain.service.reading import Reading
from domain.service.seeds import DiceService
from domain.service.timetravel import TimeTravel
from domain.service.tokens import TokenService
from domain.service.transparency.log import Transparency
from domain.storage.store import StoreConfig


class Questlog(CommandService):
    """The core and its use cases, each built once for this application."""

    name = "Questlog"
    """As the core's: eventsourcing names the store and its environment (``QUESTLOG_...``) by it."""

    reading: Reading
    dice: DiceService
    access: TokenService
    library: LibraryService
    campaigns: Campaigns
    time_travel: TimeTravel
    table: TableActions
    imports: CampaignImport
    bundles: Bundles
    transparency: Transparency

    def __init__(self, config: StoreConfig | None = None, env: dict[str, str] | None = None):
        super().__init__(config, env)
        self.reading = Reading(self)
        self.dice = DiceService(self)
        self.access = TokenService(self)
        self.library = LibraryService(self)
        self.campaigns = Campaigns(self, self.dice)
        self.time_travel = TimeTravel(self, self.campaigns, self.reading)
        self.table = TableActions(self, self.time_travel)
        self.imports = CampaignImport(self, self.reading)
        self.bundles = Bundles(self, self.reading, self.imports)
        self.transparency = Transparency(self)

    def close(self) -> None:
        """Stop the witness submissions, then close the store."""
        self.transparency.close()
        super().close()
