"""The campaign service: campaigns, their commands and dice, on the services below.

Each service has one reason to change (docs/architecture.md):

- ``domain.service.reading``: the store and the queries (campaigns, events, rolls, audit);
- ``domain.service.commands_service``: running a command once (retries, store failures,
  idempotency);
- ``domain.service.seeds``: the dice (secret server seeds, server and hand-rolled dice, seed
  changes);
- ``domain.service.tokens``: access tokens.

Each is a class that builds on the one before it (``CommandService`` extends ``Reading``,
``DiceService`` extends ``CommandService``), because an eventsourcing ``Application`` is one
object with one store; ``CampaignService`` joins the last of them with ``TokenService`` and
``LibraryService`` and adds campaign creation and the game's own commands. The use cases above it
(time travel, the table's actions, imports, bundles) take it as their core, and ``Questlog``
(``domain.service.questlog``) builds them once on it: the one object callers use.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, ClassVar
from uuid import UUID, uuid4

import domain.model.calendar_board
import domain.model.quest_calendar
from domain.model.access import actor_label, current_actor
from domain.model.campaign import Campaign
from domain.model.dice import draw as dicelib
from domain.model.errors import InvalidInput, NotHeld
from domain.model.event_records import event_record, project_campaign
from domain.model.games import rules_for
from domain.model.house_rules import GAMES, book, check_change
from domain.model.text import MAX_NAME_LENGTH, check_text
from domain.service.command_results import Idempotency, Outcome
from domain.service.commands_service import SNAPSHOT_INTERVAL
from domain.service.library import LibraryService
from domain.service.seeds import (
    MAX_CLIENT_SEED_LENGTH,
    DiceService,
    ReportedDice,
    check_entropy_with,
)
from domain.service.tokens import TokenService
from domain.storage.side_tables import SeedRecord

# Importing the game packages registers their commands, house rules and event types.
GAME_PACKAGES = (domain.model.calendar_board, domain.model.quest_calendar)


class CampaignService(DiceService, TokenService, LibraryService):
    """Appends commands to campaign streams and reads them back.

    Its ``name`` stays ``Questlog``: eventsourcing names the store's tables and reads the
    environment (``QUESTLOG_...``) by it, so stores written before keep loading."""

    name = "Questlog"
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = {Campaign: SNAPSHOT_INTERVAL}
    snapshotting_projectors: ClassVar[dict[type[Any], Any]] = {Campaign: project_campaign}
    env: ClassVar[dict[str, str]] = {"AGGREGATE_CACHE_MAXSIZE": "500"}

    # -- commands -------------------------------------------------------------------------

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

        def start() -> Outcome:
            replay = self.replayed(idempotency)
            if replay is not None:
                return replay
            campaign_id = uuid4()
            seed = dicelib.new_server_seed()
            campaign = Campaign.start(
                campaign_id=campaign_id,
                game=game,
                name=name,
                house_rules=house_rules,
                commitment=dicelib.commitment_of(seed),
                client_seed=client_seed or dicelib.new_client_seed(),
                origin=origin,
                state=deepcopy(state),
            )
            seed_record = SeedRecord(str(campaign_id), dicelib.commitment_of(seed), seed)
            return self._save(
                campaign, campaign_facts(campaign), idempotency, seed=seed_record, public=public
            )

        return self._through_store_failures(start)

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

        def decide(campaign: Campaign) -> dict[str, Any]:
            game = rules_for(campaign.game)
            if faces is None:
                events = campaign.run_command(game, body, self.server_dice(campaign, entropy))
            else:
                reported = ReportedDice(faces, drawn_by_state=True)
                events = campaign.run_command(game, body, reported)
                reported.check_all_used()
            return {"events": [event_facts(e) for e in events], "state": campaign.view()}

        def shape(campaign: Campaign) -> None:
            game = rules_for(campaign.game)
            kind = body.get("type")
            if (
                isinstance(kind, str)
                and kind not in game.commands
                and any(kind in rules_for(g).commands for g in GAMES)
            ):
                known = ", ".join(sorted(game.commands))
                raise NotHeld("type", f"not a command of {campaign.game}; it knows: {known}")
            spec = game.spec(kind)
            if faces and game.schemas[spec.name].takes_no_faces:
                # the document says so (maxItems 0): the body's own mistake, whatever the state
                raise InvalidInput.field("faces", "this command rolls no dice: send no faces")
            game.values(spec, body)

        return self.execute(campaign_id, decide, expected_version, idempotency, shape=shape)

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

        def decide(campaign: Campaign) -> dict[str, Any]:
            campaign.configure_house_rule(key, value)
            return {"house_rules": deepcopy(campaign.house_rules)}

        def shape(_: Campaign) -> None:
            check_change(key, value)

        return self.execute(campaign_id, decide, expected_version, idempotency, shape=shape)


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
