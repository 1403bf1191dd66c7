"""One campaign's dice fairness, for any reader of it (the table page's dice chart)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from tests.api.conftest import client_as
from webapi.app import create_app
from webapi.http.view_store import close_views


@pytest.fixture
def api(questlog: Questlog) -> Iterator[Flask]:
    flask_app = create_app(questlog, auth=True, rate_limit=0, TESTING=True)
    yield flask_app
    close_views(flask_app)


def test_any_reader_of_a_campaign_gets_its_dice_fairness(
    questlog: Questlog, api: Flask, admin_token: str
) -> None:
    owner: FlaskClient = client_as(api, admin_token)
    cid = owner.post("/campaigns", json={"game": "quest-calendar", "name": "dice"}).json["id"]
    for _ in range(30):
        rolled = owner.post(f"/campaigns/{cid}/rolls", json={"dice": "d6", "purpose": "p"})
        assert rolled.status_code == 201
    other = owner.post("/campaigns", json={"game": "quest-calendar", "name": "other"}).json["id"]
    rolled = owner.post(f"/campaigns/{other}/rolls", json={"dice": "d8", "purpose": "p"})
    assert rolled.status_code == 201
    viewer = client_as(api, owner.post(f"/campaigns/{cid}/share", json={}).json["token"])
    head = questlog.recorder.max_notification_id()

    answer = viewer.get(f"/campaigns/{cid}/analytics/dice?wait_for={head}")

    assert answer.status_code == 200, answer.json
    assert [d["sides"] for d in answer.json["dice"]] == [6]  # not the other campaign's d8
    assert sum(answer.json["dice"][0]["faces"].values()) == 30
    assert viewer.get(f"/campaigns/{other}/analytics/dice").status_code == 404
    assert viewer.get("/analytics/dice").status_code == 403
