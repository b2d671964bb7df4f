"""Statistical functions (2025.12) on every target: sum, prod, max, min, mean, var, std, cumulative_sum,
cumulative_prod.

* values against an oracle computed on the host from the same drawn NumPy data: float64/complex128 for
  floating results (tolerance: the dtype's eps times the summed magnitudes, the error bound of a
  summation), exact Python integers wrapped to the result's bits for integer results;
* the result dtype follows the documented table (restated below independently of ``_statistical.py``)
  on every target, and the native result really has it; full reductions are 0-d Arrays;
* special values: NaN propagation, empty axes, ``N - correction <= 0``, complex mean per component;
* torch's missing uint16/32/64 kernels: exact emulation (never NotImplementedError);
* autograd flows through sum/mean/var on torch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _dtypes as D
from xbackend.testing import assert_close, assert_equal, default_tolerance, to_host
import xbackend.testing.strategies as xst

REAL_FLOAT = [D.float16, D.float32, D.float64]
NUMERIC = [*D.INTEGER, *REAL_FLOAT, *D.COMPLEX]
ALL = [D.bool, *NUMERIC]
nan, inf = math.nan, math.inf
# unit roundoff of the precision results are *accumulated* in: float16/bfloat16 accumulate in float32 on
# every backend (documented), then round once (covered by the dtype's default rtol)
EPS = {D.float16: 2.0**-24, D.bfloat16: 2.0**-24, D.float32: 2.0**-24, D.float64: 2.0**-53,
       D.complex64: 2.0**-24, D.complex128: 2.0**-53}  # fmt: skip



# --- the documented dtype table, restated -------------------------------------------------------------
def sum_dtype(dt, default_int=D.int64):
    if dt.kind == "b":
        return default_int
    if dt.kind == "i":
        return dt if dt.bits > default_int.bits else default_int
    if dt.kind == "u":
        du = {32: D.uint32, 64: D.uint64}[default_int.bits]
        return dt if dt.bits > du.bits else du
    return dt


def float_dtype(dt, default_float=D.float64):
    return default_float if dt.kind in "biu" else dt


# --- data ---------------------------------------------------------------------------------------------
def _elements(dt, small=False):
    if dt is D.bool:
        return st.booleans()
    if dt.kind in "iu":
        lo, hi = D._INT_RANGE[dt]
        if small:
            return st.integers(max(lo, -3), min(hi, 3))
        return st.integers(max(lo, -(2**40)), min(hi, 2**40)) | st.sampled_from([lo, hi])
    bound = 2.0 if small else 100.0
    real = st.floats(-bound, bound, width=16 if dt is D.float16 else 32, allow_subnormal=False)
    if dt.kind == "c":
        return st.builds(complex, real, real)
    return real


@st.composite
def _case(draw, dtypes=ALL, small=False, max_side=5, max_dims=3, min_dims=0):
    dt = draw(xst.dtypes(dtypes))
    shape = draw(xst.shapes(min_dims=min_dims, max_dims=max_dims, max_side=max_side))
    a = draw(hnp.arrays(np.dtype(dt.name), shape, elements=_elements(dt, small)))
    nd = a.ndim
    if nd == 0:
        axis = draw(st.sampled_from([None, ()]))
    else:
        axis = draw(st.none() | st.integers(-nd, nd - 1)
                    | st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple))  # fmt: skip
    return a, axis, draw(st.booleans())


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        return (axis % ndim,)
    return tuple(axis)


def _wrap(v, dt):
    """A Python int wrapped to ``dt``'s bits (two's complement), as NumPy and torch integer sums do."""
    v %= 1 << dt.bits
    if dt.kind == "i" and v >= 1 << (dt.bits - 1):
        v -= 1 << dt.bits
    return v


def _exact(fn, a, rd, **kw):
    """Exact integer oracle: NumPy over Python ints (object dtype), wrapped to ``rd``."""
    r = np.asarray(fn(a.astype(object), **kw))
    if r.size == 0:
        return r.astype(rd.name)
    return np.vectorize(lambda v: _wrap(int(v), rd), otypes=[object])(r).astype(rd.name)


def _wide(a):
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def _check_result(r, rd, shape):
    assert type(r) is xb.Array
    assert r.dtype is rd, (r.dtype, rd)
    assert r._be.dtype_of(r.native) is rd
    assert isinstance(r.native, r._be.native_array_types()), type(r.native)  # 0-d arrays, never scalars
    assert r.shape == shape, (r.shape, shape)


def _check_sum_like(r, a, axes, want, rd, n):
    """Float results within (n + 1) eps * sum|x| (the summation error bound); integer results exact."""
    if rd.kind in "iu":
        assert_equal(r, want)
        return
    mag = np.sum(np.abs(_wide(a)), axis=axes, keepdims=True) if a.size else np.zeros(1)
    bound = (n + 2) * EPS[rd] * float(np.max(mag, initial=0.0) if np.all(np.isfinite(mag)) else 0.0)
    rtol, atol = default_tolerance(rd)
    assert_close(r, want, rtol=rtol, atol=atol + bound, check_dtype=False)


def _check_prod(r, want, rd, n):
    """A product of n factors is relatively exact to n roundings: |err| <= (n + 1) eps |prod| element by element
    (the condition of a product is 1 in every factor); integer results exact."""
    if rd.kind in "iu":
        assert_equal(r, want)
        return
    rtol, atol = default_tolerance(rd)
    tiny = float(np.finfo(np.float32 if rd in (D.float16, D.float32, D.complex64) else np.float64).smallest_normal)
    assert_close(r, want, rtol=rtol + (n + 1) * EPS[rd], atol=tiny, check_dtype=False)


def _check_elementwise_bound(r, want, bound, rd):
    """|r - want| <= rtol |want| + atol + bound, with ``bound`` an array (one error bound per output element)."""
    got = np.asarray(to_host(r), dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    rtol, atol = default_tolerance(rd)
    with np.errstate(invalid="ignore"):
        ok = (np.abs(got - want) <= rtol * np.abs(want) + atol + bound) | (np.isnan(got) & np.isnan(want))
    assert ok.all(), f"{got[~ok]} vs {want[~ok]} (bound {np.broadcast_to(bound, want.shape)[~ok]})"


# --- sum / prod ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "prod"])
def test_sum_and_prod_match_the_oracle(xb_target, name):
    small = name == "prod"

    @given(case=_case(small=small, max_side=3 if small else 5), data=st.data())
    def check(case, data):
        a, axis, keepdims = case
        dt = xb.dtype(a.dtype.name)
        dtype = data.draw(st.none() | st.sampled_from([D.int64, D.float64, D.float32] if dt.kind != "c"
                                                      else [D.complex128]), label="dtype")  # fmt: skip
        rd = sum_dtype(dt) if dtype is None else dtype
        axes = _axes(axis, a.ndim)
        r = getattr(xb, name)(xb_target.asarray(a), axis=axis, keepdims=keepdims, dtype=dtype)
        np_fn = np.sum if name == "sum" else np.prod
        shape = np.sum(np.zeros(a.shape), axis=axes, keepdims=keepdims).shape
        _check_result(r, rd, shape)
        if rd.kind in "iu":
            src = a if dt.kind != "f" else a.astype(rd.name)  # dtype=int casts floats first (truncation)
            want = _exact(np_fn, src.astype(np.int64) if src.dtype.kind == "b" else src, rd, axis=axes,
                          keepdims=keepdims)  # fmt: skip
        else:
            want = np_fn(_wide(a.astype(rd.name)), axis=axes, keepdims=keepdims)
        n = int(np.prod([a.shape[i] for i in axes])) if axes else 1
        if name == "prod":
            _check_prod(r, want, rd, n)
        else:
            _check_sum_like(r, a, axes, want, rd, n)

    check()


def test_sum_dtype_table(xb_target):
    for dt in filter(xb_target.holds, ALL):
        x = xb_target.asarray(np.ones((2, 3), dtype=dt.name))
        for fn in (xb.sum, xb.prod, xb.cumulative_sum, xb.cumulative_prod):
            kw = {"axis": 1} if fn in (xb.cumulative_sum, xb.cumulative_prod) else {}
            r = fn(x, **kw)
            assert r.dtype is sum_dtype(dt), (fn.__name__, dt, r.dtype)
            assert r._be.dtype_of(r.native) is r.dtype
            with xb.using(default_int=xb.int32):
                r = fn(x, **kw)
            assert r.dtype is sum_dtype(dt, D.int32), (fn.__name__, dt, r.dtype)
            assert r._be.dtype_of(r.native) is r.dtype


def test_integer_sums_wrap_like_numpy(xb_target):
    big = np.array([2**63 - 1, 1, 2], dtype=np.int64)
    assert xb.sum(xb_target.asarray(big)).item() == -(2**63) + 2
    u = np.array([2**64 - 1, 2, 2**63], dtype=np.uint64)
    assert xb.sum(xb_target.asarray(u)).item() == (2**64 - 1 + 2 + 2**63) % 2**64
    assert xb.prod(xb_target.asarray(u)).item() == ((2**64 - 1) * 2 * 2**63) % 2**64
    assert xb.sum(xb_target.asarray(np.array([200, 100], dtype=np.uint8)), dtype=xb.uint8).item() == 44
    assert xb.sum(xb_target.asarray(np.array([2**31, 2**31 + 5], dtype=np.uint32)), dtype=xb.uint32).item() == 5
    assert xb.prod(xb_target.asarray(np.array([2**16, 2**16 + 1], dtype=np.uint32)), dtype=xb.uint32).item() == 2**16


@pytest.mark.parametrize("dt", [D.uint16, D.uint32, D.uint64])
def test_wide_unsigned_never_hit_missing_kernels(xb_target, dt):
    hi = D._INT_RANGE[dt][1]
    a = np.array([[hi, 0, 1], [hi - 1, 7, hi]], dtype=dt.name)
    x = xb_target.asarray(a)
    ints = a.astype(object)
    assert xb.max(x).item() == hi and xb.min(x).item() == 0
    assert xb.max(x, axis=1).tolist() == [hi, hi] and xb.min(x, axis=0).tolist() == [hi - 1, 0, 1]
    assert xb.max(x).dtype is dt and xb.max(x, axis=0)._be.dtype_of(xb.max(x, axis=0).native) is dt
    assert xb.sum(x, dtype=dt).item() == int(ints.sum()) % 2**dt.bits
    assert xb.sum(x, axis=0, dtype=dt).dtype is dt
    assert xb.prod(x, axis=1, dtype=dt).tolist() == [0, (hi - 1) * 7 * hi % 2**dt.bits]
    m = 2**dt.bits
    assert xb.cumulative_sum(x, axis=1, dtype=dt).tolist() == [[hi, hi, 0], [hi - 1, (hi + 6) % m, (2 * hi + 6) % m]]
    assert xb.cumulative_prod(x, axis=0).tolist() == [[hi, 0, 1], [(hi * (hi - 1)) % 2**64, 0, hi]]
    assert_close(xb.mean(x), np.mean(a.astype(np.float64)))
    assert_close(xb.var(x, axis=1), np.var(a.astype(np.float64), axis=1))
    assert xb.all(x).item() is False and xb.any(x, axis=1).tolist() == [True, True]


# --- max / min --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_match_the_oracle(xb_target, name):
    real = [D.bool, *D.INTEGER, *REAL_FLOAT]

    @given(case=_case(dtypes=real), nans=st.booleans())
    def check(case, nans):
        a, axis, keepdims = case
        axes = _axes(axis, a.ndim)
        if nans and a.dtype.kind == "f" and a.size:
            a = a.copy()
            a.reshape(-1)[0] = np.nan
        x = xb_target.asarray(a)
        if any(a.shape[i] == 0 for i in axes):
            with pytest.raises(ValueError, match="empty"):
                getattr(xb, name)(x, axis=axis, keepdims=keepdims)
            return
        r = getattr(xb, name)(x, axis=axis, keepdims=keepdims)
        want = getattr(np, name)(a.astype(object) if a.dtype.kind in "iu" else _wide(a), axis=axes, keepdims=keepdims)
        _check_result(r, xb.dtype(a.dtype.name), np.asarray(want).shape)
        assert_equal(r, np.asarray(want).astype(a.dtype))  # NaN propagates: np.max of float64 is NaN there

    check()


def test_max_min_special_cases(xb_target):
    x = xb_target.asarray(np.array([[1.0, nan, 3.0], [-inf, 2.0, inf]]))
    assert_equal(xb.max(x, axis=1), [nan, inf], check_dtype=False)
    assert_equal(xb.min(x, axis=1), [nan, -inf], check_dtype=False)
    assert math.isnan(xb.max(x).item()) and math.isnan(xb.min(x).item())
    for fn in (xb.max, xb.min):
        with pytest.raises(ValueError, match="empty"):
            fn(xb_target.asarray(np.zeros((0,))))
        with pytest.raises(ValueError, match="empty"):
            fn(xb_target.asarray(np.zeros((2, 0))), axis=1)
        assert fn(xb_target.asarray(np.zeros((2, 0))), axis=0).shape == (0,)
        with pytest.raises(xb.UnsupportedDTypeError, match="complex"):
            fn(xb_target.asarray(np.array([1j])))
        z = fn(xb_target.asarray(np.array(4, dtype=np.int8)))
        assert z.shape == () and z.dtype is xb.int8 and z.item() == 4
        assert fn(xb_target.asarray(np.array(4, dtype=np.int8)), axis=(), keepdims=True).shape == ()


# --- mean / var / std --------------------------------------------------------------------------------------
def test_mean_matches_the_oracle(xb_target):
    @given(case=_case(dtypes=ALL))
    def check(case):
        a, axis, keepdims = case
        axes = _axes(axis, a.ndim)
        dt = xb.dtype(a.dtype.name)
        rd = float_dtype(dt)
        r = xb.mean(xb_target.asarray(a), axis=axis, keepdims=keepdims)
        with np.errstate(invalid="ignore", divide="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = np.mean(_wide(a), axis=axes, keepdims=keepdims)
        if np.iscomplexobj(want):  # empty: NaN in both parts
            want = np.where(np.isnan(want), complex(nan, nan), want)
        _check_result(r, rd, np.asarray(want).shape)
        n = int(np.prod([a.shape[i] for i in axes])) if axes else 1
        mag = np.mean(np.abs(_wide(a)), axis=axes, keepdims=True) if a.size and n else np.zeros(1)
        rtol, atol = default_tolerance(rd)
        assert_close(r, want, rtol=rtol, atol=atol + (n + 2) * EPS[rd] * float(np.max(mag, initial=0.0)),
                     check_dtype=False)  # fmt: skip

    check()


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_match_the_oracle(xb_target, name):
    @given(case=_case(dtypes=[D.bool, D.int8, D.uint32, D.int64, *REAL_FLOAT, *D.COMPLEX]),
           correction=st.sampled_from([0, 1, 0.5, 2.0]))  # fmt: skip
    def check(case, correction):
        a, axis, keepdims = case
        axes = _axes(axis, a.ndim)
        dt = xb.dtype(a.dtype.name)
        rd = D.real_of(float_dtype(dt))
        r = getattr(xb, name)(xb_target.asarray(a), axis=axis, correction=correction, keepdims=keepdims)
        n = int(np.prod([a.shape[i] for i in axes])) if axes else 1
        shape = np.sum(np.zeros(a.shape), axis=axes, keepdims=keepdims).shape
        _check_result(r, rd, shape)
        w = _wide(a)
        if n - correction <= 0 or a.size == 0:
            want = np.full(shape, nan)
            bound = np.zeros(shape)
        else:
            # the two-pass variance's error, per output element: the centred sum of squares to (n + 4) roundings,
            # plus the squared error of the mean (n + 2 roundings of sum|x|), over n - correction
            mu = np.mean(w, axis=axes, keepdims=True)
            s2 = np.sum(np.abs(w - mu) ** 2, axis=axes, keepdims=keepdims)
            dmu = (n + 2) * EPS[rd] * np.sum(np.abs(w), axis=axes, keepdims=keepdims) / n
            want = s2 / (n - correction)
            bound = 4 * ((n + 4) * EPS[rd] * s2 + n * dmu**2) / (n - correction)
            if name == "std":  # d sqrt(v) = dv / (2 sqrt(v)); near v = 0 only sqrt(dv) holds
                with np.errstate(divide="ignore", invalid="ignore"):
                    bound = np.minimum(np.sqrt(bound), np.where(want > 0, bound / (2 * np.sqrt(want)), np.inf))
                want = np.sqrt(want)
        _check_elementwise_bound(r, want, bound, rd)

    check()


def test_mean_var_special_cases(xb_target):
    e = xb_target.asarray(np.zeros((0, 3), dtype=np.float32))
    m = xb.mean(e)
    assert m.dtype is xb.float32 and m.shape == () and math.isnan(m.item())
    assert_equal(xb.mean(e, axis=0), [nan] * 3, check_dtype=False)
    assert xb.mean(e, axis=1).shape == (0,) and xb.var(e, axis=1).shape == (0,)
    assert_equal(xb.var(e, axis=0, keepdims=True), [[nan] * 3], check_dtype=False)
    one = xb_target.asarray(np.array([[1.0, 2.0]]))
    assert_equal(xb.var(one, axis=0, correction=1), [nan, nan])
    assert_equal(xb.std(one, axis=1, correction=1), [math.sqrt(0.5)])
    assert_equal(xb.var(one, axis=1, correction=2), [nan])
    c = xb.mean(xb_target.asarray(np.array([1 + 1j, 2 + 1j, complex(nan, 0)])))  # NaN stays in the real part
    assert c.dtype is xb.complex128 and math.isnan(c.item().real) and c.item().imag == 2 / 3
    assert xb.var(xb_target.asarray(np.array([1j, -1j]))).dtype is xb.float64
    assert xb.var(xb_target.asarray(np.array([1j, -1j], dtype=np.complex64))).item() == 1.0
    assert math.isnan(xb.mean(xb_target.asarray(np.array([1.0, nan]))).item())
    with pytest.raises(ValueError, match="correction"):
        xb.var(one, correction=-1)
    z = xb_target.asarray(np.array(5, dtype=np.int16))
    assert xb.mean(z).dtype is xb.float64 and xb.mean(z).item() == 5.0 and xb.var(z).item() == 0.0
    with xb.using(default_float=xb.float32):
        assert xb.mean(z).dtype is xb.float32 and xb.std(z).dtype is xb.float32
        assert xb.mean(z).native.dtype == xb.mean(xb_target.asarray(np.ones(2, np.float32))).native.dtype


def test_half_precision_accumulates_in_float32(xb_target):
    """float16 accumulates in float32 and rounds once on every backend (NumPy's float16 cumsum stalls at 2048)."""
    if not xb_target.holds(xb.float16):
        pytest.skip(f"{xb_target} cannot hold float16 (Target.holds)")
    x = xb_target.asarray(np.ones(3000, dtype=np.float16))
    assert xb.cumulative_sum(x).dtype is xb.float16 and xb.cumulative_sum(x)[-1].item() == 3000.0
    assert xb.sum(x).item() == 3000.0 and xb.mean(x + 0.5).item() == 1.5
    v = xb_target.asarray(np.array([2048.0] + [1.0] * 64, dtype=np.float16))
    assert xb.sum(v).item() == 2112.0 and xb.var(v).dtype is xb.float16


# --- cumulative_sum / cumulative_prod -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_cumulative_matches_the_oracle(xb_target, name):
    small = name == "cumulative_prod"

    @given(case=_case(small=small, max_side=3 if small else 5, min_dims=1), include_initial=st.booleans())
    def check(case, include_initial):
        a, _, _ = case
        axis = -1 if a.ndim == 1 else a.ndim - 1
        dt = xb.dtype(a.dtype.name)
        rd = sum_dtype(dt)
        kw = {} if a.ndim == 1 else {"axis": axis}
        r = getattr(xb, name)(xb_target.asarray(a), include_initial=include_initial, **kw)
        np_fn = np.cumsum if name == "cumulative_sum" else np.cumprod
        if rd.kind in "iu":
            want = _exact(np_fn, a.astype(np.int64) if dt is D.bool else a, rd, axis=axis)
        else:
            want = np_fn(_wide(a), axis=axis)
        if include_initial:
            shape = list(a.shape)
            shape[axis] = 1
            want = np.concatenate([np.full(shape, 0 if name == "cumulative_sum" else 1, dtype=want.dtype), want],
                                  axis=axis)  # fmt: skip
        _check_result(r, rd, want.shape)
        _check_sum_like(r, a, (axis,), want, rd, a.shape[axis])

    check()


def test_cumulative_errors_and_dtype(xb_target):
    x = xb_target.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))
    for fn in (xb.cumulative_sum, xb.cumulative_prod):
        with pytest.raises(ValueError, match="axis"):
            fn(x)
        with pytest.raises(ValueError, match="0-d"):
            fn(xb_target.asarray(np.array(1.0)))
        with pytest.raises(IndexError):
            fn(x, axis=2)
    assert xb.cumulative_sum(x, axis=0, dtype=xb.float32).dtype is xb.float32
    assert xb.cumulative_sum(x, axis=0, dtype=xb.float32).tolist() == [[0.0, 1.0, 2.0], [3.0, 5.0, 7.0]]
    e = xb.cumulative_sum(xb_target.asarray(np.zeros((2, 0))), axis=1, include_initial=True)
    assert e.shape == (2, 1) and e.tolist() == [[0.0], [0.0]]


