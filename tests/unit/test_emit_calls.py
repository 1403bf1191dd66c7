"""Every ``emit`` in the games' code matches its payload class, even where mypy cannot see.

An event's payload is a dataclass (``domain.model.events.payload``), so mypy checks every keyword an
``emit`` passes. A ``**mapping`` part it cannot check: a key it holds that the class lacks fails
only when a player meets it. This test reads the source instead. For every payload built,
``<x>_events.<EventType>(key=..., **...)``, in ``domain/model/quest_calendar`` and
``domain/model/calendar_board`` it works out the keys the call passes: literal keywords, ``**{...}``
literals, and a ``**name`` or ``**helper(...)`` followed to the dict literals, ``name["key"] = ...``
stores and ``name.update(...)`` calls that build it in the same function or the helper's returns, a
``**kwargs`` parameter to the keywords its callers pass, ``{key: ... for key in <literal strings>}``
to those strings. Every key found, on any path, must be declared for the type; a call whose keys are
all found must pass every required field (a key stored on only some paths counts as passed there:
that much the source cannot tell). A call with a part that cannot be followed (a mapping handed in
whole, a record built elsewhere) must be listed in ``OPAQUE`` with the reason, and its keys found
are still checked. Today every call is followed to the end, so the list is empty.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from domain.model import calendar_board, quest_calendar  # noqa: F401  (register the games)
from domain.model.events.payload import Absent, Payload, declaration, event, fact
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD, QUEST_CALENDAR

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    QUEST_CALENDAR: "domain/model/quest_calendar",
    CALENDAR_BOARD: "domain/model/calendar_board",
}
DEPTH = 4
"""How many helper calls deep a ``**`` part is followed."""


def own_payload_classes(tree: ast.Module) -> set[str]:
    """The payload classes a module defines itself (``@event`` classes)."""
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(isinstance(d, ast.Name) and d.id == "event" for d in node.decorator_list)
    }


def builds_payload(func: ast.expr, local: set[str]) -> bool:
    """Whether a call's function is a payload class: ``<x>_events.<EventType>``, or one the
    module defines itself."""
    if isinstance(func, ast.Attribute):
        return isinstance(func.value, ast.Name) and func.value.id.endswith("events")
    return isinstance(func, ast.Name) and func.id in local


@dataclass
class Keys:
    """The keys a dict expression is found to hold, and the parts that could not be followed."""

    found: set[str] = field(default_factory=set)
    opaque: list[str] = field(default_factory=list)

    def add(self, other: Keys) -> None:
        self.found |= other.found
        self.opaque += other.opaque


@dataclass(frozen=True)
class EmitCall:
    """One ``emit`` call: where it is, its event type and the keys it passes."""

    module: str
    line: int
    event_type: str
    keys: Keys


class Package:
    """A game package's modules and its functions by name (to follow ``**helper(...)``)."""

    def __init__(self, modules: dict[str, ast.Module]) -> None:
        self.modules = modules
        self.functions: dict[str, list[ast.FunctionDef]] = {}
        self.constants: dict[str, list[ast.expr]] = {}
        for tree in self.modules.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef):
                    self.functions.setdefault(node.name, []).append(node)
            for statement in tree.body:
                if isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        if isinstance(target, ast.Name):
                            self.constants.setdefault(target.id, []).append(statement.value)

    @classmethod
    def of(cls, folder: str) -> Package:
        """The package in a folder of the repository."""
        paths = sorted((ROOT / folder).glob("*.py"))
        return cls({path.name: ast.parse(path.read_text()) for path in paths})

    def calls(self) -> Iterator[EmitCall]:
        """Every payload built (``<x>_events.<EventType>(...)``, or ``<EventType>(...)`` of a
        payload class the module defines itself), with the function it is in."""
        for module, tree in self.modules.items():
            local = own_payload_classes(tree)
            for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
                for node in ast.walk(function):
                    if not (isinstance(node, ast.Call) and builds_payload(node.func, local)):
                        continue
                    if enclosing(function, node) is not function:
                        continue
                    yield self.call(module, function, node)

    def call(self, module: str, function: ast.FunctionDef, first: ast.Call) -> EmitCall:
        assert isinstance(first.func, ast.Attribute | ast.Name)
        name = first.func.attr if isinstance(first.func, ast.Attribute) else first.func.id
        keys = Keys()
        for keyword in first.keywords:
            if keyword.arg is not None:
                keys.found.add(keyword.arg)
            else:
                keys.add(self.resolve(keyword.value, function, DEPTH))
        return EmitCall(module, first.lineno, name, keys)

    def resolve(self, expr: ast.expr, function: ast.FunctionDef, depth: int) -> Keys:
        """The keys a dict expression holds, as far as the source shows them."""
        keys = Keys()
        if isinstance(expr, ast.Dict):
            for key, value in zip(expr.keys, expr.values, strict=True):
                if key is None:
                    keys.add(self.resolve(value, function, depth))
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    keys.found.add(key.value)
                else:
                    keys.opaque.append(ast.unparse(key))
        elif (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Name)
            and expr.func.id == "dict"
        ):
            keys.found |= {k.arg for k in expr.keywords if k.arg is not None}
            for part in [*expr.args, *(k.value for k in expr.keywords if k.arg is None)]:
                keys.add(self.resolve(part, function, depth))
        elif isinstance(expr, ast.IfExp):
            keys.add(self.resolve(expr.body, function, depth))
            keys.add(self.resolve(expr.orelse, function, depth))
        elif isinstance(expr, ast.DictComp) and (names := self.names_of(expr)) is not None:
            keys.found |= names
        elif isinstance(expr, ast.Name) and is_kwargs(function, expr.id):
            keys.add(self.passed(function, depth))
        elif isinstance(expr, ast.Name | ast.Subscript):
            keys.add(self.built(expr, function, depth))
        elif isinstance(expr, ast.Call) and depth > 0 and (name := called(expr)) in self.functions:
            for helper in self.functions[name]:
                for node in ast.walk(helper):
                    returned = isinstance(node, ast.Return) and node.value is not None
                    if returned and enclosing(helper, node) is helper:
                        keys.add(self.resolve(node.value, helper, depth - 1))
        else:
            keys.opaque.append(ast.unparse(expr))
        return keys

    def names_of(self, comprehension: ast.DictComp) -> set[str] | None:
        """The keys of ``{key: ... for key in <literal strings>}``, or None."""
        [generator] = comprehension.generators
        key, over = comprehension.key, generator.iter
        target = generator.target
        if not isinstance(key, ast.Name) or not isinstance(target, ast.Name) or key.id != target.id:
            return None
        if isinstance(over, ast.Name) and len(self.constants.get(over.id, [])) == 1:
            over = self.constants[over.id][0]
        if not isinstance(over, ast.Tuple | ast.List):
            return None
        names = {e.value for e in over.elts if isinstance(e, ast.Constant)}
        return (
            names
            if all(isinstance(n, str) for n in names) and len(names) == len(over.elts)
            else None
        )

    def passed(self, function: ast.FunctionDef, depth: int) -> Keys:
        """The keys callers pass a function's ``**kwargs``: their keywords it has no name for."""
        named = {a.arg for a in [*function.args.args, *function.args.kwonlyargs]}
        keys = Keys()
        for tree in self.modules.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and called(node) == function.name:
                    outer = caller_of(tree, node)
                    for keyword in node.keywords:
                        if keyword.arg is None and outer is not None and depth > 0:
                            keys.add(self.resolve(keyword.value, outer, depth - 1))
                        elif keyword.arg is None:
                            keys.opaque.append(ast.unparse(keyword.value))
                        elif keyword.arg not in named:
                            keys.found.add(keyword.arg)
        return keys

    def built(self, expr: ast.Name | ast.Subscript, function: ast.FunctionDef, depth: int) -> Keys:
        """The keys of a local dict: its assignments, ``name["key"] = ...`` and ``update``."""
        keys, assigned = Keys(), False
        shape = plain(expr)
        name = expr.id if isinstance(expr, ast.Name) else ""
        for node in ast.walk(function):
            if enclosing(function, node) is not function:
                continue
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(plain(t) == shape for t in targets):
                    assigned = True
                    keys.add(self.resolve(node.value, function, depth))
                for target in targets:
                    if (
                        name
                        and isinstance(target, ast.Subscript)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == name
                    ):
                        index = target.slice
                        if isinstance(index, ast.Constant) and isinstance(index.value, str):
                            keys.found.add(index.value)
                        else:
                            keys.opaque.append(f"{name}[{ast.unparse(index)}]")
            if (
                name
                and isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == name
                and node.func.attr in ("update", "setdefault")
            ):
                if node.func.attr == "setdefault":
                    keys.add(self.resolve(ast.Dict([node.args[0]], [node.args[0]]), function, 0))
                else:
                    keys.found |= {k.arg for k in node.keywords if k.arg is not None}
                    for part in node.args:
                        keys.add(self.resolve(part, function, depth))
        if not assigned:
            keys.opaque.append(ast.unparse(expr))
        return keys


