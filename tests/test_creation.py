"""Creation functions on every target: values against NumPy, xbackend's default dtypes (not the
backend's), the same dtype everywhere, copy semantics of asarray, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend.testing import assert_close, available_targets

from fakecupy import with_cupy_on_numpy  # noqa: E402 (tests/fakecupy.py)

TARGETS = with_cupy_on_numpy(available_targets())  # CuPy on NumPy too: CupyBackend's code on the CPU (issue 28)


def _kw(t):
    return {"backend": t.backend, "device": t.device}


def _native_dtype_ok(x):
    assert x._be.dtype_of(x.native) is x.dtype


# -- asarray --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "obj, dtype",
    [
        (True, xb.bool), (3, xb.int64), (2.5, xb.float64), (1 + 2j, xb.complex128),
        ([1, 2], xb.int64), ([1.0, 2], xb.float64), ([[True], [False]], xb.bool), ([1j, 2], xb.complex128),
        ([2**63], xb.uint64), ((1, 2, 3), xb.int64), ([], xb.float64),
        (np.float32(1.5), xb.float32), (np.int8(3), xb.int8), (np.arange(3, dtype=np.uint16), xb.uint16),
    ],
)  # fmt: skip
def test_asarray_dtypes(xb_target, obj, dtype):
    x = xb.asarray(obj, **_kw(xb_target))
    assert x.dtype is dtype, (obj, x.dtype)
    _native_dtype_ok(x)
    assert x.backend == xb_target.backend
    want = np.asarray(obj)
    assert_close(x, want.astype(dtype.name), check_dtype=False)


def test_asarray_defaults_follow_the_context(xb_target):
    with xb.using(default_float=xb.float32, default_int=xb.int32):
        assert xb.asarray([1.5], **_kw(xb_target)).dtype is xb.float32
        assert xb.asarray([1], **_kw(xb_target)).dtype is xb.int32
        assert xb.asarray(1j, **_kw(xb_target)).dtype is xb.complex64
        assert xb.asarray(np.float64(1.0), **_kw(xb_target)).dtype is xb.float64  # data with a dtype keeps it


_HOST_DTYPES = hnp.scalar_dtypes().filter(lambda d: d.kind in "biufc" and d.itemsize <= 16 and d.byteorder in "=|<")


@given(a=hnp.arrays(_HOST_DTYPES,
                    hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)),
       dtype=st.none() | st.sampled_from([xb.float64, xb.int32, xb.bool, xb.complex128]))  # fmt: skip
def test_asarray_from_numpy_keeps_values_and_dtype(a, dtype):
    assume(a.dtype.name in {d.name for d in (xb.bool, xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16,
                                             xb.uint32, xb.uint64, xb.float16, xb.float32, xb.float64,
                                             xb.complex64, xb.complex128)})  # fmt: skip
    want_dt = xb.dtype(a.dtype.name) if dtype is None else dtype
    if a.dtype.kind == "c" and want_dt.kind != "c":
        return  # complex -> real casts are not what this test is about
    with np.errstate(all="ignore"):
        want = a.astype(want_dt.name)
    for t in filter(lambda t: t.holds(want_dt) and t.holds(xb.dtype(a.dtype.name)), TARGETS):
        x = xb.asarray(a, dtype=dtype, **_kw(t))
        assert x.dtype is want_dt and x.shape == a.shape
        _native_dtype_ok(x)
        if want_dt.kind == "f" and a.dtype.kind == "f":
            assert_close(x, want)
        elif a.dtype.kind in "biu" and want_dt.kind in "biu" and not np.array_equal(a.astype(np.float64),
                                                                                        want.astype(np.float64)):
            continue  # out-of-range integer casts wrap in C; not a promise of xbackend's
        elif not (a.dtype.kind == "f" and want_dt.kind in "biu"):
            assert_close(x, want)


def test_asarray_copy_semantics():
    a = np.arange(4.0)
    x = xb.asarray(a)
    assert x.native is a
    assert xb.asarray(a, copy=False).native is a
    c = xb.asarray(a, copy=True)
    assert c.native is not a and not np.shares_memory(c.native, a)
    assert xb.asarray(x) is x
    assert xb.asarray(x, copy=True).native is not a
    with pytest.raises(xb.CopyError):
        xb.asarray([1.0], copy=False)
    with pytest.raises(xb.CopyError):
        xb.asarray(a, dtype=xb.float32, copy=False)
    assert xb.asarray(a, dtype=xb.float32).dtype is xb.float32


def test_asarray_of_native_stays_on_its_backend():
    torch = pytest.importorskip("torch")
    t = torch.arange(3, dtype=torch.int16)
    x = xb.asarray(t)
    assert x.backend == "torch" and x.native is t and x.dtype is xb.int16
    assert xb.asarray(t, dtype=xb.float32).native.dtype == torch.float32
    m = xb.asarray(t, device="meta")
    assert m.device == "meta"
    n = xb.asarray(t, backend="numpy")
    assert n.backend == "numpy" and n.tolist() == [0, 1, 2]


def test_asarray_of_nested_arrays(xb_target):
    parts = [xb.asarray(1.0), 2.0]
    assert xb.asarray(parts).tolist() == [1.0, 2.0]
    assert xb.asarray([[xb.asarray(1), 2], [3, 4]], **_kw(xb_target)).tolist() == [[1, 2], [3, 4]]


def test_asarray_errors(xb_target):
    with pytest.raises(xb.ScalarOverflowError):
        xb.asarray(128, dtype=xb.int8, **_kw(xb_target))
    with pytest.raises((TypeError, ValueError)):
        xb.asarray([[1, 2], [3]], **_kw(xb_target))
    with pytest.raises(TypeError):
        xb.asarray(object(), **_kw(xb_target))
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.asarray(["x"], **_kw(xb_target))


# -- filled ----------------------------------------------------------------------------------------
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


@pytest.mark.parametrize("fn, value", [(xb.zeros, 0), (xb.ones, 1)])
def test_zeros_ones(xb_target, fn, value):
    for shape in [(), 3, (2, 0), (2, 3)]:
        for dt in (None, xb.int8, xb.bool, xb.complex64, *filter(xb_target.holds, [xb.float16])):
            x = fn(shape, dtype=dt, **_kw(xb_target))
            s = (shape,) if isinstance(shape, int) else shape
            assert x.shape == s and x.dtype is (dt or xb.float64)
            _native_dtype_ok(x)
            assert_close(x, np.full(s, value, dtype=(dt or xb.float64).name))


def test_empty(xb_target):
    x = xb.empty((2, 3), dtype=xb.int32, **_kw(xb_target))
    assert x.shape == (2, 3) and x.dtype is xb.int32
    assert xb.empty(0, **_kw(xb_target)).dtype is xb.float64


@pytest.mark.parametrize(
    "value, dtype, want",
    [(7, None, xb.int64), (0.5, None, xb.float64), (True, None, xb.bool), (1j, None, xb.complex128),
     (3, xb.float32, xb.float32), (True, xb.int8, xb.int8), (np.float32(2), None, xb.float32),
     (np.int8(-3), None, xb.int8)],
)  # fmt: skip
def test_full(xb_target, value, dtype, want):
    x = xb.full((2, 2), value, dtype=dtype, **_kw(xb_target))
    assert x.dtype is want
    _native_dtype_ok(x)
    assert_close(x, np.full((2, 2), value, dtype=want.name))


def test_full_errors(xb_target):
    with pytest.raises(xb.ScalarOverflowError):
        xb.full(2, 300, dtype=xb.uint8, **_kw(xb_target))
    with pytest.raises(TypeError):
        xb.full(2, 1.5, dtype=xb.int32, **_kw(xb_target))
    with pytest.raises(TypeError):
        xb.full(2, 1j, dtype=xb.float32, **_kw(xb_target))
    with pytest.raises(ValueError, match="negative"):
        xb.zeros((2, -1), **_kw(xb_target))


def test_like_functions(xb_target):
    x = xb.asarray(np.arange(6, dtype=np.int16).reshape(2, 3), **_kw(xb_target))
    for fn, val in ((xb.zeros_like, 0), (xb.ones_like, 1)):
        y = fn(x)
        assert y.dtype is xb.int16 and y.shape == (2, 3) and y.backend == x.backend and y.device == x.device
        assert_close(y, np.full((2, 3), val, dtype=np.int16))
        assert fn(x, dtype=xb.float32).dtype is xb.float32
    f = xb.full_like(x, 4)
    assert f.dtype is xb.int16 and f.tolist() == [[4] * 3] * 2
    assert xb.full_like(x, 2.5, dtype=xb.float64).tolist() == [[2.5] * 3] * 2
    with pytest.raises(xb.ScalarOverflowError):
        xb.full_like(x, 40000)
    e = xb.empty_like(x)
    assert e.shape == x.shape and e.dtype is x.dtype
    assert xb.zeros_like(x, device=xb_target.device).device == x.device


def test_like_on_meta():
    pytest.importorskip("torch")
    x = xb.ones(3, backend="torch")
    assert xb.zeros_like(x, device="meta").device == "meta"


# -- ranges ---------------------------------------------------------------------------------------------
@given(start=st.integers(-20, 20), stop=st.none() | st.integers(-20, 20),
       step=st.integers(-5, 5).filter(bool), dtype=st.sampled_from([None, xb.int8, xb.int64, xb.float32]))  # fmt: skip
def test_arange_int(start, stop, step, dtype):
    want = np.arange(start, step=step, dtype=(dtype or xb.int64).name) if stop is None else \
        np.arange(start, stop, step, dtype=(dtype or xb.int64).name)  # fmt: skip
    if stop is None and step != 1:
        return  # the standard's signature takes step with stop only
    for t in TARGETS:
        if stop is None:
            x = xb.arange(start, dtype=dtype, **_kw(t))
        else:
            x = xb.arange(start, stop, step, dtype=dtype, **_kw(t))
        assert x.dtype is (dtype or xb.int64)
        _native_dtype_ok(x)
        assert_close(x, want)


@given(start=st.floats(-100, 100), span=st.floats(-100, 100), n=st.integers(0, 30))
def test_arange_float_length_and_values(start, span, n):
    if n == 0 or span == 0:
        return
    step = span / n
    if step == 0 or not math.isfinite(step):
        return
    stop = start + span
    want_n = max(0, math.ceil((stop - start) / step))
    for t in TARGETS:
        x = xb.arange(start, stop, step, **_kw(t))
        assert x.dtype is xb.float64 and x.shape == (want_n,)
        assert_close(x, start + np.arange(want_n) * step, rtol=1e-12, atol=1e-12)


def test_arange_details(xb_target):
    assert xb.arange(0, 1, 0.25, **_kw(xb_target)).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert xb.arange(5, **_kw(xb_target)).tolist() == [0, 1, 2, 3, 4]
    assert xb.arange(5, 0, -2, **_kw(xb_target)).tolist() == [5, 3, 1]
    assert xb.arange(3, 3, **_kw(xb_target)).shape == (0,)
    assert xb.arange(3, 0, **_kw(xb_target)).shape == (0,)
    assert xb.arange(0.0, 3, **_kw(xb_target)).dtype is xb.float64
    with xb.using(default_int=xb.int32, default_float=xb.float32):
        assert xb.arange(3, **_kw(xb_target)).dtype is xb.int32
        assert xb.arange(1.5, **_kw(xb_target)).dtype is xb.float32
    with pytest.raises(ValueError, match="zero"):
        xb.arange(0, 3, 0, **_kw(xb_target))


_ENDS = st.floats(-1e3, 1e3) | st.sampled_from([math.inf, -math.inf, math.nan, 0.0, -0.0, 1e-310, 1e308, -1e308])


@given(start=_ENDS, stop=_ENDS, num=st.integers(0, 20), endpoint=st.booleans(),
       dtype=st.sampled_from([None, xb.float32, xb.float64, xb.complex128]))  # fmt: skip
def test_linspace_is_numpys_formula_bit_for_bit(start, stop, num, endpoint, dtype):
    """One formula on every backend (``_linspace.py``): NumPy's values to the bit, at infinite and NaN
    endpoints too, where torch.linspace (computed from both ends) gave ``[nan, inf, nan]`` for
    ``linspace(inf, 0, 3)`` and NumPy ``[nan, nan, 0]``."""
    dt = dtype or xb.float64
    with np.errstate(all="ignore"):
        want = np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float64).astype(dt.name)
    for t in TARGETS:
        x = xb.linspace(start, stop, num, endpoint=endpoint, dtype=dtype, **_kw(t))
        assert x.dtype is dt and x.shape == (num,)
        _native_dtype_ok(x)
        np.testing.assert_array_equal(x.numpy(), want, strict=True, err_msg=f"{t}")
        if num >= 2 and endpoint and dt is not xb.float32 and math.isfinite(start - stop):
            assert x[0].item() == start and x[-1].item() == stop


_CEND = st.complex_numbers(max_magnitude=1e3) | st.builds(complex, _ENDS, _ENDS)


@given(start=_CEND, stop=_CEND, num=st.integers(0, 12), endpoint=st.booleans(),
       dtype=st.sampled_from([xb.complex64, xb.complex128]))  # fmt: skip
def test_complex_linspace_spaces_the_parts_separately(start, stop, num, endpoint, dtype):
    """The standard's rule: ``linspace(a+bj, c+dj) == linspace(a, c) + 1j * linspace(b, d)``, each part by the
    real formula, so a NaN part stays in its part (NumPy's complex arithmetic spreads it into both: a known
    difference); for finite endpoints it is NumPy's result."""
    with np.errstate(all="ignore"):
        re = np.linspace(start.real, stop.real, num, endpoint=endpoint)
        im = np.linspace(start.imag, stop.imag, num, endpoint=endpoint)
        want = (re + 0j).astype(dtype.name)
        want.imag = im
        finite = np.isfinite([start, stop]).all()
        if finite:
            np.testing.assert_allclose(want, np.linspace(start, stop, num, endpoint=endpoint).astype(dtype.name),
                                       rtol=1e-6 if dtype is xb.complex64 else 1e-15, atol=1e-300)  # fmt: skip
    for t in TARGETS:
        x = xb.linspace(start, stop, num, endpoint=endpoint, dtype=dtype, **_kw(t))
        assert x.dtype is dtype and x.shape == (num,)
        np.testing.assert_array_equal(x.numpy(), want, strict=True, err_msg=f"{t}")


