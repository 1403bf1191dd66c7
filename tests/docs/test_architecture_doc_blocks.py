"""docs/architecture.md: the module diagram agrees with the import-linter contracts of
pyproject.toml (every module it names exists, each arrow points down the contract's layers, and
no module of a contract is left out), and every file, class, method and function the call path
of a command names exists where it says."""

from __future__ import annotations

import ast
import itertools
import re
import tomllib
from pathlib import Path
from typing import NamedTuple

from tests.docs.examples import checked_block
from webapi import routes

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
TEST = HERE.relative_to(ROOT).as_posix()
DOC = "architecture.md"
PACKAGES = ("domain", "webapi", "projections")
CONTAINERS = {
    "webapi": "webapi",
    "services": "domain.service",
    "audit_modules": "domain.service.audit",
    "storage": "domain.storage",
    "model": "domain.model",
    "dice": "domain.model.dice",
    "events": "domain.model.events",
}


def contract_layers() -> dict[str, list[set[str]]]:
    """Each layered container of pyproject.toml: its layers, top first, as sets of modules."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {
        contract["containers"][0]: [
            {name.strip() for name in layer.split("|")} for layer in contract["layers"]
        ]
        for contract in config["tool"]["importlinter"]["contracts"]
        if contract["type"] == "layers"
    }


def subgraphs(diagram: str) -> dict[str, tuple[dict[str, list[str]], list[tuple[str, str]]]]:
    """Each subgraph of the diagram: its nodes (with the modules each names) and its arrows."""
    found: dict[str, tuple[dict[str, list[str]], list[tuple[str, str]]]] = {}
    for name, body in re.findall(r"subgraph (\w+)\[.*?\]\n(.*?)^\s*end\b", diagram, re.S | re.M):
        nodes: dict[str, list[str]] = {}
        arrows: list[tuple[str, str]] = []
        for line in body.splitlines():
            for node, label in re.findall(r'(\w+)\["([^"]*)"\]', line):
                nodes[node] = [m for m in re.split(r"[\s,/]+", label) if m and m != "..."]
            steps = [re.sub(r"\[.*", "", step).strip() for step in line.split("-->")]
            groups = [[n.strip() for n in step.split("&")] for step in steps]
            for group in groups:
                for node in group:
                    nodes.setdefault(node, [node])
            arrows += [(a, b) for up, down in itertools.pairwise(groups) for a in up for b in down]
        found[name] = (nodes, arrows)
    return found


def test_the_module_diagram_follows_the_import_contracts() -> None:
    diagram = checked_block(DOC, TEST, "flowchart")
    layers = contract_layers()
    graphs = subgraphs(diagram)
    assert set(CONTAINERS) <= set(graphs)
    for graph, container in CONTAINERS.items():
        nodes, arrows = graphs[graph]
        where = {module: n for n, layer in enumerate(layers[container]) for module in layer}
        named = {module for modules in nodes.values() for module in modules}
        base = ROOT / container.replace(".", "/")
        for module in named:
            assert (base / f"{module}.py").is_file() or (base / module).is_dir(), module
            assert module in where, f"{module} is in no layer of the {container} contract"
        if graph != "model":  # the model's lowest layers are summed up as "..."
            assert named == set(where), f"{graph}: left out {set(where) - named}"
        for up, down in arrows:
            assert max(where[m] for m in nodes[up]) < min(where[m] for m in nodes[down]), (up, down)


HOP = re.compile(
    r"^(?P<tree>[│├└─ ]*)(?P<via>⇢ )?(?P<file>[\w/]+\.py) · (?P<name>[\w.]+) — (?P<what>.+)$"
)


class Hop(NamedTuple):
    depth: int
    file: str
    name: str
    what: str
    through: str | None


def hops(tree: str) -> list[Hop]:
    """The hops of a drawn path: each line's depth (its tree prefix), file, name and words; a
    ``⇢`` line's "through X" (how its caller reaches it without naming it)."""
    found = []
    for line in tree.strip().splitlines():
        match = HOP.match(line)
        assert match, f"not a hop: {line!r}"
        through = None
        if match["via"]:
            said = re.match(r"through ([\w.]+)", match["what"])
            assert said, f"a ⇢ hop says through what: {line!r}"
            through = said.group(1)
        depth = len(match["tree"]) // 3
        found.append(Hop(depth, match["file"], match["name"], match["what"], through))
    return found


