"""The house's layers: no xbackend module imports a module that imports it back, every folder is one layer (the
graph of rooms - the files of ``xbackend/`` and its folders, a folder counted as one room - has no cycle either, so
the rooms stack in floors and every import points down), and the backends' floor stays below the Array.

The graph is built from the source (``ast``), not from ``sys.modules``, so it sees every import a module
*can* run: module-level imports and function-level ones alike (a function-level import is still a
dependency; it only hides the cycle until the function runs). Imports inside ``if TYPE_CHECKING:`` are left
out: they never run and exist for annotations only. Both relative (``from . import x``, ``from .x import
y``, ``from .. import x``) and absolute (``import xbackend``, ``from xbackend.x import y``) forms count.

Not edges: the registry (``_dispatch``) loads backend modules by import path (``importlib``), as it loads
plugins - the one import that runs back up. Everything under ``_backends/`` sits below the Array: it imports only the
value objects and policy, the Backend contract and the registry (:data:`BELOW_THE_BACKENDS`), never ``_array`` or
anything above it; above the Array the core may use what the backends share (``_backends/common/``), but names no
backend.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "xbackend"


def _modules(root: pathlib.Path) -> dict[str, pathlib.Path]:
    out = {}
    for p in sorted(root.rglob("*.py")):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in ``tree`` at any depth, except those under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph(root: pathlib.Path = ROOT) -> dict[str, set[str]]:
    """module -> the xbackend modules it imports (module- or function-level)."""
    mods = _modules(root)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                # ``from pkg import name``: a submodule ``pkg.name`` where one exists, else an attribute of ``pkg``
                # (which then counts: its code must have run). A package's own code is not counted when only
                # its submodules are named: Python imports parents first anyway, whoever imports what.
                subs = [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in mods]
                targets = subs + ([module] if len(subs) < len(node.names) else [])
            for t in targets:
                # ``import xbackend.x.y`` runs xbackend, xbackend.x and xbackend.x.y: the deepest known one counts
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    graph[name].add(t)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as ``[a, b, ..., a]``, or None (depth-first search, deterministic order)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def dfs(v: str) -> list[str] | None:
        state[v] = 1
        path.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state:
                hit = dfs(w)
                if hit:
                    return hit
        path.pop()
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state:
            hit = dfs(v)
            if hit:
                return hit
    return None


#: what a module under ``xbackend/_backends/`` may import outside that folder: the floors below the backends
BELOW_THE_BACKENDS = frozenset({
    "xbackend._errors", "xbackend._dtypes", "xbackend._devices", "xbackend._rules", "xbackend._saturate",
    "xbackend._backend", "xbackend._dispatch",
})  # fmt: skip


def room(module: str) -> str:
    """The room a module is in: a file of ``xbackend/``, or the folder (one room) a deeper module is in."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph of rooms: an arrow between two rooms where a module of one imports a module of the other. A
    package's own ``__init__`` is in its room; the ``xbackend`` package itself is a room of its own."""
    out: dict[str, set[str]] = {}
    for a, targets in graph.items():
        ra = room(a)
        out.setdefault(ra, set())
        for b in targets:
            rb = room(b)
            if rb != ra:
                out[ra].add(rb)
    return out


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for t in graph[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def test_the_graph_sees_the_core():
    g = import_graph()
    assert "xbackend._array" in g["xbackend._creation"]  # module-level
    assert "xbackend._dispatch" in g["xbackend._config"]
    assert {"xbackend._array", "xbackend._creation"} <= set(g)


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_every_folder_is_one_layer():
    """No import runs back up: the rooms (a folder is one) have no cycle, so a folder never imports a room that
    imports it back (the registry's loads by import path are no arrows)."""
    cycle = find_cycle(rooms(import_graph()))
    assert cycle is None, "rooms that import each other: " + " -> ".join(cycle or [])


def test_the_backends_floor_is_below_the_array():
    g = import_graph()
    backends = [m for m in g if m.startswith("xbackend._backends")]
    assert {"xbackend._backends.numpy.backend", "xbackend._backends.torch.backend"} <= set(backends)
    outside = {(m, t) for m in backends for t in g[m] if not t.startswith("xbackend._backends")}
    assert {t for _, t in outside} <= BELOW_THE_BACKENDS, sorted(p for p in outside if p[1] not in BELOW_THE_BACKENDS)
    reached = set().union(*(_reaches(g, m) for m in backends))
    assert "xbackend._array" not in reached and "xbackend" not in reached
    # and the floors below the backends never import one (the registry loads them by import path)
    below = set().union(*(_reaches(g, m) for m in BELOW_THE_BACKENDS))
    assert not any(m.startswith("xbackend._backends") for m in below)


#: a room a reader can hold in mind: beyond it, a module is split by what its parts do
MAX_LINES = 700


def test_no_module_is_over_max_lines():
    sizes = {m: len(p.read_text().splitlines()) for m, p in _modules(ROOT).items()}
    assert len(sizes) > 100 and max(sizes.values()) > MAX_LINES // 2  # (the walk sees the whole package)
    over = {m: n for m, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them by what their parts do): {over}"


def test_a_function_level_import_cycle_is_found(tmp_path):
    pkg = tmp_path / "xbackend"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_a.py").write_text("from ._b import g\n")
    (pkg / "_b.py").write_text("def g():\n    from . import _a\n")
    (pkg / "_c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._a import x\n")
    (pkg / "_d.py").write_text("import xbackend._c\nfrom . import _c\n")
    (pkg / "_e.py").write_text("from . import _c, __version__\n")
    g = import_graph(pkg)
    assert find_cycle(g) == ["xbackend._a", "xbackend._b", "xbackend._a"]
    assert g["xbackend._c"] == set()  # annotations only
    assert g["xbackend._d"] == {"xbackend._c"}  # a submodule, not the package's own code
    assert g["xbackend._e"] == {"xbackend._c", "xbackend"}  # __version__ is the package's attribute


@pytest.mark.parametrize("kind", ["module-level", "function-level"])
def test_each_kind_of_cycle_fails(tmp_path, kind):
    pkg = tmp_path / "xbackend"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import _x\n")
    body = "import xbackend\n" if kind == "module-level" else "def f():\n    import xbackend\n"
    (pkg / "_x.py").write_text(body)
    assert find_cycle(import_graph(pkg)) == ["xbackend", "xbackend._x", "xbackend"]


def test_a_folder_that_imports_a_room_importing_it_back_is_found(tmp_path):
    """Files without a cycle, folders with one: ``_a`` imports ``_sub.x``, and ``_sub.y`` imports ``_a``."""
    pkg = tmp_path / "xbackend"
    (pkg / "_sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "_sub" / "__init__.py").write_text("")
    (pkg / "_a.py").write_text("from ._sub import x\n")
    (pkg / "_sub" / "x.py").write_text("")
    (pkg / "_sub" / "y.py").write_text("from .. import _a\n")
    g = import_graph(pkg)
    assert find_cycle(g) is None
    assert find_cycle(rooms(g)) == ["xbackend._a", "xbackend._sub", "xbackend._a"]
