"""The witness panel on a campaign's page, against a real ``questlog serve`` and a real
``questlog witness serve`` (both on 127.0.0.1, started and stopped by pid): the head to read aloud,
the signed checkpoint's QR, and the head witnessed, checked in the browser (tlog.js) from the
tlog-proof the server gives (c2sp.org/tlog-proof, tlog-cosignature, tlog-policy).

The dishonest host: the page holding a policy whose witness never cosigned this history warns,
naming the witness, whatever the host says. A witness down never blocks a roll; the page says the
head waits for the next checkpoint, and that the witness is down."""

from __future__ import annotations

import base64
import json
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Watch
from tests.browser.helpers import open_proof
from tests.browser.server import Server, running
from tests.live_server import free_port, stop, witness_init, witness_serving

pytestmark = pytest.mark.browser


def publish(server: Server) -> str:
    """``POST /log/checkpoint``: the publisher run now; the signed checkpoint it answers."""
    request = urllib.request.Request(server.url("/log/checkpoint"), data=b"", method="POST")
    request.add_header("Authorization", f"Bearer {server.seeded.tokens['owner']}")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return str(response.read().decode())


def publish_size(server: Server) -> str:
    """The size of the host's latest checkpoint (``GET /log/checkpoint``'s second line)."""
    with urllib.request.urlopen(server.url("/log/checkpoint"), timeout=30) as response:
        return str(response.read().decode().split("\n")[1])


def witness_state(server: Server, cid: str, state: str) -> dict[str, Any]:
    """The campaign's witnessing report once its (one) witness is in ``state``: the witnesses
    are asked in the background, so the test waits for the answer as the page does."""
    deadline = time.monotonic() + 30
    while True:
        status, report = server.call("GET", f"/campaigns/{cid}/witnessing")
        assert status == 200, report
        if [w["state"] for w in report["witnesses"]] == [state] or time.monotonic() > deadline:
            assert [w["state"] for w in report["witnesses"]] == [state], report
            return dict(report)
        time.sleep(0.2)


def link_param(policy: str) -> str:
    """A policy as a link's ``policy=`` carries it: base64url, unpadded."""
    return base64.urlsafe_b64encode(policy.encode()).decode().rstrip("=")


