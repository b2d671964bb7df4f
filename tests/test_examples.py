"""The example downstream package examples/portable_stats: its own tests, run by pytest in a subprocess
the way a user would run them (PYTHONPATH = the repository and the example; the xbackend pytest plugin
from its entry point, or with -p when xbackend is used from a tree without being installed)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "portable_stats"


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(EXAMPLE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("PYTEST_ADDOPTS", None)
    plugin = [] if any(ep.value == "xbackend.testing._plugin" for ep in entry_points(group="pytest11")) else [
        "-p", "xbackend.testing._plugin"]  # fmt: skip
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin, *args]
    return subprocess.run(cmd, cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=300)


def test_example_package_tests_pass():
    out = _run()
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


def test_example_runs_on_the_chosen_backends_only():
    out = _run("--xb-backends=numpy", "-v", "tests")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "[numpy-cpu]" in out.stdout
    assert "[torch-" not in out.stdout and "[cupy-" not in out.stdout


@pytest.mark.parametrize("name", ["pyproject.toml", "README.md", "portable_stats/__init__.py",
                                  "tests/test_portable_stats.py"])  # fmt: skip
def test_example_layout(name):
    assert (EXAMPLE / name).is_file()


def test_example_tests_use_only_the_public_kit():
    src = (EXAMPLE / "tests" / "test_portable_stats.py").read_text()
    assert "xbackend.testing._" not in src and "xbackend._" not in src


def test_pytest_from_the_example_folder_needs_no_pythonpath_for_the_example():
    """The README says: run `pytest` from this folder. Only xbackend is on the path (as when installed);
    the example package is found through its pyproject's `pythonpath`, not a PYTHONPATH the user must set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env.pop("PYTEST_ADDOPTS", None)
    plugin = [] if any(ep.value == "xbackend.testing._plugin" for ep in entry_points(group="pytest11")) else [
        "-p", "xbackend.testing._plugin"]  # fmt: skip
    # -P: like the `pytest` console script, do not put the current folder on sys.path (python -m would)
    cmd = [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--xb-backends=numpy", *plugin, "tests"]
    out = subprocess.run(cmd, cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "ModuleNotFoundError" not in out.stdout + out.stderr
