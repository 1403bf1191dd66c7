"""Write the screenshots of docs/table-page.md: ``python -m tests.browser.screenshots``.

Seeds a store in a temporary folder, serves it, and saves each game's page (the owner's view,
1280 px wide, the top of the page) as docs/table-page-<game>.png.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from tests.browser.conftest import TOKEN_KEY
from tests.browser.server import running

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = {"quest-calendar": "qc", "calendar-board": "cb"}


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
        browser.close()


if __name__ == "__main__":
    main()