def test_linspace_complex_and_errors(xb_target):
    x = xb.linspace(0, 1 + 1j, 3, **_kw(xb_target))
    assert x.dtype is xb.complex128 and x.tolist() == [0j, 0.5 + 0.5j, 1 + 1j]
    with pytest.raises(xb.PromotionError, match="complex dtype"):
        xb.linspace(0, 1j, 3, dtype=xb.float64, **_kw(xb_target))
    with pytest.raises(ValueError):
        xb.linspace(0, 1, -1, **_kw(xb_target))
    with pytest.raises(TypeError, match="num must be an int"):
        xb.linspace(0, 1, 2.5, **_kw(xb_target))


@pytest.mark.parametrize("start, stop, num, endpoint", [(0, 10, 4, True), (-3.5, 2.5, 7, False), (5, -5, 6, True),
                                                        (0, 1, 1, True), (0, 255, 3, True)])  # fmt: skip
def test_linspace_integer_dtypes_round_down_like_numpy(xb_target, start, stop, num, endpoint):
    """NumPy 2 rounds integer linspace towards -inf; SciPy and scikit-learn ask for it (issue 23)."""
    for dt in (xb.int64, xb.int16, xb.uint8):
        if dt.kind == "u" and min(start, stop) < 0:
            with pytest.raises(xb.ScalarOverflowError, match="never wraps"):
                xb.linspace(start, stop, num, dtype=dt, endpoint=endpoint, **_kw(xb_target))
            continue
        got = xb.linspace(start, stop, num, dtype=dt, endpoint=endpoint, **_kw(xb_target))
        want = np.linspace(start, stop, num, dtype=dt.name, endpoint=endpoint)
        assert got.dtype is dt and got.numpy().tolist() == want.tolist()
    ends = (xb_target.asarray(np.array(start)), xb_target.asarray(np.array(stop)))  # 0-d endpoints (SciPy)
    assert xb.linspace(*ends, num).tolist() == np.linspace(start, stop, num).tolist()


