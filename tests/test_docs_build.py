"""The documentation site builds with warnings as errors, its docstring examples pass Sphinx's doctest builder, and
every public name has a page in the API reference.

The build runs ``python -m sphinx`` in a subprocess on a copy of ``docs/`` (autosummary writes its generated pages
into the source tree; the copy keeps the checkout clean) with intersphinx off, as in CI, which has no network.
It takes about a minute of CPU, hence ``slow``. Skipped with the reason when Sphinx, myst-parser or furo is missing
(``pip install -r requirements/docs.txt``).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_MISSING = [m for m in ("sphinx", "myst_parser", "furo") if importlib.util.find_spec(m) is None]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(_MISSING), reason=f"docs build needs {', '.join(_MISSING)}: pip install -r requirements/docs.txt"),
]

# Names documented under another module's page (same object): where their description lives.
_DOCUMENTED_ELSEWHERE = {"xbackend.linalg.LinAlgError": "xbackend.LinAlgError"}


def _sphinx(builder: str, src: Path, out: Path, doctrees: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("XBACKEND_DOCS_INTERSPHINX", None)  # offline, as in CI
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder, "-d", str(doctrees),
           str(src), str(out)]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)


@pytest.fixture(scope="module")
def docs_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("docs") / "docs"
    shutil.copytree(ROOT / "docs", src, ignore=shutil.ignore_patterns("_build", "generated"))
    return src


@pytest.fixture(scope="module")
def html(docs_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html")
    res = _sphinx("html", docs_copy, out, docs_copy.parent / "doctrees")
    assert res.returncode == 0, f"sphinx-build -W failed:\n{res.stdout[-4000:]}\n{res.stderr[-8000:]}"
    return out


def test_site_builds_with_warnings_as_errors(html: Path) -> None:
    for page in ("index", "getting-started", "guide/index", "guide/errors", "behaviour", "interchange", "testing",
                 "performance", "design", "changelog", "api/index", "api/xbackend"):  # fmt: skip
        assert (html / f"{page}.html").is_file(), page
    for png in (ROOT / "docs" / "_static").glob("bench_*.png"):
        assert (html / "_static" / png.name).is_file(), f"{png.name} is not published with the site"


def _public_names() -> list[str]:
    import xbackend as xb
    import xbackend.fft
    import xbackend.linalg
    import xbackend.testing
    import xbackend.testing.strategies

    mods = [xb, xbackend.linalg, xbackend.fft, xbackend.testing, xbackend.testing.strategies]
    return [f"{m.__name__}.{n}" for m in mods for n in m.__all__]


def test_every_public_name_has_a_reference_entry(html: Path) -> None:
    ids: set[str] = set()
    for page in html.rglob("*.html"):
        ids.update(re.findall(r'id="([^"]+)"', page.read_text(encoding="utf-8")))
    missing = []
    for full in _public_names():
        target = _DOCUMENTED_ELSEWHERE.get(full, full)
        if target not in ids and f"module-{target}" not in ids:  # functions/classes/data, or a module section
            missing.append(full)
    assert not missing, (f"{len(missing)} public names have no entry in the API reference: {missing}. "
                         "Fix: add them to the autosummary lists in docs/api/*.md")  # fmt: skip


def test_docstring_examples_pass_sphinx_doctest(html: Path, docs_copy: Path, tmp_path: Path) -> None:
    """``sphinx-build -b doctest``: the examples of every page in the reference, including the ones the build
    adds (docs/conf.py, docs/api_examples.py), run and print what they show. Reuses the HTML build's doctrees."""
    res = _sphinx("doctest", docs_copy, tmp_path / "doctest", docs_copy.parent / "doctrees")
    assert res.returncode == 0, f"sphinx doctest failed:\n{res.stdout[-6000:]}\n{res.stderr[-4000:]}"
    assert re.search(r"\b0 failures in tests\b", (tmp_path / "doctest" / "output.txt").read_text())