def plain(expr: ast.expr) -> str:
    """An expression's shape, the same whether it is read or assigned."""
    return ast.dump(expr, annotate_fields=False).replace("Load()", "").replace("Store()", "")


def is_kwargs(function: ast.FunctionDef, name: str) -> bool:
    """Whether ``name`` is the function's ``**kwargs`` parameter."""
    return function.args.kwarg is not None and function.args.kwarg.arg == name


def caller_of(tree: ast.Module, call: ast.Call) -> ast.FunctionDef | None:
    """The innermost function of a module that holds a call."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(c is call for c in ast.walk(node)):
            found = enclosing(node, call)
            return found if isinstance(found, ast.FunctionDef) else None
    return None


def called(call: ast.Call) -> str | None:
    """The name of a called function (``helper`` or ``module.helper``)."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def enclosing(function: ast.FunctionDef, target: ast.AST) -> ast.AST | None:
    """The innermost function of ``function`` (itself included) that holds ``target``."""
    for node in ast.walk(function):
        inner = node is not function and isinstance(node, ast.FunctionDef | ast.Lambda)
        if inner and any(child is target for child in ast.walk(node)):
            return enclosing(node, target) if isinstance(node, ast.FunctionDef) else node
    return function


def emit_calls() -> list[tuple[str, EmitCall]]:
    """Every emit call of both games."""
    return [
        (game, call) for game, folder in PACKAGES.items() for call in Package.of(folder).calls()
    ]


