"""The analytics page (/app/analytics): every chart drawn with the numbers the API answers, a
filter (the game, the game's dates) that changes the charts and the address, the server's 422
shown next to the filter it names, and a plain refusal for a token that may not read analytics."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.analytics_store import seed_analytics
from tests.browser.conftest import TOKEN_KEY, Watch
from tests.browser.server import Server, running
from tests.browser.test_accessibility import assert_accessible

pytestmark = pytest.mark.browser

ROUTES = ("/analytics/campaigns", "/analytics/dice")


@pytest.fixture(scope="module")
def analytics_server(
    tmp_path_factory: pytest.TempPathFactory, chromium_path: str
) -> Iterator[Server]:
    """A server of its own (analytics_store.py: every figure and dice of each verdict), once its
    views have read the whole log, so that the page and the test read the same figures."""
    folder = tmp_path_factory.mktemp("analytics")
    with running(folder, seeded=seed_analytics(folder / "questlog.db")) as server:
        deadline = time.monotonic() + 30
        while not all(answer(server, route).get("caught_up") for route in ROUTES):
            assert time.monotonic() < deadline, "the views did not catch up"
            time.sleep(0.2)
        yield server


def answer(server: Server, route: str, **query: str) -> Any:
    """The API's answer to the admin token."""
    status, body = server.call("GET", f"{route}?{urlencode(query)}", token="admin")
    assert status == 200, body
    return body


def refusal(server: Server, route: str, query: dict[str, str], name: str) -> str:
    """The server's 422 message of one query parameter (a repeatable one's, value by value)."""
    status, problem = server.call("GET", f"{route}?{urlencode(query)}", token="admin")
    assert status == 422, problem
    said = problem["errors"][name]
    messages = [m for ms in said.values() for m in ms] if isinstance(said, dict) else said
    return " ".join(messages)


def percent(share: float) -> str:
    """A share as the page writes it: a percentage to one decimal place at most."""
    return f"{round(share * 100, 1):g}%"


@pytest.fixture
def open_as(browser: Any, analytics_server: Server) -> Iterator[Any]:
    """open_as(token, path) -> (page, watch), the page loaded; each is checked afterwards."""
    opened: list[tuple[Any, Watch]] = []

    def make(token: str, path: str = "/app/analytics") -> tuple[Any, Watch]:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        secret = json.dumps(analytics_server.seeded.tokens[token])
        context.add_init_script(f"sessionStorage.setItem({json.dumps(TOKEN_KEY)}, {secret})")
        page = context.new_page()
        page.set_default_timeout(10_000)
        watch = Watch(urlsplit(analytics_server.base).netloc)
        page.on("request", lambda r: watch.requests.append(r.url))
        page.on("response", lambda r: r.status >= 400 and watch.refusals.append((r.status, r.url)))
        page.on("console", lambda m: m.type == "error" and watch.console_errors.append(m.text))
        page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
        opened.append((page, watch))
        page.goto(analytics_server.url(path))
        ready(page)
        return page, watch

    yield make
    for page, watch in opened:
        page.context.close()
        watch.check()


def ready(page: Any) -> None:
    page.wait_for_selector('body[data-ready="true"]')


def text(value: Any) -> str:
    """A number as the server's JSON writes it (the page shows it as written)."""
    return json.dumps(value)


def cells(page: Any, chart: str) -> list[list[str]]:
    """The rows of a chart's table of numbers, cell by cell."""
    rows = page.locator(f'[data-chart="{chart}"] tbody tr')
    return [
        [c.strip() for c in rows.nth(k).locator("td").all_text_contents()]
        for k in range(rows.count())
    ]


def titles(page: Any, chart: str) -> list[str]:
    """The <title> of every mark of a chart's SVG (each bar, dot and line)."""
    found: list[str] = page.locator(f'[data-chart="{chart}"] svg title').all_text_contents()
    return found


def word(die: dict[str, Any]) -> str:
    """The verdict the page must give a die entry."""
    if die["unlikely_fair"]:
        return "unfair"
    return "fair" if die["enough_samples"] and die["test"] else "few"


def dice_shown(page: Any) -> dict[str, str]:
    """Every die chart on the page and its verdict."""
    found: dict[str, str] = page.eval_on_selector_all(
        "[data-die]", "els => Object.fromEntries(els.map(e => [e.dataset.die, e.dataset.verdict]))"
    )
    return found