def opened(browser: Any, server: Server, watch: Watch, path: str) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.add_init_script(
        f"sessionStorage.setItem('questlog.token', {json.dumps(server.seeded.tokens['owner'])})"
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    page.on("request", lambda r: watch.requests.append(r.url))
    page.goto(server.url(path))
    page.wait_for_selector('body[data-ready="true"]')
    open_proof(page)
    return page


def test_the_page_checks_the_witness_and_warns_for_one_that_never_cosigned(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """tlog-policy quorum: with the host's honest witness, "witnessed by 1 of 1"; with a policy
    of a witness the host never showed this history to, a warning naming it (tlog-proof,
    "Verifying a tlog proof", step 3); then the witness down: a roll goes through and the page
    says the head waits for the next checkpoint, the witness being down."""
    folder = tmp_path_factory.mktemp("witnessed")
    honest_state, stranger_state = folder / "w1.sqlite", folder / "w2.sqlite"
    honest = witness_init(honest_state, "witness.test/w1")
    stranger = witness_init(stranger_state, "witness.test/w2")
    port = free_port()
    host_policy = folder / "policy.txt"
    host_policy.write_text(f"witness w1 {honest} http://127.0.0.1:{port}\nquorum w1\n")
    settings = {
        "QUESTLOG_WITNESS_POLICY": str(host_policy),
        "QUESTLOG_CHECKPOINT_SECONDS": "3600",  # published on demand only, as the test asks
        "QUESTLOG_WITNESS_TIMEOUT": "2",
    }
    with running(folder, settings=settings) as server:
        status, keys = server.call("GET", "/.well-known/questlog-key")
        assert status == 200, keys
        with witness_serving(honest_state, [keys["keys"][0]["key"]], port) as (_, witness):
            status, created = server.call(
                "POST", "/campaigns", {"game": "quest-calendar", "name": "Witnessed"}
            )
            assert status == 201, created
            cid = created["id"]
            status, rolled = server.call(
                "POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": "a roll"}
            )
            assert status == 201, rolled
            publish(server)
            report = witness_state(server, cid, "cosigned")
            assert report["witnessed_version"] == 2 and report["pending"] is False, report
            _, head = server.call("GET", f"/campaigns/{cid}")

            watch = Watch(urlsplit(server.base).netloc)
            page = opened(browser, server, watch, f"/app/campaigns/{cid}")
            # the head to read aloud, the QR of the signed checkpoint, a way to copy it
            expect(page.locator("[data-head-readout]")).to_have_text(
                f"v2 · {head['head_hash'][:8]}"
            )
            qr = page.locator("img[data-checkpoint-qr]")
            expect(qr).to_be_visible()
            expect(qr).to_have_attribute(
                "alt",
                "QR code of the signed checkpoint of version 2: "
                "scan it on another player's phone to compare the checkpoints",
            )
            assert qr.evaluate("img => img.complete && img.naturalWidth > 0")
            expect(page.get_by_role("button", name="Copy the signed checkpoint")).to_be_visible()
            # the host's policy, its one witness cosigned: checked here, said in words
            status_line = page.locator("[data-witness]")
            expect(status_line).to_have_attribute("data-witness", "witnessed")
            expect(status_line).to_have_text("Witnessed by 1 of 1 (w1).")
            expect(page.locator("[data-policy-source]")).to_have_text(
                "Witness policy chosen by the host: agree on your own policy for real trust."
            )
            # the witness's size is the host's whole log, not this campaign's version
            expect(page.locator('[data-witness-name="w1"]')).to_have_text(
                f"w1: cosigned the host's log up to {int(publish_size(server)):,} events "
                "(every campaign on this host)"
            )
            expect(page.locator(".integrity-badge .mark")).to_have_text("Verified ✓ v2")

            # the owner's invitation carries the host's policy in its fragment, beside the token
            page.get_by_label("Put the host's witness policy in the links made below").check()
            page.get_by_role("button", name="Invite a viewer").click()
            link = page.locator('p[data-invite-role="viewer"] input').input_value()
            assert "#token=" in link and link.endswith(
                f"&policy={link_param(host_policy.read_text())}"
            ), link
            guest = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
            guest.on("pageerror", lambda e: watch.page_errors.append(str(e)))
            guest.goto(link)
            guest.wait_for_selector('body[data-ready="true"]')
            open_proof(guest)
            expect(guest.locator("[data-witness]")).to_have_text("Witnessed by 1 of 1 (w1).")
            expect(guest.locator("[data-policy-source]")).to_have_text(
                "Witness policy from the invite link (kept on this device)."
            )
            # the policy in use is shown whatever its source, the link's here
            guest.locator("details.policy > summary").click()
            expect(guest.locator("[data-policy-in-use]")).to_have_text(
                host_policy.read_text().rstrip("\n")
            )
            assert guest.get_by_label("Witness policy (tlog-policy").input_value() == (
                host_policy.read_text()
            )
            guest.context.close()

            # a link whose policy does not parse: refused like a pasted one, said, nothing kept
            broken = link_param(f"witness w1 {honest}\nquorum w3\n")
            stray = opened(browser, server, watch, f"/app/campaigns/{cid}#policy={broken}")
            expect(stray.locator("[data-policy-refused]")).to_have_text(
                "The link's witness policy was refused and not kept: "
                "line 2: w3 is not defined on a line above."
            )
            expect(stray.locator("[data-policy-source]")).to_have_attribute(
                "data-policy-source", "host"
            )
            expect(stray.locator("[data-witness]")).to_have_attribute("data-witness", "witnessed")
            kept = stray.evaluate(
                "() => Object.keys(localStorage).filter((k) => k.startsWith('questlog.policy.'))"
            )
            assert kept == [], kept
            stray.context.close()

            # the dishonest host: the table's policy names w2, which never saw this history
            stranger_policy = f"witness w2 {stranger}\nquorum w2\n"
            page.goto(server.url(f"/app/campaigns/{cid}#policy={link_param(stranger_policy)}"))
            page.wait_for_selector('body[data-ready="true"]')
            open_proof(page)
            expect(status_line).to_have_attribute("data-witness", "not-witnessed")
            expect(status_line).to_have_text(
                "Not witnessed: needs 1 of 1; w2 has not cosigned (the host does not submit to w2)."
            )
            expect(status_line).to_have_class("witness-status warning")
            # the red warning shows on the badge too, at a glance
            expect(page.locator(".integrity-badge")).to_have_attribute(
                "data-integrity", "unwitnessed"
            )
            expect(page.locator(".integrity-badge .mark")).to_have_text(
                "Verified ✓ v2 · NOT witnessed"
            )
            expect(page.locator("[data-policy-source]")).to_have_attribute(
                "data-policy-source", "link"
            )
            assert "#" not in page.url  # the fragment is taken out of the address

            # a malformed policy pasted is refused naming the line, and nothing changes
            page.locator("details.policy > summary").click()
            box = page.get_by_label("Witness policy (tlog-policy")
            box.fill(f"witness w1 {honest}\nquorum w3\n")
            page.get_by_role("button", name="Use this policy").click()
            expect(page.locator(".policy-form .error")).to_have_text(
                "Witness policy: line 2: w3 is not defined on a line above"
            )
            expect(status_line).to_have_attribute("data-witness", "not-witnessed")
            # the group's own policy pasted, of the honest witness: witnessed again
            box.fill(f"# our table\nwitness w1 {honest}\nquorum w1\n")
            page.get_by_role("button", name="Use this policy").click()
            expect(status_line).to_have_attribute("data-witness", "witnessed")
            expect(status_line).to_have_text("Witnessed by 1 of 1 (w1).")
            expect(page.locator("[data-policy-source]")).to_have_attribute(
                "data-policy-source", "group"
            )

            # the witness down: a roll still goes through, the next checkpoint is not witnessed
            stop(witness)
            status, rolled = server.call(
                "POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": "while down"}
            )
            assert status == 201, rolled
            publish(server)
            witness_state(server, cid, "down")
            status, rolled = server.call(
                "POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": "after"}
            )
            assert status == 201, rolled
            expect(page.locator("[data-campaign-version]")).to_have_text("4")
            # a witness the host reports down is a calm wait, not the split-view alarm
            expect(status_line).to_have_attribute("data-witness", "waiting")
            expect(status_line).to_have_text(
                "Not witnessed yet: needs 1 of 1, waiting for w1 (the host says it is down: "
                "refused the connection (nothing listens at its address)). v3 is the last "
                "version in a checkpoint; v4 waits for the next checkpoint (w1 is down)."
            )
            expect(status_line).to_have_class("witness-status")
            expect(page.locator(".integrity-badge .mark")).to_have_text(
                "Verified ✓ v4 · witness pending"
            )
            expect(page.locator("[data-head-readout]")).to_contain_text("v4 · ")
            # a wait does not open the proof by itself (only the red warning does)
            fresh = page.context.new_page()
            fresh.goto(server.url(f"/app/campaigns/{cid}"))
            fresh.wait_for_selector('body[data-ready="true"]')
            expect(fresh.locator("[data-witness]")).to_have_attribute("data-witness", "waiting")
            assert fresh.locator("details.integrity").get_attribute("open") is None
            fresh.close()

            # the witness back: the page notices by itself, without a reload (checked every 5 s)
            with witness_serving(honest_state, [keys["keys"][0]["key"]], port):
                publish(server)
                witness_state(server, cid, "cosigned")
                expect(status_line).to_have_attribute("data-witness", "witnessed", timeout=20_000)
                expect(status_line).to_have_text("Witnessed by 1 of 1 (w1).")
                expect(page.locator(".integrity-badge .mark")).to_have_text("Verified ✓ v4")
            page.context.close()
    assert watch.page_errors == []
    assert [
        u
        for u in watch.requests
        if urlsplit(u).netloc not in (urlsplit(server.base).netloc, "")
        and not u.startswith("blob:")
    ] == []


