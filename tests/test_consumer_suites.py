"""scikit-learn's and SciPy's own array-API test suites on xbackend (issue 23): the runner's bookkeeping,
and a bounded selection of both suites run through tools/consumer_suites.py in a subprocess.

The selection (``CI_SELECTION`` in the runner: a few hundred tests per namespace, numpy and torch with
xbackend on each) must show no xbackend failure that the library underneath does not have.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("consumer_suites", ROOT / "tools" / "consumer_suites.py")
assert _spec is not None and _spec.loader is not None
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)


def _rec(nodeid, ns, outcome, failure=None):
    r = {"nodeid": nodeid, "ns": ns, "outcome": outcome}
    if failure is not None:
        r["failure"] = failure
    return r


def test_new_failures_are_those_the_baseline_passes():
    t = "sklearn/x/tests/test_a.py::test_f[{}-cpu-float64]"
    records = [
        _rec(t.format("torch"), "torch", "passed"),
        _rec(t.format("xbackend-torch"), "xbackend-torch", "failed", "TypeError: bad 0x7f3a at 12"),
        _rec("s/test_b.py::test_g[torch]", "torch", "failed", "ValueError: upstream"),
        _rec("s/test_b.py::test_g[xbackend-torch]", "xbackend-torch", "failed", "ValueError: upstream"),
        _rec("s/test_b.py::test_h[torch]", "torch", "passed"),
        _rec("s/test_b.py::test_h[xbackend-torch]", "xbackend-torch", "passed"),
        _rec("s/test_b.py::test_h[xbackend-torch]", "xbackend-torch", "error", "RuntimeError: teardown"),
        _rec("s/test_b.py::test_k[torch]", "torch", "skipped"),  # e.g. `if is_torch(xp): pytest.skip(...)`
        _rec("s/test_b.py::test_k[xbackend-torch]", "xbackend-torch", "failed", "KeyError: k"),
    ]  # fmt: skip
    summary = runner.summarise({"sklearn": {"records": records}})
    kinds = {f["nodeid"]: f["kind"] for f in summary["xb_failures"]["sklearn"]["xbackend-torch"]}
    assert kinds == {t.format("xbackend-torch"): "new", "s/test_b.py::test_g[xbackend-torch]": "as baseline",
                     "s/test_b.py::test_h[xbackend-torch]": "new",  # a teardown error counts
                     "s/test_b.py::test_k[xbackend-torch]": "no baseline"}  # fmt: skip
    assert summary["counts"]["sklearn"]["xbackend-torch"]["error"] == 1
    assert len(runner.new_failures(summary)) == 3
    text = runner.tables(summary, ["torch", "xbackend-torch"])
    assert "| scikit-learn | 2 / 1 | 0 / 3 + 1 err |" in text and "**2** / 1 / 0 / 1" in text
    assert "`TypeError: bad 0x… at N`" in text  # grouped by cause, addresses and numbers normalised


def test_pairs_with_the_baseline_where_ids_differ():
    """xbackend on array-api-strict runs strict's two scikit-learn device combinations on its CPU device; xbackend
    on Dask is paired with dask.array in both (the runner adds it to scikit-learn, which lists no Dask namespace)."""
    t = "sklearn/t.py::test_f[{}]"
    records = [_rec(t.format("array_api_strict-device1-float32"), "array_api_strict", "passed"),
               _rec(t.format("xbackend-array_api_strict-cpu-float32"), "xbackend-array_api_strict", "failed", "E: x"),
               _rec(t.format("dask.array-None-None"), "dask", "failed", "E: y"),
               _rec(t.format("xbackend-dask-None-None"), "xbackend-dask", "failed", "E: y")]  # fmt: skip
    fails = runner.summarise({"sklearn": {"records": records}})["xb_failures"]["sklearn"]
    assert fails["xbackend-array_api_strict"][0]["kind"] == "new"
    assert fails["xbackend-dask"][0]["kind"] == "as baseline"
    scipy = [_rec("scipy/t.py::test_g[dask.array]", "dask", "passed"),
             _rec("scipy/t.py::test_g[xbackend-dask]", "xbackend-dask", "failed", "E: z")]  # fmt: skip
    summary = runner.summarise({"scipy": {"records": scipy}})
    assert summary["xb_failures"]["scipy"]["xbackend-dask"][0]["kind"] == "new"
    assert not runner.new_failures(summary)  # Dask's row is shown, not gated
    assert runner.new_failures(summary, gated=("xbackend-dask",))


def test_listed_differences_are_not_new(monkeypatch):
    nodeid = "scipy/special/tests/test_x.py::test_y[xbackend-numpy]"
    listed = (runner.Difference("scipy", "scipy/special/*::test_y[[]numpy]", None, "why"),
              runner.Difference("*", "*", ("xbackend-dask",), "lazy", r"HostTransferError: implicit"))  # fmt: skip
    monkeypatch.setattr(runner, "KNOWN_DIFFERENCES", listed)
    records = [_rec(nodeid.replace("xbackend-numpy", "numpy"), "numpy", "passed"),
               _rec(nodeid, "xbackend-numpy", "failed", "AssertionError: differs"),
               _rec("scipy/t.py::test_z[dask.array]", "dask", "passed"),
               _rec("scipy/t.py::test_z[xbackend-dask]", "xbackend-dask", "failed", "x.HostTransferError: implicit c"),
               _rec("scipy/t.py::test_w[dask.array]", "dask", "passed"),
               _rec("scipy/t.py::test_w[xbackend-dask]", "xbackend-dask", "failed", "TypeError: another cause")]
    fails = runner.summarise({"scipy": {"records": records}})["xb_failures"]["scipy"]
    assert fails["xbackend-numpy"][0]["kind"] == "listed: why"
    assert [f["kind"] for f in fails["xbackend-dask"]] == ["listed: lazy", "new"]  # by the failure's message too


def test_causes_group_like_messages():
    assert runner.cause("E   ValueError: shape (3, 4) vs 5\nmore") == "ValueError: shape (N, N) vs N"
    assert runner.cause("TypeError: at 0xdeadbeef") == runner.cause("TypeError: at 0x1234")
    assert len(runner.cause("x" * 500)) == 110


def test_the_ecosystem_page_shows_the_committed_table():
    """docs/ecosystem.md shows benchmarks/results/consumer_suites.txt as committed (the runner's --docs writes both)."""
    committed = (ROOT / "benchmarks" / "results" / "consumer_suites.txt").read_text()
    shown = runner.docs_block((ROOT / "docs" / "ecosystem.md").read_text())
    assert shown == committed.rstrip("\n") and "| scikit-learn |" in shown and "| SciPy |" in shown


@pytest.mark.slow
def test_ci_selection_matches_the_libraries_underneath(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    pytest.importorskip("torch")
    out = tmp_path / "run.json"
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "consumer_suites.py"), "--selection", "ci", "--jobs", "1",
                        "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert out.exists(), r.stdout + r.stderr
    saved = json.loads(out.read_text())
    counts = runner.summarise(saved["reports"])["counts"]
    for suite in ("sklearn", "scipy"):  # the selection really ran, on every namespace
        for ns in runner.CI_NAMESPACES:
            assert counts[suite].get(ns, {}).get("passed", 0) >= 20, (suite, ns, counts[suite].get(ns))
    assert r.returncode == 0, r.stdout
