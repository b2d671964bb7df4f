"""sort and argsort on every target, against an independent pure-Python oracle.

The documented order (``xbackend/_sorting.py``): stable in both directions (also with ``stable=False``),
NaNs last in both directions, -0.0 and +0.0 equal (input order kept), complex raises. The oracle is
Python's stable ``sorted`` over ``tolist()`` values, so it shares no code with NumPy or torch: indices
must match it exactly, values (sign of zero included) too, on every target.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _dtypes as D
from xbackend.testing import assert_close, assert_equal, to_host
import xbackend.testing.strategies as xst

REAL = [D.bool, *D.INTEGER, D.float16, D.float32, D.float64]
nan, inf = math.nan, math.inf



def _elements(dt):
    """Few distinct values, so ties, NaNs, infinities and both zeros are common."""
    if dt is D.bool:
        return st.booleans()
    if dt.kind in "iu":
        lo, hi = D._INT_RANGE[dt]
        return st.sampled_from(sorted({lo, lo + 1, max(lo, -1), 0, 1, 2, hi - 1, hi}))
    return st.sampled_from([-inf, -2.5, -1.0, -0.0, 0.0, 1.0, 2.5, inf, nan]) | st.floats(
        -100, 100, width=16 if dt is D.float16 else 32, allow_subnormal=False
    )


@st.composite
def _case(draw):
    dt = draw(xst.dtypes(REAL))
    shape = draw(xst.shapes(min_dims=1, max_dims=3, max_side=6))
    a = draw(hnp.arrays(np.dtype(dt.name), shape, elements=_elements(dt)))
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    return a, axis, draw(st.booleans())


def _oracle_indices(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable order with NaNs last in both directions, -0.0 == 0.0, by Python's sorted()."""
    moved = np.moveaxis(a, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1]) if moved.size else np.zeros((0, moved.shape[-1]), a.dtype)
    out = []
    for row in rows.tolist():
        def key(i, row=row):
            v = row[i]
            if isinstance(v, float) and math.isnan(v):
                return (1, 0)
            return (0, -v if descending else v)

        out.append(sorted(range(len(row)), key=key))
    idx = np.array(out, dtype=np.int64).reshape(moved.shape)
    return np.moveaxis(idx, -1, axis)


@st.composite
def _float_case_with_nans(draw):
    """Float data that always holds NaNs (the general property draws them rarely with descending=True)."""
    dt = draw(xst.dtypes([D.float16, D.float32, D.float64]))
    shape = draw(xst.shapes(min_dims=1, max_dims=2, min_side=2, max_side=6))
    a = draw(hnp.arrays(np.dtype(dt.name), shape, elements=_elements(dt)))
    flat = a.reshape(-1)
    for i in draw(st.lists(st.integers(0, flat.size - 1), min_size=1, max_size=3)):
        flat[i] = nan
    return a, draw(st.integers(-a.ndim, a.ndim - 1))


def test_descending_sort_with_nans_matches_the_oracle(xb_target):
    @given(case=_float_case_with_nans())
    def check(case):
        a, axis = case
        x = xb_target.asarray(a)
        want = _oracle_indices(a, axis, True)
        assert_equal(xb.argsort(x, axis=axis, descending=True), want)
        s = xb.sort(x, axis=axis, descending=True)
        assert_close(s, np.take_along_axis(a, want, axis=axis), rtol=0, atol=0, check_sign_of_zero=True)
        nans = np.isnan(to_host(s))  # NaNs last: once a NaN appears along the axis, only NaNs follow
        assert (np.diff(nans.astype(np.int8), axis=axis) >= 0).all()

    check()


def test_sort_and_argsort_match_the_oracle(xb_target):
    @given(case=_case(), stable=st.booleans())
    def check(case, stable):
        a, axis, descending = case
        x = xb_target.asarray(a)
        want = _oracle_indices(a, axis, descending)
        i = xb.argsort(x, axis=axis, descending=descending, stable=stable)
        assert i.dtype is xb.int64 and i.shape == a.shape
        assert_equal(i, want)
        s = xb.sort(x, axis=axis, descending=descending, stable=stable)
        assert s.dtype is x.dtype and s.shape == a.shape
        assert s._be.dtype_of(s.native) is s.dtype
        assert_close(s, np.take_along_axis(a, want, axis=axis), rtol=0, atol=0, check_sign_of_zero=True)

    check()


