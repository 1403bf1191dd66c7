"""The table page driven as a player drives it, for the full-game test and the screenshots: a
plan's ``Table`` (tests/browser/game_plan.py) whose commands are clicks and typing in the play
panel, whose decisions are the pending section's buttons, and whose undo is "Undo the last
command"; the "New campaign" flow of each game; and the clicks and fields counted per step.

Nothing here calls the API: what the page sent and was answered is read off the page's own
requests. No fixed sleeps: every wait is on ``body[data-ready="true"]`` and
``data-campaign-version``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]
OTHER = "…another…"
"""A pick's option of a value typed by hand (webapi/static/controls.js)."""


@dataclass
class Effort:
    """Clicks and fields filled, per step, in the order the steps came."""

    step: str = "start"
    clicks: dict[str, int] = field(default_factory=dict)
    fields: dict[str, int] = field(default_factory=dict)

    def begin(self, step: str) -> None:
        """Count what follows under ``step``."""
        self.step = step
        self.clicks.setdefault(step, 0)
        self.fields.setdefault(step, 0)

    def click(self, locator: Any) -> None:
        """Click, counted."""
        self.clicks[self.step] = self.clicks.get(self.step, 0) + 1
        locator.click()

    def fill(self, locator: Any, text: str) -> None:
        """Type a value, counted, unless the field already holds it."""
        if locator.input_value() == text:
            return
        self.fields[self.step] = self.fields.get(self.step, 0) + 1
        locator.fill(text)

    def select(self, locator: Any, value: str | None = None, label: str | None = None) -> None:
        """Choose an option by value or label, counted, unless it is chosen already."""
        if value is not None and locator.input_value() == value:
            return
        self.fields[self.step] = self.fields.get(self.step, 0) + 1
        if label is not None:
            locator.select_option(label=label)
        else:
            locator.select_option(value)

    def rows(self) -> list[Json]:
        """The table: one row per step, and the totals."""
        out = [{"step": s, "clicks": self.clicks[s], "fields": self.fields[s]} for s in self.clicks]
        out.append(
            {
                "step": "total",
                "clicks": sum(self.clicks.values()),
                "fields": sum(self.fields.values()),
            }
        )
        return out


def ready(page: Any) -> None:
    """The page has finished loading or refreshing."""
    page.wait_for_selector('body[data-ready="true"]')


def at_version(page: Any, version: int) -> None:
    """The page shows ``version``, and has finished showing it."""
    page.wait_for_selector(f'[data-campaign-version="{version}"]')
    ready(page)


def posted(path: str) -> Any:
    """A predicate for page.expect_response: the page's POST to a path ending so."""
    return lambda r: r.request.method == "POST" and r.url.split("?")[0].endswith(path)


# -- forms -----------------------------------------------------------------------------------


def set_control(effort: Effort, control: Any, value: Any) -> None:
    """Put one value in one control: a select's option (or its typed "another value"), else
    the text (JSON for an object or a list)."""
    if control.evaluate("e => e.tagName") == "SELECT":
        text = json.dumps(value) if isinstance(value, bool) else str(value)
        if control.is_hidden() and control.input_value() == text:
            return  # a field the page fills itself (its only seat) and does not show
        values = control.locator("option").evaluate_all("os => os.map(o => o.value)")
        if text in values:
            effort.select(control, text)
            return
        assert OTHER in values, f"{text} is not offered by {control}"
        effort.select(control, OTHER)
        control = control.locator("xpath=following-sibling::*[1]")
    text = json.dumps(value) if isinstance(value, dict | list) else str(value)
    effort.fill(control, text)


