"""What the browser tests read off the page."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect


def verdicts(page: Any) -> dict[str, str]:
    """Every roll's id and verdict, once the page has computed them all."""
    page.wait_for_selector("[data-roll-id]")
    # locators, not wait_for_function: the page's CSP forbids the eval that polling a string needs
    expect(page.locator(".rolls [data-roll-id]:not([data-verdict])")).to_have_count(0)
    found: dict[str, str] = page.eval_on_selector_all(
        ".rolls [data-roll-id]",
        "els => Object.fromEntries(els.map(e => [e.dataset.rollId, e.dataset.verdict]))",
    )
    return found


def shown_version(page: Any) -> int:
    """The version the page shows (``data-campaign-version``)."""
    return int(page.get_attribute("[data-campaign-version]", "data-campaign-version"))


def open_proof(page: Any) -> None:
    """Open the proof behind the integrity badge (the head hash, the chain, the checkpoint and
    the bundle), as a reader does: a click on the badge, unless a problem opened it already."""
    proof = page.locator("details.integrity")
    if proof.get_attribute("open") is None:
        page.locator("details.integrity > summary").click()
    expect(proof).to_have_attribute("open", "")


def wait_for_version(page: Any, version: int) -> None:
    page.wait_for_selector(f'[data-campaign-version="{version}"]')


def unlabelled(page: Any) -> list[str]:
    """The form controls on the page that have no label (by name or id)."""
    found: list[str] = page.eval_on_selector_all(
        "input:not([type=hidden]), select, textarea",
        "els => els.filter(e => !e.labels.length && !e.getAttribute('aria-label'))"
        ".map(e => e.name || e.id || e.outerHTML.slice(0, 60))",
    )
    return found
