"""Every operation's ``operationId`` in the OpenAPI document: one name per (method, path).

These names are a public contract. Client generators name their functions after them
(openapi-python-client: ``questlog_client.api.commands.send_command``; openapi-typescript:
``operations["sendCommand"]``), so renaming one breaks every client generated before the rename:
a name, once published, never changes. A route whose path changes keeps its name; a new route
gets a new name here (``tests/api/test_operation_ids.py`` fails on a route without one, and on
an entry that names no route). The names are camelCase verbs for people, not method + path, and
docs/api-clients.md lists them all.
"""

from __future__ import annotations

from typing import Any

from apispec import BasePlugin

OPERATION_IDS: dict[tuple[str, str], str] = {
    # campaigns
    ("get", "/campaigns"): "listCampaigns",
    ("post", "/campaigns"): "createCampaign",
    ("get", "/campaigns/{campaign}"): "getCampaign",
    ("get", "/campaigns/{campaign}/events"): "getCampaignEvents",
    ("get", "/campaigns/{campaign}/audit"): "auditCampaign",
    ("get", "/house-rules"): "listHouseRules",
    # dice
    ("get", "/campaigns/{campaign}/rolls"): "listRolls",
    ("post", "/campaigns/{campaign}/rolls"): "rollDice",
    ("get", "/campaigns/{campaign}/rolls/{roll_id}"): "getRoll",
    ("post", "/campaigns/{campaign}/dice/client-seed"): "setClientSeed",
    ("post", "/campaigns/{campaign}/dice/rotate"): "rotateServerSeed",
    # commands
    ("post", "/campaigns/{campaign}/commands"): "sendCommand",
    ("get", "/commands"): "listCommands",
    ("post", "/campaigns/{campaign}/house-rules"): "changeHouseRule",
    # timetravel
    ("post", "/campaigns/{campaign}/rollback"): "rollbackCampaign",
    ("get", "/campaigns/{campaign}/rollback/proposals"): "listRollbackProposals",
    ("post", "/campaigns/{campaign}/rollback/proposals"): "proposeRollback",
    ("post", "/campaigns/{campaign}/rollback/proposals/{proposal_id}/approve"): "approveRollback",
    ("post", "/campaigns/{campaign}/fork"): "forkCampaign",
    ("get", "/campaigns/{campaign}/replay"): "replayCampaign",
    # boards
    ("get", "/campaigns/{campaign}/modifiers"): "getBoardModifiers",
    # views
    ("get", "/campaigns/{campaign}/views/exhaustion-history"): "getExhaustionHistory",
    ("get", "/campaigns/{campaign}/views/debt-ledger"): "getDebtLedger",
    ("get", "/campaigns/{campaign}/views/charts"): "getCampaignCharts",
    ("get", "/campaigns/{campaign}/views/debt-spans"): "getDebtSpans",
    ("get", "/campaigns/{campaign}/views/hp-virtue"): "getHpVirtue",
    ("get", "/campaigns/{campaign}/views/hp-virtue/lives"): "getHeroLives",
    ("get", "/campaigns/{campaign}/views/rolls"): "getCampaignRollLog",
    ("get", "/views/rolls"): "getRollLog",
    ("get", "/campaigns/{campaign}/views/weather-wind"): "getWeatherWind",
    ("get", "/campaigns/{campaign}/views/ship"): "getShipIntegrity",
    ("get", "/campaigns/{campaign}/views/ship/losses"): "getShipLosses",
    ("get", "/campaigns/{campaign}/views/summary"): "getCampaignSummary",
    ("get", "/views/campaigns"): "listCampaignSummaries",
    ("get", "/projections"): "getProjectionStatus",
    # analytics, sql
    ("get", "/analytics/dice"): "getDiceAnalytics",
    ("get", "/campaigns/{campaign}/analytics/dice"): "getCampaignDiceAnalytics",
    ("get", "/analytics/campaigns"): "getCampaignAnalytics",
    ("get", "/analytics/sql"): "runSqlQuery",
    # access
    ("get", "/admin/tokens"): "listTokens",
    ("post", "/admin/tokens"): "createToken",
    ("delete", "/admin/tokens/{token}"): "revokeToken",
    ("get", "/campaigns/{campaign}/members"): "listMembers",
    ("post", "/campaigns/{campaign}/members"): "addMember",
    ("get", "/campaigns/{campaign}/me"): "getMyAccess",
    # table, evening, actions
    ("post", "/campaigns/{campaign}/share"): "createShareLink",
    ("get", "/campaigns/{campaign}/bundle"): "downloadBundle",
    ("get", "/campaigns/{campaign}/evening"): "exportEvening",
    ("get", "/campaigns/{campaign}/actions"): "getActions",
    ("get", "/samples"): "listSamples",
    # library
    ("get", "/library/heroes"): "listLibraryHeroes",
    ("post", "/library/heroes"): "saveLibraryHero",
    ("delete", "/library/heroes/{entry_id}"): "deleteLibraryHero",
    ("get", "/library/items"): "listLibraryItems",
    ("post", "/library/items"): "addLibraryItem",
    ("delete", "/library/items/{entry_id}"): "deleteLibraryItem",
    # invites, imports, live
    ("post", "/campaigns/{campaign}/invites"): "createInvite",
    ("delete", "/campaigns/{campaign}/members/{token_id}"): "removeMember",
    ("post", "/campaigns/import"): "importCampaign",
    ("get", "/campaigns/{campaign}/stream"): "streamCampaignEvents",
    # operations, trust
    ("get", "/healthz"): "checkHealth",
    ("get", "/readyz"): "checkReadiness",
    ("get", "/metrics"): "getMetrics",
    ("get", "/.well-known/questlog-key"): "getVerifierKeys",
    ("get", "/campaigns/{campaign}/checkpoint"): "getCheckpoint",
}
"""(lower-case method, path as the document spells it) → operationId."""


class OperationIds(BasePlugin):
    """An apispec plugin: each operation gets its ``operationId`` from ``OPERATION_IDS`` as it
    is registered. An operation missing from the table is left without one, for the test of
    the table to name it (a server still starts with a route added in development)."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any
    ) -> None:
        """Set the name of every operation of ``path`` that the table names."""
        for method, operation in (operations or {}).items():
            name = OPERATION_IDS.get((method.lower(), path or ""))
            if name is not None:
                operation["operationId"] = name