# --- shared errors, 0-d, autograd ------------------------------------------------------------------------------
def test_reductions_of_0d_and_axis_errors(xb_target):
    z = xb_target.asarray(np.array(2.5, dtype=np.float32))
    for fn in (xb.sum, xb.prod, xb.max, xb.min, xb.mean, xb.var, xb.std):
        r = fn(z)
        assert r.shape == () and isinstance(r.native, r._be.native_array_types())
        assert fn(z, keepdims=True).shape == () and fn(z, axis=()).shape == ()
    x = xb_target.asarray(np.ones((2, 3)))
    for fn in (xb.sum, xb.prod, xb.max, xb.min, xb.mean, xb.var, xb.std):
        with pytest.raises(xb.AxisError):
            fn(x, axis=2)
        with pytest.raises(ValueError, match="more than once"):
            fn(x, axis=(1, -1))
        assert fn(x, axis=()).shape == (2, 3) and fn(x, axis=[0, 1], keepdims=True).shape == (1, 1)
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.sum(x, dtype=xb.bool)
    with pytest.raises(xb.UnsupportedDTypeError, match="imaginary"):
        xb.sum(xb_target.asarray(np.array([1j])), dtype=xb.float64)


_STAT_GRADS = {
    "sum": lambda x: xb.sum(x, axis=1), "prod": lambda x: xb.prod(x, axis=0), "mean": lambda x: xb.mean(x),
    "var": lambda x: xb.var(x, axis=1), "std": lambda x: xb.std(x, axis=0, correction=1),
    "max": lambda x: xb.max(x, axis=1), "min": lambda x: xb.min(x), "cumulative_sum": lambda x: xb.cumulative_sum(x, axis=1),
    "cumulative_prod": lambda x: xb.cumulative_prod(x, axis=0), "logsumexp-like": lambda x: xb.log(xb.sum(xb.exp(x))),
    "ops": lambda x: xb.sqrt(x * x + 1.0) / (2.0 - x) ** 2 + xb.maximum(x, 0.5) + xb.clip(x, 0.8, 3.0),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_STAT_GRADS))
