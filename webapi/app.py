"""The Flask application factory."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flask import Flask
from flask_smorest import Api

from domain import settings
from domain.facade import Questlog, bundles, rules_for
from webapi import routes
from webapi.http import access, errors, limits, metrics, observability, plumbing
from webapi.http import live as live_streams
from webapi.routes import imports, operations
from webapi.schemas import catalogue, house_rules, info, openapi, operation_ids
from webapi.schemas.openapi import Problem

MAX_BODY_BYTES = 1024 * 1024


class QuestlogApi(Api):
    """flask-smorest's Api with errors rendered by ``webapi.http.errors`` (problem+json)."""

    ERROR_SCHEMA = Problem

    def _register_error_handlers(self) -> None:
        """Leave error handling to ``webapi.http.errors.register``."""

    def _register_responses(self) -> None:
        """Document every error response as problem+json (``webapi.schemas.openapi``)."""
        openapi.register_problem_responses(self.spec, self.ERROR_SCHEMA)


def create_app(
    questlog: Questlog | None = None,
    *,
    auth: bool | str | None = None,
    rate_limit: float | None = None,
    rate_limit_exempt: Iterable[str] | None = None,
    max_streams: int | None = None,
    ready_max_lag: int | None = None,
    **config: Any,
) -> Flask:
    """Build the API around a Questlog application (one is opened from the environment if none).

    ``auth`` turns access control on or off (default: QUESTLOG_AUTH, else on); ``rate_limit`` is
    the appends per second each token may make (default: QUESTLOG_RATE_LIMIT; 0 is no limit);
    ``rate_limit_exempt`` the token ids it does not count (default: QUESTLOG_RATE_LIMIT_EXEMPT);
    ``max_streams`` the live streams open at once (default: QUESTLOG_MAX_STREAMS, else 64);
    ``ready_max_lag`` the events a view may lag and ``/readyz`` still answer ready (default:
    QUESTLOG_READY_MAX_LAG, else 1000). Every environment variable is read and checked first
    (``domain.settings``): a bad one is a ``SettingError`` naming it, before anything is opened.
    """
    settings.read()
    plumbing.refuse_unknown_query_parameters()
    app = Flask("questlog")
    app.url_rule_class = plumbing.CampaignRule
    app.config.update(
        API_TITLE="Questlog",
        API_VERSION="1.0",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        JSON_SORT_KEYS=False,
    )
    app.config.update(config)
    app.extensions["questlog"] = questlog = questlog or Questlog()
    api = QuestlogApi(
        app,
        spec_kwargs={
            "extra_plugins": [
                openapi.ProblemResponses(app),
                openapi.SchemaDescriptions(),
                openapi.RefusedShapes(),
                operation_ids.OperationIds(),
            ],
            "info": {"description": info.DESCRIPTION},
        },
    )
    api.ma_plugin.converter.add_attribute_function(openapi.object_default_in_words)
    api.ma_plugin.converter.add_attribute_function(openapi.object_before_null)
    register_routes(app, api)
    register_components(api)
    observability.install(app)  # first: every request, even one refused early, gets an id
    metrics.install(app, questlog.counters, operations.views_report)
    operations.install(app, ready_max_lag)
    limits.install(app, {imports.ENDPOINT: bundles.MAX_BUNDLE_BYTES})
    live_streams.install(app, questlog, max_streams)
    access.install(app, auth=auth, rate_limit=rate_limit, rate_limit_exempt=rate_limit_exempt)
    errors.register(app)
    return app


def register_routes(app: Flask, api: Api) -> None:
    """Every route module's blueprint (``webapi.routes.blueprints``): the API's in the document's
    order, then the table page's (plain Flask, not in the document)."""
    documented, plain = routes.blueprints()
    for blueprint in documented:
        api.register_blueprint(blueprint)
    for blueprint in plain:
        app.register_blueprint(blueprint)


def register_components(api: Api) -> None:
    """The game commands' and setups' schemas as components of the document, and its bearer
    security scheme."""
    for entry in catalogue.COMMANDS.values():
        summary = rules_for(entry.game).commands[entry.name].summary
        api.spec.components.schema(
            entry.component, component={"description": summary}, schema=entry.schema
        )
    for name, schema in catalogue.setup_schemas().items():
        api.spec.components.schema(name, schema=schema)
    for name, component in house_rules.by_game_components().items():
        api.spec.components.schema(name, component)
    stated, values = house_rules.change_schema()
    for name, component in values.items():
        api.spec.components.schema(name, component)
    change = api.spec.components.schemas["HouseRuleChange"]
    change.clear()
    change.update(stated)
    for name, schema in catalogue.inline_schemas().items():
        if name not in api.spec.components.schemas:
            api.spec.components.schema(name, schema=schema)
    for name, documents in catalogue.stated_together().items():
        catalogue.state_together(api.spec.components.schemas[name], documents)
    for name in catalogue.command_components():
        catalogue.null_alone(api.spec.components.schemas[name])
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    api.spec.options["security"] = [{"bearer": []}]
