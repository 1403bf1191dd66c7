"""schemathesis hooks for tests/api/test_live_schemathesis.py (loaded through
``SCHEMATHESIS_HOOKS``): what the document says in words, as code, so that a run fails only on
what the document does not say.

``positive_data_acceptance`` (ST202) sends requests the document allows and expects them taken.
Some refusals are announced in words because OpenAPI 3.0 cannot state them: two parameters that go
together or not at all, a SQL statement's grammar, a signed bundle, relations between fields.
Each is a named cause in tests/api/refusal_causes.py, with why no schema can say it. A refusal is
dropped here only when **every** error it names is one of those causes for its operation (for a
command, for the command the body names); any other refusal stays a finding.
"""

from __future__ import annotations

from typing import Any

import schemathesis

from tests.api.refusal_causes import explained


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