def test_torch_gradients_are_right(name):
    """Gradient values through xbackend, checked by torch.autograd.gradcheck (finite differences) in float64."""
    torch = pytest.importorskip("torch")
    a = np.array([[1.0, 2.5, 0.3], [3.2, 0.6, 1.7]])  # distinct values: max/min/clip are differentiable here
    t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    fn = _STAT_GRADS[name]
    assert torch.autograd.gradcheck(lambda u: fn(xb.asarray(u)).native, (t,), eps=1e-6, atol=1e-6)


def test_autograd_through_sum_mean_var():
    torch = pytest.importorskip("torch")
    t = torch.tensor([[1.0, 2.0], [3.0, 6.0]], dtype=torch.float64, requires_grad=True)
    x = xb.asarray(t)
    for fn, want in ((lambda: xb.sum(x), [[1.0, 1.0], [1.0, 1.0]]),
                     (lambda: xb.mean(x, axis=0), [[0.5, 0.5], [0.5, 0.5]]),
                     (lambda: xb.sum(x, axis=(), dtype=xb.float64), [[1.0, 1.0], [1.0, 1.0]]),
                     (lambda: xb.var(x, axis=1), [[-0.5, 0.5], [-1.5, 1.5]]),
                     (lambda: xb.cumulative_sum(x, axis=1), [[2.0, 1.0], [2.0, 1.0]])):  # fmt: skip
        r = fn()
        assert r.requires_grad
        r.native.sum().backward()
        assert t.grad.tolist() == want
        t.grad = None


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_mean_on_numpy_is_numpys_mean_bit_for_bit_and_quiet(dt):
    """The NumPy backend takes np.mean's own steps (its sum, divided by the count) without its Python wrapper:
    every value NumPy's, with no warning where a sum overflows."""
    import warnings

    rng = np.random.default_rng(29)
    for shape in [(100,), (7, 13), (3, 4, 5), (1,), (2, 1)]:
        a = (rng.standard_normal(shape) * 10.0 ** rng.integers(-30, 30, shape)).astype(dt)
        x = xb.asarray(a, backend="numpy")
        for axis in [None, *range(len(shape)), *([(0, len(shape) - 1)] if len(shape) > 1 else [])]:
            want = np.mean(a, axis=axis)
            got = xb.mean(x, axis=axis).numpy()
            assert got.dtype == np.dtype(dt) and np.array_equal(got, want), (shape, axis)
    big = xb.asarray(np.full(4, np.finfo(dt).max, dtype=dt), backend="numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert xb.mean(big).item() == np.inf


def test_the_mean_of_nothing_is_nan_without_a_warning(xb_target):
    import warnings

    x = xb.zeros((0, 3), backend=xb_target.backend, device=xb_target.device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's "Mean of empty slice" must not reach the user
        full, cols = xb.mean(x), xb.mean(x, axis=0)
        assert math.isnan(float(full)) and all(math.isnan(v) for v in cols.tolist()) and cols.shape == (3,)
