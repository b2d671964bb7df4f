"""``xb.testing.diverge``'s machinery: what is recorded, where, and that nothing is left behind (issue 31).

The recorder swaps xbackend's public functions and the Array's slots for wrappers only while a recording is open;
these tests check that the very same objects come back (identity, not equality), that the hot operations make the
same number of Python calls before and after (``sys.setprofile``: deterministic, unlike timing), and that one
thread's recording neither records nor disturbs another thread. The three guide cases are in
``tests/test_diverge_cases.py``, the random programs in ``tests/test_diverge_programs.py``.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import xbackend as xb
from xbackend import _jit, _namespace
from xbackend._grad import transform as _grad
from xbackend.testing import across_backends, diverge
from xbackend.testing._trace import recording

pytest_plugins = ["pytester"]

HAS_TORCH = any(t.backend == "torch" for t in xb.testing.available_targets())
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="needs torch (CPU)")


# --- nothing left behind ------------------------------------------------------------------------------------------
def _snapshot() -> dict:
    mods = [xb, xb.linalg, xb.fft] + [sys.modules[m] for m in ("xbackend.random",) if m in sys.modules]
    snap = {(m.__name__, k): v for m in mods for k, v in vars(m).items()}
    snap.update({("Array", k): v for k, v in vars(xb.Array).items()})
    snap[("Jitted", "__call__")] = vars(_jit.Jitted)["__call__"]
    snap[("_grad", "_run")] = _grad._run
    snap.update({("namespaces", k): v for k, v in _namespace._CACHE.items()})
    snap.update({("array namespaces", k): v for k, v in _namespace._NAMESPACES.items()})
    return snap


def _same_objects(before: dict, after: dict) -> list:
    return [k for k in before.keys() | after.keys() if before.get(k, KeyError) is not after.get(k, KeyError)]


@xb.jit
def _jitted(x):
    return xb.sin(x) * 2


def _everything(x):
    """Touches every kind of swapped object: functions, linalg, operators, properties, methods, conversions,
    NumPy ufuncs, a bound namespace, @xb.jit and xb.grad."""
    xp = x.__array_namespace__()
    y = xb.linalg.vector_norm(x) + xb.reshape(xp.arange(4, dtype=x.dtype), (2, 2)).T.sum()
    z = np.add(x, x)[1:] * y
    z[0] = float(y)
    g = xb.grad(lambda w: xb.sum(w * w))(x)
    return _jitted(z) + g.mean() + len(x) + bool(y > 0)


def test_diverge_puts_back_the_very_same_objects():
    x = np.arange(4.0)
    _everything(xb.asarray(x))  # namespaces and caches exist before
    before = _snapshot()
    report = diverge(_everything, x, backends=("numpy", "numpy"))
    assert not report.found and len(report.traces["numpy-cpu"].calls) > 10
    assert _same_objects(before, _snapshot()) == []


def test_the_objects_come_back_when_the_function_or_the_recording_fails():
    before = _snapshot()

    def boom(x):
        xb.exp(x)
        raise KeyError("user bug")

    report = diverge(boom, np.ones(2), backends=("numpy", "numpy"))
    assert report.traces["numpy-cpu"].error == ("KeyError", "'user bug'")
    with recording():
        with pytest.raises(xb.ArgumentValueError, match="does not nest"):
            diverge(xb.exp, np.ones(2), backends=("numpy", "numpy"))
    assert _same_objects(before, _snapshot()) == []


def _python_calls(fn) -> int:
    n = [0]

    def count(frame, event, arg):
        if event == "call":
            n[0] += 1

    sys.setprofile(count)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return n[0]


def _hot_calls(backend: str) -> dict:
    x = xb.asarray(np.linspace(-1, 1, 100), backend=backend)
    y = xb.asarray(np.linspace(0, 2, 100), backend=backend)
    m = xb.reshape(x, (10, 10))
    xp = x.__array_namespace__()
    ops = {"x + y": lambda: x + y, "x * 2.0": lambda: x * 2.0, "xb.sum": lambda: xb.sum(x), "xb.exp": lambda: xb.exp(x),
           "x[1:-1]": lambda: x[1:-1], "xb.mean(axis=0)": lambda: xb.mean(m, axis=0), "m @ m": lambda: m @ m,
           "xp.zeros": lambda: xp.zeros(3), "np.abs": lambda: np.abs(x), "x.astype": lambda: x.astype(xb.float32),
           "float(x[0])": lambda: float(x[0])}  # fmt: skip
    for op in ops.values():  # warm the per-backend caches
        op()
    return {k: _python_calls(op) for k, op in ops.items()}


@pytest.mark.parametrize("backend", ["numpy", pytest.param("torch", marks=needs_torch)])
def test_hot_operations_make_the_same_python_calls_after_a_recording(backend):
    before = _hot_calls(backend)
    diverge(lambda x: _hot_calls(backend) and xb.exp(x), np.ones(3), backends=("numpy", "numpy"))
    with recording():
        during = _hot_calls(backend)
    assert _hot_calls(backend) == before
    assert all(during[k] > before[k] for k in before), (during, before)  # the counter sees the wrappers


def test_another_thread_is_neither_recorded_nor_disturbed():
    x = xb.asarray(np.arange(5.0))
    go, done = threading.Event(), threading.Event()
    seen: list = []

    def other():
        go.wait(10)
        seen.append(xb.sum(x * 3).item())
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with recording() as rec:
        xb.exp(x)
        go.set()
        done.wait(10)
        xb.log(x + 1)
    t.join()
    assert seen == [30.0]
    assert [c.name for c in rec.calls] == ["exp", "Array.__add__", "log"]


def test_threads_recording_at_once_each_get_their_own_calls():
    before = _snapshot()
    reports: dict = {}
    start = threading.Barrier(4)

    def run(i: int) -> None:
        def f(x):
            start.wait(10)  # all four recordings open at once
            return xb.sum(xb.exp(x) * float(i))

        reports[i] = diverge(f, np.ones(3), backends=("numpy", "numpy"))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for i, r in reports.items():
        calls = r.traces["numpy-cpu"].calls
        assert [c.name for c in calls] == ["exp", "Array.__mul__", "sum"] and float(calls[-1].outputs[0].host) == pytest.approx(3 * np.e * i)
    assert len(reports) == 4 and _same_objects(before, _snapshot()) == []


# --- what is recorded ---------------------------------------------------------------------------------------------
def test_only_outermost_calls_with_the_users_lines():
    x = xb.asarray([[1.0, -2.0], [3.0, 4.0]])
    with recording() as rec:
        a = xb.std(x, axis=0)  # LINE A
        b = x.T @ x.mean(axis=1)  # LINE B
        x[0, 0] = b[1]  # LINE C
    names = [c.name for c in rec.calls]
    assert names == ["std", "Array.T", "Array.mean", "Array.__matmul__", "Array.__getitem__", "Array.__setitem__"]
    src = [c.source for c in rec.calls]
    assert src[0].endswith("# LINE A") and all(s.endswith("# LINE B") for s in src[1:4]) and src[5].endswith("# LINE C")
    assert rec.calls[0].file == __file__ and rec.calls[0].func == "test_only_outermost_calls_with_the_users_lines"
    setitem = rec.calls[5]
    assert setitem.outputs[0].path == "x (after)" and setitem.outputs[0].host[0, 0] == b[1].item()
    assert setitem.inputs[0].host[0, 0] == 1.0  # the inputs are copied before the call writes
    assert float(a[0]) == pytest.approx(np.std([1.0, 3.0]))


def test_recording_a_call_does_not_change_its_result():
    x = np.random.default_rng(1).normal(size=(6, 5))
    plain = _everything(xb.asarray(x)).numpy()
    with recording():
        traced = _everything(xb.asarray(x)).numpy()
    np.testing.assert_array_equal(plain, traced)


@needs_torch
def test_grad_and_its_backward_pass_are_traced():
    rng = np.random.default_rng(0)
    X, y, w = rng.normal(size=(8, 3)), rng.normal(size=8), rng.normal(size=3)

    def loss(w, X, y):
        return xb.mean((X @ w - y) ** 2)

    def step(w, X, y):
        return w - 0.1 * xb.grad(loss)(w, X, y)

    report = diverge(step, w, X, y)
    assert not report.found, str(report)
    for trace in report.traces.values():
        phases = [(c.phase, c.name) for c in trace.calls]
        assert phases[:4] == [("forward", "Array.__matmul__"), ("forward", "Array.__sub__"),
                              ("forward", "Array.__pow__"), ("forward", "mean")]  # fmt: skip
        assert [p for p, _ in phases[4:8]] == ["backward"] * 4 and phases[8][0] == "grad"
        # the gradient reaching X @ w is d/dz mean((z - y)^2) = 2 (z - y) / n: NumPy in float64, by hand
        at_z = trace.calls[7]
        assert at_z.name == "grad of #0 Array.__matmul__"
        np.testing.assert_allclose(at_z.outputs[0].host, 2 * (X @ w - y) / 8, rtol=1e-12)
        np.testing.assert_allclose(trace.calls[8].outputs[-1].host, 2 * X.T @ (X @ w - y) / 8, rtol=1e-12)


@needs_torch
def test_jit_functions_run_eagerly_while_recording():
    info = _jitted.cache_info()
    report = diverge(lambda x: _jitted(x) + 1, np.linspace(0, 1, 5))
    assert not report.found
    assert [c.name for c in report.traces["torch-cpu"].calls] == ["sin", "Array.__mul__", "Array.__add__"]
    assert _jitted.cache_info().compiles == info.compiles  # nothing compiled for the recording


# --- classification of planted differences -------------------------------------------------------------------------
def _on_torch_only(monkeypatch, name, change):
    """Make xb.<name> return ``change(result)`` on torch Arrays (a planted backend difference)."""
    orig = getattr(xb, name)

    @functools.wraps(orig)
    def planted(*a, **k):
        out = orig(*a, **k)
        return change(out) if out.backend == "torch" else out

    monkeypatch.setattr(xb, name, planted)


@needs_torch
@pytest.mark.parametrize("change, kind", [
    (lambda y: y.astype(xb.float32), "dtype rule"),
    (lambda y: xb.reshape(y, (1, -1)), "shape rule"),
    (lambda y: y + xb.asarray(np.eye(3)[0], backend="torch"), "real disagreement"),
    (lambda y: y + 1e-15, "rounding"),
    (lambda y: xb.where(y > 0.5, xb.nan, y), "special case"),
])  # fmt: skip
def test_each_kind_of_difference_is_named(monkeypatch, change, kind):
    def f(x):
        y = xb.abs(x)  # exact on every backend: the planted difference is the only one
        z = xb.multiply(y, 2.0)
        return xb.sum(z)

    _on_torch_only(monkeypatch, "multiply", change)
    tight = {"rtol": 1e-17, "atol": 0.0} if kind == "rounding" else {}  # a few ulps apart: beyond these only
    report = diverge(f, np.array([0.25, 0.5, 1.0]), **tight)
    assert report.found and report.index == 1 and report.call.name == "multiply", str(report)
    assert report.kind == kind, str(report)
    assert report.first.inputs[0] == "x1: float64 (3,) Array - bit-identical on both: [0.25, 0.5, 1.0]"


@needs_torch
def test_inputs_changed_outside_xbackend_are_named():
    def f(x):
        y = xb.exp(x)
        n = y.native
        n[0] = n[0] + (1 if type(n).__module__ == "torch" else 0)  # native code, torch only
        return xb.sum(y)

    report = diverge(f, np.array([0.5, 1.0]))
    assert report.kind == "outside xbackend" and report.call.name == "sum", str(report)


@needs_torch
def test_the_traces_part_where_a_branch_reads_the_backend():
    def f(x):
        if x.backend == "torch":  # a property that returns no array: not a call of the trace
            return xb.exp(x)
        return xb.log(x)

    report = diverge(f, np.array([1.0, 2.0]))
    assert report.kind == "control flow" and report.index == 0, str(report)
    assert (report.first.call_a.name, report.first.call_b.name) == ("log", "exp")


@needs_torch
def test_a_branch_tipped_by_rounding_names_the_comparison_and_its_origin():
    X = (np.random.default_rng(0).normal(size=(100_000, 4)) + 0.1).astype(np.float32)
    by_numpy = float(X.mean(axis=0)[2])
    by_torch = float(xb.mean(xb.asarray(X, backend="torch"), axis=0)[2])
    if by_numpy == by_torch:
        pytest.skip("NumPy and torch sum this column in the same order here")
    threshold = (by_numpy + by_torch) / 2  # between the two: the comparison comes out differently

    def f(X):
        m = xb.mean(X, axis=0)
        if m[2] > threshold:
            return xb.exp(m)
        return xb.log(m)

    report = diverge(f, X, rtol=1e-3)  # the means agree within 1e-3; the comparison is exact
    assert report.kind == "rounding" and report.call.name == "Array.__gt__", str(report)
    assert "tipped" in report.first.detail and report.first.origin.name == "mean"


# --- references of one call, checked against exact arithmetic ----------------------------------------------------------
def _recorded(fn, *args):
    """The last call ``fn(*args)`` made (``fn`` must look its xbackend functions up while it runs)."""
    with recording() as rec:
        fn(*args)
    return rec.calls[-1]


def test_references_are_exact_or_longer_than_the_call():
    from fractions import Fraction

    from xbackend.testing._reference import reference, summation_bound

    v = [1e16, 1.0, -1e16, 1.0, 0.1]
    how, ref = reference(_recorded(lambda t: xb.sum(t), xb.asarray(v)), "out", "float64")
    assert "fsum" in how and float(ref) == float(sum(Fraction(t) for t in v))  # 2.1, where float64 order gives 2.0
    a = np.array([[1e8, 1.0], [3.0, -1e-8]])
    b = np.array([[1e8, 0.5], [-1e16, 3.0]])
    how, ref = reference(_recorded(lambda p, q: p @ q, xb.asarray(a), xb.asarray(b)), "out", "float64")
    exact = [[float(sum(Fraction(a[i, k]) * Fraction(b[k, j]) for k in range(2))) for j in range(2)] for i in range(2)]
    assert "fractions" in how and ref.tolist() == exact
    x32 = np.array([0.5, 3.0, -7.25], dtype=np.float32)
    how, ref = reference(_recorded(lambda t: xb.exp(t), xb.asarray(x32)), "out", "float32")
    assert "float64" in how and ref.tolist() == np.exp(x32.astype(np.float64)).tolist()
    bound, n = summation_bound(_recorded(lambda t: xb.sum(t), xb.asarray(x32)), "out", "float32", ())
    assert n == 3 and float(bound) == pytest.approx(2 * 2 * 2.0**-23 * np.abs(x32.astype(np.float64)).sum())
    if np.finfo(np.longdouble).eps < np.finfo(np.float64).eps:
        mpmath = pytest.importorskip("mpmath")
        mpmath.mp.prec = 200
        x = 0.7
        how, ref = reference(_recorded(lambda t: xb.exp(t), xb.asarray([x])), "out", "float64")
        assert "longdouble" in how and abs(mpmath.mpf(str(ref[0])) - mpmath.exp(x)) < 1e-18  # float64: ~2e-16 off


# --- in the testing kit and on the command line --------------------------------------------------------------------
@needs_torch
def test_across_backends_failure_ends_with_the_report(monkeypatch):
    _on_torch_only(monkeypatch, "exp", lambda y: y * 1.5)
    with pytest.raises(AssertionError) as info:
        across_backends(lambda x: xb.sum(xb.exp(x) + 1), np.ones(3), backends="numpy,torch")
    text = str(info.value)
    head, _, tail = text.partition("Where they part")
    assert "torch-cpu: values differ" in head
    assert "part at call #0: xb.exp" in tail and "kind: real disagreement" in tail


PEAK_TEST = """
import xbackend as xb