# -- matrices ----------------------------------------------------------------------------------------------
@given(n=st.integers(0, 5), m=st.none() | st.integers(0, 5), k=st.integers(-6, 6),
       dtype=st.sampled_from([None, xb.int8, xb.bool, xb.complex64]))  # fmt: skip
def test_eye(n, m, k, dtype):
    want = np.eye(n, m, k=k, dtype=(dtype or xb.float64).name)
    for t in TARGETS:
        x = xb.eye(n, m, k=k, dtype=dtype, **_kw(t))
        assert x.dtype is (dtype or xb.float64)
        assert_close(x, want)


@given(a=hnp.arrays(np.int32, hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=4)), k=st.integers(-5, 5))
def test_tril_triu(a, k):
    for t in TARGETS:
        x = xb.asarray(a, **_kw(t))
        lo, hi = xb.tril(x, k=k), xb.triu(x, k=k)
        assert lo.dtype is hi.dtype is xb.int32
        assert_close(lo, np.tril(a, k))
        assert_close(hi, np.triu(a, k))


def test_tril_needs_two_dimensions(xb_target):
    with pytest.raises(ValueError):
        xb.tril(xb.ones(3, **_kw(xb_target)))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(xb_target, indexing):
    a, b, c = np.arange(2), np.arange(3) * 10, np.arange(4) * 100
    got = xb.meshgrid(*(xb.asarray(v, **_kw(xb_target)) for v in (a, b, c)), indexing=indexing)
    want = np.meshgrid(a, b, c, indexing=indexing)
    assert len(got) == 3
    for g, w in zip(got, want):
        assert g.dtype is xb.int64
        assert_close(g, w)
    g0 = got[0]
    g0[...] = -1  # results are independent Arrays, not views of each other
    assert got[1].tolist() == want[1].tolist()
    assert xb.meshgrid() == ()


