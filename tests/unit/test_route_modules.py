"""The routes package finds its modules: every module of ``webapi/routes/`` is registered, in
the order the OpenAPI document was published in, and each blueprint in the document is named
after its module (the tag a route's operations carry)."""

from __future__ import annotations

from pathlib import Path

import flask_smorest

from webapi import routes

FOLDER = Path(routes.__file__).parent


def test_every_module_is_found_with_the_published_order_first() -> None:
    found = routes.names()
    on_disk = {path.stem for path in FOLDER.glob("*.py") if path.stem != "__init__"}
    assert set(found) == on_disk
    assert len(found) == len(on_disk)
    assert found[: len(routes.ORDER)] == list(routes.ORDER)
    rest = found[len(routes.ORDER) :]
    assert rest == sorted(rest)


PLAIN = ("checkpoint_qr", "page")
"""The route modules outside the API's document: the table page, and the checkpoint's QR image."""


def test_each_blueprint_in_the_document_is_named_after_its_module() -> None:
    documented, plain = routes.blueprints()
    assert [blueprint.name for blueprint in documented] == [
        name for name in routes.names() if name not in PLAIN
    ]
    assert all(isinstance(blueprint, flask_smorest.Blueprint) for blueprint in documented)
    assert [blueprint.name for blueprint in plain] == ["checkpoint_qr", "page"]
