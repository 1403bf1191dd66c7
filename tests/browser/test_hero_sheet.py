"""A hero in under a minute, on the table page: the hero sheet (steppers, abilities whose use and
effect are chosen in the rulebook's words), saved for the group and started from; and a shop's
stock taken from the known items, one price per line."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from domain.model.samples import MED_KIT, VANGUARD
from tests.browser.page_table import Effort, open_new_campaign
from tests.browser.server import Server
from tests.browser.test_accessibility import assert_accessible

pytestmark = pytest.mark.browser
Json = dict[str, Any]


def ready(page: Any) -> None:
    page.wait_for_selector('body[data-ready="true"]')


def commands_sent(page: Any) -> list[Json]:
    """Every command body the page posts, as it posts it (without the entropy it adds)."""
    sent: list[Json] = []

    def keep(request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/commands"):
            body = json.loads(request.post_data or "{}")
            body.pop("entropy", None)
            sent.append(body)

    page.on("request", keep)
    return sent


def steps(page: Any, label: str, times: int) -> None:
    """Press a stepper's one-more (or, for a negative count, one-less) button."""
    button = page.get_by_role("button", name=f"{label}: {'one more' if times > 0 else 'one less'}")
    for _ in range(abs(times)):
        button.click()


def tonic(name: str) -> Json:
    """The item typed on the sheet (not on the list): a Wisdom booster."""
    called = f"Void Tonic {name.split()[-1]}"
    return {
        "id": called.lower().replace(" ", "-"),
        "name": called,
        "kind": "consumable",
        "effect": {"kind": "booster", "trait": "WIS", "dice": "1d4"},
    }


def expected_hero(name: str) -> Json:
    """What the sheet below was given, as select_hero takes it."""
    return {
        "id": name.lower().replace(" ", "-"),
        "name": name,
        "level": 1,
        "traits": {"STR": 2, "DEX": 1, "CON": 0, "INT": 0, "WIS": 0, "CHA": -1},
        "hp_max": 18,
        "def": 12,
        "atk": 3,
        "damage_mod": 0,
        "virtue": 0,
        "credits": 5,
        "rations": 0,
        "damage_dice": "1d8",
        "abilities": [
            {
                "id": "second-wind",
                "name": "Second Wind",
                "usage": "per_rest",
                "context": "both",
                "uses": 2,
                "effect": {"kind": "heal", "dice": "1d6"},
            },
            {
                "id": "lucky-shot",
                "name": "Lucky Shot",
                "usage": "surge",
                "context": "combat",
                "cost": 1,
                "effect": {"kind": "reroll", "keep": "better"},
            },
        ],
        "pool": {"name": "charges", "max": 3},
        "inventory": [MED_KIT, tonic(name)],
    }


def fill_sheet(page: Any, name: str) -> None:
    """Make the hero of ``expected_hero`` on the sheet, by its steppers and choices."""
    page.get_by_label("Hero", exact=True).select_option(
        label="a new hero (make one on the hero sheet)"
    )
    page.get_by_label("Hero's name", exact=True).fill(name)
    steps(page, "Strength (STR)", 2)
    steps(page, "Dexterity (DEX)", 1)
    steps(page, "Charisma (CHA)", -1)
    steps(page, "Maximum HP", 8)
    steps(page, "DEF", 2)
    steps(page, "ATK", 3)
    steps(page, "Credits", 5)
    page.get_by_label("Damage dice (such as 1d6)", exact=True).fill("1d8")
    page.get_by_label("The hero has a pool of surges or charges", exact=True).check()
    page.get_by_label("The pool is called", exact=True).select_option(label="Charges")
    steps(page, "Surges or charges at most", 1)
    page.get_by_role("button", name="Add an ability").click()
    page.get_by_label("Ability 1: name", exact=True).fill("Second Wind")
    page.get_by_label("Ability 1: use", exact=True).select_option(
        label="Per Rest (a set number of uses between Rests)"
    )
    steps(page, "Ability 1: uses per Rest", 1)
    page.get_by_label("Ability 1: when", exact=True).select_option(
        label="Both in and outside of combat"
    )
    page.get_by_label("Ability 1: effect", exact=True).select_option(label="Restores HP")
    page.get_by_label("Ability 1: dice (such as 1d4)", exact=True).fill("1d6")
    page.get_by_role("button", name="Add an ability").click()
    page.get_by_label("Ability 2: name", exact=True).fill("Lucky Shot")
    page.get_by_label("Ability 2: use", exact=True).select_option(
        label="Uses surges or charges from the pool"
    )
    # "when" has no default: left unchosen, the sheet would not save (a trial found "In combat"
    # sent unchosen)
    page.get_by_label("Ability 2: when", exact=True).select_option(value="combat")
    page.get_by_label("Ability 2: effect", exact=True).select_option(label="Roll again")
    page.get_by_label("Ability 2: keep", exact=True).select_option(label="the better result")
    page.get_by_label("Known item", exact=True).select_option("med-kit")
    page.get_by_role("button", name="Add to the hero's items").click()
    typed = tonic(name)
    page.get_by_text("An item not on the list").click()
    page.get_by_label("New item: name", exact=True).fill(typed["name"])
    page.get_by_label("New item: effect", exact=True).select_option(
        label="Trait booster for the page"
    )
    page.get_by_label("New item: trait", exact=True).select_option(label="Wisdom")
    page.get_by_label("New item: dice (such as 1d4)", exact=True).fill("1d4")
    page.get_by_role("button", name="Add it to the group's list and to the hero's items").click()
    expect(page.locator(".carried li")).to_have_count(2)


