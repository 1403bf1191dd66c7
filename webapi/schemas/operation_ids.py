"""Every operation's ``operationId`` in the OpenAPI document: one name per (method, path), which
its view declares (``@blp.doc(operationId="sendCommand")``, the first line above the ``def``).

These names are a public contract. Client generators name their functions after them
(openapi-python-client: ``questlog_client.api.commands.send_command``; openapi-typescript:
``operations["sendCommand"]``), so renaming one breaks every client generated before the rename:
a name, once published, never changes. A route whose path changes keeps its name; a new route
declares a new one (``tests/api/test_operation_ids.py`` fails on a route without one). The names
are camelCase verbs for people, not method + path; docs/api-clients.md lists them all, in a table
generated from the document (``questlog reference operations --write docs/api-clients.md``),
which refuses to drop a published name.
"""

from __future__ import annotations

from typing import Any

from apispec import BasePlugin


class DuplicateOperationId(ValueError):
    """Two operations of one document declare the same ``operationId``."""


class OperationIds(BasePlugin):
    """An apispec plugin: a name a second operation declares is refused as the document is
    built. An operation that declares none is left without one, for
    ``tests/api/test_operation_ids.py`` to name it (a server still starts with a route added in
    development)."""

    def __init__(self) -> None:
        self.named: dict[str, tuple[str, str]] = {}
        """Each name declared so far, with the (method, path) it names."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any
    ) -> None:
        """Refuse a name of an operation of ``path`` that another operation declared first."""
        for method, operation in (operations or {}).items():
            if "operationId" not in operation:
                continue
            name, where = operation["operationId"], (method.lower(), path or "")
            first = self.named.setdefault(name, where)
            if first != where:
                raise DuplicateOperationId(f"operationId {name!r} names {first} and {where}")