def test_meshgrid_errors(xb_target):
    x = xb.asarray([1, 2], **_kw(xb_target))
    with pytest.raises(TypeError):
        xb.meshgrid(x, xb.asarray([1.0], **_kw(xb_target)))
    with pytest.raises(ValueError):
        xb.meshgrid(x, indexing="yx")
    with pytest.raises(ValueError):
        xb.meshgrid(xb.ones((2, 2), **_kw(xb_target)))


ALL_DTYPES = [xb.bool, xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64,
              xb.float16, xb.bfloat16, xb.float32, xb.float64, xb.complex64, xb.complex128]  # fmt: skip


CANNOT_HOLD = {("cupy", xb.bfloat16)}  # the documented gaps; any other refusal is a bug


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_every_creation_function_with_every_dtype(xb_target, dt):
    """Each works with the dtype asked for, or refuses with UnsupportedDTypeError (never a library error)."""
    kw = dict(dtype=dt, **_kw(xb_target))
    one = True if dt is xb.bool else 1
    host = {xb.bfloat16: "float32"}.get(dt, dt.name)
    calls = {
        "zeros": (lambda: xb.zeros((2, 3), **kw), np.zeros((2, 3), host)),
        "ones": (lambda: xb.ones((2, 3), **kw), np.ones((2, 3), host)),
        "full": (lambda: xb.full((2,), one, **kw), np.full((2,), one, host)),
        "eye": (lambda: xb.eye(3, 2, k=-1, **kw), np.eye(3, 2, k=-1, dtype=host)),
        "tril": (lambda: xb.tril(xb.ones((3, 3), **kw), k=-1), np.tril(np.ones((3, 3), host), -1)),
        "triu": (lambda: xb.triu(xb.ones((2, 3, 3), **kw), k=1), np.triu(np.ones((2, 3, 3), host), 1)),
        "meshgrid": (lambda: xb.meshgrid(xb.ones(2, **kw), xb.zeros(3, **kw))[0], np.ones((3, 2), host)),
        "zeros_like": (lambda: xb.zeros_like(xb.ones(2, **kw)), np.zeros(2, host)),
        "full_like": (lambda: xb.full_like(xb.ones(2, **kw), one), np.ones(2, host)),
        "empty": (lambda: xb.empty((0, 2), **kw), np.empty((0, 2), host)),
    }
    if dt.kind not in "bc":
        calls["arange"] = (lambda: xb.arange(1, 4, **kw), np.arange(1, 4).astype(host))
    if dt.kind in "fc":
        calls["linspace"] = (lambda: xb.linspace(0, 1, 3, **kw), np.linspace(0, 1, 3).astype(host))
    for name, (make, want) in calls.items():
        try:
            x = make()
        except xb.UnsupportedDTypeError as e:  # only where the backend cannot hold the dtype at all
            assert (xb_target.backend, dt) in CANNOT_HOLD, (name, e)
            assert "Fix" in str(e), (name, e)
            continue
        assert x.dtype is dt, name
        _native_dtype_ok(x)
        assert_close(x, want, check_dtype=False, msg=name)


