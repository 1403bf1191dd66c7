"""Trust routes: the service's verifier keys and a signed checkpoint of a campaign's head."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.trust import HeadCheckpoint, ServiceKeys

blp = Blueprint("trust", __name__, description="Signed checkpoints and the keys that verify them.")


def service_keys() -> dict[str, Any]:
    """The log name and every listed verifier key, as ``ServiceKeys`` shows them."""
    ring = questlog().key_ring.current()
    return {
        "log_name": ring.log_name,
        "key": ring.signer.verifier.text,
        "keys": [listed.as_dict() for listed in ring.keys],
    }


@blp.route("/.well-known/questlog-key")
class WellKnownKey(MethodView):
    @blp.doc(operationId="getVerifierKeys")
    @blp.response(200, ServiceKeys)
    @blp.doc(security=[])
    @requires("public")
    def get(self) -> Any:
        """The service's verifier keys (no token): checkpoints are signed with the current one."""
        return service_keys()


@blp.route("/campaigns/<campaign>/checkpoint")
class CampaignCheckpoint(MethodView):
    @blp.doc(operationId="getCheckpoint")
    @blp.response(200, HeadCheckpoint)
    @requires("read")
    def get(self, campaign: str) -> Any:
        """A signed checkpoint of the campaign's head (version and head hash)."""
        found, note = questlog().reading.head_checkpoint(campaign_id(campaign))
        return {
            "campaign_id": found.id,
            "version": found.version,
            "head_hash": found.head_hash,
            "checkpoint": note,
        }, {"ETag": f'"{found.version}"'}
