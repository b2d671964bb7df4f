"""``mypy xbackend`` is clean (issue 11): the package ships ``py.typed``, so its annotations are part of the API.

The configuration is ``[tool.mypy]`` in pyproject.toml. A cold run takes ~45 s on a loaded 2-core machine (a few
seconds with a warm ``.mypy_cache``): ``slow``, so it runs in CI's second step (``pytest -m slow``), not in every
local run.
"""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_the_package_is_marked_typed():
    assert (ROOT / "xbackend" / "py.typed").is_file()


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (pip install 'mypy>=1.10')")
def test_mypy_is_clean():
    r = subprocess.run([sys.executable, "-m", "mypy", "xbackend"], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)  # fmt: skip
    assert r.returncode == 0, f"mypy xbackend found errors:\n{r.stdout[-6000:]}{r.stderr[-2000:]}"
