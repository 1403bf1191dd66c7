"""“Export this evening” on the campaign page: the range prefilled with the page date (or the day
and night) being played, the Markdown and HTML files downloaded with the token, a bad range
refused by name (docs/table-page.md, "Exporting an evening")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.seed import HERO
from tests.browser.server import Server


def a_page_with_a_check(server: Server) -> str:
    """A campaign of its own: a hero, the page of 2027-01-04, an INT check on server dice."""
    status, created = server.call(
        "POST",
        "/campaigns",
        {"game": "quest-calendar", "name": "Tonight <b>", "setup": {"prologue_complete": True}},
    )
    assert status == 201, created
    cid: str = created["id"]
    for body in (
        {"type": "select_hero", "phase": "main", "hero": HERO},
        {"type": "start_page", "date": "2027-01-04"},
        {"type": "trait_check", "trait": "INT", "target": 12, "purpose": "read the map"},
    ):
        status, answer = server.call("POST", f"/campaigns/{cid}/commands", body)
        assert status == 201, answer
    return cid


def test_the_page_downloads_this_evening_as_markdown_and_html(
    open_page: Any, server: Server, tmp_path: Path
) -> None:
    cid = a_page_with_a_check(server)
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    form = page.get_by_role("form", name="Export this evening")
    assert form.get_by_label("From the page of").input_value() == "2027-01-04"
    assert form.get_by_label("to the page of").input_value() == "2027-01-04"
    with page.expect_download() as markdown:
        form.get_by_role("button", name="Markdown").click()
    assert markdown.value.suggested_filename == f"questlog-{cid}-2027-01-04.md"
    saved = tmp_path / "evening.md"
    markdown.value.save_as(saved)
    text = saved.read_text("utf-8")
    assert text.startswith(r"# Tonight \<b\> — Quest Calendar")
    assert "read the map: dice " in text and "page 2027-01-04" in text
    assert f"/app/campaigns/{cid}?version=" in text
    form.get_by_role("status").get_by_text(f"Downloaded questlog-{cid}-2027-01-04.md.").wait_for()
    with page.expect_download() as html:
        form.get_by_role("button", name="HTML").click()
    assert html.value.suggested_filename == f"questlog-{cid}-2027-01-04.html"
    html.value.save_as(tmp_path / "evening.html")
    assert "<h1>Tonight &lt;b&gt; — Quest Calendar</h1>" in (tmp_path / "evening.html").read_text()


def test_a_bad_range_is_refused_by_name_on_the_page(open_page: Any, server: Server) -> None:
    page, watch = open_page("owner")
    watch.allowed.append(("/evening", (422,)))
    page.goto(server.campaign_url("cb"))
    form = page.get_by_role("form", name="Export this evening")
    assert int(form.get_by_label("From day and night").input_value()) >= 1
    form.get_by_label("From day and night").fill("3")
    form.get_by_label("to day and night").fill("2")
    form.get_by_role("button", name="Markdown").click()
    form.locator("[data-evening-error]").get_by_text(
        "to_night: must not be before from_night"
    ).wait_for()