def test_nans_last_in_both_directions_and_zeros_keep_input_order(xb_target):
    x = xb_target.asarray(np.array([nan, 2.0, -0.0, 0.0, nan, -1.0, 0.0, -0.0]))
    assert_close(xb.sort(x), [-1.0, -0.0, 0.0, 0.0, -0.0, 2.0, nan, nan], check_dtype=False, check_sign_of_zero=True)
    assert xb.argsort(x).tolist() == [5, 2, 3, 6, 7, 1, 0, 4]
    assert_close(xb.sort(x, descending=True), [2.0, -0.0, 0.0, 0.0, -0.0, -1.0, nan, nan], check_dtype=False,
                 check_sign_of_zero=True)  # fmt: skip
    assert xb.argsort(x, descending=True).tolist() == [1, 2, 3, 6, 7, 5, 0, 4]


def test_descending_is_stable_for_ties(xb_target):
    x = xb_target.asarray(np.array([[1, 3, 1, 3, 2], [0, 0, 0, 0, 0]], dtype=np.int16))
    assert xb.argsort(x, descending=True).tolist() == [[1, 3, 4, 0, 2], [0, 1, 2, 3, 4]]
    assert xb.argsort(x, axis=0, descending=True, stable=False).tolist() == [[0, 0, 0, 0, 0], [1, 1, 1, 1, 1]]


@pytest.mark.parametrize("dt", [D.uint16, D.uint32, D.uint64, D.int8, D.int64])
def test_integer_extremes(xb_target, dt):
    lo, hi = D._INT_RANGE[dt]
    a = np.array([hi, lo, 0, hi - 1, lo + 1, 1], dtype=dt.name)
    x = xb_target.asarray(a)
    assert xb.sort(x).tolist() == sorted(a.tolist())
    assert xb.sort(x, descending=True).tolist() == sorted(a.tolist(), reverse=True)
    assert xb.argsort(x).tolist() == sorted(range(6), key=lambda i: a.tolist()[i])


def test_bool_and_empty(xb_target):
    b = xb_target.asarray(np.array([True, False, True, False]))
    assert xb.sort(b).tolist() == [False, False, True, True]
    assert xb.argsort(b, descending=True).tolist() == [0, 2, 1, 3]
    for shape, axis in (((0,), 0), ((2, 0), 1), ((0, 3), 0), ((0, 3), 1)):
        e = xb_target.asarray(np.zeros(shape, dtype=np.float32))
        assert xb.sort(e, axis=axis).shape == shape and xb.sort(e, axis=axis).dtype is xb.float32
        assert xb.argsort(e, axis=axis).shape == shape and xb.argsort(e, axis=axis).dtype is xb.int64


def test_index_dtype_follows_default_int(xb_target):
    x = xb_target.asarray(np.array([3.0, 1.0]))
    with xb.using(default_int=xb.int32):
        i = xb.argsort(x)
    assert i.dtype is xb.int32 and i._be.dtype_of(i.native) is xb.int32 and i.tolist() == [1, 0]


def test_errors(xb_target):
    c = xb_target.asarray(np.array([1 + 1j, 0j]))
    for fn in (xb.sort, xb.argsort):
        with pytest.raises(xb.UnsupportedDTypeError, match="complex"):
            fn(c)
        with pytest.raises(ValueError, match="0-d"):
            fn(xb_target.asarray(np.array(1.0)))
        with pytest.raises(IndexError, match="out of range"):
            fn(xb_target.asarray(np.zeros((2, 3))), axis=2)
        with pytest.raises(ValueError, match="out of range"):
            fn(xb_target.asarray(np.zeros((2, 3))), axis=-3)


def test_sort_keeps_autograd():
    torch = pytest.importorskip("torch")
    t = torch.tensor([3.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    for descending in (False, True):
        s = xb.sort(xb.asarray(t), descending=descending)
        assert s.requires_grad
        (s.native * torch.tensor([1.0, 10.0, 100.0], dtype=torch.float64)).sum().backward()
        want = [100.0, 1.0, 10.0] if not descending else [1.0, 100.0, 10.0]
        assert t.grad.tolist() == want
        t.grad = None
