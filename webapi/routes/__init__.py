"""The routes, one module per resource, each with its blueprint ``blp``: ``blueprints()`` finds
every module of this package, so a new route module is registered by being here.

A flask-smorest blueprint is in the OpenAPI document, under a tag named after it; a plain Flask
one (the table page's, ``page.py``) is not. The document lists the resources of ``ORDER`` first,
in that order (the order it was published in), then any other module's by name.
"""

from __future__ import annotations

import importlib
import pkgutil

import flask
import flask_smorest

ORDER = (
    "campaigns",
    "dice",
    "commands",
    "timetravel",
    "boards",
    "views",
    "analytics",
    "sql",
    "access",
    "table",
    "evening",
    "actions",
    "library",
    "invites",
    "imports",
    "live",
    "operations",
    "trust",
)
"""The route modules first in the OpenAPI document, in its order."""


def names() -> list[str]:
    """Every route module's name, in the document's order: ``ORDER``'s, then the others by name."""
    found = sorted(module.name for module in pkgutil.iter_modules(__path__))
    return [*ORDER, *(name for name in found if name not in ORDER)]


def blueprints() -> tuple[list[flask_smorest.Blueprint], list[flask.Blueprint]]:
    """Every route module's blueprint, in the document's order: those in the document (the API),
    and the plain Flask ones (the table page)."""
    documented: list[flask_smorest.Blueprint] = []
    plain: list[flask.Blueprint] = []
    for name in names():
        blueprint = importlib.import_module(f"{__name__}.{name}").blp
        if isinstance(blueprint, flask_smorest.Blueprint):
            documented.append(blueprint)
        else:
            plain.append(blueprint)
    return documented, plain
