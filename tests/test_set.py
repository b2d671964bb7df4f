"""unique_all / unique_counts / unique_inverse / unique_values and isin on every target.

The oracle is pure Python over ``tolist()`` values: stable sort (NaNs last; complex lexicographic by real
then imaginary part, NaNs last in each), then a new group wherever neighbours differ by ``!=`` -- so every
NaN is its own value and -0.0 == +0.0 (the value shown is the first occurrence in ``x``). Results must
equal it exactly on every target: values (sign of zero included), indices, inverse, counts and dtypes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _dtypes as D
from xbackend.testing import assert_close, assert_equal, available_targets, shapes_match
import xbackend.testing.strategies as xst

DTYPES = [D.bool, *D.INTEGER, D.float16, D.float32, D.float64, D.complex64, D.complex128]
nan, inf = math.nan, math.inf



def _elements(dt):
    if dt is D.bool:
        return st.booleans()
    if dt.kind in "iu":
        lo, hi = D._INT_RANGE[dt]
        return st.sampled_from(sorted({lo, 0, 1, 2, hi}))
    reals = st.sampled_from([-inf, -1.0, -0.0, 0.0, 1.0, 2.5, inf, nan])
    if dt.kind == "c":
        return st.builds(complex, reals, st.sampled_from([-0.0, 0.0, 1.0, nan]))
    return reals


@st.composite
def _array(draw, dtypes=DTYPES, min_dims=0):
    dt = draw(xst.dtypes(dtypes))
    shape = draw(xst.shapes(min_dims=min_dims, max_dims=3, max_side=5))
    return draw(hnp.arrays(np.dtype(dt.name), shape, elements=_elements(dt)))


def _isnan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _key(v):
    if isinstance(v, complex):
        return (_isnan(v.real), 0.0 if _isnan(v.real) else v.real, _isnan(v.imag), 0.0 if _isnan(v.imag) else v.imag)
    return (_isnan(v), 0 if _isnan(v) else v)


def _oracle(a: np.ndarray):
    flat = a.reshape(-1).tolist()
    order = sorted(range(len(flat)), key=lambda i: _key(flat[i]))
    values, first, counts = [], [], []
    inverse = [0] * len(flat)
    for pos, i in enumerate(order):
        if pos == 0 or flat[i] != flat[order[pos - 1]]:  # Python !=: nan != nan, -0.0 == 0.0
            values.append(flat[i])
            first.append(i)
            counts.append(0)
        counts[-1] += 1
        inverse[i] = len(values) - 1
    return (np.array(values, dtype=a.dtype), np.array(first, dtype=np.int64),
            np.array(inverse, dtype=np.int64).reshape(a.shape), np.array(counts, dtype=np.int64))  # fmt: skip


def _values_equal(got, want):
    assert got.dtype is xb.dtype(want.dtype.name) and shapes_match(got.shape, want.shape)  # None: unknown (lazy)
    assert got._be.dtype_of(got.native) is got.dtype
    if want.dtype.kind == "c":
        assert_equal(xb.real(got), want.real)
        assert_equal(xb.imag(got), want.imag)
        assert_close(xb.real(got), want.real, rtol=0, atol=0, check_sign_of_zero=True)
    else:
        assert_close(got, want, rtol=0, atol=0, check_sign_of_zero=True)


def test_unique_family_matches_the_oracle(xb_target):
    @given(a=_array())
    def check(a):
        x = xb_target.asarray(a)
        values, first, inverse, counts = _oracle(a)
        r = xb.unique_all(x)
        assert type(r).__name__ == "UniqueAllResult" and r._fields == ("values", "indices", "inverse_indices", "counts")
        _values_equal(r.values, values)
        for got, want in ((r.indices, first), (r.inverse_indices, inverse), (r.counts, counts)):
            assert got.dtype is xb.int64 and got._be.dtype_of(got.native) is xb.int64
            assert_equal(got, want)
        c = xb.unique_counts(x)
        assert c._fields == ("values", "counts")
        _values_equal(c.values, values)
        assert_equal(c.counts, counts)
        i = xb.unique_inverse(x)
        assert i._fields == ("values", "inverse_indices")
        _values_equal(i.values, values)
        assert_equal(i.inverse_indices, inverse)
        _values_equal(xb.unique_values(x), values)
        # the standard's identities: values[inverse] rebuilds x, values == x[indices]
        host = r.values.numpy()
        assert_equal(host[r.inverse_indices.numpy()], a)
        assert_equal(host, a.reshape(-1)[r.indices.numpy()])

    check()


def test_each_nan_is_distinct_and_signed_zeros_merge(xb_target):
    x = xb_target.asarray(np.array([nan, -0.0, 1.0, nan, 0.0, 1.0]))
    r = xb.unique_all(x)
    assert_close(r.values, [-0.0, 1.0, nan, nan], check_dtype=False, check_sign_of_zero=True)
    assert r.counts.tolist() == [2, 2, 1, 1]
    assert r.indices.tolist() == [1, 2, 0, 3]
    assert r.inverse_indices.tolist() == [2, 0, 1, 3, 0, 1]
    assert_close(xb.unique_values(xb_target.asarray(np.array([0.0, -0.0]))), [0.0], check_dtype=False,
                 check_sign_of_zero=True)  # fmt: skip


def test_zero_d_and_empty(xb_target):
    r = xb.unique_all(xb_target.asarray(np.array(7, dtype=np.int16)))
    assert shapes_match(r.values.shape, (1,)) and r.values.dtype is xb.int16 and r.values.tolist() == [7]
    assert r.inverse_indices.shape == () and r.inverse_indices.tolist() == 0
    assert r.indices.tolist() == [0] and r.counts.tolist() == [1]
    e = xb.unique_all(xb_target.asarray(np.zeros((2, 0), dtype=np.float32)))
    assert shapes_match(e.values.shape, (0,)) and e.values.dtype is xb.float32
    assert shapes_match(e.indices.shape, (0,)) and shapes_match(e.counts.shape, (0,)) and e.inverse_indices.shape == (2, 0)
    assert e.counts.dtype is xb.int64


def test_wide_unsigned_extremes(xb_target):
    for dt in (D.uint16, D.uint32, D.uint64):
        hi = D._INT_RANGE[dt][1]
        r = xb.unique_counts(xb_target.asarray(np.array([hi, 0, hi, 1 << (dt.bits - 1), 0], dtype=dt.name)))
        assert r.values.dtype is dt and r.values.tolist() == [0, 1 << (dt.bits - 1), hi]
        assert r.counts.tolist() == [2, 1, 2]


def test_index_dtype_follows_default_int(xb_target):
    x = xb_target.asarray(np.array([2, 1, 2]))
    with xb.using(default_int=xb.int32):
        r = xb.unique_all(x)
    for a in (r.indices, r.inverse_indices, r.counts):
        assert a.dtype is xb.int32 and a._be.dtype_of(a.native) is xb.int32
    assert r.values.dtype is xb.int64


# --- isin ----------------------------------------------------------------------------------------------
def test_isin_matches_the_oracle(xb_target):
    @given(a=_array(), b=_array(), invert=st.booleans())
    def check(a, b, invert):
        d1, d2 = xb.dtype(a.dtype.name), xb.dtype(b.dtype.name)
        p = D.PROMOTION.get((d1, d2))
        x1, x2 = xb_target.asarray(a), xb_target.asarray(b)
        if p is None:
            with pytest.raises(xb.PromotionError):
                xb.isin(x1, x2)
            return
        # compare in the promoted dtype, like every other binary function
        with np.errstate(over="ignore", invalid="ignore"):
            pa = a.astype(p.name).reshape(-1).tolist()
            pb = b.astype(p.name).reshape(-1).tolist()
        want = np.array([any(v == w for w in pb) != invert for v in pa], dtype=bool).reshape(a.shape)
        r = xb.isin(x1, x2, invert=invert)
        assert r.dtype is xb.bool and r.shape == a.shape
        assert_equal(r, want)

    check()


def test_isin_scalars_nan_and_zero(xb_target):
    x = xb_target.asarray(np.array([1.0, nan, -0.0, 3.0]))
    assert xb.isin(x, xb_target.asarray(np.array([nan, 0.0, 3.0]))).tolist() == [False, False, True, True]
    assert xb.isin(x, 3).tolist() == [False, False, False, True]
    assert xb.isin(x, nan, invert=True).tolist() == [True, True, True, True]
    r = xb.isin(2, xb_target.asarray(np.array([[1, 2], [3, 4]], dtype=np.uint8)))
    assert r.shape == () and r.dtype is xb.bool and r.item() is True
    u = xb_target.asarray(np.array([2**64 - 1, 5], dtype=np.uint64))
    assert xb.isin(u, 2**64 - 1).tolist() == [True, False]
    c = xb_target.asarray(np.array([1 + 2j, 2 + 1j]))
    assert xb.isin(c, xb_target.asarray(np.array([2 + 1j, nan + 0j]))).tolist() == [False, True]


def test_isin_errors(xb_target):
    with pytest.raises(TypeError, match="at least one Array"):
        xb.isin(1, 2)
    with pytest.raises(xb.PromotionError):
        xb.isin(xb_target.asarray(np.array([1], dtype=np.uint64)), xb_target.asarray(np.array([1], dtype=np.int8)))
    with pytest.raises(xb.ScalarOverflowError):
        xb.isin(xb_target.asarray(np.array([1], dtype=np.uint8)), 300)
    others = [t for t in available_targets() if t.backend != xb_target.backend]
    if others:
        with pytest.raises(xb.BackendMismatchError):
            xb.isin(xb_target.asarray(np.array([1])), others[0].asarray(np.array([1])))


def test_unique_keeps_autograd():
    torch = pytest.importorskip("torch")
    t = torch.tensor([2.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    v = xb.unique_values(xb.asarray(t))
    assert v.requires_grad and v.tolist() == [1.0, 2.0]
    v.native.sum().backward()
    assert t.grad.tolist() == [1.0, 1.0, 0.0]
