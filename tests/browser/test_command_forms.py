"""Every command's form sends exactly what the player chose.

Data-driven over GET /commands: for each command of both games the page renders its form (from
the "All commands" list), the test fills only the required fields with the command's catalogue
example and submits; the body must hold exactly ``type`` and those fields, plus the ``entropy``
the page adds for server dice whenever no ``faces`` are given. Then each optional part (a field,
an optional object, a list item) is added alone, and the body must grow by that part alone.

Requests to ``/campaigns/{id}/commands`` are caught and answered with a canned 422, so nothing is
stored and the error must show once. The campaign state the page reads is the real one with the
entries the example's picked values need (an item id in the inventory, a piece in a party...),
because a picked field offers only what the state holds.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.server import Server

pytestmark = pytest.mark.browser
Json = dict[str, Any]
CANNED = {
    "type": "about:blank",
    "title": "Invalid input",
    "status": 422,
    "detail": "canned: refused by the test",
    "errors": {"canned": ["refused by the test"]},
}
ENTROPY = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
GAMES = {"quest-calendar": "play", "calendar-board": "match"}


def is_object(field: Json) -> bool:
    return field["type"] == "object" and isinstance(field.get("fields"), list)


def is_rows(field: Json) -> bool:
    items = field.get("items") or {}
    return field["type"] == "array" and (isinstance(items.get("fields"), list) or "picks" in items)


def rolls_dice(command: Json) -> bool:
    """Whether the command draws dice (its catalogue ``dice`` is not null nor "None...")."""
    dice = command.get("dice")
    return bool(dice) and not str(dice).startswith("None")


def own_fields(command: Json) -> list[Json]:
    """The fields a player fills (the page adds ``entropy`` itself; ``faces`` only with dice)."""
    rolls = rolls_dice(command)
    return [
        f for f in command["fields"] if f["name"] != "entropy" and (rolls or f["name"] != "faces")
    ]


def synth(field: Json) -> Any:
    """A value for a field the example leaves out (the canned 422 needs no valid one)."""
    kind = field["type"]
    if field.get("choices"):
        first = field["choices"][0]
        return int(first) if "integer" in kind and str(first).lstrip("-").isdigit() else first
    if "picks" in field:
        return f"pick-{field['name']}"
    if kind == "boolean":
        return True
    if kind.startswith("integer"):
        low, high = field.get("minimum", 1), field.get("maximum", 1)
        return min(max(1, low), high) if "maximum" in field else max(1, low)
    if is_object(field):
        return {f["name"]: synth(f) for f in field["fields"] if f["required"]}
    if is_rows(field):
        return [synth_item(field)]
    if kind == "array":
        return [1] if "integer" in (field.get("items") or {}).get("type", "") else ["x"]
    if kind == "object":
        return {"a": 1}
    return "x"


def synth_item(field: Json) -> Any:
    shape = field["items"]
    if "fields" in shape:
        return {f["name"]: synth(f) for f in shape["fields"] if f["required"]}
    return synth({"name": field["name"], **shape})


def required_only(field: Json, value: Any) -> Any:
    """The example's value of a field, with only the required members of its objects."""
    if is_object(field) and isinstance(value, dict):
        return {
            f["name"]: required_only(f, value[f["name"]])
            for f in field["fields"]
            if f["required"] and f["name"] in value
        }
    if is_rows(field) and isinstance(value, list):
        return [required_item(field, item) for item in value]
    return value


def required_item(field: Json, item: Any) -> Any:
    shape = field["items"]
    if "fields" in shape and isinstance(item, dict):
        return required_only({"type": "object", "fields": shape["fields"]}, item)
    return item


def for_seat(command: Json, seat: str) -> Json:
    """The command with its example acting for ``seat``: the owner of the seeded match holds seat
    A, B is an invited player's, and a form's player select offers only the seats the page plays
    (docs/table-page.md)."""
    command = copy.deepcopy(command)
    if "player" in command["example"]:
        command["example"]["player"] = seat
    return command


def base_body(command: Json) -> Json:
    """``type`` and the required fields, valued as the example values them."""
    example = command["example"]
    body: Json = {"type": command["name"]}
    for field in own_fields(command):
        if field["required"]:
            assert field["name"] in example, f"{command['name']}: the example lacks {field['name']}"
            body[field["name"]] = required_only(field, example[field["name"]])
    return body