@contextmanager
def two_of_three(folder: Path) -> Iterator[tuple[Server, str]]:
    """A host whose policy asks 2 of 3 witnesses, w1 and w2 serving and w3 down; a campaign of
    four versions in a checkpoint the two cosigned, and a fifth waiting for the next one."""
    states = {n: folder / f"{n}.sqlite" for n in ("w1", "w2", "w3")}
    keys = {n: witness_init(state, f"witness.test/{n}") for n, state in states.items()}
    ports = {n: free_port() for n in states}
    policy = folder / "policy.txt"
    policy.write_text(
        "".join(f"witness {n} {keys[n]} http://127.0.0.1:{ports[n]}\n" for n in states)
        + "group table 2 w1 w2 w3\nquorum table\n"
    )
    settings = {
        "QUESTLOG_WITNESS_POLICY": str(policy),
        "QUESTLOG_CHECKPOINT_SECONDS": "3600",
        "QUESTLOG_WITNESS_TIMEOUT": "2",
    }
    with running(folder, settings=settings) as server:
        log_key = server.call("GET", "/.well-known/questlog-key")[1]["keys"][0]["key"]
        with (
            witness_serving(states["w1"], [log_key], ports["w1"]),
            witness_serving(states["w2"], [log_key], ports["w2"]),
        ):
            status, created = server.call(
                "POST", "/campaigns", {"game": "quest-calendar", "name": "Two of three"}
            )
            assert status == 201, created
            cid = created["id"]
            for n in range(3):
                server.call("POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": f"r{n}"})
            publish(server)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                report = server.call("GET", f"/campaigns/{cid}/witnessing")[1]
                if [w["state"] for w in report["witnesses"]] == ["cosigned", "cosigned", "down"]:
                    break
                time.sleep(0.2)
            assert report["witnessed_version"] == 4, report
            server.call("POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": "later"})
            yield server, cid


