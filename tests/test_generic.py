"""The generic Array-API backend: arrays of a conforming library stay in it, with NumPy's values and
xbackend's dtypes; foreign array-likes that are neither known nor conforming raise ForeignArrayError.

array-api-strict is a default target of the whole suite (JAX too, when installed); this module holds what
is particular to the generic backend: wrapping, missing dtypes, NumPy's indexing in the standard's terms,
JAX's immutability and its 64-bit switch.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
    with pytest.raises(xb.BackendMismatchError, match="xb.asarray\\("):
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


@pytest.mark.skipif(not xb.backends()["array_api_strict"].usable, reason="array_api_strict not installed")
def test_a_dtype_the_library_lacks_is_a_typed_error_with_the_fix():
    from xbackend.testing import Target

    with pytest.raises(xb.UnsupportedDTypeError, match="Fix: ") as err:
        xb.asarray([1.0], dtype=xb.float16, backend="array_api_strict")
    assert isinstance(err.value, TypeError) and isinstance(err.value, xb.XBackendError)
    with pytest.raises(xb.UnsupportedDTypeError, match="Fix: "):
        xb.zeros(2, dtype=xb.bfloat16, backend="array_api_strict")
    t = Target("array_api_strict", "cpu")
    assert not t.holds(xb.float16) and t.holds(xb.float64) and t.holds(xb.uint64)
    assert "float16" not in xb.__array_namespace_info__(backend="array_api_strict").dtypes()


KEYS = [  # NumPy's advanced indexing, which the standard specifies only in part
    lambda a: (np.array([[0, 2], [1, 0]]), slice(None), 1),
    lambda a: (slice(None), np.array([0, 3, 3]), np.array([1, 1, 4])),  # repeated positions: the last write wins
    lambda a: (0, slice(1, 3), np.array([4, 0])),
    lambda a: (np.array([2, 0]), None, slice(None, None, -1)),
    lambda a: (a[:, :, 0] > 20,),
    lambda a: (slice(None), a[0] > 7),
    lambda a: (True,),
    lambda a: (False, 1),
    lambda a: (Ellipsis, np.array([-1, 0])),
    lambda a: (slice(-10, None, -1), slice(1, 99)),
]  # fmt: skip


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_numpy_indexing_reads_and_writes_like_numpy(lib, key):
    a = np.arange(60.0).reshape(3, 4, 5)
    k = key(a)
    want = a[k]
    x = xb.asarray(a, backend=lib)
    got = x[k]
    assert got.backend == lib and got.shape == want.shape
    assert_equal(got, want)
    b, y = a.copy(), xb.asarray(a, backend=lib)
    v = np.arange(want.size, dtype=np.float64).reshape(want.shape) + 100
    b[k] = v
    y[k] = v  # written values are host data: a NumPy array is moved where y lives (issue 9)
    assert_equal(y, b)
    b[k] = -1.0
    y[k] = -1.0
    assert_equal(y, b)


def test_out_of_range_index_arrays_raise_instead_of_clamping(lib):
    x = xb.asarray(np.arange(5.0), backend=lib)
    for bad in (lambda: x[7], lambda: x[[0, 7]], lambda: xb.take_along_axis(x, xb.asarray([5], backend=lib))):
        with pytest.raises(IndexError, match="5|7"):
            bad()


@pytest.mark.skipif(not xb.backends()["jax"].usable, reason="jax not installed")
def test_jax_writes_rebind_the_array_and_keep_values_like_numpy():
    a = np.arange(6.0).reshape(2, 3)
    x = xb.asarray(a, backend="jax")
    before = x.native
    x[0, 1:] = 9.0
    x += 1
    a[0, 1:] = 9.0
    a += 1
    assert x.backend == "jax" and x.native is not before  # JAX arrays are immutable: the Array holds a new one
    assert_equal(x, a)
    assert xb.asarray(before).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    caps = xb.__array_namespace_info__(backend="jax").capabilities()
    assert caps["views"] is False and caps["64-bit dtypes"] is True  # (the suite runs JAX with x64 on)


@pytest.mark.skipif(not xb.backends()["jax"].usable, reason="jax not installed")
def test_jax_without_x64_refuses_64_bit_dtypes_with_the_fix():
    """xbackend never narrows float64 to float32 silently, and never flips JAX's global switch itself."""
    code = (
        "import xbackend as xb, jax\n"
        "try:\n    xb.asarray([1.0], backend='jax')\nexcept xb.UnsupportedDTypeError as e:\n    print('refused', e)\n"
        "with xb.using(default_float=xb.float32, default_int=xb.int32):\n"
        "    print('float32', xb.asarray([1.0], backend='jax').dtype, jax.config.jax_enable_x64)\n"
    )
    env = {**os.environ, "JAX_ENABLE_X64": "0", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "refused" in out.stdout and "jax_enable_x64" in out.stdout and "Fix: " in out.stdout
    assert "float32 float32 False" in out.stdout