def check_dice(page: Any, dice: dict[str, Any]) -> None:
    assert dice_shown(page) == {f"d{d['sides']}-{d['source']}": word(d) for d in dice["dice"]}
    for die in dice["dice"]:
        shown = page.locator(f'[data-die="d{die["sides"]}-{die["source"]}"]')
        verdict = shown.locator(".verdict-words").inner_text()
        if word(die) == "few":
            assert verdict == "too few dice to tell."
        else:
            p = die["test"]["p_value"]
            said = f"{p:.1e}" if p < 0.001 else f"{p:.3f}"
            start = "unlikely to be fair" if word(die) == "unfair" else "consistent with fair dice"
            assert verdict == f"{start} (p = {said}).", verdict
        marks = shown.locator("svg title").all_text_contents()
        face, count = max(die["faces"].items(), key=lambda fc: fc[1])
        (mark,) = [m for m in marks if m.startswith(f"face {face}: {count} (expected ")]
        # to one decimal place, as JavaScript rounds (5.25 is 5.3 there, 5.2 in Python)
        assert abs(float(mark.split("expected ")[1].rstrip(")")) - die["expected"][face]) <= 0.05


def test_an_admin_sees_every_figure_drawn_with_the_numbers_of_the_api(
    open_as: Any, analytics_server: Server
) -> None:
    page, watch = open_as("admin", "/app/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Analytics").click()
    page.wait_for_url("**/app/analytics")
    ready(page)
    figures = answer(analytics_server, "/analytics/campaigns")
    dice = answer(analytics_server, "/analytics/dice")

    charts = page.locator("[data-chart]")
    expect(charts).to_have_count(6)
    for chart in ("credits-by-page", "weather", "deaths-by-level", "combat-by-mode"):
        assert page.locator(f'[data-chart="{chart}"] svg[role="img"]').count() >= 1, chart

    (page_one,) = figures["credits_by_page"]
    assert cells(page, "credits-by-page")[0][:4] == [
        text(page_one[k]) for k in ("page", "campaigns", "average_credits", "average_debt")
    ]
    assert (
        f"page {page_one['page']}, average credits: {text(page_one['average_credits'])}"
        in titles(page, "credits-by-page")
    )

    (death,) = figures["deaths_by_level"]
    assert f"level {death['level']}, deaths: {death['deaths']}" in titles(page, "deaths-by-level")
    (outcome, clones), *_ = figures["clone_results"].items()
    assert f"rolled {outcome}, clones: {clones}" in titles(page, "deaths-by-level")

    (mode,) = figures["combat_by_mode"]
    assert 0 < mode["share_won"] < 1  # the store has a combat won and one lost
    assert cells(page, "combat-by-mode") == [
        [
            mode["mode"],
            *(text(mode[k]) for k in ("combats", "combats_won")),
            percent(mode["share_won"]),
            *(text(mode[k]) for k in ("rounds", "rounds_played", "rounds_won")),
            text(mode["rounds_won_per_combat"]),
            percent(mode["won_per_round_played"]),
        ]
    ]
    combat = titles(page, "combat-by-mode")
    assert {
        f"{mode['mode']}, combats: {mode['combats']}",
        f"{mode['mode']}, combats won: {mode['combats_won']}",
        f"{mode['mode']}, combats won: {percent(mode['share_won'])}",
        f"{mode['mode']}, rounds won per round played: {percent(mode['won_per_round_played'])}",
    } <= set(combat)

    nights = figures["exhaustion_by_night"]
    rows = cells(page, "exhaustion-by-night")
    assert [(r[0], r[3]) for r in rows] == [(text(n["night"]), text(n["average"])) for n in nights]
    first = nights[0]
    level, parties = next(iter(first["distribution"].items()))
    assert f"night {first['night']}, exhaustion {level}: {parties}" in titles(
        page, "exhaustion-by-night"
    )

    weather = figures["weather"]
    expect(page.locator('[data-chart="weather"] figcaption')).to_have_text(
        f"Weather over {weather['nights']} nights"
    )
    for kind, count in weather["set"].items():
        assert f"{kind}, set by the landed space: {count}" in titles(page, "weather")
    for kind, count in weather["in_force"].items():
        assert f"{kind}, in force as the night began: {count}" in titles(page, "weather")
    for kind, count in weather["in_force_tonight"].items():
        assert f"{kind}, in force that night: {count}" in titles(page, "weather")
    kinds = sorted({*weather["set"], *weather["in_force"], *weather["in_force_tonight"]})
    assert cells(page, "weather") == [
        [
            kind,
            text(weather["set"].get(kind, 0)),
            percent(weather["share_set"][kind]) if kind in weather["share_set"] else "\N{EN DASH}",
            text(weather["in_force"].get(kind, 0)),
            text(weather["in_force_tonight"].get(kind, 0)),
        ]
        for kind in kinds
    ]

    assert {word(d) for d in dice["dice"]} == {"fair", "few", "unfair"}  # the store has each
    # 1d6 and 2d6 mixed: fair, the expected counts following the dice, not the rolls
    (d6,) = [d for d in dice["dice"] if (d["sides"], d["source"]) == (6, "reported")]
    assert d6["dice"] > d6["rolls"] and word(d6) == "fair"
    assert set(d6["expected"].values()) == {round(d6["dice"] / 6, 3)}
    check_dice(page, dice)
    page.locator('[data-chart="weather"] details.numbers summary').click()
    assert_accessible(page, "the analytics page, a table of numbers open")
    # every filter is the server's own: the page asks nothing else to learn which it takes
    assert not [u for u in watch.requests if urlsplit(u).path == "/openapi.json"]


