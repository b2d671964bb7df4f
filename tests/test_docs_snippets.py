"""Every ```python block of README.md and docs/*.md runs as written, imports included (issue 13).

A doc can no longer drift from the code: each block runs in a fresh namespace (so it must import what it
uses) in a temporary folder. Blocks written as a ``>>>`` session run through :mod:`doctest`, so the shown
outputs and tracebacks are checked too (``...`` matches anything; exception details after the type name
are not compared). Any ``def test_*`` the block defines is then called once per CPU target with the
``xb_backend``/``xb_device``/``xb_target`` arguments it asks for, as the pytest plugin would.

Markers, as HTML comments on the lines right above a block (invisible when the Markdown is rendered):

- ``<!-- gpu -->``: needs a CUDA device; carries the ``gpu`` marker (skipped here with the reason, run by
  ``benchmarks/gpu_check.sh``);
- ``<!-- requires: torch -->``: skipped with the reason when that module cannot be imported;
- ``<!-- raises: ErrorName -->``: the block is illustrative and must raise that exception (an ``xb`` name
  or a builtin) - it may not silently start working;
- ``<!-- continues -->``: the block continues the one above it on the page (same namespace);
- ``<!-- not run: reason -->``: shown for reading only (say why); kept to a minimum.
"""

from __future__ import annotations

import builtins
import doctest
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

import xbackend as xb
from xbackend.testing import available_targets, gpu_unavailable_reason

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)]
BLOCK = re.compile(r"((?:[ \t]*<!--[^\n]*-->[ \t]*\n)*)[ \t]*```python[ \t]*\n(.*?)\n[ \t]*```", re.S)
MARK = re.compile(r"<!--\s*([a-z ]+?)\s*(?::\s*(.*?))?\s*-->")
KNOWN = {"gpu", "requires", "raises", "continues", "not run"}


def _blocks():
    out = []
    for page in PAGES:
        text = page.read_text()
        for m in BLOCK.finditer(text):
            marks = {k: v for k, v in MARK.findall(m.group(1))}
            line = text.count("\n", 0, m.start(2)) + 1
            out.append((page, line, marks, inspect.cleandoc("\n" + m.group(2)) if m.group(2).startswith(" ") else m.group(2)))
    return out


BLOCKS = _blocks()


def _param(i, block):
    page, line, marks, _ = block
    mk = [pytest.mark.gpu] if "gpu" in marks else []
    return pytest.param(i, id=f"{page.relative_to(ROOT)}:{line}", marks=mk)


def test_markers_are_known_and_every_page_is_found():
    assert {p.name for p in PAGES} >= {"README.md", "testing.md", "interchange.md", "getting-started.md", "dask.md"}
    for page, line, marks, _ in BLOCKS:
        assert set(marks) <= KNOWN, f"{page.name}:{line}: unknown marker {set(marks) - KNOWN}"
        if "not run" in marks:
            assert marks["not run"], f"{page.name}:{line}: say why the block is not run"


def _run(code, ns, name):
    if code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, ns, name, name, 0)
        flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.IGNORE_EXCEPTION_DETAIL
        out: list[str] = []
        runner = doctest.DocTestRunner(optionflags=flags)
        runner.run(test, out=out.append, clear_globs=False)
        assert runner.failures == 0, "".join(out)
    else:
        exec(compile(code, name, "exec"), ns)  # noqa: S102 - our own documentation
    for fname, fn in list(ns.items()):
        if fname.startswith("test_") and callable(fn):
            params = inspect.signature(fn).parameters
            for t in (t for t in available_targets() if not t.is_gpu):
                kw = {"xb_backend": t.backend, "xb_device": t.device, "xb_target": t}
                fn(**{k: v for k, v in kw.items() if k in params})


_NAMESPACES: dict[Path, dict] = {}


@pytest.mark.parametrize("i", [_param(i, b) for i, b in enumerate(BLOCKS)])
def test_snippet_runs_as_written(i, tmp_path, monkeypatch):
    page, line, marks, code = BLOCKS[i]
    if "not run" in marks:
        pytest.skip(f"not run: {marks['not run']}")
    if "gpu" in marks and gpu_unavailable_reason() is not None:
        pytest.skip(gpu_unavailable_reason())
    if "requires" in marks:
        for mod in marks["requires"].replace(",", " ").split():
            if importlib.util.find_spec(mod) is None:
                pytest.skip(f"{mod} is not installed")
    monkeypatch.chdir(tmp_path)
    if "continues" in marks:
        if page not in _NAMESPACES:  # the block above was skipped (or this one was selected alone)
            pytest.skip("continues a block that did not run")
        ns = _NAMESPACES[page]
    else:
        ns = {"__name__": f"snippet_{page.stem}_{line}"}
    _NAMESPACES.pop(page, None)  # a failing block leaves nothing for the next to continue
    name = f"{page.relative_to(ROOT)}:{line}"
    if "raises" in marks:
        exc = getattr(xb, marks["raises"], None) or getattr(builtins, marks["raises"])
        with pytest.raises(exc):
            _run(code, ns, name)
        return
    _run(code, ns, name)
    _NAMESPACES[page] = ns
