"""Every route refuses a query parameter it does not declare with a 422 naming it, and changes
nothing: a misspelt filter (``?campagin=``) must never answer with the whole store. The paged
routes of the log answer their cursor as ``next``, the name the views' pages use, beside the
earlier ``next_after``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.conftest import api_routes

GETS = [rule for rule, method in api_routes() if method == "GET"]


def concrete(rule: str, campaign: dict[str, Any], roll_id: str) -> str:
    """A route with its path parameters filled in for the test's campaign and its roll."""
    values = {"campaign": campaign["id"], "version": "1", "token_id": "none", "roll_id": roll_id}
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values.get(m.group(1), "1"), rule)


@pytest.mark.parametrize("rule", GETS)
def test_an_unknown_query_parameter_is_refused_with_its_name(
    client: FlaskClient, campaign: dict[str, Any], rule: str
) -> None:
    cid = campaign["id"]
    rolled = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6", "purpose": "test"})
    assert rolled.status_code == 201, rolled.json
    path = concrete(rule, campaign, rolled.json["roll_id"])
    response = client.get(path, query_string={"campagin": "x"})
    spec = client.get("/openapi.json").json
    openapi_path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule)
    declared = spec["paths"].get(openapi_path, {}).get("get", {}).get("parameters", [])
    if response.status_code != 422:
        # Only a route that takes no query parameters at all may answer as without one.
        assert not [p for p in declared if p["in"] == "query"], rule
        return
    body = response.json
    assert body["errors"]["campagin"] == ["Unknown field."]
    assert "campagin" in body["detail"]


def test_analytics_refuse_unknown_filters_and_bad_ranges(client: FlaskClient) -> None:
    for path in ("/analytics/campaigns", "/analytics/dice"):
        assert client.get(path, query_string={"campaign_id": "x"}).status_code == 422
        bad = client.get(path, query_string={"from_date": "2027-02-01", "to_date": "2027-01-01"})
        assert bad.status_code == 422 and bad.json["errors"] == {
            "to_date": ["must not be before from_date"]
        }
        rule = client.get(path, query_string={"house_rule": "nope=1"})
        assert rule.status_code == 422 and "unknown house rule" in str(rule.json["errors"])
        value = client.get(path, query_string={"house_rule": "cb.weather.nightGap=sometimes"})
        assert value.status_code == 422 and "house_rule[0]" in value.json["errors"]
        shape = client.get(path, query_string={"house_rule": "qc.combat.mode"})
        assert shape.status_code == 422 and "key=value" in str(shape.json["errors"])
        ok = client.get(
            path,
            query_string={
                "game": "calendar-board",
                "house_rule": ["cb.weather.nightGap=previous", "cb.hail.retriggerOnRepeat=true"],
                "from_night": 1,
                "to_night": 3,
                "from_date": "2027-01-01",
            },
        )
        assert ok.status_code == 200, ok.json


def test_the_logs_pages_answer_next(client: FlaskClient, campaign: dict[str, Any]) -> None:
    cid = campaign["id"]
    for path in ("/campaigns", f"/campaigns/{cid}/events", f"/campaigns/{cid}/rolls"):
        page = client.get(path, query_string={"limit": 1}).json
        assert "next" in page and page["next"] == page["next_after"], path
    events = client.get(f"/campaigns/{cid}/events", query_string={"limit": 1}).json
    if events["next"] is not None:
        following = client.get(f"/campaigns/{cid}/events", query_string={"after": events["next"]})
        assert following.json["items"][0]["version"] == events["next"] + 1
