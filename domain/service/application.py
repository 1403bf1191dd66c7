"""Campaigns: their creation and their game's commands, a use case on the core.

The services of ``domain.service`` each have one reason to change (docs/architecture.md), and
each is a class that takes the ones it builds on in its constructor:

- ``domain.service.campaign_store`` and ``domain.service.commands_service``: the core, the one
  eventsourcing ``Application`` (the store, the campaign repository, running a command once:
  retries, store failures, idempotency, snapshots);
- ``domain.service.reading``: the queries (campaigns, events, rolls, the audit, checkpoints);
- ``domain.service.seeds``: the dice (secret server seeds, server and hand-rolled dice, seed
  changes);
- ``domain.service.tokens`` and ``domain.service.library``: access tokens and members; the
  group's library;
- here, ``Campaigns``: campaign creation and the game's own commands, on the core and the dice.

The use cases above (time travel, the table's actions, imports, bundles) take these in turn,
and ``Questlog`` (``domain.service.questlog``) builds each once on its core: the one object
callers use.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import domain.model.calendar_board
import domain.model.quest_calendar
from domain.model.access import actor_label, current_actor
from domain.model.campaign import Campaign
from domain.model.dice import draw as dicelib
from domain.model.errors import InvalidInput, NotHeld
from domain.model.event_records import event_record
from domain.model.games import rules_for
from domain.model.house_rules import GAMES, book, check_change
from domain.model.text import MAX_NAME_LENGTH, check_text
from domain.service.command_results import Idempotency, Outcome
from domain.service.commands_service import CommandService, Decided, Decision, Opening
from domain.service.seeds import (
    MAX_CLIENT_SEED_LENGTH,
    DiceChoice,
    DiceService,
    check_entropy_with,
)
from domain.storage.side_tables import SeedRecord

# Importing the game packages registers their commands, house rules and event types.
GAME_PACKAGES = (domain.model.calendar_board, domain.model.quest_calendar)


class Campaigns:
    """Campaign creation and the game's commands: each one a decision the core runs."""

    def __init__(self, app: CommandService, dice: DiceService) -> None:
        self.app = app
        self.dice = dice

    def create_campaign(
        self,
        *,
        game: str,
        name: str,
        house_rules: dict[str, Any] | None = None,
        client_seed: str | None = None,
        setup: dict[str, Any] | None = None,
        origin: dict[str, Any] | None = None,
        idempotency: Idempotency | None = None,
        public: bool | None = None,
    ) -> Outcome:
        """Start a campaign with its house rules, its game's setup and a committed server seed."""
        rules = book(game).resolve(house_rules)
        state = rules_for(game).initial_state(setup or {}, rules)
        return self.start_campaign(
            game=game,
            name=name,
            house_rules=rules,
            state=state,
            client_seed=client_seed,
            origin=origin,
            idempotency=idempotency,
            public=public,
        )

    def start_campaign(
        self,
        *,
        game: str,
        name: str,
        house_rules: dict[str, Any],
        state: dict[str, Any],
        client_seed: str | None = None,
        origin: dict[str, Any] | None = None,
        idempotency: Idempotency | None = None,
        public: bool | None = None,
    ) -> Outcome:
        """Start a campaign from the house rules in force and a game state (creation, forks).

        ``public`` (if given) is stored with the creation event, in the same transaction.
        """
        check_text("name", name, MAX_NAME_LENGTH)
        if client_seed is not None:
            check_text("client_seed", client_seed, MAX_CLIENT_SEED_LENGTH)
        opening = NewCampaign(game, name, house_rules, state, client_seed, origin)
        return self.app.store_new(opening, idempotency, public=public)

    def command(
        self,
        campaign_id: UUID,
        body: dict[str, Any],
        *,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Run a game command (``body["type"]``); faces in ``body["faces"]`` are hand-rolled."""
        if not isinstance(body, dict):
            raise InvalidInput.field("command", "must be a JSON object")
        faces, entropy = body.get("faces"), body.get("entropy")
        check_entropy_with(entropy, faces)
        decision = GameCommand(body, self.dice.source(faces, entropy, drawn_by_state=True))
        return self.app.execute(campaign_id, decision, expected_version, idempotency)

    def configure_house_rule(
        self,
        campaign_id: UUID,
        key: str,
        value: Any,
        *,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Change a house rule by a recorded event (QC-01). The body's own form is checked
        before ``If-Match`` (a malformed change is a 422 whatever version it names)."""
        decision = HouseRuleChange(key, value)
        return self.app.execute(campaign_id, decision, expected_version, idempotency)


@dataclass(frozen=True)
class NewCampaign(Opening):
    """A campaign to start: its game, name, house rules in force, state and seeds."""

    game: str
    name: str
    house_rules: dict[str, Any]
    state: dict[str, Any]
    client_seed: str | None
    origin: dict[str, Any] | None

    def open(self) -> tuple[Campaign, Decided]:
        """A new campaign (a new id) committed to a new secret server seed."""
        campaign_id = uuid4()
        seed = dicelib.new_server_seed()
        campaign = Campaign.start(
            campaign_id=campaign_id,
            game=self.game,
            name=self.name,
            house_rules=self.house_rules,
            commitment=dicelib.commitment_of(seed),
            client_seed=self.client_seed or dicelib.new_client_seed(),
            origin=self.origin,
            state=deepcopy(self.state),
        )
        seed_record = SeedRecord(str(campaign_id), dicelib.commitment_of(seed), seed)
        return campaign, Decided(campaign_facts(campaign), seed_record)


@dataclass(frozen=True)
class GameCommand(Decision):
    """A game command: its body (``type`` names the handler) and the dice it rolls."""

    body: dict[str, Any]
    source: DiceChoice

    def check(self, campaign: Campaign) -> None:
        """The body against the campaign's game: a command of the other game is not held (409),
        faces sent to a command that rolls none or a body its schema refuses are a 422."""
        game = rules_for(campaign.game)
        kind = self.body.get("type")
        if (
            isinstance(kind, str)
            and kind not in game.commands
            and any(kind in rules_for(g).commands for g in GAMES)
        ):
            known = ", ".join(sorted(game.commands))
            raise NotHeld("type", f"not a command of {campaign.game}; it knows: {known}")
        spec = game.spec(kind)
        if self.body.get("faces") and game.schemas[spec.name].takes_no_faces:
            # the document says so (maxItems 0): the body's own mistake, whatever the state
            raise InvalidInput.field("faces", "this command rolls no dice: send no faces")
        game.values(spec, self.body)

    def decide(self, campaign: Campaign) -> Decided:
        """The game's rules run the command with the dice; its events and the state after."""
        dice = self.source.dice(campaign)
        events = campaign.run_command(rules_for(campaign.game), self.body, dice)
        self.source.check_all_used(dice)
        return Decided({"events": [event_facts(e) for e in events], "state": campaign.view()})


@dataclass(frozen=True)
class HouseRuleChange(Decision):
    """A house rule's new value (QC-01)."""

    key: str
    value: Any

    def check(self, campaign: Campaign) -> None:
        """The change's own form: a known key and a value it takes."""
        check_change(self.key, self.value)

    def decide(self, campaign: Campaign) -> Decided:
        campaign.configure_house_rule(self.key, self.value)
        return Decided({"house_rules": deepcopy(campaign.house_rules)})


def campaign_facts(campaign: Campaign) -> dict[str, Any]:
    """What a new campaign's result says of it (its id, version and head hash are the result's)."""
    return {
        "game": campaign.game,
        "name": campaign.name,
        "commitment": campaign.dice["commitment"],
        "client_seed": campaign.dice["client_seed"],
        "origin": campaign.origin,
        "state": campaign.view(),
    }


def event_facts(event: Any) -> dict[str, Any]:
    """What a command's result says of each event it appended: the event as the event list shows
    it (``event_record``), who caused it, and that nothing has undone it yet."""
    return {
        **event_record(event),
        "undone": False,
        "undone_by": None,
        "actor": actor_label(current_actor()),
    }