def test_peak_is_negative(xb_backend, xb_device):
    x = xb.asarray([0.0, -0.0, -1.0], backend=xb_backend, device=xb_device)
    peak = xb.max(x)
    assert float(1.0 / peak) < 0
"""


@needs_torch
def test_a_failed_plugin_test_ends_with_where_it_parts_from_numpy(pytester):
    pytester.makepyfile(PEAK_TEST)
    peaks = [float(xb.max(xb.asarray([0.0, -0.0, -1.0], backend=b))) for b in ("numpy", "torch")]
    if np.signbit(peaks[0]) == np.signbit(peaks[1]) or not np.signbit(peaks[0]):
        pytest.skip(f"this NumPy and torch give the zero max the signs {peaks}: the test cannot fail as planted")
    result = pytester.runpytest("--xb-backends=numpy,torch", "-p", "no:cacheprovider", "-W", "ignore")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    tail = out[out.index("AssertionError: assert inf < 0"):]  # the report comes after the traceback
    assert "where the backends part (xbackend.testing.diverge)" in tail
    assert "part at call #2: y / x (Array.__rtruediv__)" in tail and "origin: call #1 xb.max" in tail
    off = pytester.runpytest("--xb-backends=numpy,torch", "--xb-diverge=no", "-p", "no:cacheprovider", "-W", "ignore")
    off.assert_outcomes(passed=1, failed=1)
    assert "where the backends part" not in off.stdout.str()


CLI_MODULE = """
import numpy as np
import xbackend as xb

