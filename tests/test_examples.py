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


def test_ctr_port_runs_unchanged_on_numpy_and_torch():
    """Issue 32: a newcomer's port of a NumPy-to-torch training script (examples/ctr_port.py: globals read by the
    loss, x.to(dev), X.dtype == np.float32, @xb.no_grad, round(p), .detach().cpu().numpy()) runs unchanged on NumPy
    and torch Arrays and trains what plain NumPy with the hand-derived gradient trains."""
    import importlib.util

    import numpy as np

    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("ctr_port", ROOT / "examples" / "ctr_port.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    X, y = mod.make_clicks(2000, 8)
    Xd, yd = X.astype(np.float64), y.astype(np.float64)
    w, b = np.zeros(8), 0.0
    for _ in range(60):  # the reference: float64, gradient X.T (sigmoid(X w + b) - y) / n by hand
        err = 1.0 / (1.0 + np.exp(-(Xd @ w + b))) - yd
        w, b = w - 0.5 * Xd.T @ err / len(yd), b - 0.5 * err.mean()
    results = {be: mod.train(be, steps=60) for be in ("numpy", "torch")}
    for be, (w_x, b_x, losses, acc) in results.items():
        assert w_x.dtype == np.float32 and losses[-1] < losses[0], be
        np.testing.assert_allclose(w_x, w, rtol=2e-4, atol=2e-5, err_msg=be)
        assert abs(b_x - b) < 2e-5 and 0.6 < acc < 1.0, be
    np.testing.assert_allclose(results["numpy"][0], results["torch"][0], rtol=1e-6)