def optional_parts(command: Json) -> list[tuple[str, list[Any], Json, Any]]:
    """Each optional part: (what, the path to it in the body, its field, its value)."""
    example = command["example"]
    base = base_body(command)
    parts: list[tuple[str, list[Any], Json, Any]] = []

    def walk(fields: list[Json], value: Json, source: Any, path: list[Any]) -> None:
        for field in fields:
            name = field["name"]
            here = [*path, name]
            given = source.get(name) if isinstance(source, dict) else None
            if not field["required"]:
                chosen = copy.deepcopy(given) if given is not None else synth(field)
                if chosen in ([], {}):  # an empty list or object is no part to add
                    chosen = synth(field)
                parts.append((".".join(map(str, here)), here, field, chosen))
                continue
            if is_object(field):
                walk(field["fields"], value[name], given or {}, here)
            elif is_rows(field):
                rows = value[name]
                for index, row in enumerate(rows):
                    if "fields" in field["items"] and isinstance(row, dict):
                        inner = (given or [{}])[index] if index < len(given or []) else {}
                        walk(field["items"]["fields"], row, inner, [*here, index])
                extra = rows[0] if rows else synth_item(field)
                parts.append((f"{'.'.join(map(str, here))}[+]", [*here, len(rows)], field, extra))

    walk(own_fields(command), base, example, [])
    return parts


def put(body: Json, path: list[Any], value: Any) -> Json:
    """``body`` with ``value`` at ``path`` (a list index at the end appends)."""
    grown = copy.deepcopy(body)
    node: Any = grown
    for key in path[:-1]:
        node = node[key]
    if isinstance(node, list):
        node.append(copy.deepcopy(value))
    else:
        node[path[-1]] = copy.deepcopy(value)
    return grown


# -- the state the picks need ----------------------------------------------------------------


def picked_values(fields: list[Json], value: Any, player: Any) -> list[tuple[Json, Any, Any]]:
    """Every (picks hint, value, acting player) in a body."""
    found: list[tuple[Json, Any, Any]] = []
    if not isinstance(value, dict):
        return found
    for field in fields:
        if field["name"] not in value:
            continue
        given = value[field["name"]]
        if "picks" in field and not isinstance(given, (dict, list)):
            found.append((field["picks"], given, player))
        if is_object(field):
            found += picked_values(field["fields"], given, player)
        if is_rows(field) and isinstance(given, list):
            shape = field["items"]
            for item in given:
                if "picks" in shape:
                    found.append((shape["picks"], item, player))
                elif "fields" in shape:
                    row = item if isinstance(item, dict) else {shape["fields"][0]["name"]: item}
                    found += picked_values(shape["fields"], row, player)
    return found


def offer(state: Json, hint: Json, value: Any, player: Any) -> None:
    """Put an entry in ``state`` at the hint's source whose picked value is ``value``."""
    steps = hint["source"].split("/")[1:]
    steps = [str(player or "A") if s in ("{player}", "*") else s for s in steps]
    node: Any = state
    for index, step in enumerate(steps):
        last = index == len(steps) - 1
        listy = last and (hint.get("value") == "id" or step in ("players", "options"))
        if not isinstance(node.get(step), (dict, list)):
            node[step] = [] if listy else {}
        if not last:
            node = node[step]
    container = node[steps[-1]]
    entry: Any = {"id": value, "name": f"{value} by name", **hint.get("where", {})}
    if hint.get("value") == "item":
        entry = {"item": value, "name": f"{value} by name"}
    if isinstance(container, list):
        if hint.get("value") in ("id", "item"):
            container.append(entry)
        elif value not in container:
            container.append(value)
    elif hint.get("label") == "@key" and "value" not in hint:
        container[f"slot-{value}"] = value  # an object of ids by slot (the hero's equipment)
    else:
        container[str(value)] = entry


def state_for(commands: list[Json], state: Json) -> Json:
    """The real state, with every value the examples and the synthesized parts pick."""
    state = copy.deepcopy(state)
    for command in commands:
        fields = own_fields(command)
        bodies = [base_body(command)] + [
            put(base_body(command), path, value) for _, path, _, value in optional_parts(command)
        ]
        for body in bodies:
            for hint, value, player in picked_values(fields, body, body.get("player")):
                offer(state, hint, value, player)
            if isinstance(body.get("on_roll"), int) and isinstance(state.get("page"), dict):
                # on_roll is a check of the page, offered by its words (controls.js, pagechecks.js)
                checks = state["page"].setdefault("checks", [])
                while len(checks) <= body["on_roll"]:
                    checks.append({"trait": "DEX", "total": 12, "target": 10, "success": True})
    return state


# -- filling the form on the page ------------------------------------------------------------