def test_qc02_a_hero_made_on_the_sheet_saved_for_the_group_and_started_from(
    open_page: Any, server: Server
) -> None:
    """QC-02, QC-15, QC-19: the hero sheet sends exactly what was chosen; the group's copy starts
    another campaign (as a custom hero once the prologue is complete)."""
    name = f"Ayla {uuid.uuid4().hex[:6]}"
    hero = expected_hero(name)
    page, _ = open_page("owner")
    sent = commands_sent(page)
    page.goto(server.url("/app/"))
    ready(page)
    open_new_campaign(Effort(), page, "quest-calendar", "A hero of our own")
    fill_sheet(page, name)
    assert_accessible(page, "the hero sheet, with two abilities and an item")
    when = page.get_by_label("Ability 2: when", exact=True)
    when.select_option(value="")
    page.get_by_role("button", name="Save this hero for the group").click()
    expect(page.locator("#hero-saved")).to_contain_text("Ability 2: say when it may be used")
    when.select_option(value="combat")
    page.get_by_role("button", name="Save this hero for the group").click()
    expect(page.locator("#hero-saved")).to_contain_text("Saved for the group")
    # offered at once in the same form's Hero list, the sheet still chosen and filled
    pick = page.locator("#setup-hero")
    expect(pick.locator("option", has_text=f"{name} (the group's)")).to_have_count(1)
    assert pick.input_value() == "new"
    _, library = server.call("GET", "/library/heroes", token="viewer")
    [saved] = [entry for entry in library["heroes"] if entry["name"] == name]
    assert saved["hero"] == hero
    _, known = server.call("GET", "/library/items", token="viewer")
    [added] = [entry for entry in known["items"] if entry["id"] == tonic(name)["id"]]
    assert (added["item"], added["source"]) == (tonic(name), "group")
    assert added["words"] == "Consumable (used up); Adds 1d4 to Wisdom for every roll on this page"
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url("**/app/campaigns/*")
    ready(page)
    assert sent == [{"type": "select_hero", "phase": "prologue", "hero": hero}]
    cid = page.url.rsplit("/", 1)[1]
    _, campaign = server.call("GET", f"/campaigns/{cid}")
    stored = campaign["state"]["hero"]
    assert (stored["id"], stored["hp_max"], stored["atk"]) == (hero["id"], 18, 3)
    assert stored["pool"]["max"] == 3 and sorted(stored["abilities"]) == [
        "lucky-shot",
        "second-wind",
    ]

    other, _ = open_page("bee")
    again = commands_sent(other)
    other.goto(server.url("/app/"))
    ready(other)
    open_new_campaign(Effort(), other, "quest-calendar", "The group's hero")
    other.get_by_label("The prologue is complete").check()
    other.get_by_label("Hero", exact=True).select_option(label=f"{name} (the group's)")
    other.get_by_role("button", name="Create the campaign").click()
    other.wait_for_url("**/app/campaigns/*")
    ready(other)
    assert again == [{"type": "select_hero", "phase": "custom", "hero": hero}]