def fill_value(effort: Effort, form: Any, path: str, value: Any) -> None:
    """Fill the form's part at ``path`` with ``value``: an optional object added first, a list's
    rows added as needed. A part the form does not show (preset by a decision, or given by the
    answer chosen) is left to the page."""
    control = form.locator(f'[name="{path}"]')
    if control.count():
        set_control(effort, control, value)
    elif isinstance(value, dict):
        add = form.locator(f'button[data-add="{path}"]')
        if add.count() and add.is_visible():
            effort.click(add)
        for key, item in value.items():
            fill_value(effort, form, f"{path}.{key}", item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            at = f"{path}[{index}]"
            while not form.locator(f'[data-field="{at}"]').count():
                effort.click(form.locator(f'button[data-add="{path}"]'))
            if isinstance(item, dict):
                for key, part in item.items():
                    fill_value(effort, form, f"{at}.{key}", part)
            else:
                set_control(effort, form.locator(f'[name="{at}"]'), item)


def fill_form(effort: Effort, form: Any, body: Json) -> None:
    """Fill exactly the body's fields (its ``type`` is the form's)."""
    for key, value in body.items():
        if key != "type":
            fill_value(effort, form, key, value)


# -- decisions -------------------------------------------------------------------------------


def option_gives(option: str, command: str, wanted: Json) -> bool:
    """Whether a decision's button (its ``data-option``) sends exactly ``wanted`` beyond what the
    decision presets (decisions.js: the command alone, an option object, a value, value:choice)."""
    if option == command:
        return not wanted
    if option == "decline" or not wanted:
        return False
    try:
        parsed = json.loads(option)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return all(key in parsed and parsed[key] == v for key, v in wanted.items())
    return sorted(option.split(":")) == sorted(str(v) for v in wanted.values())


def answer_decision(effort: Effort, page: Any, body: Json, pending: Json) -> None:
    """Answer the pending decision with the button that sends ``body``, else its form."""
    section = page.locator('section[aria-label="Pending decision"]')
    command = body["type"]
    context = pending.get("context") or {}
    wanted = {
        k: v
        for k, v in body.items()
        if k not in ("type", "player") and (k not in context or context[k] != v)
    }
    if command == "roll_night" and "faces" not in body:  # the night roll card's server dice
        effort.click(
            section.locator('button.choice[data-command="roll_night"][data-option="server"]')
        )
        return
    for button in section.locator(f'button.choice[data-command="{command}"]').all():
        if option_gives(button.get_attribute("data-option") or "", command, wanted):
            effort.click(button)
            return
    form = section.locator(f'form[data-command="{command}"]').first
    answer = form.locator('select[name="answer"]')
    if answer.count():
        labels = answer.locator("option").all_inner_texts()
        said = [str(v) for v in wanted.values() if not isinstance(v, dict | list)]
        best = max(labels, key=lambda label: sum(s in label for s in said))
        effort.select(answer, label=best)
    fill_form(effort, form, {k: v for k, v in body.items() if k != "player" or k in wanted})
    effort.click(form.locator("button[type=submit]"))


# -- the table -------------------------------------------------------------------------------


def head_state(page: Any, version: int) -> Json:
    """The campaign's state at ``version``, read as the page reads it (its token, its API)."""
    campaign = page.evaluate("() => location.pathname.split('/').filter(Boolean).pop()")
    state: Json = page.evaluate(
        """async ([campaign, version]) => {
            const api = await import("/app/static/api.js");
            return (await api.get(`/campaigns/${campaign}?version=${version}`)).state;
        }""",
        [campaign, version],
    )
    return state


class PageTable:
    """A plan's table on the page: ``pages`` by seat (``owner`` for the owner's own page, which
    plays every body without a seat of its own)."""

    def __init__(self, effort: Effort, pages: dict[str, Any], version: int) -> None:
        self.effort = effort
        self.pages = pages
        self.version = version
        self.state: Json = {}
        self.reasons: list[str] = []

    def page_for(self, body: Json) -> Any:
        return self.pages.get(body.get("player", "owner"), self.pages["owner"])

    def send(self, body: Json) -> Json:
        """Open the command (possible now first, else "All commands"), fill exactly its fields and
        send it; or answer the pending decision by its button. The state the page was answered."""
        page = self.page_for(body)
        at_version(page, self.version)
        pending = self.state.get("pending")
        with page.expect_response(posted("/commands")) as answered:
            if pending and body["type"] in pending.get("commands", []):
                answer_decision(self.effort, page, body, pending)
            else:
                self.command(page, body)
        response = answered.value
        assert response.status == 201, (body, response.text())
        # the page asks for the answer without the state (RFC 7240): it reads the head anyway
        assert response.request.headers.get("prefer") == "return=minimal", body
        sent = json.loads(response.request.post_data or "{}")
        assert {k: v for k, v in sent.items() if k != "entropy"} == body, (sent, body)
        return self.settle(page, response.json())

    def command(self, page: Any, body: Json) -> None:
        kind = body["type"]
        now = page.locator(f'.actions-now button[data-open-command="{kind}"]')
        if now.count():
            self.effort.click(now)
        else:
            every = page.locator("details.all-commands")
            if not every.evaluate("d => d.open"):
                self.effort.click(every.locator("summary"))
            self.effort.click(every.locator(f'li[data-command="{kind}"] button'))
        form = page.locator(f'.form-slot form[data-command="{kind}"]')
        fill_form(self.effort, form, body)
        self.effort.click(form.locator("button[type=submit]"))

    def undo(self) -> Json:
        """ "Undo the last command", with a reason, confirmed."""
        page = self.pages["owner"]
        at_version(page, self.version)
        reason = "the toll was printed on another page"
        self.effort.click(page.get_by_role("button", name="Undo the last command"))
        self.effort.fill(page.locator("#undo-reason"), reason)
        with page.expect_response(posted("/rollback")) as answered:
            self.effort.click(page.get_by_role("button", name="Confirm undo"))
        assert answered.value.status == 201, answered.value.text()
        self.reasons.append(reason)
        return self.settle(page, answered.value.json())

    def settle(self, page: Any, result: Json) -> Json:
        self.version = int(result["version"])
        at_version(page, self.version)
        # a command's answer holds no state when the page asks return=minimal: the state is the
        # head the page read after it, asked again here through the page's own API module
        self.state = result["state"] if "state" in result else head_state(page, self.version)
        return self.state


# -- starting a campaign ---------------------------------------------------------------------


def sign_in(effort: Effort, page: Any, base: str, secret: str) -> None:
    """/app/, the token pasted, "Sign in"."""
    page.goto(base + "/app/")
    ready(page)
    effort.fill(page.get_by_label("API token"), secret)
    effort.click(page.get_by_role("button", name="Sign in"))
    page.get_by_role("button", name="New campaign").wait_for()
    ready(page)


def open_new_campaign(effort: Effort, page: Any, game: str, name: str) -> None:
    """ "New campaign", the game and the name."""
    effort.click(page.get_by_role("button", name="New campaign"))
    ready(page)
    effort.select(page.get_by_label("Game"), game)
    ready(page)
    effort.fill(page.get_by_label("Name"), name)


def change_house_rules(effort: Effort, page: Any, rules: Json) -> None:
    """Open the house rules and change the ones given (JSON text or a select's option)."""
    effort.click(page.locator("details.house-rules summary"))
    for key, value in rules.items():
        control = page.locator(f'[data-rule="{key}"]').locator("select, input").first
        tag = control.evaluate("e => e.tagName")
        if tag == "SELECT":
            effort.select(control, json.dumps(value))
        elif tag == "INPUT" and isinstance(value, list):  # a list of words: a comma list
            effort.fill(control, ", ".join(str(v) for v in value))
        elif tag == "INPUT":
            effort.fill(control, str(value))
        else:
            effort.fill(control, json.dumps(value))


def create(effort: Effort, page: Any) -> str:
    """ "Create the campaign"; the new campaign's id once its page is ready."""
    effort.click(page.get_by_role("button", name="Create the campaign"))
    page.wait_for_url("**/app/campaigns/*")
    ready(page)
    return str(page.url.rsplit("/", 1)[1])


def build_setup(effort: Effort, page: Any, setup: Json) -> None:
    """The match setup builder made to hold ``setup``: the sample's players removed, each player
    added with its numbers, partner, pieces and weapons, and the rest of the setup as JSON."""
    builder = page.locator(".setup-builder")
    players = builder.locator("fieldset.player")
    while players.count():
        effort.click(players.first.get_by_role("button", name="Remove this player").last)
    for index, player in enumerate(setup["players"]):
        effort.click(builder.get_by_role("button", name="Add a player"))
        row = players.nth(index)
        effort.fill(row.get_by_label("Player id"), player["id"])
        labels = {
            "exhaustion": "Exhaustion",
            "luck_mod": "Luck modifier",
            "int_mod": "INT modifier",
            "relationship": "Relationship",
            "fate_rerolls": "Fate rerolls",
        }
        for key, label in labels.items():
            if key in player:
                effort.fill(row.get_by_label(label, exact=True), str(player[key]))
        if "partner" in player:
            effort.select(row.get_by_label("Partner", exact=True), player["partner"])
        for at, piece in enumerate(player.get("pieces", [])):
            effort.click(row.get_by_role("button", name="Add a piece"))
            fill_piece(effort, row.locator("fieldset.piece").nth(at), piece)
        for at, weapon in enumerate(player.get("weapons", [])):
            effort.click(row.get_by_role("button", name="Add a weapon"))
            fill_weapon(effort, row.locator("fieldset.weapon").nth(at), weapon)
    rest = {k: v for k, v in setup.items() if k != "players"}
    effort.fill(builder.locator("textarea.setup-rest"), json.dumps(rest) if rest else "")


def fill_piece(effort: Effort, row: Any, piece: Json) -> None:
    effort.fill(row.get_by_label("Piece id"), piece["id"])
    effort.select(row.get_by_label("Starts"), piece["location"]["kind"])
    if "space" in piece["location"]:
        effort.fill(row.get_by_label("Pathway space"), str(piece["location"]["space"]))
    if "facing" in piece:
        effort.select(row.get_by_label("Facing"), piece["facing"])
    if "adaptability" in piece:
        effort.fill(row.get_by_label("Adaptability"), str(piece["adaptability"]))


def fill_weapon(effort: Effort, row: Any, weapon: Json) -> None:
    effort.fill(row.get_by_label("Weapon id"), weapon["id"])
    effort.select(row.get_by_label("Kind"), weapon["kind"])
    for key, label in (("ammo", "Ammunition"), ("ammo_max", "Capacity")):
        if key in weapon:
            effort.fill(row.get_by_label(label, exact=True), str(weapon[key]))
    if "ammo_regen" in weapon:
        effort.fill(row.get_by_label("Regained each night"), str(weapon["ammo_regen"]))
