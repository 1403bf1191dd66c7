"""An event rewritten under the host's Merkle log is shown where an operator looks: ``GET
/readyz`` lists it (``log_conflicts``) and ``questlog log checkpoint`` names it and exits 1.

C2SP tlog-witness: a log only appends, so an event the tree holds with another hash than the
store's is never appended again (tests/application/test_tlog_restore.py); the server goes on
serving and says so. Both stores.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from click.testing import CliRunner

from domain.service.questlog import Questlog
from tests.api.conftest import client_as
from tests.application.test_tlog_restore import more_rolls, rewrite_hash
from webapi.app import create_app
from webapi.cli.main import main


def store_env(app: Questlog) -> dict[str, str]:
    config = app.config
    if config.sqlite_path is not None:
        return {"QUESTLOG_DB": str(config.sqlite_path)}
    assert config.database_url is not None and config.postgres_schema is not None
    return {
        "QUESTLOG_DATABASE_URL": config.database_url,
        "QUESTLOG_PG_SCHEMA": config.postgres_schema,
    }


def test_readyz_and_log_checkpoint_name_an_event_rewritten_under_the_log(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    campaign = new_campaign(name="Rewritten")
    more_rolls(app, [campaign], 2)
    client = client_as(create_app(app, auth=True, rate_limit=0, TESTING=True), None)
    assert client.get("/readyz").json["log_conflicts"] == []
    app.transparency.integrate()
    rewrite_hash(app, campaign, 2)
    app.transparency.integrate()
    answer = client.get("/readyz")
    assert answer.status_code == 200, answer.json
    assert answer.json["log_conflicts"] == [{"campaign_id": str(campaign), "version": 2}]
    result = CliRunner().invoke(main, ["log", "checkpoint"], env=store_env(app))
    assert result.exit_code == 1, result.output
    assert f"campaign {campaign} version 2 is in the log with hash" in result.output
    assert "rewritten under the log" in result.output