def test_two_of_three_witnessed_and_the_head_waits_while_one_is_down(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """tlog-policy ``group table 2 w1 w2 w3``: the cosignatures of w1 and w2 meet it, w3 being
    down; the head one version past the checkpoint waits for the next one, and the page says why."""
    with two_of_three(tmp_path_factory.mktemp("two-of-three")) as (server, cid):
        watch = Watch(urlsplit(server.base).netloc)
        page = opened(browser, server, watch, f"/app/campaigns/{cid}")
        status_line = page.locator("[data-witness]")
        expect(status_line).to_have_attribute("data-witness", "witnessed")
        expect(status_line).to_have_text(
            "Witnessed by 2 of 3 (w1, w2) up to v4; v5 waits for the next checkpoint (w3 is down)."
        )
        expect(page.locator('[data-witness-name="w3"]')).to_have_attribute(
            "data-witness-state", "down"
        )
        page.context.close()
    assert watch.page_errors == []


def test_without_any_policy_the_page_says_compare_the_head_aloud(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """No policy from the host, the link or the group: the page says so plainly, and still
    checks the head's inclusion in the host's signed checkpoint (RFC 6962 inclusion proof)."""
    folder = tmp_path_factory.mktemp("unwitnessed")
    with running(folder, settings={"QUESTLOG_CHECKPOINT_SECONDS": "3600"}) as server:
        status, created = server.call(
            "POST", "/campaigns", {"game": "quest-calendar", "name": "Alone"}
        )
        assert status == 201, created
        cid = created["id"]
        watch = Watch(urlsplit(server.base).netloc)
        page = opened(browser, server, watch, f"/app/campaigns/{cid}")
        status_line = page.locator("[data-witness]")
        expect(status_line).to_have_text(
            "No witnesses: compare the head aloud. v1 waits for the next checkpoint."
        )
        publish(server)
        page.reload()
        page.wait_for_selector('body[data-ready="true"]')
        open_proof(page)
        expect(status_line).to_have_attribute("data-witness", "no-policy")
        size = json.loads(publish_size(server))
        expect(status_line).to_have_text(
            f"No witnesses: compare the head aloud. v1 is in the host's log (its checkpoint of "
            f"{size:,} events)."
        )
        expect(page.locator("[data-policy-source]")).to_have_attribute("data-policy-source", "none")
        page.context.close()
    assert watch.page_errors == []