def test_complex_to_real_casts_raise_everywhere(xb_target):
    """Dropping an imaginary part silently is refused on every path (NumPy and torch only warn)."""
    import numpy as np
    import pytest

    import xbackend as xb

    z = xb.asarray([1 + 2j], backend=xb_target.backend, device=xb_target.device)
    attempts = [
        lambda: z.astype(xb.float64),
        lambda: xb.astype(z, xb.int32),
        lambda: xb.asarray(z, dtype=xb.float32),
        lambda: z.to(dtype=xb.bool),
        lambda: xb.asarray([1j], dtype=xb.float64, backend=xb_target.backend, device=xb_target.device),
        lambda: xb.asarray(1j, dtype=xb.float64, backend=xb_target.backend, device=xb_target.device),
        lambda: xb.asarray(np.complex64(1j), dtype=xb.float32, backend=xb_target.backend, device=xb_target.device),
    ]
    for attempt in attempts:
        with pytest.raises(xb.UnsupportedDTypeError, match="imaginary part"):
            attempt()
    assert xb.real(z).astype(xb.float32).tolist() == [1.0]


# The creation caches (_creation._resolve's cfg.places, _filled's per-function entry and last-call shortcut): two
# calls that differ in exactly one argument must not share a result. Each pair runs A, A, B, B, A (the second call
# of each takes the cached entry, the switch takes the shortcut's miss path) and checks every result against what
# was asked for.
def _place_variants():
    out = {"dtype": ({"dtype": xb.float32}, {"dtype": xb.int64}),
           "dtype by name": ({"dtype": "float32"}, {"dtype": "int16"}),
           "dtype given or default": ({}, {"dtype": xb.float32})}
    try:
        import torch  # noqa: F401
    except ImportError:
        return out
    out["backend"] = ({"backend": "numpy"}, {"backend": "torch"})
    out["device"] = ({"backend": "torch", "device": "cpu"}, {"backend": "torch", "device": "meta"})
    return out


