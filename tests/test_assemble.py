"""The Array is put together in one visible place (xbackend/_assemble.py): the list in its docstring is the Array's
whole surface, each part put by its provider, and no other module changes the Array.

Cost: well under a second (source parsing and attribute lookups, no backend).
"""

from __future__ import annotations

import ast
import pathlib
import re

import xbackend as xb
from xbackend import _assemble

ROOT = pathlib.Path(xb.__file__).parent
#: what Python itself puts into a class's ``__dict__``
_IMPLICIT = {"__module__", "__annotations__", "__doc__", "__slots__", "__qualname__", "__firstlineno__",
             "__static_attributes__"}  # fmt: skip


def _listed() -> dict[str, list[str]]:
    """provider -> the attributes the docstring of _assemble lists for it, in order (the boundary's bullet names no
    attribute of its own: it wraps some)."""
    doc = _assemble.__doc__ or ""
    body = doc.split("(provider: attributes):", 1)[1].split("\n\n``tests/", 1)[0]
    out: dict[str, list[str]] = {}
    for bullet in re.split(r"\n- ", "\n" + body.strip())[1:]:
        text = " ".join(bullet.split())
        provider = re.match(r"``([\w/]+)\.py``", text).group(1)  # type: ignore[union-attr]
        if provider == "_boundary":
            continue
        tokens = re.findall(r"``([^`]+)``", text)[1:]
        out[provider] = [n for tok in tokens for n in tok.split() if n.isidentifier()]
    return out


def _class_body() -> tuple[set[str], set[str]]:
    """(names the class body of Array defines at run time, names it declares under ``if TYPE_CHECKING:``)."""
    tree = ast.parse((ROOT / "_array.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    runtime: set[str] = set()
    declared: set[str] = set()

    def names(stmts: list[ast.stmt], into: set[str]) -> None:
        for s in stmts:
            if isinstance(s, ast.If) and isinstance(s.test, ast.Name) and s.test.id == "TYPE_CHECKING":
                names(s.body, declared)
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                into.add(s.name)
            elif isinstance(s, ast.Assign):
                into.update(t.id for t in s.targets if isinstance(t, ast.Name))
                if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in s.targets):
                    into.update(ast.literal_eval(s.value))
            elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
                into.add(s.target.id)

    names(cls.body, runtime)
    return runtime - {"__slots__"}, declared


def test_the_list_is_what_the_array_is():
    listed = _listed()
    runtime, _ = _class_body()
    own = [n for n in vars(xb.Array) if n not in _assemble.SURFACE and n not in _IMPLICIT]
    assert sorted(listed.pop("_array")) == sorted(own) == sorted(runtime)
    habits = listed.pop("_habits")
    put = {}
    for name, provider in _assemble.SURFACE.items():
        put.setdefault(provider, []).append(name)
    assert put.pop("_habits")[: len(habits)] == habits
    assert put == listed  # every other provider: the very attributes, in the order they are put


def test_nothing_but_the_class_body_and_assemble_put_attributes_on_the_array():
    runtime, _ = _class_body()
    stray = set(vars(xb.Array)) - runtime - set(_assemble.SURFACE) - _IMPLICIT
    assert stray == set()
    assert all(provider for provider in _assemble.SURFACE.values())


def _imported(tree: ast.Module) -> set[str]:
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
    return out


def _base(target: ast.expr) -> str | None:
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def test_no_module_changes_the_array():
    """Importing a module changes nothing: only _assemble writes Array attributes or fills another module's slots, and
    the late-bound slots of the Array are gone."""
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if rel != "_assemble.py":
            imported = _imported(tree)
            for node in tree.body:  # module level: what runs when the module is imported
                targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                    node, (ast.AugAssign, ast.AnnAssign)) else []  # fmt: skip
                for t in targets:
                    if isinstance(t, (ast.Attribute, ast.Subscript)) and _base(t) in imported:
                        offenders.append(f"{rel}:{node.lineno} writes into {_base(t)} when imported")
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == "_Late":
                offenders.append(f"{rel}:{node.lineno} _Late")
            if rel == "_assemble.py":
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []  # fmt: skip
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "Array":
                    offenders.append(f"{rel}:{node.lineno} Array.{t.attr} =")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                    and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in ("Array", "array")):
                offenders.append(f"{rel}:{node.lineno} setattr(Array, ...)")
    assert offenders == []


def test_what_the_core_calls_is_declared_for_type_checkers():
    """The methods put on the Array are declared in its class body for mypy (the refusals excepted: they are no
    methods); a part added to _assemble without its declaration, or a declaration nothing provides, fails."""
    _, declared = _class_body()
    refusals = {n for n, p in _assemble.SURFACE.items() if p == "_habits"} - set(_listed()["_habits"])
    provided = set(_assemble.SURFACE) - refusals - {"__hash__"}
    assert declared == provided
