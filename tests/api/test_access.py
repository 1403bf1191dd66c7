"""Access control: tokens, roles per campaign, 401/403/404/429, actors, secret seeds."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner
from flask import Flask

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.api.conftest import TokenClient, client_as
from tests.api.test_cli_and_server import QUESTLOG
from webapi.app import create_app
from webapi.cli.main import main
from webapi.http.rate_limits import exempt_setting
from webapi.routes import page

ROLES = ("owner", "player", "viewer", "auditor")
CALLERS = ("admin", "analyst", *ROLES, "outsider", "anonymous")
MAY: dict[str, set[str]] = {
    "read": {"owner", "player", "viewer", "auditor"},
    "audit": {"owner", "auditor"},
    "append": {"owner", "player"},
    "manage": {"owner"},
    "propose": {"owner"},  # a player proposes only for its own seat; the matrix sends none
    # approvals come from a seat: a player names its own (the matrix names none); an owner may
    # agree for the seats no member holds, so an approval naming none reaches the schema (422)
    "approve": {"owner"},
}
"""What each role may do on a private campaign it belongs to, by kind of action."""
ADMIN_ONLY = (
    "/admin/",
    "/views/rolls",
    "/views/campaigns",
    "/analytics/",
    "/projections",
    "/metrics",
    "/campaigns/import",
)
ANALYST_READS = ("/views/rolls", "/views/campaigns", "/analytics/")
"""The cross-campaign routes an analyst token may read besides every campaign's read routes."""
OPEN = ("/healthz", "/readyz", "/.well-known/questlog-key")
"""The health checks a load balancer calls without a token, and the verifier keys anyone checks a
checkpoint with."""
PUBLIC_LOG = "/log/"
"""The host's Merkle log: its checkpoint, tiles and policy are read without a token, so that any
witness or monitor can follow it (docs/trust.md); signing one on demand takes a token."""


class Cast:
    """An app with one private campaign and a token for every role."""

    def __init__(self, questlog: Questlog, *, game: str = "quest-calendar", rate: float = 0):
        self.app = create_app(questlog, auth=True, rate_limit=rate, TESTING=True)
        self.questlog = questlog
        self.secrets: dict[str, str] = {}
        for name in ("admin", *ROLES, "outsider"):
            _, self.secrets[name] = questlog.access.create_token(name, admin=name == "admin")
        _, self.secrets["analyst"] = questlog.access.create_token("analyst", role="analyst")
        setup = {"players": [{"id": "A"}, {"id": "B"}]} if game == "calendar-board" else {}
        created = self.as_("owner").post(
            "/campaigns", json={"game": game, "name": "Private", "setup": setup}
        )
        assert created.status_code == 201, created.json
        self.cid: str = created.json["id"]
        for role in ("player", "viewer", "auditor"):
            seat = {"seat": "A"} if role == "player" else {}
            added = self.as_("owner").post(
                f"/campaigns/{self.cid}/members", json={"token_name": role, "role": role, **seat}
            )
            assert added.status_code == 201, added.json

    def as_(self, caller: str) -> TokenClient:
        """A client acting as one of the cast (``anonymous``: no token)."""
        return client_as(self.app, self.secrets.get(caller))


@pytest.fixture
def cast(questlog: Questlog) -> Cast:
    return Cast(questlog)


def action(rule: str, method: str) -> str:
    """The kind of action a campaign route is, written out independently of webapi.http.access."""
    if method == "GET":
        return {"/audit": "audit", "/members": "manage"}.get(rule[rule.rfind("/") :], "read")
    for suffix, kind in (
        ("/commands", "append"),
        ("/rolls", "append"),
        ("/rollback/proposals", "propose"),
        ("/approve", "approve"),
    ):
        if rule.endswith(suffix):
            return kind
    return "manage"