def column_means(X):
    return xb.mean(X, axis=0)

def make_args():
    rng = np.random.default_rng(0)
    return ((rng.normal(size=(100_000, 4)) + 0.1).astype(np.float32),)
"""


@needs_torch
def test_command_line_prints_the_report_and_writes_the_trace(tmp_path):
    (tmp_path / "cases.py").write_text(textwrap.dedent(CLI_MODULE))
    out = tmp_path / "trace.json"
    run = subprocess.run([sys.executable, "-m", "xbackend", "diverge", "cases.py:column_means", "--backends",
                          "numpy,torch", "--json", str(out)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env=_env())  # fmt: skip
    assert run.returncode == 1, run.stderr
    assert "part at call #0: xb.mean" in run.stdout and "kind: rounding" in run.stdout
    data = json.loads(out.read_text())
    calls = data["traces"]["torch-cpu"]["calls"]
    assert [c["name"] for c in calls] == ["mean"] and calls[0]["source"] == "return xb.mean(X, axis=0)"
    assert calls[0]["inputs"][0]["summary"]["max"] > 4 and calls[0]["outputs"][0]["values"][0] == pytest.approx(0.1, abs=0.01)
    bad = subprocess.run([sys.executable, "-m", "xbackend", "diverge", "cases.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env=_env())  # fmt: skip
    assert bad.returncode == 2 and "Fix:" in bad.stderr


def _env() -> dict:
    import os
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    return dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
