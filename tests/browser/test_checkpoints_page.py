"""The page keeps the last signed checkpoint of each campaign it has shown and, on every load,
checks that the log still extends it with the served key; after the host rewrites the log it
warns, naming the version and both hashes. Its bundle verifier checks bundle checkpoints too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

import pytest
from playwright.sync_api import expect

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.browser.conftest import Watch
from tests.browser.helpers import open_proof, shown_version, wait_for_version
from tests.browser.server import running
from tests.host_rewrite import delete_and_rechain
from tests.unit.test_signed_note import GO_NOTE, GO_TEXT, GO_VERIFIER_KEY

pytestmark = pytest.mark.browser


def test_the_page_warns_when_the_host_rewrites_the_log(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("rewrite")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        with running(folder) as server:
            port = urlsplit(server.base).port
            seeded = server.seeded
            context.add_init_script(
                f"sessionStorage.setItem('questlog.token', {seeded.tokens['owner']!r})"
            )
            status, created = server.call(
                "POST", "/campaigns", {"game": "quest-calendar", "name": "Rewritten"}
            )
            assert status == 201, created
            cid = created["id"]
            for n in range(4):  # versions 2..5
                server.call("POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": f"r{n}"})
            page = context.new_page()
            page.set_default_timeout(10_000)
            watch = Watch(urlsplit(server.base).netloc)
            page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
            page.goto(server.url(f"/app/campaigns/{cid}"))
            open_proof(page)
            shown = page.locator("[data-checkpoint]")
            shown.wait_for()
            assert shown.get_attribute("data-checkpoint") == "ok", shown.inner_text()
            assert "Signed checkpoint of version 5 verified" in shown.inner_text()
            kept_hash = server.call("GET", f"/campaigns/{cid}")[1]["head_hash"]
            server.call("POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": "later"})

        host = Questlog(StoreConfig(sqlite_path=server.db))
        host.close()
        delete_and_rechain(host, UUID(cid), 3)

        with running(folder, port=port, seeded=seeded) as restarted:
            page.reload()
            # a warning opens the proof by itself, and the badge says it
            warning = page.locator("[data-checkpoint]")
            warning.wait_for()
            assert warning.get_attribute("data-checkpoint") == "rewritten"
            expect(page.locator(".integrity-badge")).to_have_attribute("data-integrity", "warning")
            log_hash = restarted.call("GET", f"/campaigns/{cid}/events?after=4&limit=1")[1][
                "items"
            ][0]["hash"]
            text = " ".join(warning.inner_text().split())
            assert "Warning: the log was rewritten" in text
            assert (
                f"at version 5 the checkpoint has hash {kept_hash}, the log has hash {log_hash}"
            ) in text
            page.reload()  # the warning stays: the page keeps the checkpoint it warned about
            page.locator("[data-checkpoint='rewritten']").wait_for()
            # A reload cuts the live updates' fetch in flight ("Failed to fetch"); nothing else.
            assert [e for e in watch.page_errors if e != "Failed to fetch"] == []
    finally:
        context.close()


def test_the_bundle_verifier_checks_the_bundles_checkpoint(
    open_page: Any, server: Any, tmp_path: Path
) -> None:
    status, created = server.call(
        "POST", "/campaigns", {"game": "quest-calendar", "name": "Bundled"}
    )
    assert status == 201
    cid = created["id"]
    server.call("POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": "bundled"})
    _, data = server.call("GET", f"/campaigns/{cid}/bundle")
    page, _ = open_page()
    page.goto(server.url("/app/verify"))
    verdicts = page.evaluate(
        """async (bundle) => {
            const { bundleCheckpoints } = await import("/app/static/checkpoints.js");
            const good = await bundleCheckpoints(bundle, bundle.events);
            const note = bundle.checkpoints[0].replace("\\n2\\n", "\\n1\\n");
            const forged = { ...bundle, checkpoints: [note] };
            const bad = await bundleCheckpoints(forged, bundle.events);
            return [...good, ...bad].map((p) => p.dataset.checkpoint);
        }""",
        data,
    )
    assert verdicts == ["ok", "bad-signature"]
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(data), "utf-8")
    page.set_input_files("#bundle-file", str(path))
    page.locator(".bundle-result [data-checkpoint='ok']").wait_for()


def test_the_page_verifies_gos_example_note(open_page: Any, server: Any) -> None:
    """checkpoints.js reads Go's example key and note (golang.org/x/mod/sumdb/note) and checks
    the signature with WebCrypto Ed25519; one changed byte is a bad signature."""
    page, _ = open_page()
    page.goto(server.url("/app/verify"))
    verdicts = page.evaluate(
        """async ([note, key]) => {
            const { openNote } = await import("/app/static/checkpoints.js");
            const good = await openNote(note, [key]);
            const bad = await openNote(note.replace("cryptography", "cryptographY"), [key]);
            const other = await openNote(note, []);
            return [good.verdict, good.body, bad.verdict, other.verdict];
        }""",
        [GO_NOTE, GO_VERIFIER_KEY],
    )
    assert verdicts == ["ok", GO_TEXT, "bad-signature", "unknown-key"]


def test_the_kept_checkpoint_moves_on_with_the_players_own_appends(
    open_page: Any, server: Any
) -> None:
    """After a roll from the page, the checkpoint it keeps is of the new head, not of the head
    it loaded."""
    page, _ = open_page("owner")
    cid = server.seeded.campaigns["play"]
    page.goto(server.campaign_url("play"))
    open_proof(page)
    page.wait_for_selector('[data-checkpoint="ok"]')
    before = shown_version(page)
    page.get_by_label("Dice", exact=True).fill("d6")
    page.get_by_label("Purpose").fill("a checkpoint for this one")
    page.get_by_role("button", name="Roll", exact=True).click()
    wait_for_version(page, before + 1)
    key = page.evaluate(f"'questlog.checkpoint.' + location.origin + '/{cid}'")
    kept = page.wait_for_function(
        "([key, version]) => { const note = localStorage.getItem(key);"
        " return note && note.split('\\n')[1] === String(version) ? note : null; }",
        arg=[key, before + 1],
    ).json_value()
    assert kept.split("\n")[1] == str(before + 1)