def expected(caller: str, rule: str, method: str) -> int | None:
    """The refusal a caller must get (None: allowed)."""
    if rule.startswith("/openapi") or rule == "/" or rule.startswith("/app/"):
        return None  # the OpenAPI document and the table page's shell hold no data
    if rule in OPEN or (method == "GET" and rule.startswith(PUBLIC_LOG)):
        return None
    if caller == "anonymous":
        return 401
    if caller == "admin":
        return None
    if caller == "analyst":
        return analyst_refusal(rule, method)
    if rule.startswith(ADMIN_ONLY):
        return 403
    if "<campaign>" not in rule:
        return None
    if caller == "outsider":
        return 404
    return None if caller in MAY[action(rule, method)] else 403


def analyst_refusal(rule: str, method: str) -> int | None:
    """An analyst reads every campaign and the cross-campaign views and analytics; it may not
    create a campaign, play, audit, manage, add to the group's library, or use the other admin
    routes."""
    if rule.startswith(ANALYST_READS):
        return None
    if rule.startswith("/library/"):
        return None if method == "GET" else 403
    if rule.startswith(ADMIN_ONLY) or (rule == "/campaigns" and method == "POST"):
        return 403
    if "<campaign>" not in rule:
        return None
    return None if action(rule, method) == "read" else 403


def routes(app: Flask) -> list[tuple[str, str]]:
    """Every (rule, method) of the app but the static files and the table page."""
    return sorted(
        (rule.rule, method)
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
        and rule.endpoint not in page.OPEN  # the table page: tests/api/test_page_routes.py
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
    )


def refusal(response: Any) -> int | None:
    """The access refusal a response is, if it is one (a domain 404 is not)."""
    if response.status_code in (401, 403, 429):
        return int(response.status_code)
    if response.status_code == 404 and "this token may see" in response.json["detail"]:
        return 404
    return None


def test_every_route_against_every_role_and_an_anonymous_caller(cast: Cast) -> None:
    wrong: list[str] = []
    for rule, method in routes(cast.app):
        path = (
            rule.replace("<campaign>", cast.cid)
            .replace("<roll_id>", "1-1")
            .replace("<proposal_id>", "no-such-proposal")
            .replace("<token>", "no-such-token")
        )
        query = "?game=quest-calendar" if rule in ("/house-rules", "/commands") else ""
        for caller in CALLERS:
            client = cast.as_(caller)
            body = {} if method in ("POST", "PUT", "PATCH") else None
            response = client.open(path + query, method=method, json=body)
            want, got = expected(caller, rule, method), refusal(response)
            if want != got:
                wrong.append(f"{caller} {method} {rule}: wanted {want}, got {response.status_code}")
    assert not wrong, "\n".join(wrong)


def test_no_token_or_a_bad_one_is_401_with_a_bearer_challenge(cast: Cast) -> None:
    for headers in ({}, {"Authorization": "Bearer ql_not-a-token"}, {"Authorization": "Basic x"}):
        response = cast.as_("anonymous").get("/campaigns", headers=headers)
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        assert response.mimetype == "application/problem+json"


def test_a_revoked_token_stops_working_at_once(cast: Cast) -> None:
    viewer = cast.as_("viewer")
    assert viewer.get(f"/campaigns/{cast.cid}").status_code == 200
    assert cast.as_("admin").delete("/admin/tokens/viewer").status_code == 200
    assert viewer.get(f"/campaigns/{cast.cid}").status_code == 401
    cast.questlog.access.revoke_token("auditor")
    assert cast.as_("auditor").get(f"/campaigns/{cast.cid}/audit").status_code == 401


def test_a_private_campaign_is_404_to_outsiders_and_hidden_from_their_list(cast: Cast) -> None:
    outsider = cast.as_("outsider")
    assert outsider.get(f"/campaigns/{cast.cid}").status_code == 404
    assert outsider.get("/campaigns").json["items"] == []
    assert [c["id"] for c in cast.as_("viewer").get("/campaigns").json["items"]] == [cast.cid]


def test_a_public_campaign_is_readable_by_every_token_but_not_writable(cast: Cast) -> None:
    made = cast.as_("owner").post(
        "/campaigns", json={"game": "quest-calendar", "name": "Open", "public": True}
    )
    outsider = cast.as_("outsider")
    assert outsider.get(f"/campaigns/{made.json['id']}").status_code == 200
    refused = outsider.post(f"/campaigns/{made.json['id']}/rolls", json={"dice": "d20"})
    assert refused.status_code == 403