def _expected_place(kw):
    dt = xb.dtype(kw.get("dtype", xb.float64))
    return kw.get("backend", "numpy"), kw.get("device", "cpu"), dt


@pytest.mark.parametrize("which", list(_place_variants()))
@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "full"])
def test_creation_cache_tells_apart_calls_that_differ_in_one_argument(fn, which):
    a, b = _place_variants()[which]
    for kw in (a, a, b, b, a):
        backend, device, dt = _expected_place(kw)
        args = (3, 7.0 if dt.kind == "f" else 7) if fn == "full" else (3,)  # a float fill: default float
        r = getattr(xb, fn)(*args, **kw)
        assert (r.backend, str(r.device), r.dtype, r.shape) == (backend, device, dt, (3,)), (fn, kw)
        assert r.native.dtype == (np.dtype(dt.name) if backend == "numpy" else getattr(__import__(backend), dt.name))
        if fn != "empty" and device != "meta":
            assert r.tolist() == [{"zeros": 0, "ones": 1, "full": 7}[fn]] * 3


def test_creation_cache_tells_apart_functions_and_configs():
    for _ in range(2):  # zeros and ones with identical arguments: each its own function's entry
        assert xb.zeros(2, dtype=xb.int8).tolist() == [0, 0]
        assert xb.ones(2, dtype=xb.int8).tolist() == [1, 1]
    for _ in range(2):  # the same call (no dtype) outside and inside a context that changes the default float
        assert xb.zeros(2).dtype is xb.float64
        with xb.using(default_float=xb.float32):
            assert xb.zeros(2).dtype is xb.float32
            assert xb.empty(2).dtype is xb.float32
        assert xb.empty(2).dtype is xb.float64
    base = xb.set_default(default_float=xb.float32)  # replacing the base config forgets the last call's entry
    try:
        assert xb.zeros(2).dtype is xb.float32
    finally:
        xb.set_default(default_float=xb.float64)
    assert base is not None and xb.zeros(2).dtype is xb.float64


