"""docs/architecture.md: the module diagram agrees with the import-linter contracts of
pyproject.toml (every module it names exists, each arrow points down the contract's layers, and
no module of a contract is left out), and every file, class, method and function the call path
of a command names exists where it says."""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import re
import tomllib
from pathlib import Path

from tests.docs.examples import checked_block

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


def definitions() -> tuple[dict[str, list[str]], set[str]]:
    """Every class (with the modules defining one of that name) and every function name."""
    classes: dict[str, list[str]] = {}
    names: set[str] = set()
    for package in PACKAGES:
        for source in (ROOT / package).rglob("*.py"):
            module = ".".join(source.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    classes.setdefault(node.name, []).append(module)
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(node.name)
    return classes, names


def test_the_call_path_names_what_exists() -> None:
    path = checked_block(DOC, TEST, "render_roll")
    classes, names = definitions()
    files = re.findall(r"\b[\w/]+\.py\b", path)
    for file in files:
        assert (ROOT / file).is_file() or list((ROOT / "domain").rglob(file)), file
    pairs = re.findall(
        r"(?:([\w/]+\.py)\s+)?\b([A-Z]\w*)\.([a-z_]\w*)\b(?:\s+\(([\w/.]+\.py)\))?", path
    )
    assert pairs
    for before, cls, method, after in pairs:
        where = before or after
        homes = []
        for module in classes.get(cls, []):
            found = getattr(getattr(importlib.import_module(module), cls), method, None)
            if found is not None:
                found = inspect.unwrap(found)
                homes.append(Path(inspect.getsourcefile(found) or "").relative_to(ROOT).as_posix())
        assert homes, f"{cls}.{method} is defined nowhere"
        assert not where or any(home.endswith(where) for home in homes), (cls, method, homes)
    words = set(re.findall(r"\b(?:[a-z]+_[a-z_]+|[A-Z][a-z]+[A-Z]\w*)\b", path))
    assert words and words <= names, words - names


def test_inside_webapi_names_every_package_and_module() -> None:
    """Docs/architecture.md's "Inside webapi/" names every package of ``webapi/`` and
    every module in it, and each package it names is a layer of the webapi contract."""
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
    for name, modules in named.items():
        folder = ROOT / "webapi" / name
        if not folder.is_dir():
            continue
        children = {p.name if p.suffix == ".py" else f"{p.name}/" for p in parts_of(folder)}
        listed = set(re.findall(r"`([\w]+(?:\.py|/))`", modules))
        assert children == listed, (name, children ^ listed)


def parts_of(folder: Path) -> list[Path]:
    """The modules (but ``__init__``) and the packages in a folder."""
    return [
        path
        for path in folder.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
    ]