def test_every_event_records_its_actor(cast: Cast) -> None:
    cast.as_("player").post(f"/campaigns/{cast.cid}/rolls", json={"dice": "d20"})
    events = cast.as_("auditor").get(f"/campaigns/{cast.cid}/events").json["items"]
    actors = [e["actor"].split("#")[0] for e in events]
    assert actors == ["owner", "player"]


def test_events_stored_before_actors_were_recorded_still_load_and_verify(
    questlog: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Events stored before access control have no actor row and were hashed without one.
    monkeypatch.setattr("domain.model.campaign.actor_label", lambda token: None)
    monkeypatch.setattr("domain.service.commands_service.actor_label", lambda token: None)
    created = questlog.campaigns.create_campaign(
        game="quest-calendar", name="Before access control"
    )
    cid = created.campaign_id
    questlog.dice.roll(cid, notation="d20", purpose="before")
    monkeypatch.undo()
    questlog.dice.roll(cid, notation="d20", purpose="after")
    cast = Cast(questlog)
    events = cast.as_("admin").get(f"/campaigns/{cid}/events").json["items"]
    assert [e["actor"] for e in events] == [None, None, "system"]
    assert cast.as_("admin").get(f"/campaigns/{cid}/audit").json["ok"] is True


def test_a_player_acts_only_for_its_own_seat_in_a_match(questlog: Questlog) -> None:
    cast = Cast(questlog, game="calendar-board")
    player = cast.as_("player")
    other = player.post(f"/campaigns/{cast.cid}/commands", json={"type": "pass", "player": "B"})
    assert other.status_code == 403
    mine = player.post(f"/campaigns/{cast.cid}/commands", json={"type": "pass", "player": "A"})
    assert mine.status_code != 403
    approve = player.post(
        f"/campaigns/{cast.cid}/rollback/proposals/x/approve", json={"player": "B"}
    )
    assert approve.status_code == 403


def test_appends_over_the_rate_limit_get_429_with_retry_after(questlog: Questlog) -> None:
    cast = Cast(questlog, rate=1)
    owner = cast.as_("owner")
    statuses = [owner.post(f"/campaigns/{cast.cid}/rolls", json={"dice": "d20"}) for _ in range(3)]
    limited = [r for r in statuses if r.status_code == 429]
    assert limited and int(limited[0].headers["Retry-After"]) >= 1
    assert cast.as_("viewer").get(f"/campaigns/{cast.cid}").status_code == 200


def test_only_the_exempt_token_is_not_counted_by_the_rate_limit(
    questlog: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench, bench_secret = questlog.access.create_token("bench", admin=True)
    monkeypatch.setenv("QUESTLOG_RATE_LIMIT_EXEMPT", f" {bench.id} ,")
    cast = Cast(questlog, rate=1)
    exempt = client_as(cast.app, bench_secret)
    rolls = [exempt.post(f"/campaigns/{cast.cid}/rolls", json={"dice": "d20"}) for _ in range(5)]
    assert [r.status_code for r in rolls] == [201] * 5
    owner = cast.as_("owner")
    statuses = [owner.post(f"/campaigns/{cast.cid}/rolls", json={"dice": "d20"}) for _ in range(3)]
    assert 429 in {r.status_code for r in statuses}


def test_no_token_is_exempt_from_the_rate_limit_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QUESTLOG_RATE_LIMIT_EXEMPT", raising=False)
    assert exempt_setting(None) == frozenset()
    assert exempt_setting(["a1", " ", "b2 "]) == {"a1", "b2"}


def body_text(response: Any) -> str:
    """A response's body; of a live stream (which never ends), what it sends at once: its
    opening comment and every event so far, in one write."""
    if response.mimetype != "text/event-stream":
        return str(response.get_data(as_text=True))
    chunks = iter(response.response)
    text = "".join(next(chunks).decode() for _ in range(2))
    response.close()
    return text


def test_a_secret_seed_is_in_no_response_event_or_log_line_before_it_is_revealed(
    cast: Cast, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    owner = cast.as_("owner")
    commitment = owner.get(f"/campaigns/{cast.cid}").json["commitment"]
    seed = cast.questlog.dice.secret_seed(commitment)
    texts: list[str] = []
    for _ in range(3):
        texts.append(
            owner.post(f"/campaigns/{cast.cid}/rolls", json={"dice": "2d6"}).get_data(True)
        )
    for rule, method in routes(cast.app):
        if method == "GET" and "<roll_id>" not in rule and "<proposal_id>" not in rule:
            path = rule.replace("<campaign>", cast.cid)
            query = "?game=quest-calendar" if rule in ("/house-rules", "/commands") else ""
            response = cast.as_("admin").get(path + query, buffered=False)
            texts.append(body_text(response) + json.dumps(dict(response.headers)))
    stored = [repr(e.__dict__) for e in cast.questlog.campaign_events(UUID(cast.cid))]
    logged = [record.getMessage() for record in caplog.records]
    assert not [t for t in texts + stored + logged if seed in t]
    tokens = cast.secrets.values()
    assert not [t for t in stored + logged if any(secret in t for secret in tokens)]
    owner.post(f"/campaigns/{cast.cid}/dice/rotate")
    revealed = [repr(e.__dict__) for e in cast.questlog.campaign_events(UUID(cast.cid))]
    assert any(seed in text for text in revealed)


def test_serve_refuses_a_public_address_without_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUESTLOG_AUTH", "off")
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "questlog token create" in result.output


def test_token_cli_prints_the_secret_once_and_revokes(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUESTLOG_DB", str(tmp_path / "cli.db"))
    monkeypatch.delenv("QUESTLOG_DATABASE_URL", raising=False)
    made = CliRunner().invoke(main, ["token", "create", "--name", "alice"])
    assert made.exit_code == 0, made.output
    secret = made.output.strip().splitlines()[-1]
    assert secret.startswith("ql_")
    assert CliRunner().invoke(main, ["token", "revoke", "alice"]).exit_code == 0
    assert CliRunner().invoke(main, ["token", "revoke", "nobody"]).exit_code == 2


def test_first_start_of_serve_creates_an_admin_token_and_prints_it_once(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "QUESTLOG_DB": str(tmp_path / "first.db"),
        "QUESTLOG_AUTH": "on",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("QUESTLOG_DATABASE_URL", None)
    printed = []
    for _ in range(2):
        process = subprocess.Popen(
            [*QUESTLOG, "serve", "--port", "0", "--no-views"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.startswith("Auth:"):
                break
        process.terminate()
        process.wait(timeout=10)
        printed.append([word for text in lines for word in text.split() if word.startswith("ql_")])
    assert len(printed[0]) == 1 and printed[1] == []
    questlog = Questlog(StoreConfig(sqlite_path=tmp_path / "first.db"))
    try:
        token = questlog.access.authenticate(printed[0][0])
        assert token is not None and token.admin
    finally:
        questlog.close()


def test_in_a_match_the_rollback_approvals_come_from_the_players(questlog: Questlog) -> None:
    cast = Cast(questlog, game="calendar-board")
    _, second = questlog.access.create_token("second-player")
    owner = cast.as_("owner")
    owner.post(
        f"/campaigns/{cast.cid}/members",
        json={"token_name": "second-player", "role": "player", "seat": "B"},
    )
    owner.post(f"/campaigns/{cast.cid}/dice/client-seed", json={"client_seed": "moved"})
    proposed = cast.as_("player").post(
        f"/campaigns/{cast.cid}/rollback/proposals",
        json={"to_version": 1, "reason": "undo the seed", "proposer": "A"},
    )
    assert proposed.status_code == 201, proposed.json
    proposal = proposed.json["proposal"]["proposal_id"]
    approve = f"/campaigns/{cast.cid}/rollback/proposals/{proposal}/approve"
    assert owner.post(approve, json={"player": "B"}).status_code == 403
    assert cast.as_("player").post(approve, json={"player": "B"}).status_code == 403
    done = client_as(cast.app, second).post(approve, json={"player": "B"})
    assert done.status_code == 200, done.json
    assert done.json["rollback"] is not None


def test_an_owner_without_a_seat_agrees_for_the_seats_nobody_holds(questlog: Questlog) -> None:
    """A hot-seat match: seat B has no player of its own, so the owner, who plays it at its own
    screen, agrees for it; seat A's own player holds A, so the owner may not agree for A."""
    cast = Cast(questlog, game="calendar-board")
    owner = cast.as_("owner")
    owner.post(f"/campaigns/{cast.cid}/dice/client-seed", json={"client_seed": "moved"})
    proposed = owner.post(
        f"/campaigns/{cast.cid}/rollback/proposals",
        json={"to_version": 1, "reason": "undo the seed", "proposer": "owner"},
    )
    assert proposed.status_code == 201, proposed.json
    proposal = proposed.json["proposal"]["proposal_id"]
    approve = f"/campaigns/{cast.cid}/rollback/proposals/{proposal}/approve"
    before = questlog.campaign(UUID(cast.cid)).version
    held = owner.post(approve, json={"player": "A"})
    assert held.status_code == 403 and "'A'" in held.json["detail"], held.json
    assert questlog.campaign(UUID(cast.cid)).version == before
    assert owner.post(approve, json={"player": "B"}).status_code == 200
    done = cast.as_("player").post(approve, json={"player": "A"})
    assert done.status_code == 200, done.json
    assert done.json["rollback"] is not None


def test_an_owner_plays_no_seat_an_invited_player_holds(questlog: Questlog) -> None:
    """CB-01: seat A has a player of its own, so the owner may not act for A (403 naming the seat,
    nothing stored); seat B has none, so the owner's command for B reaches the rules."""
    cast = Cast(questlog, game="calendar-board")
    owner = cast.as_("owner")
    commands = f"/campaigns/{cast.cid}/commands"
    before = questlog.campaign(UUID(cast.cid)).version
    held = owner.post(commands, json={"type": "end_turn", "player": "A"})
    assert held.status_code == 403 and "'A'" in held.json["detail"], held.json
    assert questlog.campaign(UUID(cast.cid)).version == before
    played = owner.post(commands, json={"type": "end_turn", "player": "B"})
    assert played.status_code == 409, played.json  # not B's turn: the rules answer, not access
    mine = cast.as_("player").post(commands, json={"type": "end_turn", "player": "A"})
    assert mine.status_code == 201, mine.json


def test_an_admin_is_bound_by_seats_as_an_owner_is(questlog: Questlog) -> None:
    """CB-01, trial snag: the server's admin token is how the owner of a
    small server signs in, so at a match it plays the seats nobody holds and never one an invited
    player holds (403 naming the seat, nothing stored, on commands and approvals alike)."""
    cast = Cast(questlog, game="calendar-board")
    admin = cast.as_("admin")
    cid = cast.cid
    before = questlog.campaign(UUID(cid)).version
    held = admin.post(f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": "A"})
    assert held.status_code == 403 and "'A'" in held.json["detail"], held.json
    assert questlog.campaign(UUID(cid)).version == before
    played = admin.post(f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": "B"})
    assert played.status_code == 409, played.json  # not B's turn: the rules answer, not access
    mine = cast.as_("player").post(
        f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": "A"}
    )
    assert mine.status_code == 201, mine.json
    proposed = cast.as_("player").post(
        f"/campaigns/{cid}/rollback/proposals",
        json={"to_version": before, "reason": "mistake", "proposer": "A"},
    )
    assert proposed.status_code == 201, proposed.json
    approvals = (
        f"/campaigns/{cid}/rollback/proposals/{proposed.json['proposal']['proposal_id']}/approve"
    )
    for caller in ("owner", "admin"):  # nor propose as that seat (proposing is agreeing)
        forged = cast.as_(caller).post(
            f"/campaigns/{cid}/rollback/proposals",
            json={"to_version": 1, "reason": "as A", "proposer": "A"},
        )
        assert forged.status_code == 403 and "'A'" in forged.json["detail"], forged.json
    as_a = admin.post(approvals, json={"player": "A"})
    assert as_a.status_code == 403 and "'A'" in as_a.json["detail"], as_a.json
    as_b = admin.post(approvals, json={"player": "B"})
    assert as_b.status_code == 200 and as_b.json["rollback"], as_b.json  # the last agreement
    assert admin.get(f"/campaigns/{cid}").status_code == 200  # reading is not bound by seats


def me(client: TokenClient, cid: str) -> dict[str, Any]:
    answer = client.get(f"/campaigns/{cid}/me")
    assert answer.status_code == 200, answer.json
    body: dict[str, Any] = answer.json
    return body


def can(body: dict[str, Any]) -> set[str]:
    return {
        key.removeprefix("can_") for key, value in body.items() if key.startswith("can_") and value
    }


def test_me_names_the_owner_and_what_it_may_do(cast: Cast) -> None:
    body = me(cast.as_("owner"), cast.cid)
    assert body["name"] == "owner" and body["token_id"]
    assert (body["role"], body["seat"], body["admin"]) == ("owner", None, False)
    assert can(body) == {"append", "manage", "propose", "approve"}


def test_me_names_a_players_seat(questlog: Questlog) -> None:
    cast = Cast(questlog, game="calendar-board")
    body = me(cast.as_("player"), cast.cid)
    assert (body["name"], body["role"], body["seat"], body["admin"]) == (
        "player",
        "player",
        "A",
        False,
    )
    assert can(body) == {"append", "propose", "approve"}


def test_me_on_a_share_link_is_a_viewer_that_may_only_read(cast: Cast) -> None:
    shared = cast.as_("owner").post(f"/campaigns/{cast.cid}/share", json={})
    assert shared.status_code == 201, shared.json
    body = me(client_as(cast.app, shared.json["token"]), cast.cid)
    assert (body["role"], body["seat"], body["admin"]) == ("viewer", None, False)
    assert can(body) == set()


def test_me_for_an_admin_may_do_everything(cast: Cast) -> None:
    body = me(cast.as_("admin"), cast.cid)
    assert (body["name"], body["role"], body["seat"], body["admin"]) == (
        "admin",
        "admin",
        None,
        True,
    )
    assert can(body) == {"append", "manage", "propose", "approve"}


def test_me_on_a_public_campaign_without_a_role_is_public(cast: Cast) -> None:
    made = cast.as_("owner").post(
        "/campaigns", json={"game": "quest-calendar", "name": "Open", "public": True}
    )
    body = me(cast.as_("outsider"), made.json["id"])
    assert (body["name"], body["role"], body["seat"], body["admin"]) == (
        "outsider",
        "public",
        None,
        False,
    )
    assert can(body) == set()


def test_me_on_a_private_campaign_is_404_to_a_stranger(cast: Cast) -> None:
    answer = cast.as_("outsider").get(f"/campaigns/{cast.cid}/me")
    assert answer.status_code == 404
    assert answer.content_type == "application/problem+json"


def test_me_agrees_with_what_access_control_lets_each_role_do(cast: Cast) -> None:
    # The answer comes from the table the refusals come from; check it against real refusals.
    for role in ("owner", "viewer", "auditor"):
        body = me(cast.as_(role), cast.cid)
        assert body["role"] == role
        managed = cast.as_(role).get(f"/campaigns/{cast.cid}/members").status_code
        assert (managed == 200) == body["can_manage"], role
        rolled = cast.as_(role).post(f"/campaigns/{cast.cid}/rolls", json={"dice": "d20"})
        assert (rolled.status_code == 201) == body["can_append"], (role, rolled.status_code)


def test_me_with_auth_off_may_do_everything(questlog: Questlog) -> None:
    app = create_app(questlog, auth=False, rate_limit=0, TESTING=True)
    client = client_as(app, None)
    made = client.post("/campaigns", json={"game": "quest-calendar", "name": "Open house"})
    body = me(client, made.json["id"])
    assert (body["token_id"], body["name"], body["role"], body["admin"]) == (
        None,
        None,
        "admin",
        True,
    )
    assert can(body) == {"append", "manage", "propose", "approve"}