def source_of(file: str, name: str) -> str:
    """The source of ``name`` (``function``, ``Class.method`` or a function nested in either)
    as defined in ``file`` itself."""
    text = (ROOT / file).read_text(encoding="utf-8")
    scope: list[ast.stmt] = ast.parse(text).body
    node: ast.AST | None = None
    for part in name.split("."):
        node = next(
            (
                n
                for n in scope
                if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                and n.name == part
            ),
            None,
        )
        assert node is not None, f"{file} defines no {name}"
        scope = list(ast.walk(node))[1:]  # type: ignore[assignment]
    return ast.get_source_segment(text, node) or ""


def check_tree(tree: str) -> list[Hop]:
    """Every hop exists where it says, and its caller (the hop above it, one level up) names it
    or what it is reached through."""
    drawn = hops(tree)
    for number, hop in enumerate(drawn):
        body = source_of(hop.file, hop.name)
        assert body, (hop.file, hop.name)
        if hop.depth == 0:
            continue
        caller = next(h for h in reversed(drawn[:number]) if h.depth == hop.depth - 1)
        called = hop.through or hop.name.rsplit(".", 1)[-1]
        assert re.search(rf"\b{re.escape(called)}\b", source_of(caller.file, caller.name)), (
            f"{caller.name} does not call {called}"
        )
    return drawn


def test_the_roll_and_the_game_command_are_drawn_hop_by_hop() -> None:
    roll = check_tree(checked_block(DOC, TEST, "Rolls.post"))
    command = check_tree(checked_block(DOC, TEST, "Commands.post"))
    assert roll[0].file == "webapi/routes/dice.py"
    assert command[0].file == "webapi/routes/commands.py"
    for drawn in (roll, command):
        files = {hop.file for hop in drawn}
        for layer in ("webapi/http/", "domain/service/", "domain/model/", "domain/storage/"):
            assert any(file.startswith(layer) for file in files), layer
    assert "trait_check" in {hop.name for hop in command}


def test_a_wrong_hop_is_found() -> None:
    good = (
        "webapi/routes/dice.py · Rolls.post — reads\n"
        "└─ domain/service/seeds.py · DiceService.roll — rolls"
    )
    check_tree(good)
    for wrong in (
        good.replace("DiceService.roll", "DiceService.rolls"),  # no such method
        good.replace("seeds.py", "tokens.py"),  # not where it says
        good.replace("Rolls.post", "Rolls.get"),  # a caller that does not call it
    ):
        try:
            check_tree(wrong)
        except AssertionError:
            continue
        raise AssertionError(f"passed: {wrong}")


def test_inside_webapi_names_every_package_and_module() -> None:
    """Docs/architecture.md's "Inside webapi/" names every package of ``webapi/`` and
    every module in it, and each package it names is a layer of the webapi contract. The route
    and schema packages name what is not a resource's; a resource's modules are the route
    modules whose blueprints are in the OpenAPI document (api-clients.md's table lists their
    routes) and the schema modules named as one of them."""
    text = (ROOT / "docs" / DOC).read_text(encoding="utf-8")
    section = text.split("### Inside webapi/", 1)[1].split("```mermaid", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `webapi/")]
    named: dict[str, str] = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        named[cells[0].strip("`").removeprefix("webapi/").rstrip("/")] = cells[2]
    on_disk = {path.name.removesuffix(".py") for path in parts_of(ROOT / "webapi")}
    assert {name.removesuffix(".py") for name in named} == on_disk
    assert {name.removesuffix(".py") for name in named} == set().union(*contract_layers()["webapi"])
    resources = {f"{blueprint.name}.py" for blueprint in routes.blueprints()[0]}
    for name, modules in named.items():
        folder = ROOT / "webapi" / name
        if not folder.is_dir():
            continue
        children = {p.name if p.suffix == ".py" else f"{p.name}/" for p in parts_of(folder)}
        listed = set(re.findall(r"`([\w]+(?:\.py|/))`", modules))
        assert listed <= children, (name, listed - children)
        if name == "routes":
            assert children - listed == resources, (name, (children - listed) ^ resources)
        elif name == "schemas":
            assert children - listed <= resources, (name, children - listed - resources)
        else:
            assert children == listed, (name, children ^ listed)


def parts_of(folder: Path) -> list[Path]:
    """The modules (but ``__init__``) and the packages in a folder."""
    return [
        path
        for path in folder.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
    ]