def test_qc57_a_shop_stocked_from_the_known_items_one_price_per_line(
    open_page: Any, server: Server
) -> None:
    """QC-57: the shop's stock is picked from the rulebook's items, each with one price."""
    status, created = server.call(
        "POST",
        "/campaigns",
        {"game": "quest-calendar", "name": "Shop day", "setup": {"prologue_complete": True}},
    )
    assert status == 201, created
    cid = created["id"]
    for body in (
        {"type": "select_hero", "phase": "main", "hero": VANGUARD},
        {"type": "start_page", "date": "2027-01-04"},
    ):
        status, answer = server.call("POST", f"/campaigns/{cid}/commands", body)
        assert status == 201, answer
    page, _ = open_page("owner")
    sent = commands_sent(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    page.locator("details.all-commands > summary").click()
    page.locator('details.all-commands [data-open-command="enter_shop"]').click()
    form = page.locator('.form-slot form[data-command="enter_shop"]')
    form.locator('[name="shop_id"]').fill("dock-market")
    for item in ("antidote", "med-kit"):
        form.get_by_label("Item", exact=True).select_option(item)
        form.get_by_role("button", name="Add to the stock").click()
    form.get_by_label("Price of Antidote (credits)").fill("4")
    form.get_by_label("Price of Med Kit (credits)").fill("5")
    form.locator(".stock-line").nth(1).get_by_label("How many (optional)").fill("2")
    expect(form.locator(".stock-line").first).to_contain_text("Cures Infected")
    assert_accessible(page, "the shop's stock from the known items")
    # wait for the command's answer: the state is read below, after the server has stored it
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/commands")
    ) as answer:
        form.locator("button[type=submit]").click()
    assert answer.value.status == 201
    ready(page)
    [body] = sent
    antidote = {
        "id": "antidote",
        "name": "Antidote",
        "kind": "consumable",
        "effect": {"kind": "cure", "condition": "infected"},
    }
    assert body == {
        "type": "enter_shop",
        "shop_id": "dock-market",
        "stock": [
            {"item": antidote, "price": 4},
            {"item": MED_KIT, "price": 5, "quantity": 2},
        ],
    }
    _, campaign = server.call("GET", f"/campaigns/{cid}")
    stock = campaign["state"]["page"]["shop"]["stock"]
    assert {key: entry["price"] for key, entry in stock.items()} == {"antidote": 4, "med-kit": 5}


def test_a_refused_hero_says_its_field_and_a_device_hero_is_shared(
    open_page: Any, server: Server
) -> None:
    """The server's refusal of the sheet names the field and saves nothing; a hero saved on this
    device by an earlier page is still offered, and shared with the group in one click."""
    name = f"Bran {uuid.uuid4().hex[:6]}"
    page, watch = open_page("owner")
    watch.allowed.append(("/library/heroes", (422,)))
    page.goto(server.url("/app/"))
    ready(page)
    mine = {"phase": "prologue", "hero": {**VANGUARD, "id": "bran", "name": name}}
    page.evaluate(
        "async ([name, hero]) => (await import('/app/static/heroes.js')).saveHero(name, hero)",
        [name, mine],
    )
    open_new_campaign(Effort(), page, "quest-calendar", "Refusals")
    page.get_by_label("Hero", exact=True).select_option(
        label="a new hero (make one on the hero sheet)"
    )
    page.get_by_label("Hero's name", exact=True).fill(f"{name} the second")
    page.get_by_label("Damage dice (such as 1d6)", exact=True).fill("a sword")
    page.get_by_role("button", name="Save this hero for the group").click()
    expect(page.locator("#hero-saved")).to_contain_text("damage_dice")
    _, library = server.call("GET", "/library/heroes")
    assert [e for e in library["heroes"] if e["name"].startswith(name)] == []
    page.get_by_label("Hero", exact=True).select_option(label=f"{name} (saved on this device)")
    page.get_by_role("button", name="Share this hero with the group").click()
    expect(page.locator("#hero-saved")).to_contain_text("Saved for the group")
    _, library = server.call("GET", "/library/heroes")
    [shared] = [e for e in library["heroes"] if e["name"] == name]
    assert shared["hero"] == mine["hero"]
