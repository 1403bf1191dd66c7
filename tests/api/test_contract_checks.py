"""The contract checks themselves (tests/contract.py): an answer the document does not describe
fails with the method, path, status and error; one it describes passes; a known one is counted."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from flask import Flask

from domain.service.questlog import Questlog
from tests import contract
from webapi.app import create_app


@pytest.fixture
def open_app(questlog: Questlog) -> Iterator[Flask]:
    """The API without access control; whatever a test records is cleared after it."""
    yield create_app(questlog, auth=False, rate_limit=0, TESTING=True)
    contract.FOUND.clear()


def test_every_flask_test_client_checks_its_answers(open_app: Flask) -> None:
    assert isinstance(open_app.test_client(), contract.ContractClient)


def test_a_described_answer_passes(open_app: Flask) -> None:
    answer = open_app.test_client().get("/healthz")
    assert answer.status_code == 200
    contract.check(open_app, answer)
    assert contract.FOUND == []


def test_a_body_off_its_schema_fails_naming_method_path_status_and_field(open_app: Flask) -> None:
    answer = open_app.test_client().post("/campaigns", json={"game": "quest-calendar", "name": "x"})
    body = answer.get_json()
    body["version"] = "one"
    answer.set_data(json.dumps(body))
    with pytest.raises(AssertionError) as refused:
        contract.check(open_app, answer)
    contract.FOUND.clear()  # met on purpose: not this test's failure
    message = str(refused.value)
    assert message.startswith("POST /campaigns answered 201"), message
    assert "version: 'one' is not of type 'integer'" in message, message


def test_an_undocumented_status_fails(open_app: Flask) -> None:
    answer = open_app.test_client().get("/healthz")
    answer.status_code = 418
    with pytest.raises(AssertionError, match=r"GET /healthz answered 418"):
        contract.check(open_app, answer)
    contract.FOUND.clear()  # met on purpose: not this test's failure


def test_a_known_nonconformance_is_counted_and_fails_nothing(
    open_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(contract, "KNOWN_NONCONFORMANCES", frozenset({("GET", "/healthz", 418)}))
    answer = open_app.test_client().get("/healthz")
    answer.status_code = 418
    met = len(contract.KNOWN_MET)
    contract.check(open_app, answer)
    assert len(contract.KNOWN_MET) == met + 1
    assert contract.FOUND == []


def test_the_table_page_and_the_document_are_not_checked(open_app: Flask) -> None:
    client = open_app.test_client()
    for path in ("/", "/app/", "/openapi.json"):
        answer = client.get(path)
        answer.status_code = 418
        contract.check(open_app, answer)
    assert contract.FOUND == []