def test_a_filter_changes_the_charts_and_the_address(
    open_as: Any, analytics_server: Server
) -> None:
    page, _watch = open_as("admin")
    everything = dice_shown(page)
    page.get_by_label("Game").select_option("calendar-board")
    ready(page)
    assert parse_qs(urlsplit(page.url).query) == {"game": ["calendar-board"]}
    expect(page.locator("[data-analytics-status]")).to_have_text("Showing game The Calendar Board.")
    dice = answer(analytics_server, "/analytics/dice", game="calendar-board")
    check_dice(page, dice)
    assert dice_shown(page) != everything
    # a Calendar Board view has nights, not Quest Calendar's page dates
    expect(page.get_by_label("Nights from")).to_be_visible()
    expect(page.get_by_label("Pages from")).to_be_hidden()
    figures = answer(analytics_server, "/analytics/campaigns", game="calendar-board")
    assert figures["credits_by_page"] == [] and figures["exhaustion_by_night"]
    expect(page.locator('[data-chart="credits-by-page"]')).to_contain_text("Nothing recorded yet.")
    assert len(cells(page, "exhaustion-by-night")) == len(figures["exhaustion_by_night"])

    page.reload()  # the address holds the view: it opens again as it was
    ready(page)
    expect(page.get_by_label("Game")).to_have_value("calendar-board")
    assert dice_shown(page) == {f"d{d['sides']}-{d['source']}": word(d) for d in dice["dice"]}

    page.go_back()  # and back to every game
    page.wait_for_url("**/app/analytics")
    ready(page)
    expect(page.get_by_label("Game")).to_have_value("")
    assert dice_shown(page) == everything


def test_a_game_date_filter_changes_the_charts(open_as: Any, analytics_server: Server) -> None:
    page, _watch = open_as("admin")
    every = answer(analytics_server, "/analytics/campaigns")
    figures = answer(analytics_server, "/analytics/campaigns", to_night="1")
    assert [n["night"] for n in every["exhaustion_by_night"]] == [1, 2, 3, 4]
    assert [n["night"] for n in figures["exhaustion_by_night"]] == [1]
    nights_to = page.get_by_label("Nights to")
    nights_to.fill("1")
    nights_to.press("Enter")
    ready(page)
    assert parse_qs(urlsplit(page.url).query) == {"to_night": ["1"]}
    expect(page.locator("[data-analytics-status]")).to_have_text("Showing nights to 1.")
    rows = cells(page, "exhaustion-by-night")
    assert [(r[0], r[3]) for r in rows] == [
        (text(1), text(figures["exhaustion_by_night"][0]["average"]))
    ]
    expect(page.locator('[data-chart="weather"] figcaption')).to_have_text(
        f"Weather over {figures['weather']['nights']} nights"
    )
    assert figures["weather"]["nights"] < every["weather"]["nights"]
    # a bound of Calendar Board nights leaves Quest Calendar's pages as they were
    assert figures["credits_by_page"] == every["credits_by_page"]
    assert len(cells(page, "credits-by-page")) == len(every["credits_by_page"])
    check_dice(page, answer(analytics_server, "/analytics/dice", to_night="1"))


LABELS = {
    "since": "Recorded since",
    "house_rule": "House rule",
    "from_date": "Pages from",
    "to_date": "Pages to",
}


