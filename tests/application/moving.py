"""A campaign to move between instances, and its bundle as a download carries it (the import
tests of the application, the API and the views)."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from domain.model.access import Token, acting_as
from domain.service.questlog import Questlog
from tests.application.qc_week_data import HERO

SELECT_HERO = {"type": "select_hero", "phase": "main", "hero": HERO}


def played(app: Questlog) -> UUID:
    """A campaign with server and reported rolls, a rotation, a game command and a rollback."""
    cid = app.campaigns.create_campaign(
        game="quest-calendar",
        name="Moving house",
        house_rules={"rollback_over_server_rolls": "allow"},
        setup={"prologue_complete": True},
    ).campaign_id
    with acting_as(Token("t1", "gm", admin=False)):
        app.dice.roll(cid, notation="2d6+1", purpose="first")
        app.dice.roll(cid, notation="d20", purpose="by hand", faces=[17])
        app.dice.rotate_seed(cid)
        app.campaigns.command(cid, dict(SELECT_HERO))
        app.dice.roll(cid, notation="d8", purpose="undone soon")
    app.time_travel.rollback(cid, to_version=app.campaign(cid).version - 1, reason="mistake")
    app.dice.roll(cid, notation="d8", purpose="under the source's last commitment")
    return cid


def exported(app: Questlog, cid: UUID) -> dict[str, Any]:
    """The campaign's bundle, as the file a download writes."""
    loaded: dict[str, Any] = json.loads(json.dumps(app.bundles.build(cid), sort_keys=True))
    return loaded
