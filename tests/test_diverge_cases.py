"""The three cases of the guide page ``docs/guide/diverge.md``, NumPy against each other target (issue 31).

1. a float32 reduction whose summation order differs (column means of a tall matrix: NumPy adds row after row,
   torch in a cascade): rounding, and the backend closer to NumPy's float64 mean of the same data;
2. a signed zero: the maximum of ``[0.0, -0.0, -1.0]`` is a zero whose sign xbackend leaves unspecified
   (docs/behaviour.md, "max/min whose extreme is a zero of both signs"), so ``1 / peak`` is ``-inf`` on one
   backend and ``inf`` on the other: a special case at the division, traced back to the ``max``;
3. a planted bug: an axis typo in a native call, ``scores.native.squeeze(0)`` for an ``(n, 1)`` column - NumPy
   refuses it, torch keeps the column and broadcasting turns ``s * weights`` into an ``(n, n)`` matrix: the
   control flow parts at the typo's line.

Each case checks the report against an independent computation (NumPy in float64, the native libraries' own
answers) and that ``across_backends``' failure carries the report. The CUDA targets are marked ``gpu``
(benchmarks/gpu_check.sh runs them; they never ran in this repository's CI).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing import across_backends, available_targets, diverge

OTHERS = [pytest.param("torch-cpu", id="torch-cpu"),
          pytest.param("torch-cuda:0", id="torch-cuda", marks=pytest.mark.gpu),
          pytest.param("cupy-cuda:0", id="cupy-cuda", marks=pytest.mark.gpu)]  # fmt: skip


@pytest.fixture
def other(request):
    tid = request.param
    if tid not in {t.id for t in available_targets()}:
        pytest.skip(f"{tid} is not usable here")
    return tid


def _line_of(fn, text: str) -> int:
    src, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(src) if text in line)


def _across_message(fn, *args, other: str) -> str:
    """across_backends' failure message, its folded lines joined (one space between words)."""
    with pytest.raises(AssertionError) as info:
        across_backends(fn, *args, backends=f"numpy,{other}")
    return " ".join(str(info.value).split())


# --- 1. a float32 reduction whose order differs --------------------------------------------------------------------
def standardise(X):
    mu = xb.mean(X, axis=0)
    sd = xb.std(X, axis=0)
    return (X - mu) / sd


@pytest.mark.parametrize("other", OTHERS, indirect=True)
def test_a_float32_reduction_whose_order_differs(other):
    X = (np.random.default_rng(0).normal(size=(100_000, 4)) + 0.1).astype(np.float32)
    report = diverge(standardise, X, backends=("numpy", other))
    assert report.found and report.index == 0 and report.call.name == "mean", str(report)
    assert report.call.line == _line_of(standardise, "xb.mean(")
    assert report.kind == "rounding" and "summation order" in report.first.detail, str(report)
    # which backend is closer: NumPy's own float64 mean of the same data decides, independently of xbackend
    exact = X.astype(np.float64).mean(axis=0)
    got = {t: report.traces[t].calls[0].outputs[0].host.astype(np.float64) for t in ("numpy-cpu", other)}
    bad = np.abs(got["numpy-cpu"] - got[other]) > 2e-6 * np.abs(got["numpy-cpu"])
    err = {t: float(np.max(np.abs(v - exact)[bad])) for t, v in got.items()}
    assert report.first.closer == min(err, key=err.get), (err, str(report))
    np.testing.assert_array_equal(got["numpy-cpu"], X.mean(axis=0))  # the trace holds what NumPy computes
    assert "part at call #0: xb.mean" in _across_message(standardise, X, other=other)


# --- 2. a signed zero ------------------------------------------------------------------------------------------------
def inverse_peak(x):
    peak = xb.max(x)
    return 1.0 / peak


@pytest.mark.parametrize("other", OTHERS, indirect=True)
def test_a_signed_zero_the_backends_leave_to_themselves(other):
    x = np.array([0.0, -0.0, -1.0])
    report = diverge(inverse_peak, x, backends=("numpy", other))
    peaks = {t: float(report.traces[t].calls[0].outputs[0].host) for t in ("numpy-cpu", other)}
    signs = {t: np.signbit(v) for t, v in peaks.items()}
    assert all(v == 0.0 for v in peaks.values())  # the value is zero everywhere: only its sign is open
    if signs["numpy-cpu"] == signs[other]:
        assert not report.found, str(report)  # the same sign here: nothing to find
        return
    assert report.index == 1 and report.call.name == "Array.__rtruediv__", str(report)
    assert report.call.line == _line_of(inverse_peak, "1.0 / peak")
    assert report.kind == "special case" and "different sign" in report.first.detail
    assert report.first.origin.name == "max" and report.first.origin.line == _line_of(inverse_peak, "xb.max(")
    with np.errstate(divide="ignore"):
        expected = [str(np.float64(1.0) / np.float64(peaks[t])) for t in ("numpy-cpu", other)]  # -inf / inf
    assert [report.first.worst[0]["a"], report.first.worst[0]["b"]] == expected
    message = _across_message(inverse_peak, x, other=other)
    assert "y / x (Array.__rtruediv__)" in message and "origin: call #0 xb.max" in message


# --- 3. a planted bug: an axis typo that only one backend accepts ---------------------------------------------------
def weighted_scores(scores, weights):
    s = xb.asarray(scores.native.squeeze(0))  # BUG: meant squeeze(1), to drop the column axis
    return s * weights


@pytest.mark.parametrize("other", OTHERS, indirect=True)
def test_a_planted_axis_typo_only_one_backend_accepts(other):
    scores, weights = np.arange(5.0).reshape(5, 1), np.full(5, 0.5)
    report = diverge(weighted_scores, scores, weights, backends=("numpy", other))
    numpy_error = report.traces["numpy-cpu"].error
    assert numpy_error is not None and numpy_error[0] == "ValueError"  # NumPy: "cannot select an axis to squeeze"
    if report.traces[other].error is not None:  # CuPy refuses the typo as NumPy does: the same failure everywhere
        assert not report.found, str(report)
        return
    typo = _line_of(weighted_scores, "squeeze(0)")
    assert report.kind == "control flow" and report.index == 1, str(report)
    assert report.first.last_shared.name == "Array.native" and report.first.last_shared.line == typo
    assert report.traces["numpy-cpu"].error_site[1] == typo
    assert report.first.call_b.name == "asarray" and report.first.call_b.line == typo
    assert report.traces[other].result[0].shape == (5, 5)  # what the typo became there: broadcasting
    message = _across_message(weighted_scores, scores, weights, other=other)
    assert "numpy-cpu: raised ValueError" in message and f":{typo} in weighted_scores(), outside any xbackend" in message