CALLS = emit_calls()


def opaque_key(call: EmitCall) -> str:
    return f"{call.module} {call.event_type} {' '.join(sorted(set(call.keys.opaque)))}"


OPAQUE: dict[str, str] = {}
"""The calls with a part the source cannot be followed through, by module, event type and
those parts, with the reason."""


@pytest.mark.parametrize(("game", "call"), CALLS, ids=lambda v: getattr(v, "event_type", v))
def test_every_key_an_emit_passes_is_declared(game: str, call: EmitCall) -> None:
    declared = RULES[game].event_types.get(call.event_type)
    assert declared is not None, f"{call.module}:{call.line}: {call.event_type} is not declared"
    undeclared = call.keys.found - set(field_names(declared.cls))
    assert not undeclared, f"{call.module}:{call.line}: {call.event_type} {sorted(undeclared)}"


@pytest.mark.parametrize(("game", "call"), CALLS, ids=lambda v: getattr(v, "event_type", v))
def test_every_emit_passes_the_required_fields_or_is_listed(game: str, call: EmitCall) -> None:
    declared = RULES[game].event_types[call.event_type]
    if call.keys.opaque:
        assert opaque_key(call) in OPAQUE, f"{call.module}:{call.line}: not listed"
        return
    required = {name for name, optional in field_names(declared.cls).items() if not optional}
    missing = required - call.keys.found
    assert not missing, f"{call.module}:{call.line}: {call.event_type} misses {sorted(missing)}"


def field_names(payload: type[Payload] | None) -> dict[str, bool]:
    """A payload class's fields by Python name (``from_``), and whether each may be absent."""
    assert payload is not None
    return {
        f.name: f.default is not dataclasses.MISSING
        for f in dataclasses.fields(payload)  # type: ignore[arg-type]
    }


def test_every_listed_call_is_still_there() -> None:
    assert set(OPAQUE) <= {opaque_key(call) for _, call in CALLS if call.keys.opaque}


SAMPLE = """
WIND = ("speed", "gust")


def handler(ctx, values):
    details = {"amount": 1}
    if values["rare"]:
        details["refund"] = 2
    ctx.emit(events.Paid(**details))
    ctx.emit(events.Paid(**{key: values[key] for key in WIND}))
    ctx.emit(events.Paid(**helper(values), **values))
    recorded(ctx, shop="s1")


def helper(values):
    return {"amount": 1} if values else dict(price=2)


def recorded(ctx, **extra):
    ctx.emit(events.Paid(amount=1, **extra))
"""


def test_the_keys_of_an_emit_are_followed_on_every_path() -> None:
    calls = list(Package({"sample.py": ast.parse(SAMPLE)}).calls())
    assert [(c.line, sorted(c.keys.found), c.keys.opaque) for c in calls] == [
        (9, ["amount", "refund"], []),
        (10, ["gust", "speed"], []),
        (11, ["amount", "price"], ["values"]),
        (20, ["amount", "shop"], []),
    ]


def declaring_modules(folder: str) -> dict[str, set[str]]:
    """The modules of a game package that declare each event type (``rules.declare(...)``)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / folder).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "declare"
            ):
                for declared in node.args:
                    assert isinstance(declared, ast.Attribute | ast.Name), ast.unparse(declared)
                    name = declared.attr if isinstance(declared, ast.Attribute) else declared.id
                    found.setdefault(name, set()).add(path.name)
    return found


@pytest.mark.parametrize("game", sorted(PACKAGES))
def test_each_event_type_is_declared_in_a_module_that_emits_it(game: str) -> None:
    declared = declaring_modules(PACKAGES[game])
    emitted: dict[str, set[str]] = {}
    for called_game, call in CALLS:
        if called_game == game:
            emitted.setdefault(call.event_type, set()).add(call.module)
    elsewhere = {
        name: (sorted(declared.get(name, ())), sorted(modules))
        for name, modules in emitted.items()
        if not declared.get(name, set()) & modules
    }
    assert elsewhere == {}, "declared in (module), emitted in (modules)"


@event
class Rested(Payload):
    """The hero rested."""

    pool: dict[str, int] | None = fact("the pool")
    hp: int = fact("hp")
    note: str | Absent = fact("a note", default=Absent())


def test_a_payload_value_of_an_undeclared_json_type_is_refused() -> None:
    declared = declaration(Rested)
    declared.check({"pool": None, "hp": 3})
    declared.check({"pool": {"max": 2}, "hp": 3, "note": "n"})
    wrongs = ({"pool": [], "hp": 3}, {"pool": None, "hp": True}, {"pool": None, "hp": "3"})
    for wrong in (*wrongs, {"pool": None, "hp": 3, "note": None}):
        with pytest.raises(RuntimeError, match="is declared"):
            declared.check(wrong)
