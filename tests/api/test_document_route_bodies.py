"""The document is the contract, for every route but the commands route: requests generated from
the served OpenAPI document alone are refused (400/422) only for causes it cannot state.

Schemathesis generates each operation's requests (path and query parameters, headers, bodies)
from ``/openapi.json``, seeded so that a run is stable, and sends them to an app seeded with a
campaign of each game, a roll, a spare token, a member, a share and a library hero. Path
parameters that name something are pointed at what was seeded (a made-up campaign id is a 404,
which says nothing of the document). A 5xx fails. A 400/422 must have a cause on ``CANNOT_SAY``
(what JSON Schema in OpenAPI 3.0 cannot state, said in words in the operation's or parameter's
description); any other is a finding. ``-s`` prints the share refused per operation.

Not sent: the live stream (it never ends: tests/api/test_live_stream.py reads it in a thread) and
revoking the run's own token (it would end the run). The commands route has its own test
(tests/api/test_document_bodies.py).
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any

import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings

from domain.model import samples
from domain.service.questlog import Questlog
from tests.api.refusal_causes import ROUTE_CAUSES as CANNOT_SAY
from tests.api.refusal_causes import errors
from webapi.app import create_app

Json = dict[str, Any]
CI_CASES = 8
"""Requests per operation in CI: the whole test stays well under a minute."""
GOAL_SHARE = 0.05
"""The share of document-valid requests refused that the document aims to stay under."""
MAX_SHARE = 0.12
"""A ratchet: the share refused now must not grow; lower it as the document tightens, down to
``GOAL_SHARE``."""
OWN_TOKEN = "route-bodies"


def cases_per_operation() -> int:
    """How many requests each operation gets."""
    return int(os.environ.get("QUESTLOG_DOC_REQUESTS", CI_CASES))


@dataclass
class Seeded:
    """What the requests' path parameters are pointed at."""

    bearer: dict[str, str]
    campaigns: list[str]
    names: dict[str, str]


def seed(questlog: Questlog, app: Flask) -> Seeded:
    """A campaign of each game, a roll, a spare token, a member, a share and a library hero."""
    _, secret = questlog.access.create_token(OWN_TOKEN, admin=True)
    bearer = {"Authorization": f"Bearer {secret}"}
    client = app.test_client()

    def post(path: str, body: Json) -> Json:
        answer = client.post(path, json=body, headers=bearer)
        assert answer.status_code == 201, (path, answer.json)
        made: Json = answer.json
        return made

    qc = post("/campaigns", {"game": "quest-calendar", "name": "route bodies"})["id"]
    cb = post(
        "/campaigns",
        {
            "game": "calendar-board",
            "name": "route bodies",
            "setup": {"players": [{"id": "A"}, {"id": "B"}]},
        },
    )["id"]
    roll = post(f"/campaigns/{qc}/rolls", {"dice": "d20"})
    post("/admin/tokens", {"name": "spare"})
    member = post(f"/campaigns/{qc}/members", {"token_name": "spare", "role": "player"})
    post(f"/campaigns/{qc}/share", {})
    hero = post("/library/heroes", {"name": "Vanguard", "hero": samples.VANGUARD})
    names = {
        "roll_id": str(roll.get("id", roll.get("roll_id", ""))),
        "token": "spare",
        "token_id": str(member.get("token_id", "")),
        "entry_id": str(hero.get("id", "")),
    }
    return Seeded(bearer, [qc, cb], names)


class Tally:
    """What the requests got, per operation and per cause."""

    def __init__(self) -> None:
        self.answers: dict[str, Counter[int]] = {}
        self.causes: Counter[str] = Counter()
        self.findings: dict[tuple[str, str, str], str] = {}
        self.server_errors: list[str] = []

    def note(self, operation: str, request: str, status: int, answer: Json | None) -> None:
        """Count one answer; name a refusal's causes, or keep it as a finding."""
        self.answers.setdefault(operation, Counter())[status] += 1
        if status >= 500:
            self.server_errors.append(f"{operation} {status} <- {request}")
        if status not in (400, 422):
            return
        for field, message in errors(answer):
            cause = next((c for c in CANNOT_SAY if c.matches(operation, field, message)), None)
            if cause is None:
                self.findings.setdefault((operation, field, message), request)
            else:
                self.causes[f"{operation} {field}: {cause.message}"] += 1

    def refused(self, operation: str | None = None) -> int:
        """Refusals (400/422) in all or of one operation."""
        counts = self.answers.values() if operation is None else [self.answers[operation]]
        return sum(c[400] + c[422] for c in counts)

    def total(self) -> int:
        """Answers in all."""
        return sum(sum(c.values()) for c in self.answers.values())

    def report(self) -> str:
        """The figures, per operation and per cause."""
        lines = [f"{'operation':<64} {'sent':>4} {'refused':>7}"]
        for operation, counts in sorted(self.answers.items()):
            lines.append(f"{operation:<64} {sum(counts.values()):>4} {self.refused(operation):>7}")
        share = self.refused() / max(1, self.total())
        lines.append(f"{self.total()} document-valid requests: refused share {share:.1%}")
        lines += [f"  {count:>4} {cause}" for cause, count in self.causes.most_common()]
        lines += [f"  FINDING {o} {f}: {m} <- {r}" for (o, f, m), r in self.findings.items()]
        lines += [f"  SERVER ERROR {e}" for e in self.server_errors]
        return "\n".join(lines)


def skipped(case: Any, seeded: Seeded) -> bool:
    """Requests not sent: the endless live stream, and revoking the run's own token."""
    if case.path.endswith("/stream"):
        return True
    return bool((case.path_parameters or {}).get("token") == OWN_TOKEN)


def aim(case: Any, seeded: Seeded, turn: int) -> None:
    """Point path parameters naming something at what was seeded (each game's campaign in
    turn), so that a request meets a real thing rather than a 404."""
    params = case.path_parameters or {}
    if "campaign" in params:
        params["campaign"] = seeded.campaigns[turn % len(seeded.campaigns)]
    for name, value in seeded.names.items():
        if name in params and value:
            params[name] = value


def send_operation(operation: Any, seeded: Seeded, tally: Tally, count: int) -> None:
    """Generate ``count`` requests of one operation, derandomized, and send them."""
    label = f"{operation.method.upper()} {operation.path}"
    turn = [0]

    @given(case=operation.as_strategy())
    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    def send(case: Any) -> None:
        if skipped(case, seeded):
            return
        aim(case, seeded, turn[0])
        turn[0] += 1
        response = case.call(headers=seeded.bearer)
        try:
            answer = response.json()
        except ValueError:
            answer = None
        request = f"{case.formatted_path} {case.headers} {case.query} {case.body!r}"[:400]
        tally.note(
            label, request, response.status_code, answer if isinstance(answer, dict) else None
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        send()


def test_document_valid_requests_are_refused_only_for_causes_it_cannot_state(
    questlog: Questlog,
) -> None:
    app = create_app(questlog, auth=True, rate_limit=0, TESTING=True)
    seeded = seed(questlog, app)
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    tally = Tally()
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path == "/campaigns/{campaign}/commands":
            continue  # tests/api/test_document_bodies.py
        send_operation(operation, seeded, tally, cases_per_operation())
    print("\n" + tally.report())
    assert not tally.server_errors, tally.report()
    assert not tally.findings, tally.report()
    assert tally.refused() < MAX_SHARE * tally.total(), tally.report()
