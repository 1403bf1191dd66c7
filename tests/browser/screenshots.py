"""Write the screenshots of docs/table-page.md: ``python -m tests.browser.screenshots``.

Seeds a store in a temporary folder, serves it, and saves each game's page (the owner's view,
1280 px wide, the top of the page) as docs/table-page-<game>.png, and the "New campaign" form of a
match as docs/table-page-new-campaign.png.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import expect, sync_playwright

from tests.browser.conftest import TOKEN_KEY
from tests.browser.server import Server, running

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = {"quest-calendar": "qc", "calendar-board": "cb"}


def new_campaign(browser: Any, server: Server) -> None:
    """The "New campaign" form of a match, its setup builder open (the top of the form)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1100})
    secret = json.dumps(server.seeded.tokens["owner"])
    context.add_init_script(f"sessionStorage.setItem('{TOKEN_KEY}', {secret})")
    page = context.new_page()
    page.goto(server.url("/app/"))
    page.get_by_role("button", name="New campaign").click()
    page.get_by_label("Game").select_option("calendar-board")
    page.get_by_label("Name").fill("Friday's match")
    page.wait_for_selector(".setup-builder .player")
    page.wait_for_selector('body[data-ready="true"]')
    path = DOCS / "table-page-new-campaign.png"
    page.screenshot(path=str(path))
    print(f"wrote {path}")
    context.close()


def main() -> None:
    chromium = os.environ.get("QUESTLOG_CHROMIUM", "/usr/bin/chromium")
    with (
        tempfile.TemporaryDirectory() as folder,
        running(Path(folder)) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=chromium)
        for game, key in PAGES.items():
            context = browser.new_context(viewport={"width": 1280, "height": 1400})
            secret = json.dumps(server.seeded.tokens["owner"])
            context.add_init_script(f"sessionStorage.setItem('{TOKEN_KEY}', {secret})")
            page = context.new_page()
            page.goto(server.campaign_url(key))
            page.wait_for_selector("[data-roll-id]")
            expect(page.locator(".rolls [data-roll-id]:not([data-verdict])")).to_have_count(0)
            page.wait_for_selector(".chart svg")
            path = DOCS / f"table-page-{game}.png"
            page.screenshot(path=str(path))
            print(f"wrote {path}")
            context.close()
        new_campaign(browser, server)
        browser.close()


if __name__ == "__main__":
    main()
