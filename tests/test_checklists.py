"""docs/design.md's checklists against the code: every file a checklist names exists, and every file it marks
*(all named)* names every existing elementwise function, built-in backend or random variate.

A checklist is a ``###`` section under ``## Checklists``; its items are bullets, and the files of an item are its
backticked paths (``xbackend/...``, ``tests/...``, ``docs/...``, ``tools/...``, ``pyproject.toml``). ``<library>``
stands for each backend package that has the file, ``<variate>`` for the variates with a module of their own.
"""

from __future__ import annotations

import pathlib
import re

import pytest

import xbackend as xb  # noqa: F401 - the package assembled, as the names below are read from it
from xbackend import _dispatch
from xbackend._elementwise import __all__ as ELEMENTWISE_NAMES
from xbackend.random import _draws, _engine, _generator, _source

ROOT = pathlib.Path(__file__).resolve().parent.parent
DESIGN = ROOT / "docs" / "design.md"
LIBRARIES = ("numpy", "torch", "cupy", "dask")
#: the variates with a module of their own (``xbackend/random/_<variate>.py``)
VARIATE_MODULES = ("gamma",)
_PATH = re.compile(r"`((?:xbackend|tests|docs|tools)/[\w./<>-]+|pyproject\.toml)`")


def checklists(text: str) -> dict[str, list[tuple[str, bool]]]:
    """title -> [(path, marked all named), ...] for each checklist of docs/design.md, in order."""
    section = text.split("\n## Checklists\n", 1)[1].split("\n## ", 1)[0]
    out: dict[str, list[tuple[str, bool]]] = {}
    for part in section.split("\n### ")[1:]:
        title, _, body = part.partition("\n")
        items: list[str] = []
        for line in body.splitlines():
            if line.startswith("- "):
                items.append(line)
            elif line.startswith("  ") and items:
                items[-1] += " " + line.strip()
        out[title.strip()] = [(p, "*(all named)*" in item) for item in items for p in _PATH.findall(item)]
    return out


def expand(path: str) -> list[str]:
    """A path with ``<library>``/``<variate>`` as the existing paths it stands for (at least one must exist)."""
    if "<library>" in path:
        return [q for q in (path.replace("<library>", lib) for lib in LIBRARIES) if (ROOT / q).exists()] or [path]
    if "<variate>" in path:
        return [path.replace("<variate>", v) for v in VARIATE_MODULES]
    return [path]


def _words(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def _named(text: str, names: set[str]) -> set[str]:
    """The ``names`` that ``text`` does not name (as a whole word)."""
    return {n for n in names if not re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)}


def variates() -> set[str]:
    """The draws a generator's engines all provide: a portable draw, a ``Portable`` and ``Native`` method, and the
    native hook ``_<name>``."""
    return {d for d in _draws.DRAWS if hasattr(_engine.Portable, d) and hasattr(_engine.Native, f"_{d}")}


def _backend_names() -> set[str]:
    return set(_dispatch._BUILTIN)


def _packages() -> set[str]:
    """The backend packages of one library each (not ``common/``, ``generic/``)."""
    return {p.name for p in (ROOT / "xbackend/_backends").iterdir()
            if p.is_dir() and p.name[0] != "_" and p.name not in ("common", "generic")}  # fmt: skip


#: the engines' files: they name a variate by its native hook, ``_<name>``
_ENGINE_FILES = {"_engine.py"} | {f"{m}.py" for m in _source.ENGINES.values()}

#: what a file marked *(all named)* must name, by checklist
REQUIRED = {
    "Adding an elementwise function": lambda path: set(ELEMENTWISE_NAMES) - ({"clip"} if path.endswith("_rules.py")
                                                                             else set()),
    "Adding a backend": lambda path: (_backend_names() if path.endswith("_dispatch.py") else _packages()),
    "Adding a random variate": lambda path: ({f"_{v}" for v in variates()} if path.rsplit("/", 1)[-1] in _ENGINE_FILES
                                             else variates() - {"uniform", "integers"}),
}  # fmt: skip


def test_the_three_checklists_exist():
    lists = checklists(DESIGN.read_text(encoding="utf-8"))
    assert set(lists) == set(REQUIRED)
    assert all(sum(marked for _, marked in items) >= 1 for items in lists.values())


@pytest.mark.parametrize("title", sorted(REQUIRED))
def test_every_file_a_checklist_names_exists(title):
    items = checklists(DESIGN.read_text(encoding="utf-8"))[title]
    missing = [q for p, _ in items for q in expand(p) if not (ROOT / q).exists()]
    assert not missing, f"docs/design.md's checklist {title!r} names files that do not exist: {missing}"


@pytest.mark.parametrize("title", sorted(REQUIRED))
def test_files_marked_all_named_name_everything(title):
    items = checklists(DESIGN.read_text(encoding="utf-8"))[title]
    gaps = {}
    for p, marked in items:
        if marked:
            for q in expand(p):
                lacking = _named(_words(q), REQUIRED[title](q))
                if lacking:
                    gaps[q] = sorted(lacking)
    assert not gaps, f"docs/design.md's checklist {title!r}: these files lack names: {gaps}"


def test_each_variate_is_whole_in_the_code():
    """The mechanical links of the variate checklist, read from the code: a draw's counter advance and result dtype,
    the engine's method and hook in every per-backend engine, the public method."""
    names = variates()
    assert {"normal", "exponential", "gamma", "beta"} <= names
    assert names <= set(_draws.WORDS) and names <= set(_draws.RESULT)
    for mod in sorted(set(_source.ENGINES.values())):
        text = _words(f"xbackend/random/{mod}.py")
        hooks = {n for n in names if f"def _{n}(" not in text} - {"uniform", "integers"} - (
            {"gamma", "beta", "normal", "exponential"} if "class Native" not in text else set())
        assert not hooks, f"xbackend/random/{mod}.py's Native lacks the hooks {sorted(hooks)}"
    assert all(callable(getattr(_generator.Generator, n, None)) for n in names), names


def test_backends_are_whole_in_the_registry():
    for name in _dispatch._BUILTIN:
        assert name in _dispatch._by_module.values(), name
    for pkg in sorted(_packages()):
        assert any(f"_backends.{pkg}." in path for path in _dispatch._BUILTIN.values()), pkg
        assert pkg in _source.ENGINES, f"{pkg}: no xb.random engine in random/_source.ENGINES"


def test_a_planted_gap_is_found(tmp_path):
    """A checklist naming a file that does not exist, and a marked file missing a name, are both caught."""
    text = DESIGN.read_text(encoding="utf-8")
    lists = checklists(text.replace("`xbackend/_operators.py`", "`xbackend/_operatorz.py`"))
    assert ("xbackend/_operatorz.py", False) in lists["Adding an elementwise function"]
    assert not (ROOT / "xbackend/_operatorz.py").exists()
    names = set(ELEMENTWISE_NAMES) | {"frobnicate"}
    assert _named(_words("docs/api/xbackend.md"), names) == {"frobnicate"}
    assert _named("a hypothetical hypotenuse", {"hypot"}) == {"hypot"}