@pytest.mark.parametrize(
    ("filled", "named"),
    [
        ({"since": "yesterday"}, "since"),
        ({"house_rule": "nope=1"}, "house_rule"),
        ({"from_date": "2027-01-10", "to_date": "2027-01-04"}, "to_date"),  # ends before it starts
    ],
    ids=["since", "house_rule", "date-range"],
)
def test_the_servers_refusal_is_shown_next_to_the_filter_it_names(
    open_as: Any, analytics_server: Server, filled: dict[str, str], named: str
) -> None:
    page, watch = open_as("admin")
    watch.allowed.extend((route, (422,)) for route in ROUTES)
    message = refusal(analytics_server, "/analytics/campaigns", filled, named)
    assert refusal(analytics_server, "/analytics/dice", filled, named) == message
    for name, value in filled.items():
        page.get_by_label(LABELS[name]).fill(value)
    page.get_by_role("button", name="Apply").click()
    ready(page)
    assert parse_qs(urlsplit(page.url).query) == {k: [v] for k, v in filled.items()}
    # both routes refuse it: the message is said once, beside the field it names, and above
    expect(page.locator(f'[data-filter-error="{named}"]')).to_have_text(message)
    expect(page.get_by_label(LABELS[named])).to_have_attribute("aria-invalid", "true")
    for other in set(filled) - {named}:
        expect(page.locator(f'[data-filter-error="{other}"]')).to_be_empty()
        expect(page.get_by_label(LABELS[other])).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-filter-errors]")).to_have_text(
        f"The server refused these filters: {LABELS[named]}: {message}"
    )
    expect(page.locator("[data-refused]")).to_have_count(2)
    expect(page.locator('[data-refused="dice"]')).to_contain_text(
        f"The server refused the filters of the dice ({LABELS[named]}): see the form."
    )
    expect(page.locator("[data-chart]")).to_have_count(0)
    assert_accessible(page, f"the analytics page with a refused {named}")
    page.get_by_role("button", name="Clear the filters").click()
    ready(page)
    expect(page.locator(f'[data-filter-error="{named}"]')).to_be_empty()
    expect(page.locator("[data-filter-errors]")).to_be_empty()
    expect(page.locator("[data-chart]")).to_have_count(6)


def test_a_parameter_the_server_does_not_know_is_named_above_the_form(
    open_as: Any, analytics_server: Server
) -> None:
    """An address written by hand: the page sends what it holds, and the server's 422 names it."""
    page, watch = open_as("admin", "/app/analytics?bogus=1")
    watch.allowed.extend((route, (422,)) for route in ROUTES)
    message = refusal(analytics_server, "/analytics/campaigns", {"bogus": "1"}, "bogus")
    assert message == "Unknown field."
    expect(page.locator("[data-filter-errors]")).to_have_text(
        f"The server refused these filters: bogus: {message}"
    )
    expect(page.locator("[data-refused]")).to_have_count(2)


@pytest.mark.parametrize("token", ["viewer", "owner"])
def test_a_token_that_may_not_read_analytics_is_told_so(
    open_as: Any, analytics_server: Server, token: str
) -> None:
    assert analytics_server.call("GET", "/analytics/dice", token=token)[0] == 403
    page, watch = open_as(token)
    watch.allowed.extend((route, (403,)) for route in ROUTES)
    refused = page.locator('[data-analytics="refused"]')
    expect(refused).to_contain_text(
        "This token cannot read the analytics: they are for an admin token or an analyst's."
    )
    expect(page.locator("[data-chart]")).to_have_count(0)


def test_a_token_that_may_read_one_route_only_sees_its_charts(
    open_as: Any, analytics_server: Server
) -> None:
    """A role that reads the figures but not the dice: the figures are drawn, and the dice's card
    says the token cannot read them. No token of this server reads one route only (both are the
    admin's), so the test answers the dice's request with the server's 403 itself."""
    page, watch = open_as("admin", "/app/")
    watch.allowed.append(("/analytics/dice", (403,)))
    forbidden = {
        "title": "Forbidden",
        "status": 403,
        "detail": "Only an admin token may use this route.",
    }
    page.route(
        "**/analytics/dice*",
        lambda route: route.fulfill(
            status=403, json=forbidden, headers={"Content-Type": "application/problem+json"}
        ),
    )
    page.goto(analytics_server.url("/app/analytics"))
    ready(page)
    expect(page.locator("[data-chart]")).to_have_count(5)
    expect(page.locator('[data-refused="dice"]')).to_contain_text(
        "This token cannot read the dice."
    )
