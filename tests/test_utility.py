"""all, any, diff and the constants (e, inf, nan, newaxis, pi) on every target.

Oracles: ``all``/``any`` from Python's builtins over ``x != 0`` (NaN is true); ``diff`` as exact Python-int
differences wrapped to the dtype for integers, ``!=`` for bool, float64 for floats (one rounding per
order of difference).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _dtypes as D
from xbackend.testing import assert_close, assert_equal, available_targets
import xbackend.testing.strategies as xst

ALL = [D.bool, *D.INTEGER, D.float16, D.float32, D.float64, *D.COMPLEX]
nan, inf = math.nan, math.inf



def _elements(dt):
    if dt is D.bool:
        return st.booleans()
    if dt.kind in "iu":
        lo, hi = D._INT_RANGE[dt]
        return st.sampled_from(sorted({lo, lo + 1, 0, 1, hi - 1, hi})) | st.integers(lo, hi)
    real = st.sampled_from([0.0, -0.0, 1.0, nan, inf, -inf]) | st.floats(
        -1e3, 1e3, width=16 if dt is D.float16 else 32, allow_subnormal=False)
    return st.builds(complex, real, real) if dt.kind == "c" else real


@st.composite
def _case(draw, min_dims=0):
    dt = draw(xst.dtypes(ALL))
    shape = draw(xst.shapes(min_dims=min_dims, max_dims=3, max_side=4))
    return draw(hnp.arrays(np.dtype(dt.name), shape, elements=_elements(dt)))


def _axes_strategy(nd):
    if nd == 0:
        return st.sampled_from([None, ()])
    return st.none() | st.integers(-nd, nd - 1) | st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple)


@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any_match_the_oracle(xb_target, name):
    @given(a=_case(), data=st.data(), keepdims=st.booleans())
    def check(a, data, keepdims):
        axis = data.draw(_axes_strategy(a.ndim), label="axis")
        axes = tuple(range(a.ndim)) if axis is None else ((axis % a.ndim,) if isinstance(axis, int) else axis)
        # truthiness by Python (NaN != 0 is True, -0.0 is falsy); the reduction by NumPy over bools
        truth = np.array([bool(v) for v in a.reshape(-1).tolist()], dtype=bool).reshape(a.shape)
        want = (np.all if name == "all" else np.any)(truth, axis=axes, keepdims=keepdims)
        r = getattr(xb, name)(xb_target.asarray(a), axis=axis, keepdims=keepdims)
        assert r.dtype is xb.bool and r._be.dtype_of(r.native) is xb.bool
        assert isinstance(r.native, r._be.native_array_types())
        assert r.shape == want.shape, (r.shape, want.shape)
        assert_equal(r, want)

    check()


def test_all_any_special_cases(xb_target):
    x = xb_target.asarray(np.array([[nan, 0.0], [1.0, -0.0]]))
    assert xb.all(x, axis=1).tolist() == [False, False] and xb.any(x, axis=1).tolist() == [True, True]
    assert xb.all(xb_target.asarray(np.array([nan, inf]))).item() is True
    e = xb_target.asarray(np.zeros((0, 2)))
    assert xb.all(e).item() is True and xb.any(e).item() is False
    assert xb.all(e, axis=0).tolist() == [True, True] and xb.any(e, axis=1).shape == (0,)
    c = xb_target.asarray(np.array([0j, 1j]))
    assert xb.any(c).item() is True and xb.all(c).item() is False
    u = xb_target.asarray(np.array([2**64 - 1, 0], dtype=np.uint64))
    assert xb.any(u).item() is True and xb.all(u).item() is False
    z = xb_target.asarray(np.array(3, dtype=np.int8))
    assert xb.all(z).shape == () and xb.any(z, keepdims=True).shape == () and xb.all(z, axis=()).item() is True
    with pytest.raises(IndexError):
        xb.all(x, axis=2)


# --- diff ------------------------------------------------------------------------------------------------
def _wrap(v, dt):
    v %= 1 << dt.bits
    if dt.kind == "i" and v >= 1 << (dt.bits - 1):
        v -= 1 << dt.bits
    return v


def _diff_oracle(a: np.ndarray, axis: int, n: int) -> np.ndarray:
    dt = xb.dtype(a.dtype.name)
    if dt is D.bool:
        out = a
        for _ in range(n):
            out = np.not_equal(np.delete(out, 0, axis), np.delete(out, -1, axis)) if out.shape[axis] else out
        return out
    if dt.kind in "iu":
        out = a.astype(object)
        for _ in range(n):
            out = np.delete(out, 0, axis) - np.delete(out, -1, axis) if out.shape[axis] else out
        return np.vectorize(lambda v: _wrap(int(v), dt), otypes=[object])(out).astype(dt.name) if out.size \
            else out.astype(dt.name)  # fmt: skip
    wide = a.astype(np.complex128 if dt.kind == "c" else np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.diff(wide, n=n, axis=axis)


def test_diff_matches_the_oracle(xb_target):
    @given(a=_case(min_dims=1), data=st.data())
    def check(a, data):
        axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
        n = data.draw(st.integers(0, 3), label="n")
        r = xb.diff(xb_target.asarray(a), axis=axis, n=n)
        want = _diff_oracle(a, axis, n)
        assert r.dtype is xb.dtype(a.dtype.name) and r._be.dtype_of(r.native) is r.dtype
        assert r.shape == want.shape, (r.shape, want.shape)
        if a.dtype.kind in "biu":
            assert_equal(r, want)
        elif a.dtype.kind == "c":  # part by part (complex isclose cannot compare infinite parts)
            for part in (xb.real, xb.imag):
                host = want.real if part is xb.real else want.imag
                src = a.real if part is xb.real else a.imag
                mag = float(np.max(np.abs(src[np.isfinite(src)]), initial=0.0))
                eps = float(np.finfo(a.dtype).eps)
                assert_close(part(r), host, rtol=4 * eps, atol=(2**n) * eps * 4 * mag, check_dtype=False)
        else:  # inputs are exact in float64: only the result's rounding (once per order) differs
            mag = float(np.max(np.abs(a[np.isfinite(a)]), initial=0.0))
            eps = float(np.finfo(a.dtype).eps)
            assert_close(r, want, rtol=4 * eps, atol=(2**n) * eps * 4 * mag, check_dtype=False)

    check()


def test_diff_prepend_append(xb_target):
    x = xb_target.asarray(np.array([[1, 4], [9, 16]], dtype=np.int16))
    assert xb.diff(x, prepend=xb_target.asarray(np.array([[0], [0]], dtype=np.int16))).tolist() == [[1, 3], [9, 7]]
    assert xb.diff(x, axis=0, append=xb_target.asarray(np.array([[0, 0]], dtype=np.int16))).tolist() == \
        [[8, 12], [-9, -16]]  # fmt: skip
    r = xb.diff(x, prepend=0, append=100)  # Python scalars broadcast along axis, weakly typed
    assert r.dtype is xb.int16 and r.tolist() == [[1, 3, 96], [9, 7, 84]]
    r = xb.diff(x, axis=0, prepend=xb_target.asarray(np.array(1, dtype=np.int32)))  # 0-d Arrays broadcast, promote
    assert r.dtype is xb.int32 and r.tolist() == [[0, 3], [8, 12]]
    f = xb.diff(x, append=xb_target.asarray(np.array([[0.5], [0.5]], dtype=np.float32)))
    assert f.dtype is xb.float32 and f.tolist() == [[3.0, -3.5], [7.0, -15.5]]
    assert xb.diff(x, prepend=1.5).dtype is xb.float64
    assert xb.diff(x, n=0).tolist() == x.tolist() and xb.diff(x, n=5).shape == (2, 0)
    n0 = xb.diff(x, n=0)
    n0[0, 0] = 99
    assert x.tolist() == [[1, 4], [9, 16]]  # n=0 returns a copy
    b = xb_target.asarray(np.array([True, True, False, True]))
    assert xb.diff(b).tolist() == [False, True, True] and xb.diff(b).dtype is xb.bool
    u = xb_target.asarray(np.array([0, 2**64 - 1, 5], dtype=np.uint64))
    assert xb.diff(u).tolist() == [2**64 - 1, 6] and xb.diff(u, n=2).tolist() == [7]


def test_diff_errors(xb_target):
    x = xb_target.asarray(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="0-d"):
        xb.diff(xb_target.asarray(np.array(1.0)))
    with pytest.raises(ValueError, match="non-negative"):
        xb.diff(x, n=-1)
    with pytest.raises(IndexError):
        xb.diff(x, axis=2)
    with pytest.raises(ValueError, match="shape"):
        xb.diff(x, prepend=xb_target.asarray(np.zeros((3, 1))))
    with pytest.raises(ValueError, match="shape"):
        xb.diff(x, append=xb_target.asarray(np.zeros(3)))
    with pytest.raises(xb.PromotionError):
        xb.diff(xb_target.asarray(np.zeros(2, np.uint64)), prepend=xb_target.asarray(np.zeros(1, np.int8)))
    with pytest.raises(xb.ScalarOverflowError):
        xb.diff(xb_target.asarray(np.zeros(2, np.uint8)), append=-1)
    others = [t for t in available_targets() if t.backend != xb_target.backend]
    if others:
        with pytest.raises(xb.BackendMismatchError):
            xb.diff(x, append=others[0].asarray(np.zeros((2, 1))))


def test_diff_keeps_autograd():
    torch = pytest.importorskip("torch")
    t = torch.tensor([1.0, 4.0, 9.0], dtype=torch.float64, requires_grad=True)
    d = xb.diff(xb.asarray(t))
    assert d.requires_grad
    d.native.sum().backward()
    assert t.grad.tolist() == [-1.0, 0.0, 1.0]


# --- constants ------------------------------------------------------------------------------------------------
def test_constants_are_python_values():
    assert type(xb.e) is float and xb.e == math.e
    assert type(xb.pi) is float and xb.pi == math.pi
    assert type(xb.inf) is float and xb.inf == math.inf
    assert type(xb.nan) is float and math.isnan(xb.nan)
    assert xb.newaxis is None
    for name in ("e", "inf", "nan", "newaxis", "pi", "all", "any", "diff"):
        assert name in xb.__all__


def test_constants_in_expressions(xb_target):
    x = xb_target.asarray(np.array([1.0, 2.0], dtype=np.float32))
    assert (x * xb.pi).dtype is xb.float32  # Python floats are weak
    assert x[xb.newaxis, :].shape == (1, 2)
    assert_equal(xb.isnan(x + xb.nan), [True, True])
