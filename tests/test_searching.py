"""Searching functions (2025.12) on every target, against NumPy as the oracle.

Index results must have the default integer dtype (int64, or what ``xb.using(default_int=...)`` says);
value results follow the promotion table with weak Python scalars. NaN is the maximum *and* the minimum
for argmax/argmin (NumPy's rule: the first NaN wins).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _dtypes as D
from xbackend.testing import assert_equal, shapes_match
import xbackend.testing.strategies as xst

ALL = [d for d in D.ALL if d is not D.bfloat16]
REAL = [d for d in ALL if d.kind != "c"]



def _check(r, expected, dt):
    assert type(r) is xb.Array
    assert r.dtype is dt, (r.dtype, dt)
    assert r._be.dtype_of(r.native) is dt
    assert shapes_match(r.shape, np.shape(expected)), (r.shape, np.shape(expected))  # None: unknown (lazy)
    assert_equal(r, np.asarray(expected), check_dtype=False)


def test_argmax_argmin(xb_target):
    @given(dt=st.sampled_from(REAL), data=st.data(), keepdims=st.booleans())
    def check(dt, data, keepdims):
        shape = data.draw(xst.shapes(max_dims=3, min_side=1, max_side=4))
        # few distinct values, so ties (first occurrence) are common; NaN included for floats
        a = data.draw(xst.host_arrays(dt, shape, elements=st.sampled_from([0, 1, 2]) if dt.kind != "b" else None))
        if dt.kind == "f" and a.size and data.draw(st.booleans()):
            a = a.copy()
            a.reshape(-1)[data.draw(st.integers(0, a.size - 1))] = np.nan
        x = xb_target.asarray(a)
        for name in ("argmax", "argmin"):
            fn, ref = getattr(xb, name), getattr(np, name)
            _check(fn(x, keepdims=keepdims), ref(a, keepdims=keepdims), xb.int64)
            if a.ndim:
                ax = data.draw(st.integers(-a.ndim, a.ndim - 1))
                _check(fn(x, axis=ax, keepdims=keepdims), ref(a, axis=ax, keepdims=keepdims), xb.int64)

    check()


def test_count_nonzero(xb_target):
    @given(dt=xst.dtypes(ALL), data=st.data(), keepdims=st.booleans())
    def check(dt, data, keepdims):
        a = data.draw(xst.host_arrays(dt, xst.shapes(max_dims=3, max_side=4)))
        if dt.kind == "c" and a.size:  # zero real or imaginary parts
            a = a.copy()
            a.real[a.real > 0] = 0
        x = xb_target.asarray(a)
        _check(xb.count_nonzero(x, keepdims=keepdims), np.count_nonzero(a, axis=None, keepdims=keepdims), xb.int64)
        nd = a.ndim
        if nd:
            axes = tuple(data.draw(st.lists(st.integers(-nd, nd - 1), max_size=nd, unique_by=lambda i: i % nd)))
            e = np.count_nonzero(a, axis=axes, keepdims=keepdims) if axes else (a != 0).astype(np.int64)
            _check(xb.count_nonzero(x, axis=axes, keepdims=keepdims), e, xb.int64)
            ax = data.draw(st.integers(-nd, nd - 1))
            _check(xb.count_nonzero(x, axis=ax), np.count_nonzero(a, axis=ax), xb.int64)

    check()


def test_nonzero(xb_target):
    @given(dt=xst.dtypes(ALL), data=st.data())
    def check(dt, data):
        a = data.draw(xst.host_arrays(dt, xst.shapes(min_dims=1, max_dims=3, max_side=4),
                                      elements=st.sampled_from([0, 1]) if dt.kind in "iuf" else None))  # fmt: skip
        out = xb.nonzero(xb_target.asarray(a))
        exp = np.nonzero(a)
        assert type(out) is tuple and len(out) == len(exp) == a.ndim
        for r, e in zip(out, exp):
            _check(r, e, xb.int64)

    check()


@st.composite
def _sorted_case(draw):
    d1 = draw(xst.dtypes(REAL))
    d2 = draw(st.just(d1) | xst.dtypes([d for d in REAL if (d1, d) in D.PROMOTION] or [d1]))
    n = draw(st.integers(0, 6))
    el = st.integers(0, 5)  # small values: ties and exact hits on every dtype
    x1 = np.sort(draw(hnp.arrays(np.dtype(d1.name), n, elements=el if d1.kind != "b" else None)))
    x2 = draw(hnp.arrays(np.dtype(d2.name), draw(xst.shapes(max_dims=2, max_side=4)),
                         elements=el if d2.kind != "b" else None))  # fmt: skip
    return x1, x2, D.promote(d1, d2)


def test_searchsorted(xb_target):
    @given(case=_sorted_case(), side=st.sampled_from(["left", "right"]), data=st.data())
    def check(case, side, data):
        x1, x2, cd = case
        a1, a2 = x1.astype(cd.name), x2.astype(cd.name)
        r = xb.searchsorted(xb_target.asarray(x1), xb_target.asarray(x2), side=side)
        _check(r, np.searchsorted(a1, a2, side=side), xb.int64)
        # sorter: the same search on a shuffled x1
        perm = data.draw(st.permutations(range(x1.size)))
        shuffled = x1[np.array(perm, dtype=np.int64)]
        sorter = np.argsort(shuffled, kind="stable")
        r = xb.searchsorted(xb_target.asarray(shuffled), xb_target.asarray(x2), side=side, sorter=xb_target.asarray(sorter))
        _check(r, np.searchsorted(a1, a2, side=side), xb.int64)
        # a Python scalar x2 (weak, 2025.12)
        if x2.size and x1.dtype.kind in "iuf":
            v = x2.reshape(-1)[0].item()
            v = int(v) if x1.dtype.kind in "iu" else float(v)
            r = xb.searchsorted(xb_target.asarray(x1), v, side=side)
            _check(r, np.searchsorted(x1, np.asarray(v, dtype=x1.dtype), side=side), xb.int64)

    check()


def test_searchsorted_floats_with_nan_and_inf(xb_target):
    x1 = np.array([-np.inf, -1.0, 0.0, 0.0, 2.5, np.inf, np.nan, np.nan])  # NaN sorts last, as in xb.sort
    x2 = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3.0, -5.0])
    for side in ("left", "right"):
        _check(xb.searchsorted(xb_target.asarray(x1), xb_target.asarray(x2), side=side),
               np.searchsorted(x1, x2, side=side), xb.int64)  # fmt: skip

    @given(dt=xst.dtypes([D.float16, D.float32, D.float64]), data=st.data(),
           side=st.sampled_from(["left", "right"]))
    def check(dt, data, side):
        a = np.sort(data.draw(xst.host_arrays(dt, st.integers(0, 8))))
        v = data.draw(xst.host_arrays(dt, xst.shapes(max_dims=2, max_side=4)))
        _check(xb.searchsorted(xb_target.asarray(a), xb_target.asarray(v), side=side), np.searchsorted(a, v, side=side),
               xb.int64)  # fmt: skip

    check()


@st.composite
def _where_case(draw):
    s = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
    d1 = draw(xst.dtypes(ALL))
    d2 = draw(st.just(d1) | xst.dtypes([d for d in ALL if (d1, d) in D.PROMOTION] or [d1]))
    c = draw(hnp.arrays(np.bool_, s.input_shapes[0]))
    a = draw(xst.host_arrays(d1, s.input_shapes[1]))
    b = draw(xst.host_arrays(d2, s.input_shapes[2]))
    return c, a, b, D.promote(d1, d2)


def test_where(xb_target):
    @given(case=_where_case())
    def check(case):
        c, a, b, cd = case
        r = xb.where(xb_target.asarray(c), xb_target.asarray(a), xb_target.asarray(b))
        with np.errstate(over="ignore"):
            _check(r, np.where(c, a.astype(cd.name), b.astype(cd.name)), cd)

    check()


@pytest.mark.parametrize("dt, scalar, want", [
    (D.int8, 3, D.int8), (D.uint16, 7, D.uint16), (D.float32, 2.5, D.float32), (D.int32, 2.5, D.float64),
    (D.bool, True, D.bool), (D.bool, 3, D.int64), (D.float32, 1j, D.complex64), (D.uint64, 2**63, D.uint64),
    (D.float16, 1, D.float16),
])  # fmt: skip
def test_where_weak_scalars(xb_target, dt, scalar, want):
    c = np.array([True, False, True])
    a = np.array([1, 0, 1], dtype=dt.name)
    x = xb_target.asarray(a)
    cond = xb_target.asarray(c)
    _check(xb.where(cond, x, scalar), np.where(c, a.astype(want.name), np.asarray(scalar).astype(want.name)), want)
    _check(xb.where(cond, scalar, x), np.where(c, np.asarray(scalar).astype(want.name), a.astype(want.name)), want)


def test_default_int_is_the_index_dtype(xb_target):
    x = xb_target.asarray(np.array([[3.0, 1.0], [0.0, 7.0]]))
    with xb.using(default_int=xb.int32):
        for r in (xb.argmax(x), xb.argmin(x, axis=0), xb.count_nonzero(x), *xb.nonzero(x),
                  xb.searchsorted(xb_target.asarray(np.array([1.0, 2.0])), 1.5)):  # fmt: skip
            assert r.dtype is xb.int32 and r._be.dtype_of(r.native) is xb.int32


def test_errors(xb_target):
    z = xb_target.asarray(np.zeros((0, 3)))
    with pytest.raises(ValueError):
        xb.argmax(z)
    with pytest.raises(ValueError):
        xb.argmin(z, axis=0)
    assert xb.argmax(z, axis=1).shape == (0,)
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.argmax(xb_target.asarray(np.array([1j, 2j])))
    with pytest.raises(xb.AxisError):
        xb.argmax(xb_target.asarray(np.float64(1.0)), axis=0)
    assert xb.argmax(xb_target.asarray(np.float64(1.0))).item() == 0
    with pytest.raises(xb.AxisError):
        xb.count_nonzero(z, axis=(0, -2))
    with pytest.raises(ValueError):
        xb.nonzero(xb_target.asarray(np.float64(1.0)))
    x = xb_target.asarray(np.array([1.0, 2.0]))
    with pytest.raises(TypeError):
        xb.where(xb_target.asarray(np.array([1, 0])), x, x)
    with pytest.raises(TypeError):
        xb.where(xb_target.asarray(np.array([True, False])), 1.0, "2.0")
    with pytest.raises(ValueError):
        xb.where(xb_target.asarray(np.array([True, False, True])), x, x)
    with pytest.raises(xb.PromotionError):
        xb.where(xb_target.asarray(np.array([True, False])), xb_target.asarray(np.array([1, 2], np.uint64)),
                 xb_target.asarray(np.array([1, 2], np.int8)))  # fmt: skip
    with pytest.raises(xb.ScalarOverflowError):
        xb.where(xb_target.asarray(np.array([True, False])), xb_target.asarray(np.array([1, 2], np.int8)), 300)
    with pytest.raises(ValueError):
        xb.searchsorted(xb_target.asarray(np.zeros((2, 2))), x)
    with pytest.raises(ValueError):
        xb.searchsorted(x, x, side="middle")
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.searchsorted(xb_target.asarray(np.array([1j])), 1.0)
    with pytest.raises(ValueError):
        xb.searchsorted(x, x, sorter=xb_target.asarray(np.array([0])))


def test_mixed_backends_raise(xb_target):
    if xb_target.backend == "numpy":
        pytest.skip("needs a second backend: covered on the non-NumPy targets")
    x = xb_target.asarray(np.array([1.0, 2.0]))
    n = xb.asarray(np.array([1.0, 2.0]), backend="numpy")
    c = xb_target.asarray(np.array([True, False]))
    with pytest.raises(xb.BackendMismatchError):
        xb.where(c, x, n)
    with pytest.raises(xb.BackendMismatchError):
        xb.where(xb.asarray(np.array([True, False])), x, 0.0)
    with pytest.raises(xb.BackendMismatchError):
        xb.searchsorted(x, n)
    with pytest.raises(xb.BackendMismatchError):
        xb.searchsorted(x, x, sorter=xb.asarray(np.array([0, 1])))


@pytest.mark.parametrize("x1, x2", [(1, 2), (True, 2.5), (-float("inf"), 0), (1j, 0), (True, False), (0.5, -3)])
def test_where_of_two_python_scalars_follows_numpy(xb_target, x1, x2):
    # NumPy and torch take two scalars (the standard asks for one Array): the dtype asarray([x1, x2]) gets
    c = np.array([True, False, True])
    want = np.where(c, x1, x2)
    if not xb_target.holds(xb.dtype(want.dtype.name)):
        pytest.skip(f"{xb_target} cannot hold {want.dtype}")
    got = xb.where(xb_target.asarray(c), x1, x2)
    assert got.dtype == xb.dtype(want.dtype.name) and got.backend == xb_target.backend
    np.testing.assert_array_equal(got.numpy(), want, strict=True)
