"""Two defects of issue 33, checked against independent references on every target.

- A Python scalar beyond a float32/float16/complex64 Array's range rounds quietly to an infinity (docs/behaviour.md):
  the reference is Python's ``struct`` rounding of each part ("f", "e": IEEE round to nearest even, beyond the
  largest finite value an infinity), not any library's cast. torch raised BackendFailure for complex64; NumPy warned
  "overflow encountered in cast".
- Dask ``x[mask2d, idx]`` (a mask of 2+ dimensions beside another index) raised Dask's bare AssertionError; the
  reference is NumPy's own indexing of the same host data.
"""

from __future__ import annotations

import math
import struct
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xbackend as xb
from xbackend.testing import available_targets

TARGETS = available_targets()
_PACK = {"float32": "<f", "complex64": "<f", "float16": "<e"}


def _round(v: float, name: str) -> float:
    try:
        return struct.unpack(_PACK[name], struct.pack(_PACK[name], v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def _as_float(s: int | float) -> float:
    try:
        return float(s)
    except OverflowError:  # an int beyond float64
        return math.inf if s > 0 else -math.inf


def _ref_add(a: float | complex, s: float | complex | int, name: str) -> float | complex:
    """``a + s`` with ``s`` first rounded to the Array's dtype, part by part, then the sum rounded."""
    if name == "complex64":
        c = complex(_as_float(s)) if type(s) is int else complex(s)
        r = complex(_round(c.real, name), _round(c.imag, name))
        t = complex(a) + r
        return complex(_round(t.real, name), _round(t.imag, name))
    return _round(a + _round(_as_float(s), name), name)


HUGE = [1e300, -1e300, 3.5e38, -3.5e38, 70000.0, 65520.0, 10**400, -(10**40), 2.0**128]


@pytest.mark.parametrize("t", TARGETS, ids=str)
@pytest.mark.parametrize("dt", [xb.float32, xb.float16, xb.complex64], ids=str)
def test_scalars_beyond_the_dtype_round_quietly(t, dt):
    if not t.holds(dt):
        pytest.skip(f"{t} has no {dt}")
    scalars = HUGE + ([complex(1e300, 0), complex(0, -1e300), complex(-1e300, 1e300), complex(1.0, 3.5e38)]
                      if dt.kind == "c" else [])  # fmt: skip
    for s in scalars:
        base = [1.0, -2.5]
        want = [_ref_add(a, s, dt.name) for a in base]
        x = xb.asarray(base, dtype=dt, backend=t.backend, device=t.device)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # shown, not raised: under "error" the boundary retries quietly
            got = [(x + s).tolist(), (s + x).tolist(), xb.add(x, s).tolist()]
            y = xb.asarray(base, dtype=dt, backend=t.backend, device=t.device)
            y += s
            got.append(y.tolist())
        assert not caught, (t, dt, s, [str(w.message) for w in caught])
        for g in got:
            assert g == want, (t, dt, s, g, want)


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_issue_example_complex64_plus_1e300(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = xb.asarray([1 + 0j], dtype=xb.complex64, backend=t.backend, device=t.device) + complex(1e300, 0)
        r.tolist()
    assert not caught, [str(w.message) for w in caught]
    assert r.dtype is xb.complex64 and r.tolist() == [complex(math.inf, 0)]


@st.composite
def _mask_keys(draw):
    """A 3-D or 4-D shape, a mask over 2 adjacent axes, and an int array or an int on one more axis (in range),
    with slices or an Ellipsis elsewhere."""
    ndim = draw(st.integers(3, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    at = draw(st.integers(0, ndim - 2))
    mask = np.array(draw(st.lists(st.booleans(), min_size=shape[at] * shape[at + 1],
                                  max_size=shape[at] * shape[at + 1]))).reshape(shape[at], shape[at + 1])  # fmt: skip
    k = int(mask.sum())
    free = [d for d in range(ndim) if d not in (at, at + 1)]
    other = draw(st.sampled_from(free))
    n = shape[other]
    if draw(st.booleans()):
        idx = draw(st.integers(-n, n - 1))
    else:
        length = draw(st.sampled_from([k, 1]))
        idx = np.array(draw(st.lists(st.integers(-n, n - 1), min_size=length, max_size=length)), dtype=np.int64)
    key: list = []
    d = 0
    while d < ndim:
        if d == at:
            key.append(mask)
            d += 2
            continue
        if d == other:
            key.append(idx)
        else:
            key.append(draw(st.sampled_from([slice(None), slice(1, None), slice(None, None, -1)])))
        d += 1
    if type(key[-1]) is slice and key[-1] == slice(None) and draw(st.booleans()):
        key[-1] = Ellipsis
    return shape, tuple(key)


# array_api_strict follows the standard, which has no mask beside another index: it refuses (a typed error, below)
INDEXING = [t for t in TARGETS if t.backend != "array_api_strict"]


def _on(t, v):
    return xb.asarray(v, backend=t.backend, device=t.device) if isinstance(v, np.ndarray) else v


@given(case=_mask_keys())
def test_a_wide_mask_beside_an_index_gives_numpys_result_everywhere(case):
    shape, key = case
    host = np.arange(math.prod(shape)).reshape(shape)
    want = host[key]
    for t in INDEXING:
        x = xb.asarray(host, backend=t.backend, device=t.device)
        got = x[tuple(_on(t, k) for k in key)]
        assert tuple(got.shape) == want.shape and np.array_equal(got.numpy(), want), (t, shape, key)


@pytest.mark.parametrize("t", INDEXING, ids=str)
def test_issue_example_mask2d_then_index_array(t):
    host = np.arange(24).reshape(2, 3, 4)
    m = np.array([[True, False, True], [False, True, False]])
    i = np.array([0, 3, 1])
    x = xb.asarray(host, backend=t.backend, device=t.device)
    assert x[_on(t, m), _on(t, i)].tolist() == host[m, i].tolist() == [0, 11, 17]


def test_dask_wide_mask_keeps_the_typed_errors():
    x = xb.asarray(np.arange(24).reshape(2, 3, 4), backend="dask")
    m = xb.asarray(np.array([[True, False, True], [False, True, False]]), backend="dask")
    with pytest.raises(xb.IndexOutOfRangeError):
        x[m, 4]
    with pytest.raises(xb.IndexOutOfRangeError):
        x[m, xb.asarray([0, 9, 1], backend="dask")].compute()
    with pytest.raises(xb.InvalidIndexError):
        x[m, xb.asarray([0, 1], backend="dask")]


def test_array_api_strict_takes_a_wide_mask_beside_an_index_as_numpy_does():
    """The generic backend once compared the index array with ``slice(None)`` (strict refuses ``==`` with a slice)."""
    if "array_api_strict" not in {t.backend for t in TARGETS}:
        pytest.skip("array_api_strict is not installed")
    h = np.arange(24).reshape(2, 3, 4)
    hm = np.array([[True, False, True], [False, True, False]])
    x = xb.asarray(h, backend="array_api_strict")
    m = xb.asarray(hm, backend="array_api_strict")
    assert x[m, xb.asarray([0, 3, 1], backend="array_api_strict")].tolist() == h[hm, [0, 3, 1]].tolist()
    with pytest.raises(xb.IndexOutOfRangeError):
        x[m, xb.asarray([0, 4, 1], backend="array_api_strict")]


def test_dask_wide_mask_on_unknown_sizes_says_persist():
    x = xb.asarray(np.arange(24.0).reshape(2, 3, 4), backend="dask")
    y = x[x[:, 0, 0] > -1]  # the first axis's size is unknown until computed
    m = xb.asarray(np.array([[True, False, True], [False, True, False]]), backend="dask")
    i = xb.asarray([0, 1, 2], backend="dask")
    with pytest.raises(xb.ChunkingError, match="persist"):
        y[m, i]
    assert y.persist()[m, i].tolist() == [0.0, 9.0, 18.0]