@pytest.mark.parametrize(
    "data,dtype,bad,wider",
    [
        ([1, 300], xb.int8, 300, "int64"),
        ([-300, 1], xb.uint8, -300, "int64"),
        ([2**63], xb.int64, 2**63, "uint64"),
        ([2**64], xb.uint64, 2**64, "float64"),
        ([-(2**63) - 1, 0], xb.int64, -(2**63) - 1, "float64"),
    ],
)
def test_python_ints_beyond_the_dtype_name_a_dtype_that_holds_them(data, dtype, bad, wider):
    note = r" \(inexact: no integer dtype holds it\)" if wider == "float64" else ""
    with pytest.raises(xb.ScalarOverflowError, match=rf"^Python int {bad} in the data does not fit .*"
                       rf"Fix: pass a dtype that holds it, e\.g\. xb\.asarray\(data, dtype=xb\.{wider}\){note}$"):
        xb.asarray(data, dtype=dtype)


@pytest.mark.parametrize("data,bad", [([-129.5, 3.0], -129.5), ([1.0, 127.5, 128.25], 128.25), ([-128.9], None)])
def test_floats_into_ints_name_the_value_that_does_not_fit(data, bad):
    if bad is None:  # truncation towards zero: -128.9 -> -128 fits
        assert xb.asarray(data, dtype=xb.int8).tolist() == [-128]
        return
    with pytest.raises(xb.ScalarOverflowError, match=rf"^value {bad!r} does not fit int8 \(range -128\.\.127\)"):
        xb.asarray(data, dtype=xb.int8)


def test_arange_reaches_both_ends_of_an_integer_dtype():
    assert xb.arange(-128, -126, dtype=xb.int8).tolist() == [-128, -127]
    assert xb.arange(125, 128, dtype=xb.int8).tolist() == [125, 126, 127]
    assert xb.arange(0, 3, dtype=xb.uint8).tolist() == [0, 1, 2]
    with pytest.raises(xb.ScalarOverflowError, match=r"^arange\(\): value -129 does not fit int8"):
        xb.arange(-129, 0, dtype=xb.int8)
    for bad in (1j, True):
        with pytest.raises(xb.ArgumentTypeError, match=r"^arange\(\): .* must be a real number, got (complex|bool)"):
            xb.arange(bad)
        with pytest.raises(xb.ArgumentTypeError, match=r"^arange\(\): .* must be a real number, got (complex|bool)"):
            xb.arange(0, 5, bad)


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like_functions_take_python_data(fn):
    args = (7,) if fn == "full_like" else ()
    r = getattr(xb, fn)([[1, 2, 3]], *args)
    assert r.shape == (1, 3) and r.dtype is xb.int64 and r.backend == "numpy"
    if fn != "empty_like":
        assert r.tolist() == [[{"zeros_like": 0, "ones_like": 1, "full_like": 7}[fn]] * 3]


def test_a_device_bound_to_a_backend_not_yet_used_in_this_process():
    """A device unpickled in a fresh process (x.device of a torch Array) names a backend that process has not
    made yet: ``*_like(..., device=d)`` makes it."""
    pytest.importorskip("torch")
    from xbackend._dispatch import _instances

    d = xb.zeros(1, backend="torch").device
    saved = dict(_instances)
    _instances.clear()  # as in a process that has not used any backend yet
    try:
        r = xb.zeros_like(xb.asarray(np.zeros(2)), device=d)
    finally:
        _instances.clear()
        _instances.update(saved)
    assert r.backend == "torch" and r.tolist() == [0.0, 0.0]


def test_numpys_own_array_likes_are_converted():
    from numpy.lib import user_array

    c = user_array.container([1.5, 2.5])  # NumPy's own array-like that is no ndarray (it converts through DLPack)
    assert xb.asarray(c).tolist() == [1.5, 2.5]


def test_eye_defaults_to_the_main_diagonal(xb_target):
    for args in ((3,), (2, 3), (3, 2)):
        r = xb.eye(*args, backend=xb_target.backend, device=xb_target.device)
        assert r.dtype is xb.float64 and r.tolist() == np.eye(*args).tolist()


class _UnitsArray(np.ndarray):
    """A user's ndarray subclass (like astropy's Quantity): it means more than its values."""


