"""The generic Array-API backend: arrays of a conforming library stay in it, with NumPy's values and
xbackend's dtypes; foreign array-likes that are neither known nor conforming raise ForeignArrayError.

array-api-strict is the CI target (JAX is checked the same way when installed). The full oracle suite
is opt-in on these backends (``--xb-backends array_api_strict``): their dtype sets are smaller
(no float16/bfloat16), see xbackend/testing/_targets.py OPT_IN.
"""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing import assert_close, assert_equal

LIBS = [pytest.param(name, marks=pytest.mark.skipif(not xb.backends()[name].usable, reason=f"{name} not installed"))
        for name in ("array_api_strict", "jax")]  # fmt: skip


@pytest.fixture(params=LIBS)
def lib(request):
    return request.param


def _native_type(lib):
    return type(xb.asarray([1.0], backend=lib).native)


def test_native_arrays_are_wrapped_and_stay_in_their_library(lib):
    xp = xb.asarray([0.0], backend=lib).native.__array_namespace__()
    a = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    x = xb.asarray(a)
    assert x.backend == lib and x.native is a and x.dtype is xb.float64 and str(x.device) == "cpu"
    y = xb.exp(x) @ x - 1
    assert type(y.native) is type(a) and y.backend == lib
    assert_close(y, np.exp([[1.0, 2.0], [3.0, 4.0]]) @ np.array([[1.0, 2.0], [3.0, 4.0]]) - 1)


def test_values_and_dtypes_match_numpy(lib):
    rng = np.random.default_rng(3)
    af = rng.normal(size=(5, 4))
    ai = rng.integers(-9, 9, size=(5, 4)).astype(np.int8)
    xf, xi = xb.asarray(af, backend=lib), xb.asarray(ai, backend=lib)
    checks = [
        (xb.mean(xi), ai.mean()),  # int -> default float, on every backend
        (xb.sum(xi, axis=0), ai.sum(axis=0, dtype=np.int64)),
        (xi / 2, ai / 2.0),
        (xb.std(xf, axis=1, correction=1), af.std(axis=1, ddof=1)),
        (xb.sort(xf, axis=0, descending=True), -np.sort(-af, axis=0)),
        (xb.argsort(xi, axis=1), np.argsort(ai, axis=1, kind="stable")),
        (xb.cumulative_sum(xi, axis=1), np.cumsum(ai, axis=1, dtype=np.int64)),
        (xb.linalg.inv(xf[:4] @ xf[:4].mT + 4 * xb.eye(4, backend=lib)), np.linalg.inv(af[:4] @ af[:4].T + 4 * np.eye(4))),
        (xb.concat([xf, xf], axis=0), np.concatenate([af, af])),
        (xb.where(xf > 0, xf, 0.0), np.where(af > 0, af, 0.0)),
        (xf[1:4, ::-1], af[1:4, ::-1]),
    ]  # fmt: skip
    for got, want in checks:
        want = np.asarray(want)
        assert got.backend == lib and got.dtype is xb.dtype(want.dtype.name), (got.dtype, want.dtype)
        assert_close(got, want)
    u = xb.unique_counts(xb.asarray([3.0, np.nan, 1.0, 3.0, np.nan], backend=lib))  # sorted, every NaN distinct
    assert_equal(u.values, np.array([1.0, 3.0, np.nan, np.nan]))
    assert_equal(u.counts, np.array([1, 2, 1, 1]))
    nan_last = xb.sort(xb.asarray([2.0, np.nan, -1.0], backend=lib), descending=True)
    assert_equal(nan_last, np.array([2.0, -1.0, np.nan]))


def test_moves_and_mismatches(lib):
    x = xb.asarray(np.arange(3.0), backend="numpy").to(backend=lib)
    assert x.backend == lib and type(x.native) is _native_type(lib)
    assert x.to(backend="numpy").backend == "numpy" and x.numpy().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(xb.BackendMismatchError, match="to\\("):
        x + xb.asarray(np.arange(3.0))


class Opaque:
    """An array-like of a library xbackend does not know that does not implement the standard."""

    __module__ = "somelib.arrays"

    def __array__(self, dtype=None, copy=None):
        raise AssertionError("must never be converted silently")


def test_unknown_non_conforming_array_likes_are_refused_with_the_fix():
    with pytest.raises(xb.ForeignArrayError, match="np.asarray") as err:
        xb.asarray(Opaque())
    assert isinstance(err.value, TypeError) and isinstance(err.value, xb.XBackendError)
    assert xb.asarray(memoryview(b"\x01\x02")).tolist() == [1, 2]  # Python's own buffers are host data


def test_backend_for_type_does_not_import_unknown_libraries():
    from xbackend._dispatch import backend_for_type

    assert backend_for_type(Opaque) is None
