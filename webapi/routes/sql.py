"""``GET /analytics/sql``: read-only DuckDB SQL over the analyst's dataset (``projections.sql``)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import RAISE

from projections.dataset import Scope
from projections.sql import run_sql
from webapi.http.declared import requires
from webapi.http.plumbing import questlog
from webapi.http.view_store import views_store
from webapi.schemas.sql import SqlAnswer, SqlQuery

blp = Blueprint(
    "sql",
    __name__,
    description="SQL: one read-only SELECT over the views' tables and the event log, the tables "
    "of questlog export --all (docs/analytics.md).",
)


@blp.route("/analytics/sql")
class Sql(MethodView):
    @blp.doc(operationId="runSqlQuery")
    @blp.arguments(SqlQuery, location="query", unknown=RAISE)
    @blp.response(200, SqlAnswer)
    @blp.alt_response(400, response="BAD_REQUEST")
    @requires("analyse")
    def get(self, query: dict[str, Any]) -> Any:
        """Run one read-only SELECT over the views' tables and the event log (admin, analyst).

        A refused or failed query is a 400 that names why; one out of time is a 503.
        """
        campaign = query.get("campaign")
        answer = run_sql(
            questlog(),
            views_store(),
            query["q"],
            scope=Scope(None if campaign is None else str(campaign), query.get("game")),
            limit=query["limit"],
            timeout=query["timeout"],
        )
        return {
            "columns": [{"name": name, "type": kind} for name, kind in answer.columns],
            "rows": answer.rows,
            "truncated": answer.truncated,
            "positions": answer.positions,
            "tables": answer.tables,
        }
