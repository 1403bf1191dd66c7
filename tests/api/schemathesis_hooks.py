"""schemathesis hooks for tests/api/test_live_schemathesis.py (loaded through
``SCHEMATHESIS_HOOKS``): what the document says in words, as code, so that a run fails only on
what the document does not say.

``positive_data_acceptance`` (ST202) sends requests the document allows and expects them taken.
Some refusals are announced in words because OpenAPI 3.0 cannot state them: two parameters that go
together or not at all, a SQL statement's grammar, a signed bundle, relations between fields.
Each is a named cause in tests/api/test_document_route_bodies.py (every route) or
tests/api/test_document_bodies.py (the game commands), each with why no schema can say it. A
refusal is dropped here only when **every** error it names is one of those causes for its
operation (for a command, for the command the body names); any other refusal stays a finding.
"""

from __future__ import annotations

from typing import Any

import schemathesis

from tests.api import test_document_bodies as command_bodies
from tests.api import test_document_route_bodies as route_bodies

COMMANDS = "POST /campaigns/{campaign}/commands"
"""The operation whose refusals are judged by the game command's causes."""
REFUSALS = (400, 422)
"""The statuses of a refusal of the request itself (400 for a query the SQL engine refuses)."""


def explained(operation: str, body: Any, status: int, answer: Any) -> bool:
    """Whether a refusal is, error by error, one the document announces in words."""
    if status not in REFUSALS or not isinstance(answer, dict):
        return False
    command = str(body.get("type")) if operation == COMMANDS and isinstance(body, dict) else None
    pairs = route_bodies.errors(answer)
    return bool(pairs) and all(
        any(c.matches(operation, p, m) for c in route_bodies.CANNOT_SAY)
        or (
            command is not None and any(c.matches(command, p, m) for c in command_bodies.CANNOT_SAY)
        )
        for p, m in pairs
    )


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure but a schema-valid request refused for a cause said in words."""
    if failure.code != "ST202":
        return True
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    try:
        answer = response.json()
    except ValueError:
        return True
    return not explained(operation, case.body, response.status_code, answer)