def test_ndarray_subclasses_of_users_are_refused_with_a_fix_that_runs(xb_target):
    from test_error_fixes import _fix_code

    obj = np.arange(3.0).view(_UnitsArray)
    with pytest.raises(xb.ForeignArrayError, match="a subclass of numpy.ndarray") as e:
        xb_target.asarray(obj)
    ns = {"xb": xb, "np": np, "obj": obj}
    r = eval(_fix_code(str(e.value)), ns)  # noqa: S307 - the message's own fix
    assert type(r) is xb.Array and r.tolist() == [0.0, 1.0, 2.0]


# -- the place cache, messages from their first word, integer and bool ranges --------------------------------------
_MAKERS = {
    "zeros": lambda b: xb.zeros(3, backend=b), "ones": lambda b: xb.ones(3, backend=b),
    "empty": lambda b: xb.empty(3, backend=b), "full": lambda b: xb.full(3, 2.0, backend=b),
    "arange": lambda b: xb.arange(3, backend=b), "eye": lambda b: xb.eye(3, backend=b),
    "linspace": lambda b: xb.linspace(0, 1, 3, backend=b),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_MAKERS))
def test_the_place_cache_tells_backends_apart(name):
    """The same call with another backend (every other argument the same objects) lands on that backend."""
    pytest.importorskip("torch")
    for b in ("numpy", "torch", "numpy", "torch"):
        assert _MAKERS[name](b).backend == b, (name, b)


@pytest.mark.parametrize("call, cls, start", [
    (lambda: xb.linspace("a", 1, 3), xb.ArgumentTypeError, "linspace(): start must be a number"),
    (lambda: xb.linspace(0, None, 3), xb.ArgumentTypeError, "linspace(): stop must be a number"),
    (lambda: xb.eye(1.5), xb.ArgumentTypeError, "eye(): n_rows must be an int, got float 1.5."),
    (lambda: xb.eye(2, 2.5), xb.ArgumentTypeError, "eye(): n_cols must be an int, got float 2.5."),
    (lambda: xb.triu(xb.ones((2, 2)), k=1.5), xb.ArgumentTypeError, "triu(): k must be an int, got float 1.5."),
    (lambda: xb.tril(xb.ones((2, 2)), k="1"), xb.ArgumentTypeError, "tril(): k must be an int, got str '1'."),
])  # fmt: skip
def test_creation_messages_name_the_function_then_the_argument(call, cls, start):
    with pytest.raises(cls) as info:
        call()
    assert str(info.value).startswith(start), str(info.value)


@pytest.mark.parametrize("start, stop, step, ok", [(0, 2, 1, True), (1, -1, -1, True), (-1, 1, 1, False),
                                                   (2, 0, -1, False), (0, 3, 1, False), (0, 3, 2, False),
                                                   (0, 1, 5, True)])  # fmt: skip
def test_a_bool_arange_holds_only_0_and_1(start, stop, step, ok):
    want = list(range(start, stop, step))
    assert ok == all(v in (0, 1) for v in want)
    if ok:
        assert xb.arange(start, stop, step, dtype=xb.bool).tolist() == [bool(v) for v in want]
    else:
        with pytest.raises(xb.PromotionError, match=r"^arange\(\): dtype=xb\.bool holds only 0 and 1"):
            xb.arange(start, stop, step, dtype=xb.bool)


@pytest.mark.parametrize("start, stop, dt, bad, holder", [
    (-128.5, 0, xb.int8, -128.5, "int16"), (0, 300, xb.int8, 300.0, "int16"), (0, 127.9, xb.int8, None, None),
    (0, -0.5, xb.uint8, -0.5, "int8"), (255.9, 0, xb.uint8, None, None), (5.0, -129.0, xb.int8, -129.0, "int16"),
])  # fmt: skip
def test_an_integer_linspace_is_floored_and_refused_beyond_the_dtype(start, stop, dt, bad, holder):
    """NumPy 2's rule: float64 values rounded down, then cast; a floored endpoint outside the dtype is refused with
    the value and the smallest dtype that holds its floor."""
    if bad is None:
        want = np.floor(np.linspace(start, stop, 3)).astype(dt.name)
        assert xb.linspace(start, stop, 3, dtype=dt).tolist() == want.tolist()
        return
    with pytest.raises(xb.ScalarOverflowError) as info:
        xb.linspace(start, stop, 3, dtype=dt)
    msg = str(info.value)
    assert msg.startswith(f"linspace(): value {bad} does not fit {dt}") and msg.endswith(f"dtype=xb.{holder}"), msg