def fill(form: Any, field: Json, path: str, value: Any) -> None:
    """Fill one field as a player would: add an optional object or a row first."""
    if is_object(field):
        if not field["required"]:
            form.locator(f'[data-add="{path}"]').click()
        for inner in field["fields"]:
            if inner["name"] in value:
                fill(form, inner, f"{path}.{inner['name']}", value[inner["name"]])
        return
    if is_rows(field):
        shape = field["items"]
        present = form.locator(f'fieldset[data-row="{path}"]').count()
        for index, item in enumerate(value):
            if index >= present:
                form.locator(f'[data-add="{path}"]').click()
            at = f"{path}[{index}]"
            if "picks" in shape:
                fill(form, {"name": field["name"], **shape}, at, item)
            else:
                row = item if isinstance(item, dict) else {shape["fields"][0]["name"]: item}
                for inner in shape["fields"]:
                    if inner["name"] in row:
                        fill(form, inner, f"{at}.{inner['name']}", row[inner["name"]])
        return
    if path == "faces":  # "My own dice", a face per die (the player's own dice, play.js)
        form.get_by_label("My own dice").check()
        for index, face in enumerate(value):
            while not form.locator(f'[name="faces[{index}]"]').count():
                form.locator('[data-add="faces"]').click()
            form.locator(f'[name="faces[{index}]"]').fill(str(face))
        return
    control = form.locator(f'[name="{path}"]')
    if path == "player" and control.is_hidden():  # the page's only seat, sent unasked
        assert control.input_value() == str(value)
        return
    tag = control.evaluate("el => el.tagName")
    if tag == "SELECT":
        text = json.dumps(value) if isinstance(value, bool) else str(value)
        control.select_option(value=text)
    elif isinstance(value, (dict, list)):
        control.fill(json.dumps(value))
    else:
        control.fill(str(value))


class Bodies:
    """The command bodies the page sends, each answered with the canned 422."""

    def __init__(self) -> None:
        self.sent: list[Json] = []

    def __call__(self, route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        self.sent.append(route.request.post_data_json)
        route.fulfill(status=422, content_type="application/problem+json", body=json.dumps(CANNED))


def send(page: Any, bodies: Bodies, command: Json, values: Json) -> Json:
    """Open the command's form from "All commands", fill ``values``, submit; the body sent."""
    details = page.locator("details.all-commands")
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    details.locator(f'[data-open-command="{command["name"]}"]').click()
    form = page.locator(f'.form-slot form[data-command="{command["name"]}"]')
    for field in own_fields(command):
        if field["name"] in values:
            fill(form, field, field["name"], values[field["name"]])
    count = len(bodies.sent)
    form.locator("button[type=submit]").click()
    # The 422's message, once (every 422 message was printed twice)
    expect(form.locator(".error")).to_have_text(CANNED["detail"])
    assert len(bodies.sent) == count + 1
    return bodies.sent[-1]


def without_entropy(body: Json) -> Json:
    """The body less the entropy the page adds, checked: there exactly when no faces are."""
    body = dict(body)
    entropy = body.pop("entropy", None)
    if "faces" in body:
        assert entropy is None, "a body with faces carries no entropy"
    else:
        assert isinstance(entropy, str) and ENTROPY.match(entropy), body
    return body


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_form_sends_exactly_what_the_player_chose(
    open_page: Any, server: Server, game: str
) -> None:
    status, catalogue = server.call("GET", f"/commands?game={game}")
    assert status == 200
    commands: list[Json] = catalogue["commands"]
    if game == "calendar-board":
        commands = [for_seat(command, "A") for command in commands]
    cid = server.seeded.campaigns[GAMES[game]]
    page, watch = open_page("owner")
    watch.allowed.append(("/commands", (422,)))

    def with_picks(route: Any) -> None:
        response = route.fetch()
        campaign = response.json()
        campaign["state"] = state_for(commands, campaign.get("state") or {})
        route.fulfill(response=response, body=json.dumps(campaign))

    page.route(lambda url: urlsplit(url).path == f"/campaigns/{cid}", with_picks)
    bodies = Bodies()
    page.route("**/campaigns/*/commands", bodies)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    page.locator("details.all-commands li[data-command]").first.wait_for(state="attached")
    if not page.locator("details.all-commands").evaluate("d => d.open"):
        page.locator("details.all-commands > summary").click()
    checked = 0
    for command in commands:
        base = base_body(command)
        values = {k: v for k, v in base.items() if k != "type"}
        assert without_entropy(send(page, bodies, command, values)) == base, command["name"]
        for what, path, field, value in optional_parts(command):
            grown = put(base, path, value)
            body = without_entropy(send(page, bodies, command, {**grown, "type": None}))
            assert body == grown, f"{command['name']}: adding {what} ({field['name']})"
            checked += 1
    # every command that rolls dice has its optional faces at least
    assert checked >= len([c for c in commands if rolls_dice(c)])
