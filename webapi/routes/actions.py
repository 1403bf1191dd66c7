"""The table page's guidance routes: what the state accepts now, and the sample scenario data."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import Caller, samples
from webapi.http import access
from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.actions import Actions, Samples

blp = Blueprint(
    "actions", __name__, description="Guidance: the commands the state accepts, and samples."
)


@blp.route("/campaigns/<campaign>/actions")
class CampaignActions(MethodView):
    @blp.doc(operationId="getActions")
    @blp.response(200, Actions)
    @requires("read")
    def get(self, campaign: str) -> Any:
        """The commands the current state accepts (by the rules), whose turn it is, and undo."""
        cid = campaign_id(campaign)
        me = access.me_on(str(cid))
        caller = Caller(seat=me["seat"], can_manage=me["can_manage"], can_propose=me["can_propose"])
        return questlog().table.actions(cid, caller)


@blp.route("/samples")
class SampleData(MethodView):
    @blp.doc(operationId="listSamples")
    @blp.response(200, Samples)
    @requires("any")
    def get(self) -> Any:
        """Sample heroes (select_hero bodies) and match set-ups to start from."""
        return samples.samples()
